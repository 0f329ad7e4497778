//! Split allocation over candidate paths, in `f64`.
//!
//! Greedy water-filling sends the input in equal chunks, each to the path
//! whose shadow marginal output is best on the flow already placed (from
//! nothing, or from a seed such as the optimal flow's own shares), then a
//! marginal exchange refines the allocation (move a share from the path
//! whose last unit earns least to the one whose next unit earns most, while
//! the total improves, halving the share) until the marginal outputs of the
//! paths in use are about equal, which is where the optimum of concave paths
//! lies. Paths that share a pool see each other's flow: the output of a hop
//! is `f(c + x) − f(c)` for the flow `c` already through the pool in that
//! direction (path-independent for the curves we price; a bridge's fixed fee
//! is paid once per path). Each pool direction's flow has a slot, fixed per
//! path and hop before the allocation starts, that keeps `c` and `f(c)`.
//!
//! Only the fractions leave this module; the plan's amounts come from the
//! exact simulation of the chosen allocation.

use std::collections::BTreeMap;

use crate::{graph::Edge, snapshot::MarketSnapshot};

use super::candidates::shadow;

/// Smallest share of a split worth its own path.
pub(super) const MIN_SPLIT_SHARE: f64 = 0.01;

/// How far under the seeded shares [`allocate`] starts.
const SEED_MARGIN: f64 = 1e-6;

/// Where each hop of each path books its flow: one slot per pool
/// direction, shared by every path through it, and one per path's bridge
/// (a bridge's fixed fee is paid per path).
struct Slots {
    /// Per path, per hop: its slot.
    of: Vec<Vec<usize>>,
    /// Each slot by its key: `(usize::MAX, edge)` for a pool direction,
    /// `(path, edge)` for a bridge.
    index: BTreeMap<(usize, Edge), usize>,
}

impl Slots {
    fn new(paths: &[&[Edge]]) -> Self {
        let mut index = BTreeMap::new();
        let of = paths
            .iter()
            .enumerate()
            .map(|(k, path)| {
                path.iter()
                    .map(|&e| {
                        let key = match e {
                            Edge::Pool { .. } => (usize::MAX, e),
                            Edge::Bridge { .. } => (k, e),
                        };
                        let next = index.len();
                        *index.entry(key).or_insert(next)
                    })
                    .collect()
            })
            .collect();
        Self { of, index }
    }

    fn count(&self) -> usize {
        self.index.len()
    }

    /// The slot of a pool direction, if a path goes through it.
    fn of_pool(&self, edge: Edge) -> Option<usize> {
        self.index.get(&(usize::MAX, edge)).copied()
    }
}

/// Flow already placed, per slot: the amount and its shadow output (kept,
/// so that the next push through the slot prices one amount, not two).
#[derive(Clone)]
struct Flow(Vec<(f64, f64)>);

impl Flow {
    fn new(slots: &Slots) -> Self {
        Self(vec![(0.0, 0.0); slots.count()])
    }
}

/// Output of `x` more down `path` (booked at `slots`), on the flow placed;
/// commits it if asked.
fn push(
    snapshot: &MarketSnapshot,
    flow: &mut Flow,
    slots: &[usize],
    path: &[Edge],
    x: f64,
    commit: bool,
) -> f64 {
    let mut amt = x;
    for (&e, &s) in path.iter().zip(slots) {
        let (c, before) = flow.0[s];
        let total = shadow(snapshot, e, c + amt);
        if commit {
            flow.0[s] = (c + amt, total);
        }
        let out = total - before;
        if out.is_nan() || out <= 0.0 {
            return 0.0;
        }
        amt = out;
    }
    amt
}

/// Whether `x` more down `path` (booked at `slots`) goes through, on the
/// flow placed, without a pool past its last tick or a slot past its cap.
fn within(
    snapshot: &MarketSnapshot,
    flow: &Flow,
    slots: &[usize],
    path: &[Edge],
    cap: &[f64],
    x: f64,
) -> bool {
    let mut amt = x;
    for (&e, &s) in path.iter().zip(slots) {
        let (c, before) = flow.0[s];
        if c + amt > cap[s] {
            return false;
        }
        let out = shadow(snapshot, e, c + amt) - before;
        if out.is_nan() || out <= 0.0 {
            return false;
        }
        amt = out;
    }
    true
}

/// The flow of an allocation and its total output.
fn flow_of(
    snapshot: &MarketSnapshot,
    slots: &Slots,
    paths: &[&[Edge]],
    alloc: &[f64],
) -> (Flow, f64) {
    let mut flow = Flow::new(slots);
    let out = paths
        .iter()
        .zip(alloc)
        .enumerate()
        .filter(|(_, (_, a))| **a > 0.0)
        .map(|(k, (p, a))| push(snapshot, &mut flow, &slots.of[k], p, *a, true))
        .sum();
    (flow, out)
}

/// An upper bound on what any allocation of `amount` over `paths` can
/// deliver: concave paths never beat their marginal rate at zero.
pub(super) fn upper_bound(snapshot: &MarketSnapshot, paths: &[&[Edge]], amount: f64) -> f64 {
    let tiny = amount * 1e-6;
    let slots = Slots::new(paths);
    let mut flow = Flow::new(&slots);
    paths
        .iter()
        .enumerate()
        .map(|(k, p)| push(snapshot, &mut flow, &slots.of[k], p, tiny, false) / tiny * amount)
        .fold(0.0, f64::max)
}

/// Whether two paths go through a common pool.
pub(super) fn shares_pool(a: &[Edge], b: &[Edge]) -> bool {
    a.iter().filter_map(|e| e.pool()).any(|p| b.iter().any(|f| f.pool() == Some(p)))
}

/// Greedy water-filling: each chunk goes to the path whose next unit
/// earns most on the flow already placed. It grows: each
/// [`Filler::fill_to`] places only the increase over the amount already
/// placed, so a ladder's points, allocated one after the other in
/// increasing order, cost together one allocation of the largest amount;
/// [`allocate`] fills once from zero.
pub(super) struct Filler<'p> {
    snapshot: &'p MarketSnapshot,
    paths: &'p [&'p [Edge]],
    /// `shares[a][b]`: paths `a` and `b` go through a common pool (or are
    /// the same path).
    shares: Vec<Vec<bool>>,
    slots: Slots,
    flow: Flow,
    alloc: Vec<f64>,
    placed: f64,
    /// Paths that take no more.
    closed: Vec<bool>,
}

impl<'p> Filler<'p> {
    pub(super) fn new(snapshot: &'p MarketSnapshot, paths: &'p [&'p [Edge]]) -> Self {
        let n = paths.len();
        // Paths grouped by the pools they go through: each group's paths
        // share a pool with one another.
        let mut by_pool: Vec<(u32, usize)> = paths
            .iter()
            .enumerate()
            .flat_map(|(k, p)| p.iter().filter_map(|e| e.pool()).map(move |q| (q, k)))
            .collect();
        by_pool.sort_unstable();
        let mut shares: Vec<Vec<bool>> = (0..n).map(|a| (0..n).map(|b| a == b).collect()).collect();
        for group in by_pool.chunk_by(|x, y| x.0 == y.0) {
            for &(_, a) in group {
                for &(_, b) in group {
                    shares[a][b] = true;
                }
            }
        }
        let slots = Slots::new(paths);
        Self {
            snapshot,
            paths,
            shares,
            flow: Flow::new(&slots),
            slots,
            alloc: vec![0.0; n],
            placed: 0.0,
            closed: vec![false; n],
        }
    }

    /// A filler that starts from `alloc` already placed (the flow per
    /// path, committed in path order), each path taking no more than fits
    /// under `caps` (at most that much into each pool direction named) and
    /// before a pool's last tick.
    pub(super) fn seeded(
        snapshot: &'p MarketSnapshot,
        paths: &'p [&'p [Edge]],
        alloc: Vec<f64>,
        caps: &[(Edge, f64)],
    ) -> Self {
        let mut filler = Self::new(snapshot, paths);
        let mut cap = vec![f64::INFINITY; filler.slots.count()];
        for (e, x) in caps {
            if let Some(s) = filler.slots.of_pool(*e) {
                cap[s] = *x;
            }
        }
        for (k, a) in alloc.into_iter().enumerate() {
            if a <= 0.0 {
                continue;
            }
            // A path that cannot take all of its share (a pool past its
            // last tick, or past what the flow sends it) takes what it can.
            let slots = &filler.slots.of[k];
            let mut fits = a;
            if !within(snapshot, &filler.flow, slots, paths[k], &cap, a) {
                let (mut lo, mut hi) = (0.0, a);
                for _ in 0..32 {
                    let mid = 0.5 * (lo + hi);
                    if within(snapshot, &filler.flow, slots, paths[k], &cap, mid) {
                        lo = mid;
                    } else {
                        hi = mid;
                    }
                }
                fits = lo * (1.0 - SEED_MARGIN);
            }
            if fits > 0.0 {
                push(snapshot, &mut filler.flow, &filler.slots.of[k], paths[k], fits, true);
                filler.alloc[k] = fits;
            }
        }
        filler.placed = filler.alloc.iter().sum();
        filler
    }

    /// Places up to `amount` (no more than before if it is smaller) in
    /// `chunks` equal parts of the increase; the flow per path.
    pub(super) fn fill_to(&mut self, amount: f64, chunks: u32) -> &[f64] {
        let delta = amount - self.placed;
        if delta.is_nan() || delta <= 0.0 || chunks == 0 || self.paths.is_empty() {
            return &self.alloc;
        }
        let (snapshot, paths) = (self.snapshot, self.paths);
        let chunk = delta / f64::from(chunks);
        // A chunk placed on one path changes the gains only of the paths
        // that share a pool with it: those are the only ones quoted again.
        let closed = &self.closed;
        let mut gains: Vec<f64> = (0..paths.len())
            .map(|k| {
                if closed[k] {
                    0.0
                } else {
                    push(snapshot, &mut self.flow, &self.slots.of[k], paths[k], chunk, false)
                }
            })
            .collect();
        for _ in 0..chunks {
            let Some((k, g)) = gains.iter().copied().enumerate().fold(
                None,
                |best: Option<(usize, f64)>, (k, g)| match best {
                    Some((_, b)) if b >= g => best,
                    _ => Some((k, g)),
                },
            ) else {
                break;
            };
            if g.is_nan() || g <= 0.0 {
                break;
            }
            push(snapshot, &mut self.flow, &self.slots.of[k], paths[k], chunk, true);
            self.alloc[k] += chunk;
            for (j, gain) in gains.iter_mut().enumerate() {
                if self.shares[k][j] && !self.closed[j] {
                    *gain =
                        push(snapshot, &mut self.flow, &self.slots.of[j], paths[j], chunk, false);
                }
            }
        }
        self.placed = amount;
        &self.alloc
    }
}

/// Where an allocation starts: each path's share of the amount (together
/// at most 1), and what each pool direction may take (the optimal flow's
/// own: its paths are cut back where they would push more into a pool
/// than the flow does).
#[derive(Debug, Clone, Copy)]
pub(super) struct Seed<'a> {
    pub(super) shares: &'a [f64],
    pub(super) caps: &'a [(Edge, f64)],
}

/// Fractions of `amount` per path (summing to 1), or `None` when no path
/// takes any of it. Filled greedily from nothing, or from `seed`'s shares
/// (each path cut back to what fits under the caps), the rest filled
/// greedily.
pub(super) fn allocate(
    snapshot: &MarketSnapshot,
    paths: &[&[Edge]],
    amount: f64,
    chunks: u32,
    seed: Option<Seed<'_>>,
) -> Option<Vec<f64>> {
    if paths.is_empty() || amount.is_nan() || amount <= 0.0 || chunks == 0 {
        return None;
    }
    let n = paths.len();
    let chunk = amount / f64::from(chunks);
    let mut filler = match seed {
        // A hair under the shares: a V3 pool the optimum drains to its last
        // tick takes nothing past it.
        Some(Seed { shares, caps }) if shares.len() == n => Filler::seeded(
            snapshot,
            paths,
            shares.iter().map(|s| s * amount * (1.0 - SEED_MARGIN)).collect(),
            caps,
        ),
        _ => Filler::new(snapshot, paths),
    };
    let mut alloc = filler.fill_to(amount, chunks).to_vec();
    // Marginal exchange: move a share from the path whose last unit earns
    // least to the one whose next unit earns most, while the total improves,
    // halving the share when it does not.
    let slots = &filler.slots;
    let (mut flow, mut value) = flow_of(snapshot, slots, paths, &alloc);
    let mut step = chunk / 2.0;
    let delta = chunk / 64.0;
    // A path's next unit depends only on the flow at its own slots: priced
    // again only when one of them changed (a move that is not kept changes
    // none).
    let mut marginal: Vec<f64> =
        (0..n).map(|k| push(snapshot, &mut flow, &slots.of[k], paths[k], delta, false)).collect();
    for _ in 0..48 {
        if step < chunk / 256.0 {
            break;
        }
        let hi = (0..n).fold(0, |b, k| if marginal[k] > marginal[b] { k } else { b });
        let lo =
            (0..n).filter(|k| alloc[*k] >= step && *k != hi).fold(None, |b: Option<usize>, k| {
                match b {
                    Some(b) if marginal[b] <= marginal[k] => Some(b),
                    _ => Some(k),
                }
            });
        let Some(lo) = lo.filter(|lo| marginal[hi] > marginal[*lo]) else {
            step /= 2.0;
            continue;
        };
        alloc[lo] -= step;
        alloc[hi] += step;
        let (moved, v) = flow_of(snapshot, slots, paths, &alloc);
        if v > value * (1.0 + 1e-12) {
            let changed: Vec<bool> = flow.0.iter().zip(&moved.0).map(|(a, b)| a != b).collect();
            (flow, value) = (moved, v);
            for (k, m) in marginal.iter_mut().enumerate() {
                if slots.of[k].iter().any(|s| changed[*s]) {
                    *m = push(snapshot, &mut flow, &slots.of[k], paths[k], delta, false);
                }
            }
        } else {
            alloc[lo] += step;
            alloc[hi] -= step;
            step /= 2.0;
        }
    }
    // Shares too small for a path of their own go, greedily, to the
    // paths kept (scaled up in proportion instead, they could push a pool
    // the optimum drains past its last tick).
    if alloc.iter().any(|a| *a > 0.0 && *a < MIN_SPLIT_SHARE * amount) {
        let kept: Vec<f64> =
            alloc.iter().map(|a| if *a >= MIN_SPLIT_SHARE * amount { *a } else { 0.0 }).collect();
        let mut filler = Filler::seeded(snapshot, paths, kept, &[]);
        filler.closed = filler.alloc.iter().map(|a| *a <= 0.0).collect();
        alloc = filler.fill_to(amount, chunks).to_vec();
    }
    let sum: f64 = alloc.iter().sum();
    (sum > 0.0).then(|| alloc.iter().map(|a| a / sum).collect())
}
