//! Market state: catalog, snapshot, prices, and the EVM world that proves
//! transactions against that snapshot, published together.
//!
//! Readers hold a whole [`MarketState`]; the engine's price cache builds a
//! new one (with [`build_state_after`], sharing the worlds of the chains that
//! did not move) and swaps it in.

use std::{
    collections::{BTreeMap, BTreeSet},
    sync::Arc,
};

use switchyard_catalog::{Catalog, ChainId, Market};
use switchyard_kernel::{MarketSnapshot, PriceTable, derive_prices, usd_anchors};

use crate::evm::{NpmArtifacts, artifacts::error_chain, world::World};

/// Everything a request reads, published together.
#[derive(Debug, Clone)]
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
    /// Snapshot indexes of pools whose feed is stale: not routed through
    /// either, until the feed recovers.
    pub stale: BTreeSet<u32>,
    /// Each chain's revision within its head block: the states of one
    /// block that differ on that chain (a source's pools, then the block's
    /// prices) are numbered from 0 as they are published. With the chain
    /// and the block it names this state's view of the chain for replay.
    pub revisions: BTreeMap<ChainId, u32>,
}

/// One chain's view a state gives: the chain, its head block, and the
/// revision of that block ([`MarketState::revisions`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ViewId {
    /// Chain.
    pub chain: ChainId,
    /// Head block.
    pub block: u64,
    /// Revision within the block.
    pub revision: u32,
}

impl MarketState {
    /// This state's view of `chain`.
    pub fn view_of(&self, chain: ChainId) -> Option<ViewId> {
        let block = self.snapshot.head(chain)?.block_number;
        Some(ViewId { chain, block, revision: self.revisions.get(&chain).copied().unwrap_or(0) })
    }

    /// Every pool no route may go through: unprovable or stale.
    pub fn excluded_pools(&self) -> BTreeSet<u32> {
        if self.stale.is_empty() {
            return self.unprovable.clone();
        }
        self.unprovable.union(&self.stale).copied().collect()
    }

    /// Whether a pool on `chain` (or `other`) is left out because its
    /// feed is stale.
    pub fn stale_on(&self, chain: ChainId, other: Option<ChainId>) -> bool {
        let pools = self.snapshot.pools();
        self.stale.iter().any(|k| {
            pools.get(*k as usize).is_some_and(|p| p.chain == chain || Some(p.chain) == other)
        })
    }
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

/// Builds a state: prices, and the world of the snapshot (the first one:
/// what it leaves out of routing is logged as a warning).
pub fn build_state(inputs: &StateInputs, snapshot: Arc<MarketSnapshot>) -> MarketState {
    let state = build_state_after(inputs, snapshot, None);
    if let Ok(w) = &state.world {
        for (chain, pool, why) in w.unbuilt() {
            tracing::warn!(%chain, %pool, reason = why, "pool left out of routing: no EVM fixture");
        }
    }
    state
}

/// Builds a state after `previous`: the worlds of the chains that did not
/// move are shared with it, not built again.
pub fn build_state_after(
    inputs: &StateInputs,
    snapshot: Arc<MarketSnapshot>,
    previous: Option<&MarketState>,
) -> MarketState {
    let prices = Arc::new(derive_prices(&snapshot, &usd_anchors(&inputs.catalog)));
    prove_state(inputs, snapshot, prices, previous)
}

/// The state of `snapshot` with `prices`, and its world built (sharing
/// `previous`'s worlds of the chains that did not move).
pub fn prove_state(
    inputs: &StateInputs,
    snapshot: Arc<MarketSnapshot>,
    prices: Arc<PriceTable>,
    previous: Option<&MarketState>,
) -> MarketState {
    let before = previous.and_then(|p| Some((&*p.snapshot, &**p.world.as_ref().ok()?)));
    let world = inputs.npm.clone().and_then(|npm| {
        World::build_reusing(&inputs.catalog, &inputs.market, &snapshot, &prices, &npm, before)
            .map(Arc::new)
            .map_err(|e| error_chain(&e))
    });
    match &world {
        Ok(w) => {
            for (chain, pool, why) in w.unbuilt() {
                tracing::debug!(%chain, %pool, reason = why, "pool left out of routing: no EVM fixture");
            }
        }
        Err(e) => {
            tracing::error!(error = %e, "no EVM world: routes cannot be proven and are refused")
        }
    }
    MarketState {
        catalog: Arc::clone(&inputs.catalog),
        market: Arc::clone(&inputs.market),
        unprovable: unprovable(&world, &snapshot),
        snapshot,
        prices,
        world,
        revisions: BTreeMap::new(),
        stale: BTreeSet::new(),
    }
}

/// The indexes of `snapshot`'s pools that `world` does not reproduce (by
/// address: the world may be of an earlier snapshot of the same chains).
pub fn unprovable(world: &Result<Arc<World>, String>, snapshot: &MarketSnapshot) -> BTreeSet<u32> {
    let Ok(w) = world else { return BTreeSet::new() };
    snapshot
        .pools()
        .iter()
        .enumerate()
        .filter(|(_, pool)| {
            w.chain(pool.chain).is_none_or(|c| c.unbuilt.iter().any(|(a, _)| *a == pool.address))
        })
        .map(|(k, _)| k as u32)
        .collect()
}
