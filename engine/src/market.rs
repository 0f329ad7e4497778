//! Market state (catalog, snapshot, prices, and the EVM world that proves
//! transactions against that snapshot) and the [`PriceCacheActor`] that
//! republishes it when a new snapshot arrives.
//!
//! Readers load the whole [`MarketState`] with one atomic pointer read and
//! never take a lock; a writer builds a new state and swaps it in.

use std::{collections::BTreeSet, sync::Arc};

use actix::prelude::*;
use arc_swap::ArcSwap;
use switchyard_catalog::{Catalog, Market};
use switchyard_kernel::{MarketSnapshot, PriceTable, derive_prices, usd_anchors};

use crate::{
    evm::{NpmArtifacts, artifacts::error_chain, world::World},
    supervise::{Backoff, guarded},
};

/// Everything a request reads, published together.
#[derive(Debug)]
pub struct MarketState {
    /// Catalog.
    pub catalog: Arc<Catalog>,
    /// The market records the snapshot was built from (addresses and
    /// protocol facts the pool states do not carry).
    pub market: Arc<Market>,
    /// Pool state.
    pub snapshot: Arc<MarketSnapshot>,
    /// Prices derived from `snapshot`.
    pub prices: Arc<PriceTable>,
    /// The EVM world of `snapshot`, or why there is none.
    pub world: Result<Arc<World>, String>,
    /// Snapshot indexes of pools the world could not reproduce: no route
    /// goes through them, since no transaction through them can be proven.
    pub unprovable: BTreeSet<u32>,
}

/// What building a state needs besides the snapshot.
#[derive(Debug, Clone)]
pub struct StateInputs {
    /// Catalog.
    pub catalog: Arc<Catalog>,
    /// Market records.
    pub market: Arc<Market>,
    /// The Uniswap bytecode, or why it is missing.
    pub npm: Result<Arc<NpmArtifacts>, String>,
}

/// Builds a state: prices, and the world of the snapshot.
pub fn build_state(inputs: &StateInputs, snapshot: Arc<MarketSnapshot>) -> MarketState {
    let prices = Arc::new(derive_prices(&snapshot, &usd_anchors(&inputs.catalog)));
    let world = inputs.npm.clone().and_then(|npm| {
        World::build(&inputs.catalog, &inputs.market, &snapshot, &prices, &npm)
            .map(Arc::new)
            .map_err(|e| error_chain(&e))
    });
    let mut unprovable = BTreeSet::new();
    match &world {
        Ok(w) => {
            for (k, pool) in snapshot.pools().iter().enumerate() {
                let unbuilt = w
                    .chain(pool.chain)
                    .is_none_or(|c| c.unbuilt.iter().any(|(a, _)| *a == pool.address));
                if unbuilt {
                    unprovable.insert(k as u32);
                }
            }
            for (chain, pool, why) in w.unbuilt() {
                tracing::warn!(%chain, %pool, reason = why, "pool left out of routing: no EVM fixture");
            }
        }
        Err(e) => {
            tracing::error!(error = %e, "no EVM world: routes cannot be proven and are refused")
        }
    }
    MarketState {
        catalog: Arc::clone(&inputs.catalog),
        market: Arc::clone(&inputs.market),
        snapshot,
        prices,
        world,
        unprovable,
    }
}

/// Recomputes prices (and the world) for every published snapshot.
pub(crate) struct PriceCacheActor {
    pub(crate) state: Arc<ArcSwap<MarketState>>,
    pub(crate) inputs: StateInputs,
    pub(crate) backoff: Backoff,
    pub(crate) pause: std::time::Duration,
}

impl PriceCacheActor {
    pub(crate) fn new(state: Arc<ArcSwap<MarketState>>, inputs: StateInputs) -> Self {
        Self { state, inputs, backoff: Backoff::default(), pause: std::time::Duration::ZERO }
    }
}

impl Actor for PriceCacheActor {
    type Context = Context<Self>;

    fn started(&mut self, ctx: &mut Self::Context) {
        Backoff::hold(self.pause, self, ctx);
    }
}

impl Supervised for PriceCacheActor {
    fn restarting(&mut self, _: &mut Self::Context) {
        self.pause = self.backoff.restarted();
    }
}

#[cfg(feature = "fault-injection")]
impl Handler<crate::supervise::Crash> for PriceCacheActor {
    type Result = Result<(), crate::EngineError>;

    fn handle(&mut self, _: crate::supervise::Crash, ctx: &mut Self::Context) -> Self::Result {
        guarded(ctx, "price cache", || panic!("injected fault"))
    }
}

/// A new snapshot to publish (from a feed).
#[derive(Message)]
#[rtype(result = "()")]
pub(crate) struct PublishSnapshot(pub(crate) Arc<MarketSnapshot>);

impl Handler<PublishSnapshot> for PriceCacheActor {
    type Result = ();

    fn handle(&mut self, msg: PublishSnapshot, ctx: &mut Self::Context) {
        let _ = guarded(ctx, "price cache", || {
            self.state.store(Arc::new(build_state(&self.inputs, msg.0)));
            Ok(())
        });
    }
}
