//! Route search: exact-input routes through the snapshot's pools and
//! bridges, multi-hop and split, for one or several inputs, on one chain or
//! across two.
//!
//! ```text
//! candidates (f64): amount relaxation over the token graph, ≤ max_hops,
//!   no token or pool revisited, filters and quarantine applied
//!   ─▶ exact quote of the best candidates by shadow output (rayon when many)
//!   ─▶ best single path, net of gas
//!   ─▶ split (when the paths' marginal rates leave ≥ 1 bp to gain): water-fill
//!      + marginal exchange over the best pool-disjoint
//!      paths in f64, then the allocation simulated exactly, path after path
//!      on one working state ─▶ kept only if it beats the single path net of gas
//! ```
//!
//! Every amount in a [`Plan`] comes from the exact pool math; `f64` only
//! orders candidates and sizes allocations. A pool whose exact math reports
//! an inconsistent state is quarantined for the rest of the request and the
//! search goes on without it. Candidates and allocations are visited in a
//! fixed order, so the same snapshot and request give the same plan whatever
//! the thread count.

mod candidates;
mod exact_out;
mod optimal;
mod split;

pub use exact_out::{ExactOutRequest, find_routes_exact_out};

use std::collections::{BTreeMap, BTreeSet};

use alloy_primitives::U256;

use crate::graph::TokenIx;
use rayon::prelude::*;
use switchyard_catalog::{Address, ChainId};

use crate::{
    KernelError,
    amm::AmmError,
    bridge::BRIDGE_GAS,
    graph::Edge,
    pool::{Pool, PoolState, u256_to_f64},
    snapshot::MarketSnapshot,
};
use split::MIN_SPLIT_SHARE;

/// Gas every routed transaction pays before its steps (intrinsic cost and
/// the router/executor overhead), an estimate until execution measures it.
pub const BASE_GAS: u64 = 21_000 + 60_000;

/// Search limits and costs for one request.
#[derive(Debug, Clone, PartialEq)]
pub struct SearchParams {
    /// Most pools in one path of the candidates' search.
    pub max_hops: usize,
    /// Pools expanded per token, deepest first: the liquidity-pruned
    /// candidate subgraph that keeps a search away from thin pools.
    pub max_pools_per_token: usize,
    /// Path prefixes kept per token and hop count during relaxation (at
    /// most 8: more are taken as 8).
    pub labels_per_token: usize,
    /// Most exact candidates evaluated per pair.
    pub max_candidates: usize,
    /// Most paths one input is split over by the candidates' split.
    pub max_splits: usize,
    /// Most paths the optimal routing's flow is split over: a large trade
    /// spreads over more pools than the candidates reach.
    pub max_optimal_paths: usize,
    /// Most pools in one path of the optimal routing: a large trade drains
    /// thin pools through long paths, which the optimum prices (gas is
    /// weighed when its split is compared with the others).
    pub max_optimal_hops: usize,
    /// The most gas the estimated steps of one input's optimal split may
    /// cost: its thinnest paths are left out beyond it. A transaction is
    /// capped at 2²⁴ gas on Ethereum (EIP-7825), and the executed steps can
    /// cost more than their estimate.
    pub max_optimal_gas: u64,
    /// Chunks the input is divided into for split refinement.
    pub split_chunks: u32,
    /// Protocol slugs not to route through.
    pub excluded_protocols: BTreeSet<String>,
    /// Bridge names not to route through.
    pub excluded_bridges: BTreeSet<String>,
    /// Pools not to route through, by snapshot index (pools whose
    /// transactions cannot be executed, for instance).
    pub excluded_pools: BTreeSet<u32>,
    /// Cost of one gas unit in raw units of each output token (from the gas
    /// price and USD prices); `None` ranks by gross output.
    pub gas_cost_in_out: Vec<Option<f64>>,
    /// Which kinds of pools a route may use.
    pub kinds: PoolKinds,
    /// Whether a large trade's optimal flow may be executed as it is,
    /// splitting and merging at intermediate tokens (see [`Leg::routes`]);
    /// else only as whole paths from the input to the output (an
    /// exact-output plan, whose routes are each one router call).
    pub split_between: bool,
}

/// Which kinds of pools a search may route through.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum PoolKinds {
    /// Every kind.
    #[default]
    All,
    /// Uniswap V2 and V3 pools only: what the Uniswap routers'
    /// exact-output functions trade.
    Uniswap,
    /// The kinds with an exact-output entry point: Uniswap V2 and V3
    /// (their routers), Balancer weighted pools (the Vault's given out)
    /// and ERC-4626 vaults (`mint`, `withdraw`).
    ExactOutput,
    /// Uniswap V2 pools only.
    UniswapV2,
    /// Uniswap V3 pools only.
    UniswapV3,
}

impl PoolKinds {
    /// Whether a pool in `state` may be routed through.
    pub const fn admits(self, state: &PoolState) -> bool {
        match self {
            Self::All => true,
            Self::Uniswap => matches!(
                state,
                PoolState::UniswapV2 { .. } | PoolState::UniswapV2Lp(_) | PoolState::UniswapV3(_)
            ),
            Self::ExactOutput => matches!(
                state,
                PoolState::UniswapV2 { .. }
                    | PoolState::UniswapV2Lp(_)
                    | PoolState::UniswapV3(_)
                    | PoolState::Weighted(_)
                    | PoolState::Erc4626(_)
            ),
            Self::UniswapV2 => {
                matches!(state, PoolState::UniswapV2 { .. } | PoolState::UniswapV2Lp(_))
            }
            Self::UniswapV3 => matches!(state, PoolState::UniswapV3(_)),
        }
    }

    /// Whether the direction `i → j` of `pool` may be routed through: a
    /// pool of an admitted kind, and for exact outputs not its liquidity
    /// token (a zap has no exact-output entry point).
    pub fn admits_direction(self, pool: &Pool, i: usize, j: usize) -> bool {
        self.admits(&pool.state)
            && !(self == Self::ExactOutput && pool.lp_index().is_some_and(|lp| lp == i || lp == j))
    }
}

impl Default for SearchParams {
    fn default() -> Self {
        Self {
            max_hops: 4,
            max_pools_per_token: 8,
            labels_per_token: 2,
            max_candidates: 8,
            max_splits: 16,
            max_optimal_paths: 32,
            max_optimal_hops: 8,
            max_optimal_gas: 10_000_000,
            split_chunks: 64,
            excluded_protocols: BTreeSet::new(),
            excluded_bridges: BTreeSet::new(),
            excluded_pools: BTreeSet::new(),
            gas_cost_in_out: Vec::new(),
            kinds: PoolKinds::All,
            split_between: true,
        }
    }
}

/// What to route: amounts of inputs on one chain into outputs on the same
/// chain or, through one bridge, on `destination_chain`. With one output
/// every input goes to it; with as many outputs as inputs, input `k` goes to
/// output `k`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RouteRequest {
    /// Chain of the inputs.
    pub chain: ChainId,
    /// Chain of the outputs, when not `chain`.
    pub destination_chain: Option<ChainId>,
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
    /// Across chains.
    Bridge,
}

impl StepAction {
    /// The action name of the API.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Swap => "swap",
            Self::Deposit => "deposit",
            Self::Redeem => "redeem",
            Self::Bridge => "bridge",
        }
    }
}

/// One step of a route, with exact amounts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Step {
    /// Index of the pool in the snapshot (of the bridge route, for a bridge).
    pub pool: usize,
    /// Chain the step executes on.
    pub chain: ChainId,
    /// Chain its output arrives on (`chain`, except for a bridge).
    pub to_chain: ChainId,
    /// Pool, vault or market address.
    pub address: Address,
    /// Protocol slug (the bridge's name, for a bridge).
    pub protocol: std::sync::Arc<str>,
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
    /// A zap into a Uniswap V2 pair's liquidity token: how much of
    /// `amount_in` is sold for the pair's other coin before the rest is
    /// added with what that bought ([`crate::amm::uniswap_v2::zap_in`]).
    pub sold: Option<U256>,
}

/// One path carrying part (or all) of an input, or of what earlier routes
/// of its leg delivered at an intermediate token (see [`Leg::routes`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Route {
    /// Amount sent down this path.
    pub amount_in: U256,
    /// Amount it delivers.
    pub amount_out: U256,
    /// Steps in order.
    pub steps: Vec<Step>,
}

impl Route {
    /// The token the route starts from.
    pub fn token_in(&self) -> Option<Address> {
        self.steps.first().map(|s| s.token_in)
    }

    /// The token the route delivers.
    pub fn token_out(&self) -> Option<Address> {
        self.steps.last().map(|s| s.token_out)
    }
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
    /// One route, or several for a split, run in this order. A route
    /// starts at the leg's input, or at an intermediate token that earlier
    /// routes delivered (the optimal flow splits and merges there), and ends
    /// at the output or at a token later routes go on from. The routes from
    /// an intermediate token share all that arrived there: each takes
    /// `arrived · amount_in / Σ amount_in` of the routes from that token
    /// (rounded down), the last one the rest. On the snapshot the plan was
    /// found on, that is exactly its `amount_in`.
    pub routes: Vec<Route>,
}

impl Leg {
    /// Whether some route starts or ends at an intermediate token.
    pub fn splits_between(&self) -> bool {
        self.routes
            .iter()
            .any(|r| r.token_in() != Some(self.token_in) || r.token_out() != Some(self.token_out))
    }
}

/// A bridge crossing of the plan, with its latency.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BridgeEstimate {
    /// Bridge name.
    pub bridge: String,
    /// Source chain.
    pub from_chain: ChainId,
    /// Destination chain.
    pub to_chain: ChainId,
    /// Token received on the destination chain.
    pub token: Address,
    /// Typical end-to-end latency.
    pub estimated_seconds: u64,
    /// Average block time of the source and the destination chain, ms.
    pub block_ms: [u64; 2],
    /// What the bridge waits for on the source chain, where recorded.
    pub send_confirmations: Option<crate::bridge::SendConfirmations>,
}

/// The search result: what the execution layer encodes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    /// Chain of the inputs (where the transaction is sent).
    pub chain: ChainId,
    /// Chain of the outputs.
    pub destination_chain: ChainId,
    /// Bridge crossings, in plan order.
    pub bridging: Vec<BridgeEstimate>,
    /// Legs, in request order, executed in this order.
    pub legs: Vec<Leg>,
    /// Output per requested output token.
    pub amounts_out: Vec<U256>,
    /// Gas estimate of the whole transaction.
    pub gas: u64,
}

fn action_of(pool: &Pool, i: usize, j: usize) -> StepAction {
    if let Some(lp) = pool.lp_index().filter(|lp| *lp == i || *lp == j) {
        return if j == lp { StepAction::Deposit } else { StepAction::Redeem };
    }
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

/// Pool states changed by earlier legs or chunks, by pool index. A
/// `BTreeMap` keeps every walk over it in a fixed order.
type Working = BTreeMap<usize, PoolState>;

/// States a simulated path leaves, by pool, in path order.
type NextStates = Vec<(usize, PoolState)>;

/// What a path took of an amount, its steps and the states they leave.
type Taken = (U256, (Vec<Step>, NextStates));

/// Exact simulation of `path` for `amount` on the working state; returns the
/// steps and the states after them (not yet written back), or the error and
/// the edge that raised it.
fn simulate(
    snapshot: &MarketSnapshot,
    working: &Working,
    path: &[Edge],
    amount: U256,
) -> Result<(Vec<Step>, NextStates), (AmmError, Edge)> {
    let mut steps = Vec::with_capacity(path.len());
    let mut next_states = Vec::with_capacity(path.len());
    let mut x = amount;
    for &e in path {
        match e {
            Edge::Pool { pool: idx, i, j } => {
                let idx = idx as usize;
                let (i, j) = (usize::from(i), usize::from(j));
                let pool = snapshot.pools().get(idx).ok_or((AmmError::InvalidState, e))?;
                let from = trading_state(snapshot, working, &next_states, idx, pool);
                let (s, sold) =
                    pool.swap_exact_in_noting_sale(&from, i, j, x).map_err(|err| (err, e))?;
                let received =
                    share_receipt(snapshot, working, &next_states, pool, j, s.amount_out)
                        .ok_or((AmmError::InvalidState, e))?;
                steps.push(Step {
                    pool: idx,
                    chain: pool.chain,
                    to_chain: pool.chain,
                    address: pool.address,
                    protocol: std::sync::Arc::from(&pool.protocol),
                    action: action_of(pool, i, j),
                    token_in: pool.tokens[i],
                    token_out: pool.tokens[j],
                    amount_in: x,
                    amount_out: received,
                    gas: s.gas,
                    sold,
                });
                next_states.push((idx, s.next));
                x = received;
            }
            Edge::Bridge { bridge } => {
                let b =
                    snapshot.bridges().get(bridge as usize).ok_or((AmmError::InvalidState, e))?;
                let out = b.amount_out(x).map_err(|err| (err, e))?;
                steps.push(Step {
                    pool: bridge as usize,
                    chain: b.from_chain,
                    to_chain: b.to_chain,
                    address: b.contract,
                    protocol: std::sync::Arc::clone(&b.name),
                    action: StepAction::Bridge,
                    token_in: b.token_in,
                    token_out: b.token_out,
                    amount_in: x,
                    amount_out: out,
                    gas: BRIDGE_GAS,
                    sold: None,
                });
                x = out;
            }
        }
    }
    Ok((steps, next_states))
}

/// What the account receives of a step's `amount` of token `j`: the amount
/// itself, except for a rebasing share token (stETH) paid out by `transfer`
/// from a pool other than its own staking contract, which moves whole shares
/// ([`crate::snapshot::share_transfer`] at the staking pool's current
/// totals).
fn share_receipt(
    snapshot: &MarketSnapshot,
    working: &Working,
    path_states: &NextStates,
    pool: &Pool,
    j: usize,
    amount: U256,
) -> Option<U256> {
    if matches!(pool.state, PoolState::LiquidStaking(_)) {
        return Some(amount);
    }
    let Some(k) = pool.tokens.get(j).and_then(|t| snapshot.share_pool(pool.chain, *t)) else {
        return Some(amount);
    };
    match current_state(snapshot, working, path_states, k)? {
        PoolState::LiquidStaking(st) => {
            crate::snapshot::share_transfer(amount, st.total_pooled_asset, st.total_shares)
        }
        _ => Some(amount),
    }
}

/// Pool `k`'s state as the path has left it so far.
fn current_state<'a>(
    snapshot: &'a MarketSnapshot,
    working: &'a Working,
    path_states: &'a NextStates,
    k: usize,
) -> Option<&'a PoolState> {
    path_states
        .iter()
        .rev()
        .find(|(idx, _)| *idx == k)
        .map(|(_, st)| st)
        .or_else(|| working.get(&k))
        .or_else(|| snapshot.pools().get(k).map(|p| &p.state))
}

/// The state pool `idx` trades at. A non-rebasing wrapper of a rebasing
/// share token (wstETH over stETH) converts at the share token's staking
/// totals as the path has left them: a stake earlier in the same
/// transaction moves them, and the wrapper reads them live.
fn trading_state<'a>(
    snapshot: &'a MarketSnapshot,
    working: &'a Working,
    path_states: &'a NextStates,
    idx: usize,
    pool: &'a Pool,
) -> std::borrow::Cow<'a, PoolState> {
    let own = working.get(&idx).unwrap_or(&pool.state);
    if let PoolState::LiquidStaking(wrapper) = own
        && !wrapper.rebasing
        && let Some(k) = pool.tokens.first().and_then(|t| snapshot.share_pool(pool.chain, *t))
        && let Some(PoolState::LiquidStaking(share)) =
            current_state(snapshot, working, path_states, k)
    {
        return std::borrow::Cow::Owned(PoolState::LiquidStaking(Box::new(
            crate::pool::StakingState {
                total_pooled_asset: share.total_pooled_asset,
                total_shares: share.total_shares,
                rebasing: false,
            },
        )));
    }
    std::borrow::Cow::Borrowed(own)
}

fn path_gas(steps: &[Step]) -> u64 {
    steps.iter().map(|s| s.gas).sum()
}

fn net(out: U256, gas: u64, gas_cost: Option<f64>) -> f64 {
    u256_to_f64(out) - gas_cost.map_or(0.0, |c| c * gas as f64)
}

fn out_of(steps: &[Step]) -> U256 {
    steps.last().map_or(U256::ZERO, |s| s.amount_out)
}

/// Where a leg starts and ends.
struct Ends {
    chain: ChainId,
    token_in: Address,
    amount: U256,
    to_chain: ChainId,
    token_out: Address,
    gas_cost: Option<f64>,
}

/// Routes one input into one output on the working state, returning the leg
/// and writing the states it leaves into `working`.
fn route_leg(
    snapshot: &MarketSnapshot,
    working: &mut Working,
    ends: &Ends,
    params: &SearchParams,
) -> Result<Leg, KernelError> {
    let (token_in, token_out, amount) = (ends.token_in, ends.token_out, ends.amount);
    let cross_chain = ends.chain != ends.to_chain;
    if token_in == token_out && !cross_chain {
        return Err(KernelError::SameToken);
    }
    let no_route = || KernelError::NoRoute { token_in, token_out };
    let graph = snapshot.graph();
    let (Some(from), Some(to)) =
        (graph.node(ends.chain, token_in), graph.node(ends.to_chain, token_out))
    else {
        return Err(no_route());
    };
    let quarantine: std::cell::RefCell<BTreeSet<u32>> = std::cell::RefCell::default();
    // Edges name pools of this snapshot: a pool's record is read (a cache
    // miss at 100k pools, for every edge the search looks at) only when a
    // protocol is excluded.
    let allowed = |e: Edge| match e {
        Edge::Pool { pool, i, j } => {
            !quarantine.borrow().contains(&pool)
                && !params.excluded_pools.contains(&pool)
                && (params.excluded_protocols.is_empty() && params.kinds == PoolKinds::All
                    || snapshot.pools().get(pool as usize).is_some_and(|p| {
                        !params.excluded_protocols.contains(&*p.protocol)
                            && params.kinds.admits_direction(p, usize::from(i), usize::from(j))
                    }))
        }
        Edge::Bridge { bridge } => snapshot
            .bridges()
            .get(bridge as usize)
            .is_some_and(|b| !params.excluded_bridges.contains(&*b.name)),
    };
    let scope = candidates::Scope {
        snapshot,
        max_hops: params.max_hops,
        max_pools_per_token: params.max_pools_per_token.max(1),
        labels_per_token: params.labels_per_token.max(1),
        cross_chain,
        allowed: &allowed,
    };
    let clean = |path: &[Edge]| {
        path.iter().all(|e| e.pool().is_none_or(|p| !quarantine.borrow().contains(&p)))
    };
    let mut evaluated: Vec<(Vec<Edge>, Vec<Step>)> = Vec::new();
    // Shadow-ranked paths beyond the exact-quoted ones, for the split stage.
    let mut shadow_ranked: Vec<Vec<Edge>> = Vec::new();
    // A round that quarantines a pool and finds nothing searches again
    // without it.
    for _round in 0..3 {
        let found = candidates::candidates(
            &scope,
            from,
            to,
            u256_to_f64(amount),
            params.max_candidates.max(1) * 4,
        );
        let shared: &Working = working;
        let eval = |c: &&candidates::Candidate| simulate(snapshot, shared, &c.path, amount);
        let mut fatal = false;
        for batch in exact_batches(snapshot, &found, ends.gas_cost, params.max_candidates.max(1)) {
            let results: Vec<_> = if batch.len() > 8 {
                batch.par_iter().map(eval).collect()
            } else {
                batch.iter().map(eval).collect()
            };
            for (c, r) in batch.iter().zip(results) {
                match r {
                    Ok((steps, _)) => evaluated.push((c.path.clone(), steps)),
                    Err((err, Edge::Pool { pool, .. })) if err.is_fatal() => {
                        fatal |= quarantine.borrow_mut().insert(pool);
                    }
                    Err(_) => {}
                }
            }
            if !evaluated.is_empty() {
                break;
            }
        }
        evaluated.retain(|(path, _)| clean(path));
        if !evaluated.is_empty() || !fatal {
            shadow_ranked = found.into_iter().map(|c| c.path).filter(|p| clean(p)).collect();
            break;
        }
    }
    if evaluated.is_empty() {
        return Err(no_route());
    }
    let mut ranked: Vec<(f64, usize)> = evaluated
        .iter()
        .enumerate()
        .map(|(k, (_, steps))| (net(out_of(steps), path_gas(steps), ends.gas_cost), k))
        .collect();
    ranked.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    let (best_net, best_k) = ranked[0];
    let single = &evaluated[best_k];

    // Splitting can gain at most what the best marginal rate of the paths
    // found gives over the single path; below a basis point it is not tried.
    let amount_f = u256_to_f64(amount);
    let found_paths: Vec<&[Edge]> = shadow_ranked.iter().map(Vec::as_slice).collect();
    // Receipts of a rebasing share token or an aToken add up by scaled
    // units, not by the amounts each path reads: a split into one is not
    // quoted exactly.
    let share_out = snapshot.is_scaled_receipt(ends.to_chain, token_out);
    // An aToken input is burned per path at `rayDiv(part, index)` rounded
    // half up, and those can add up to a unit more than the account holds
    // (a share token's floors never do).
    let atoken_in = snapshot.is_scaled_receipt(ends.chain, token_in)
        && snapshot.share_pool(ends.chain, token_in).is_none();
    let may_split = !share_out && !atoken_in && params.max_splits > 1 && params.split_chunks > 1;
    let upper = if may_split { split::upper_bound(snapshot, &found_paths, amount_f) } else { 0.0 };
    let worth_splitting =
        may_split && upper > u256_to_f64(out_of(&single.1)) * (1.0 + MIN_SPLIT_GAIN);
    // The optimal routing is solved below only if the candidates promise
    // this much more.
    let optimal_ahead =
        worth_splitting && upper > u256_to_f64(out_of(&single.1)) * (1.0 + MIN_OPTIMAL_GAIN);
    if worth_splitting {
        // Paths good for a share of the amount, which the search at the full
        // amount ranks below deeper ones, through twice as many pools per
        // token.
        //
        // When the optimal stage will not run (the candidates promise less
        // than `MIN_OPTIMAL_GAIN` over the single path), these paths feed
        // only the candidates' split, where paths of four pools at a
        // sixteenth of the amount added at most 0.04% on the quote mix
        // (BENCHMARKS.md); three pools deep, the search touches a fraction
        // of the pools, which is most of a cold request's time. When it
        // will, they also choose the tokens of its subgraph, and a large
        // trade's optimum goes four deep.
        let wide = candidates::Scope {
            max_pools_per_token: scope.max_pools_per_token * 2,
            max_hops: if optimal_ahead { scope.max_hops } else { scope.max_hops.min(WIDE_HOPS) },
            ..scope
        };
        let share = amount_f / params.max_splits as f64;
        shadow_ranked.extend(
            candidates::candidates(&wide, from, to, share, params.max_candidates.max(1) * 4)
                .into_iter()
                .map(|c| c.path)
                .filter(|p| clean(p)),
        );
    }
    // Split over the best paths that share no pool with a better one (a
    // shared pool caps what splitting can gain), then, if fewer, the next best.
    let mut chosen: Vec<&[Edge]> = Vec::with_capacity(params.max_splits);
    let in_order: Vec<&[Edge]> = ranked
        .iter()
        .map(|(_, k)| evaluated[*k].0.as_slice())
        .chain(shadow_ranked.iter().map(Vec::as_slice))
        .collect();
    for path in &in_order {
        if chosen.len() < params.max_splits && chosen.iter().all(|q| !split::shares_pool(q, path)) {
            chosen.push(path);
        }
    }
    for path in &in_order {
        if chosen.len() < params.max_splits && !chosen.contains(path) {
            chosen.push(path);
        }
    }
    let split = if worth_splitting && chosen.len() > 1 {
        split_exact(snapshot, working, &chosen, amount, params.split_chunks, None)
    } else {
        None
    };
    // The paths of the optimal routing over the subgraph around the
    // candidates, split over the same way: kept if they deliver more.
    let optimal = if optimal_ahead {
        let (tokens, middle) = subgraph_tokens(snapshot, &allowed, from, to, &shadow_ranked);
        let edges = subgraph(snapshot, &allowed, &tokens.union(&middle).copied().collect());
        let solve = |edges: &[(TokenIx, TokenIx, Edge)], walk_v3| {
            let limits = optimal::Limits {
                max_hops: params.max_optimal_hops,
                max_paths: params.max_optimal_paths,
                walk_v3,
            };
            optimal::optimal_paths(snapshot, edges, (from, to), amount_f, limits)
        };
        let allocate = |solved: &optimal::Solved| {
            // Allocated from the shares of the input the optimal flow
            // sends down each path, widest first while their estimated
            // gas fits.
            let mut gas = 0u64;
            let (paths, shares): (Vec<&[Edge]>, Vec<f64>) = solved
                .paths
                .iter()
                .filter(|(p, _)| clean(p))
                .take_while(|(p, _)| {
                    gas = gas.saturating_add(estimated_gas(snapshot, p));
                    gas <= params.max_optimal_gas
                })
                .map(|(p, s)| (p.as_slice(), *s))
                .unzip();
            (paths.len() > 1)
                .then(|| {
                    split_exact(
                        snapshot,
                        working,
                        &paths,
                        amount,
                        params.split_chunks,
                        Some(split::Seed { shares: &shares, caps: &solved.flows }),
                    )
                })
                .flatten()
        };
        // With the active ranges first; with V3 ranges walked too only when
        // that solution leaves one (see `optimal::Limits::walk_v3`), and
        // only if the walk gives other paths or shares (the allocation
        // starts from the flow's own shares). The walk goes over the
        // subgraph without the middle tokens and, when there are any, with
        // them as well: the wider flow takes apart into other paths, which
        // deliver more on some instances and less on others (on the quality
        // bench's V2/V3 tail→tail $10M, keeping the better of the two
        // lifts the median 0.98164 → 0.98373 and p5 0.95085 → 0.95823, for
        // a few percent more router time on those trades, BENCHMARKS.md).
        // The split delivering most is kept.
        let active = solve(&edges, false);
        let first = allocate(&active);
        let walk = |edges: &[(TokenIx, TokenIx, Edge)]| {
            Some(solve(edges, true)).filter(|w| w.paths != active.paths)
        };
        let (walked, wide) = if active.crossed {
            if middle.is_empty() {
                (walk(&edges), None)
            } else {
                (walk(&subgraph(snapshot, &allowed, &tokens)), walk(&edges))
            }
        } else {
            (None, None)
        };
        let better =
            |x: Option<(Vec<Route>, Working)>, y: Option<(Vec<Route>, Working)>| match (x, y) {
                (Some(a), Some(b)) => Some(if total_out(&b.0) > total_out(&a.0) { b } else { a }),
                (a, b) => a.or(b),
            };
        let paths = better(
            better(first, walked.as_ref().and_then(allocate)),
            wide.as_ref().and_then(allocate),
        );
        // Each solution's flow as it is, split at intermediate tokens,
        // quoted exactly where its shadow beats the allocation over its
        // paths (not the active ranges' flow when it leaves one: the walk
        // is then the flow that V3 pools really give).
        let reached = paths.as_ref().map_or(0.0, |p| u256_to_f64(total_out(&p.0)));
        let flows = [Some(&active).filter(|a| !a.crossed), walked.as_ref(), wide.as_ref()]
            .into_iter()
            .flatten()
            .filter(|_| params.split_between)
            .filter_map(|s| {
                FlowPlan::of(snapshot, (token_in, token_out), s, params.max_optimal_gas)
            })
            .filter(|f| f.shadow(snapshot, token_out, amount_f) > reached * (1.0 + FLOW_MARGIN))
            .filter_map(|f| f.exact(snapshot, working, token_out, amount))
            .max_by(|a, b| total_out(&a.0).cmp(&total_out(&b.0)));
        (paths, flows)
    } else {
        (None, None)
    };
    let net_of = |routes: &[Route]| {
        let gas: u64 = routes.iter().map(|r| path_gas(&r.steps)).sum();
        net(total_out(routes), gas, ends.gas_cost)
    };
    let split = [split, optimal.0, optimal.1]
        .into_iter()
        .flatten()
        .reduce(|a, b| if net_of(&b.0) > net_of(&a.0) { b } else { a });
    let split_better =
        split.as_ref().is_some_and(|(routes, _)| routes.len() > 1 && net_of(routes) > best_net);
    let routes = if let Some((routes, states)) = split.filter(|_| split_better) {
        working.extend(states);
        routes
    } else {
        let (steps, states) =
            simulate(snapshot, working, &single.0, amount).map_err(|_| no_route())?;
        working.extend(states);
        vec![Route { amount_in: amount, amount_out: out_of(&steps), steps }]
    };
    let amount_out = total_out(&routes);
    Ok(Leg { token_in, token_out, amount_in: amount, amount_out, routes })
}

/// What the routes deliver together: the outputs of those that end where
/// no route goes on from.
fn total_out(routes: &[Route]) -> U256 {
    let start = |r: &Route| r.steps.first().map(|s| (s.chain, s.token_in));
    let end = |r: &Route| r.steps.last().map(|s| (s.to_chain, s.token_out));
    routes
        .iter()
        .filter(|r| !routes.iter().any(|q| start(q) == end(r)))
        .fold(U256::ZERO, |a, r| a.saturating_add(r.amount_out))
}

/// One pool direction of a flow: the edge, the token it sells, the token it
/// buys, and what the flow sells into it.
type Arc = (Edge, Address, Address, f64);

/// The optimal flow of a solution as it is, to be executed splitting and
/// merging at intermediate tokens: the pool directions of its paths
/// (widest first, while their estimated gas fits), each with what the flow
/// sells into it, grouped by the token they sell, the tokens in an order
/// where each comes after every token that brings it something. At each
/// token, what arrived is shared over its pools in proportion to the flow,
/// each pool one route of one step.
struct FlowPlan {
    /// By token sold in `order`, the widest first within a token.
    arcs: Vec<Arc>,
    /// The tokens that sell, input first.
    order: Vec<Address>,
}

impl FlowPlan {
    /// `None` when the paths leave a token unordered (a cycle).
    fn of(
        snapshot: &MarketSnapshot,
        (token_in, token_out): (Address, Address),
        solved: &optimal::Solved,
        max_gas: u64,
    ) -> Option<Self> {
        let tokens_of = |e: Edge| -> Option<(Address, Address)> {
            let Edge::Pool { pool, i, j } = e else { return None };
            let p = snapshot.pools().get(pool as usize)?;
            Some((*p.tokens.get(usize::from(i))?, *p.tokens.get(usize::from(j))?))
        };
        let mut arcs: Vec<Arc> = Vec::new();
        let mut gas = 0u64;
        for ((path, _), carried) in solved.paths.iter().zip(&solved.carried) {
            let new_gas: u64 = path
                .iter()
                .filter(|e| arcs.iter().all(|a| a.0 != **e))
                .map(|e| estimated_gas(snapshot, std::slice::from_ref(e)))
                .sum();
            if gas.saturating_add(new_gas) > max_gas {
                break;
            }
            gas += new_gas;
            for (e, x) in path.iter().zip(carried) {
                match arcs.iter_mut().find(|a| a.0 == *e) {
                    Some(a) => a.3 += x,
                    None => {
                        let (a, b) = tokens_of(*e)?;
                        arcs.push((*e, a, b, *x));
                    }
                }
            }
        }
        Self::ordered((token_in, token_out), arcs)
    }

    /// The arcs with their tokens in order; `None` when they leave a token
    /// unordered (a cycle).
    fn ordered((token_in, token_out): (Address, Address), mut arcs: Vec<Arc>) -> Option<Self> {
        let mut order: Vec<Address> = vec![token_in];
        let mut placed = 0;
        while placed < order.len() {
            let t = order[placed];
            placed += 1;
            for (_, _, b, _) in arcs.iter().filter(|a| a.1 == t) {
                let ready = arcs.iter().filter(|a| a.2 == *b).all(|a| order.contains(&a.1));
                if ready && !order.contains(b) && *b != token_out {
                    order.push(*b);
                }
            }
        }
        if arcs.iter().any(|a| !order.contains(&a.1)) {
            return None;
        }
        let rank = |t: &Address| order.iter().position(|o| o == t);
        arcs.sort_by(|a, b| rank(&a.1).cmp(&rank(&b.1)).then(b.3.total_cmp(&a.3)));
        Some(Self { arcs, order })
    }

    /// Each token's pools, tokens in order.
    fn groups(&self) -> impl Iterator<Item = (Address, &[Arc])> {
        self.arcs.chunk_by(|a, b| a.1 == b.1).map(|g| (g[0].1, g))
    }

    /// What the flow delivers by the pools' `f64` shadows (a guide to
    /// whether to quote it exactly).
    fn shadow(&self, snapshot: &MarketSnapshot, token_out: Address, amount: f64) -> f64 {
        let mut arrived: Vec<(Address, f64)> = vec![(self.order[0], amount)];
        for (t, group) in self.groups() {
            let here = arrived.iter().find(|(a, _)| *a == t).map_or(0.0, |(_, x)| *x);
            let total: f64 = group.iter().map(|a| a.3).sum();
            if total.is_nan() || total <= 0.0 {
                return 0.0;
            }
            // A pool past its last tick takes what it can (to within 2⁻²⁰,
            // by bisection) and the rest goes on to the next, as in the
            // exact quote.
            let mut carried = 0.0;
            for (e, _, to, w) in group {
                let x = here * w / total + carried;
                let takes = |y: f64| Some(candidates::shadow(snapshot, *e, y)).filter(|o| *o > 0.0);
                let (taken, out) = match takes(x) {
                    Some(out) => (x, out),
                    None => {
                        let (mut lo, mut hi, mut got) = (0.0, x, 0.0);
                        for _ in 0..20 {
                            let mid = 0.5 * (lo + hi);
                            match takes(mid) {
                                Some(o) => (lo, got) = (mid, o),
                                None => hi = mid,
                            }
                        }
                        (lo, got)
                    }
                };
                carried = x - taken;
                match arrived.iter_mut().find(|(a, _)| a == to) {
                    Some((_, y)) => *y += out,
                    None => arrived.push((*to, out)),
                }
            }
        }
        arrived.iter().find(|(a, _)| *a == token_out).map_or(0.0, |(_, x)| *x)
    }

    /// The routes, quoted exactly on `working`, and the states they leave.
    /// What arrived at a token is shared in integers (shares out of 2^40,
    /// the last pool the rest). A pool that cannot take its share takes
    /// the most it can and the next takes the rest; what the last cannot
    /// take goes to the first of the token's routes that takes it as well.
    /// `None` when something would be left on the way.
    fn exact(
        &self,
        snapshot: &MarketSnapshot,
        working: &Working,
        token_out: Address,
        amount: U256,
    ) -> Option<(Vec<Route>, Working)> {
        let mut state = working.clone();
        let mut arrived: Vec<(Address, U256)> = vec![(self.order[0], amount)];
        let mut routes: Vec<Route> = Vec::with_capacity(self.arcs.len());
        let add = |arrived: &mut Vec<(Address, U256)>, to: Address, out: U256| match arrived
            .iter_mut()
            .find(|(a, _)| *a == to)
        {
            Some((_, x)) => *x = x.saturating_add(out),
            None => arrived.push((to, out)),
        };
        for (t, group) in self.groups() {
            let first_route = routes.len();
            let k = arrived.iter().position(|(a, _)| *a == t)?;
            let (_, here) = arrived.swap_remove(k);
            if here.is_zero() {
                return None;
            }
            let weights: Vec<f64> = group.iter().map(|a| a.3).collect();
            let shares = integer_shares(here, &weights)?;
            let mut carried = U256::ZERO;
            let last = group.len() - 1;
            for (n, ((e, _, to, _), share)) in group.iter().zip(shares).enumerate() {
                let a = share.saturating_add(carried);
                carried = U256::ZERO;
                if a.is_zero() {
                    continue;
                }
                let path = std::slice::from_ref(e);
                let (taken, (steps, next)) = match simulate_what_fits(snapshot, &state, path, a) {
                    Ok(Some(done)) => done,
                    Ok(None) if n < last => {
                        carried = a;
                        continue;
                    }
                    _ => return None,
                };
                carried = a - taken;
                state.extend(next);
                let out = out_of(&steps);
                add(&mut arrived, *to, out);
                routes.push(Route { amount_in: taken, amount_out: out, steps });
            }
            if !carried.is_zero() {
                // Into the first of the token's routes that takes it too,
                // quoted again from the pool's state before the flow (a
                // flow goes through each pool once); else one more route
                // down the first of its pools that takes it.
                let again = (first_route..routes.len()).find_map(|r| {
                    let route = &routes[r];
                    let e = edges_of(snapshot, &route.steps)?;
                    let x = route.amount_in.checked_add(carried)?;
                    Some((r, simulate(snapshot, working, &e, x).ok()?))
                });
                match again {
                    Some((r, (steps, next))) => {
                        let (old, to) = (routes[r].amount_out, routes[r].token_out()?);
                        let out = out_of(&steps);
                        let x = arrived.iter_mut().find(|(a, _)| *a == to)?;
                        x.1 = x.1.checked_sub(old)?.saturating_add(out);
                        state.extend(next);
                        let amount_in = routes[r].amount_in + carried;
                        routes[r] = Route { amount_in, amount_out: out, steps };
                    }
                    None => {
                        let (to, (steps, next)) = group.iter().find_map(|(e, _, to, _)| {
                            let path = std::slice::from_ref(e);
                            Some((*to, simulate(snapshot, &state, path, carried).ok()?))
                        })?;
                        state.extend(next);
                        let out = out_of(&steps);
                        add(&mut arrived, to, out);
                        routes.push(Route { amount_in: carried, amount_out: out, steps });
                    }
                }
            }
        }
        // Everything arrived at the output; nothing is left on the way.
        if arrived.iter().any(|(t, x)| *t != token_out && !x.is_zero()) {
            return None;
        }
        Some((routes, state))
    }
}

/// How far below the best candidate's shadow output, net of estimated gas,
/// a candidate may be and still be quoted exactly in the first batch. The
/// shadows are within about 1e-6 of the exact quotes, so 20 bps only skips
/// candidates that cannot win.
const EXACT_MARGIN: f64 = 2e-3;

/// Gas a path's steps are estimated to cost before they are simulated.
fn estimated_gas(snapshot: &MarketSnapshot, path: &[Edge]) -> u64 {
    path.iter()
        .map(|e| match e {
            Edge::Bridge { .. } => BRIDGE_GAS,
            Edge::Pool { pool, .. } => {
                snapshot.pools().get(*pool as usize).map_or(0, |p| p.state.base_gas())
            }
        })
        .sum()
}

/// Pools kept per token in the optimal routing's subgraph (deepest first).
const SUBGRAPH_PER_TOKEN: usize = 32;

/// Tokens the optimal routing is solved over: the tokens of the candidate
/// paths, the input's deepest neighbours and, when the output has no more
/// pools than a token keeps, every neighbour of the output (a thin output's
/// whole market is where a large trade's flow must arrive from; a hub's
/// neighbours would only spread the paths). Apart, the tokens not among
/// them where the two sides' pools meet (see below). The solve on the
/// active ranges takes those too; with V3 ranges walked, the search solves
/// both without and with them and keeps what delivers more (on the quality
/// benchmark's V2/V3 tail→tail $10M instances the walk's wider flow alone
/// decomposed into paths that deliver less: median 0.98169 → 0.98003, min
/// 0.943 → 0.916).
fn subgraph_tokens(
    snapshot: &MarketSnapshot,
    allowed: &dyn Fn(Edge) -> bool,
    from: TokenIx,
    to: TokenIx,
    paths: &[Vec<Edge>],
) -> (BTreeSet<TokenIx>, BTreeSet<TokenIx>) {
    const PER_TOKEN: usize = SUBGRAPH_PER_TOKEN;
    let graph = snapshot.graph();
    let mut tokens: BTreeSet<TokenIx> = [from, to].into_iter().collect();
    let ends = |e: Edge| -> Option<(TokenIx, TokenIx)> {
        let Edge::Pool { pool, i, j } = e else { return None };
        let p = snapshot.pools().get(pool as usize)?;
        Some((
            graph.node(p.chain, *p.tokens.get(usize::from(i))?)?,
            graph.node(p.chain, *p.tokens.get(usize::from(j))?)?,
        ))
    };
    for e in paths.iter().flatten() {
        if let Some((a, b)) = ends(*e) {
            tokens.insert(a);
            tokens.insert(b);
        }
    }
    let mut near_from = Vec::new();
    for (n, e) in graph.edges_from(from).filter(|(_, e)| allowed(*e)).take(PER_TOKEN * 2) {
        if e.pool().is_some() {
            tokens.insert(n);
            near_from.push(n);
        }
    }
    // A thin output's neighbours, all of them.
    let into: Vec<TokenIx> = graph
        .edges_from(to)
        .filter(|(_, e)| e.pool().is_some() && allowed(*e))
        .map(|(n, _)| n)
        .take(PER_TOKEN + 1)
        .collect();
    if into.len() > PER_TOKEN {
        return (tokens, BTreeSet::new());
    }
    // The tokens one pool from both sides, where an input neighbour's and
    // an output neighbour's deepest pools meet: the middle of a four-pool
    // path no candidate took. Only from neighbours of at most 128 pools:
    // through a hub of a large market every token next to two hubs would
    // meet there (49 more tokens for the search benchmark's tail→tail at
    // 10k pools, 11% more work for no better route).
    let beyond = |side: &[TokenIx]| -> BTreeSet<TokenIx> {
        side.iter()
            .filter(|t| graph.degree(**t) as usize <= 4 * PER_TOKEN)
            .flat_map(|t| {
                graph
                    .edges_from(*t)
                    .filter(|(_, e)| e.pool().is_some() && allowed(*e))
                    .take(PER_TOKEN)
                    .map(|(n, _)| n)
            })
            .collect()
    };
    let middle = beyond(&near_from).intersection(&beyond(&into)).copied().collect::<BTreeSet<_>>();
    tokens.extend(into);
    let middle = middle.difference(&tokens).copied().collect();
    (tokens, middle)
}

/// The pools between `tokens`: each token's deepest allowed pools to the
/// others, both directions of each.
fn subgraph(
    snapshot: &MarketSnapshot,
    allowed: &dyn Fn(Edge) -> bool,
    tokens: &BTreeSet<TokenIx>,
) -> Vec<(TokenIx, TokenIx, Edge)> {
    let mut out = Vec::new();
    let mut seen = BTreeSet::new();
    for &t in tokens {
        for (n, e) in snapshot
            .graph()
            .edges_from(t)
            .filter(|(n, e)| e.pool().is_some() && tokens.contains(n) && allowed(*e))
            .take(SUBGRAPH_PER_TOKEN)
        {
            let Edge::Pool { pool, i, j } = e else { continue };
            for (a, b, edge) in [(t, n, e), (n, t, Edge::Pool { pool, i: j, j: i })] {
                if seen.insert(edge) {
                    out.push((a, b, edge));
                }
            }
        }
    }
    out
}

/// The candidates in the order they are quoted exactly, in batches of at
/// most `batch`: first those whose shadow output net of estimated gas is
/// within [`EXACT_MARGIN`] of the best, then the rest (quoted only if no
/// candidate of an earlier batch quotes).
fn exact_batches<'c>(
    snapshot: &MarketSnapshot,
    found: &'c [candidates::Candidate],
    gas_cost: Option<f64>,
    batch: usize,
) -> Vec<Vec<&'c candidates::Candidate>> {
    let mut order: Vec<(f64, usize)> = found
        .iter()
        .enumerate()
        .map(|(k, c)| {
            (c.shadow - gas_cost.unwrap_or(0.0) * estimated_gas(snapshot, &c.path) as f64, k)
        })
        .collect();
    order.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    let Some(&(best, best_k)) = order.first() else { return Vec::new() };
    let cut = best - EXACT_MARGIN * found[best_k].shadow.abs();
    let near = order.iter().take(batch).take_while(|(net, _)| *net >= cut).count().max(1);
    let mut batches = vec![order[..near].iter().map(|(_, k)| &found[*k]).collect::<Vec<_>>()];
    batches
        .extend(order[near..].chunks(batch).map(|c| c.iter().map(|(_, k)| &found[*k]).collect()));
    batches
}

/// How much more (relative) the optimal flow executed as it is must promise
/// by its shadow than the allocation over its paths delivers, to be quoted
/// exactly.
const FLOW_MARGIN: f64 = 1e-4;

/// Smallest gain (relative) a split must be able to reach to be tried.
const MIN_SPLIT_GAIN: f64 = 1e-4;

/// Most pools in a path of the wider search for split shares, when the
/// optimal routing is not solved after it.
const WIDE_HOPS: usize = 3;

/// Smallest gain (relative) over the single path that the best marginal
/// rate of the candidates must promise before the optimal routing is
/// solved: below it (small trades on deep pairs) the candidates' split is
/// already at the optimum, and cheaper.
const MIN_OPTIMAL_GAIN: f64 = 5e-3;

/// The `f64` allocation over `paths`, simulated exactly path after path on
/// one working state: the routes and the states they leave.
fn split_exact(
    snapshot: &MarketSnapshot,
    working: &Working,
    paths: &[&[Edge]],
    amount: U256,
    chunks: u32,
    seed: Option<split::Seed<'_>>,
) -> Option<(Vec<Route>, Working)> {
    let fractions = split::allocate(snapshot, paths, u256_to_f64(amount), chunks, seed)?;
    exact_shares(snapshot, working, paths, &fractions, amount).ok()
}

/// The routes of `amount` split over `paths` by `fractions` (shares below
/// [`MIN_SPLIT_SHARE`] dropped, the rest scaled to the whole amount in
/// integers), quoted exactly one after the other on `working`. A path that
/// runs out of liquidity before taking its share (a V3 pool the allocation
/// filled to within a hair of its last tick, which the `f64` shadows did
/// not see) takes the most it can, found by bisection, and the next path
/// takes the rest; what the last path cannot take goes, as one more
/// route, down the first path that takes all of it. Fails with fewer than
/// two routes (`None`), or naming the last path when no path takes what it
/// leaves.
fn exact_shares(
    snapshot: &MarketSnapshot,
    working: &Working,
    paths: &[&[Edge]],
    fractions: &[f64],
    amount: U256,
) -> Result<(Vec<Route>, Working), Option<usize>> {
    let (kept, weights): (Vec<usize>, Vec<f64>) =
        fractions.iter().copied().enumerate().filter(|(_, f)| *f >= MIN_SPLIT_SHARE).unzip();
    if kept.len() < 2 {
        return Err(None);
    }
    let amounts: Vec<(usize, U256)> =
        kept.into_iter().zip(integer_shares(amount, &weights).ok_or(None)?).collect();
    let mut state = working.clone();
    let mut routes = Vec::with_capacity(amounts.len());
    // What a path could not take (a V3 pool past its last tick, by a
    // hair the shadows did not see) goes on to the next one.
    let mut carried = U256::ZERO;
    let last = amounts.len() - 1;
    let order: Vec<usize> = amounts.iter().map(|(k, _)| *k).collect();
    for (n, (k, a)) in amounts.into_iter().enumerate() {
        let a = a.saturating_add(carried);
        carried = U256::ZERO;
        if a.is_zero() {
            continue;
        }
        let (taken, (steps, next)) = match simulate_what_fits(snapshot, &state, paths[k], a) {
            Ok(Some(done)) => done,
            Ok(None) if n < last => {
                carried = a;
                continue;
            }
            _ => return Err(Some(k)),
        };
        carried = a - taken;
        state.extend(next);
        routes.push(Route { amount_in: taken, amount_out: out_of(&steps), steps });
    }
    // What the last path could not take goes, as one more route, down the
    // first path that takes all of it.
    if !carried.is_zero() {
        let (steps, next) = order
            .iter()
            .find_map(|&k| simulate(snapshot, &state, paths[k], carried).ok())
            .ok_or(Some(order[last]))?;
        state.extend(next);
        routes.push(Route { amount_in: carried, amount_out: out_of(&steps), steps });
    }
    if routes.len() < 2 {
        return Err(None);
    }
    Ok((routes, state))
}

/// `amount` split in proportion to `weights` in integers (shares out of
/// 2^40, rounded down), the last one the rest; `None` when the weights do
/// not add up to a positive number.
fn integer_shares(amount: U256, weights: &[f64]) -> Option<Vec<U256>> {
    const SCALE: f64 = 1_099_511_627_776.0;
    let sum: f64 = weights.iter().sum();
    let (_, first) = weights.split_last()?;
    if sum.is_nan() || sum <= 0.0 {
        return None;
    }
    let mut left = amount;
    let mut out = Vec::with_capacity(weights.len());
    for w in first {
        let a = amount.checked_mul(U256::from((w / sum * SCALE).floor() as u64))? >> 40;
        left = left.checked_sub(a)?;
        out.push(a);
    }
    out.push(left);
    Some(out)
}

/// `amount` down `path` on `state`, or, where the path runs out of
/// liquidity, the most of it the path takes ([`most_taken`]): what was
/// taken and its simulation. `Ok(None)` when it takes none; `Err` on any
/// other failure.
fn simulate_what_fits(
    snapshot: &MarketSnapshot,
    state: &Working,
    path: &[Edge],
    amount: U256,
) -> Result<Option<Taken>, AmmError> {
    match simulate(snapshot, state, path, amount) {
        Ok(done) => Ok(Some((amount, done))),
        Err((AmmError::InsufficientLiquidity, _)) => Ok(most_taken(snapshot, state, path, amount)),
        Err((e, _)) => Err(e),
    }
}

/// The most of `amount` that `path` takes on `state` (to within 2⁻⁴⁰ of
/// it), and its simulation; `None` if it takes none.
fn most_taken(
    snapshot: &MarketSnapshot,
    state: &Working,
    path: &[Edge],
    amount: U256,
) -> Option<Taken> {
    let (mut lo, mut hi) = (U256::ZERO, amount);
    let mut best = None;
    let close: U256 = (amount >> 40usize).max(U256::from(1u8));
    while hi - lo > close {
        let mid = lo + ((hi - lo) >> 1);
        match simulate(snapshot, state, path, mid) {
            Ok(done) => {
                lo = mid;
                best = Some((mid, done));
            }
            Err(_) => hi = mid,
        }
    }
    best
}

/// Finds the plan for a request.
pub fn find_routes(
    snapshot: &MarketSnapshot,
    request: &RouteRequest,
    params: &SearchParams,
) -> Result<Plan, KernelError> {
    let to_chain = request.destination_chain.unwrap_or(request.chain);
    for chain in [request.chain, to_chain] {
        if snapshot.head(chain).is_none() {
            return Err(KernelError::UnknownChain(chain));
        }
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
    for (k, &(token_in, amount)) in request.inputs.iter().enumerate() {
        let o = if pairwise { k } else { 0 };
        let ends = Ends {
            chain: request.chain,
            token_in,
            amount,
            to_chain,
            token_out: request.outputs[o],
            gas_cost: params.gas_cost_in_out.get(o).copied().flatten(),
        };
        let leg = route_leg(snapshot, &mut working, &ends, params)?;
        amounts_out[o] = amounts_out[o].saturating_add(leg.amount_out);
        legs.push(leg);
    }
    let steps = || legs.iter().flat_map(|l| &l.routes).flat_map(|r| &r.steps);
    let gas = BASE_GAS + steps().map(|s| s.gas).sum::<u64>();
    let mut bridging: Vec<BridgeEstimate> = Vec::new();
    for st in steps().filter(|s| s.action == StepAction::Bridge) {
        let Some(b) = snapshot.bridges().get(st.pool) else { continue };
        let est = b.estimate();
        if !bridging.contains(&est) {
            bridging.push(est);
        }
    }
    Ok(Plan { chain: request.chain, destination_chain: to_chain, bridging, legs, amounts_out, gas })
}

/// Chunks of each increase between two ladder points.
const LADDER_CHUNKS: u32 = 16;

/// Shadow output of `amount` down `path` alone.
fn shadow_out(snapshot: &MarketSnapshot, path: &[Edge], amount: f64) -> f64 {
    path.iter().fold(amount, |x, &e| if x > 0.0 { candidates::shadow(snapshot, e, x) } else { 0.0 })
}

/// One point of a [`ladder`].
#[derive(Debug, Clone, PartialEq)]
pub struct LadderPoint {
    /// The routes for this point's amount, exact.
    pub leg: Leg,
    /// Gas estimate of its transaction.
    pub gas: u64,
    /// Output per unit of input at the margin, in raw units (tokenOut wei
    /// per tokenIn wei): what the next small part of the input would get.
    pub marginal: f64,
}

/// Quotes of one pair at several increasing amounts, on one snapshot, with
/// the search shared: the full search runs twice, at the largest and the
/// smallest amount (those two points are exactly what a quote of them
/// answers); every point between is the better, net of gas, of each path
/// those two found alone and the split over all of them, allocated for
/// that amount and quoted exactly. Cost: two searches and, per point, a
/// few path simulations.
pub fn ladder(
    snapshot: &MarketSnapshot,
    chain: ChainId,
    token_in: Address,
    token_out: Address,
    amounts: &[U256],
    params: &SearchParams,
) -> Result<Vec<LadderPoint>, KernelError> {
    if snapshot.head(chain).is_none() {
        return Err(KernelError::UnknownChain(chain));
    }
    let (Some(&low), Some(&high)) = (amounts.first(), amounts.last()) else {
        return Err(KernelError::EmptyRequest);
    };
    let gas_cost = params.gas_cost_in_out.first().copied().flatten();
    let ends = |amount| Ends { chain, token_in, amount, to_chain: chain, token_out, gas_cost };
    let top = route_leg(snapshot, &mut Working::new(), &ends(high), params)?;
    let bottom = if amounts.len() > 1 {
        Some(route_leg(snapshot, &mut Working::new(), &ends(low), params)?)
    } else {
        None
    };
    // The points between are allocated over whole paths: where the largest
    // amount's plan is a flow split between the ends, its paths are those
    // of the same search without such flows.
    let top_paths = if top.splits_between() {
        let whole_only = SearchParams { split_between: false, ..params.clone() };
        route_leg(snapshot, &mut Working::new(), &ends(high), &whole_only)?
    } else {
        top.clone()
    };
    let mut paths: Vec<Vec<Edge>> = Vec::new();
    let whole = |r: &&Route| r.token_in() == Some(token_in) && r.token_out() == Some(token_out);
    for r in top_paths.routes.iter().chain(bottom.iter().flat_map(|l| &l.routes)).filter(whole) {
        if let Some(p) = edges_of(snapshot, &r.steps)
            && !paths.contains(&p)
        {
            paths.push(p);
        }
    }
    let empty = Working::new();
    let refs: Vec<&[Edge]> = paths.iter().map(Vec::as_slice).collect();
    let mut filler = split::Filler::new(snapshot, &refs);
    // What share of the largest amount each path takes in its (exact) plan.
    let top_fractions: Vec<f64> = paths
        .iter()
        .map(|p| {
            top_paths
                .routes
                .iter()
                .filter(|r| edges_of(snapshot, &r.steps).as_ref() == Some(p))
                .map(|r| u256_to_f64(r.amount_in))
                .sum::<f64>()
                / u256_to_f64(high).max(1.0)
        })
        .collect();
    let point = |leg: Leg| -> LadderPoint {
        let gas = BASE_GAS + leg.routes.iter().map(|r| path_gas(&r.steps)).sum::<u64>();
        let marginal = marginal_rate(snapshot, &leg);
        LadderPoint { leg, gas, marginal }
    };
    let mut out = Vec::with_capacity(amounts.len());
    for (k, &amount) in amounts.iter().enumerate() {
        if k + 1 == amounts.len() {
            out.push(point(top.clone()));
            continue;
        }
        if k == 0
            && let Some(b) = &bottom
        {
            out.push(point(b.clone()));
            continue;
        }
        let mut best: Option<(f64, Vec<Route>)> = None;
        let mut consider = |routes: Vec<Route>| {
            let gas: u64 = routes.iter().map(|r| path_gas(&r.steps)).sum();
            let v = net(total_out(&routes), gas, gas_cost);
            if best.as_ref().is_none_or(|(b, _)| v > *b) {
                best = Some((v, routes));
            }
        };
        // The best path alone, by its shadow output net of gas, quoted
        // exactly; then the growing split.
        let amount_f = u256_to_f64(amount);
        let single = refs
            .iter()
            .map(|p| {
                shadow_out(snapshot, p, amount_f)
                    - gas_cost.map_or(0.0, |c| c * estimated_gas(snapshot, p) as f64)
            })
            .enumerate()
            .max_by(|a, b| a.1.total_cmp(&b.1))
            .map(|(k, _)| k);
        if let Some(k) = single
            && let Ok((steps, _)) = simulate(snapshot, &empty, refs[k], amount)
        {
            consider(vec![Route { amount_in: amount, amount_out: out_of(&steps), steps }]);
        }
        // A split quoted exactly; a path that cannot take its share (its
        // shadow promised more than the pool holds) is dropped and the rest
        // take the amount.
        let mut split_of = |mut fractions: Vec<f64>| {
            for _ in 0..refs.len() {
                match exact_shares(snapshot, &empty, &refs, &fractions, amount) {
                    Ok((routes, _)) => {
                        consider(routes);
                        return;
                    }
                    Err(Some(k)) => fractions[k] = 0.0,
                    Err(None) => return,
                }
            }
        };
        // The largest amount's split, exact there, scaled to this amount.
        split_of(top_fractions.clone());
        // The water-filling grown from the previous point.
        if refs.len() > 1 {
            let flows = filler.fill_to(amount_f, LADDER_CHUNKS);
            let total: f64 = flows.iter().sum();
            if total > 0.0 {
                split_of(flows.iter().map(|f| f / total).collect());
            }
        }
        let Some((_, routes)) = best else {
            return Err(KernelError::NoRoute { token_in, token_out });
        };
        let amount_out = total_out(&routes);
        out.push(point(Leg { token_in, token_out, amount_in: amount, amount_out, routes }));
    }
    Ok(out)
}

/// The edges a route's steps went through (`None` for a bridge, or a step
/// whose pool no longer has its tokens).
fn edges_of(snapshot: &MarketSnapshot, steps: &[Step]) -> Option<Vec<Edge>> {
    steps
        .iter()
        .map(|st| {
            if st.action == StepAction::Bridge {
                return None;
            }
            let pool = snapshot.pools().get(st.pool)?;
            let i = pool.tokens.iter().position(|t| *t == st.token_in)?;
            let j = pool.tokens.iter().position(|t| *t == st.token_out)?;
            Some(Edge::Pool {
                pool: u32::try_from(st.pool).ok()?,
                i: u8::try_from(i).ok()?,
                j: u8::try_from(j).ok()?,
            })
        })
        .collect()
}

/// The output per unit of input of the next small part of `leg`'s input:
/// its largest route quoted exactly with a ten-thousandth more (at least
/// one unit), against what it gives now.
fn marginal_rate(snapshot: &MarketSnapshot, leg: &Leg) -> f64 {
    let whole =
        |r: &&Route| r.token_in() == Some(leg.token_in) && r.token_out() == Some(leg.token_out);
    let Some(r) = leg.routes.iter().filter(whole).max_by_key(|r| r.amount_in) else {
        return u256_to_f64(leg.amount_out) / u256_to_f64(leg.amount_in).max(1.0);
    };
    let Some(path) = edges_of(snapshot, &r.steps) else {
        return u256_to_f64(leg.amount_out) / u256_to_f64(leg.amount_in).max(1.0);
    };
    let delta = (r.amount_in / U256::from(10_000u32)).max(U256::from(1u8));
    match simulate(snapshot, &Working::new(), &path, r.amount_in.saturating_add(delta)) {
        Ok((steps, _)) => {
            u256_to_f64(out_of(&steps).saturating_sub(r.amount_out)) / u256_to_f64(delta)
        }
        Err(_) => 0.0,
    }
}

/// The snapshot after `plan`'s trades: every pool it goes through in its
/// state after the plan's exact steps (in plan order), everything else
/// shared. A later route of the same transaction is searched on it.
pub fn apply_plan(snapshot: &MarketSnapshot, plan: &Plan) -> Result<MarketSnapshot, KernelError> {
    let mut working = Working::new();
    for st in plan.legs.iter().flat_map(|l| &l.routes).flat_map(|r| &r.steps) {
        if st.action == StepAction::Bridge {
            continue;
        }
        let pool = snapshot.pools().get(st.pool).ok_or(KernelError::BadDelta { pool: st.pool })?;
        let (Some(i), Some(j)) = (pool.index_of(st.token_in), pool.index_of(st.token_out)) else {
            return Err(KernelError::BadDelta { pool: st.pool });
        };
        let from = working.get(&st.pool).unwrap_or(&pool.state);
        let s = pool
            .swap_exact_in_from(from, i, j, st.amount_in)
            .map_err(|_| KernelError::BadDelta { pool: st.pool })?;
        working.insert(st.pool, s.next);
    }
    snapshot.apply(&crate::snapshot::SnapshotDelta {
        heads: Vec::new(),
        pools: working.into_iter().collect(),
    })
}

/// A one-step plan: `amount` of `token_in` through the pool at index
/// `pool` into `token_out`, exact (a bundle's deposit, redeem or swap
/// through a named pool).
pub fn plan_through(
    snapshot: &MarketSnapshot,
    pool: usize,
    token_in: Address,
    token_out: Address,
    amount: U256,
) -> Result<Plan, KernelError> {
    let no_route = || KernelError::NoRoute { token_in, token_out };
    let p = snapshot.pools().get(pool).ok_or_else(no_route)?;
    let (Some(i), Some(j)) = (p.index_of(token_in), p.index_of(token_out)) else {
        return Err(no_route());
    };
    let (i, j) =
        (u8::try_from(i).map_err(|_| no_route())?, u8::try_from(j).map_err(|_| no_route())?);
    let edge = Edge::Pool { pool: u32::try_from(pool).map_err(|_| no_route())?, i, j };
    let (steps, _) =
        simulate(snapshot, &Working::new(), &[edge], amount).map_err(|_| no_route())?;
    let out = out_of(&steps);
    let gas = BASE_GAS + path_gas(&steps);
    Ok(Plan {
        chain: p.chain,
        destination_chain: p.chain,
        bridging: Vec::new(),
        legs: vec![Leg {
            token_in,
            token_out,
            amount_in: amount,
            amount_out: out,
            routes: vec![Route { amount_in: amount, amount_out: out, steps }],
        }],
        amounts_out: vec![out],
        gas,
    })
}
