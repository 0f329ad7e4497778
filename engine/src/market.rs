//! The [`PriceCacheActor`] that republishes the market state
//! ([`MarketState`], built in `switchyard-exec`) when a new snapshot arrives.
//!
//! Readers load the whole [`MarketState`] with one atomic pointer read and
//! never take a lock; a writer builds a new state and swaps it in.

use std::{
    collections::{BTreeMap, BTreeSet, HashMap},
    sync::Arc,
    time::Instant,
};

use actix::prelude::*;
use alloy_primitives::{Address, U256};

use switchyard_catalog::{ChainId, Market, PoolRecord, market::ChainState};
use switchyard_kernel::{
    ChainHead, MarketSnapshot, PoolState, PriceTable, SnapshotDelta, derive_prices, usd_anchors,
};

use switchyard_exec::{MarketState, StateInputs, market::unprovable, prove_state};

use crate::{
    replay::Published,
    supervise::{Backoff, guarded},
};

/// Histogram: seconds from a change's start (a feed's read of its node,
/// or the arrival of the embedded feed's block) to its publication,
/// labelled `stage`: `quotes` (quotes read the new snapshot) or `proven`
/// (its world is built, so transactions are built and executed on it).
pub const PUBLICATION_SECONDS: &str = "switchyard_publication_seconds";

/// What a price's confidence keeps while its chain has a stale source.
pub const STALE_CONFIDENCE: f64 = 0.25;

/// What a price's confidence keeps on a chain of the embedded demo market:
/// recorded data, not a live market, so never surer than a stale live
/// price.
pub const DEMO_CONFIDENCE: f64 = 0.1;

/// Owns the published state: merges what every feed sends (whole
/// snapshots, pool states by address, a source's records). Each change is
/// stored for quotes at once ([`Self::latest`]); its prices and its world
/// are then derived off the actor thread (on the rayon pool), one proof at
/// a time: changes that arrive meanwhile wait, and only the newest of them
/// is proven next. A publisher's message is answered once a proof that
/// includes its change is stored.
pub(crate) struct PriceCacheActor {
    /// The proven state: a snapshot and the world built from it.
    pub(crate) state: Arc<Published>,
    /// The newest snapshot and its prices, for quotes, as soon as they are
    /// derived (its world is the proven one's, possibly a block behind).
    pub(crate) latest: Arc<Published>,
    pub(crate) inputs: StateInputs,
    pub(crate) backoff: Backoff,
    pub(crate) pause: std::time::Duration,
    /// `(chain, address)` → index in the published snapshot.
    index: HashMap<(ChainId, Address), usize>,
    /// Sources whose pools are left out: `(chain, protocol)`.
    stale_sources: BTreeSet<(ChainId, Arc<str>)>,
    /// The latest head each node source published: `(block, timestamp)`.
    source_heads: std::collections::BTreeMap<(ChainId, Arc<str>), (u64, u64)>,
    /// How many changes were published to `latest`.
    published: u64,
    /// Whether a proof is running.
    proving: bool,
    /// The newest change not proven yet, when a proof is running.
    waiting: Option<Proof>,
    /// The last change whose proof is done (stored, or failed and logged):
    /// publishers wait for theirs.
    proven: tokio::sync::watch::Sender<u64>,
    /// Moves whenever a published snapshot has its prices (what quotes
    /// read is then complete): quote streams recompute on it.
    changed: Arc<tokio::sync::watch::Sender<u64>>,
}

/// A change to prove: its snapshot, with what it was published with.
struct Proof {
    generation: u64,
    /// When the change this proof covers began (see
    /// [`PUBLICATION_SECONDS`]).
    started: Instant,
    snapshot: Arc<MarketSnapshot>,
    inputs: StateInputs,
    stale: BTreeSet<u32>,
}

impl PriceCacheActor {
    pub(crate) fn new(state: Arc<Published>, latest: Arc<Published>, inputs: StateInputs) -> Self {
        let mut me = Self {
            state,
            latest,
            inputs,
            backoff: Backoff::default(),
            pause: std::time::Duration::ZERO,
            index: HashMap::new(),
            stale_sources: BTreeSet::new(),
            source_heads: std::collections::BTreeMap::new(),
            published: 0,
            proving: false,
            waiting: None,
            proven: tokio::sync::watch::Sender::new(0),
            changed: Arc::new(tokio::sync::watch::Sender::new(0)),
        };
        me.reindex(&me.state.load().snapshot.clone());
        me
    }

    /// Moves `changed` whenever what quotes read changes.
    pub(crate) fn notifying(mut self, changed: Arc<tokio::sync::watch::Sender<u64>>) -> Self {
        self.changed = changed;
        self
    }

    fn reindex(&mut self, snapshot: &MarketSnapshot) {
        self.index = snapshot
            .pools()
            .iter()
            .enumerate()
            .filter(|(_, p)| !matches!(p.state, PoolState::Wrap))
            .map(|(k, p)| ((p.chain, p.address), k))
            .collect();
    }

    /// `prices` with the confidence on every chain that has a stale source
    /// cut to [`STALE_CONFIDENCE`] of what it was.
    fn discounted(&self, prices: &Arc<PriceTable>) -> Arc<PriceTable> {
        if self.stale_sources.is_empty() {
            return Arc::clone(prices);
        }
        let mut p = PriceTable::clone(prices);
        let chains: BTreeSet<ChainId> = self.stale_sources.iter().map(|(c, _)| *c).collect();
        for chain in chains {
            p.discount(chain, STALE_CONFIDENCE);
        }
        Arc::new(p)
    }

    fn stale_pools(&self, snapshot: &MarketSnapshot) -> BTreeSet<u32> {
        if self.stale_sources.is_empty() {
            return BTreeSet::new();
        }
        snapshot
            .pools()
            .iter()
            .enumerate()
            .filter(|(_, p)| self.stale_sources.contains(&(p.chain, Arc::from(&p.protocol))))
            .map(|(k, _)| k as u32)
            .collect()
    }

    /// Publishes `snapshot`:
    ///
    /// 1. at once, for quotes ([`Self::latest`]): the snapshot, with the
    ///    prices of the state before (a block's pools are applied in
    ///    microseconds; prices only rank by gas and show USD values) and the
    ///    proven world;
    /// 2. on the rayon pool, when no earlier proof is running (else once it
    ///    is done, unless a newer change replaced this one): its prices,
    ///    stored for quotes as soon as they are derived; then its world,
    ///    which makes it the proven state every transaction is built and
    ///    executed on.
    ///
    /// The answer comes once a proof that includes `snapshot` is done.
    /// `same_pools`: the snapshot has the current one's pools in the same
    /// order (a delta applied), so indexes carry over.
    /// `started`: when the change began (the feed's read of the node, or
    /// the message's arrival); publication times are measured from it.
    fn publish(
        &mut self,
        snapshot: Arc<MarketSnapshot>,
        same_pools: bool,
        started: Instant,
        ctx: &mut Context<Self>,
    ) -> ResponseActFuture<Self, ()> {
        let proven = self.state.load_full();
        let before = self.latest.load_full();
        let (unprovable_now, stale) = if same_pools {
            (before.unprovable.clone(), before.stale.clone())
        } else {
            self.reindex(&snapshot);
            (unprovable(&proven.world, &snapshot), self.stale_pools(&snapshot))
        };
        self.latest.store(MarketState {
            catalog: Arc::clone(&self.inputs.catalog),
            market: Arc::clone(&self.inputs.market),
            unprovable: unprovable_now,
            snapshot: Arc::clone(&snapshot),
            prices: Arc::clone(&before.prices),
            world: proven.world.clone(),
            stale: stale.clone(),
            revisions: BTreeMap::new(),
        });
        metrics::histogram!(PUBLICATION_SECONDS, "stage" => "quotes")
            .record(started.elapsed().as_secs_f64());
        self.published += 1;
        let generation = self.published;
        self.waiting =
            Some(Proof { generation, started, snapshot, inputs: self.inputs.clone(), stale });
        self.prove_next(ctx);
        let mut done = self.proven.subscribe();
        Box::pin(
            async move {
                let _ = done.wait_for(|g| *g >= generation).await;
            }
            .into_actor(self),
        )
    }

    /// Starts proving the waiting change, unless a proof is running.
    fn prove_next(&mut self, ctx: &mut Context<Self>) {
        if self.proving {
            return;
        }
        let Some(Proof { generation, started, snapshot, inputs, stale }) = self.waiting.take()
        else {
            return;
        };
        self.proving = true;
        let previous = self.state.load_full();
        let stale_chains: BTreeSet<ChainId> = self.stale_sources.iter().map(|(c, _)| *c).collect();
        let latest = Arc::clone(&self.latest);
        let changed = Arc::clone(&self.changed);
        let work = crate::jobs::on_pool("price cache", move || {
            let mut prices = derive_prices(&snapshot, &usd_anchors(&inputs.catalog));
            for chain in &stale_chains {
                prices.discount(*chain, STALE_CONFIDENCE);
            }
            let prices = Arc::new(prices);
            // Quotes get the prices at once, while they still read this
            // snapshot.
            let renewed_now = latest
                .update(|cur| {
                    Arc::ptr_eq(&cur.snapshot, &snapshot).then(|| renewed(cur, &prices, None))
                })
                .is_some();
            // Quote streams recompute once a snapshot has its own prices
            // (an answer on the previous prices would show a price impact
            // that is not the market's). A newer snapshot already waiting
            // is announced by its own proof.
            if renewed_now {
                changed.send_modify(|g| *g += 1);
            }
            Ok(prove_state(&inputs, snapshot, prices, Some(&previous)))
        });
        ctx.spawn(work.into_actor(self).map(move |built, act, ctx| {
            match built {
                Ok(mut state) => {
                    metrics::histogram!(PUBLICATION_SECONDS, "stage" => "proven")
                        .record(started.elapsed().as_secs_f64());
                    state.stale = stale;
                    let state = act.state.store(state);
                    act.latest.update(|cur| {
                        Some(if Arc::ptr_eq(&cur.snapshot, &state.snapshot) {
                            MarketState::clone(&state)
                        } else {
                            // A newer snapshot: the freshest prices and
                            // world, never the older pool states.
                            renewed(cur, &state.prices, Some(&state.world))
                        })
                    });
                }
                Err(e) => tracing::error!(error = %crate::error_chain(&e), "world not rebuilt: transactions stay on the previous state"),
            }
            act.proving = false;
            act.proven.send_replace(generation);
            act.prove_next(ctx);
        }));
    }
}

/// `cur` with `prices` (and `world`, if given).
fn renewed(
    cur: &MarketState,
    prices: &Arc<PriceTable>,
    world: Option<&Result<Arc<switchyard_exec::evm::world::World>, String>>,
) -> MarketState {
    MarketState {
        catalog: Arc::clone(&cur.catalog),
        market: Arc::clone(&cur.market),
        unprovable: cur.unprovable.clone(),
        snapshot: Arc::clone(&cur.snapshot),
        prices: Arc::clone(prices),
        world: world.cloned().unwrap_or_else(|| cur.world.clone()),
        stale: cur.stale.clone(),
        revisions: BTreeMap::new(),
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
        // A proof running when the actor stopped was dropped with it: its
        // publishers are answered, and the next change is proven afresh.
        self.proving = false;
        self.proven.send_replace(self.published);
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
    type Result = ResponseActFuture<Self, ()>;

    fn handle(&mut self, msg: PublishSnapshot, ctx: &mut Self::Context) -> Self::Result {
        self.publish(msg.0, false, Instant::now(), ctx)
    }
}

/// New pool states by address, and new heads (the embedded feed).
#[derive(Message)]
#[rtype(result = "()")]
pub(crate) struct ApplyStates {
    pub(crate) heads: Vec<(ChainId, ChainHead)>,
    pub(crate) pools: Vec<(ChainId, Address, PoolState)>,
}

impl Handler<ApplyStates> for PriceCacheActor {
    type Result = ResponseActFuture<Self, ()>;

    fn handle(&mut self, msg: ApplyStates, ctx: &mut Self::Context) -> Self::Result {
        let started = Instant::now();
        let current = Arc::clone(&self.latest.load().snapshot);
        let pools =
            msg.pools.into_iter().filter_map(|(c, a, s)| self.index.get(&(c, a)).map(|k| (*k, s)));
        let delta = SnapshotDelta { heads: msg.heads, pools: pools.collect() };
        match guarded(ctx, "price cache", || Ok(current.apply(&delta)?)) {
            Ok(next) => self.publish(Arc::new(next), true, started, ctx),
            Err(e) => {
                tracing::error!(error = %crate::error_chain(&e), "pool states not applied");
                Box::pin(fut::ready(()))
            }
        }
    }
}

/// Every routable pool of one source on one chain, and its head: they
/// replace what the source published before (an RPC feed).
#[derive(Message)]
#[rtype(result = "()")]
pub(crate) struct ReplaceSource {
    pub(crate) source: Arc<str>,
    pub(crate) head: ChainState,
    /// The node's gas price (`None`: keep the last one).
    pub(crate) gas_price: Option<U256>,
    pub(crate) pools: SourcePools,
    /// Tokens of the records no catalog lists, read from the node.
    pub(crate) tokens: Vec<switchyard_catalog::Token>,
    /// When the feed had the node's answers these records come from.
    pub(crate) read_at: Option<std::time::Instant>,
}

/// What a source publishes of its pools.
#[derive(Debug)]
pub(crate) enum SourcePools {
    /// Every routable pool, as records (their identity and state): they
    /// replace what the source published before.
    All(Vec<PoolRecord>),
    /// Only the pools that moved since the source's last publication (the
    /// same pools otherwise, none new, none gone), as kernel states: set in
    /// place, one [`SnapshotDelta`].
    Moved(Vec<MovedPool>),
}

/// A pool's new state, by its identity.
#[derive(Debug)]
pub(crate) struct MovedPool {
    pub(crate) address: Address,
    /// Its tokens, pool order (markets of one lending pool share its
    /// address: the tokens tell which).
    pub(crate) tokens: Vec<Address>,
    pub(crate) state: PoolState,
}

impl MovedPool {
    /// A listed pool's record, as a moved pool; `None` when its pool could
    /// not hold the state (the snapshot build names it).
    pub(crate) fn of(r: &PoolRecord) -> Option<Self> {
        let state = PoolState::from_record(r)?;
        Some(Self { address: r.common().address, tokens: r.tokens(), state })
    }
}

impl Handler<ReplaceSource> for PriceCacheActor {
    type Result = ResponseActFuture<Self, ()>;

    fn handle(&mut self, msg: ReplaceSource, ctx: &mut Self::Context) -> Self::Result {
        let started = msg.read_at.unwrap_or_else(Instant::now);
        let current = Arc::clone(&self.latest.load().snapshot);
        let (read_at, chain, source) = (msg.read_at, msg.head.chain_id, Arc::clone(&msg.source));
        let built = guarded(ctx, "price cache", || self.replace_source(&current, msg));
        match built {
            // Another source of the chain already published this head.
            Ok(None) => Box::pin(fut::ready(())),
            Ok(Some((next, same_pools))) => {
                let head = next.head(chain).map(|h| h.block_number);
                let published = self.publish(Arc::new(next), same_pools, started, ctx);
                // Quotes read the new snapshot from here on.
                if let Some(t) = read_at {
                    tracing::debug!(%chain, %source, head, node_to_quotes_us = t.elapsed().as_micros() as u64, "price cache: quotes see a feed's block");
                }
                published
            }
            Err(e) => {
                tracing::error!(error = %crate::error_chain(&e), "a feed's pools not published");
                Box::pin(fut::ready(()))
            }
        }
    }
}

impl PriceCacheActor {
    /// The index in `current` of the pool at `address` trading `tokens`.
    /// Markets of one lending pool share its address (Aave's reserves): the
    /// index names one of them, the tokens tell which.
    fn find(
        &self,
        current: &MarketSnapshot,
        chain: ChainId,
        address: Address,
        tokens: &[Address],
    ) -> Option<usize> {
        let same = |p: &switchyard_kernel::Pool| {
            p.chain == chain && p.address == address && *p.tokens == *tokens
        };
        // Only a shared address is searched for: a pool the index does not
        // know at all is new.
        let k = *self.index.get(&(chain, address))?;
        if current.pools().get(k).is_some_and(&same) {
            return Some(k);
        }
        current.pools().iter().position(same)
    }

    /// `current` with `moved` (pools it already holds) at their new states,
    /// and `chain` at `head`.
    fn move_in_place(
        &self,
        current: &MarketSnapshot,
        chain: ChainId,
        head: ChainHead,
        source: &str,
        moved: impl Iterator<Item = MovedPool>,
    ) -> Result<MarketSnapshot, crate::EngineError> {
        let mut pools = Vec::new();
        for m in moved {
            match self.find(current, chain, m.address, &m.tokens) {
                Some(k) => pools.push((k, m.state)),
                None => {
                    tracing::warn!(%chain, source, pool = %m.address, "a moved pool is not in the published state: left as it was")
                }
            }
        }
        Ok(current.apply(&SnapshotDelta { heads: vec![(chain, head)], pools })?)
    }

    /// The snapshot with `msg`'s source replaced: its pools' states moved
    /// in place when it still has the same pools, else the snapshot built
    /// again from the records (every other pool keeping its current state).
    fn replace_source(
        &mut self,
        current: &MarketSnapshot,
        msg: ReplaceSource,
    ) -> Result<Option<(MarketSnapshot, bool)>, crate::EngineError> {
        let chain = msg.head.chain_id;
        let ours = |r: &PoolRecord| {
            let c = r.common();
            c.chain_id == chain && c.protocol == &*msg.source
        };
        let gas = msg
            .gas_price
            .or_else(|| current.head(chain).map(|h| h.gas_price_wei))
            .unwrap_or_default();
        // Several sources follow one chain, each at its own head: the
        // chain's is the newest of their latest heads (a source that rolled
        // back or re-indexed replaces its own), so it never steps back
        // between two sources' publications.
        self.source_heads
            .insert((chain, Arc::clone(&msg.source)), (msg.head.block_number, msg.head.timestamp));
        let (block_number, timestamp) = self
            .source_heads
            .iter()
            .filter(|((c, _), _)| *c == chain)
            .map(|(_, h)| *h)
            .max()
            .unwrap_or((msg.head.block_number, msg.head.timestamp));
        let head = ChainHead { block_number, timestamp, gas_price_wei: gas };
        // A pool of a token neither the catalog lists nor the message brings
        // (a Balancer pool's token that trades nowhere else) cannot be
        // priced: it stays out, and the rest of the source is published.
        let catalog = &self.inputs.catalog;
        let brought: std::collections::HashSet<Address> =
            msg.tokens.iter().filter(|n| n.chain_id == chain).map(|n| n.address).collect();
        let known = |t: &Address| catalog.token(chain, *t).is_some() || brought.contains(t);
        let mut records = match msg.pools {
            SourcePools::Moved(moved) if current.head(chain).is_some() => {
                let moved: Vec<MovedPool> =
                    moved.into_iter().filter(|m| m.tokens.iter().all(known)).collect();
                // Only the head, and the chain is there already (another
                // source of it published this block; its gas price stands).
                let same_block = |h: &ChainHead| {
                    (h.block_number, h.timestamp) == (head.block_number, head.timestamp)
                };
                if moved.is_empty() && current.head(chain).is_some_and(same_block) {
                    return Ok(None);
                }
                let next =
                    self.move_in_place(current, chain, head, &msg.source, moved.into_iter())?;
                return Ok(Some((next, true)));
            }
            SourcePools::Moved(_) => {
                return Err(crate::EngineError::Config(format!(
                    "{} moved pools of chain {chain}, which it never published",
                    msg.source
                )));
            }
            SourcePools::All(records) => records,
        };
        let before_filter = records.len();
        records.retain(|r| r.tokens().iter().all(known));
        if records.len() < before_filter {
            tracing::debug!(%chain, source = %msg.source, pools = before_filter - records.len(), "pools of tokens no catalog lists left out");
        }
        let identity = |r: &PoolRecord| (r.common().address, r.tokens());
        let before: Vec<_> =
            self.inputs.market.pools.iter().filter(|r| ours(r)).map(identity).collect();
        let after: Vec<_> = records.iter().map(identity).collect();
        // A record no state can hold (the full build below refuses it with
        // its reason) takes the long way.
        let moved: Option<Vec<MovedPool>> = records.iter().map(MovedPool::of).collect();
        if let Some(moved) = moved.filter(|_| before == after && current.head(chain).is_some()) {
            let moved = moved.into_iter();
            return Ok(Some((self.move_in_place(current, chain, head, &msg.source, moved)?, true)));
        }
        // Tokens the node told of join the catalog the snapshot, prices,
        // the world and every endpoint read.
        let catalog = &self.inputs.catalog;
        let new: Vec<_> = msg
            .tokens
            .into_iter()
            .filter(|t| catalog.token(t.chain_id, t.address).is_none())
            .collect();
        if !new.is_empty() {
            self.inputs.catalog = Arc::new(catalog.with_tokens(new));
        }
        let mut market = Market::clone(&self.inputs.market);
        market.pools.retain(|r| !ours(r));
        market.pools.extend(records);
        market.chains.retain(|c| c.chain_id != chain);
        market.chains.push(ChainState { block_number, timestamp, gas_price_wei: gas, ..msg.head });
        let built = MarketSnapshot::build(&market, &self.inputs.catalog)?;
        // Everything else keeps the state it has now.
        let mut delta = SnapshotDelta::default();
        for (k, p) in built.pools().iter().enumerate() {
            if p.chain == chain && *p.protocol == *msg.source {
                continue;
            }
            if let Some(old) = self
                .find(current, p.chain, p.address, &p.tokens)
                .and_then(|i| current.pools().get(i))
                && std::mem::discriminant(&old.state) == std::mem::discriminant(&p.state)
            {
                delta.pools.push((k, old.state.clone()));
            }
        }
        delta.heads =
            current.heads().iter().filter(|(c, _)| **c != chain).map(|(c, h)| (*c, *h)).collect();
        delta.heads.push((chain, head));
        self.inputs.market = Arc::new(market);
        Ok(Some((built.apply(&delta)?, false)))
    }
}

/// A source's pools go stale (left out of routing) or recover.
#[derive(Message)]
#[rtype(result = "()")]
pub(crate) struct SetStale {
    pub(crate) chain: ChainId,
    pub(crate) source: Arc<str>,
    pub(crate) stale: bool,
}

impl Handler<SetStale> for PriceCacheActor {
    type Result = ();

    fn handle(&mut self, msg: SetStale, _: &mut Self::Context) {
        let key = (msg.chain, msg.source);
        let changed = if msg.stale {
            self.stale_sources.insert(key)
        } else {
            self.stale_sources.remove(&key)
        };
        if changed {
            // The same states, other pools left out, and the prices (derived
            // again: cheap) with their confidence cut where stale.
            for view in [Arc::clone(&self.state), Arc::clone(&self.latest)] {
                view.update(|now| {
                    let stale = self.stale_pools(&now.snapshot);
                    let fresh = Arc::new(derive_prices(&now.snapshot, &usd_anchors(&now.catalog)));
                    Some(MarketState {
                        catalog: Arc::clone(&now.catalog),
                        market: Arc::clone(&now.market),
                        snapshot: Arc::clone(&now.snapshot),
                        prices: self.discounted(&fresh),
                        world: now.world.clone(),
                        unprovable: now.unprovable.clone(),
                        stale,
                        revisions: BTreeMap::new(),
                    })
                });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use alloy_primitives::address;
    use switchyard_catalog::{loaders, market::UniswapV2Record};
    use switchyard_exec::build_state;

    use super::*;

    const PAIR: Address = address!("b4e16d0168e52d35cacd2c6185b44281ec28c9dc");

    fn pair(reserve0: u64, reserve1: u128) -> PoolRecord {
        PoolRecord::UniswapV2(UniswapV2Record {
            chain_id: ChainId(1),
            address: PAIR,
            protocol: "uniswap-v2".into(),
            token0: address!("a0b86991c6218b36c1d19d4a2e9eb0ce3606eb48"),
            token1: address!("c02aaa39b223fe8d0a0e5c4f27ead9083c756cc2"),
            reserve0: U256::from(reserve0),
            reserve1: U256::from(reserve1),
            fee_bps: 30,
            lp_supply: None,
            k_last: None,
            fee_on: false,
        })
    }

    fn head(block_number: u64) -> ChainState {
        ChainState {
            chain_id: ChainId(1),
            block_number,
            timestamp: 1_800_000_000 + block_number,
            gas_price_wei: U256::ZERO,
        }
    }

    /// A node feed's pools join a market whose other pools have moved since
    /// it was loaded: they keep their current states, not their records'.
    #[test]
    fn a_source_replaces_its_pools_and_leaves_the_rest_as_they_are() {
        let catalog = Arc::new(loaders::embedded_catalog().expect("catalog"));
        let mut market = loaders::embedded_market(&catalog).expect("market");
        market.pools.retain(|p| p.common().chain_id != ChainId(1));
        market.chains.retain(|c| c.chain_id != ChainId(1));
        let start = MarketSnapshot::build(&market, &catalog).expect("snapshot");
        let inputs = StateInputs {
            catalog: Arc::clone(&catalog),
            market: Arc::new(market),
            npm: Err("not needed".into()),
        };
        let first = build_state(&inputs, Arc::new(start.clone()));
        let mut hub = PriceCacheActor::new(
            Arc::new(Published::new(first.clone(), 4)),
            Arc::new(Published::new(first, 4)),
            inputs,
        );
        // The embedded blocks move other chains' pools.
        let stream = loaders::embedded_blocks().expect("blocks");
        let mut current = start.clone();
        for block in stream.blocks.iter().take(40) {
            let (delta, _) = current.replay_block(block, 12);
            current = current.apply(&delta).expect("applies");
        }
        let moved: Vec<_> = current
            .pools()
            .iter()
            .zip(start.pools().iter())
            .filter(|(a, b)| a.state != b.state)
            .map(|(a, _)| (a.chain, a.address, a.state.clone()))
            .collect();
        assert!(!moved.is_empty(), "the blocks moved pools");

        let msg = ReplaceSource {
            source: Arc::from("uniswap-v2"),
            head: head(100),
            gas_price: Some(U256::from(7u8)),
            pools: SourcePools::All(vec![pair(21_000_000_000_000, 7 * 10u128.pow(21))]),
            tokens: Vec::new(),
            read_at: None,
        };
        let (next, same) = hub.replace_source(&current, msg).expect("replaced").expect("a change");
        assert!(!same, "a new pool: the snapshot is built again");
        for (chain, address, state) in &moved {
            let p = next.pools().iter().find(|p| p.chain == *chain && p.address == *address);
            assert_eq!(p.map(|p| &p.state), Some(state), "{chain} {address} kept its state");
        }
        for (chain, h) in current.heads() {
            assert_eq!(next.head(*chain), Some(h), "chain {chain}'s head kept");
        }
        let h1 = next.head(ChainId(1)).expect("chain 1 has a head");
        assert_eq!((h1.block_number, h1.gas_price_wei), (100, U256::from(7u8)));
        let k = next.pools().iter().position(|p| p.address == PAIR).expect("the pair");
        assert!(matches!(next.pools()[k].state, PoolState::UniswapV2 { .. }));

        // The same pool again, new reserves: moved in place, indexes kept.
        hub.reindex(&next);
        let msg = ReplaceSource {
            source: Arc::from("uniswap-v2"),
            head: head(101),
            gas_price: None,
            pools: SourcePools::All(vec![pair(20_000_000_000_000, 8 * 10u128.pow(21))]),
            tokens: Vec::new(),
            read_at: None,
        };
        let (again, same) = hub.replace_source(&next, msg).expect("replaced").expect("a change");
        assert!(same);
        assert_eq!(again.pools().len(), next.pools().len());
        let PoolState::UniswapV2 { reserves, .. } = &again.pools()[k].state else {
            panic!("not the pair")
        };
        assert_eq!(U256::from(reserves[0]), U256::from(20_000_000_000_000u64));
        let h1 = again.head(ChainId(1)).expect("head");
        assert_eq!((h1.block_number, h1.gas_price_wei), (101, U256::from(7u8)), "gas price kept");

        // A second source one block behind: the chain's head stays at the
        // newer one.
        hub.reindex(&again);
        let msg = ReplaceSource {
            source: Arc::from("uniswap-v3"),
            head: head(100),
            gas_price: None,
            pools: SourcePools::All(Vec::new()),
            tokens: Vec::new(),
            read_at: None,
        };
        let (both, same) = hub.replace_source(&again, msg).expect("replaced").expect("a change");
        assert!(same, "no V3 pools before or after");
        assert_eq!(both.head(ChainId(1)).expect("head").block_number, 101);

        // A third source at the chain's head, with nothing moved (and the
        // gas price it read a moment earlier): nothing to publish.
        let msg = ReplaceSource {
            source: Arc::from("curve"),
            head: head(101),
            gas_price: Some(U256::from(9u8)),
            pools: SourcePools::Moved(Vec::new()),
            tokens: Vec::new(),
            read_at: None,
        };
        assert!(hub.replace_source(&both, msg).expect("replaced").is_none());

        // The pair moved, as a kernel state: set in place, the head moves.
        let state = PoolState::uniswap_v2(
            [U256::from(19_000_000_000_000u64), U256::from(9u128 * 10u128.pow(21))],
            30,
        )
        .expect("uint112 reserves");
        let msg = ReplaceSource {
            source: Arc::from("uniswap-v2"),
            head: head(102),
            gas_price: None,
            pools: SourcePools::Moved(vec![MovedPool {
                address: PAIR,
                tokens: both.pools()[k].tokens.to_vec(),
                state: state.clone(),
            }]),
            tokens: Vec::new(),
            read_at: None,
        };
        let (moved, same) = hub.replace_source(&both, msg).expect("replaced").expect("a change");
        assert!(same);
        assert_eq!(moved.pools()[k].state, state);
        assert_eq!(moved.head(ChainId(1)).expect("head").block_number, 102);
    }
}
