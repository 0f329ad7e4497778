//! The snapshot's pool table.
//!
//! Pools sit in chunks of [`CHUNK`], each chunk behind its own `Arc`, the
//! chunk list behind one more. A snapshot's successor shares every chunk a
//! block does not touch and copies the ones it does, so a pool costs no
//! pointer or reference count of its own (two bytes of chunk bookkeeping),
//! and a delta moving `m` pools copies at most `m` chunks.

use std::{collections::BTreeSet, sync::Arc};

use switchyard_catalog::ChainId;

use crate::{
    amm::Quick,
    pool::{Pool, PoolState},
};

/// Pools per chunk: small enough that a block touching a thousand pools
/// copies about sixteen thousand, large enough that the bookkeeping is two
/// bytes a pool.
pub const CHUNK: usize = 16;

/// The pools of a [`Pools`], in index order.
pub type Iter<'a> = std::iter::FlatMap<
    std::slice::Iter<'a, Arc<[Pool]>>,
    std::slice::Iter<'a, Pool>,
    fn(&'a Arc<[Pool]>) -> std::slice::Iter<'a, Pool>,
>;

/// Every pool of a snapshot, in index order. Cheap to clone.
///
/// Beside each chunk of pools sits the chunk of their [`Quick`] shadows,
/// copied and rebuilt with it, so a search reads one cache line per pool
/// it prices in the common case ([`Self::shadow_out`]).
#[derive(Debug, Clone, Default)]
pub struct Pools {
    chunks: Arc<Vec<Arc<[Pool]>>>,
    quick: Arc<Vec<Arc<[Quick]>>>,
    len: usize,
}

impl Pools {
    /// The table of `pools`, in their order.
    pub fn new(pools: Vec<Pool>) -> Self {
        let len = pools.len();
        let mut chunks = Vec::with_capacity(len.div_ceil(CHUNK));
        let mut quick = Vec::with_capacity(len.div_ceil(CHUNK));
        let mut rest = pools.into_iter();
        loop {
            let chunk: Arc<[Pool]> = rest.by_ref().take(CHUNK).collect();
            if chunk.is_empty() {
                break;
            }
            quick.push(chunk.iter().map(Quick::of).collect());
            chunks.push(chunk);
        }
        Self { chunks: Arc::new(chunks), quick: Arc::new(quick), len }
    }

    /// Number of pools.
    pub const fn len(&self) -> usize {
        self.len
    }

    /// Whether there is none.
    pub const fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Pool `k`.
    pub fn get(&self, k: usize) -> Option<&Pool> {
        self.chunks.get(k / CHUNK).and_then(|c| c.get(k % CHUNK))
    }

    /// [`Pool::shadow_out`] of pool `k` (`0.0` when there is none), from
    /// its [`Quick`] shadow where that answers.
    pub fn shadow_out(&self, k: usize, i: usize, j: usize, amount_in: f64) -> f64 {
        let quick = self.quick.get(k / CHUNK).and_then(|c| c.get(k % CHUNK));
        match quick.and_then(|q| q.out(i, j, amount_in)) {
            Some(out) => out,
            None => self.get(k).map_or(0.0, |p| p.shadow_out(i, j, amount_in)),
        }
    }

    /// Every pool, in index order.
    pub fn iter(&self) -> Iter<'_> {
        fn chunk(c: &Arc<[Pool]>) -> std::slice::Iter<'_, Pool> {
            c.iter()
        }
        self.chunks.iter().flat_map(chunk as fn(&Arc<[Pool]>) -> std::slice::Iter<'_, Pool>)
    }

    /// Whether pool `k` is the very same record in both tables (shared, not
    /// copied): a pool no delta between them touched, and no other pool of
    /// its chunk either.
    pub fn shares(&self, other: &Self, k: usize) -> bool {
        match (self.chunks.get(k / CHUNK), other.chunks.get(k / CHUNK)) {
            (Some(a), Some(b)) => Arc::ptr_eq(a, b),
            _ => false,
        }
    }

    /// The chains with a pool whose state differs between `before` and
    /// `self` (only the chunks not shared are compared). `None` when the
    /// tables do not hold the same pools in the same order.
    pub fn chains_changed(&self, before: &Self) -> Option<BTreeSet<ChainId>> {
        let mut changed = BTreeSet::new();
        if self.len != before.len {
            return None;
        }
        if Arc::ptr_eq(&self.chunks, &before.chunks) {
            return Some(changed);
        }
        for (a, b) in self.chunks.iter().zip(before.chunks.iter()) {
            if Arc::ptr_eq(a, b) {
                continue;
            }
            if a.len() != b.len() {
                return None;
            }
            for (p, q) in a.iter().zip(b.iter()) {
                if p.chain != q.chain || p.address != q.address {
                    return None;
                }
                if p.state != q.state {
                    changed.insert(p.chain);
                }
            }
        }
        Some(changed)
    }

    /// Gives pool `k` (which exists) the state `state`, copying its chunk
    /// if another table shares it.
    pub(crate) fn set_state(&mut self, k: usize, state: PoolState) {
        let chunks = Arc::make_mut(&mut self.chunks);
        let Some(chunk) = chunks.get_mut(k / CHUNK) else { return };
        if Arc::get_mut(chunk).is_none() {
            *chunk = chunk.iter().cloned().collect();
        }
        let Some(pool) = Arc::get_mut(chunk).and_then(|c| c.get_mut(k % CHUNK)) else { return };
        pool.state = state;
        let quick = Quick::of(pool);
        let shadows = Arc::make_mut(&mut self.quick);
        let Some(shadows) = shadows.get_mut(k / CHUNK) else { return };
        if Arc::get_mut(shadows).is_none() {
            *shadows = shadows.iter().copied().collect();
        }
        if let Some(q) = Arc::get_mut(shadows).and_then(|c| c.get_mut(k % CHUNK)) {
            *q = quick;
        }
    }
}

impl<'a> IntoIterator for &'a Pools {
    type Item = &'a Pool;
    type IntoIter = Iter<'a>;

    fn into_iter(self) -> Iter<'a> {
        self.iter()
    }
}

impl std::ops::Index<usize> for Pools {
    type Output = Pool;

    /// Pool `k`; panics when there is none, like a slice.
    fn index(&self, k: usize) -> &Pool {
        &self.chunks[k / CHUNK][k % CHUNK]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pool::test_pool;
    use alloy_primitives::U128;

    fn v2(r: u64) -> PoolState {
        PoolState::UniswapV2 { reserves: [U128::from(r), U128::from(r)], fee_bps: 30 }
    }

    #[test]
    fn a_delta_copies_only_the_chunk_it_touches() {
        let n = CHUNK * 3 + 5;
        let table = Pools::new((0..n as u64).map(|r| test_pool(v2(r), vec![18, 18])).collect());
        assert_eq!(table.len(), n);
        assert_eq!(table.iter().count(), n);
        assert_eq!(table.iter().next_back().map(|p| &p.state), Some(&v2(n as u64 - 1)));
        assert!(table.get(n).is_none());
        let mut next = table.clone();
        next.set_state(CHUNK + 2, v2(999));
        assert_eq!(next[CHUNK + 2].state, v2(999));
        assert_eq!(table[CHUNK + 2].state, v2(CHUNK as u64 + 2));
        assert!(next.shares(&table, 0));
        assert!(!next.shares(&table, CHUNK));
        assert!(next.shares(&table, CHUNK * 3 + 4));
        assert_eq!(next.chains_changed(&table), Some(BTreeSet::from([ChainId(1)])));
        assert_eq!(table.chains_changed(&table), Some(BTreeSet::new()));
        let mut same = table.clone();
        same.set_state(1, v2(1));
        assert_eq!(same.chains_changed(&table), Some(BTreeSet::new()), "copied, not changed");
        let shorter = Pools::new(table.iter().take(n - 1).cloned().collect());
        assert_eq!(shorter.chains_changed(&table), None);
        // A second move in the copied chunk writes in place.
        next.set_state(CHUNK + 3, v2(7));
        assert_eq!(next[CHUNK + 3].state, v2(7));
        assert_eq!(next[CHUNK + 2].state, v2(999));
    }
}
