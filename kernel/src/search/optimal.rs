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
//! Uniswap V2 pools are their own curve; a V3 pool enters with the virtual
//! reserves of its active range (exact for trades that stay in it). The
//! flows only choose paths and a first allocation: the split stage then
//! allocates over those paths with the exact curves' shadows, and the plan's
//! amounts come from the exact integer simulation.

use crate::{
    graph::{Edge, TokenIx},
    pool::{PoolState, u256_to_f64},
    snapshot::MarketSnapshot,
};

/// One direction of a pool as a constant-product curve.
#[derive(Debug, Clone, Copy)]
struct Curve {
    edge: Edge,
    /// Local token indexes: sold, bought.
    from: usize,
    to: usize,
    /// Reserves of the sold and bought tokens (virtual for V3), raw units.
    r_in: f64,
    r_out: f64,
    /// One minus the fee.
    gamma: f64,
}

impl Curve {
    /// The pool direction `edge` as a curve, if the pool is one.
    fn of(snapshot: &MarketSnapshot, edge: Edge, from: usize, to: usize) -> Option<Self> {
        let Edge::Pool { pool, i, j } = edge else { return None };
        let p = snapshot.pools().get(pool as usize)?;
        let (i, j) = (usize::from(i), usize::from(j));
        let (r_in, r_out, gamma) = match &p.state {
            PoolState::UniswapV2 { reserves, fee_bps } => (
                u256_to_f64(alloy_primitives::U256::from(*reserves.get(i)?)),
                u256_to_f64(alloy_primitives::U256::from(*reserves.get(j)?)),
                1.0 - f64::from(*fee_bps) / 10_000.0,
            ),
            PoolState::UniswapV3(v3) => {
                let s = u256_to_f64(v3.sqrt_price_x96) / 2f64.powi(96);
                let l = v3.liquidity as f64;
                if s <= 0.0 || l <= 0.0 {
                    return None;
                }
                // Virtual reserves of the active range: x = L/√P, y = L·√P.
                let (x, y) = (l / s, l * s);
                let (r_in, r_out) = if i == 0 { (x, y) } else { (y, x) };
                (r_in, r_out, 1.0 - f64::from(v3.fee) / 1e6)
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
        })
    }

    /// The best trade at prices `nu_in`, `nu_out`: `(sold, bought)`.
    fn arbitrage(&self, nu_in: f64, nu_out: f64) -> (f64, f64) {
        let k = self.gamma * self.r_in * self.r_out * nu_out / nu_in;
        let x = (k.sqrt() - self.r_in) / self.gamma;
        if x.is_nan() || x <= 0.0 {
            return (0.0, 0.0);
        }
        let y = self.r_out * self.gamma * x / (self.r_in + self.gamma * x);
        (x, y)
    }
}

/// The routing problem over a subgraph, in local token indexes.
struct Problem {
    curves: Vec<Curve>,
    tokens: usize,
    input: usize,
    output: usize,
    amount: f64,
}

impl Problem {
    /// `g` and its gradient in `θ = ln ν` (the output's entry stays 0).
    fn dual(&self, theta: &[f64], grad: &mut [f64]) -> f64 {
        let nu: Vec<f64> = theta.iter().map(|t| t.exp()).collect();
        let mut net = vec![0.0; self.tokens];
        net[self.input] = self.amount;
        let mut g = nu[self.input] * self.amount;
        for c in &self.curves {
            let (x, y) = c.arbitrage(nu[c.from], nu[c.to]);
            if x > 0.0 {
                g += nu[c.to] * y - nu[c.from] * x;
                net[c.to] += y;
                net[c.from] -= x;
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
        self.curves.iter().map(|c| c.arbitrage(nu[c.from], nu[c.to])).collect()
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

/// The paths, input to output, of at most `max_hops` pools, over which the
/// optimal routing of `amount` sends at least a thousandth of it, most
/// first, at most `max_paths`: found over the pool edges `edges` (pools
/// that are not constant-product curves, and bridges, are left out).
pub(super) fn optimal_paths(
    snapshot: &MarketSnapshot,
    edges: &[(TokenIx, TokenIx, Edge)],
    from: TokenIx,
    to: TokenIx,
    amount: f64,
    max_hops: usize,
    max_paths: usize,
) -> Vec<Vec<Edge>> {
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
            && let Some(curve) = Curve::of(snapshot, *e, ka, kc)
        {
            curves.push(curve);
        }
    }
    if curves.is_empty() || amount.is_nan() || amount <= 0.0 {
        return Vec::new();
    }
    let problem = Problem { curves, tokens: tokens.len(), input: 0, output: 1, amount };
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
        return Vec::new();
    }
    let theta0: Vec<f64> =
        nu.iter().map(|v| if *v > 0.0 { v.ln() } else { floor.ln() - 20.0 }).collect();
    let flows = problem.solve(theta0);

    // Decompose: at each token, the flow leaving splits by each curve's
    // share of what is sold there; a path's share of the input is the
    // product along it.
    let mut sold = vec![0.0f64; tokens.len()];
    let mut leaving: Vec<Vec<usize>> = vec![Vec::new(); tokens.len()];
    for (k, (c, (x, _))) in problem.curves.iter().zip(&flows).enumerate() {
        if *x > 0.0 {
            sold[c.from] += x;
            leaving[c.from].push(k);
        }
    }
    let mut found: Vec<(f64, Vec<Edge>)> = Vec::new();
    let mut stack: Vec<(usize, f64, Vec<usize>, Vec<Edge>)> = vec![(0, 1.0, vec![0], Vec::new())];
    while let Some((at, share, seen, path)) = stack.pop() {
        if at == 1 {
            found.push((share, path));
            continue;
        }
        if path.len() >= max_hops || sold[at] <= 0.0 {
            continue;
        }
        for &k in &leaving[at] {
            let (c, x) = (&problem.curves[k], flows[k].0);
            if seen.contains(&c.to) {
                continue;
            }
            let s = share * x / sold[at];
            if s < 1e-3 {
                continue;
            }
            let mut p = path.clone();
            p.push(c.edge);
            let mut v = seen.clone();
            v.push(c.to);
            stack.push((c.to, s, v, p));
        }
    }
    found.sort_by(|a, b| b.0.total_cmp(&a.0));
    found.into_iter().take(max_paths).map(|(_, p)| p).collect()
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
        };
        let p = Problem {
            curves: vec![curve(0, 1, 1e6), curve(0, 1, 3e6), curve(1, 0, 1e6), curve(1, 0, 3e6)],
            tokens: 2,
            input: 0,
            output: 1,
            amount: 4e5,
        };
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
        };
        // 0 → 1 direct; 0 → 2 → 1 deeper.
        let p = Problem {
            curves: vec![
                curve(0, 1, 1e6, 1e6),
                curve(1, 0, 1e6, 1e6),
                curve(0, 2, 5e6, 5e6),
                curve(2, 0, 5e6, 5e6),
                curve(2, 1, 5e6, 5e6),
                curve(1, 2, 5e6, 5e6),
            ],
            tokens: 3,
            input: 0,
            output: 1,
            amount: 1e6,
        };
        let flows = p.solve(vec![0.0, 0.0, 0.0]);
        let into_2 = flows[2].1 - flows[3].0;
        let out_of_2 = flows[4].0 - flows[5].1;
        assert!((into_2 - out_of_2).abs() < 1e6 * 1e-4, "{into_2} {out_of_2}");
        let sold = flows[0].0 + flows[2].0 - flows[1].1 - flows[3].1;
        assert!((sold - 1e6).abs() < 1e6 * 1e-4, "{sold}");
        assert!(flows[0].0 > 0.0 && flows[2].0 > flows[0].0, "{flows:?}");
    }
}
