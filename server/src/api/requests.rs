//! Typed, validated requests of the shortcut and wallet endpoints.
//!
//! Every parameter the spec lists is parsed and checked here, with errors
//! that name the field, whether it came in a query string or (coerced) in a
//! JSON body. The endpoints that consume these requests arrive with the
//! routing kernel and the execution layer.

use alloy_primitives::{Address, U256};
use switchyard_catalog::{Catalog, ChainId, RoutingStrategy};

use super::known_chain;
use crate::{
    error::ApiError,
    query::{Query, parse_address, parse_u64_in, parse_wei},
};

/// Routing strategies of the route, quote, bundle and approve endpoints.
pub const ROUTE_STRATEGIES: [RoutingStrategy; 5] = [
    RoutingStrategy::EnsoWalletV2,
    RoutingStrategy::Router,
    RoutingStrategy::Delegate,
    RoutingStrategy::RouterLegacy,
    RoutingStrategy::DelegateLegacy,
];

/// Routing strategies of the non-tokenized route endpoint.
pub const NONTOKENIZED_STRATEGIES: [RoutingStrategy; 4] = [
    RoutingStrategy::Router,
    RoutingStrategy::Delegate,
    RoutingStrategy::DelegateLegacy,
    RoutingStrategy::Checkout,
];

/// Default slippage of route and non-tokenized route, bps. (The public spec
/// says 50 in the parameter list and 500 in one description; we use 50.)
pub use switchyard_engine::route::DEFAULT_SLIPPAGE_BPS;

/// Default slippage of the IPOR shortcut, bps.
pub const DEFAULT_IPOR_SLIPPAGE_BPS: u32 = 300;

/// Largest fee per input, bps.
pub const MAX_FEE_BPS: u32 = 100;

/// Longest referral code, characters.
pub const MAX_REFERRAL_CODE_LEN: usize = 16;

/// Who will execute the transaction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExecutionMode {
    /// The user signs and sends it.
    User,
    /// A backend relays it.
    Backend,
}

/// `GET /shortcuts/quote`, `GET|POST /shortcuts/route`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RouteRequest {
    /// Chain the transaction executes on.
    pub chain_id: ChainId,
    /// Sender (optional for quotes).
    pub from_address: Option<Address>,
    /// Routing strategy (default `router`).
    pub routing_strategy: RoutingStrategy,
    /// Execution mode (default `user`).
    pub execution_mode: ExecutionMode,
    /// Deprecated: send the output to the EOA.
    pub to_eoa: Option<bool>,
    /// Receiver of the output.
    pub receiver: Option<Address>,
    /// Spender of the input.
    pub spender: Option<Address>,
    /// Receiver of dust.
    pub refund_receiver: Option<Address>,
    /// Input tokens.
    pub token_in: Vec<Address>,
    /// Input amounts, wei, one per input token (none with `amount_out`).
    pub amount_in: Vec<U256>,
    /// Exact output wanted, wei: the answer is then the input it takes.
    pub amount_out: Option<U256>,
    /// Output tokens.
    pub token_out: Vec<Address>,
    /// Minimum outputs, one per output token (ignored when `slippage` is given).
    pub min_amount_out: Vec<U256>,
    /// Slippage, bps.
    pub slippage_bps: u32,
    /// Whether `slippage` was given explicitly (it wins over `minAmountOut`).
    pub slippage_given: bool,
    /// Fee per input, bps.
    pub fee_bps: Vec<u32>,
    /// Fee receiver.
    pub fee_receiver: Option<Address>,
    /// Liquidity sources to exclude.
    pub ignore_aggregators: Vec<String>,
    /// Standards to exclude.
    pub ignore_standards: Vec<String>,
    /// Bridges to exclude.
    pub ignore_bridges: Vec<String>,
    /// Referral code for the on-chain event.
    pub referral_code: Option<String>,
    /// Destination chain of a cross-chain route.
    pub destination_chain_id: Option<ChainId>,
}

fn chain(q: &Query, catalog: &Catalog, default: Option<u64>) -> Result<ChainId, ApiError> {
    match (q.scalar("chainId")?, default) {
        (Some(v), _) => Ok(known_chain(catalog, "chainId", v)?.id),
        (None, Some(d)) => Ok(ChainId(d)),
        (None, None) => Err(ApiError::missing("chainId")),
    }
}

fn required_address(q: &Query, field: &'static str) -> Result<Address, ApiError> {
    parse_address(field, q.required(field)?)
}

/// The chain a request without `chainId` is for (Ethereum, as Enso's API).
const DEFAULT_CHAIN: u64 = 1;

/// `a`, unless it is the zero address or a precompile, which no sender or
/// token is.
fn not_reserved(field: &'static str, a: Address) -> Result<Address, ApiError> {
    if switchyard_catalog::is_reserved(a) {
        return Err(ApiError::invalid(
            field,
            format!("{field} must not be the zero address or a precompile"),
        ));
    }
    Ok(a)
}

/// A required sender: any address but the zero address and the
/// precompiles.
fn sender(q: &Query, field: &'static str) -> Result<Address, ApiError> {
    not_reserved(field, required_address(q, field)?)
}

fn wei_list(q: &Query, field: &'static str) -> Result<Vec<U256>, ApiError> {
    q.list(field).iter().enumerate().map(|(i, v)| parse_wei(format!("{field}[{i}]"), v)).collect()
}

fn non_empty<T>(v: Vec<T>, field: &'static str) -> Result<Vec<T>, ApiError> {
    if v.is_empty() { Err(ApiError::missing(field)) } else { Ok(v) }
}

fn bps(field: &'static str, v: &str, max: u64) -> Result<u32, ApiError> {
    parse_u64_in(field, v, &(0..=max)).map(|n| n as u32)
}

fn names(q: &Query, field: &str) -> Vec<String> {
    q.list(field).iter().map(|s| s.trim().to_owned()).filter(|s| !s.is_empty()).collect()
}

/// `referralCode`: at most 16 characters, and at most 16 bytes of UTF-8,
/// since it travels in the high half of the on-chain request id.
fn referral(q: &Query) -> Result<Option<String>, ApiError> {
    match q.scalar("referralCode")? {
        Some(c) if c.chars().count() > MAX_REFERRAL_CODE_LEN => Err(ApiError::invalid(
            "referralCode",
            format!("referralCode must be at most {MAX_REFERRAL_CODE_LEN} characters"),
        )),
        Some(c) if c.len() > MAX_REFERRAL_CODE_LEN => Err(ApiError::invalid(
            "referralCode",
            format!("referralCode must fit in {MAX_REFERRAL_CODE_LEN} bytes of UTF-8"),
        )),
        other => Ok(other.map(str::to_owned)),
    }
}

fn execution_mode(q: &Query) -> Result<ExecutionMode, ApiError> {
    match q.scalar("executionMode")? {
        None | Some("user") => Ok(ExecutionMode::User),
        Some("backend") => Ok(ExecutionMode::Backend),
        Some(_) => {
            Err(ApiError::invalid("executionMode", "executionMode must be one of user, backend"))
        }
    }
}

/// Fee list and receiver: each fee 0..=100 bps, one per input (or one for
/// all), and a receiver whenever a fee is given.
fn fees(q: &Query, n_inputs: usize) -> Result<(Vec<u32>, Option<Address>), ApiError> {
    let raw = q.list("fee");
    let fee_bps = raw
        .iter()
        .enumerate()
        .map(|(i, v)| {
            parse_u64_in("fee", v, &(0..=u64::from(MAX_FEE_BPS))).map(|n| n as u32).map_err(|_| {
                ApiError::invalid(
                    format!("fee[{i}]"),
                    format!("fee[{i}] must be between 0 and {MAX_FEE_BPS} bps"),
                )
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    if !fee_bps.is_empty() && fee_bps.len() != n_inputs && fee_bps.len() != 1 {
        return Err(ApiError::invalid("fee", "fee needs one value per amountIn"));
    }
    let fee_receiver = q.address("feeReceiver")?;
    if !fee_bps.is_empty() && fee_receiver.is_none() {
        return Err(ApiError::invalid("feeReceiver", "feeReceiver is required when fee is given"));
    }
    Ok((fee_bps, fee_receiver))
}

/// `tokenIn` and `amountIn`: both present, one amount per token.
fn inputs(q: &Query) -> Result<(Vec<Address>, Vec<U256>), ApiError> {
    let token_in = non_empty(q.addresses("tokenIn")?, "tokenIn")?;
    let amount_in = non_empty(wei_list(q, "amountIn")?, "amountIn")?;
    if amount_in.len() != token_in.len() {
        return Err(ApiError::invalid("amountIn", "amountIn needs one amount per tokenIn"));
    }
    Ok((token_in, amount_in))
}

/// `slippage` in bps (0 to 10000, `default` when absent), and whether it was
/// given (it wins over `minAmountOut`).
fn slippage(q: &Query, default: u32) -> Result<(u32, bool), ApiError> {
    let v = q.scalar("slippage")?;
    Ok((v.map(|v| bps("slippage", v, 10_000)).transpose()?.unwrap_or(default), v.is_some()))
}

/// `destinationChainId`, a network of the catalog when given.
fn destination_chain(q: &Query, catalog: &Catalog) -> Result<Option<ChainId>, ApiError> {
    q.scalar("destinationChainId")?
        .map(|v| known_chain(catalog, "destinationChainId", v).map(|n| n.id))
        .transpose()
}

/// Whether `fromAddress` is required (routes) or optional (quotes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RouteKind {
    /// `GET /shortcuts/quote`.
    Quote,
    /// `GET|POST /shortcuts/route`.
    Route,
}

/// Parses and validates a route or quote request.
pub fn parse_route(
    q: &Query,
    catalog: &Catalog,
    kind: RouteKind,
) -> Result<RouteRequest, ApiError> {
    let chain_id = chain(q, catalog, Some(DEFAULT_CHAIN))?;
    let from_address = match kind {
        RouteKind::Route => Some(sender(q, "fromAddress")?),
        RouteKind::Quote => {
            q.address("fromAddress")?.map(|a| not_reserved("fromAddress", a)).transpose()?
        }
    };
    let amount_out = q.scalar("amountOut")?.map(|v| parse_wei("amountOut", v)).transpose()?;
    let (token_in, amount_in) = match amount_out {
        None => inputs(q)?,
        Some(out) => {
            if out.is_zero() {
                return Err(ApiError::invalid("amountOut", "amountOut must be positive"));
            }
            if !q.list("amountIn").is_empty() {
                return Err(ApiError::invalid("amountOut", "give amountIn or amountOut, not both"));
            }
            let token_in = non_empty(q.addresses("tokenIn")?, "tokenIn")?;
            if token_in.len() != 1 {
                return Err(ApiError::invalid("tokenIn", "amountOut takes exactly one tokenIn"));
            }
            (token_in, Vec::new())
        }
    };
    let token_out = non_empty(q.addresses("tokenOut")?, "tokenOut")?;
    if amount_out.is_some() && token_out.len() != 1 {
        return Err(ApiError::invalid("tokenOut", "amountOut takes exactly one tokenOut"));
    }
    let min_amount_out = wei_list(q, "minAmountOut")?;
    if amount_out.is_some() && !min_amount_out.is_empty() {
        return Err(ApiError::invalid(
            "minAmountOut",
            "with amountOut the output is exact: the slippage applies to the input",
        ));
    }
    if !min_amount_out.is_empty() && min_amount_out.len() != token_out.len() {
        return Err(ApiError::invalid(
            "minAmountOut",
            "minAmountOut needs one amount per tokenOut",
        ));
    }
    let (slippage_bps, slippage_given) = slippage(q, DEFAULT_SLIPPAGE_BPS)?;
    let (fee_bps, fee_receiver) = fees(q, token_in.len())?;
    let destination_chain_id = destination_chain(q, catalog)?;
    if amount_out.is_some() && destination_chain_id.is_some_and(|d| d != chain_id) {
        return Err(ApiError::invalid(
            "amountOut",
            "amountOut takes one chain: no destinationChainId",
        ));
    }
    let receiver = q.address("receiver")?;
    if destination_chain_id.is_some_and(|d| d != chain_id) && receiver.is_none() {
        return Err(ApiError::invalid(
            "receiver",
            "receiver is required when destinationChainId is set",
        ));
    }
    Ok(RouteRequest {
        chain_id,
        from_address,
        routing_strategy: q
            .strategy("routingStrategy", &ROUTE_STRATEGIES)?
            .unwrap_or(RoutingStrategy::Router),
        execution_mode: execution_mode(q)?,
        to_eoa: q.bool("toEoa")?,
        receiver,
        spender: q.address("spender")?,
        refund_receiver: q.address("refundReceiver")?,
        token_in,
        amount_in,
        amount_out,
        token_out,
        min_amount_out,
        slippage_bps,
        slippage_given,
        fee_bps,
        fee_receiver,
        ignore_aggregators: names(q, "ignoreAggregators"),
        ignore_standards: names(q, "ignoreStandards"),
        ignore_bridges: names(q, "ignoreBridges"),
        referral_code: referral(q)?,
        destination_chain_id,
    })
}

/// `GET /shortcuts/route/nontokenized`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NontokenizedRequest {
    /// The route part (tokens in, amounts, fees, strategy…).
    pub route: RouteRequest,
    /// The position to deposit into (its catalog `positionId`).
    pub position_id: String,
    /// Its address.
    pub position: Address,
}

/// Parses a non-tokenized route request; the position must be in the
/// catalog.
pub fn parse_nontokenized(q: &Query, catalog: &Catalog) -> Result<NontokenizedRequest, ApiError> {
    let chain_id = chain(q, catalog, Some(DEFAULT_CHAIN))?;
    let destination_chain_id = destination_chain(q, catalog)?;
    // The position is on the destination chain when one is named.
    let on = destination_chain_id.unwrap_or(chain_id);
    let position = q.required("positionOut")?;
    let pos = catalog
        .positions()
        .iter()
        .find(|p| {
            p.chain_id == on
                && (p.position_id == position
                    || format!("{:#x}", p.address) == position.to_lowercase())
        })
        .ok_or_else(|| {
            ApiError::not_found("positionOut", format!("no position `{position}` on chain {on}"))
        })?;
    let (token_in, amount_in) = inputs(q)?;
    let (slippage_bps, slippage_given) = slippage(q, DEFAULT_SLIPPAGE_BPS)?;
    let (fee_bps, fee_receiver) = fees(q, amount_in.len())?;
    Ok(NontokenizedRequest {
        route: RouteRequest {
            chain_id,
            from_address: Some(sender(q, "fromAddress")?),
            routing_strategy: q
                .strategy("routingStrategy", &NONTOKENIZED_STRATEGIES)?
                .unwrap_or(RoutingStrategy::Router),
            execution_mode: ExecutionMode::User,
            to_eoa: None,
            receiver: Some(required_address(q, "receiver")?),
            spender: q.address("spender")?,
            refund_receiver: q.address("refundReceiver")?,
            token_in,
            amount_in,
            amount_out: None,
            token_out: pos.underlying_tokens.clone(),
            min_amount_out: Vec::new(),
            slippage_bps,
            slippage_given,
            fee_bps,
            fee_receiver,
            ignore_aggregators: names(q, "ignoreAggregators"),
            ignore_standards: names(q, "ignoreStandards"),
            ignore_bridges: names(q, "ignoreBridges"),
            referral_code: referral(q)?,
            destination_chain_id,
        },
        position_id: pos.position_id.clone(),
        position: pos.address,
    })
}

/// `GET /wallet/approve`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApproveRequest {
    /// Chain.
    pub chain_id: ChainId,
    /// Owner of the tokens.
    pub from_address: Address,
    /// Token to approve.
    pub token: Address,
    /// Allowance, wei.
    pub amount: U256,
    /// Strategy whose router becomes the spender.
    pub routing_strategy: RoutingStrategy,
}

/// An approve request's token: any address but the zero address and the
/// precompiles.
fn token_address(q: &Query) -> Result<Address, ApiError> {
    let token = required_address(q, "tokenAddress")?;
    if switchyard_catalog::is_reserved(token) {
        return Err(ApiError::invalid(
            "tokenAddress",
            "tokenAddress must be a token contract, not the zero address or a precompile",
        ));
    }
    Ok(token)
}

/// Parses an approve request.
pub fn parse_approve(q: &Query, catalog: &Catalog) -> Result<ApproveRequest, ApiError> {
    Ok(ApproveRequest {
        chain_id: chain(q, catalog, Some(DEFAULT_CHAIN))?,
        from_address: sender(q, "fromAddress")?,
        token: token_address(q)?,
        amount: parse_wei("amount", q.required("amount")?)?,
        routing_strategy: q
            .strategy("routingStrategy", &ROUTE_STRATEGIES)?
            .unwrap_or(RoutingStrategy::Router),
    })
}

/// `GET /wallet/balances`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BalancesRequest {
    /// A chain, or `None` for `all`.
    pub chain_id: Option<ChainId>,
    /// The EOA.
    pub eoa_address: Address,
    /// Balances of the EOA itself rather than of its smart wallet.
    pub use_eoa: bool,
}

/// Parses a balances request.
pub fn parse_balances(q: &Query, catalog: &Catalog) -> Result<BalancesRequest, ApiError> {
    let chain_id = match q.scalar("chainId")?.unwrap_or("1") {
        "all" => None,
        v => Some(known_chain(catalog, "chainId", v)?.id),
    };
    Ok(BalancesRequest {
        chain_id,
        eoa_address: required_address(q, "eoaAddress")?,
        use_eoa: q.bool("useEoa")?.ok_or_else(|| ApiError::missing("useEoa"))?,
    })
}

/// `POST /shortcuts/static/ipor`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IporRequest {
    /// Chain.
    pub chain_id: ChainId,
    /// Sender.
    pub from_address: Address,
    /// Use the shared router.
    pub is_router: bool,
    /// Input token.
    pub token_in: Address,
    /// Input amount, wei.
    pub amount_in: U256,
    /// Token B to buy with part of the input.
    pub token_b: Address,
    /// Share of the input that buys token B, bps.
    pub percentage_for_token_b_bps: u32,
    /// Slippage, bps.
    pub slippage_bps: u32,
    /// Simulate before answering.
    pub simulate: bool,
}

/// Parses an IPOR request: `q` is the query string, `body` the coerced body.
pub fn parse_ipor(q: &Query, body: &Query, catalog: &Catalog) -> Result<IporRequest, ApiError> {
    Ok(IporRequest {
        chain_id: chain(q, catalog, Some(DEFAULT_CHAIN))?,
        from_address: sender(q, "fromAddress")?,
        is_router: body.bool("isRouter")?.unwrap_or(true),
        token_in: required_address(body, "tokenIn")?,
        amount_in: parse_wei("amountIn", body.required("amountIn")?)?,
        token_b: required_address(body, "tokenBToBuy")?,
        percentage_for_token_b_bps: bps(
            "percentageForTokenB",
            body.required("percentageForTokenB")?,
            10_000,
        )?,
        slippage_bps: slippage(body, DEFAULT_IPOR_SLIPPAGE_BPS)?.0,
        simulate: body.bool("simulate")?.unwrap_or(false),
    })
}

/// The query part of `POST /shortcuts/bundle`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BundleRequest {
    /// Chain.
    pub chain_id: ChainId,
    /// Sender.
    pub from_address: Address,
    /// Strategy.
    pub routing_strategy: RoutingStrategy,
    /// Execution mode.
    pub execution_mode: ExecutionMode,
    /// Receiver.
    pub receiver: Option<Address>,
    /// Spender.
    pub spender: Option<Address>,
    /// Dust receiver.
    pub refund_receiver: Option<Address>,
    /// Sources to exclude.
    pub ignore_aggregators: Vec<String>,
    /// Skip quoting (no `gas`/`amountsOut` in the answer).
    pub skip_quote: bool,
    /// Referral code.
    pub referral_code: Option<String>,
    /// Number of actions (top level).
    pub n_actions: usize,
}

/// Parses a bundle request and checks its actions: each names an action of
/// the catalog that its protocol's standard supports, and every
/// `{useOutputOfCallAt}` refers to an earlier action of the same list.
pub fn parse_bundle(
    q: &Query,
    body: &simd_json::BorrowedValue<'_>,
    catalog: &Catalog,
) -> Result<BundleRequest, ApiError> {
    let chain_id = chain(q, catalog, Some(DEFAULT_CHAIN))?;
    let n_actions = check_actions(body, "body", catalog)?;
    Ok(BundleRequest {
        chain_id,
        from_address: sender(q, "fromAddress")?,
        routing_strategy: q
            .strategy("routingStrategy", &ROUTE_STRATEGIES)?
            .unwrap_or(RoutingStrategy::Router),
        execution_mode: execution_mode(q)?,
        receiver: q.address("receiver")?,
        spender: q.address("spender")?,
        refund_receiver: q.address("refundReceiver")?,
        ignore_aggregators: names(q, "ignoreAggregators"),
        skip_quote: q.bool("skipQuote")?.unwrap_or(false),
        referral_code: referral(q)?,
        n_actions,
    })
}

/// Most actions in one bundle (callbacks included).
pub const MAX_BUNDLE_ACTIONS: usize = 64;

fn check_actions(
    list: &simd_json::BorrowedValue<'_>,
    path: &str,
    catalog: &Catalog,
) -> Result<usize, ApiError> {
    use simd_json::{BorrowedValue as V, prelude::*};
    let V::Array(actions) = list else {
        return Err(ApiError::invalid(
            path.to_owned(),
            format!("{path} must be an array of actions"),
        ));
    };
    if actions.is_empty() {
        return Err(ApiError::invalid(
            path.to_owned(),
            format!("{path} must hold at least one action"),
        ));
    }
    if actions.len() > MAX_BUNDLE_ACTIONS {
        return Err(ApiError::invalid(
            path.to_owned(),
            format!("at most {MAX_BUNDLE_ACTIONS} actions"),
        ));
    }
    for (i, a) in actions.iter().enumerate() {
        let at = format!("{path}[{i}]");
        let field = |name: &str| -> Result<&str, ApiError> {
            a.get(name).and_then(|v| v.as_str()).ok_or_else(|| {
                ApiError::invalid(format!("{at}.{name}"), format!("{at}.{name} must be a string"))
            })
        };
        let protocol = field("protocol")?;
        let action = field("action")?;
        let Some(args) = a.get("args").filter(|v| v.is_object()) else {
            return Err(ApiError::invalid(
                format!("{at}.args"),
                format!("{at}.args must be an object"),
            ));
        };
        if catalog.action(action).is_none() {
            return Err(ApiError::invalid(
                format!("{at}.action"),
                format!("{at}: unknown action `{action}`"),
            ));
        }
        let supported = catalog
            .standard(protocol)
            .is_some_and(|s| s.actions.iter().any(|x| x.action == action));
        if !supported {
            return Err(ApiError::invalid(
                format!("{at}.action"),
                format!("{at}: action `{action}` is not supported for protocol `{protocol}`"),
            ));
        }
        check_refs(args, i, &format!("{at}.args"), catalog)?;
    }
    Ok(actions.len())
}

fn check_refs(
    v: &simd_json::BorrowedValue<'_>,
    index: usize,
    path: &str,
    catalog: &Catalog,
) -> Result<(), ApiError> {
    use simd_json::{BorrowedValue as V, prelude::*};
    match v {
        V::Object(o) => {
            if let Some(r) = o.get("useOutputOfCallAt") {
                let target = r.as_u64();
                if target.is_none_or(|t| t as usize >= index) {
                    return Err(ApiError::invalid(
                        path.to_owned(),
                        format!(
                            "{path} refers to the output of action {r}, which is not an earlier action than {index}"
                        ),
                    ));
                }
                if o.get("index").is_some_and(|x| x.as_u64().is_none()) {
                    return Err(ApiError::invalid(
                        format!("{path}.index"),
                        "index must be a non-negative integer",
                    ));
                }
                return Ok(());
            }
            for (k, child) in o.iter() {
                let child_path = format!("{path}.{k}");
                if k == "callback" {
                    // A callback is a bundle of its own, with its own indexes.
                    check_actions(child, &child_path, catalog)?;
                } else {
                    check_refs(child, index, &child_path, catalog)?;
                }
            }
            Ok(())
        }
        V::Array(items) => {
            for (i, child) in items.iter().enumerate() {
                check_refs(child, index, &format!("{path}[{i}]"), catalog)?;
            }
            Ok(())
        }
        _ => Ok(()),
    }
}
