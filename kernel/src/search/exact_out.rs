//! Exact output: the least input for a given output.
//!
//! The allocation comes from the exact-in search, which already splits and
//! walks multi-hop paths at the optimum it can find: it is run at an input
//! sized to give about the output wanted (a hint from USD prices, then a
//! multiplicative secant on the search's own answer, a few rounds). The
//! plan's paths then keep their shares of the output, rounded to sum to it,
//! and each path is computed backwards with every pool's exact-output math
//! ([`Pool::swap_exact_out_from`]), on the states the paths before it leave,
//! in the order they execute. Minimizing the input for an output and
//! maximizing the output for an input meet at the same marginal rates, so
//! the exact-in allocation at the matching size is the exact-out one.

use alloy_primitives::U256;
use switchyard_catalog::{Address, ChainId};

use super::{BASE_GAS, KernelError, Leg, Plan, Route, RouteRequest, SearchParams, StepAction};
use crate::{
    amm::{AmmError, full_math::mul_div},
    pool::PoolState,
    snapshot::MarketSnapshot,
};

/// Search rounds at most before the allocation is taken as it is.
const ROUNDS: usize = 16;

/// The search's answer within this many parts per million of the output
/// wanted is close enough to take its allocation.
const CLOSE_PPM: u64 = 15_000;

/// An input size tried and the output it got.
type Probe = (U256, U256);

/// What to route for an exact output: one input token into one output,
/// on one chain.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExactOutRequest {
    /// Chain.
    pub chain: ChainId,
    /// Input token.
    pub token_in: Address,
    /// Output token.
    pub token_out: Address,
    /// Output wanted.
    pub amount_out: U256,
    /// A guess of the input (from prices), if any.
    pub hint_in: Option<U256>,
}

/// The plan that delivers `req.amount_out` for the least input found: its
/// leg's `amount_in` is the input, `amounts_out` what is delivered (the
/// output asked for, or a few wei more through pools that only trade an
/// exact input).
pub fn find_routes_exact_out(
    snapshot: &MarketSnapshot,
    req: &ExactOutRequest,
    params: &SearchParams,
) -> Result<Plan, KernelError> {
    let want = req.amount_out;
    let no_route = || KernelError::NoRoute { token_in: req.token_in, token_out: req.token_out };
    if want.is_zero() {
        return Err(no_route());
    }
    let at = |x: U256| {
        super::find_routes(
            snapshot,
            &RouteRequest {
                chain: req.chain,
                destination_chain: None,
                inputs: vec![(req.token_in, x)],
                outputs: vec![req.token_out],
            },
            &SearchParams { split_between: false, ..params.clone() },
        )
    };
    // A first size: the hint, else one whole input token's rate (smaller
    // and smaller while the market cannot take it).
    let mut x = match req.hint_in.filter(|h| !h.is_zero()) {
        Some(h) => h,
        None => {
            let mut probe = one_token(snapshot, req.chain, req.token_in).unwrap_or(want);
            let (plan, probe) = loop {
                match at(probe) {
                    Ok(p) => break (p, probe),
                    Err(KernelError::NoRoute { .. }) if probe > U256::from(1024u32) => {
                        probe >>= 10;
                    }
                    Err(e) => return Err(e),
                }
            };
            let got = plan.amounts_out.first().copied().unwrap_or_default();
            if got.is_zero() {
                return Err(no_route());
            }
            mul_div(probe, want, got).ok_or_else(no_route)?.max(U256::ONE)
        }
    };
    // Every allocation the rounds see is a candidate: the search is not
    // monotonic at sizes that drain pools, so the closest is not always
    // the one that can deliver.
    let mut seen: Vec<(Plan, U256)> = Vec::with_capacity(ROUNDS);
    // The input sizes known to fall short (`lo`) and to reach (`hi`), with
    // what they got.
    let (mut lo, mut hi): (Option<Probe>, Option<Probe>) = (None, None);
    // Rounds that found one side only: the first trusts the rate, the
    // next ones stride.
    let mut one_sided = 0u32;
    for _ in 0..ROUNDS {
        let plan = match at(x) {
            Ok(p) => p,
            // Too large for the market: less.
            Err(KernelError::NoRoute { .. }) if x > U256::ONE => {
                hi = Some((x, U256::MAX));
                x = lo.map_or(x >> 2, |(l, _)| l + ((x - l) >> 1));
                continue;
            }
            Err(e) => return Err(e),
        };
        let got = plan.amounts_out.first().copied().unwrap_or_default();
        let tolerance = mul_div(want, U256::from(CLOSE_PPM), U256::from(1_000_000u32));
        let close = tolerance.is_some_and(|t| got.abs_diff(want) <= t);
        if got >= want {
            hi = Some((x, got));
        } else {
            lo = Some((x, got));
        }
        if !got.is_zero() {
            seen.push((plan, got));
        }
        if close {
            break;
        }
        x = match (lo, hi) {
            // Between the two: where the line through them meets the
            // output, kept off the ends so the bracket always shrinks.
            (Some((xl, gl)), Some((xh, gh))) => {
                let span = xh - xl;
                let guess = if gh == U256::MAX || gh <= gl {
                    xl + (span >> 1)
                } else {
                    xl + mul_div(span, want - gl, gh - gl).unwrap_or(span >> 1)
                };
                guess.clamp(xl + (span >> 4), xh - (span >> 4))
            }
            // Only short: the rate so far, a percent past it; then twice
            // that.
            (Some(_), None) if got.is_zero() => x.saturating_mul(U256::from(16u8)),
            (Some(_), None) => {
                one_sided += 1;
                let at_rate = mul_div(x, want, got).ok_or_else(no_route)?;
                if one_sided == 1 {
                    at_rate.saturating_add(at_rate / U256::from(100u8))
                } else {
                    at_rate.saturating_mul(U256::from(2u8))
                }
            }
            // Only over: the rate so far, a percent short of it; then a
            // quarter of that (a drained pool's output hardly moves with
            // the input).
            (None, Some(_)) => {
                one_sided += 1;
                let at_rate = mul_div(x, want, got).ok_or_else(no_route)?;
                let next = if one_sided == 1 {
                    at_rate - at_rate / U256::from(100u8)
                } else {
                    at_rate >> 2usize
                };
                next.max(U256::ONE)
            }
            (None, None) => break,
        };
        if x.is_zero() {
            break;
        }
    }
    seen.iter()
        .filter_map(|(plan, got)| backwards(snapshot, plan, *got, want))
        .min_by_key(|p| p.legs.first().map(|l| l.amount_in))
        .ok_or_else(no_route)
}

/// One whole unit of `token` (`10^decimals`), from a pool that holds it.
fn one_token(snapshot: &MarketSnapshot, chain: ChainId, token: Address) -> Option<U256> {
    let graph = snapshot.graph();
    let node = graph.node(chain, token)?;
    graph.edges_from(node).find_map(|(_, e)| match e {
        crate::Edge::Pool { pool, .. } => {
            let p = snapshot.pools().get(pool as usize)?;
            let d = p.decimals().get(p.index_of(token)?)?;
            Some(U256::from(10u8).pow(U256::from(*d)))
        }
        crate::Edge::Bridge { .. } => None,
    })
}

/// `plan` (which delivers `got`) recomputed backwards for `want`: each
/// path keeps its share of the output.
fn backwards(snapshot: &MarketSnapshot, plan: &Plan, got: U256, want: U256) -> Option<Plan> {
    let [leg] = plan.legs.as_slice() else { return None };
    if leg.routes.iter().flat_map(|r| &r.steps).any(|s| s.action == StepAction::Bridge) {
        return None;
    }
    // Shares of the output, the rounding on the largest path.
    let mut targets: Vec<U256> =
        leg.routes.iter().map(|r| mul_div(r.amount_out, want, got).unwrap_or_default()).collect();
    let sum = targets.iter().fold(U256::ZERO, |a, t| a.saturating_add(*t));
    let largest = (0..targets.len()).max_by_key(|k| (targets[*k], usize::MAX - k))?;
    targets[largest] = targets[largest].checked_add(want.checked_sub(sum)?)?;

    let mut working: std::collections::BTreeMap<usize, PoolState> = Default::default();
    let mut routes = Vec::with_capacity(leg.routes.len());
    for (route, target) in leg.routes.iter().zip(targets) {
        if target.is_zero() {
            continue;
        }
        let mut steps = route.steps.clone();
        let mut need = target;
        let mut next = Vec::with_capacity(steps.len());
        for st in steps.iter_mut().rev() {
            let pool = snapshot.pools().get(st.pool)?;
            let (i, j) = (pool.index_of(st.token_in)?, pool.index_of(st.token_out)?);
            let from = working.get(&st.pool).unwrap_or(&pool.state);
            let s = match pool.swap_exact_out_from(from, i, j, need) {
                Ok(s) => s,
                Err(AmmError::InsufficientLiquidity | AmmError::Unsupported) => return None,
                Err(AmmError::InvalidState) => return None,
            };
            st.amount_in = s.amount_in;
            st.amount_out = s.amount_out;
            st.gas = s.gas;
            next.push((st.pool, s.next));
            need = s.amount_in;
        }
        working.extend(next);
        let amount_out = steps.last().map_or(U256::ZERO, |s| s.amount_out);
        routes.push(Route { amount_in: need, amount_out, steps });
    }
    let amount_in = routes.iter().fold(U256::ZERO, |a, r| a.saturating_add(r.amount_in));
    let amount_out = routes.iter().fold(U256::ZERO, |a, r| a.saturating_add(r.amount_out));
    let gas = BASE_GAS + routes.iter().flat_map(|r| &r.steps).map(|s| s.gas).sum::<u64>();
    Some(Plan {
        chain: plan.chain,
        destination_chain: plan.destination_chain,
        bridging: Vec::new(),
        legs: vec![Leg {
            token_in: leg.token_in,
            token_out: leg.token_out,
            amount_in,
            amount_out,
            routes,
        }],
        amounts_out: vec![amount_out],
        gas,
    })
}
