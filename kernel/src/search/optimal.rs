//! Paths at the convex optimum, by dual decomposition (Diamandis, Resnick,
//! Chitra and Angeris, "An Efficient Algorithm for Optimal Routing Through
//! Constant Function Market Makers", 2023), in `f64`.
//!
//! Routing `b` of one token into as much of another as the pools give is a
//! convex program whose only coupling is each token's net flow. Pricing that
//! constraint with token prices `ν` (in output units per raw unit, the
//! output's own price fixed at 1) splits it into one independent problem per
//! pool direction, "the best arbitrage at prices ν", whose answer has a
//! closed form for a constant-product curve: sell `x* = (√(γ·Rᵢ·Rⱼ·νⱼ/νᵢ) −
//! Rᵢ)/γ` when that is positive. The dual
//!
//! ```text
//! g(ν) = ν_in·b + Σ_pools max_x (νⱼ·out(x) − νᵢ·x)
//! ```
//!
//! is convex; its gradient in `νₖ` is `b·[k = in]` plus the net amount of
//! `k` the arbitrages take out of the pools. Its minimum, found here by
//! L-BFGS over `ln ν` (which keeps prices positive), prices every token so
//! that the arbitrages' flows balance: those flows are the optimal routing,
//! spread over every pool at once, the input token's own pools included,
//! however many hops.
//!
//! Uniswap V2 pools are their own curve. A V3 pool's best arbitrage walks its
//! tick ranges, each a constant-product curve of its liquidity: the price
//! moves to where the marginal rate after the fee meets `νᵢ/νⱼ`, and the
//! amounts are the ranges' `L·Δ(1/√P)` and `L·Δ√P` on the way (the kernel's
//! cached `f64` tick prices). The flows are taken apart into a few paths,
//! each with its share of the input ([`decompose`]); the split stage starts
//! from those shares, refines them with the exact curves' shadows, and the
//! plan's amounts come from the exact integer simulation.

use crate::{
    graph::{Edge, TokenIx},
    pool::{PoolState, u128_to_f64, u256_to_f64},
    snapshot::MarketSnapshot,
};

/// One direction of a pool as a constant-product curve, or a walk over a
/// V3 pool's tick ranges.
#[derive(Debug, Clone, Copy)]
struct Curve<'a> {
    edge: Edge,
    /// Local token indexes: sold, bought.
    from: usize,
    to: usize,
    /// Reserves of the sold and bought tokens (for V3, the active range's
    /// virtual reserves: the marginal rate the start values read), raw
    /// units.
    r_in: f64,
    r_out: f64,
    /// One minus the fee.
    gamma: f64,
    /// A V3 pool's ranges (`None`: the curve is `r_in`, `r_out`).
    walk: Option<Walk<'a>>,
    /// What may reach the curve before the price leaves the active range
    /// (a V3 pool's next initialized tick; infinite for V2).
    capacity: f64,
}

/// A V3 pool in one direction: its price, active liquidity and initialized
/// ticks.
#[derive(Debug, Clone, Copy)]
struct Walk<'a> {
    /// `√P`, raw token1 per raw token0.
    sqrt_p: f64,
    /// Active liquidity.
    liquidity: f64,
    /// `(tick, liquidityNet)`, sorted, and each tick's `√P`.
    ticks: &'a [(i32, i128)],
    sqrt: &'a [f64],
    /// Ticks at or below the current one: `ticks[..below]`.
    below: usize,
    /// Selling token0 (the price falls).
    zero_for_one: bool,
}

impl Walk<'_> {
    /// What reaches the curve and what leaves it when the price moves to
    /// `target` (`√P`), range by range; the walk stops where the ticks end.
    fn trade_until(&self, target: f64) -> (f64, f64) {
        let (mut l, mut at) = (self.liquidity, self.sqrt_p);
        let (mut tendered, mut received) = (0.0, 0.0);
        if self.zero_for_one {
            let mut k = self.below;
            loop {
                let next = if k > 0 { self.sqrt[k - 1] } else { 0.0 };
                let lo = next.max(target);
                if l > 0.0 && lo < at {
                    tendered += l * (1.0 / lo - 1.0 / at);
                    received += l * (at - lo);
                }
                if lo == target || k == 0 {
                    break;
                }
                // Crossing tick k − 1 downwards takes its net out.
                l = (l - self.ticks[k - 1].1 as f64).max(0.0);
                at = next;
                k -= 1;
            }
        } else {
            let mut k = self.below;
            loop {
                let next = self.sqrt.get(k).copied().unwrap_or(f64::INFINITY);
                let hi = next.min(target);
                if l > 0.0 && hi > at {
                    tendered += l * (hi - at);
                    received += l * (1.0 / at - 1.0 / hi);
                }
                if hi == target || k == self.ticks.len() {
                    break;
                }
                l = (l + self.ticks[k].1 as f64).max(0.0);
                at = next;
                k += 1;
            }
        }
        (tendered, received)
    }
}

impl<'a> Curve<'a> {
    /// The pool direction `edge` as a curve, if the pool is one; a V3 pool
    /// walks its ranges when `walk_v3`, else is its active range's curve.
    fn of(
        snapshot: &'a MarketSnapshot,
        edge: Edge,
        from: usize,
        to: usize,
        walk_v3: bool,
    ) -> Option<Self> {
        let Edge::Pool { pool, i, j } = edge else { return None };
        let p = snapshot.pools().get(pool as usize)?;
        let (i, j) = (usize::from(i), usize::from(j));
        let (r_in, r_out, gamma, walk, capacity) = match &p.state {
            PoolState::UniswapV2 { .. } | PoolState::UniswapV2Lp(_) => {
                // A pair's coins only: its liquidity token's zaps are no
                // constant-product curve.
                let (reserves, fee_bps) = p.state.v2_pair()?;
                (
                    u128_to_f64(*reserves.get(i)?),
                    u128_to_f64(*reserves.get(j)?),
                    1.0 - f64::from(fee_bps) / 10_000.0,
                    None,
                    f64::INFINITY,
                )
            }
            PoolState::UniswapV3(v3) => {
                let s = u256_to_f64(v3.sqrt_price_x96) / 2f64.powi(96);
                let l = v3.liquidity as f64;
                if s <= 0.0 || l <= 0.0 || !s.is_finite() {
                    return None;
                }
                // Virtual reserves of the active range: x = L/√P, y = L·√P.
                let (x, y) = (l / s, l * s);
                let (r_in, r_out) = if i == 0 { (x, y) } else { (y, x) };
                let walk = Walk {
                    sqrt_p: s,
                    liquidity: l,
                    ticks: &v3.ticks,
                    sqrt: v3.ticks.sqrt_prices(),
                    below: v3.ticks.partition_point(|(t, _)| *t <= v3.tick),
                    zero_for_one: i == 0,
                };
                let sqrt = v3.ticks.sqrt_prices();
                let capacity = if i == 0 {
                    walk.below
                        .checked_sub(1)
                        .map_or(f64::INFINITY, |k| l * (1.0 / sqrt[k] - 1.0 / s))
                } else {
                    sqrt.get(walk.below).map_or(f64::INFINITY, |b| l * (b - s))
                };
                (r_in, r_out, 1.0 - f64::from(v3.fee) / 1e6, walk_v3.then_some(walk), capacity)
            }
            _ => return None,
        };
        (r_in > 0.0 && r_out > 0.0 && r_in.is_finite() && r_out.is_finite()).then_some(Self {
            edge,
            from,
            to,
            r_in,
            r_out,
            gamma,
            walk,
            capacity,
        })
    }

    /// The best trade at prices `nu_in`, `nu_out`: `(sold, bought)`.
    fn arbitrage(&self, nu_in: f64, nu_out: f64) -> (f64, f64) {
        if let Some(w) = &self.walk {
            // The marginal rate after the fee is γ·P selling token0 and
            // γ/P selling token1; the walk goes to where it is νᵢ/νⱼ.
            let target = if w.zero_for_one {
                (nu_in / (self.gamma * nu_out)).sqrt()
            } else {
                (self.gamma * nu_out / nu_in).sqrt()
            };
            let moves = if w.zero_for_one { target < w.sqrt_p } else { target > w.sqrt_p };
            if !target.is_finite() || target <= 0.0 || !moves {
                return (0.0, 0.0);
            }
            let (tendered, received) = w.trade_until(target);
            return if tendered > 0.0 && received > 0.0 {
                (tendered / self.gamma, received)
            } else {
                (0.0, 0.0)
            };
        }
        Hot::of(self, None).constant_product(nu_in, nu_out)
    }
}

/// A curve as the dual's inner loop reads it: a constant-product curve's
/// products precomputed in the order the closed form multiplies them (so
/// its answers are the same bits), in 48 bytes where a [`Curve`] takes
/// about 130; the dual goes over thousands of them per evaluation.
#[derive(Debug, Clone, Copy)]
struct Hot {
    from: u32,
    to: u32,
    /// The curve's index in [`Problem::curves`] when it walks V3 ranges
    /// (`u32::MAX`: the constant-product fields below are the curve).
    walk: u32,
    /// `γ·Rᵢ·Rⱼ`.
    k: f64,
    /// `γ·Rⱼ`.
    gamma_out: f64,
    r_in: f64,
    gamma: f64,
}

impl Hot {
    fn of(c: &Curve<'_>, walk: Option<usize>) -> Self {
        Self {
            from: c.from as u32,
            to: c.to as u32,
            walk: walk.map_or(u32::MAX, |k| k as u32),
            k: c.gamma * c.r_in * c.r_out,
            gamma_out: c.gamma * c.r_out,
            r_in: c.r_in,
            gamma: c.gamma,
        }
    }

    /// The best trade on the constant-product curve at prices `nu_in`,
    /// `nu_out`: sell `x* = (√(γ·Rᵢ·Rⱼ·νⱼ/νᵢ) − Rᵢ)/γ` when positive.
    fn constant_product(&self, nu_in: f64, nu_out: f64) -> (f64, f64) {
        // Nothing to sell unless the marginal rate beats the prices' ratio:
        // told apart without the square root where it clearly does not (the
        // margin leaves the boundary, and so every answer, to the closed
        // form).
        if self.gamma_out * nu_out < self.r_in * nu_in * (1.0 - 1e-9) {
            return (0.0, 0.0);
        }
        let k = self.k * nu_out / nu_in;
        let x = (k.sqrt() - self.r_in) / self.gamma;
        if x.is_nan() || x <= 0.0 {
            return (0.0, 0.0);
        }
        let y = self.gamma_out * x / (self.r_in + self.gamma * x);
        (x, y)
    }
}

/// The routing problem over a subgraph, in local token indexes.
struct Problem<'a> {
    curves: Vec<Curve<'a>>,
    /// The same curves, in the same order, as the dual reads them.
    hot: Vec<Hot>,
    tokens: usize,
    input: usize,
    output: usize,
    amount: f64,
}

impl<'a> Problem<'a> {
    fn new(curves: Vec<Curve<'a>>, tokens: usize, amount: f64) -> Self {
        let hot = curves
            .iter()
            .enumerate()
            .map(|(k, c)| Hot::of(c, c.walk.is_some().then_some(k)))
            .collect();
        Self { curves, hot, tokens, input: 0, output: 1, amount }
    }

    /// `g` and its gradient in `θ = ln ν` (the output's entry stays 0).
    fn dual(&self, theta: &[f64], grad: &mut [f64]) -> f64 {
        let nu: Vec<f64> = theta.iter().map(|t| t.exp()).collect();
        let mut net = vec![0.0; self.tokens];
        net[self.input] = self.amount;
        let mut g = nu[self.input] * self.amount;
        for h in &self.hot {
            let (from, to) = (h.from as usize, h.to as usize);
            let (x, y) = self.arbitrage(h, &nu);
            if x > 0.0 {
                g += nu[to] * y - nu[from] * x;
                net[to] += y;
                net[from] -= x;
            }
        }
        for k in 0..self.tokens {
            grad[k] = if k == self.output { 0.0 } else { nu[k] * net[k] };
        }
        g
    }

    /// The flows at the dual optimum: sold and bought per curve.
    fn solve(&self, theta0: Vec<f64>) -> Vec<(f64, f64)> {
        let theta = lbfgs(|t, g| self.dual(t, g), theta0, 50);
        let nu: Vec<f64> = theta.iter().map(|t| t.exp()).collect();
        self.hot.iter().map(|h| self.arbitrage(h, &nu)).collect()
    }

    /// A curve's best trade at prices `nu`: a V3 walk by its [`Curve`], a
    /// constant-product curve by its compact copy (the same bits). Inlined
    /// into the dual's loop: called there, it cost 3% more instructions.
    #[inline(always)]
    fn arbitrage(&self, h: &Hot, nu: &[f64]) -> (f64, f64) {
        let (nu_in, nu_out) = (nu[h.from as usize], nu[h.to as usize]);
        match self.curves.get(h.walk as usize) {
            Some(walking) => walking.arbitrage(nu_in, nu_out),
            None => h.constant_product(nu_in, nu_out),
        }
    }
}

/// Minimizes `f` from `x` by L-BFGS (8 corrections, Armijo backtracking),
/// at most `iterations` steps; stops when a step no longer lowers `f`.
fn lbfgs(f: impl Fn(&[f64], &mut [f64]) -> f64, mut x: Vec<f64>, iterations: usize) -> Vec<f64> {
    const MEMORY: usize = 8;
    let n = x.len();
    let mut g = vec![0.0; n];
    let mut fx = f(&x, &mut g);
    let mut history: std::collections::VecDeque<(Vec<f64>, Vec<f64>, f64)> =
        std::collections::VecDeque::new();
    let dot = |a: &[f64], b: &[f64]| a.iter().zip(b).map(|(p, q)| p * q).sum::<f64>();
    for _ in 0..iterations {
        // The two-loop recursion: d = −H·g.
        let mut q = g.clone();
        let mut alphas = Vec::with_capacity(history.len());
        for (s, y, rho) in history.iter().rev() {
            let a = rho * dot(s, &q);
            q.iter_mut().zip(y).for_each(|(qi, yi)| *qi -= a * yi);
            alphas.push(a);
        }
        let scale = history.back().map_or(1.0, |(s, y, _)| dot(s, y) / dot(y, y).max(1e-300));
        q.iter_mut().for_each(|v| *v *= scale);
        for ((s, y, rho), a) in history.iter().zip(alphas.iter().rev()) {
            let b = rho * dot(y, &q);
            q.iter_mut().zip(s).for_each(|(qi, si)| *qi += (a - b) * si);
        }
        let mut d: Vec<f64> = q.iter().map(|v| -v).collect();
        let mut slope = dot(&g, &d);
        if slope >= 0.0 || slope.is_nan() {
            // Not a descent direction: steepest descent, scaled to a step of
            // at most 1 in the largest coordinate.
            let m = g.iter().fold(0.0f64, |m, v| m.max(v.abs())).max(1e-300);
            d = g.iter().map(|v| -v / m).collect();
            slope = dot(&g, &d);
            history.clear();
        }
        // At most a factor e^4 per price per step.
        let longest = d.iter().fold(0.0f64, |m, v| m.max(v.abs()));
        let mut t = if longest > 4.0 { 4.0 / longest } else { 1.0 };
        let mut g_new = vec![0.0; n];
        let mut accepted = None;
        for _ in 0..30 {
            let x_new: Vec<f64> = x.iter().zip(&d).map(|(xi, di)| xi + t * di).collect();
            let f_new = f(&x_new, &mut g_new);
            if f_new.is_finite() && f_new <= fx + 1e-4 * t * slope {
                accepted = Some((x_new, f_new));
                break;
            }
            t *= 0.5;
        }
        let Some((x_new, f_new)) = accepted else { break };
        let s: Vec<f64> = x_new.iter().zip(&x).map(|(a, b)| a - b).collect();
        let y: Vec<f64> = g_new.iter().zip(&g).map(|(a, b)| a - b).collect();
        let sy = dot(&s, &y);
        if sy > 1e-12 * dot(&y, &y).sqrt() * dot(&s, &s).sqrt() {
            history.push_back((s, y, 1.0 / sy));
            if history.len() > MEMORY {
                history.pop_front();
            }
        }
        let improved = fx - f_new;
        x = x_new;
        g.clone_from(&g_new);
        fx = f_new;
        if improved <= 1e-12 * fx.abs() {
            break;
        }
    }
    x
}

/// The optimal routing over a subgraph, taken apart into paths.
#[derive(Debug, Default)]
pub(super) struct Solved {
    /// The paths, widest first, each with the share of the amount it takes.
    pub(super) paths: Vec<(Vec<Edge>, f64)>,
    /// For each path, what its part of the flow sells into each of its
    /// pool directions (raw units of the token sold there): its share of
    /// the amount, times the flow's average rate of each pool before.
    pub(super) carried: Vec<Vec<f64>>,
    /// What the flow sells into each pool direction it uses.
    pub(super) flows: Vec<(Edge, f64)>,
    /// A V3 pool's flow left its active range (the walk would differ; see
    /// [`Limits::walk_v3`]).
    pub(super) crossed: bool,
}

/// The paths, input to output, of at most `max_hops` pools, over which the
/// optimal routing of `amount` sends at least a thousandth of it, each with
/// the share of `amount` it takes, widest first, at most `max_paths` (see
/// [`decompose`]): found over the pool edges `edges` (pools
/// that are not constant-product curves, and bridges, are left out). V3
/// pools walk their tick ranges when `walk_v3`, else trade on their active
/// range's curve.
pub(super) fn optimal_paths(
    snapshot: &MarketSnapshot,
    edges: &[(TokenIx, TokenIx, Edge)],
    (from, to): (TokenIx, TokenIx),
    amount: f64,
    Limits { max_hops, max_paths, walk_v3 }: Limits,
) -> Solved {
    // Local token indexes.
    let mut tokens: Vec<TokenIx> = vec![from, to];
    let mut index: std::collections::HashMap<TokenIx, usize> =
        [(from, 0), (to, 1)].into_iter().collect();
    let mut local = |t: TokenIx| {
        *index.entry(t).or_insert_with(|| {
            tokens.push(t);
            tokens.len() - 1
        })
    };
    let mut curves = Vec::with_capacity(edges.len());
    for (a, c, e) in edges {
        let (ka, kc) = (local(*a), local(*c));
        if ka != kc
            && let Some(curve) = Curve::of(snapshot, *e, ka, kc, walk_v3)
        {
            curves.push(curve);
        }
    }
    if curves.is_empty() || amount.is_nan() || amount <= 0.0 {
        return Solved::default();
    }
    let problem = Problem::new(curves, tokens.len(), amount);
    // Start from spot values: each token worth the best rate into a token
    // already valued, from the output outward.
    let mut nu = vec![0.0f64; tokens.len()];
    nu[1] = 1.0;
    for _ in 0..max_hops.max(1) {
        for c in &problem.curves {
            let rate = c.gamma * c.r_out / c.r_in * nu[c.to];
            if rate > nu[c.from] && c.from != 1 {
                nu[c.from] = rate;
            }
        }
    }
    let floor = nu.iter().copied().filter(|v| *v > 0.0).fold(f64::INFINITY, f64::min);
    if !floor.is_finite() || nu[0] <= 0.0 {
        return Solved::default();
    }
    let theta0: Vec<f64> =
        nu.iter().map(|v| if *v > 0.0 { v.ln() } else { floor.ln() - 20.0 }).collect();
    let flows = problem.solve(theta0);
    let crossed =
        !walk_v3 && problem.curves.iter().zip(&flows).any(|(c, (x, _))| c.gamma * x > c.capacity);

    let arcs: Vec<(usize, usize)> = problem.curves.iter().map(|c| (c.from, c.to)).collect();
    let paths = decompose(tokens.len(), &arcs, &flows, amount, max_hops, max_paths);
    let carried = paths
        .iter()
        .map(|(p, share)| {
            let mut x = share * amount;
            p.iter()
                .map(|k| {
                    let sold = x;
                    let (xs, ys) = flows[*k];
                    x *= ys / xs;
                    sold
                })
                .collect()
        })
        .collect();
    let paths = paths
        .into_iter()
        .map(|(p, share)| (p.into_iter().map(|k| problem.curves[k].edge).collect(), share))
        .collect();
    let flows = problem
        .curves
        .iter()
        .zip(&flows)
        .filter(|(_, (x, _))| *x > 0.0)
        .map(|(c, (x, _))| (c.edge, *x))
        .collect();
    Solved { paths, carried, flows, crossed }
}

/// The paths, input (token 0) to output (token 1), of at most `max_hops`
/// arcs, that carry the flow `flows` (what each arc `(from, to)` sells at
/// its `from` token and buys at its `to` token), each with the share of
/// `amount` (of the input) it takes, widest first, at most `max_paths`.
///
/// Arcs into the input or out of the output, and the thinnest arc of each
/// cycle (an arbitrage loop, or what the dual leaves unbalanced), are
/// dropped so that the flow runs one way. Then the widest path, the one
/// that can take the most input before one of its arcs is full, is taken
/// out of the flow, and again. A unit of input reaches each arc multiplied
/// by the average rates of the arcs before it, so an arc holds as much
/// input as what is left of its flow divided by that product, and a path
/// leaves each arc's own token in the amount its part of the flow brings
/// there. A few paths so carry most of the flow, where multiplying each
/// token's shares along every branch gives one path per combination of
/// branches, and what each path brings to a pool is what the flow sends
/// it: a V3 pool drained to its last tick is not overfilled.
fn decompose(
    tokens: usize,
    arcs: &[(usize, usize)],
    flows: &[(f64, f64)],
    amount: f64,
    max_hops: usize,
    max_paths: usize,
) -> Vec<(Vec<usize>, f64)> {
    /// Paths carrying less of the input than this are not taken.
    const THINNEST: f64 = 1e-3;
    // While a cycle is left, drop its thinnest arc (Kahn's order leaves
    // the tokens on or after a cycle unordered). Only the arcs with flow
    // take part (a few dozen of a subgraph's thousands), each token's
    // outgoing ones found through one sorted list.
    let mut carrying: Vec<usize> = (0..arcs.len())
        .filter(|k| {
            let ((a, b), (x, y)) = (arcs[*k], flows[*k]);
            x > 0.0 && y > 0.0 && a != b && b != 0 && a != 1
        })
        .collect();
    let mut outgoing = carrying.clone();
    let mut indegree = vec![0usize; tokens];
    let mut order: Vec<usize> = Vec::with_capacity(tokens);
    loop {
        outgoing.clone_from(&carrying);
        outgoing.sort_by_key(|k| arcs[*k].0);
        indegree.iter_mut().for_each(|d| *d = 0);
        for &k in &carrying {
            indegree[arcs[k].1] += 1;
        }
        order.clear();
        order.extend((0..tokens).filter(|t| indegree[*t] == 0));
        let mut next = 0;
        while next < order.len() {
            let t = order[next];
            next += 1;
            let start = outgoing.partition_point(|k| arcs[*k].0 < t);
            for &k in outgoing[start..].iter().take_while(|k| arcs[**k].0 == t) {
                let b = arcs[k].1;
                indegree[b] -= 1;
                if indegree[b] == 0 {
                    order.push(b);
                }
            }
        }
        if order.len() == tokens {
            break;
        }
        let thinnest = carrying
            .iter()
            .copied()
            .filter(|k| indegree[arcs[*k].0] > 0 && indegree[arcs[*k].1] > 0)
            .min_by(|a, b| flows[*a].0.total_cmp(&flows[*b].0));
        match thinnest {
            Some(k) => carrying.retain(|c| *c != k),
            None => return Vec::new(),
        }
    }
    let rate: Vec<f64> = flows.iter().map(|(x, y)| y / x).collect();
    let mut left = vec![0.0; flows.len()];
    for &k in &carrying {
        left[k] = flows[k].0;
    }
    // `best[h][t]`: the most input a way of `h` arcs brings to `t`, the
    // product of its rates, and the arc it came by.
    let mut paths = Vec::new();
    // The arcs with flow left (most of a subgraph's arcs carry none).
    let mut open = carrying;
    let mut best = vec![vec![(0.0f64, 0.0f64, usize::MAX); tokens]; max_hops + 1];
    while paths.len() < max_paths {
        open.retain(|k| left[*k] > 0.0);
        best.iter_mut().flatten().for_each(|b| *b = (0.0, 0.0, usize::MAX));
        best[0][0] = (f64::INFINITY, 1.0, usize::MAX);
        for h in 1..=max_hops {
            for &k in &open {
                let (a, b) = arcs[k];
                let (width, gain, _) = best[h - 1][a];
                if width <= 0.0 {
                    continue;
                }
                let width = width.min(left[k] / gain);
                if width > best[h][b].0 {
                    best[h][b] = (width, gain * rate[k], k);
                }
            }
        }
        let Some(h) = (1..=max_hops).max_by(|x, y| best[*x][1].0.total_cmp(&best[*y][1].0)) else {
            break;
        };
        let width = best[h][1].0;
        if width.is_nan() || width < THINNEST * amount {
            break;
        }
        let mut path = Vec::with_capacity(h);
        let mut at = 1;
        for hop in (1..=h).rev() {
            let k = best[hop][at].2;
            at = arcs[k].0;
            left[k] = (left[k] - width * best[hop - 1][at].1).max(0.0);
            path.push(k);
        }
        path.reverse();
        paths.push((path, width / amount));
    }
    paths
}

/// How far [`optimal_paths`] looks, and how it prices V3 pools.
#[derive(Debug, Clone, Copy)]
pub(super) struct Limits {
    /// Pools per path.
    pub(super) max_hops: usize,
    /// Paths returned.
    pub(super) max_paths: usize,
    /// V3 pools walk their tick ranges. The walk is the exact dual, but
    /// the paths it decomposes into are not always the better ones once
    /// the split stage allocates over at most `max_optimal_paths` of them: on the
    /// quality bench's V2/V3 instances it lifts $10M trades (median 0.870
    /// → 0.920) and lowers some $1M tail→tail ones (0.988 → 0.983). The
    /// search solves with the active ranges first, and walks too only when
    /// that solution's flow leaves a pool's active range, keeping what
    /// delivers more.
    pub(super) walk_v3: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two parallel constant-product pools of depths 1 and 3 (same price,
    /// no fee): the optimum splits the input 1:3, which the dual finds.
    #[test]
    fn the_dual_splits_over_parallel_pools_by_depth() {
        let curve = |from, to, r: f64| Curve {
            edge: Edge::Pool { pool: 0, i: 0, j: 1 },
            from,
            to,
            r_in: r,
            r_out: r,
            gamma: 1.0,
            walk: None,
            capacity: f64::INFINITY,
        };
        let p = Problem::new(
            vec![curve(0, 1, 1e6), curve(0, 1, 3e6), curve(1, 0, 1e6), curve(1, 0, 3e6)],
            2,
            4e5,
        );
        let flows = p.solve(vec![0.0, 0.0]);
        let (a, b) = (flows[0].0, flows[1].0);
        assert!((a + b - 4e5).abs() < 4e5 * 1e-6, "{a} + {b}");
        assert!((b / a - 3.0).abs() < 1e-4, "{a} {b}");
        // Its output equals the one curve of the summed depth.
        let out = flows[0].1 + flows[1].1;
        let merged = 4e6 * 4e5 / (4e6 + 4e5);
        assert!((out / merged - 1.0).abs() < 1e-6, "{out} {merged}");
    }

    /// Through a cheaper two-hop route next to a direct pool: the optimum
    /// uses both, and balances the middle token.
    #[test]
    fn the_dual_balances_intermediate_tokens() {
        let curve = |from, to, r_in: f64, r_out: f64| Curve {
            edge: Edge::Pool { pool: 0, i: 0, j: 1 },
            from,
            to,
            r_in,
            r_out,
            gamma: 0.997,
            walk: None,
            capacity: f64::INFINITY,
        };
        // 0 → 1 direct; 0 → 2 → 1 deeper.
        let p = Problem::new(
            vec![
                curve(0, 1, 1e6, 1e6),
                curve(1, 0, 1e6, 1e6),
                curve(0, 2, 5e6, 5e6),
                curve(2, 0, 5e6, 5e6),
                curve(2, 1, 5e6, 5e6),
                curve(1, 2, 5e6, 5e6),
            ],
            3,
            1e6,
        );
        let flows = p.solve(vec![0.0, 0.0, 0.0]);
        let into_2 = flows[2].1 - flows[3].0;
        let out_of_2 = flows[4].0 - flows[5].1;
        assert!((into_2 - out_of_2).abs() < 1e6 * 1e-4, "{into_2} {out_of_2}");
        let sold = flows[0].0 + flows[2].0 - flows[1].1 - flows[3].1;
        assert!((sold - 1e6).abs() < 1e6 * 1e-4, "{sold}");
        assert!(flows[0].0 > 0.0 && flows[2].0 > flows[0].0, "{flows:?}");
    }

    /// Two ways into a middle token and three out of it: the shares of
    /// each branch multiplied give six paths; the widest-path
    /// decomposition carries the whole flow on at most four (a path per
    /// arc it fills), and what each path brings to an arc is the flow
    /// that arc sells, never more.
    #[test]
    fn a_flow_is_taken_apart_into_few_paths_that_fill_its_arcs() {
        // Tokens: 0 input, 1 output, 2 middle. Arcs 0, 1: input → middle
        // (rates 2 and 1.5); arcs 2..5: middle → output (rate 0.5).
        let arcs = [(0, 2), (0, 2), (2, 1), (2, 1), (2, 1)];
        let flows = [(60.0, 120.0), (40.0, 60.0), (90.0, 45.0), (60.0, 30.0), (30.0, 15.0)];
        let paths = decompose(3, &arcs, &flows, 100.0, 4, 16);
        assert!(paths.len() <= 4, "{paths:?}");
        let shares: f64 = paths.iter().map(|(_, s)| s).sum();
        assert!((shares - 1.0).abs() < 1e-9, "{paths:?}");
        // Replay the paths at the arcs' average rates: every arc sells
        // what the flow has it sell.
        let mut sold = [0.0f64; 5];
        for (path, share) in &paths {
            let mut amount = share * 100.0;
            for &k in path {
                sold[k] += amount;
                amount *= flows[k].1 / flows[k].0;
            }
        }
        for k in 0..5 {
            assert!((sold[k] - flows[k].0).abs() < 1e-9, "arc {k}: {sold:?}");
        }
    }

    /// A cycle between two middle tokens (what an unbalanced dual can
    /// leave) loses its thinnest arc, and flow into the input or out of
    /// the output is never a path.
    #[test]
    fn cycles_and_backward_arcs_are_dropped() {
        // 0 → 2 → 3 → 1, with 3 → 2 closing a cycle, 1 → 0 backwards.
        let arcs = [(0, 2), (2, 3), (3, 2), (3, 1), (1, 0)];
        let flows = [(10.0, 10.0), (12.0, 12.0), (2.0, 2.0), (10.0, 10.0), (5.0, 5.0)];
        let paths = decompose(4, &arcs, &flows, 10.0, 4, 16);
        assert_eq!(paths.len(), 1, "{paths:?}");
        assert_eq!(paths[0].0, vec![0, 1, 3]);
        assert!((paths[0].1 - 1.0).abs() < 1e-9, "{paths:?}");
        // A path longer than the hop limit is not taken.
        assert!(decompose(4, &arcs, &flows, 10.0, 2, 16).is_empty());
    }

    fn sqrt_at(t: i32) -> f64 {
        (f64::from(t) * 0.5 * 1.0001f64.ln()).exp()
    }

    /// Over one range that covers every price, the walk is the
    /// constant-product closed form on the active range's virtual reserves.
    #[test]
    fn a_walk_over_one_range_is_the_constant_product_curve() {
        let l = 1e21;
        let ticks =
            crate::pool::TickList::from(vec![(-887_220, l as i128), (887_220, -(l as i128))]);
        let s = sqrt_at(123);
        for zero_for_one in [true, false] {
            let walk = Walk {
                sqrt_p: s,
                liquidity: l,
                ticks: &ticks,
                sqrt: ticks.sqrt_prices(),
                below: 1,
                zero_for_one,
            };
            let (r_in, r_out) = if zero_for_one { (l / s, l * s) } else { (l * s, l / s) };
            let edge = Edge::Pool { pool: 0, i: 0, j: 1 };
            let cp = Curve {
                edge,
                from: 0,
                to: 1,
                r_in,
                r_out,
                gamma: 0.997,
                walk: None,
                capacity: f64::INFINITY,
            };
            let v3 = Curve { walk: Some(walk), ..cp };
            for (nu_in, nu_out) in [(0.5, 1.0), (0.9, 1.0), (1.0, 3.0), (1.0, 1.0)] {
                let (a, b) = (cp.arbitrage(nu_in, nu_out), v3.arbitrage(nu_in, nu_out));
                let close = |x: f64, y: f64| (x - y).abs() <= 1e-9 * x.abs().max(y.abs()).max(1.0);
                assert!(close(a.0, b.0) && close(a.1, b.1), "{zero_for_one} {nu_in}: {a:?} {b:?}");
            }
        }
    }

    /// Crossing an initialized tick changes the liquidity the walk trades
    /// against: `2L` above tick 0 and `L` below it.
    #[test]
    fn a_walk_crosses_ticks_with_their_net() {
        let l = 1e21;
        let li = l as i128;
        let ticks = crate::pool::TickList::from(vec![(-600, li), (0, li), (600, -2 * li)]);
        let (s, s0, target) = (sqrt_at(300), sqrt_at(0), sqrt_at(-300));
        let down = Walk {
            sqrt_p: s,
            liquidity: 2.0 * l,
            ticks: &ticks,
            sqrt: ticks.sqrt_prices(),
            below: 2,
            zero_for_one: true,
        };
        let (tendered, received) = down.trade_until(target);
        let want_in = 2.0 * l * (1.0 / s0 - 1.0 / s) + l * (1.0 / target - 1.0 / s0);
        let want_out = 2.0 * l * (s - s0) + l * (s0 - target);
        assert!((tendered / want_in - 1.0).abs() < 1e-12, "{tendered} {want_in}");
        assert!((received / want_out - 1.0).abs() < 1e-12, "{received} {want_out}");
        // Past the last tick there is nothing: the walk stops at -600.
        let (all_in, _) = down.trade_until(sqrt_at(-5_000));
        let cap = 2.0 * l * (1.0 / s0 - 1.0 / s) + l * (1.0 / sqrt_at(-600) - 1.0 / s0);
        assert!((all_in / cap - 1.0).abs() < 1e-12, "{all_in} {cap}");
        // Upwards from tick 300 to 900: 2L up to 600, none above.
        let up = Walk { zero_for_one: false, ..down };
        let (t_up, _) = up.trade_until(sqrt_at(900));
        assert!((t_up / (2.0 * l * (sqrt_at(600) - s)) - 1.0).abs() < 1e-12, "{t_up}");
    }
}
