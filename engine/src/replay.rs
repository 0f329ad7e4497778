//! Published market states and their replay rings.
//!
//! A [`Published`] cell is what readers load with one atomic pointer read
//! (quotes read `latest`, transactions the proven `state`). Its writers
//! take a mutex, so each new state is compared with the one it replaces:
//! per chain, a state that differs there (its head, a pool, a price, the
//! pools left out) gets the next revision of that block, and is kept in
//! the chain's ring; one that does not keeps the revision of the state it
//! replaces. `(chain, block, revision)` thus names one view of a chain, and
//! the ring holds the views of the last `blocks` blocks of every chain: a
//! quote's `quoteId` names one, and replaying it computes on the very same
//! view. A quote reads no EVM world, so the ring keeps the views without
//! theirs: a held block costs what its pools and prices changed, not a
//! world.

use std::{
    collections::{BTreeSet, HashMap, VecDeque},
    sync::{Arc, Mutex, PoisonError},
};

use arc_swap::{ArcSwap, Guard};
use switchyard_catalog::ChainId;
use switchyard_exec::MarketState;

/// Views kept per block at most: a block's sources and its prices publish
/// a handful; a chain republished more often than this within one block
/// keeps its first views.
pub const MAX_REVISIONS: usize = 256;

/// Why a view cannot be replayed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum ReplayError {
    /// The block (or that revision of it) is no longer held.
    #[error("block {block} of chain {chain} is no longer held (the last {held} blocks are)")]
    Expired {
        /// Chain.
        chain: ChainId,
        /// Block asked for.
        block: u64,
        /// Blocks held per chain.
        held: usize,
    },
    /// The block has not been seen yet.
    #[error("block {block} of chain {chain} is ahead of its head {head}")]
    Ahead {
        /// Chain.
        chain: ChainId,
        /// Block asked for.
        block: u64,
        /// The chain's head.
        head: u64,
    },
    /// The chain has no state at all.
    #[error("chain {0} has no market state")]
    UnknownChain(ChainId),
}

/// One block of a chain: its views, by revision.
#[derive(Debug)]
struct Held {
    block: u64,
    views: Vec<Arc<MarketState>>,
}

/// What a cell keeps for replay.
#[derive(Debug, Default)]
struct Ring {
    chains: HashMap<ChainId, VecDeque<Held>>,
}

/// A published market state, readable without a lock, and the views of the
/// last blocks it published.
#[derive(Debug)]
pub(crate) struct Published {
    current: ArcSwap<MarketState>,
    ring: Mutex<Ring>,
    /// Blocks held per chain (0: none).
    blocks: usize,
}

/// What a held view says in place of its world: quotes read none, and no
/// transaction is built on a held view.
pub(crate) const NO_WORLD: &str = "a replayed view holds no EVM world";

impl Published {
    /// A cell holding `first`, keeping the last `blocks` blocks per chain.
    pub(crate) fn new(first: MarketState, blocks: usize) -> Self {
        let mut ring = Ring::default();
        let first = record(&mut ring, None, first, blocks);
        Self { current: ArcSwap::new(first), ring: Mutex::new(ring), blocks }
    }

    /// Blocks held per chain.
    pub(crate) const fn blocks(&self) -> usize {
        self.blocks
    }

    /// The current state.
    pub(crate) fn load_full(&self) -> Arc<MarketState> {
        self.current.load_full()
    }

    /// The current state, borrowed.
    pub(crate) fn load(&self) -> Guard<Arc<MarketState>> {
        self.current.load()
    }

    /// Publishes what `next` makes of the current state (nothing when it
    /// returns `None`); writers are serialized, so the comparison is always
    /// with the state being replaced. Returns the state published.
    pub(crate) fn update(
        &self,
        next: impl FnOnce(&Arc<MarketState>) -> Option<MarketState>,
    ) -> Option<Arc<MarketState>> {
        let mut ring = self.ring.lock().unwrap_or_else(PoisonError::into_inner);
        let cur = self.current.load_full();
        let state = next(&cur)?;
        let state = record(&mut ring, Some(&cur), state, self.blocks);
        self.current.store(Arc::clone(&state));
        Some(state)
    }

    /// Publishes `state`.
    pub(crate) fn store(&self, state: MarketState) -> Arc<MarketState> {
        self.update(|_| Some(state)).unwrap_or_else(|| self.load_full())
    }

    /// The view `(chain, block, revision)`.
    pub(crate) fn view(
        &self,
        chain: ChainId,
        block: u64,
        revision: u32,
    ) -> Result<Arc<MarketState>, ReplayError> {
        let ring = self.ring.lock().unwrap_or_else(PoisonError::into_inner);
        let held = self.held(&ring, chain, block)?;
        held.views.get(revision as usize).cloned().ok_or(ReplayError::Expired {
            chain,
            block,
            held: self.blocks,
        })
    }

    /// The newest view of `block` on `chain`.
    pub(crate) fn at_block(
        &self,
        chain: ChainId,
        block: u64,
    ) -> Result<Arc<MarketState>, ReplayError> {
        let ring = self.ring.lock().unwrap_or_else(PoisonError::into_inner);
        let held = self.held(&ring, chain, block)?;
        held.views.last().cloned().ok_or(ReplayError::Expired { chain, block, held: self.blocks })
    }

    fn held<'r>(
        &self,
        ring: &'r Ring,
        chain: ChainId,
        block: u64,
    ) -> Result<&'r Held, ReplayError> {
        let head = self
            .current
            .load()
            .snapshot
            .head(chain)
            .map(|h| h.block_number)
            .ok_or(ReplayError::UnknownChain(chain))?;
        if let Some(held) =
            ring.chains.get(&chain).and_then(|r| r.iter().find(|h| h.block == block))
        {
            return Ok(held);
        }
        if block > head {
            return Err(ReplayError::Ahead { chain, block, head });
        }
        Err(ReplayError::Expired { chain, block, held: self.blocks })
    }
}

/// Numbers `state`'s view of every chain against `before` (the state it
/// replaces), keeps the new views in `ring`, and returns it shared.
fn record(
    ring: &mut Ring,
    before: Option<&Arc<MarketState>>,
    mut state: MarketState,
    blocks: usize,
) -> Arc<MarketState> {
    let changed = before.map(|b| changed_chains(b, &state));
    let mut fresh = Vec::new();
    for (&chain, head) in state.snapshot.heads() {
        let same = before.zip(changed.as_ref()).and_then(|(b, changed)| {
            let changed = changed.as_ref().is_none_or(|c| c.contains(&chain));
            let rev = b.revisions.get(&chain)?;
            let same_block = b.snapshot.head(chain)?.block_number == head.block_number;
            (same_block && !changed).then_some(*rev)
        });
        let rev = match same {
            Some(rev) => rev,
            None if blocks == 0 => 0,
            None => {
                let chain_ring = ring.chains.entry(chain).or_default();
                let at = chain_ring.iter().position(|h| h.block == head.block_number);
                let held = match at {
                    Some(i) => &mut chain_ring[i],
                    None => {
                        chain_ring.push_back(Held { block: head.block_number, views: Vec::new() });
                        while chain_ring.len() > blocks {
                            chain_ring.pop_front();
                        }
                        let last = chain_ring.len() - 1;
                        &mut chain_ring[last]
                    }
                };
                let rev = held.views.len();
                if rev < MAX_REVISIONS {
                    fresh.push((chain, head.block_number));
                }
                rev as u32
            }
        };
        state.revisions.insert(chain, rev);
    }
    let state = Arc::new(state);
    if !fresh.is_empty() {
        let view =
            Arc::new(MarketState { world: Err(NO_WORLD.into()), ..MarketState::clone(&state) });
        for (chain, block) in fresh {
            if let Some(held) =
                ring.chains.get_mut(&chain).and_then(|r| r.iter_mut().find(|h| h.block == block))
            {
                held.views.push(Arc::clone(&view));
            }
        }
    }
    state
}

/// The chains on which `after` may read differently from `before`; `None`
/// for all of them.
fn changed_chains(before: &MarketState, after: &MarketState) -> Option<BTreeSet<ChainId>> {
    if before.unprovable != after.unprovable || before.stale != after.stale {
        return None;
    }
    let mut changed = if Arc::ptr_eq(&before.snapshot, &after.snapshot) {
        BTreeSet::new()
    } else {
        after.snapshot.chains_changed(&before.snapshot)?
    };
    let chains: Vec<ChainId> = after.snapshot.heads().keys().copied().collect();
    if !Arc::ptr_eq(&before.prices, &after.prices) {
        changed.extend(chains.iter().filter(|c| !after.prices.same_on(&before.prices, **c)));
    }
    Some(changed)
}

#[cfg(test)]
mod tests {
    use switchyard_catalog::loaders;
    use switchyard_exec::{StateInputs, build_state};
    use switchyard_kernel::{MarketSnapshot, PriceTable, SnapshotDelta};

    use super::*;

    fn start() -> MarketState {
        let catalog = Arc::new(loaders::embedded_catalog().expect("catalog"));
        let market = loaders::embedded_market(&catalog).expect("market");
        let snapshot = MarketSnapshot::build(&market, &catalog).expect("snapshot");
        let inputs = StateInputs { catalog, market: Arc::new(market), npm: Err("none".into()) };
        build_state(&inputs, Arc::new(snapshot))
    }

    /// `cur` with `chain`'s head one block on.
    fn next_block(cur: &MarketState, chain: ChainId) -> MarketState {
        let mut head = *cur.snapshot.head(chain).expect("head");
        head.block_number += 1;
        let delta = SnapshotDelta { heads: vec![(chain, head)], pools: Vec::new() };
        MarketState {
            snapshot: Arc::new(cur.snapshot.apply(&delta).expect("applies")),
            ..cur.clone()
        }
    }

    /// The same view: snapshot, prices and revisions.
    fn same(a: &MarketState, b: &MarketState) -> bool {
        Arc::ptr_eq(&a.snapshot, &b.snapshot)
            && Arc::ptr_eq(&a.prices, &b.prices)
            && a.revisions == b.revisions
    }

    #[test]
    fn a_view_keeps_its_revision_until_its_chain_changes() {
        let (a, b) = (ChainId(1), ChainId(8453));
        let cell = Published::new(start(), 3);
        let first = cell.load_full();
        let (a0, b0) = (first.view_of(a).expect("a"), first.view_of(b).expect("b"));
        assert_eq!((a0.revision, b0.revision), (0, 0));

        // Chain a moves: b's view stays the one it was, and is not kept again.
        let s1 = cell.update(|cur| Some(next_block(cur, a))).expect("published");
        assert_eq!(s1.view_of(a).map(|v| (v.block, v.revision)), Some((a0.block + 1, 0)));
        assert_eq!(s1.view_of(b), Some(b0));
        assert!(same(&cell.view(b, b0.block, 0).expect("held"), &first));

        // New prices on the same snapshot: a second revision of a's block
        // (only a's prices differ).
        let mut prices = PriceTable::clone(&s1.prices);
        prices.discount(a, 0.5);
        let s2 = cell
            .update(|cur| Some(MarketState { prices: Arc::new(prices), ..MarketState::clone(cur) }))
            .expect("published");
        assert_eq!(s2.view_of(a).map(|v| v.revision), Some(1));
        assert_eq!(s2.view_of(b), Some(b0));
        assert!(same(&cell.view(a, a0.block + 1, 1).expect("held"), &s2));
        assert!(same(&cell.view(a, a0.block + 1, 0).expect("held"), &s1));
        assert!(same(&cell.at_block(a, a0.block + 1).expect("held"), &s2));
        assert_eq!(
            cell.view(a, a0.block + 1, 1).expect("held").world.as_ref().err().map(String::as_str),
            Some(NO_WORLD)
        );

        // Three more blocks of a: its first block leaves the ring, b's
        // (still its head) stays.
        for _ in 0..3 {
            cell.update(|cur| Some(next_block(cur, a)));
        }
        assert!(matches!(cell.view(a, a0.block, 0), Err(ReplayError::Expired { .. })));
        assert!(matches!(cell.view(a, a0.block + 1, 0), Err(ReplayError::Expired { .. })));
        assert!(cell.view(a, a0.block + 2, 0).is_ok());
        assert!(matches!(cell.view(a, a0.block + 9, 0), Err(ReplayError::Ahead { .. })));
        assert!(cell.view(b, b0.block, 0).is_ok());
        assert!(matches!(cell.view(b, b0.block, 1), Err(ReplayError::Expired { .. })));
        assert!(matches!(cell.view(ChainId(999), 1, 0), Err(ReplayError::UnknownChain(_))));
    }

    #[test]
    fn holding_no_blocks_keeps_nothing() {
        let cell = Published::new(start(), 0);
        let a = ChainId(1);
        let block = cell.load().view_of(a).expect("a").block;
        cell.update(|cur| Some(next_block(cur, a)));
        assert!(matches!(cell.view(a, block, 0), Err(ReplayError::Expired { .. })));
        assert!(matches!(cell.at_block(a, block + 1), Err(ReplayError::Expired { .. })));
    }
}
