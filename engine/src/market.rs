//! Market state (catalog, snapshot, prices) and the [`PriceCacheActor`]
//! that republishes it when a new snapshot arrives.
//!
//! Readers load the whole [`MarketState`] with one atomic pointer read and
//! never take a lock; a writer builds a new state and swaps it in.

use std::sync::Arc;

use actix::prelude::*;
use arc_swap::ArcSwap;
use switchyard_catalog::Catalog;
use switchyard_kernel::{MarketSnapshot, PriceTable, derive_prices, usd_anchors};

/// Everything a request reads, published together.
#[derive(Debug)]
pub struct MarketState {
    /// Catalog.
    pub catalog: Arc<Catalog>,
    /// Pool state.
    pub snapshot: Arc<MarketSnapshot>,
    /// Prices derived from `snapshot`.
    pub prices: Arc<PriceTable>,
}

/// Builds a state, deriving the prices.
pub fn build_state(catalog: Arc<Catalog>, snapshot: Arc<MarketSnapshot>) -> MarketState {
    let prices = Arc::new(derive_prices(&snapshot, &usd_anchors(&catalog)));
    MarketState { catalog, snapshot, prices }
}

/// Recomputes prices for every published snapshot.
pub(crate) struct PriceCacheActor {
    pub(crate) state: Arc<ArcSwap<MarketState>>,
}

impl Actor for PriceCacheActor {
    type Context = Context<Self>;
}

impl Supervised for PriceCacheActor {}

/// A new snapshot to publish (from a feed).
#[derive(Message)]
#[rtype(result = "()")]
pub(crate) struct PublishSnapshot(pub(crate) Arc<MarketSnapshot>);

impl Handler<PublishSnapshot> for PriceCacheActor {
    type Result = ();

    fn handle(&mut self, msg: PublishSnapshot, _: &mut Self::Context) {
        let catalog = Arc::clone(&self.state.load().catalog);
        self.state.store(Arc::new(build_state(catalog, msg.0)));
    }
}
