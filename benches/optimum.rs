//! The convex optimum of an exact-input trade over constant-product pools: a
//! reference for route quality.
//!
//! This is the optimal routing problem of Angeris, Chitra, Evans and Boyd
//! ("Optimal Routing for Constant Function Market Makers"), restricted to
//! constant-product pools with a fee. Pool `i` trades tokens `(a, b)` with
//! reserves `(R0, R1)` and fee factor `γ` (0.997 for 30 bps). Its variables
//! are the amounts tendered `Δ0, Δ1 ≥ 0` and received `Λ0, Λ1 ≥ 0`, and the
//! trade is valid when
//!
//! ```text
//! (R0 + γΔ0 − Λ0) · (R1 + γΔ1 − Λ1) ≥ R0 · R1
//! ```
//!
//! The set is convex: a hyperbolic constraint `x·y ≥ k` with `x, y ≥ 0` is
//! the second-order cone `‖(2√k, x − y)‖ ≤ x + y`. The net flow of token `j`
//! is `Ψ_j = Σ_i (Λ_ij − Δ_ij)`; the problem is
//!
//! ```text
//! maximize Ψ_out  subject to  Ψ_in ≥ −X,  Ψ_j ≥ 0 for every other token,
//!                             every pool's cone constraint
//! ```
//!
//! and [Clarabel](https://clarabel.org) (an interior-point conic solver in
//! pure Rust) solves it. Paths are unlimited in length and splits in number,
//! so the optimum bounds any router's output on the same pools from above.
//!
//! Clarabel works in `f64` with tolerances near `1e-8`, so amounts in raw
//! token units (`1e24` wei is a million dollars of an 18-decimal dollar
//! token) fail numerically. Every token is rescaled by a caller-given unit
//! (see [`usd_million_units`]: a million dollars of each token), which puts
//! reserves and trades near 1.
//!
//! A Uniswap V3 pool enters as one pool per initialized tick range with
//! liquidity `L` between the sqrt prices `√pa < √pb`: its real reserves
//! `(x, y)` and the virtual offsets `(L/√pb, L·√pa)`, with
//!
//! ```text
//! (x + L/√pb + γΔ0 − Λ0) · (y + L·√pa + γΔ1 − Λ1) ≥ L²,
//! x + γΔ0 − Λ0 ≥ 0,   y + γΔ1 − Λ1 ≥ 0
//! ```
//!
//! (the range's constant-product curve, and its real reserves). A V3 swap
//! walks the ranges in price order, each at the pool's fee; at the optimum
//! every range of a pool ends at the same marginal price, so the ranges as
//! separate pools are exact for the convex program.
//!
//! Set `OPTIMUM_VERBOSE` in the environment to see Clarabel's iteration log.

use std::{fmt, time::Instant};

use clarabel::{
    algebra::CscMatrix,
    solver::{DefaultSettings, DefaultSolver, IPSolver, SolverStatus, SupportedConeT},
};

use crate::Synthetic;

/// A constant-product pool, or one tick range of a concentrated-liquidity
/// pool, in raw token units.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CpPool {
    /// The two tokens, as indexes (any `usize` ids; `units` is indexed by
    /// them).
    pub tokens: [usize; 2],
    /// Real reserves of the two tokens, raw units.
    pub reserves: [f64; 2],
    /// Fee factor `γ` in `(0, 1]`: the share of the tendered amount that
    /// reaches the curve (`1 − fee_bps / 10_000`).
    pub gamma: f64,
    /// Virtual reserves added to the real ones on the curve: zero for a
    /// constant-product pool, `(L/√pb, L·√pa)` for a tick range (see the
    /// module docs), which also bounds its trades by its real reserves.
    pub offsets: [f64; 2],
}

impl CpPool {
    /// A constant-product pool.
    pub const fn constant_product(tokens: [usize; 2], reserves: [f64; 2], gamma: f64) -> Self {
        Self { tokens, reserves, gamma, offsets: [0.0; 2] }
    }

    /// The tick range `[√pa, √pb)` (sqrt prices, token1 per token0 in raw
    /// units) of a concentrated-liquidity pool with liquidity `l`, at the
    /// pool's sqrt price `s`.
    pub fn tick_range(
        tokens: [usize; 2],
        l: f64,
        sqrt_pa: f64,
        sqrt_pb: f64,
        s: f64,
        gamma: f64,
    ) -> Self {
        let p = s.clamp(sqrt_pa, sqrt_pb);
        Self {
            tokens,
            reserves: [l * (1.0 / p - 1.0 / sqrt_pb), l * (p - sqrt_pa)],
            gamma,
            offsets: [l / sqrt_pb, l * sqrt_pa],
        }
    }

    /// Output of an exact-input swap of `amount_in` of token `tokens[side]`
    /// (the constant-product formula with the fee on the virtual reserves,
    /// at most the real reserve, in `f64`).
    pub fn amount_out(&self, side: usize, amount_in: f64) -> f64 {
        let r_in = self.reserves[side] + self.offsets[side];
        let r_out = self.reserves[1 - side] + self.offsets[1 - side];
        let with_fee = self.gamma * amount_in;
        (with_fee * r_out / (r_in + with_fee)).min(self.reserves[1 - side])
    }
}

/// The solved problem.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Optimum {
    /// Optimal output, raw units of the output token: the output of the
    /// solver's (primal) trades.
    pub amount_out: f64,
    /// An upper bound on the optimal output, raw units: the dual objective,
    /// valid up to the dual residual. At most `relative_gap` above
    /// `amount_out`.
    pub upper_bound: f64,
    /// Input used, raw units of the input token (at most the amount
    /// offered; less only if more would not add output).
    pub amount_in_used: f64,
    /// Pools in the solved problem: those left after dropping the ones that
    /// cannot carry flow from the input to the output (see [`convex_optimum`]).
    pub pools_used: usize,
    /// Duality gap relative to the optimum: a bound on the relative error of
    /// `amount_out` (up to the residuals, which are far smaller).
    pub relative_gap: f64,
    /// Clarabel stopped at reduced accuracy (`AlmostSolved`), accepted
    /// because the gap and residuals were within [`MAX_REDUCED_GAP`] and
    /// [`MAX_REDUCED_RESIDUAL`].
    pub reduced_accuracy: bool,
    /// Interior-point iterations.
    pub iterations: u32,
    /// Wall time of building and solving the problem, seconds.
    pub seconds: f64,
}

/// Why no optimum was computed.
#[derive(Debug, Clone, PartialEq)]
pub enum OptimumError {
    /// The input and output token are the same.
    SameToken,
    /// The amount offered is not finite and positive.
    BadAmount(f64),
    /// A pool has a non-positive or non-finite reserve, a fee factor outside
    /// `(0, 1]`, the same token twice, or a token without a unit.
    BadPool(usize),
    /// A token's unit is not finite and positive.
    BadUnit(usize),
    /// The input or the output token is in no pool.
    TokenNotInPools(usize),
    /// Clarabel refused the problem data.
    Setup(String),
    /// Clarabel stopped without a solution (its status).
    NotSolved(String),
}

impl fmt::Display for OptimumError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::SameToken => write!(f, "input and output are the same token"),
            Self::BadAmount(x) => write!(f, "amount {x} is not finite and positive"),
            Self::BadPool(i) => write!(f, "pool {i} has invalid reserves, fee or tokens"),
            Self::BadUnit(t) => write!(f, "token {t} has no finite positive unit"),
            Self::TokenNotInPools(t) => write!(f, "token {t} is in no pool"),
            Self::Setup(e) => write!(f, "solver setup: {e}"),
            Self::NotSolved(s) => write!(f, "solver stopped: {s}"),
        }
    }
}

impl std::error::Error for OptimumError {}

/// Raw units of each token of a synthetic market worth one million dollars:
/// the scaling for [`convex_optimum`].
pub fn usd_million_units(s: &Synthetic) -> Vec<f64> {
    s.prices
        .iter()
        .zip(&s.decimals)
        .map(|(price, dec)| 1e6 / price * 10f64.powi(i32::from(*dec)))
        .collect()
}

/// Duality-gap tolerance: tighter than Clarabel's `1e-8` default, because a
/// $10k trade's output is near `0.01` in million-dollar units and the
/// quality ratio needs it to better than `1e-6` relative.
const TOL_GAP: f64 = 1e-10;
/// Feasibility tolerance: the primal residual stalls near `1e-9` (the
/// solver's regularization), so `1e-10` ends at reduced accuracy.
const TOL_FEAS: f64 = 1e-9;
/// Largest relative duality gap accepted from a solve that stopped at
/// reduced accuracy. On the benchmark's 200-pool instances Clarabel often
/// stalls (step length 0) with a gap near `1e-6` of the optimum, far below
/// what a quality ratio needs, so such a solve is accepted, and the gap
/// reported, rather than thrown away. The mixed V2/V3 instances (thousands
/// of tick-range cones, some with real reserves far below their virtual
/// ones) stall at $10k with gaps up to `6e-5`: accepted too, since ratios
/// divide by the dual bound, which such a gap can only lower a ratio by.
pub const MAX_REDUCED_GAP: f64 = 1e-4;
/// Largest primal or dual residual accepted from a reduced-accuracy solve
/// (Clarabel's normalized residuals; seen up to `4e-7` with a gap of
/// `1e-11`).
pub const MAX_REDUCED_RESIDUAL: f64 = 1e-6;

/// The most output `amount_in` of `token_in` can buy of `token_out` through
/// `pools`, raw units, and the solve's cost.
///
/// `units[t]` is the raw amount of token `t` that the solver treats as 1
/// (see the module docs); every pool token must have one.
///
/// Pools that cannot carry flow from the input to the output (dead ends, and
/// parts of the graph behind a single pool) are dropped before solving: at
/// the optimum their trades are zero with zero reduced cost, which the
/// interior-point method converges to only at reduced accuracy. Dropping
/// them is exact as long as they hold no arbitrage (a cycle that gains
/// without any input), which consistently priced markets, such as the
/// synthetic ones, do not.
pub fn convex_optimum(
    pools: &[CpPool],
    token_in: usize,
    token_out: usize,
    amount_in: f64,
    units: &[f64],
) -> Result<Optimum, OptimumError> {
    let start = Instant::now();
    if token_in == token_out {
        return Err(OptimumError::SameToken);
    }
    if !(amount_in.is_finite() && amount_in > 0.0) {
        return Err(OptimumError::BadAmount(amount_in));
    }
    // Dense indexes of the tokens in the pools, in order of appearance.
    let mut dense: Vec<Option<usize>> = Vec::new();
    let mut n_tokens = 0usize;
    let mut scaled = Vec::with_capacity(pools.len());
    for (i, p) in pools.iter().enumerate() {
        // A tick range may hold none of one token; its curve, none of either.
        let ok = p.tokens[0] != p.tokens[1]
            && p.gamma > 0.0
            && p.gamma <= 1.0
            && p.reserves.iter().zip(&p.offsets).all(|(r, o)| {
                r.is_finite() && o.is_finite() && *r >= 0.0 && *o >= 0.0 && r + o > 0.0
            })
            && (p.offsets != [0.0; 2] || p.reserves.iter().all(|r| *r > 0.0));
        if !ok {
            return Err(OptimumError::BadPool(i));
        }
        let mut idx = [0usize; 2];
        let mut r = [0f64; 2];
        let mut off = [0f64; 2];
        for s in 0..2 {
            let t = p.tokens[s];
            let unit = *units.get(t).ok_or(OptimumError::BadPool(i))?;
            if !(unit.is_finite() && unit > 0.0) {
                return Err(OptimumError::BadUnit(t));
            }
            if dense.len() <= t {
                dense.resize(t + 1, None);
            }
            idx[s] = *dense[t].get_or_insert_with(|| {
                n_tokens += 1;
                n_tokens - 1
            });
            r[s] = p.reserves[s] / unit;
            off[s] = p.offsets[s] / unit;
        }
        scaled.push((idx, r, p.gamma, off));
    }
    let find = |t: usize| dense.get(t).copied().flatten().ok_or(OptimumError::TokenNotInPools(t));
    let (d_in, d_out) = (find(token_in)?, find(token_out)?);
    let x = amount_in / units[token_in];
    let ends: Vec<[usize; 2]> = scaled.iter().map(|p| p.0).collect();
    let keep = useful_pools(&ends, n_tokens, d_in, d_out);
    let mut scaled: Vec<_> =
        scaled.into_iter().zip(&keep).filter(|(_, k)| **k).map(|(p, _)| p).collect();
    // Index again over the tokens left, so no constraint row is empty.
    let mut renumber = vec![None; n_tokens];
    let mut n_tokens = 0usize;
    for (idx, _, _, _) in &mut scaled {
        for t in idx.iter_mut() {
            *t = *renumber[*t].get_or_insert_with(|| {
                n_tokens += 1;
                n_tokens - 1
            });
        }
    }
    let (Some(d_in), Some(d_out)) = (renumber[d_in], renumber[d_out]) else {
        // The output cannot be reached.
        return Ok(Optimum {
            amount_out: 0.0,
            upper_bound: 0.0,
            amount_in_used: 0.0,
            pools_used: 0,
            relative_gap: 0.0,
            reduced_accuracy: false,
            iterations: 0,
            seconds: start.elapsed().as_secs_f64(),
        });
    };

    // Variables per pool i: 4i + s is Δ_s (tendered), 4i + 2 + s is Λ_s
    // (received). Clarabel solves min qᵀv s.t. Av + σ = b, σ ∈ K.
    let n = 4 * scaled.len();
    let mut q = vec![0.0; n];
    let (mut rows, mut cols, mut vals) = (Vec::new(), Vec::new(), Vec::new());
    let mut b = Vec::new();
    let mut push = |r: usize, c: usize, v: f64| {
        rows.push(r);
        cols.push(c);
        vals.push(v);
    };
    // Nonnegative cone: v ≥ 0 (σ = v), ...
    for k in 0..n {
        push(k, k, -1.0);
        b.push(0.0);
    }
    // ... then Ψ_j + X_j ≥ 0 for every token but the output (σ = X_j + Ψ_j).
    let mut row_of_token = vec![None; n_tokens];
    let mut next = n;
    for (t, row) in row_of_token.iter_mut().enumerate() {
        if t != d_out {
            *row = Some(next);
            b.push(if t == d_in { x } else { 0.0 });
            next += 1;
        }
    }
    for (i, (idx, _, _, _)) in scaled.iter().enumerate() {
        for s in 0..2 {
            let (delta, lambda) = (4 * i + s, 4 * i + 2 + s);
            match row_of_token[idx[s]] {
                Some(row) => {
                    push(row, delta, 1.0);
                    push(row, lambda, -1.0);
                }
                // The objective: minimize −Ψ_out.
                None => {
                    q[delta] = 1.0;
                    q[lambda] = -1.0;
                }
            }
        }
    }
    // A tick range's real reserves stay nonnegative: σ = R_s + γΔ_s − Λ_s.
    for (i, (_, r, gamma, off)) in scaled.iter().enumerate() {
        if *off == [0.0; 2] {
            continue;
        }
        for (s, reserve) in r.iter().enumerate() {
            push(next, 4 * i + s, -gamma);
            push(next, 4 * i + 2 + s, 1.0);
            b.push(*reserve);
            next += 1;
        }
    }
    let n_nonneg = next;
    // One 3-dimensional second-order cone per pool, with x = R0 + O0 + γΔ0
    // − Λ0 and y = R1 + O1 + γΔ1 − Λ1 (O the virtual offsets):
    // σ = (x + y, 2√(V0·V1), x − y), V = R + O.
    let mut cones = vec![SupportedConeT::NonnegativeConeT(n_nonneg)];
    for (i, (_, r, gamma, off)) in scaled.iter().enumerate() {
        let (d0, d1, l0, l1) = (4 * i, 4 * i + 1, 4 * i + 2, 4 * i + 3);
        let v = [r[0] + off[0], r[1] + off[1]];
        let row = next + 3 * i;
        push(row, d0, -gamma);
        push(row, d1, -gamma);
        push(row, l0, 1.0);
        push(row, l1, 1.0);
        b.push(v[0] + v[1]);
        b.push(2.0 * v[0].sqrt() * v[1].sqrt());
        push(row + 2, d0, -gamma);
        push(row + 2, d1, *gamma);
        push(row + 2, l0, 1.0);
        push(row + 2, l1, -1.0);
        b.push(v[0] - v[1]);
        cones.push(SupportedConeT::SecondOrderConeT(3));
    }
    let m = b.len();
    let a = CscMatrix::new_from_triplets(m, n, rows, cols, vals);
    let p = CscMatrix::zeros((n, n));
    let settings = DefaultSettings {
        verbose: std::env::var_os("OPTIMUM_VERBOSE").is_some(),
        tol_gap_abs: TOL_GAP,
        tol_gap_rel: TOL_GAP,
        tol_feas: TOL_FEAS,
        ..DefaultSettings::default()
    };
    let mut solver = DefaultSolver::new(&p, &q, &a, &b, &cones, settings)
        .map_err(|e| OptimumError::Setup(e.to_string()))?;
    solver.solve();
    let sol = &solver.solution;
    // The objective is −Ψ_out: the gap relative to it bounds the error of
    // the output.
    let gap = (sol.obj_val - sol.obj_val_dual).abs() / sol.obj_val.abs().max(f64::MIN_POSITIVE);
    let accepted = match sol.status {
        SolverStatus::Solved => true,
        SolverStatus::AlmostSolved => {
            gap <= MAX_REDUCED_GAP && sol.r_prim.max(sol.r_dual) <= MAX_REDUCED_RESIDUAL
        }
        _ => false,
    };
    if !accepted {
        return Err(OptimumError::NotSolved(format!(
            "{:?} (relative gap {gap:.1e}, residuals {:.1e}/{:.1e})",
            sol.status, sol.r_prim, sol.r_dual
        )));
    }
    // Net flows of the output and the input, from the primal solution.
    let (mut out, mut used) = (0.0, 0.0);
    for (i, (idx, _, _, _)) in scaled.iter().enumerate() {
        for (s, t) in idx.iter().enumerate() {
            let net = sol.x[4 * i + 2 + s] - sol.x[4 * i + s];
            if *t == d_out {
                out += net;
            } else if *t == d_in {
                used -= net;
            }
        }
    }
    Ok(Optimum {
        amount_out: out.max(0.0) * units[token_out],
        upper_bound: (-sol.obj_val_dual).max(0.0) * units[token_out],
        amount_in_used: used.max(0.0) * units[token_in],
        pools_used: scaled.len(),
        relative_gap: gap,
        reduced_accuracy: sol.status != SolverStatus::Solved,
        iterations: sol.iterations,
        seconds: start.elapsed().as_secs_f64(),
    })
}

/// Which pools can carry input-to-output flow, by the dense token indexes:
/// pool `(u, v)` can when the input reaches one side and the other side
/// reaches the output, both without the pool itself. Repeated until nothing
/// more is dropped, because dropping a pool can cut off others.
fn useful_pools(pools: &[[usize; 2]], n_tokens: usize, from: usize, to: usize) -> Vec<bool> {
    let mut keep = vec![true; pools.len()];
    let mut adjacent: Vec<Vec<(usize, usize)>> = vec![Vec::new(); n_tokens];
    for (i, t) in pools.iter().enumerate() {
        adjacent[t[0]].push((i, t[1]));
        adjacent[t[1]].push((i, t[0]));
    }
    let reach = |start: usize, without: usize, keep: &[bool]| {
        let mut seen = vec![false; n_tokens];
        seen[start] = true;
        let mut stack = vec![start];
        while let Some(t) = stack.pop() {
            for &(i, u) in &adjacent[t] {
                if i != without && keep[i] && !seen[u] {
                    seen[u] = true;
                    stack.push(u);
                }
            }
        }
        seen
    };
    loop {
        let mut changed = false;
        for (i, t) in pools.iter().enumerate() {
            if !keep[i] {
                continue;
            }
            let (a, b) = (reach(from, i, &keep), reach(to, i, &keep));
            if !((a[t[0]] && b[t[1]]) || (a[t[1]] && b[t[0]])) {
                keep[i] = false;
                changed = true;
            }
        }
        if !changed {
            return keep;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A million dollars of an 18-decimal dollar token.
    const M: f64 = 1e24;

    fn pool(a: usize, b: usize, ra: f64, rb: f64) -> CpPool {
        CpPool::constant_product([a, b], [ra, rb], 0.997)
    }

    fn rel(a: f64, b: f64) -> f64 {
        (a - b).abs() / b.abs()
    }

    fn solve(pools: &[CpPool], from: usize, to: usize, x: f64, units: &[f64]) -> Optimum {
        match convex_optimum(pools, from, to, x, units) {
            Ok(o) => o,
            Err(e) => panic!("no optimum: {e}"),
        }
    }

    #[test]
    fn one_pool_is_the_constant_product_output() {
        // $5M of a dollar token against $5M of a $3,000 token (units by
        // price), trades from $10k to $10M, both directions.
        let units = [M, M / 3000.0];
        let p = pool(0, 1, 5.0 * M, 5.0 * M / 3000.0);
        for usd in [1e4, 1e6, 1e7] {
            let x = usd / 1e6 * M;
            let o = solve(&[p], 0, 1, x, &units);
            assert!(rel(o.amount_out, p.amount_out(0, x)) < 1e-6, "{usd}: {o:?}");
            assert!(rel(o.upper_bound, p.amount_out(0, x)) < 1e-6, "{usd}: {o:?}");
            assert!(o.upper_bound >= o.amount_out * (1.0 - 1e-12), "{usd}: {o:?}");
            assert!(rel(o.amount_in_used, x) < 1e-6, "{usd}: {o:?}");
            let x = usd / 1e6 * units[1];
            let o = solve(&[p], 1, 0, x, &units);
            assert!(rel(o.amount_out, p.amount_out(1, x)) < 1e-6, "{usd} back: {o:?}");
        }
    }

    #[test]
    fn token_order_in_the_pool_does_not_matter() {
        let units = [M, M];
        let p = pool(1, 0, 2.0 * M, 3.0 * M);
        let x = 0.5 * M;
        let o = solve(&[p], 0, 1, x, &units);
        assert!(rel(o.amount_out, p.amount_out(1, x)) < 1e-6, "{o:?}");
    }

    #[test]
    fn two_parallel_pools_split_evenly() {
        let units = [M, M];
        let p = pool(0, 1, 4.0 * M, 4.0 * M);
        for usd in [1e4, 1e6, 1e7] {
            let x = usd / 1e6 * M;
            let o = solve(&[p, p], 0, 1, x, &units);
            let want = 2.0 * p.amount_out(0, x / 2.0);
            assert!(rel(o.amount_out, want) < 1e-6, "{usd}: {o:?} want {want}");
            // Strictly better than one pool for a trade that moves the price.
            assert!(o.amount_out > p.amount_out(0, x), "{usd}");
        }
    }

    #[test]
    fn two_hops_compose() {
        // 0 → 1 → 2 is the only path; the detour through a pool that does
        // not lead to 2 must not help.
        let units = [M, M / 3000.0, M / 95_000.0];
        let a = pool(0, 1, 8.0 * M, 8.0 * M / 3000.0);
        let b = pool(1, 2, 3.0 * M / 3000.0, 3.0 * M / 95_000.0);
        let dead_end = CpPool { tokens: [1, 3], ..a };
        let units4 = [units[0], units[1], units[2], M];
        for usd in [1e4, 1e6, 1e7] {
            let x = usd / 1e6 * M;
            let want = b.amount_out(0, a.amount_out(0, x));
            let o = solve(&[a, b], 0, 2, x, &units);
            assert!(rel(o.amount_out, want) < 1e-6, "{usd}: {o:?} want {want}");
            let o = solve(&[a, b, dead_end], 0, 2, x, &units4);
            assert!(rel(o.amount_out, want) < 1e-6, "{usd} dead end: {o:?} want {want}");
        }
    }

    #[test]
    fn dead_ends_and_cut_off_parts_are_dropped() {
        // 0 → 1 → 2, plus a dead end 1–3 and a triangle 4–5–6 behind the
        // single pool 2–4.
        let a = pool(0, 1, 8.0 * M, 8.0 * M);
        let b = pool(1, 2, 3.0 * M, 3.0 * M);
        let extra = [
            pool(1, 3, M, M),
            pool(2, 4, M, M),
            pool(4, 5, M, M),
            pool(5, 6, M, M),
            pool(6, 4, M, M),
        ];
        let units = [M; 7];
        let x = 0.5 * M;
        let want = b.amount_out(0, a.amount_out(0, x));
        let mut pools = vec![a, b];
        pools.extend(extra);
        let o = solve(&pools, 0, 2, x, &units);
        assert_eq!(o.pools_used, 2);
        assert!(rel(o.amount_out, want) < 1e-6, "{o:?} want {want}");
        // A second path 0–4–2 puts the triangle's pools 2–4 and 4–5–6–4
        // back in play (the triangle only as a cycle, which pays nothing).
        pools.push(pool(0, 4, M, M));
        let o = solve(&pools, 0, 2, x, &units);
        assert_eq!(o.pools_used, 7);
        assert!(o.amount_out > want, "{o:?}");
    }

    #[test]
    fn a_direct_pool_and_a_two_hop_path_split_at_the_best_share() {
        // The output as a function of the share sent direct is concave:
        // ternary search finds the best split.
        let direct = pool(0, 1, 2.0 * M, 2.0 * M);
        let (h1, h2) = (pool(0, 2, 6.0 * M, 6.0 * M), pool(2, 1, 5.0 * M, 5.0 * M));
        let units = [M; 3];
        for usd in [1e4, 1e6, 1e7] {
            let x = usd / 1e6 * M;
            let total = |f: f64| {
                direct.amount_out(0, f * x) + h2.amount_out(0, h1.amount_out(0, (1.0 - f) * x))
            };
            let (mut lo, mut hi) = (0.0f64, 1.0f64);
            for _ in 0..200 {
                let (m1, m2) = (lo + (hi - lo) / 3.0, hi - (hi - lo) / 3.0);
                if total(m1) < total(m2) {
                    lo = m1;
                } else {
                    hi = m2;
                }
            }
            let want = total((lo + hi) / 2.0);
            let o = solve(&[direct, h1, h2], 0, 1, x, &units);
            assert!(rel(o.amount_out, want) < 1e-6, "{usd}: {o:?} want {want}");
        }
    }

    #[test]
    fn disconnected_output_gets_nothing() {
        let units = [M, M, M, M];
        let o = solve(&[pool(0, 1, M, M), pool(2, 3, M, M)], 0, 3, 0.1 * M, &units);
        assert_eq!((o.amount_out, o.pools_used), (0.0, 0));
    }

    #[test]
    fn bad_inputs_are_errors() {
        let units = [M, M];
        let p = pool(0, 1, M, M);
        assert_eq!(convex_optimum(&[p], 0, 0, M, &units), Err(OptimumError::SameToken));
        assert_eq!(convex_optimum(&[p], 0, 1, -1.0, &units), Err(OptimumError::BadAmount(-1.0)));
        assert_eq!(
            convex_optimum(&[p], 0, 2, M, &[M, M, M]),
            Err(OptimumError::TokenNotInPools(2))
        );
        assert_eq!(convex_optimum(&[p], 0, 1, M, &[M]), Err(OptimumError::BadPool(0)));
        assert_eq!(
            convex_optimum(&[pool(0, 1, 0.0, M)], 0, 1, M, &units),
            Err(OptimumError::BadPool(0))
        );
        assert_eq!(convex_optimum(&[p], 0, 1, M, &[M, 0.0]), Err(OptimumError::BadUnit(1)));
    }

    /// A tick range alone: within it, its constant-product curve on the
    /// virtual reserves; past it, all of its real reserve and no more.
    #[test]
    fn a_tick_range_is_its_curve_up_to_its_real_reserve() {
        let units = [M, M];
        // L = 1e24, the price 1 in (0.9, 1.1) as sqrt prices.
        let (l, pa, pb) = (M, 0.9f64.sqrt(), 1.1f64.sqrt());
        let r = CpPool::tick_range([0, 1], l, pa, pb, 1.0, 0.997);
        assert!(rel(r.reserves[0] + r.offsets[0], l) < 1e-12);
        let small = 0.01 * M;
        let o = solve(&[r], 0, 1, small, &units);
        assert!(rel(o.amount_out, r.amount_out(0, small)) < 1e-6, "{o:?}");
        // Ten times what the range can absorb: the output is its token1.
        let o = solve(&[r], 0, 1, 10.0 * M, &units);
        assert!(rel(o.amount_out, r.reserves[1]) < 1e-6, "{o:?} vs {}", r.reserves[1]);
        assert!(o.amount_in_used < 10.0 * M);
    }

    /// Two adjacent ranges of the same liquidity are one range over both:
    /// the walk across the boundary is what the optimum finds.
    #[test]
    fn adjacent_tick_ranges_compose_like_one() {
        let units = [M, M];
        let (l, pa, pm, pb, s) = (M, 0.8f64.sqrt(), 1.0, 1.25f64.sqrt(), 1.05f64.sqrt());
        let split = [
            CpPool::tick_range([0, 1], l, pa, pm, s, 0.997),
            CpPool::tick_range([0, 1], l, pm, pb, s, 0.997),
        ];
        let whole = CpPool::tick_range([0, 1], l, pa, pb, s, 0.997);
        // Selling token1 moves the price up, within the upper range; selling
        // token0 moves it down, across the boundary at 1.
        for (from, to, x) in [(1, 0, 0.05 * M), (0, 1, 0.2 * M)] {
            let (a, b) = (solve(&split, from, to, x, &units), solve(&[whole], from, to, x, &units));
            assert!(rel(a.amount_out, b.amount_out) < 1e-6, "{a:?} {b:?}");
            assert!(rel(b.amount_out, whole.amount_out(from, x)) < 1e-6);
        }
    }
}
