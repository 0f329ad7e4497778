//! Route search: exact-input routes through the snapshot's pools, multi-hop
//! and split, for one or several inputs.
//!
//! ```text
//! enumerate simple paths (≤ max_hops, no token or pool revisited, filters)
//!   ─▶ rank by the f64 shadow quote ─▶ exact quote of the best candidates (rayon)
//!   ─▶ water-fill the input over the best exact paths in chunks, each chunk to
//!      the path with the best exact marginal output on the state left by the
//!      earlier chunks ─▶ re-simulate the chosen allocation exactly, legs in
//!      order on one working state ─▶ keep it only if it beats the best single
//!      path net of gas
//! ```
//!
//! Every amount in a [`Plan`] comes from the exact pool math; `f64` only
//! orders candidates. Candidates and allocations are visited in a fixed
//! order, so the same snapshot and request give the same plan whatever the
//! thread count.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use alloy_primitives::U256;
use rayon::prelude::*;
use switchyard_catalog::{Address, ChainId};

use crate::{
    KernelError,
    amm::AmmError,
    pool::{Pool, PoolState},
    snapshot::MarketSnapshot,
};

/// Gas every routed transaction pays before its steps (intrinsic cost and
/// the router/executor overhead), an estimate until execution measures it.
pub const BASE_GAS: u64 = 21_000 + 60_000;

/// Search limits and costs for one request.
#[derive(Debug, Clone, PartialEq)]
pub struct SearchParams {
    /// Most pools in one path.
    pub max_hops: usize,
    /// Pools expanded per token, deepest first: the liquidity-pruned
    /// candidate subgraph that keeps a search away from thin pools.
    pub max_pools_per_token: usize,
    /// Most exact candidates evaluated per pair.
    pub max_candidates: usize,
    /// Most paths one input is split over.
    pub max_splits: usize,
    /// Chunks the input is divided into for split refinement.
    pub split_chunks: u32,
    /// Protocol slugs not to route through.
    pub excluded_protocols: BTreeSet<String>,
    /// Cost of one gas unit in raw units of each output token (from the gas
    /// price and USD prices); `None` ranks by gross output.
    pub gas_cost_in_out: Vec<Option<f64>>,
}

impl Default for SearchParams {
    fn default() -> Self {
        Self {
            max_hops: 4,
            max_pools_per_token: 8,
            max_candidates: 24,
            max_splits: 4,
            split_chunks: 20,
            excluded_protocols: BTreeSet::new(),
            gas_cost_in_out: Vec::new(),
        }
    }
}

/// What to route: amounts of inputs into outputs on one chain. With one
/// output every input goes to it; with as many outputs as inputs, input `k`
/// goes to output `k`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RouteRequest {
    /// Chain.
    pub chain: ChainId,
    /// Inputs and amounts (after any fee was taken off).
    pub inputs: Vec<(Address, U256)>,
    /// Outputs.
    pub outputs: Vec<Address>,
}

/// What one step does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StepAction {
    /// Exchange through an AMM.
    Swap,
    /// Into a vault, lending market, staking contract or wrapper.
    Deposit,
    /// Out of one.
    Redeem,
}

impl StepAction {
    /// The action name of the API.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Swap => "swap",
            Self::Deposit => "deposit",
            Self::Redeem => "redeem",
        }
    }
}

/// One step of a route, with exact amounts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Step {
    /// Index of the pool in the snapshot.
    pub pool: usize,
    /// Pool, vault or market address.
    pub address: Address,
    /// Protocol slug.
    pub protocol: String,
    /// Action.
    pub action: StepAction,
    /// Token in.
    pub token_in: Address,
    /// Token out.
    pub token_out: Address,
    /// Exact amount in.
    pub amount_in: U256,
    /// Exact amount out.
    pub amount_out: U256,
    /// Gas estimate.
    pub gas: u64,
}

/// One path carrying part (or all) of an input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Route {
    /// Amount sent down this path.
    pub amount_in: U256,
    /// Amount it delivers.
    pub amount_out: U256,
    /// Steps in order.
    pub steps: Vec<Step>,
}

/// How one input reaches its output.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Leg {
    /// Input token.
    pub token_in: Address,
    /// Output token.
    pub token_out: Address,
    /// Input amount.
    pub amount_in: U256,
    /// Output delivered (sum over routes).
    pub amount_out: U256,
    /// One route, or several for a split.
    pub routes: Vec<Route>,
}

/// The search result: what the execution layer encodes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    /// Chain.
    pub chain: ChainId,
    /// Legs, in request order, executed in this order.
    pub legs: Vec<Leg>,
    /// Output per requested output token.
    pub amounts_out: Vec<U256>,
    /// Gas estimate of the whole transaction.
    pub gas: u64,
}

fn action_of(pool: &Pool, i: usize, j: usize) -> StepAction {
    match pool.state {
        PoolState::Erc4626 { .. }
        | PoolState::Lending { .. }
        | PoolState::LiquidStaking { .. }
        | PoolState::Wrap => {
            if i < j {
                StepAction::Deposit
            } else {
                StepAction::Redeem
            }
        }
        _ => StepAction::Swap,
    }
}

/// A candidate path: (pool, index in, index out) per hop.
type Path = Vec<(usize, usize, usize)>;

/// Pool states changed by earlier legs or chunks, by pool index. A
/// `BTreeMap` keeps every walk over it in a fixed order.
type Working = BTreeMap<usize, PoolState>;

/// States a simulated path leaves, by pool, in path order.
type NextStates = Vec<(usize, PoolState)>;

/// Exact simulation of `path` for `amount` on the working state; returns the
/// steps and the states after them (not yet written back).
fn simulate(
    snapshot: &MarketSnapshot,
    working: &Working,
    path: &Path,
    amount: U256,
) -> Result<(Vec<Step>, NextStates), AmmError> {
    let mut steps = Vec::with_capacity(path.len());
    let mut next_states = Vec::with_capacity(path.len());
    let mut x = amount;
    for &(idx, i, j) in path {
        let pool = &snapshot.pools()[idx];
        let s = pool.swap_exact_in_from(working.get(&idx).unwrap_or(&pool.state), i, j, x)?;
        steps.push(Step {
            pool: idx,
            address: pool.address,
            protocol: pool.protocol.clone(),
            action: action_of(pool, i, j),
            token_in: pool.tokens[i],
            token_out: pool.tokens[j],
            amount_in: x,
            amount_out: s.amount_out,
            gas: s.gas,
        });
        next_states.push((idx, s.next));
        x = s.amount_out;
    }
    Ok((steps, next_states))
}

/// Every simple path from `from` to `to` within the limits, each with its
/// shadow output, in a deterministic order.
fn enumerate(
    snapshot: &MarketSnapshot,
    chain: ChainId,
    from: Address,
    to: Address,
    amount: f64,
    params: &SearchParams,
) -> Vec<(Path, f64)> {
    struct Dfs<'a> {
        snapshot: &'a MarketSnapshot,
        chain: ChainId,
        to: Address,
        params: &'a SearchParams,
        /// Hops from each token to the target in the pruned graph.
        dist: HashMap<Address, usize>,
        path: Path,
        tokens: Vec<Address>,
        out: Vec<(Path, f64)>,
        /// Pool expansions left for this request.
        budget: usize,
    }
    /// Bound on the paths collected, so a dense market cannot blow up a request.
    const MAX_PATHS: usize = 4096;
    /// Bound on pool expansions per enumeration.
    const MAX_EXPANSIONS: usize = 50_000;
    fn go(d: &mut Dfs<'_>, token: Address, amount: f64) {
        if d.out.len() >= MAX_PATHS || d.path.len() >= d.params.max_hops {
            return;
        }
        let hops_left = d.params.max_hops - d.path.len() - 1;
        // The pools of this token that lead to the target within the hops
        // left, closest first, then deepest (the order of `pools_of`): the
        // first `max_pools_per_token` are expanded. A deep vault is a dead
        // end and never takes a slot; a pool straight into the target always
        // comes first.
        // Only the deepest few hundred pools of a hub are considered: the
        // scan is bounded whatever the hub's degree, and thinner pools would
        // not carry a trade worth the hop anyway.
        let mut leading: Vec<(usize, usize)> = Vec::new();
        for &idx in
            d.snapshot.pools_of(d.chain, token).iter().take(d.params.max_pools_per_token * 32)
        {
            let pool = &d.snapshot.pools()[idx];
            if d.params.excluded_protocols.contains(&pool.protocol)
                || d.path.iter().any(|(p, _, _)| *p == idx)
            {
                continue;
            }
            let closest = pool
                .tokens
                .iter()
                .filter(|t| **t != token && !d.tokens.contains(t))
                .filter_map(|t| d.dist.get(t).copied())
                .filter(|h| *h <= hops_left)
                .min();
            if let Some(h) = closest {
                leading.push((h, idx));
            }
        }
        leading.sort_by_key(|(h, _)| *h);
        leading.truncate(d.params.max_pools_per_token);
        for (_, idx) in leading {
            let pool = &d.snapshot.pools()[idx];
            let Some(i) = pool.index_of(token) else { continue };
            for (j, &next) in pool.tokens.iter().enumerate() {
                if j == i
                    || d.tokens.contains(&next)
                    || d.dist.get(&next).is_none_or(|h| *h > hops_left)
                {
                    continue;
                }
                if d.budget == 0 {
                    return;
                }
                d.budget -= 1;
                let out = pool.shadow_out(i, j, amount);
                if out.is_nan() || out <= 0.0 {
                    continue;
                }
                d.path.push((idx, i, j));
                if next == d.to {
                    d.out.push((d.path.clone(), out));
                } else {
                    d.tokens.push(next);
                    go(d, next, out);
                    d.tokens.pop();
                }
                d.path.pop();
            }
        }
    }
    let dist = distances_to(snapshot, chain, from, to, params);
    let reachable = dist.get(&from).is_some_and(|h| *h <= params.max_hops);
    let mut d = Dfs {
        snapshot,
        chain,
        to,
        params,
        dist,
        path: Vec::new(),
        tokens: vec![from],
        out: Vec::new(),
        budget: MAX_EXPANSIONS,
    };
    if reachable {
        go(&mut d, from, amount);
    }
    d.out
}

/// Breadth-first hop distances to `to` over each token's deepest pools, up to
/// `max_hops`: the liquidity-pruned candidate subgraph of one request. A DFS
/// step into a token that cannot reach the target in the hops left is cut.
fn distances_to(
    snapshot: &MarketSnapshot,
    chain: ChainId,
    from: Address,
    to: Address,
    params: &SearchParams,
) -> HashMap<Address, usize> {
    // A token only one pool trades is a dead end, unless it is the source.
    let leads = |t: &Address| *t == from || snapshot.pools_of(chain, *t).len() > 1;
    let limit = params.max_pools_per_token.max(1) * 4;
    let mut dist = HashMap::from([(to, 0usize)]);
    let mut frontier = vec![to];
    for hop in 1..=params.max_hops {
        let mut next_frontier = Vec::new();
        for token in &frontier {
            let mut taken = 0;
            for &idx in snapshot.pools_of(chain, *token) {
                if taken == limit {
                    break;
                }
                let pool = &snapshot.pools()[idx];
                if params.excluded_protocols.contains(&pool.protocol)
                    || !pool.tokens.iter().any(|t| t != token && leads(t))
                {
                    continue;
                }
                taken += 1;
                for t in &pool.tokens {
                    if !dist.contains_key(t) {
                        dist.insert(*t, hop);
                        next_frontier.push(*t);
                    }
                }
            }
        }
        frontier = next_frontier;
    }
    dist
}

fn path_gas(steps: &[Step]) -> u64 {
    steps.iter().map(|s| s.gas).sum()
}

fn net(out: U256, gas: u64, gas_cost: Option<f64>) -> f64 {
    crate::pool::u256_to_f64(out) - gas_cost.map_or(0.0, |c| c * gas as f64)
}

/// Routes one input into one output on the working state, returning the leg
/// and writing the states it leaves into `working`.
fn route_leg(
    snapshot: &MarketSnapshot,
    working: &mut Working,
    chain: ChainId,
    (token_in, amount): (Address, U256),
    token_out: Address,
    gas_cost: Option<f64>,
    params: &SearchParams,
) -> Result<Leg, KernelError> {
    if token_in == token_out {
        return Err(KernelError::SameToken);
    }
    let mut candidates =
        enumerate(snapshot, chain, token_in, token_out, crate::pool::u256_to_f64(amount), params);
    // Best shadow first; ties keep enumeration order (stable sort). The
    // shadow overrates long paths through thin concentrated ranges, so each
    // path length keeps a share of the slots before the rest is filled in
    // shadow order.
    candidates.sort_by(|a, b| b.1.total_cmp(&a.1));
    let per_len = (params.max_candidates / params.max_hops.max(1)).max(1);
    let mut taken = vec![false; candidates.len()];
    let mut per = vec![0usize; params.max_hops + 1];
    for (k, (path, _)) in candidates.iter().enumerate() {
        let len = path.len().min(params.max_hops);
        if per[len] < per_len {
            per[len] += 1;
            taken[k] = true;
        }
    }
    let mut n_taken = taken.iter().filter(|t| **t).count();
    for t in taken.iter_mut() {
        if n_taken >= params.max_candidates {
            break;
        }
        if !*t {
            *t = true;
            n_taken += 1;
        }
    }
    let mut keep = taken.into_iter();
    candidates.retain(|_| keep.next().unwrap_or(false));
    candidates.truncate(params.max_candidates);
    let evaluated: Vec<(Path, Vec<Step>)> = {
        let shared: &Working = working;
        let eval = |(path, _): &(Path, f64)| {
            simulate(snapshot, shared, path, amount).ok().map(|(steps, _)| (path.clone(), steps))
        };
        if candidates.len() > 8 {
            candidates.par_iter().map(eval).collect::<Vec<_>>().into_iter().flatten().collect()
        } else {
            candidates.iter().filter_map(eval).collect()
        }
    };
    if evaluated.is_empty() {
        return Err(KernelError::NoRoute { token_in, token_out });
    }
    let mut ranked: Vec<(f64, usize)> = evaluated
        .iter()
        .enumerate()
        .map(|(k, (_, steps))| {
            let out = steps.last().map_or(U256::ZERO, |s| s.amount_out);
            (net(out, path_gas(steps), gas_cost), k)
        })
        .collect();
    ranked.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    let (best_net, best_k) = ranked[0];
    let single = &evaluated[best_k];

    // Split refinement over the best few paths.
    // Split over the best paths that share no pool with a better one (a
    // shared pool caps what splitting can gain), then, if fewer, the next best.
    let mut pool_set: Vec<&Path> = Vec::with_capacity(params.max_splits);
    for (_, k) in &ranked {
        if pool_set.len() == params.max_splits {
            break;
        }
        let path = &evaluated[*k].0;
        if pool_set.iter().all(|q| q.iter().all(|(a, _, _)| path.iter().all(|(b, _, _)| a != b))) {
            pool_set.push(path);
        }
    }
    for (_, k) in &ranked {
        if pool_set.len() == params.max_splits {
            break;
        }
        let path = &evaluated[*k].0;
        if !pool_set.iter().any(|q| std::ptr::eq(*q, path)) {
            pool_set.push(path);
        }
    }
    let split = if pool_set.len() > 1 && params.split_chunks > 1 {
        water_fill(snapshot, working, &pool_set, amount, params.split_chunks)
    } else {
        None
    };
    let split_better = split.as_ref().is_some_and(|(routes, _)| {
        let out = routes.iter().fold(U256::ZERO, |a, r| a.saturating_add(r.amount_out));
        let gas: u64 = routes.iter().map(|r| path_gas(&r.steps)).sum();
        routes.len() > 1 && net(out, gas, gas_cost) > best_net
    });
    let routes = if let Some((routes, states)) = split.filter(|_| split_better) {
        working.extend(states);
        routes
    } else {
        let (steps, states) = simulate(snapshot, working, &single.0, amount)
            .map_err(|_| KernelError::NoRoute { token_in, token_out })?;
        working.extend(states);
        let out = steps.last().map_or(U256::ZERO, |s| s.amount_out);
        vec![Route { amount_in: amount, amount_out: out, steps }]
    };
    let amount_out = routes.iter().fold(U256::ZERO, |a, r| a.saturating_add(r.amount_out));
    Ok(Leg { token_in, token_out, amount_in: amount, amount_out, routes })
}

/// Greedy water-filling: each chunk goes to the path whose exact marginal
/// output is best on the state the earlier chunks left; then the chosen
/// allocation is simulated exactly, path after path, on one working state.
fn water_fill(
    snapshot: &MarketSnapshot,
    working: &Working,
    paths: &[&Path],
    amount: U256,
    chunks: u32,
) -> Option<(Vec<Route>, Working)> {
    let n = U256::from(chunks);
    let chunk = amount / n;
    if chunk.is_zero() {
        return None;
    }
    let mut alloc = vec![U256::ZERO; paths.len()];
    let mut state = working.clone();
    for c in 0..chunks {
        // The last chunk carries the remainder of the division.
        let size = if c + 1 == chunks { amount - chunk * U256::from(chunks - 1) } else { chunk };
        let mut best: Option<(U256, usize, NextStates)> = None;
        for (k, path) in paths.iter().enumerate() {
            if let Ok((steps, next)) = simulate(snapshot, &state, path, size) {
                let out = steps.last().map_or(U256::ZERO, |s| s.amount_out);
                if best.as_ref().is_none_or(|(b, _, _)| out > *b) {
                    best = Some((out, k, next));
                }
            }
        }
        let (_, k, next) = best?;
        alloc[k] += size;
        state.extend(next);
    }
    // Exact re-simulation of the allocation: the plan's amounts.
    let mut final_state = working.clone();
    let mut routes = Vec::new();
    for (k, path) in paths.iter().enumerate() {
        if alloc[k].is_zero() {
            continue;
        }
        let (steps, next) = simulate(snapshot, &final_state, path, alloc[k]).ok()?;
        final_state.extend(next);
        let out = steps.last().map_or(U256::ZERO, |s| s.amount_out);
        routes.push(Route { amount_in: alloc[k], amount_out: out, steps });
    }
    Some((routes, final_state))
}

/// Finds the plan for a request.
pub fn find_routes(
    snapshot: &MarketSnapshot,
    request: &RouteRequest,
    params: &SearchParams,
) -> Result<Plan, KernelError> {
    if snapshot.head(request.chain).is_none() {
        return Err(KernelError::UnknownChain(request.chain));
    }
    if request.inputs.is_empty() || request.outputs.is_empty() {
        return Err(KernelError::EmptyRequest);
    }
    let pairwise = request.outputs.len() == request.inputs.len() && request.outputs.len() > 1;
    if !pairwise && request.outputs.len() != 1 {
        return Err(KernelError::OutputShape);
    }
    let mut working = Working::new();
    let mut legs = Vec::with_capacity(request.inputs.len());
    let mut amounts_out = vec![U256::ZERO; request.outputs.len()];
    for (k, input) in request.inputs.iter().enumerate() {
        let o = if pairwise { k } else { 0 };
        let gas_cost = params.gas_cost_in_out.get(o).copied().flatten();
        let leg = route_leg(
            snapshot,
            &mut working,
            request.chain,
            *input,
            request.outputs[o],
            gas_cost,
            params,
        )?;
        amounts_out[o] = amounts_out[o].saturating_add(leg.amount_out);
        legs.push(leg);
    }
    let gas =
        BASE_GAS + legs.iter().flat_map(|l| &l.routes).map(|r| path_gas(&r.steps)).sum::<u64>();
    Ok(Plan { chain: request.chain, legs, amounts_out, gas })
}
