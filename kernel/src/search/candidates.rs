//! Candidate paths by amount relaxation over the token graph, in `f64`.
//!
//! From the source, each layer extends the best few labels of every token
//! reached (a label is a path prefix and the shadow amount it delivers)
//! through that token's deepest pools, never revisiting a token or a pool;
//! bridges are taken only by a cross-chain request, once. Every label, at
//! every layer, is then closed into the target through the pools that trade
//! its token against the target (looked up from the target's side, so a tail
//! target's thin pools are found whatever the hubs' degrees). The result is
//! every closed path with its shadow output, best first.
//!
//! Work per request is bounded by `max_hops × labels × max_pools_per_token`
//! expansions per token reached, whatever the size of the market.

use std::{
    collections::HashMap,
    hash::{BuildHasherDefault, Hasher},
};

use crate::{
    graph::{Edge, TokenIx},
    snapshot::MarketSnapshot,
};

/// A hasher for token indices: one multiply, where the default SipHash
/// would cost more than the lookups it serves. Keys are dense `u32`s the
/// kernel assigns, not client input.
#[derive(Default)]
struct TokenHasher(u64);

impl Hasher for TokenHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 = (self.0 ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3);
        }
    }

    fn write_u32(&mut self, x: u32) {
        self.0 = u64::from(x).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }
}

/// Maps keyed by token index.
type TokenMap<V> = HashMap<TokenIx, V, BuildHasherDefault<TokenHasher>>;

/// Most labels kept per token ([`Scope::labels_per_token`] is capped here):
/// a token's labels sit inline, so a layer reaching a thousand tokens
/// allocates nothing per token.
pub(super) const MAX_LABELS: usize = 8;

/// Up to [`MAX_LABELS`] values in insertion order, inline.
#[derive(Clone, Copy)]
struct Few<T: Copy + Default> {
    items: [T; MAX_LABELS],
    len: u8,
}

impl<T: Copy + Default> Default for Few<T> {
    fn default() -> Self {
        Self { items: [T::default(); MAX_LABELS], len: 0 }
    }
}

impl<T: Copy + Default> Few<T> {
    fn as_slice(&self) -> &[T] {
        &self.items[..usize::from(self.len)]
    }

    fn len(&self) -> usize {
        usize::from(self.len)
    }

    /// Appends `v`; a full list is left as it is (callers keep `len` below
    /// the cap).
    fn push(&mut self, v: T) {
        if let Some(slot) = self.items.get_mut(usize::from(self.len)) {
            *slot = v;
            self.len += 1;
        }
    }

    /// Removes the item at `w`, keeping the others' order.
    fn remove(&mut self, w: usize) {
        let n = usize::from(self.len);
        if w < n {
            self.items.copy_within(w + 1..n, w);
            self.len -= 1;
        }
    }
}

/// The edges that close into the target, by the token they leave, each
/// token's in the order found: the list as found, each edge linked to the
/// next of its token, and each token's first; no sort, no vector per
/// token.
struct Closing {
    edges: Vec<(TokenIx, Edge)>,
    /// Per edge, the index of the next edge leaving the same token
    /// (`u32::MAX` after the last).
    next: Vec<u32>,
    first: TokenMap<u32>,
}

impl Closing {
    fn new(edges: Vec<(TokenIx, Edge)>) -> Self {
        let mut next = vec![u32::MAX; edges.len()];
        let mut first: TokenMap<u32> = TokenMap::default();
        first.reserve(edges.len());
        // From the back, so each token's chain runs in the order found.
        for (k, (t, _)) in edges.iter().enumerate().rev() {
            let k = k as u32;
            if let Some(head) = first.insert(*t, k) {
                next[k as usize] = head;
            }
        }
        Self { edges, next, first }
    }

    /// The edges leaving `t`, in the order found.
    fn get(&self, t: TokenIx) -> impl Iterator<Item = Edge> + '_ {
        let mut at = self.first.get(&t).copied().unwrap_or(u32::MAX);
        std::iter::from_fn(move || {
            let (_, e) = *self.edges.get(at as usize)?;
            at = self.next.get(at as usize).copied().unwrap_or(u32::MAX);
            Some(e)
        })
    }

    fn contains(&self, t: TokenIx) -> bool {
        self.first.contains_key(&t)
    }
}

/// Closing pools listed from the target's side, per pool a token expands.
const CLOSING_POOLS_PER_EXPANDED: usize = 64;

/// What a search may use.
pub(super) struct Scope<'a> {
    pub(super) snapshot: &'a MarketSnapshot,
    pub(super) max_hops: usize,
    pub(super) max_pools_per_token: usize,
    pub(super) labels_per_token: usize,
    /// Whether the request crosses chains (exactly one bridge per path).
    pub(super) cross_chain: bool,
    /// Whether an edge may be used at all (filters and quarantine).
    pub(super) allowed: &'a dyn Fn(Edge) -> bool,
}

/// A path and its shadow output.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Candidate {
    pub(super) path: Vec<Edge>,
    pub(super) shadow: f64,
}

#[derive(Clone, Copy)]
struct Label {
    token: TokenIx,
    amount: f64,
    prev: Option<u32>,
    edge: Option<Edge>,
    bridged: bool,
}

/// Shadow output of one edge.
pub(super) fn shadow(snapshot: &MarketSnapshot, edge: Edge, amount: f64) -> f64 {
    match edge {
        Edge::Pool { pool, i, j } => {
            snapshot.pools().shadow_out(pool as usize, usize::from(i), usize::from(j), amount)
        }
        Edge::Bridge { bridge } => {
            snapshot.bridges().get(bridge as usize).map_or(0.0, |b| b.shadow_out(amount))
        }
    }
}

fn visits(labels: &[Label], mut at: Option<u32>, token: TokenIx, edge: Edge) -> bool {
    while let Some(k) = at {
        let l = &labels[k as usize];
        if l.token == token || l.edge.and_then(Edge::pool).is_some_and(|p| Some(p) == edge.pool()) {
            return true;
        }
        at = l.prev;
    }
    false
}

fn path_of(labels: &[Label], mut at: Option<u32>, last: Edge) -> Vec<Edge> {
    let mut path = vec![last];
    while let Some(k) = at {
        let l = &labels[k as usize];
        if let Some(e) = l.edge {
            path.push(e);
        }
        at = l.prev;
    }
    path.reverse();
    path
}

/// Every closed path from `from` to `to` for `amount`, best shadow first
/// (ties in discovery order), at most `limit`.
pub(super) fn candidates(
    scope: &Scope<'_>,
    from: TokenIx,
    to: TokenIx,
    amount: f64,
    limit: usize,
) -> Vec<Candidate> {
    let graph = scope.snapshot.graph();
    // Closing edges by the token they leave: bridges into the target, then
    // the target's deepest pools (depth in the target token, so comparable)
    // taken in reverse. A thinner pool into the target is still found when
    // the expansion meets it.
    let mut found: Vec<(TokenIx, Edge)> = Vec::new();
    for (src, e) in graph.bridges_into(to) {
        if (scope.allowed)(e) {
            found.push((src, e));
        }
    }
    for (t, e) in graph
        .edges_from(to)
        .filter(|(_, e)| matches!(e, Edge::Pool { .. }))
        .take(scope.max_pools_per_token * CLOSING_POOLS_PER_EXPANDED)
    {
        if let Edge::Pool { pool, i, j } = e {
            let back = Edge::Pool { pool, i: j, j: i };
            if (scope.allowed)(back) {
                found.push((t, back));
            }
        }
    }
    let into = Closing::new(found);
    let mut labels = vec![Label { token: from, amount, prev: None, edge: None, bridged: false }];
    let mut layer: Vec<u32> = vec![0];
    // The best amounts at each token over the layers so far.
    let mut seen: TokenMap<Few<f64>> = TokenMap::default();
    let labels_per_token = scope.labels_per_token.clamp(1, MAX_LABELS);
    let mut closed: Vec<(f64, u32, Edge)> = Vec::new();
    for hop in 0..scope.max_hops {
        for &k in &layer {
            let l = labels[k as usize];
            for e in into.get(l.token) {
                let is_bridge = matches!(e, Edge::Bridge { .. });
                if is_bridge && (l.bridged || !scope.cross_chain)
                    || !is_bridge && scope.cross_chain && !l.bridged
                    || visits(&labels, Some(k), to, e)
                {
                    continue;
                }
                let out = shadow(scope.snapshot, e, l.amount);
                if out > 0.0 {
                    closed.push((out, k, e));
                }
            }
        }
        if hop + 1 == scope.max_hops {
            break;
        }
        // Best labels per token reached in this layer (the next layer is
        // taken in token order, a fixed one).
        let mut next: TokenMap<Few<u32>> = TokenMap::default();
        for &k in &layer {
            let l = labels[k as usize];
            // The deepest `max_pools_per_token` usable pools, looking at no
            // more than a few times that many.
            let (mut taken, mut scanned) = (0, 0);
            for (t, e) in graph.edges_from(l.token) {
                let is_bridge = matches!(e, Edge::Bridge { .. });
                if is_bridge {
                    if !scope.cross_chain || l.bridged {
                        continue;
                    }
                } else {
                    if taken == scope.max_pools_per_token
                        || scanned == scope.max_pools_per_token * 4
                    {
                        break;
                    }
                    scanned += 1;
                }
                if t == to {
                    // Closing through a pool the target side did not list.
                    let closes = !is_bridge && (!scope.cross_chain || l.bridged)
                        || is_bridge && scope.cross_chain;
                    if closes && (scope.allowed)(e) && !visits(&labels, Some(k), t, e) {
                        let out = shadow(scope.snapshot, e, l.amount);
                        if out > 0.0 {
                            closed.push((out, k, e));
                        }
                    }
                    continue;
                }
                // Labels of the last layer can only close into the target:
                // a token without a pool into it is not worth quoting there.
                let last_layer = hop + 2 == scope.max_hops;
                if t == from
                    || (last_layer && !into.contains(t))
                    || !(scope.allowed)(e)
                    || (graph.degree(t) <= 1 && !into.contains(t))
                    || visits(&labels, Some(k), t, e)
                {
                    continue;
                }
                if !is_bridge {
                    taken += 1;
                }
                let out = shadow(scope.snapshot, e, l.amount);
                // Dominated: earlier layers already reached `t` with more,
                // `labels_per_token` times, in fewer hops.
                if out <= 0.0
                    || seen.get(&t).is_some_and(|s| {
                        s.len() == labels_per_token && s.as_slice().iter().all(|v| *v >= out)
                    })
                {
                    continue;
                }
                let Ok(id) = u32::try_from(labels.len()) else { break };
                let slot = next.entry(t).or_default();
                if slot.len() == labels_per_token {
                    // Replace the worst, if this one is better.
                    let (w, worst) = slot
                        .as_slice()
                        .iter()
                        .enumerate()
                        .map(|(w, id)| (w, labels[*id as usize].amount))
                        .min_by(|a, b| a.1.total_cmp(&b.1))
                        .unwrap_or((0, f64::INFINITY));
                    if out <= worst {
                        continue;
                    }
                    slot.remove(w);
                }
                slot.push(id);
                labels.push(Label {
                    token: t,
                    amount: out,
                    prev: Some(k),
                    edge: Some(e),
                    bridged: l.bridged || is_bridge,
                });
            }
        }
        let mut reached: Vec<(TokenIx, Few<u32>)> = next.into_iter().collect();
        reached.sort_unstable_by_key(|(t, _)| *t);
        for (t, ids) in &reached {
            // The best `labels_per_token` of what was seen and what is new.
            let best = seen.entry(*t).or_default();
            let mut all = [0.0f64; 2 * MAX_LABELS];
            let n = best.len() + ids.len();
            for (slot, v) in all.iter_mut().zip(
                best.as_slice()
                    .iter()
                    .copied()
                    .chain(ids.as_slice().iter().map(|id| labels[*id as usize].amount)),
            ) {
                *slot = v;
            }
            all[..n].sort_by(|a, b| b.total_cmp(a));
            *best = Few::default();
            for v in &all[..n.min(labels_per_token)] {
                best.push(*v);
            }
        }
        layer = reached.iter().flat_map(|(_, ids)| ids.as_slice().iter().copied()).collect();
        if layer.is_empty() {
            break;
        }
    }
    // Best first; the same closing found from both sides counts once. The
    // order is total, so selecting the best few before sorting them is
    // deterministic; duplicates are equal, so twice the limit keeps enough.
    let order = |a: &(f64, u32, Edge), b: &(f64, u32, Edge)| {
        b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)).then(a.2.cmp(&b.2))
    };
    let keep = limit.saturating_mul(2);
    if closed.len() > keep {
        closed.select_nth_unstable_by(keep, order);
        closed.truncate(keep);
    }
    closed.sort_by(order);
    closed.dedup_by(|a, b| a.1 == b.1 && a.2 == b.2);
    closed.truncate(limit);
    closed
        .into_iter()
        .map(|(shadow, k, e)| Candidate { path: path_of(&labels, Some(k), e), shadow })
        .collect()
}
