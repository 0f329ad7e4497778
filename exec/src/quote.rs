//! Quoting: the engine's side of a route request. It takes the fee off each
//! input, turns the API's filters into the kernel's excluded protocols (and
//! leaves out pools no transaction can be proven through), prices gas in
//! each output token, runs the kernel search on the rayon pool under
//! `catch_unwind`, and prices the result's impact in USD.

use std::collections::BTreeSet;

use alloy_primitives::U256;
use switchyard_catalog::{Address, Catalog, ChainId, NATIVE_TOKEN};
use switchyard_kernel::amm::{
    full_math::mul_div,
    vault::{ray_div, ray_mul},
};
use switchyard_kernel::{
    ExactOutRequest, MarketSnapshot, Plan, PoolKinds, PriceTable, RouteRequest, SearchParams,
    find_routes, find_routes_exact_out, pool::u256_to_f64,
};

use crate::{ExecError, MarketState, ViewId};

/// A quote request, already validated by the server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QuoteRequest {
    /// Chain of the inputs.
    pub chain: ChainId,
    /// Chain of the outputs, when the route crosses chains.
    pub destination_chain: Option<ChainId>,
    /// Inputs and their full amounts (the fee is taken off them).
    pub inputs: Vec<(Address, U256)>,
    /// Fee per input, bps (one value for all, or one per input; empty for
    /// none).
    pub fee_bps: Vec<u32>,
    /// Whether the inputs reach the program by `transfer` (router, wallet)
    /// rather than sitting in the account that runs it (delegate): a
    /// rebasing share token arrives a few wei short then.
    pub inputs_transferred: bool,
    /// Whether the outputs reach their receiver by `transfer` from the
    /// account that ran the program (a router's executor, a wallet, a
    /// receiver other than the delegated account): a Compound III balance
    /// is then credited once more, and rounds down once more.
    pub outputs_transferred: bool,
    /// Outputs: one, or one per input.
    pub outputs: Vec<Address>,
    /// Liquidity sources (aggregator names) to leave out.
    pub ignore_aggregators: Vec<String>,
    /// Standards (protocol slugs, with their forks) to leave out.
    pub ignore_standards: Vec<String>,
    /// Bridges to leave out.
    pub ignore_bridges: Vec<String>,
    /// The operator's own fee (`ensoFeeAmount`), bps of each input, taken
    /// off it beside the client's `fee`; the engine sets it from its
    /// configuration.
    pub operator_fee_bps: u32,
    /// Exact output: the amount of the one output wanted, for one input.
    /// The input amount is then the answer ([`Quote::amounts_in`]), and the
    /// amounts in `inputs` are not read.
    pub amount_out: Option<U256>,
}

impl QuoteRequest {
    /// `amount_in` of one token for one other on `chain`, every option at
    /// the API's default: no fee, nothing left out, the input transferred
    /// in.
    pub fn one(chain: ChainId, token_in: Address, amount_in: U256, token_out: Address) -> Self {
        Self {
            chain,
            destination_chain: None,
            inputs: vec![(token_in, amount_in)],
            fee_bps: Vec::new(),
            inputs_transferred: true,
            outputs_transferred: true,
            outputs: vec![token_out],
            ignore_aggregators: Vec::new(),
            ignore_standards: Vec::new(),
            ignore_bridges: Vec::new(),
            operator_fee_bps: 0,
            amount_out: None,
        }
    }
}

/// A priced plan.
#[derive(Debug, Clone, PartialEq)]
pub struct Quote {
    /// The plan, exact amounts (of the inputs after the fee).
    pub plan: Plan,
    /// Each input in full, fee included: the request's, or for an exact
    /// output the least input found.
    pub amounts_in: Vec<U256>,
    /// Whether it answers an exact output (`amounts_in` is then the
    /// answer).
    pub exact_out: bool,
    /// The operator's fee taken off each input, wei (`ensoFeeAmount`).
    pub operator_fee_amounts: Vec<U256>,
    /// Fee taken off each input, wei.
    pub fee_amounts: Vec<U256>,
    /// USD value lost between inputs and outputs, bps; `None` without prices.
    pub price_impact_bps: Option<f64>,
    /// USD value of the routed inputs; `None` without prices.
    pub usd_in: Option<f64>,
    /// Block of the source chain's state the quote was computed on.
    pub block_number: u64,
    /// The views of the chains it read: the source chain's, then the
    /// destination's when it crosses chains.
    pub views: Vec<ViewId>,
}

/// Protocol slugs the filters exclude on the request's chains.
pub fn excluded_protocols(catalog: &Catalog, req: &QuoteRequest) -> BTreeSet<String> {
    let chains = [req.chain, req.destination_chain.unwrap_or(req.chain)];
    let mut out = BTreeSet::new();
    for name in &req.ignore_aggregators {
        for a in catalog
            .aggregators()
            .iter()
            .filter(|a| &a.name == name && chains.iter().any(|c| a.chains.contains(c)))
        {
            out.extend(a.protocols.iter().cloned());
        }
    }
    for slug in &req.ignore_standards {
        out.insert(slug.clone());
        if let Some(st) = catalog.standard(slug) {
            out.insert(st.protocol.clone());
            out.extend(st.forks.iter().cloned());
        }
    }
    out
}

fn usd(
    prices: &PriceTable,
    catalog: &Catalog,
    chain: ChainId,
    token: Address,
    amount: U256,
) -> Option<f64> {
    let p = prices.get(chain, token)?;
    let dec = catalog.token(chain, token)?.decimals;
    Some(u256_to_f64(amount) / 10f64.powi(i32::from(dec)) * p.usd)
}

/// Raw units of `token` one gas unit costs, from the chain's gas price and
/// USD prices (a ranking aid only).
fn gas_cost_in(state: &MarketState, chain: ChainId, token: Address) -> Option<f64> {
    let head = state.snapshot.head(chain)?;
    let native = state.prices.get(chain, NATIVE_TOKEN)?.usd;
    let out = state.prices.get(chain, token)?.usd;
    let dec = state.catalog.token(chain, token)?.decimals;
    let usd_per_gas = u256_to_f64(head.gas_price_wei) / 1e18 * native;
    Some(usd_per_gas / out * 10f64.powi(i32::from(dec)))
}

/// `amount * bps / 10_000`, rounded down: the fee taken off an input.
pub fn fee_of(amount: U256, bps: u32) -> U256 {
    // bps ≤ 10,000, so only an amount near 2^256 overflows the product;
    // dividing first then gives the same floor for the part that matters.
    amount.checked_mul(U256::from(bps)).map_or_else(
        || amount / U256::from(10_000u32) * U256::from(bps),
        |p| p / U256::from(10_000u32),
    )
}

/// How balances of a scaled receipt move by `transfer`: in units that
/// read back through the issuing pool's state.
#[derive(Debug, Clone, Copy)]
enum Scaled {
    /// A rebasing share token (stETH): `⌊a·S/P⌋` shares, read back as
    /// `⌊s·P/S⌋`.
    Shares { pooled: U256, shares: U256 },
    /// An Aave aToken: `rayDiv(a, index)` scaled units, read back as
    /// `rayMul(s, index)` (both half up; zero where the index is zero or a
    /// product overflows: no holder has such an amount).
    Aave { index: U256 },
    /// A Compound III balance: `a * 1e15 / index` of principal, read back
    /// as `p * index / 1e15` (both rounded down).
    Comet { index: U256 },
}

impl Scaled {
    fn of(state: &MarketState, chain: ChainId, token: Address) -> Option<Self> {
        let k = state.snapshot.scaled_pool(chain, token)?;
        match &state.snapshot.pools().get(k)?.state {
            switchyard_kernel::PoolState::LiquidStaking(st) if st.rebasing => {
                Some(Self::Shares { pooled: st.total_pooled_asset, shares: st.total_shares })
            }
            switchyard_kernel::PoolState::Lending(l)
                if l.model == switchyard_catalog::market::LendingModel::Aave =>
            {
                Some(Self::Aave { index: l.exchange_rate })
            }
            switchyard_kernel::PoolState::Lending(l)
                if l.model == switchyard_catalog::market::LendingModel::Comet =>
            {
                Some(Self::Comet { index: l.exchange_rate })
            }
            _ => None,
        }
    }

    /// The units a transfer of `a` moves.
    fn units(self, a: U256) -> U256 {
        match self {
            Self::Shares { pooled, shares } => mul_div(a, shares, pooled).unwrap_or_default(),
            Self::Aave { index } => ray_div(a, index).unwrap_or_default(),
            Self::Comet { index } => {
                switchyard_kernel::amm::vault::comet_principal(index, a).unwrap_or_default()
            }
        }
    }

    /// What `u` units read as.
    fn read(self, u: U256) -> U256 {
        match self {
            Self::Shares { pooled, shares } => mul_div(u, pooled, shares).unwrap_or_default(),
            Self::Aave { index } => ray_mul(u, index).unwrap_or_default(),
            Self::Comet { index } => {
                switchyard_kernel::amm::vault::comet_read(index, u).unwrap_or_default()
            }
        }
    }
}

/// The kernel's search parameters for a request: its filters, the pools no
/// transaction can be proven through, and gas priced in each output.
pub(crate) fn search_params(state: &MarketState, req: &QuoteRequest) -> SearchParams {
    let out_chain = req.destination_chain.unwrap_or(req.chain);
    SearchParams {
        excluded_protocols: excluded_protocols(&state.catalog, req),
        excluded_bridges: req.ignore_bridges.iter().cloned().collect(),
        excluded_pools: state.excluded_pools(),
        gas_cost_in_out: req.outputs.iter().map(|t| gas_cost_in(state, out_chain, *t)).collect(),
        ..SearchParams::default()
    }
}

/// Quotes on the current thread (call it on the pool).
pub fn quote_now(state: &MarketState, req: &QuoteRequest) -> Result<Quote, ExecError> {
    if let Some(want) = req.amount_out {
        return quote_exact_out(state, req, want);
    }
    let mut fee_amounts = Vec::with_capacity(req.inputs.len());
    let mut operator_fees = Vec::with_capacity(req.inputs.len());
    let mut routed = Vec::with_capacity(req.inputs.len());
    for (k, (token, amount)) in req.inputs.iter().enumerate() {
        let bps = req.fee_bps.get(k).or(req.fee_bps.first()).copied().unwrap_or(0);
        let fee = fee_of(*amount, bps);
        let operator_fee = fee_of(*amount, req.operator_fee_bps);
        let left = match Scaled::of(state, req.chain, *token) {
            // The account holds the units of `amount`, less those of the
            // fees it sends on: what they read as is what it can route.
            Some(scaled) if req.inputs_transferred => {
                let units = |f: U256| if f.is_zero() { U256::ZERO } else { scaled.units(f) };
                let sent = units(fee).saturating_add(units(operator_fee));
                scaled.read(scaled.units(*amount).saturating_sub(sent))
            }
            _ => amount.saturating_sub(fee).saturating_sub(operator_fee),
        };
        if left.is_zero() {
            return Err(ExecError::ZeroAfterFee { index: k });
        }
        fee_amounts.push(fee);
        operator_fees.push(operator_fee);
        routed.push((*token, left));
    }
    let params = search_params(state, req);
    let route_req = RouteRequest {
        chain: req.chain,
        destination_chain: req.destination_chain,
        inputs: routed,
        outputs: req.outputs.clone(),
    };
    let snapshot: &MarketSnapshot = &state.snapshot;
    let mut plan =
        crate::observe::timed_search("quote", || find_routes(snapshot, &route_req, &params))
            .map_err(|e| route_error(state, req, e))?;
    if req.outputs_transferred {
        delivered_by_transfer(state, &mut plan, &req.outputs);
    }
    let amounts_in = req.inputs.iter().map(|(_, a)| *a).collect();
    Ok(finish(state, req, plan, &route_req.inputs, amounts_in, [fee_amounts, operator_fees]))
}

/// What the receiver of each output reads once the account that ran the
/// program hands it over by `transfer`: a Compound III balance is credited
/// to the receiver as principal again, rounding down once more (an aToken's
/// half-up units read back what was sent; a share token is measured).
fn delivered_by_transfer(
    state: &MarketState,
    plan: &mut switchyard_kernel::Plan,
    outputs: &[Address],
) {
    let chain = plan.destination_chain;
    for (t, a) in outputs.iter().zip(plan.amounts_out.iter_mut()) {
        if let Some(s @ Scaled::Comet { .. }) = Scaled::of(state, chain, *t) {
            *a = s.read(s.units(*a));
        }
    }
}

/// A kernel refusal as the API's: no route on a chain whose feed is stale
/// is the stale market's doing.
fn route_error(
    state: &MarketState,
    req: &QuoteRequest,
    e: switchyard_kernel::KernelError,
) -> ExecError {
    match e {
        switchyard_kernel::KernelError::NoRoute { .. }
            if state.stale_on(req.chain, req.destination_chain) =>
        {
            ExecError::StaleMarket { chain: req.chain }
        }
        e => ExecError::Route(e),
    }
}

/// The least input that delivers exactly `want` of the one output, through
/// the pools an exact-output transaction can use (Uniswap V2 and V3
/// through their routers, a Balancer pool or an ERC-4626 vault as a single
/// step); the fees are taken off that input as off any other.
fn quote_exact_out(
    state: &MarketState,
    req: &QuoteRequest,
    want: U256,
) -> Result<Quote, ExecError> {
    let ([(token_in, _)], [token_out]) = (req.inputs.as_slice(), req.outputs.as_slice()) else {
        return Err(ExecError::ExactOutShape);
    };
    let chain = req.chain;
    if req.destination_chain.is_some_and(|d| d != chain) {
        return Err(ExecError::ExactOutShape);
    }
    let snapshot: &MarketSnapshot = &state.snapshot;
    for t in [token_in, token_out] {
        if *t == NATIVE_TOKEN || snapshot.is_scaled_receipt(chain, *t) {
            return Err(ExecError::ExactOutToken { token: *t });
        }
    }
    // Each search below sets the pool kinds it may use.
    let params = search_params(state, req);
    // No hint: the kernel sizes the search from one whole input token's
    // rate, which measured as fast as a USD-price hint and needs no price.
    let exact = ExactOutRequest {
        chain,
        token_in: *token_in,
        token_out: *token_out,
        amount_out: want,
        hint_in: None,
    };
    let search = |kinds| {
        let params = SearchParams { kinds, ..params.clone() };
        crate::observe::timed_search("quote", || find_routes_exact_out(snapshot, &exact, &params))
    };
    // Each path must be one exact-output call: one Uniswap router over one
    // protocol's pools, or one Balancer pool or vault. When the best plan
    // is not, the best of Uniswap alone, V2 alone and V3 alone.
    let executable = |p: &Plan| one_call_per_path(snapshot, p);
    let plan = match search(PoolKinds::ExactOutput) {
        Ok(p) if executable(&p) => p,
        first => [PoolKinds::Uniswap, PoolKinds::UniswapV2, PoolKinds::UniswapV3]
            .into_iter()
            .filter_map(|k| search(k).ok())
            .filter(|p| executable(p))
            .min_by_key(|p| p.legs.first().map(|l| l.amount_in))
            .map_or_else(
                || match first {
                    Ok(_) => Err(ExecError::ExactOutRoute(
                        "every route mixes protocols or pool kinds along a path".into(),
                    )),
                    Err(e) => Err(route_error(state, req, e)),
                },
                Ok,
            )?,
    };
    let needed = plan.legs.first().map(|l| l.amount_in).ok_or(ExecError::ExactOutShape)?;
    let bps = req.fee_bps.first().copied().unwrap_or(0);
    let total = with_fee(needed, bps.saturating_add(req.operator_fee_bps));
    // The client's fee is its share of the whole; the operator's takes
    // the rest, so exactly `needed` is routed.
    let fee = fee_of(total, bps);
    let operator_fee = total - needed - fee;
    Ok(finish(
        state,
        req,
        plan,
        &[(*token_in, needed)],
        vec![total],
        [vec![fee], vec![operator_fee]],
    ))
}

/// Whether every path of `plan` is one exact-output call: one protocol's
/// Uniswap V2 or V3 pools (one router call over the path), or a single
/// step through a Balancer weighted pool or an ERC-4626 vault.
pub fn one_call_per_path(snapshot: &MarketSnapshot, plan: &Plan) -> bool {
    use switchyard_kernel::PoolState as S;
    let kind = |k: usize| snapshot.pools().get(k).map(|p| &p.state);
    plan.legs.iter().flat_map(|l| &l.routes).all(|r| match r.steps.as_slice() {
        [st] if matches!(kind(st.pool), Some(S::Weighted(_) | S::Erc4626(_))) => true,
        steps => {
            steps.windows(2).all(|w| w[0].protocol == w[1].protocol)
                && steps.iter().all(|s| {
                    s.action == switchyard_kernel::StepAction::Swap
                        && matches!(
                            kind(s.pool),
                            Some(S::UniswapV2 { .. } | S::UniswapV2Lp(_) | S::UniswapV3(_))
                        )
                })
        }
    })
}

/// The least `total` whose fee (`fee_of(total, bps)`, taken off it) leaves
/// at least `needed`; the fee is then `total - needed`, so the routed part
/// is exactly `needed`.
pub fn with_fee(needed: U256, bps: u32) -> U256 {
    if bps == 0 {
        return needed;
    }
    let keep = U256::from(10_000u32.saturating_sub(bps).max(1));
    let mut total = needed.checked_mul(U256::from(10_000u32)).map_or(needed, |p| p.div_ceil(keep));
    while total > needed && total - U256::ONE - fee_of(total - U256::ONE, bps) >= needed {
        total -= U256::ONE;
    }
    while total.saturating_sub(fee_of(total, bps)) < needed && total < U256::MAX {
        total += U256::ONE;
    }
    total
}

/// The quote of `plan`, found for `routed` (the inputs after the fee):
/// USD values, price impact, the block and views.
fn finish(
    state: &MarketState,
    req: &QuoteRequest,
    plan: Plan,
    routed: &[(Address, U256)],
    amounts_in: Vec<U256>,
    [fee_amounts, operator_fee_amounts]: [Vec<U256>; 2],
) -> Quote {
    let out_chain = req.destination_chain.unwrap_or(req.chain);
    let chain = req.chain;
    let usd_in: Option<f64> =
        routed.iter().map(|(t, a)| usd(&state.prices, &state.catalog, chain, *t, *a)).sum();
    let usd_out: Option<f64> = req
        .outputs
        .iter()
        .zip(&plan.amounts_out)
        .map(|(t, a)| usd(&state.prices, &state.catalog, out_chain, *t, *a))
        .sum();
    let price_impact_bps = match (usd_in, usd_out) {
        (Some(i), Some(o)) if i > 0.0 => Some(((i - o) / i * 10_000.0 * 100.0).round() / 100.0),
        _ => None,
    };
    let block_number = state.snapshot.head(chain).map_or(0, |h| h.block_number);
    let views = [Some(chain), req.destination_chain.filter(|d| *d != chain)]
        .into_iter()
        .flatten()
        .filter_map(|c| state.view_of(c))
        .collect();
    let exact_out = req.amount_out.is_some();
    Quote {
        plan,
        amounts_in,
        exact_out,
        fee_amounts,
        operator_fee_amounts,
        price_impact_bps,
        usd_in,
        block_number,
        views,
    }
}

/// A ladder: one pair quoted at several increasing amounts on one state.
#[derive(Debug, Clone)]
pub struct LadderRequest {
    /// Chain.
    pub chain: ChainId,
    /// Input token.
    pub token_in: Address,
    /// Output token.
    pub token_out: Address,
    /// Amounts in, strictly increasing.
    pub amounts: Vec<U256>,
}

/// A ladder's answer.
#[derive(Debug, Clone)]
pub struct Ladder {
    /// The block every point was computed on.
    pub block_number: u64,
    /// One point per amount, in order.
    pub points: Vec<switchyard_kernel::LadderPoint>,
}

/// Quotes a ladder on the current thread (call it on the pool): the
/// kernel's [`switchyard_kernel::ladder`], which shares the search across
/// the points.
pub fn ladder_now(state: &MarketState, req: &LadderRequest) -> Result<Ladder, ExecError> {
    let params = SearchParams {
        excluded_pools: state.excluded_pools(),
        gas_cost_in_out: vec![gas_cost_in(state, req.chain, req.token_out)],
        ..SearchParams::default()
    };
    let points = crate::observe::timed_search("ladder", || {
        switchyard_kernel::ladder(
            &state.snapshot,
            req.chain,
            req.token_in,
            req.token_out,
            &req.amounts,
            &params,
        )
    })
    .map_err(|e| match e {
        switchyard_kernel::KernelError::NoRoute { .. } if state.stale_on(req.chain, None) => {
            ExecError::StaleMarket { chain: req.chain }
        }
        e => ExecError::Route(e),
    })?;
    let block_number = state.snapshot.head(req.chain).map_or(0, |h| h.block_number);
    Ok(Ladder { block_number, points })
}
