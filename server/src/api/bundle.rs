//! `POST /shortcuts/bundle`: the body's actions (the TypeScript client's
//! `actions.ts` shapes) parsed into the engine's typed actions. Every error
//! names the action and field as a JSON path into the body
//! (`body[2].args.amountIn`).

use alloy_primitives::{Address, U256};
use simd_json::{BorrowedValue as V, prelude::*};
use switchyard_engine::bundle::{
    Action, ActionKind, Amount, BinaryOp, CallArg, Condition, RouteArgs,
};
use switchyard_kernel::amm::uniswap_v3;

use crate::{
    error::ApiError,
    query::{parse_address, parse_wei},
};

/// The arguments object of one action, with the path of each field.
struct Args<'v, 'a> {
    obj: &'v simd_json::borrowed::Object<'a>,
    at: String,
    index: usize,
}

impl<'v, 'a> Args<'v, 'a> {
    fn path(&self, name: &str) -> String {
        format!("{}.{name}", self.at)
    }

    fn get(&self, name: &str) -> Option<&'v V<'a>> {
        self.obj.get(name).filter(|v| !v.is_null())
    }

    fn required(&self, name: &str) -> Result<&'v V<'a>, ApiError> {
        self.get(name).ok_or_else(|| ApiError::missing(self.path(name)))
    }

    fn address(&self, name: &str) -> Result<Address, ApiError> {
        address_value(self.path(name), self.required(name)?)
    }

    fn opt_address(&self, name: &str) -> Result<Option<Address>, ApiError> {
        self.get(name).map(|v| address_value(self.path(name), v)).transpose()
    }

    /// An address, or a one-element list of one (the `Address | Address[]`
    /// fields of single-token actions).
    fn one_address(&self, name: &str) -> Result<Address, ApiError> {
        match self.required(name)? {
            V::Array(items) if items.len() == 1 => {
                address_value(format!("{}[0]", self.path(name)), &items[0])
            }
            V::Array(_) => Err(self.one_token_only(name)),
            v => address_value(self.path(name), v),
        }
    }

    /// Several tokens or amounts where the protocol's call takes one (a
    /// Curve gauge stakes its one LP token; an Aave reserve, a vault, a
    /// wrapper hold one underlying): 422 naming the list. The actions over
    /// several tokens of one pool are `multideposit` / `multiredeem`
    /// (what `deposit` / `redeem` with a list become).
    fn one_token_only(&self, name: &str) -> ApiError {
        ApiError::bundle_unprocessable(
            self.path(name),
            format!(
                "{} lists several tokens, but this action's call takes one token; \
                 send one action per token",
                self.path(name)
            ),
        )
    }

    fn opt_one_address(&self, name: &str) -> Result<Option<Address>, ApiError> {
        if self.get(name).is_none() {
            return Ok(None);
        }
        self.one_address(name).map(Some)
    }

    /// Whether `name` is an array of more than one item.
    fn many(&self, name: &str) -> bool {
        matches!(self.get(name), Some(V::Array(items)) if items.len() > 1)
    }

    fn addresses(&self, name: &str) -> Result<Vec<Address>, ApiError> {
        match self.required(name)? {
            V::Array(items) => items
                .iter()
                .enumerate()
                .map(|(k, v)| address_value(format!("{}[{k}]", self.path(name)), v))
                .collect(),
            v => Ok(vec![address_value(self.path(name), v)?]),
        }
    }

    fn amount(&self, name: &str) -> Result<Amount, ApiError> {
        amount_value(self.path(name), self.required(name)?, self.index)
    }

    fn opt_amount(&self, name: &str) -> Result<Option<Amount>, ApiError> {
        self.get(name).map(|v| amount_value(self.path(name), v, self.index)).transpose()
    }

    fn one_amount(&self, name: &str) -> Result<Amount, ApiError> {
        match self.required(name)? {
            V::Array(items) if items.len() == 1 => {
                amount_value(format!("{}[0]", self.path(name)), &items[0], self.index)
            }
            V::Array(_) => Err(self.one_token_only(name)),
            v => amount_value(self.path(name), v, self.index),
        }
    }

    fn amounts(&self, name: &str) -> Result<Vec<Amount>, ApiError> {
        match self.required(name)? {
            V::Array(items) => items
                .iter()
                .enumerate()
                .map(|(k, v)| amount_value(format!("{}[{k}]", self.path(name)), v, self.index))
                .collect(),
            v => Ok(vec![amount_value(self.path(name), v, self.index)?]),
        }
    }

    /// A literal uint256 (a decimal string or a JSON integer; no output
    /// reference).
    fn wei(&self, name: &str) -> Result<alloy_primitives::U256, ApiError> {
        self.opt_wei(name)?.ok_or_else(|| ApiError::missing(self.path(name)))
    }

    fn opt_wei(&self, name: &str) -> Result<Option<alloy_primitives::U256>, ApiError> {
        match self.opt_amount(name)? {
            None => Ok(None),
            Some(Amount::Value(v)) => Ok(Some(v)),
            Some(Amount::Output { .. }) => Err(ApiError::invalid(
                self.path(name),
                format!("{} must be a literal integer, not an output reference", self.path(name)),
            )),
        }
    }

    /// `0x`-prefixed hex bytes.
    fn hex_bytes(&self, name: &str) -> Result<alloy_primitives::Bytes, ApiError> {
        let path = self.path(name);
        self.required(name)?
            .as_str()
            .and_then(|s| s.strip_prefix("0x"))
            .and_then(|h| alloy_primitives::hex::decode(h).ok())
            .map(Into::into)
            .ok_or_else(|| {
                ApiError::invalid(path.clone(), format!("{path} must be 0x-prefixed hex bytes"))
            })
    }

    fn bps(&self, name: &str, max: u32) -> Result<Option<u32>, ApiError> {
        let Some(v) = self.get(name) else { return Ok(None) };
        let n = match v {
            V::String(s) => s.parse::<u32>().ok(),
            v => v.as_u64().and_then(|n| u32::try_from(n).ok()),
        };
        n.filter(|n| *n <= max).map(Some).ok_or_else(|| {
            ApiError::invalid(
                self.path(name),
                format!("{} must be an integer from 0 to {max}", self.path(name)),
            )
        })
    }

    /// Exactly two signed integers in `[min, max]` (decimal strings or
    /// JSON integers), as a pair.
    fn int_pair(&self, name: &str, (min, max): (i32, i32)) -> Result<(i32, i32), ApiError> {
        let path = self.path(name);
        let bad = || {
            ApiError::invalid(
                path.clone(),
                format!("{path} must be two integers from {min} to {max}, lower first"),
            )
        };
        let V::Array(items) = self.required(name)? else { return Err(bad()) };
        let int = |v: &V<'_>| {
            let n = match v {
                V::String(s) => s.trim().parse::<i64>().ok(),
                v => v.as_i64(),
            };
            n.and_then(|n| i32::try_from(n).ok()).filter(|n| (min..=max).contains(n))
        };
        match items.as_slice() {
            [a, b] => int(a).zip(int(b)).filter(|(a, b)| a < b).ok_or_else(bad),
            _ => Err(bad()),
        }
    }

    fn names(&self, name: &str) -> Vec<String> {
        match self.get(name) {
            Some(V::Array(items)) => {
                items.iter().filter_map(|v| v.as_str().map(str::to_owned)).collect()
            }
            Some(v) => v.as_str().map(|s| vec![s.to_owned()]).unwrap_or_default(),
            None => Vec::new(),
        }
    }

    fn condition(&self, name: &str) -> Result<Condition, ApiError> {
        match self.required(name)? {
            V::Static(simd_json::StaticNode::Bool(b)) => Ok(Condition::Value(*b)),
            v => match reference(self.path(name), v, self.index)? {
                Some((action, index)) => Ok(Condition::Output { action, index }),
                None => Err(ApiError::invalid(
                    self.path(name),
                    format!("{} must be a boolean or an output reference", self.path(name)),
                )),
            },
        }
    }
}

fn address_value(path: String, v: &V<'_>) -> Result<Address, ApiError> {
    match v.as_str() {
        Some(s) => parse_address(path, s),
        None => Err(ApiError::invalid(path.clone(), format!("{path} must be an address string"))),
    }
}

/// `{useOutputOfCallAt, index?}`, checked to name an earlier action.
fn reference(path: String, v: &V<'_>, current: usize) -> Result<Option<(usize, usize)>, ApiError> {
    let V::Object(o) = v else { return Ok(None) };
    let Some(r) = o.get("useOutputOfCallAt") else { return Ok(None) };
    let action = r.as_u64().and_then(|a| usize::try_from(a).ok()).filter(|a| *a < current).ok_or_else(|| {
        ApiError::invalid(
            path.clone(),
            format!("{path} refers to the output of action {r}, which is not an earlier action than {current}"),
        )
    })?;
    let index = match o.get("index") {
        None => 0,
        Some(i) => i.as_u64().and_then(|i| usize::try_from(i).ok()).ok_or_else(|| {
            ApiError::invalid(format!("{path}.index"), "index must be a non-negative integer")
        })?,
    };
    Ok(Some((action, index)))
}

fn amount_value(path: String, v: &V<'_>, current: usize) -> Result<Amount, ApiError> {
    if let Some((action, index)) = reference(path.clone(), v, current)? {
        return Ok(Amount::Output { action, index });
    }
    let text = match v {
        V::String(s) => s.to_string(),
        V::Static(simd_json::StaticNode::U64(n)) => n.to_string(),
        V::Static(simd_json::StaticNode::I64(n)) if *n >= 0 => n.to_string(),
        _ => {
            return Err(ApiError::invalid(
                path.clone(),
                format!("{path} must be a wei amount (decimal string) or an output reference"),
            ));
        }
    };
    parse_wei(path, &text).map(Amount::Value)
}

fn call_arg(path: String, v: &V<'_>, current: usize) -> Result<CallArg, ApiError> {
    if let Some((action, index)) = reference(path.clone(), v, current)? {
        return Ok(CallArg::Output { action, index });
    }
    Ok(match v {
        V::String(s) => CallArg::Text(s.to_string()),
        V::Static(simd_json::StaticNode::Bool(b)) => CallArg::Bool(*b),
        V::Static(simd_json::StaticNode::U64(n)) => CallArg::Number(n.to_string()),
        V::Static(simd_json::StaticNode::I64(n)) => CallArg::Number(n.to_string()),
        V::Array(items) => CallArg::List(
            items
                .iter()
                .enumerate()
                .map(|(k, i)| call_arg(format!("{path}[{k}]"), i, current))
                .collect::<Result<_, _>>()?,
        ),
        _ => {
            return Err(ApiError::invalid(
                path.clone(),
                format!("{path} must be a string, integer, boolean, array or output reference"),
            ));
        }
    })
}

/// Whether this version answers `action` of `protocol` with a
/// transaction, given a world holding the protocol's contracts: what
/// `/standards` and `/actions` advertise. The rest of the catalog's
/// vocabulary (Enso's) is still parsed far enough to answer 501 naming what
/// is not built, or 422 where the world lacks the contracts:
///
/// - Uniswap V2 LP positions (a pair whose market record lists its
///   supply: one coin, or both through `addLiquidity`); multi-token
///   deposits and redeems through Curve pools and Uniswap V2 pairs only;
/// - concentrated-liquidity positions are minted (`depositclmm`, Uniswap
///   V3's position manager) but not redeemed: a position lives in the
///   position manager's storage, which the world does not hold;
/// - flash loans from Aave V3 and Morpho Blue (one token) and Uniswap V3
///   pools (either coin or both) only, through Enso's router adapter; no withdrawals by
///   position id; a paymaster fee only pays back the gas of the user
///   operation this instance's backend submits (`ensowallet-v2` with
///   `executionMode=backend`, to its `operator_fee_receiver`);
/// - no Compound V3 market in the world;
/// - of the bridges, CCTP (to its receiver: Enso deploys no CCTP receiver
///   that runs a callback) and Stargate (to its receiver, or a callback
///   through Enso's composer, with a `callbackValue` between chains of one
///   native coin); CCIP and Relay are not in the world;
/// - an ERC-721 has no `transfer`.
pub fn builds(protocol: &str, action: &str) -> bool {
    match action {
        "depositclmm" | "redeemclmm" => protocol == "uniswap-v3",
        // From Aave V3's pools, Uniswap V3's and Morpho Blue, the lenders
        // the world holds, through Enso's router adapter.
        "flashloan" | "singletokenflashloan" => {
            matches!(protocol, "aave-v3" | "uniswap-v3" | "morpho-blue")
        }
        "multioutsingledeposit" | "singlewithdrawwithpositionid" | "multiwithdraw" => false,
        // Through CCTP or a Stargate taxi, proven on both chains; CCIP and
        // Relay are not in the world.
        "bridge" => matches!(protocol, "cctp" | "stargate"),
        "deposit" | "redeem" | "singledeposit" | "singleredeem" => true,
        // Several tokens in or out together: a tokenized Curve pool, a
        // Uniswap V2 pair (of the published 0.3% pair code), a Balancer
        // weighted pool whose BPT supply the market lists.
        "multideposit" | "tokenizedmultideposit" | "multiredeem" | "tokenizedmultiredeem" => {
            matches!(protocol, "curve" | "uniswap-v2" | "sushiswap-v2" | "balancer-v2")
        }
        // Compound III's markets here hold no collateral assets: only the
        // base asset is supplied and withdrawn.
        "borrow" | "repay" => protocol != "compound-v3",
        "transfer" => protocol != "erc721",
        _ => true,
    }
}

/// Tokens named by `tokens` (one, or a list) with one literal integer
/// each from `amounts`: what a signature or a loan's program fixed before
/// the bundle runs (`why`), so no earlier output can stand in.
fn literal_amounts(
    args: &Args<'_, '_>,
    (tokens, amounts): (&str, &str),
    why: &str,
) -> Result<Vec<(Address, alloy_primitives::U256)>, ApiError> {
    let listed = args.addresses(tokens)?;
    let values = args.amounts(amounts)?;
    if values.len() != listed.len() {
        return Err(ApiError::invalid(
            args.path(amounts),
            format!("{} needs one amount per {tokens}", args.path(amounts)),
        ));
    }
    listed
        .into_iter()
        .zip(values)
        .map(|(token, amount)| match amount {
            Amount::Value(v) => Ok((token, v)),
            Amount::Output { .. } => Err(ApiError::invalid(
                args.path(amounts),
                format!("{} must be a literal integer: {why}", args.path(amounts)),
            )),
        })
        .collect()
}

/// A flash loan of one token or several and the actions run with it.
fn flashloan(args: &Args<'_, '_>, instance: Instance) -> Result<ActionKind, ApiError> {
    let loans = literal_amounts(
        args,
        ("flashloanToken", "flashloanAmount"),
        "the loan's program is fixed before the bundle runs",
    )?;
    let (tokens_in, amounts_in) = match args.get("tokenIn") {
        Some(_) => (args.addresses("tokenIn")?, args.amounts("amountIn")?),
        None => (Vec::new(), Vec::new()),
    };
    Ok(ActionKind::Flashloan {
        loans,
        tokens_in,
        amounts_in,
        tokens_out: args.addresses("tokenOut")?,
        primary: args.opt_address("primaryAddress")?,
        receiver: args.opt_address("receiver")?,
        callback: parse_actions(args.required("callback")?, &args.path("callback"), instance)?,
    })
}

/// A concentrated-liquidity position from both coins of a pool.
fn deposit_clmm(args: &Args<'_, '_>) -> Result<ActionKind, ApiError> {
    if args.opt_address("hook")?.is_some_and(|h| h != Address::ZERO) {
        return Err(ApiError::invalid(
            args.path("hook"),
            "Uniswap V3 pools have no hooks: hook is for hook-enabled CLMMs",
        ));
    }
    Ok(ActionKind::DepositClmm {
        tokens_in: args.addresses("tokenIn")?,
        amounts_in: args.amounts("amountIn")?,
        token_out: args.address("tokenOut")?,
        ticks: args.int_pair("ticks", (uniswap_v3::MIN_TICK, uniswap_v3::MAX_TICK))?,
        fee: args.bps("poolFee", 1_000_000)?,
        tick_spacing: args.bps("tickSpacing", 16_384)?.and_then(|s| i32::try_from(s).ok()),
        receiver: args.opt_address("receiver")?,
    })
}

/// Whether `action` of `protocol` builds on `chain` ([`builds`]), which a
/// node follows or not (`followed`): a concentrated-liquidity position
/// needs the protocol's position manager recorded on the chain, bound to
/// its factory there; redeeming one needs a node to read it from.
pub fn builds_on(
    catalog: &switchyard_catalog::Catalog,
    protocol: &str,
    action: &str,
    chain: switchyard_catalog::ChainId,
    followed: bool,
) -> bool {
    let manager = || {
        catalog.dex_factory(chain, protocol).is_some_and(|f| {
            let role = switchyard_catalog::DeploymentRole::UniswapV3PositionManager;
            catalog.deployment(chain, role, Some(f.factory)).is_some()
        })
    };
    builds(protocol, action)
        && match action {
            "depositclmm" => manager(),
            "redeemclmm" => followed && manager(),
            // Enso's adapter on the chain, trusting an Aave V3 pool or a
            // Morpho Blue there, or the chain's Uniswap V3 factory.
            "flashloan" | "singletokenflashloan" => catalog
                .deployment(chain, switchyard_catalog::DeploymentRole::FlashloanRouterAdapter, None)
                .is_some_and(|d| {
                    use switchyard_catalog::{FactoryKind, FlashloanLender};
                    let factory = catalog
                        .dex_factory(chain, protocol)
                        .filter(|f| f.kind == FactoryKind::UniswapV3)
                        .map(|f| f.factory);
                    d.lenders.iter().any(|l| match protocol {
                        "aave-v3" => l.protocol == FlashloanLender::AAVE_V3,
                        "morpho-blue" => l.protocol == FlashloanLender::MORPHO,
                        _ => {
                            l.protocol == FlashloanLender::UNISWAP_V3 && Some(l.address) == factory
                        }
                    })
                }),
            // CCTP's messenger on the chain, with a domain.
            "bridge" => switchyard_engine::evm::cctp::setup(catalog).is_some_and(|(b, s)| {
                b.name == protocol
                    && b.contracts.contains_key(&chain.0.to_string())
                    && s.domain(chain).is_some()
            }),
            _ => true,
        }
}

/// `destinationChainId` of an action: a chain id, as a number or a
/// decimal string.
fn chain_id(args: &Args<'_, '_>, v: &V<'_>) -> Result<switchyard_catalog::ChainId, ApiError> {
    match v {
        V::String(s) => s.parse::<u64>().ok(),
        v => v.as_u64(),
    }
    .map(switchyard_catalog::ChainId)
    .ok_or_else(|| {
        ApiError::invalid(
            args.path("destinationChainId"),
            format!("{} must be a chain id", args.path("destinationChainId")),
        )
    })
}

/// Several coins into one position at once.
fn multi_deposit(args: &Args<'_, '_>) -> Result<ActionKind, ApiError> {
    Ok(ActionKind::MultiDeposit {
        tokens_in: args.addresses("tokenIn")?,
        amounts_in: args.amounts("amountIn")?,
        token_out: args.opt_address("tokenOut")?,
        primary: args.address("primaryAddress")?,
        receiver: args.opt_address("receiver")?,
    })
}

/// One position out into several coins at once.
fn multi_redeem(args: &Args<'_, '_>) -> Result<ActionKind, ApiError> {
    Ok(ActionKind::MultiRedeem {
        token_in: args.opt_address("tokenIn")?,
        tokens_out: args.addresses("tokenOut")?,
        amount_in: args.amount("amountIn")?,
        primary: args.address("primaryAddress")?,
        receiver: args.opt_address("receiver")?,
    })
}

/// What parsing actions needs from the instance.
#[derive(Debug, Clone, Copy, Default)]
pub struct Instance {
    /// The operator's fee receiver (`operator_fee_receiver`), whom an
    /// `ensofee` action pays, and a `paymasterfee` action when the
    /// operator's backend submits (and pays the gas of) the transaction.
    pub operator_fee_receiver: Option<Address>,
    /// `ensowallet-v2` with `executionMode=backend`: the operator's backend
    /// submits the user operation and pays its gas.
    pub backend: bool,
}

/// Parses one bundle's actions (already checked by `requests::parse_bundle`
/// for shape, catalog support and reference order).
pub fn parse_actions(
    list: &V<'_>,
    path: &str,
    instance: Instance,
) -> Result<Vec<Action>, ApiError> {
    let V::Array(actions) = list else {
        return Err(ApiError::invalid(
            path.to_owned(),
            format!("{path} must be an array of actions"),
        ));
    };
    actions
        .iter()
        .enumerate()
        .map(|(i, a)| parse_action(a, &format!("{path}[{i}]"), i, instance))
        .collect()
}

/// A `fee` action's token, amount and bps, then its receiver (so that the
/// first field wrong is the one named).
fn fee_action(
    args: &Args<'_, '_>,
    receiver: impl FnOnce() -> Result<Address, ApiError>,
) -> Result<ActionKind, ApiError> {
    Ok(ActionKind::Fee {
        token: args.address("token")?,
        amount: args.amount("amount")?,
        bps: args.bps("bps", 10_000)?.ok_or_else(|| ApiError::missing(args.path("bps")))?,
        receiver: receiver()?,
    })
}

fn parse_action(a: &V<'_>, at: &str, index: usize, instance: Instance) -> Result<Action, ApiError> {
    let protocol = a.get("protocol").and_then(|v| v.as_str()).unwrap_or_default().to_owned();
    let action = a.get("action").and_then(|v| v.as_str()).unwrap_or_default().to_owned();
    let Some(V::Object(obj)) = a.get("args") else {
        return Err(ApiError::invalid(
            format!("{at}.args"),
            format!("{at}.args must be an object"),
        ));
    };
    let args = Args { obj, at: format!("{at}.args"), index };
    let kind = match action.as_str() {
        "route" => {
            let fee = match args.bps("fee", 100)? {
                Some(bps) => Some((bps, args.address("feeReceiver")?)),
                None => None,
            };
            ActionKind::Route(RouteArgs {
                token_in: args.address("tokenIn")?,
                token_out: args.address("tokenOut")?,
                amount_in: args.amount("amountIn")?,
                slippage_bps: args.bps("slippage", 10_000)?,
                min_amount_out: args.opt_amount("minAmountOut")?,
                receiver: args.opt_address("receiver")?,
                fee,
                ignore_aggregators: args.names("ignoreAggregators"),
                ignore_standards: args.names("ignoreStandards"),
                destination_chain: match args.get("destinationChainId") {
                    Some(v) => Some(chain_id(&args, v)?),
                    None => None,
                },
            })
        }
        "swap" => ActionKind::Swap {
            token_in: args.address("tokenIn")?,
            token_out: args.address("tokenOut")?,
            amount_in: args.amount("amountIn")?,
            primary: args.address("primaryAddress")?,
            receiver: args.opt_address("receiver")?,
            slippage_bps: args.bps("slippage", 10_000)?,
        },
        // Several coins named at once: a multi-token deposit (a tokenized
        // Curve pool's `add_liquidity`, a Uniswap V2 pair's
        // `addLiquidity`), as Enso's `deposit` takes them.
        "deposit" if args.many("tokenIn") => multi_deposit(&args)?,
        "redeem" if args.many("tokenOut") => multi_redeem(&args)?,
        "deposit" | "singledeposit" | "tokenizedsingledeposit" => ActionKind::Deposit {
            token_in: args.one_address("tokenIn")?,
            token_out: args.opt_one_address("tokenOut")?,
            amount_in: args.one_amount("amountIn")?,
            primary: args.address("primaryAddress")?,
            receiver: args.opt_address("receiver")?,
        },
        "redeem" | "singleredeem" | "tokenizedsingleredeem" => ActionKind::Redeem {
            token_in: args.opt_address("tokenIn")?,
            token_out: args.one_address("tokenOut")?,
            amount_in: args.amount("amountIn")?,
            primary: args.address("primaryAddress")?,
            receiver: args.opt_address("receiver")?,
        },
        "depositclmm" if builds(&protocol, &action) => deposit_clmm(&args)?,
        "redeemclmm" if builds(&protocol, &action) => ActionKind::RedeemClmm {
            manager: args.address("tokenIn")?,
            token_id: args.wei("tokenId")?,
            liquidity: args.amount("liquidity")?,
            tokens_out: args.addresses("tokenOut")?,
            receiver: args.opt_address("receiver")?,
        },
        "flashloan" | "singletokenflashloan" if builds(&protocol, &action) => {
            flashloan(&args, instance)?
        }
        "multideposit" | "tokenizedmultideposit" if builds(&protocol, &action) => {
            multi_deposit(&args)?
        }
        "multiredeem" | "tokenizedmultiredeem" if builds(&protocol, &action) => {
            multi_redeem(&args)?
        }
        "withdraw" | "singlewithdraw" => ActionKind::Withdraw {
            token_out: args.one_address("tokenOut")?,
            amount_out: args.one_amount("amountOut")?,
            primary: args.address("primaryAddress")?,
            receiver: args.opt_address("receiver")?,
        },
        "borrow" => ActionKind::Borrow {
            token_out: args.address("tokenOut")?,
            amount_out: args.amount("amountOut")?,
            primary: args.address("primaryAddress")?,
            receiver: args.opt_address("receiver")?,
            collateral: match args.get("collateral") {
                Some(_) => args.addresses("collateral")?,
                None => Vec::new(),
            },
        },
        "repay" => ActionKind::Repay {
            token_in: args.address("tokenIn")?,
            amount_in: args.amount("amountIn")?,
            primary: args.address("primaryAddress")?,
        },
        "harvest" => ActionKind::Harvest {
            token: args.address("token")?,
            primary: args.address("primaryAddress")?,
        },
        "approve" => ActionKind::Approve {
            token: args.address("token")?,
            spender: args.address("spender")?,
            amount: args.amount("amount")?,
        },
        "transfer" => ActionKind::Transfer {
            token: args.address("token")?,
            amount: args.amount("amount")?,
            receiver: args.address("receiver")?,
        },
        "permittransferfrom" => ActionKind::PermitTransferFrom {
            permitted: literal_amounts(&args, ("token", "amount"), "the owner signed it")?,
            sender: args.address("sender")?,
            receiver: args.address("receiver")?,
            nonce: args.wei("nonce")?,
            deadline: args.wei("deadline")?,
            signature: args.hex_bytes("signature")?,
        },
        "transferfrom" => ActionKind::TransferFrom {
            token: args.address("token")?,
            sender: args.address("sender")?,
            receiver: args.address("receiver")?,
            amount: args.amount("amount")?,
        },
        "split" => ActionKind::Split {
            token_in: args.address("tokenIn")?,
            tokens_out: args.addresses("tokenOut")?,
            amount_in: args.amount("amountIn")?,
            receiver: args.opt_address("receiver")?,
        },
        "merge" => ActionKind::Merge {
            tokens_in: args.addresses("tokenIn")?,
            token_out: args.address("tokenOut")?,
            amounts_in: args.amounts("amountIn")?,
            receiver: args.opt_address("receiver")?,
        },
        "balance" => ActionKind::Balance {
            token: args.address("token")?,
            account: args.opt_address("account")?,
            estimate: args.opt_wei("estimate")?,
        },
        "minamountout" => ActionKind::MinAmountOut {
            amount_out: args.amount("amountOut")?,
            min_amount_out: args.amount("minAmountOut")?,
        },
        "slippage" => ActionKind::Slippage {
            bps: args.bps("bps", 10_000)?.ok_or_else(|| ApiError::missing(args.path("bps")))?,
            amount_out: args.amount("amountOut")?,
        },
        "fee" => fee_action(&args, || args.address("receiver"))?,
        // The operator's own fee: a `fee` paid to this instance's receiver.
        "ensofee" => {
            let receiver = instance.operator_fee_receiver.ok_or_else(|| {
                ApiError::bundle_unprocessable(
                    format!("{at}.action"),
                    "ensofee pays this instance's operator fee receiver, and none is configured (operator_fee_receiver)",
                )
            })?;
            fee_action(&args, || Ok(receiver))?
        }
        // The gas of the user operation the operator's backend submits
        // (its fees are zero), paid back in a token to the operator.
        "paymasterfee" => {
            let token = args.address("token")?;
            let amount = args.amount("amount")?;
            if !instance.backend {
                return Err(ApiError::bundle_unprocessable(
                    format!("{at}.action"),
                    "paymasterfee pays back the gas of a user operation this instance's backend submits: routingStrategy=ensowallet-v2 with executionMode=backend",
                ));
            }
            let receiver = instance.operator_fee_receiver.ok_or_else(|| {
                ApiError::bundle_unprocessable(
                    format!("{at}.action"),
                    "paymasterfee pays this instance's operator fee receiver, and none is configured (operator_fee_receiver)",
                )
            })?;
            // All of `amount` as a fee: paid, answered in `feeAmount`, not
            // an output.
            ActionKind::Fee { token, amount, bps: 10_000, receiver }
        }
        "call" => {
            let list = match args.required("args")? {
                V::Array(items) => items
                    .iter()
                    .enumerate()
                    .map(|(k, v)| call_arg(format!("{}[{k}]", args.path("args")), v, index))
                    .collect::<Result<Vec<_>, _>>()?,
                _ => return Err(ApiError::invalid(args.path("args"), "args must be an array")),
            };
            let text = |name: &str| {
                args.required(name)?.as_str().map(str::to_owned).ok_or_else(|| {
                    ApiError::invalid(
                        args.path(name),
                        format!("{} must be a string", args.path(name)),
                    )
                })
            };
            ActionKind::Call {
                address: args.address("address")?,
                method: text("method")?,
                abi: text("abi")?,
                args: list,
                value: args.opt_amount("value")?,
            }
        }
        "bridge" => {
            // The destination's native coin, fixed before the bundle runs:
            // the message's options buy it on this chain.
            let callback_value = match args.opt_amount("callbackValue")? {
                None => U256::ZERO,
                Some(Amount::Value(v)) => v,
                Some(Amount::Output { .. }) => {
                    return Err(ApiError::invalid(
                        args.path("callbackValue"),
                        format!(
                            "{} must be a literal integer: the message's options carry it from this chain",
                            args.path("callbackValue")
                        ),
                    ));
                }
            };
            let chain = chain_id(&args, args.required("destinationChainId")?)?;
            let callback = match args.get("callback") {
                Some(list) => parse_actions(list, &args.path("callback"), instance)?,
                None => Vec::new(),
            };
            ActionKind::Bridge {
                token_in: args.address("tokenIn")?,
                amount_in: args.amount("amountIn")?,
                primary: args.address("primaryAddress")?,
                destination_chain: chain,
                receiver: args.address("receiver")?,
                callback,
                callback_value,
            }
        }
        "not" => ActionKind::Not(args.condition("condition")?),
        "check" => ActionKind::Check(args.condition("condition")?),
        "toggle" => ActionKind::Toggle {
            condition: args.condition("condition")?,
            a: args.amount("amountA")?,
            b: args.amount("amountB")?,
        },
        other => match BinaryOp::parse(other) {
            Some(op) => {
                ActionKind::Binary { op, a: args.amount("amountA")?, b: args.amount("amountB")? }
            }
            None => {
                return Err(ApiError::not_implemented_field(
                    format!("{at}.action"),
                    format!(
                        "action `{other}` of protocol `{protocol}` is not built by this version"
                    ),
                ));
            }
        },
    };
    Ok(Action { protocol, kind })
}

#[cfg(test)]
mod tests {
    use alloy_primitives::U256;

    use super::*;

    fn parse(json: &str) -> Result<Vec<Action>, ApiError> {
        let mut buf = json.as_bytes().to_vec();
        let v = simd_json::to_borrowed_value(&mut buf).expect("json");
        parse_actions(&v, "body", Instance::default())
    }

    #[test]
    fn references_and_amounts_parse() {
        let a = parse(
            r#"[{"protocol":"enso","action":"balance","args":{"token":"0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48","estimate":"5"}},
                {"protocol":"enso","action":"route","args":{"tokenIn":"0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48","tokenOut":"0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2","amountIn":{"useOutputOfCallAt":0},"slippage":"30"}}]"#,
        )
        .expect("parses");
        match &a[1].kind {
            ActionKind::Route(r) => {
                assert_eq!(r.amount_in, Amount::Output { action: 0, index: 0 });
                assert_eq!(r.slippage_bps, Some(30));
            }
            other => panic!("{other:?}"),
        }
    }

    /// `ensofee` is a `fee` to the instance's operator fee receiver, and
    /// refused (422, naming the action) where none is configured.
    #[test]
    fn ensofee_pays_the_instances_receiver() {
        let body = r#"[{"protocol":"enso","action":"ensofee","args":{"token":"0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48","amount":"1000","bps":"30"}}]"#;
        let operator = Address::repeat_byte(0xfe);
        let mut buf = body.as_bytes().to_vec();
        let v = simd_json::to_borrowed_value(&mut buf).expect("json");
        let instance = Instance { operator_fee_receiver: Some(operator), backend: false };
        let a = parse_actions(&v, "body", instance).expect("parses");
        match &a[0].kind {
            ActionKind::Fee { receiver, bps, .. } => assert_eq!((*receiver, *bps), (operator, 30)),
            other => panic!("{other:?}"),
        }
        let e = parse(body).expect_err("no receiver configured");
        assert_eq!(e.status(), axum::http::StatusCode::UNPROCESSABLE_ENTITY);
        assert_eq!(e.field.as_deref(), Some("body[0].action"));
    }

    /// `paymasterfee` pays the operator back for the gas of a transaction
    /// its backend submits: a transfer to the operator's fee receiver, only
    /// with `executionMode=backend` and a receiver configured.
    #[test]
    fn a_paymaster_fee_pays_the_operators_backend() {
        let body = r#"[{"protocol":"enso","action":"paymasterfee","args":{"token":"0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48","amount":"25000"}}]"#;
        let operator = Address::repeat_byte(0xfe);
        let run = |instance: Instance| {
            let mut buf = body.as_bytes().to_vec();
            let v = simd_json::to_borrowed_value(&mut buf).expect("json");
            parse_actions(&v, "body", instance)
        };
        let a =
            run(Instance { operator_fee_receiver: Some(operator), backend: true }).expect("parses");
        match &a[0].kind {
            ActionKind::Fee { token, amount, bps, receiver } => {
                assert_eq!((*receiver, *bps), (operator, 10_000));
                assert_eq!(
                    *token,
                    "0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48"
                        .parse::<Address>()
                        .expect("address")
                );
                assert_eq!(*amount, crate::api::bundle::Amount::Value(U256::from(25_000u64)));
            }
            other => panic!("{other:?}"),
        }
        for instance in [
            Instance { operator_fee_receiver: Some(operator), backend: false },
            Instance { operator_fee_receiver: None, backend: true },
        ] {
            let e = run(instance).expect_err("refused");
            assert_eq!(e.status(), axum::http::StatusCode::UNPROCESSABLE_ENTITY);
            assert_eq!(e.field.as_deref(), Some("body[0].action"));
        }
    }

    #[test]
    fn errors_name_the_field() {
        let e = parse(
            r#"[{"protocol":"enso","action":"transfer","args":{"token":"0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48","amount":"1.5","receiver":"0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48"}}]"#,
        )
        .err();
        assert_eq!(e.and_then(|e| e.field).as_deref(), Some("body[0].args.amount"));
        let e = parse(r#"[{"protocol":"enso","action":"balance","args":{}}]"#).err();
        assert_eq!(e.and_then(|e| e.field).as_deref(), Some("body[0].args.token"));
    }

    #[test]
    fn amounts_may_be_integers() {
        let a = parse(r#"[{"protocol":"math","action":"add","args":{"amountA":5,"amountB":"7"}}]"#)
            .expect("parses");
        assert_eq!(
            a[0].kind,
            ActionKind::Binary {
                op: BinaryOp::Add,
                a: Amount::Value(U256::from(5u8)),
                b: Amount::Value(U256::from(7u8))
            }
        );
    }

    #[test]
    fn bridges_carry_their_callback_with_its_own_indexes() {
        let a = parse(
            r#"[{"protocol":"stargate","action":"bridge","args":{"primaryAddress":"0x77b2043768d28e9c9ab44e1abfc95944bce57931","destinationChainId":8453,"tokenIn":"0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee","amountIn":"1000","receiver":"0xd8da6bf26964af9d7eed9e03e53415d37aa96045",
                "callback":[{"protocol":"enso","action":"balance","args":{"token":"0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee"}},
                            {"protocol":"enso","action":"slippage","args":{"amountOut":{"useOutputOfCallAt":0},"bps":50}}]}}]"#,
        )
        .expect("parses");
        let ActionKind::Bridge { destination_chain, callback, .. } = &a[0].kind else {
            panic!("{:?}", a[0].kind)
        };
        assert_eq!(destination_chain.0, 8453);
        assert_eq!(
            callback[1].kind,
            ActionKind::Slippage { bps: 50, amount_out: Amount::Output { action: 0, index: 0 } }
        );
        let e = parse(
            r#"[{"protocol":"cctp","action":"bridge","args":{"primaryAddress":"0x28b5a0e9c621a5badaa536219b3a228c8168cf5d","destinationChainId":"base","tokenIn":"0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48","amountIn":"1","receiver":"0xd8da6bf26964af9d7eed9e03e53415d37aa96045"}}]"#,
        )
        .err();
        assert_eq!(e.and_then(|e| e.field).as_deref(), Some("body[0].args.destinationChainId"));
    }
}
