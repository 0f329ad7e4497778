//! Split allocation over candidate paths, in `f64`.
//!
//! Greedy water-filling sends the input in equal chunks, each to the path
//! whose shadow marginal output is best on the flow already placed, then a
//! pairwise exchange refines the allocation (move a share from one path to
//! another while the total improves, halving the share) until the marginal
//! outputs of the paths in use are about equal, which is where the optimum
//! of concave paths lies. Paths that share a pool see each other's flow: the
//! output of a hop is `f(c + x) − f(c)` for the flow `c` already through the
//! pool in that direction (path-independent for the curves we price; a
//! bridge's fixed fee is paid once per path).
//!
//! Only the fractions leave this module; the plan's amounts come from the
//! exact simulation of the chosen allocation.

use crate::{graph::Edge, snapshot::MarketSnapshot};

use super::candidates::shadow;

/// Flow already placed, by (pool edge, or path and bridge edge).
#[derive(Default, Clone)]
struct Flow(Vec<((usize, Edge), f64)>);

impl Flow {
    fn key(path: usize, e: Edge) -> (usize, Edge) {
        match e {
            Edge::Pool { .. } => (usize::MAX, e),
            Edge::Bridge { .. } => (path, e),
        }
    }

    fn get(&self, key: (usize, Edge)) -> f64 {
        self.0.iter().find(|(k, _)| *k == key).map_or(0.0, |(_, v)| *v)
    }

    fn add(&mut self, key: (usize, Edge), v: f64) {
        match self.0.iter_mut().find(|(k, _)| *k == key) {
            Some((_, x)) => *x += v,
            None => self.0.push((key, v)),
        }
    }
}

/// Output of `x` more down path `k`, on the flow placed; commits it if asked.
fn push(
    snapshot: &MarketSnapshot,
    flow: &mut Flow,
    k: usize,
    path: &[Edge],
    x: f64,
    commit: bool,
) -> f64 {
    let mut amt = x;
    for &e in path {
        let key = Flow::key(k, e);
        let c = flow.get(key);
        let before = if c > 0.0 { shadow(snapshot, e, c) } else { 0.0 };
        let out = shadow(snapshot, e, c + amt) - before;
        if commit {
            flow.add(key, amt);
        }
        if out.is_nan() || out <= 0.0 {
            return 0.0;
        }
        amt = out;
    }
    amt
}

fn total(snapshot: &MarketSnapshot, paths: &[&[Edge]], alloc: &[f64]) -> f64 {
    let mut flow = Flow::default();
    paths
        .iter()
        .zip(alloc)
        .enumerate()
        .filter(|(_, (_, a))| **a > 0.0)
        .map(|(k, (p, a))| push(snapshot, &mut flow, k, p, *a, true))
        .sum()
}

/// Fractions of `amount` per path (summing to 1), or `None` when no path
/// takes any of it.
pub(super) fn allocate(
    snapshot: &MarketSnapshot,
    paths: &[&[Edge]],
    amount: f64,
    chunks: u32,
) -> Option<Vec<f64>> {
    if paths.is_empty() || amount.is_nan() || amount <= 0.0 || chunks == 0 {
        return None;
    }
    let chunk = amount / f64::from(chunks);
    let mut alloc = vec![0.0; paths.len()];
    let mut flow = Flow::default();
    for _ in 0..chunks {
        let mut best: Option<(f64, usize)> = None;
        for (k, p) in paths.iter().enumerate() {
            let gain = push(snapshot, &mut flow, k, p, chunk, false);
            if gain > 0.0 && best.is_none_or(|(g, _)| gain > g) {
                best = Some((gain, k));
            }
        }
        let (_, k) = best?;
        push(snapshot, &mut flow, k, paths[k], chunk, true);
        alloc[k] += chunk;
    }
    // Pairwise exchange, halving the share moved.
    let mut value = total(snapshot, paths, &alloc);
    let mut step = chunk / 2.0;
    for _ in 0..6 {
        for _pass in 0..8 {
            let mut improved = false;
            for a in 0..paths.len() {
                for b in 0..paths.len() {
                    if a == b || alloc[a] < step {
                        continue;
                    }
                    alloc[a] -= step;
                    alloc[b] += step;
                    let v = total(snapshot, paths, &alloc);
                    if v > value * (1.0 + 1e-12) {
                        value = v;
                        improved = true;
                    } else {
                        alloc[a] += step;
                        alloc[b] -= step;
                    }
                }
            }
            if !improved {
                break;
            }
        }
        step /= 2.0;
    }
    let sum: f64 = alloc.iter().sum();
    (sum > 0.0).then(|| alloc.iter().map(|a| a / sum).collect())
}
