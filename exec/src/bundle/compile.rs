//! Compiling a bundle: one pass over the actions, each writing its calls
//! and the slots of its outputs; the kernel plans route-like actions on the
//! snapshot as the earlier actions leave it; then the prologue (inputs
//! pulled, balances read) and the epilogue (what a shared executor holds
//! swept to the receiver), the strategy's transaction, and its execution.
//!
//! Every output carries the value the compiler predicts for it and whether
//! that prediction is exact (kernel math on exact inputs) or only an
//! estimate (a balance the caller estimated, the return of an arbitrary
//! `call`). Exact predictions are checked against the executed program's
//! final state: a difference is a bug, and the bundle is not returned.

use std::{
    collections::{BTreeMap, BTreeSet},
    sync::Arc,
};

use alloy_primitives::{Address, U256};
use alloy_sol_types::SolCall;
use switchyard_catalog::{
    ApiCode, ChainId, Deployment, DeploymentRole, NATIVE_TOKEN, market::LendingModel,
};
use switchyard_kernel::{
    BridgeRoute, KernelError, MarketSnapshot, Plan, Pool, PoolState, RouteRequest as KernelRoute,
    SnapshotDelta, apply_plan, find_routes, plan_through,
};

use super::{
    Action, ActionKind, Amount, BinaryOp, BundleError, BundleRequest, Condition, RouteArgs,
    Templates, call,
};
use crate::{
    ExecError, MarketState,
    encode::{
        self, Approval, Runner, TokenAmount, Tx,
        helpers::{Helpers, Op, bps_of, check, helper, require_at_least, require_zero},
        protocols::{IERC20, IUniswapV2Router},
        route::{StepCtx, encode_leg},
        tx::{TxSpec, final_state},
        weiroll::{CallKind, In, Out, ProgramBuilder, WeirollError},
    },
    evm::{
        abi::ShortcutsExecutor,
        world::{ChainWorld, PERMIT2, PositionFixture},
    },
    quote::{QuoteRequest, search_params},
    route::{ROUTE_VALIDITY_SECS, runner},
    simulate::{SimError, SimSetup, prepare, run_prepared},
};

/// Default slippage of a route action without one, bps.
pub(super) const DEFAULT_ROUTE_SLIPPAGE_BPS: u32 = 50;

/// One output of an action.
#[derive(Debug, Clone)]
struct Output {
    /// Its slot.
    slot: In,
    /// The value the compiler expects.
    predicted: Option<U256>,
    /// Whether `predicted` is exact (a difference would be a bug).
    exact: bool,
    /// The token it is an amount of, when it is one.
    token: Option<Address>,
}

/// Permit2's signature transfer (its public ABI).
mod permit2 {
    #![allow(missing_docs)]
    alloy_sol_types::sol! {
        interface IPermit2 {
            struct TokenPermissions { address token; uint256 amount; }
            struct PermitTransferFrom { TokenPermissions permitted; uint256 nonce; uint256 deadline; }
            struct SignatureTransferDetails { address to; uint256 requestedAmount; }
            function permitTransferFrom(PermitTransferFrom permit, SignatureTransferDetails transferDetails, address owner, bytes signature) external;
        }
        interface IPermit2Batch {
            struct TokenPermissions { address token; uint256 amount; }
            struct PermitBatchTransferFrom { TokenPermissions[] permitted; uint256 nonce; uint256 deadline; }
            struct SignatureTransferDetails { address to; uint256 requestedAmount; }
            function permitTransferFrom(PermitBatchTransferFrom permit, SignatureTransferDetails[] transferDetails, address owner, bytes signature) external;
        }
    }
}

use crate::evm::abi::UniswapV3PositionManager as Npm;

/// Enso's flash-loan adapter (its public ABI): the entry point.
mod flashloans {
    #![allow(missing_docs)]
    alloy_sol_types::sol! {
        interface IEnsoFlashloanAdapter {
            function executeFlashloan(uint8 protocol, bytes protocolFlashloanData, bytes32 accountId, bytes32 requestId, bytes32[] commands, bytes[] state) external;
        }
    }
}

/// The lender of a flash loan, as Enso's adapter is told of it.
struct Lender {
    /// The adapter's number for its protocol.
    protocol: u8,
    /// The contract that lends (Aave's pool, a Uniswap V3 pool).
    address: Address,
    /// `protocolFlashloanData`.
    data: Vec<u8>,
    /// Each token lent.
    loans: Vec<Loan>,
    /// How the fee is charged, for a client whose loan is not paid back.
    fee_terms: String,
    /// The lender, for a client asking more than it holds.
    name: String,
}

/// The one token and amount of a lender that lends one per loan; more is
/// refused naming `flashloanToken`, saying `why`.
fn one_loan(loans: &[(Address, U256)], at: &str, why: &str) -> Result<(Address, U256), ExecError> {
    match loans {
        [(token, amount)] => Ok((*token, *amount)),
        _ => Err(BundleError::unroutable(format!("{at}.flashloanToken"), why).into()),
    }
}

/// One token of a flash loan.
struct Loan {
    token: Address,
    amount: U256,
    /// What the loan of it costs on top, paid back with it.
    fee: U256,
    /// What the lender can lend of it now.
    available: U256,
}

/// A stake into or out of a Curve gauge.
#[derive(Debug, Clone, Copy)]
struct GaugeAction<'a> {
    gauge: Address,
    token_in: Option<Address>,
    token_out: Option<Address>,
    amount: &'a Amount,
    receiver: Option<Address>,
    deposit: bool,
}

/// The public lending-pool calls a bundle makes (Aave V3 pool, Compound
/// cToken, Curve gauge).
mod lending {
    #![allow(missing_docs)]
    alloy_sol_types::sol! {
        interface IAaveBorrow {
            function borrow(address asset, uint256 amount, uint256 interestRateMode, uint16 referralCode, address onBehalfOf) external;
            function repay(address asset, uint256 amount, uint256 interestRateMode, address onBehalfOf) external returns (uint256);
        }
        interface ICompoundBorrow {
            function borrow(uint256 borrowAmount) external returns (uint256);
            function repayBorrow(uint256 repayAmount) external returns (uint256);
        }
        interface ICurveGauge {
            function claim_rewards(address _addr) external;
            function deposit(uint256 _value, address _addr) external;
            function withdraw(uint256 _value) external;
        }
    }
}

/// Refuses a list of token amounts that is empty or names a token twice,
/// at `field`: "`what` one or more tokens, each once".
fn each_once(list: &[(Address, U256)], field: String, what: &str) -> Result<(), BundleError> {
    let distinct: BTreeSet<Address> = list.iter().map(|(t, _)| *t).collect();
    if list.is_empty() || distinct.len() != list.len() {
        return Err(BundleError::invalid(field, format!("{what} one or more tokens, each once")));
    }
    Ok(())
}

/// The field of item `k` of an `Address | Address[]` argument `name`:
/// `at.name` when it names one, `at.name[k]` when several.
fn item_field(at: &str, name: &str, len: usize, k: usize) -> String {
    if len == 1 { format!("{at}.{name}") } else { format!("{at}.{name}[{k}]") }
}

/// A Compound III borrow or repayment: refused, the world's markets hold
/// no collateral assets and no borrowers.
fn comet_debt(at: &str) -> ExecError {
    BundleError::unroutable(
        format!("{at}.primaryAddress"),
        "Compound III borrows against collateral assets, which this server's Compound III markets do not hold: only the base asset is supplied and withdrawn here",
    )
    .into()
}

fn weiroll(at: &str) -> impl Fn(WeirollError) -> BundleError + '_ {
    move |e| BundleError::invalid(at, e.to_string())
}

fn encode_err(at: &str) -> impl Fn(encode::EncodeError) -> BundleError + '_ {
    move |e| BundleError::invalid(at, e.to_string())
}

struct Compiler<'a> {
    state: &'a MarketState,
    templates: &'a Templates,
    world: &'a ChainWorld,
    req: &'a BundleRequest,
    chain: ChainId,
    runner: Runner,
    account: Address,
    /// Whose inputs the program uses (the spender of a delegate bundle).
    owner: Address,
    b: ProgramBuilder,
    account_in: In,
    snapshot: Arc<MarketSnapshot>,
    outputs: Vec<Vec<Output>>,
    /// Inputs the bundle takes from outside, by token.
    external: BTreeMap<Address, U256>,
    /// Tokens produced inside the bundle, in order.
    produced: Vec<Address>,
    /// Coins a Uniswap V2 zap may leave a few units of (swept back to the
    /// refund receiver from a shared executor).
    dust: BTreeSet<Address>,
    plans: Vec<Plan>,
    /// Exact predictions to hold the execution to: `(where, slot, value)`.
    checks: Vec<(String, In, U256)>,
    mins: BTreeMap<Address, U256>,
    fees: BTreeMap<Address, U256>,
    /// Receivers named by actions (their gains count in `amountsOut`).
    receivers: BTreeSet<Address>,
    /// What to tell a client whose bundle reverts in a call to this
    /// target (a flash loan not paid back).
    hints: Vec<(Address, String)>,
    /// ERC-721 position tokens minted straight to a receiver: watched for
    /// `amountsOut`, never swept (an ERC-721 has no `transfer`).
    positions: BTreeSet<Address>,
    /// `transferfrom` owners and what they must approve.
    pulled: Vec<Approval>,
    /// Pools lending the flash loan whose program is being compiled: they
    /// are locked until paid, so no route goes through them.
    locked: BTreeSet<Address>,
    /// The bridge crossings, in program order.
    crossings: Vec<Crossing>,
    /// Position tokens (manager, id) the entry point takes in.
    nfts_in: Vec<(Address, U256)>,
    /// Users' positions the bundle redeems, as the chain holds them.
    held: Vec<crate::evm::clmm::HeldPosition>,
    /// The sender's ERC-4337 account as its chain holds it, if deployed.
    held_accounts: Vec<crate::account::HeldAccount>,
    /// First command word of each action, for naming a failed command.
    marks: Vec<usize>,
    /// The request id of the event.
    request_id: alloy_primitives::B256,
    /// JSON path of this action list.
    base: String,
}

impl<'a> Compiler<'a> {
    #[allow(clippy::too_many_arguments, reason = "the compiler's whole context, once")]
    fn new(
        state: &'a MarketState,
        templates: &'a Templates,
        world: &'a ChainWorld,
        req: &'a BundleRequest,
        runner: Runner,
        owner: Address,
        request_id: alloy_primitives::B256,
        base: String,
    ) -> Result<Self, BundleError> {
        let account = runner.account();
        let mut b = ProgramBuilder::with_helpers(Helpers::of(&state.catalog, req.chain));
        let account_in = b.address(account).map_err(weiroll(&base))?;
        Ok(Compiler {
            state,
            templates,
            world,
            req,
            chain: req.chain,
            runner,
            account,
            owner,
            b,
            account_in,
            snapshot: Arc::clone(&state.snapshot),
            outputs: Vec::with_capacity(req.actions.len()),
            external: req.arriving.iter().copied().collect(),
            produced: Vec::new(),
            dust: BTreeSet::new(),
            plans: Vec::new(),
            checks: Vec::new(),
            mins: BTreeMap::new(),
            fees: BTreeMap::new(),
            receivers: BTreeSet::new(),
            positions: BTreeSet::new(),
            hints: Vec::new(),
            pulled: Vec::new(),
            locked: BTreeSet::new(),
            crossings: Vec::new(),
            nfts_in: Vec::new(),
            held: Vec::new(),
            held_accounts: Vec::new(),
            marks: Vec::with_capacity(req.actions.len()),
            request_id,
            base,
        })
    }

    /// A `call` action's target and function as the program guard will
    /// see them: a contract listed on the chain, with that function in its
    /// deployed ABI, and never the program's own account.
    fn deployed_function(
        &self,
        target: Address,
        selector: [u8; 4],
        at: &str,
    ) -> Result<(), BundleError> {
        let field = format!("{at}.args.address");
        if target == self.account {
            return Err(BundleError::invalid(field, "the program cannot call its own account"));
        }
        if !self.world.is_listed(target) {
            return Err(BundleError::unroutable(
                field,
                format!("{target} is not a contract listed as deployed on chain {}", self.chain),
            ));
        }
        match self.world.contract_at(target) {
            Some((_, functions)) if functions.contains(&selector) => Ok(()),
            _ => Err(BundleError::unroutable(
                format!("{at}.args.method"),
                format!(
                    "{target} has no function with selector 0x{}",
                    alloy_primitives::hex::encode(selector)
                ),
            )),
        }
    }

    /// Compiles every action in order.
    fn run(&mut self) -> Result<(), ExecError> {
        for (i, a) in self.req.actions.iter().enumerate() {
            self.marks.push(self.b.words());
            let outs = self.action(i, a)?;
            self.outputs.push(outs);
        }
        Ok(())
    }

    /// The program's final state from the transaction's return data.
    fn final_state(&self, output: &[u8]) -> Option<Vec<alloy_primitives::Bytes>> {
        final_state(self.runner, output)
    }

    /// What is executed to read the program's final state: the
    /// transaction, or for an ERC-4337 account its owner's direct
    /// `executeShortcut` (the account is deployed first by the setup).
    fn runnable(&self, tx: &Tx) -> Tx {
        match self.runner {
            Runner::Account { .. } => {
                crate::account::direct(tx, self.req.from).unwrap_or_else(|| tx.clone())
            }
            _ => tx.clone(),
        }
    }

    /// The bridge route of a bridge action: its contract (a Stargate pool
    /// for Stargate) on this chain, carrying `token_in` to `to`.
    fn bridge_route(
        &self,
        primary: Address,
        token_in: Address,
        to: ChainId,
        at: &str,
    ) -> Result<(usize, BridgeRoute), BundleError> {
        let stargate_pool = self
            .state
            .catalog
            .layerzero_pools()
            .iter()
            .find(|p| p.chain_id == self.chain && p.token == token_in)
            .map(|p| p.pool);
        self.state
            .snapshot
            .bridges()
            .iter()
            .enumerate()
            .find(|(_, r)| {
                r.from_chain == self.chain
                    && r.to_chain == to
                    && r.token_in == token_in
                    && (r.contract == primary
                        || (&*r.name == "stargate" && stargate_pool == Some(primary)))
            })
            .map(|(k, r)| (k, r.clone()))
            .ok_or_else(|| {
                BundleError::invalid(
                    format!("{at}.primaryAddress"),
                    format!(
                        "no bridge at {primary:#x} carries {token_in:#x} from chain {} to chain {to}",
                        self.chain
                    ),
                )
            })
    }

    /// A `bridge` action. Through CCTP (a standard transfer to the
    /// receiver): the token approved to the chain's `TokenMessengerV2` and
    /// burned by `depositForBurn` for the destination's domain, no fee, no
    /// hook; after the bundle runs, the message is attested and received on
    /// the destination chain's world ([`crate::bridge`]). Refused with the
    /// reason: a callback (Enso deploys no CCTP receiver that runs one), and
    /// the other bridges (no deployed receiver of theirs is modelled).
    fn bridge(&mut self, kind: &ActionKind, at: &str) -> Result<Vec<Output>, ExecError> {
        let ActionKind::Bridge {
            token_in,
            amount_in,
            primary,
            destination_chain,
            receiver,
            callback,
            callback_value,
        } = kind
        else {
            return Err(BundleError::invalid(at, "not a bridge").into());
        };
        let to = *destination_chain;
        // A bridge the snapshot does not carry is the request's mistake.
        let (k, route) = self.bridge_route(*primary, *token_in, to, at)?;
        let unavailable = |field: &str, message: String| -> ExecError {
            BundleError { code: ApiCode::BridgeUnavailable, at: format!("{at}.{field}"), message }
                .into()
        };
        if let Some((_, lz)) = crate::evm::layerzero::setup(&self.state.catalog)
            .filter(|(b, _)| *b.name == *route.name)
        {
            return self.stargate_bridge(
                (k, &route),
                lz,
                (amount_in, *receiver),
                (callback, *callback_value),
                at,
            );
        }
        let cctp = crate::evm::cctp::setup(&self.state.catalog)
            .filter(|(b, _)| *b.name == *route.name)
            .map(|(_, s)| s);
        let world = self.state.world.as_ref().ok();
        let domain = cctp.and_then(|s| s.domain(to));
        let (Some(_), Some(domain)) = (cctp, domain) else {
            return Err(unavailable(
                "destinationChainId",
                format!(
                    "no deployed {} receiver on chain {to} is modelled to run the bridged side, \
                     so no bundle that bridges through it is built",
                    route.name
                ),
            ));
        };
        if world.and_then(|w| w.chain(to)).is_none() {
            return Err(unavailable(
                "destinationChainId",
                format!("chain {to} has no market state to receive the bridged {:#x} on", token_in),
            ));
        }
        if !callback_value.is_zero() {
            return Err(unavailable(
                "callbackValue",
                "Enso deploys no CCTP receiver, so nothing on the destination chain takes a \
                 callback's native value: bridge through Stargate for one"
                    .to_owned(),
            ));
        }
        if !callback.is_empty() {
            return Err(unavailable(
                "callback",
                "Enso deploys no CCTP receiver that runs a callback on the destination chain: \
                 bridge to the receiver without one, or through another bridge"
                    .to_owned(),
            ));
        }
        let field = format!("{at}.amountIn");
        let (x, predicted, _) = self.amount(amount_in, &field)?;
        self.consume(*token_in, amount_in, &field)?;
        encode::route::cctp_burn(&mut self.b, *primary, *token_in, x, (domain, *receiver))
            .map_err(encode_err(at))?;
        self.crossings.push(Crossing {
            route: k,
            predicted,
            at: at.to_owned(),
            taxi: false,
            callback: None,
        });
        // Nothing stays on this chain.
        Ok(Vec::new())
    }

    /// A `bridge` action through Stargate V2: a taxi of `amount_in` to the
    /// receiver through the token's pool (the published contracts), with
    /// LayerZero's fee in the native coin taken with the transaction; the
    /// pool holds the destination to what an exact amount delivers (the
    /// bundle's slippage off an amount known only after earlier actions).
    /// Of the native coin, the value is the amount and the fee. After the
    /// bundle runs, the taxi is verified, received and paid out on the
    /// destination chain's world (and its callback composed there).
    fn stargate_bridge(
        &mut self,
        (k, route): (usize, &BridgeRoute),
        lz: &switchyard_catalog::LayerZeroSetup,
        (amount_in, receiver): (&Amount, Address),
        (callback, callback_value): (&[Action], U256),
        at: &str,
    ) -> Result<Vec<Output>, ExecError> {
        let to = route.to_chain;
        let unavailable = |field: &str, message: String| -> ExecError {
            BundleError { code: ApiCode::BridgeUnavailable, at: format!("{at}.{field}"), message }
                .into()
        };
        let catalog = &self.state.catalog;
        let eid = crate::evm::layerzero::eid_of(catalog, to);
        let world = self.state.world.as_ref().ok();
        let (Some(eid), Some(fee), true) = (
            eid,
            lz.message_fee(self.chain),
            world.and_then(|w| w.chain(to)).is_some()
                && crate::evm::layerzero::pools_on(catalog, to).any(|p| p.token == route.token_out),
        ) else {
            return Err(unavailable(
                "destinationChainId",
                format!("Stargate's contracts on chain {to} are not in the world to receive on"),
            ));
        };
        // The native coin the callback runs with: the executor brings it to
        // the composer, and is paid for it here, beside the message.
        let drop_fee = match (callback, callback_value.is_zero()) {
            (_, true) => U256::ZERO,
            ([], false) => {
                return Err(BundleError::invalid(
                    format!("{at}.callbackValue"),
                    "callbackValue is the native coin a callback runs with: it needs a callback",
                )
                .into());
            }
            (_, false) => self.native_drop_fee(to, callback_value, at)?,
        };
        let field = format!("{at}.amountIn");
        let (x, predicted, exact) = self.amount(amount_in, &field)?;
        let arrival = match callback {
            [] => None,
            _ => Some(self.arrival(
                route,
                lz,
                (predicted, receiver),
                (callback, callback_value),
                at,
            )?),
        };
        self.consume(route.token_in, amount_in, &field)?;
        let fee = U256::from(fee).saturating_add(drop_fee);
        // The fee comes with the transaction even when earlier actions
        // produce the native coin (theirs is the amount's).
        let e = self.external.entry(NATIVE_TOKEN).or_default();
        *e = e.saturating_add(fee);
        // The least the destination may receive, in the source's decimals:
        // off a predicted amount, or, for an amount known only when the
        // bundle runs, off what is sent then.
        let min_ld = match predicted.and_then(|p| route.amount_out(p).ok()) {
            Some(out) => {
                let keep = if exact { 0 } else { BRIDGED_SLIPPAGE_BPS };
                let floor =
                    out * U256::from(10_000u32.saturating_sub(keep)) / U256::from(10_000u32);
                encode::route::MinAmountLd::Fixed(crate::evm::layerzero::min_amount_ld(
                    route, floor,
                ))
            }
            None => encode::route::MinAmountLd::off_sent(route, BRIDGED_SLIPPAGE_BPS),
        };
        let (to, extra_options, compose, callback) = match arrival {
            Some((composer, options, message, a)) => (composer, options, message, Some(a)),
            None => {
                (receiver, alloy_primitives::Bytes::new(), alloy_primitives::Bytes::new(), None)
            }
        };
        let taxi = encode::route::StargateTaxi {
            dst_eid: eid,
            to,
            min_amount_ld: min_ld,
            fee,
            refund: self.req.from,
            extra_options,
            compose,
        };
        encode::route::stargate_send(&mut self.b, route.contract, route.token_in, x, &taxi, false)
            .map_err(encode_err(at))?;
        self.crossings.push(Crossing {
            route: k,
            predicted,
            at: at.to_owned(),
            taxi: true,
            callback,
        });
        Ok(Vec::new())
    }

    /// What the source chain pays LayerZero's executor to bring `value` of
    /// chain `to`'s native coin to the composer: the value a quarter over,
    /// a ceiling like the message fee it joins (the endpoint refunds what
    /// the fee does not take). Only between chains of one native coin: the
    /// executor converts at a price feed's ratio, which no world holds.
    fn native_drop_fee(&self, to: ChainId, value: U256, at: &str) -> Result<U256, ExecError> {
        let field = format!("{at}.callbackValue");
        let catalog = &self.state.catalog;
        let coin = |chain| catalog.network(chain).map(|n| n.native_currency.symbol.as_str());
        if coin(self.chain).is_none() || coin(self.chain) != coin(to) {
            return Err(BundleError {
                code: ApiCode::BridgeUnavailable,
                at: field,
                message: format!(
                    "a callback's native value is paid for in this chain's native coin at the \
                     executor's price ratio, and chains {} and {to} have different native coins",
                    self.chain
                ),
            }
            .into());
        }
        if u128::try_from(value).is_err() {
            return Err(BundleError::invalid(
                field,
                "callbackValue is more than LayerZero's options carry (128 bits)",
            )
            .into());
        }
        Ok(value.saturating_add(value / U256::from(4u8)))
    }

    /// A Stargate bridge action's callback: a bundle of its own on the
    /// destination chain, run by the destination router's executor with
    /// what arrives (Enso's composer passes it to the router, and the
    /// callback's first action, a `balance` of the bridged token, reads
    /// it). It is compiled and proven on the destination's world as such a
    /// bundle (the bridged token the router takes in, as the composer's
    /// call does), and its outputs go to the bridge's receiver. Answers the
    /// composer, the taxi's executor options, its compose message, and
    /// what the callback delivers.
    #[allow(clippy::type_complexity)]
    fn arrival(
        &self,
        route: &BridgeRoute,
        lz: &switchyard_catalog::LayerZeroSetup,
        (predicted, receiver): (Option<U256>, Address),
        (callback, value): (&[Action], U256),
        at: &str,
    ) -> Result<(Address, alloy_primitives::Bytes, alloy_primitives::Bytes, Arrival), ExecError>
    {
        use alloy_sol_types::SolCall;
        let to = route.to_chain;
        let field = format!("{at}.callback");
        let starts_with_balance = matches!(
            callback.first().map(|a| &a.kind),
            Some(ActionKind::Balance { token, account: None, .. }) if *token == route.token_out
        );
        if !starts_with_balance {
            return Err(BundleError::invalid(
                format!("{field}[0]"),
                format!(
                    "a callback starts with a balance action of what arrives ({:#x} on chain {to})",
                    route.token_out
                ),
            )
            .into());
        }
        let Some(arrived) = predicted.and_then(|p| route.amount_out(p).ok()) else {
            return Err(BundleError::invalid(
                format!("{at}.amountIn"),
                "a callback needs the bridged amount predicted before the bundle runs",
            )
            .into());
        };
        let Some(composer) = lz.composer(to) else {
            return Err(BundleError {
                code: ApiCode::BridgeUnavailable,
                at: field,
                message: format!("Enso's composer is not deployed on chain {to}"),
            }
            .into());
        };
        let req = super::BundleRequest {
            receiver: Some(receiver),
            refund_receiver: Some(receiver),
            ignore_aggregators: self.req.ignore_aggregators.clone(),
            referral_code: self.req.referral_code.clone(),
            // As the composer passes them: one native input for a native
            // pool, else the token beside the value.
            arriving: match (route.token_out == NATIVE_TOKEN, value.is_zero()) {
                (true, _) => vec![(NATIVE_TOKEN, arrived.saturating_add(value))],
                (false, true) => vec![(route.token_out, arrived)],
                (false, false) => vec![(route.token_out, arrived), (NATIVE_TOKEN, value)],
            },
            ..super::BundleRequest::new(
                to,
                receiver,
                switchyard_catalog::RoutingStrategy::Router,
                self.req.account_id.clone(),
                callback.to_vec(),
            )
        };
        let proven = compile_and_prove(self.state, self.templates, &req).map_err(|e| match e {
            ExecError::Bundle(mut b) => {
                b.at = b.at.replacen("body", &field, 1);
                ExecError::Bundle(b)
            }
            other => other,
        })?;
        // The executor's call the router makes: what the composer passes.
        use crate::evm::abi::ShortcutsRouter::{routeMultiCall, routeSingleCall};
        let data = routeSingleCall::abi_decode(&proven.tx.data)
            .map(|c| c.data)
            .or_else(|_| routeMultiCall::abi_decode(&proven.tx.data).map(|c| c.data))
            .map_err(|_| {
                BundleError::invalid(&field, "a callback takes in exactly what arrives")
            })?;
        let drop = u128::try_from(value).unwrap_or(u128::MAX);
        let (message, options) = crate::route::compose_message(receiver, data, proven.gas, drop);
        let watch: Vec<(Address, Address)> =
            proven.amounts_out.keys().map(|t| (receiver, *t)).collect();
        let amounts = proven.amounts_out.values().copied().collect();
        let arrival = Arrival { watch, amounts, mins: proven.min_amounts_out, plans: proven.plans };
        Ok((composer, options, message.into(), arrival))
    }

    fn amount(&mut self, a: &Amount, at: &str) -> Result<(In, Option<U256>, bool), BundleError> {
        match a {
            Amount::Value(v) => Ok((self.b.uint(*v).map_err(weiroll(at))?, Some(*v), true)),
            Amount::Output { action, index } => {
                let o = self.output(*action, *index, at)?;
                Ok((o.slot, o.predicted, o.exact))
            }
        }
    }

    fn output(&self, action: usize, index: usize, at: &str) -> Result<Output, BundleError> {
        let outs = self.outputs.get(action).ok_or_else(|| {
            BundleError::invalid(
                at,
                format!("refers to action {action}, which is not an earlier action"),
            )
        })?;
        outs.get(index).cloned().ok_or_else(|| {
            BundleError::invalid(
                at,
                format!("action {action} has {} output(s); there is no output {index}", outs.len()),
            )
        })
    }

    /// The token an amount is of, when it is an output of a known token.
    fn token_of(&self, a: &Amount) -> Option<Address> {
        match a {
            Amount::Value(_) => None,
            Amount::Output { action, index } => {
                self.outputs.get(*action).and_then(|o| o.get(*index)).and_then(|o| o.token)
            }
        }
    }

    /// A minimum a check enforces on an output of `token`: the response's
    /// minimum of the token is the strictest one.
    fn record_min(&mut self, token: Option<Address>, min: Option<U256>) {
        if let (Some(t), Some(m)) = (token, min) {
            let e = self.mins.entry(t).or_default();
            *e = (*e).max(m);
        }
    }

    fn condition(&mut self, c: &Condition, at: &str) -> Result<In, BundleError> {
        match c {
            Condition::Value(v) => self.b.word(*v).map_err(weiroll(at)),
            Condition::Output { action, index } => Ok(self.output(*action, *index, at)?.slot),
        }
    }

    /// Records that `amount` of `token` is spent: a literal amount of a
    /// token the bundle has not produced comes from outside.
    fn consume(&mut self, token: Address, amount: &Amount, field: &str) -> Result<(), BundleError> {
        self.known_token(token, field)?;
        if let Amount::Value(v) = amount
            && !self.produced.contains(&token)
        {
            let e = self.external.entry(token).or_default();
            *e = e.saturating_add(*v);
        }
        Ok(())
    }

    /// Refuses a token neither the catalog nor the world knows on the chain.
    fn known_token(&self, token: Address, field: &str) -> Result<(), BundleError> {
        let known = token == NATIVE_TOKEN
            || self.state.catalog.token(self.chain, token).is_some()
            || self.world.token_impl(token).is_some();
        if known {
            return Ok(());
        }
        Err(BundleError::invalid(
            field,
            format!("token {token:#x} is not known on chain {}", self.chain),
        ))
    }

    fn produce(&mut self, token: Address) {
        if !self.produced.contains(&token) {
            self.produced.push(token);
        }
    }

    fn helper(&mut self, op: impl Into<Op>, args: &[In], at: &str) -> Result<In, BundleError> {
        helper(&mut self.b, op, args).map_err(encode_err(at))
    }

    fn require_at_least(&mut self, x: In, min: In, at: &str) -> Result<In, BundleError> {
        require_at_least(&mut self.b, x, min).map_err(encode_err(at))
    }

    fn bps_of(&mut self, x: In, bps: In, at: &str) -> Result<In, BundleError> {
        bps_of(&mut self.b, x, bps).map_err(encode_err(at))
    }

    fn send(
        &mut self,
        token: Address,
        to: Address,
        amount: In,
        at: &str,
    ) -> Result<(), BundleError> {
        encode::route::send(&mut self.b, token, to, encode::route::Amount::In(amount))
            .map_err(encode_err(at))
    }

    /// The value of a slot in a prefix of the program, executed: for an
    /// action whose input the compiler cannot predict.
    fn observe(&self, slot: &In, at: &str) -> Result<U256, ExecError> {
        let In::Fixed(s) = slot else {
            return Err(BundleError::invalid(at, "not a one-word value").into());
        };
        let Assembled { tx, setup, .. } = self.assemble(self.b.clone())?;
        let mut evm = self.world.fork();
        prepare(self.world, &mut evm, &setup).map_err(|e| setup_failed(e, &self.base))?;
        let out = run_prepared(&mut evm, &self.runnable(&tx), &[]).map_err(|e| {
            ExecError::Bundle(BundleError::unroutable(
                at,
                format!("the actions before this one do not execute: {e}"),
            ))
        })?;
        self.final_state(&out.output)
            .and_then(|st| st.get(s.index()).map(|w| U256::from_be_slice(w)))
            .ok_or_else(|| ExecError::SimulationFailed("no final state".into()))
    }

    /// The amount a route-like action plans for: its prediction, or what a
    /// prefix of the program gives.
    fn planned_amount(&self, x: &In, pred: Option<U256>, at: &str) -> Result<U256, ExecError> {
        match pred {
            Some(v) => Ok(v),
            None => match self.observe(x, at)? {
                v if v.is_zero() => Err(BundleError::unroutable(
                    at,
                    "is 0 when the actions before it run on this server's chain state (an account holds nothing there unless the bundle brings it): nothing to route",
                )
                .into()),
                v => Ok(v),
            },
        }
    }

    /// The kernel's best plan on the bundle's current snapshot, within
    /// `allowed` protocols when given.
    fn plan(
        &self,
        (token_in, token_out): (Address, Address),
        amount: U256,
        filters: &Filters<'_>,
        to: Option<ChainId>,
        at: &str,
    ) -> Result<Plan, BundleError> {
        let only = filters.only;
        let q = self.route_request((token_in, token_out), amount, filters, to);
        let mut params = search_params(self.state, &q);
        if !self.locked.is_empty() {
            let locked = self.snapshot.pools().iter().enumerate().filter_map(|(k, p)| {
                self.locked.contains(&p.address).then(|| u32::try_from(k).ok()).flatten()
            });
            params.excluded_pools.extend(locked);
        }
        if let Some(only) = only {
            for p in self.snapshot.pools().iter() {
                if !only.contains(&*p.protocol) {
                    params.excluded_protocols.insert(p.protocol.to_string());
                }
            }
        }
        let route = KernelRoute {
            chain: self.chain,
            destination_chain: to,
            inputs: vec![(token_in, amount)],
            outputs: vec![token_out],
        };
        crate::observe::timed_search("bundle", || find_routes(&self.snapshot, &route, &params))
            .map_err(|e| match e {
                KernelError::SameToken => {
                    BundleError::invalid(at, "tokenIn and tokenOut are the same token")
                }
                KernelError::NoRoute { .. } => BundleError::unroutable(
                    at,
                    format!("no route from {token_in:#x} to {token_out:#x} with enough liquidity"),
                ),
                other => BundleError::invalid(at, other.to_string()),
            })
    }

    /// The search request of a route action: what it buys is measured in
    /// the account, and a crossing goes only where the world proves both
    /// sides (CCTP, Stargate).
    fn route_request(
        &self,
        (token_in, token_out): (Address, Address),
        amount: U256,
        filters: &Filters<'_>,
        to: Option<ChainId>,
    ) -> QuoteRequest {
        let Filters { ignore_aggregators, ignore_standards, .. } = *filters;
        QuoteRequest {
            chain: self.chain,
            destination_chain: to,
            inputs: vec![(token_in, amount)],
            fee_bps: Vec::new(),
            inputs_transferred: false,
            outputs_transferred: false,
            outputs: vec![token_out],
            ignore_aggregators: [self.req.ignore_aggregators.as_slice(), ignore_aggregators]
                .concat(),
            ignore_standards: ignore_standards.to_vec(),
            ignore_bridges: to.map_or_else(Vec::new, |_| {
                crate::route::unproven_bridges(self.state, true).collect()
            }),
            operator_fee_bps: 0,
            amount_out: None,
        }
    }

    /// Encodes a plan's single leg from slot `x`, advances the snapshot and
    /// returns the output slot (the sum of a split's routes).
    fn emit_plan(&mut self, plan: Plan, x: In, at: &str) -> Result<In, ExecError> {
        let ctx = StepCtx {
            snapshot: &self.snapshot,
            book: &crate::route::Book(self.state),
            catalog: &self.state.catalog,
            account: self.account,
            account_in: self.account_in.clone(),
        };
        let leg = plan.legs.first().ok_or_else(|| BundleError::invalid(at, "empty plan"))?;
        let outs = encode_leg(&mut self.b, &ctx, leg, encode::route::LegInput::Slot(x))
            .map_err(encode_err(at))?;
        let mut total =
            outs.first().cloned().ok_or_else(|| BundleError::invalid(at, "empty leg"))?;
        for o in outs.into_iter().skip(1) {
            total = self.helper(BinaryOp::Add, &[total, o], at)?;
        }
        for st in plan.legs.iter().flat_map(|l| &l.routes).flat_map(|r| &r.steps) {
            let zap = self.snapshot.pools().get(st.pool).filter(|p| {
                matches!(p.state, PoolState::UniswapV2Lp(_))
                    && st.action != switchyard_kernel::StepAction::Bridge
            });
            self.dust.extend(zap.map_or(&[][..], |p| &p.tokens[..2]));
        }
        self.snapshot = Arc::new(apply_plan(&self.snapshot, &plan).map_err(ExecError::Route)?);
        self.plans.push(plan);
        Ok(total)
    }

    /// `requireAtLeast(out, min)` and the minimum recorded for the token.
    fn enforce_min(
        &mut self,
        token: Address,
        out: In,
        predicted: Option<U256>,
        slippage: Option<u32>,
        min: Option<&Amount>,
        at: &str,
    ) -> Result<(), BundleError> {
        let min_in = match (slippage, min) {
            (Some(_), _) | (None, None) => {
                let bps = slippage.unwrap_or(DEFAULT_ROUTE_SLIPPAGE_BPS).min(10_000);
                let Some(p) = predicted else { return Ok(()) };
                let m = crate::route::min_amounts(&[p], &[], bps, true)
                    .ok()
                    .and_then(|v| v.first().copied())
                    .unwrap_or_default();
                let e = self.mins.entry(token).or_default();
                *e = e.saturating_add(m);
                self.b.uint(m).map_err(weiroll(at))?
            }
            (None, Some(Amount::Value(m))) => {
                let e = self.mins.entry(token).or_default();
                *e = e.saturating_add(*m);
                self.b.uint(*m).map_err(weiroll(at))?
            }
            (None, Some(a)) => self.amount(a, at)?.0,
        };
        self.require_at_least(out, min_in, at)?;
        Ok(())
    }

    /// A route action (or one leg of a split or merge).
    fn route(
        &mut self,
        args: &RouteArgs,
        only: Option<&BTreeSet<String>>,
        at: &str,
    ) -> Result<Output, ExecError> {
        let amount_at = format!("{at}.amountIn");
        let (mut x, mut pred, exact) = self.amount(&args.amount_in, &amount_at)?;
        self.consume(args.token_in, &args.amount_in, &format!("{at}.tokenIn"))?;
        if let Some((bps, fee_to)) = args.fee {
            let bps_in = self.b.uint(U256::from(bps)).map_err(weiroll(at))?;
            let fee = self.bps_of(x.clone(), bps_in, at)?;
            self.send(args.token_in, fee_to, fee.clone(), at)?;
            x = self.helper(BinaryOp::Sub, &[x, fee], at)?;
            if let Some(p) = pred {
                let f = crate::quote::fee_of(p, bps);
                let e = self.fees.entry(args.token_in).or_default();
                *e = e.saturating_add(f);
                pred = Some(p - f);
            }
        }
        let amount = self.planned_amount(&x, pred, &amount_at)?;
        let filters = Filters {
            ignore_aggregators: &args.ignore_aggregators,
            ignore_standards: &args.ignore_standards,
            only,
        };
        let to = args.destination_chain.filter(|c| *c != self.chain);
        let plan = self.plan((args.token_in, args.token_out), amount, &filters, to, at)?;
        if plan.destination_chain != self.chain {
            let q = self.route_request((args.token_in, args.token_out), amount, &filters, to);
            return self.cross_chain_route(args, (&q, plan), (x, exact && pred.is_some()), at);
        }
        let predicted = plan.amounts_out.first().copied();
        let out = self.emit_plan(plan, x, at)?;
        // The plan is exact for `amount`; what reaches it is exact only if
        // the input was.
        let exact = exact && pred.is_some();
        self.hold_route_output(args, &out, predicted.filter(|_| exact), predicted, at)?;
        self.produce(args.token_out);
        if let Some(r) = args.receiver.filter(|r| *r != self.account) {
            self.send(args.token_out, r, out.clone(), at)?;
            self.receivers.insert(r);
        }
        Ok(Output { slot: out, predicted, exact, token: Some(args.token_out) })
    }

    /// A route action's output `out` held to the plan: to `exact` (the
    /// plan's amount, when the input was known) in the executed program,
    /// and to the action's minimum on chain.
    fn hold_route_output(
        &mut self,
        args: &RouteArgs,
        out: &In,
        exact: Option<U256>,
        predicted: Option<U256>,
        at: &str,
    ) -> Result<(), BundleError> {
        if let Some(p) = exact {
            self.checks.push((at.to_owned(), out.clone(), p));
        }
        self.enforce_min(
            args.token_out,
            out.clone(),
            predicted,
            args.slippage_bps,
            args.min_amount_out.as_ref(),
            at,
        )
    }

    /// A route action whose output arrives on another chain: the kernel's
    /// plan crosses once ([`crate::route::split_at_crossing`]; a plan
    /// that needs more on arrival than its bridge runs is searched again
    /// through one Stargate pool, as `/shortcuts/route` does). The source
    /// part runs here, its output is held to the minimum, and it is burned
    /// through CCTP or taxied through Stargate to the receiver (the
    /// action's, else the bundle's); what runs on arrival after a taxi is
    /// composed through Enso's composer there, holding the action's output
    /// to its minimum. Each message is followed to the destination after
    /// the bundle runs. No output stays on this chain for a later action.
    fn cross_chain_route(
        &mut self,
        args: &RouteArgs,
        (q, plan): (&QuoteRequest, Plan),
        (x, exact): (In, bool),
        at: &str,
    ) -> Result<Output, ExecError> {
        let unavailable = |e: ExecError| match e {
            ExecError::BridgeUnavailable { .. } => BundleError {
                code: ApiCode::BridgeUnavailable,
                at: format!("{at}.destinationChainId"),
                message: e.to_string(),
            }
            .into(),
            other => other,
        };
        let (plan, crossing) = match crate::route::split_at_crossing(self.state, &plan) {
            Ok(c) => (plan, c),
            Err(e @ ExecError::BridgeUnavailable { .. }) => {
                let left = plan.legs.first().map_or(U256::ZERO, |l| l.amount_in);
                // On the market as the earlier actions leave it.
                let now =
                    MarketState { snapshot: Arc::clone(&self.snapshot), ..self.state.clone() };
                let Some(pinned) = crate::route::pinned_plan(&now, q, left) else {
                    return Err(unavailable(e));
                };
                let c =
                    crate::route::split_at_crossing(self.state, &pinned).map_err(unavailable)?;
                (pinned, c)
            }
            Err(e) => return Err(unavailable(e)),
        };
        let predicted = plan.amounts_out.first().copied();
        let sent = crossing.source.amounts_out.first().copied();
        // USDC to USDC: nothing to run before the crossing.
        let out = if crossing.source.legs.iter().all(|l| l.routes.is_empty()) {
            x
        } else {
            self.emit_plan(crossing.source.clone(), x, at)?
        };
        // Paid to an address on the other chain: the action's receiver,
        // else the bundle's, else the sender (never an account of this
        // chain, such as a wallet, that may not exist there).
        let to = args.receiver.or(self.req.receiver).unwrap_or(self.req.from);
        let Some(fee) = crossing.message_fee else {
            self.hold_route_output(args, &out, predicted.filter(|_| exact), predicted, at)?;
            encode::route::cctp_burn(
                &mut self.b,
                crossing.messenger,
                crossing.token,
                out.clone(),
                (crossing.domain, to),
            )
            .map_err(encode_err(at))?;
            self.crossings.push(Crossing {
                route: crossing.route,
                predicted: exact.then_some(predicted).flatten(),
                at: at.to_owned(),
                taxi: false,
                callback: None,
            });
            return Ok(Output { slot: out, predicted: None, exact: false, token: None });
        };
        // A taxi: what is sent is held to the action's slippage here, and
        // the output to its minimum where it arrives.
        let bps = args.slippage_bps.unwrap_or(DEFAULT_ROUTE_SLIPPAGE_BPS).min(10_000);
        if let Some(s) = sent.filter(|_| exact) {
            self.checks.push((at.to_owned(), out.clone(), s));
        }
        self.enforce_min(crossing.token, out.clone(), sent, Some(bps), None, at)?;
        let min_out = match (&args.min_amount_out, predicted) {
            (Some(Amount::Value(m)), _) => *m,
            (_, Some(p)) => crate::route::min_amounts(&[p], &[], bps, true)
                .ok()
                .and_then(|v| v.first().copied())
                .unwrap_or_default(),
            (_, None) => U256::ZERO,
        };
        let composed = match &crossing.destination {
            Some(d) => Some(crate::route::compose(
                self.state,
                d,
                (to, &[min_out]),
                (encode::account_id(&self.req.account_id), self.request_id),
                None,
            )?),
            None => None,
        };
        let route = self.snapshot.bridges().get(crossing.route).cloned();
        let min_amount_ld =
            match (exact, &composed, route) {
                (true, Some(k), _) => encode::route::MinAmountLd::Fixed(
                    crate::route::stargate_min(self.state, &crossing, k.bridged_min),
                ),
                (true, None, _) => encode::route::MinAmountLd::Fixed(crate::route::stargate_min(
                    self.state, &crossing, min_out,
                )),
                (false, _, Some(r)) => encode::route::MinAmountLd::off_sent(&r, bps),
                (false, _, None) => encode::route::MinAmountLd::Fixed(U256::ZERO),
            };
        let e = self.external.entry(NATIVE_TOKEN).or_default();
        *e = e.saturating_add(fee);
        let taxi = encode::route::StargateTaxi {
            dst_eid: crossing.domain,
            to: composed.as_ref().map_or(to, |k| k.composer),
            min_amount_ld,
            fee,
            refund: self.req.from,
            extra_options: composed.as_ref().map(|k| k.options.clone()).unwrap_or_default(),
            compose: composed.as_ref().map(|k| k.message.clone()).unwrap_or_default(),
        };
        encode::route::stargate_send(
            &mut self.b,
            crossing.messenger,
            crossing.token,
            out.clone(),
            &taxi,
            false,
        )
        .map_err(encode_err(at))?;
        if composed.is_none() && !min_out.is_zero() {
            // Paid straight to the receiver: the pool holds it to this.
            let e = self.mins.entry(args.token_out).or_default();
            *e = e.saturating_add(min_out);
        }
        let callback = match (composed, &crossing.destination) {
            (Some(k), Some(d)) => Some(Arrival {
                watch: vec![(to, k.token_out)],
                amounts: d.amounts_out.clone(),
                mins: BTreeMap::from([(k.token_out, min_out)]),
                plans: vec![d.clone()],
            }),
            _ => None,
        };
        self.crossings.push(Crossing {
            route: crossing.route,
            predicted: exact.then_some(sent).flatten(),
            at: at.to_owned(),
            taxi: true,
            callback,
        });
        Ok(Output { slot: out, predicted: None, exact: false, token: None })
    }

    /// The pool of `protocol` (its standard's family) at `primary` that
    /// converts `token_in` into `token_out` (the receipt when `None`).
    fn pool_of(
        &self,
        protocol: &str,
        primary: Address,
        token_in: Option<Address>,
        token_out: Option<Address>,
        deposit: bool,
        at: &str,
    ) -> Result<(usize, Address, Address), BundleError> {
        let family = self.templates.family(protocol);
        // Enso names a Uniswap V2 position by its protocol's Router02, and
        // a Balancer one by the Vault; the pair or pool is then the token
        // the action mints or burns.
        let by_periphery = self.periphery_of_kind(protocol, primary);
        let pair = if deposit { token_out } else { token_in };
        for (k, p) in self.snapshot.pools().iter().enumerate() {
            let lp = p.lp_index();
            let named = p.address == primary
                || lp.is_some_and(|lp| {
                    p.tokens[lp] == primary
                        || by_periphery.is_some_and(|kind| kind(p)) && Some(p.tokens[lp]) == pair
                });
            if p.chain != self.chain || !family.contains(&*p.protocol) || !named {
                continue;
            }
            let (from, to) = if let Some(lp) = lp {
                // A tokenized Curve pool: one coin in for its LP token, or
                // the LP token out into one coin (named by the action).
                let coin = if deposit { token_in } else { token_out };
                let Some(coin) = coin.filter(|c| p.index_of(*c).is_some_and(|i| i < lp)) else {
                    return Err(BundleError::invalid(
                        format!("{at}.primaryAddress"),
                        format!(
                            "the {protocol} pool {:#x} {} one of its coins ({}), not {}",
                            p.address,
                            if deposit { "takes" } else { "pays" },
                            encode::route::curve_coin_list(p, lp),
                            coin.map_or_else(|| "none named".to_owned(), |c| format!("{c:#x}"))
                        ),
                    ));
                };
                if deposit { (coin, p.tokens[lp]) } else { (p.tokens[lp], coin) }
            } else {
                // A pool of two tradable tokens is swapped through, never
                // deposited into: its LP token is not one of its tokens.
                if matches!(
                    p.state,
                    PoolState::UniswapV2 { .. }
                        | PoolState::UniswapV3(_)
                        | PoolState::Stableswap(_)
                        | PoolState::Weighted(_)
                ) {
                    continue;
                }
                // Deposit: token 0 (asset) into token 1 (position); redeem back.
                let (Some(asset), Some(position)) = (p.tokens.first(), p.tokens.get(1)) else {
                    continue;
                };
                if deposit { (*asset, *position) } else { (*position, *asset) }
            };
            if token_in.is_some_and(|t| t != from) || token_out.is_some_and(|t| t != to) {
                continue;
            }
            self.has_fixture(k, primary, at)?;
            return Ok((k, from, to));
        }
        Err(BundleError::invalid(
            format!("{at}.primaryAddress"),
            format!(
                "no {protocol} {} at {primary:#x} on chain {} for these tokens",
                if deposit { "deposit" } else { "redeem" },
                self.chain
            ),
        ))
    }

    /// A deposit or redeem through one named pool.
    fn through_pool(&mut self, p: &PoolAction<'_>, at: &str) -> Result<Output, ExecError> {
        let PoolAction { protocol, primary, token_in, token_out, amount_in, receiver, deposit } =
            *p;
        let (k, from, to) = self.pool_of(protocol, primary, token_in, token_out, deposit, at)?;
        let amount_at = format!("{at}.amountIn");
        let (x, pred, exact) = self.amount(amount_in, &amount_at)?;
        self.consume(from, amount_in, &format!("{at}.tokenIn"))?;
        let amount = self.planned_amount(&x, pred, &amount_at)?;
        let plan = plan_through(&self.snapshot, k, from, to, amount).map_err(|_| {
            BundleError::unroutable(
                at,
                format!("{primary:#x} cannot take {amount} of {from:#x} now"),
            )
        })?;
        let predicted = plan.amounts_out.first().copied();
        let out = self.emit_plan(plan, x, at)?;
        let exact = exact && pred.is_some();
        if let (true, Some(p)) = (exact, predicted) {
            self.checks.push((at.to_owned(), out.clone(), p));
        }
        self.produce(to);
        if let Some(r) = receiver.filter(|r| *r != self.account) {
            self.send(to, r, out.clone(), at)?;
            self.receivers.insert(r);
        }
        Ok(Output { slot: out, predicted, exact, token: Some(to) })
    }

    /// Which kind of pool `primary` names by the contract through which its
    /// position is entered, the position then named by the action's token:
    /// a Uniswap V2 pair by the Router02 of `protocol`'s factory on this
    /// chain, a Balancer pool by the chain's Vault.
    fn periphery_of_kind(&self, protocol: &str, primary: Address) -> Option<fn(&Pool) -> bool> {
        if self.v2_router_of(protocol).is_ok_and(|r| r == primary) {
            return Some(|p| matches!(p.state, PoolState::UniswapV2Lp(_)));
        }
        self.state
            .catalog
            .deployment(self.chain, DeploymentRole::BalancerVault, None)
            .is_some_and(|d| d.address == primary)
            .then_some(|p| matches!(p.state, PoolState::Weighted(_)))
    }

    /// The Router02 of `protocol`'s Uniswap V2 factory on this chain.
    fn v2_router_of(&self, protocol: &str) -> Result<Address, encode::EncodeError> {
        let roles = [DeploymentRole::UniswapV2Router];
        encode::route::periphery_of(&self.state.catalog, self.chain, protocol, &roles)
            .map(|(_, a)| a)
    }

    /// The pool with a listed LP token that `primary` names (the pool or
    /// its LP token; or, for Uniswap V2, its protocol's Router02, and for
    /// Balancer the Vault, with the pair or pool named by `lp_hint`): the
    /// only places several coins go in or come out together (a tokenized
    /// Curve pool, a Uniswap V2 pair, a Balancer pool).
    fn lp_pool(
        &self,
        protocol: &str,
        primary: Address,
        lp_hint: Option<Address>,
        at: &str,
    ) -> Result<(usize, Pool), BundleError> {
        let family = self.templates.family(protocol);
        let by_periphery = self.periphery_of_kind(protocol, primary);
        let found = self.snapshot.pools().iter().enumerate().find(|(_, p)| {
            p.chain == self.chain
                && family.contains(&*p.protocol)
                && p.lp_index().is_some_and(|lp| {
                    p.address == primary
                        || p.tokens[lp] == primary
                        || by_periphery.is_some_and(|kind| kind(p)) && Some(p.tokens[lp]) == lp_hint
                })
        });
        let Some((k, p)) = found else {
            return Err(BundleError::invalid(
                format!("{at}.primaryAddress"),
                format!(
                    "no tokenized {protocol} pool at {primary:#x} on chain {}: several tokens go in or come out together only through a Curve pool that lists its LP token, a Uniswap V2 pair whose supply the market lists (named by its Router02 with the pair as tokenOut or tokenIn) or a Balancer pool whose BPT supply it lists (named by the pool or the Vault with the pool as tokenOut or tokenIn)",
                    self.chain
                ),
            ));
        };
        self.has_fixture(k, primary, at)?;
        Ok((k, p.clone()))
    }

    /// Refuses pool `k` (at `address`) when the world has no fixture of it
    /// (unprovable, or stale since the world was built).
    /// Whether pool `k` may carry a transaction: the world reproduces it
    /// and its feed is not stale.
    fn provable(&self, k: usize) -> bool {
        u32::try_from(k)
            .is_ok_and(|k| !self.state.unprovable.contains(&k) && !self.state.stale.contains(&k))
    }

    fn has_fixture(&self, k: usize, address: Address, at: &str) -> Result<(), BundleError> {
        if !self.provable(k) {
            return Err(BundleError::unroutable(
                at,
                format!("{address:#x} has no EVM fixture here"),
            ));
        }
        Ok(())
    }

    /// The pool's state after an action through it, for the actions after.
    fn pool_moved(&mut self, k: usize, next: PoolState) -> Result<(), ExecError> {
        let delta = SnapshotDelta { heads: Vec::new(), pools: vec![(k, next)] };
        self.snapshot = Arc::new(self.snapshot.apply(&delta).map_err(ExecError::Route)?);
        Ok(())
    }

    /// Several coins into the pool `primary` names, its LP token named by
    /// `tokenOut` or not at all: a Uniswap V2 pair's `addLiquidity`, a
    /// Balancer join, or a Curve pool's `add_liquidity` (each coin approved
    /// to the pool, the native coin sent as value), the LP tokens minted
    /// measured and predicted by the kernel from the amounts as planned.
    fn curve_multi_deposit(&mut self, d: &MultiDeposit<'_>, at: &str) -> Result<Output, ExecError> {
        let MultiDeposit { protocol, tokens_in, amounts_in, token_out, primary, receiver } = *d;
        let (k, pool) = self.lp_pool(protocol, primary, token_out, at)?;
        let lp = pool.lp_index().ok_or_else(|| BundleError::invalid(at, "not tokenized"))?;
        let lp_token = pool.tokens[lp];
        if let Some(t) = token_out.filter(|t| *t != lp_token) {
            return Err(BundleError::invalid(
                format!("{at}.tokenOut"),
                format!("the pool {:#x} mints {lp_token:#x}, not {t:#x}", pool.address),
            )
            .into());
        }
        match pool.state {
            PoolState::UniswapV2Lp(_) => return self.v2_multi_deposit(d, k, &pool, at),
            PoolState::Weighted(_) => return self.balancer_multi_deposit(d, k, &pool, at),
            _ => {}
        }
        let CoinsIn { mut args, amounts, exact, value, .. } =
            self.coins_in(&pool, lp, tokens_in, amounts_in, pool.address, at)?;
        args.push(self.b.uint(U256::ZERO).map_err(weiroll(at))?);
        let selector = encode::route::curve_add_liquidity_selector(lp)
            .ok_or_else(|| BundleError::invalid(at, format!("a pool of {lp} coins")))?;
        let kind = match value {
            Some(In::Fixed(v)) => CallKind::Value(v),
            Some(_) => return Err(BundleError::invalid(at, "a native amount in one slot").into()),
            None => CallKind::Call,
        };
        let minted = pool.curve_add_liquidity(&pool.state, &amounts).map_err(|e| {
            BundleError::unroutable(
                at,
                format!("{:#x} cannot take these amounts now: {e}", pool.address),
            )
        })?;
        let account = self.account_in.clone();
        let out = encode::route::measured(&mut self.b, lp_token, &account, |b| {
            b.call(kind, pool.address, selector, &args, Out::Ignore)?;
            Ok(())
        })
        .map_err(encode_err(at))?;
        self.position_minted(k, minted, (lp_token, out), exact, receiver, at)
    }

    /// Router02's `addLiquidity(token0, token1, ..)` of both coins of a
    /// Uniswap V2 pair: each approved to the router, the liquidity minted
    /// measured and predicted by the kernel from the amounts as planned.
    /// The router takes one coin whole and the other at the reserves'
    /// ratio; what it leaves stays with the account (swept back to the
    /// refund receiver from a shared executor).
    fn v2_multi_deposit(
        &mut self,
        d: &MultiDeposit<'_>,
        k: usize,
        pool: &Pool,
        at: &str,
    ) -> Result<Output, ExecError> {
        let MultiDeposit { tokens_in, amounts_in, receiver, .. } = *d;
        let pair = pool.address;
        if tokens_in.len() != 2 || amounts_in.len() != 2 {
            return Err(BundleError::invalid(
                format!("{at}.tokenIn"),
                format!(
                    "addLiquidity of {pair:#x} takes both its coins, each once with its amount: {:#x}, {:#x}",
                    pool.tokens[0], pool.tokens[1]
                ),
            )
            .into());
        }
        let router = self.v2_router(&pool.protocol, at)?;
        let CoinsIn { args, amounts, exact, .. } =
            self.coins_in(pool, 2, tokens_in, amounts_in, router, at)?;
        let desired = [amounts[0], amounts[1]];
        let zero = self.b.uint(U256::ZERO).map_err(weiroll(at))?;
        let (_, minted) = pool.v2_add_liquidity(&pool.state, desired).map_err(|e| {
            BundleError::unroutable(at, format!("{pair:#x} cannot take these amounts now: {e}"))
        })?;
        let account = self.account_in.clone();
        let (t0, t1) = (
            self.b.address(pool.tokens[0]).map_err(weiroll(at))?,
            self.b.address(pool.tokens[1]).map_err(weiroll(at))?,
        );
        let deadline = self.b.uint(U256::MAX).map_err(weiroll(at))?;
        let [x0, x1] = [args[0].clone(), args[1].clone()];
        let call = [t0, t1, x0, x1, zero.clone(), zero, account.clone(), deadline];
        let out = encode::route::measured(&mut self.b, pair, &account, |b| {
            b.call(
                CallKind::Call,
                router,
                IUniswapV2Router::addLiquidityCall::SELECTOR,
                &call,
                Out::Ignore,
            )?;
            Ok(())
        })
        .map_err(encode_err(at))?;
        self.dust.extend(&pool.tokens[..2]);
        self.position_minted(k, minted, (pair, out), exact, receiver, at)
    }

    /// A Balancer join of several coins (`EXACT_TOKENS_IN_FOR_BPT_OUT`):
    /// each approved to the Vault, the `userData` encoded by Enso's
    /// `BalancerHelpers` from the amounts as they arrive, `joinPool`, the
    /// BPT minted measured and predicted by the kernel from the amounts as
    /// planned. The coins not named join with zero.
    fn balancer_multi_deposit(
        &mut self,
        d: &MultiDeposit<'_>,
        k: usize,
        pool: &Pool,
        at: &str,
    ) -> Result<Output, ExecError> {
        let MultiDeposit { tokens_in, amounts_in, receiver, .. } = *d;
        let bpt = pool.address;
        let n = pool.lp_index().ok_or_else(|| BundleError::invalid(at, "not tokenized"))?;
        let book = crate::route::Book(self.state);
        let call =
            encode::route::BalancerCall::of(&self.state.catalog, &book, pool).map_err(|e| {
                BundleError::unroutable(at, format!("{bpt:#x} cannot be joined here: {e}"))
            })?;
        let CoinsIn { args, amounts, named, exact, .. } =
            self.coins_in(pool, n, tokens_in, amounts_in, call.vault(), at)?;
        let minted = pool.balancer_join(&pool.state, &amounts).map_err(|e| {
            BundleError::unroutable(at, format!("{bpt:#x} cannot take these amounts now: {e}"))
        })?;
        let account = self.account_in.clone();
        let out = encode::route::balancer_join(&mut self.b, &call, args, &named, &account)
            .map_err(encode_err(at))?;
        self.position_minted(k, minted, (bpt, out), exact, receiver, at)
    }

    /// An Aave V3 pool that lends `token` here (the named one, if any),
    /// trusted by the adapter, and what it can lend; its premium is
    /// `percentMul`, rounded half up.
    fn aave_lender(
        &self,
        loans: &[(Address, U256)],
        primary: Option<Address>,
        adapter: &Deployment,
        at: &str,
    ) -> Result<Lender, ExecError> {
        let (token, amount) = one_loan(
            loans,
            at,
            "Enso's adapter borrows one token per Aave V3 flash loan (flashLoanSimple)",
        )?;
        let reserve = self.snapshot.pools().iter().find_map(|p| match &p.state {
            PoolState::Lending(l)
                if p.chain == self.chain
                    && &*p.protocol == "aave-v3"
                    && p.tokens.first() == Some(&token)
                    && primary.is_none_or(|a| a == p.address) =>
            {
                Some((p.address, l.available_liquidity))
            }
            _ => None,
        });
        let Some((pool, available)) = reserve else {
            return Err(BundleError::invalid(
                format!("{at}.flashloanToken"),
                format!("Aave V3 lends no {token:#x} on chain {} here", self.chain),
            )
            .into());
        };
        if !adapter.lenders.iter().any(|l| {
            l.address == pool && l.protocol == switchyard_catalog::FlashloanLender::AAVE_V3
        }) {
            return Err(BundleError::unroutable(
                at,
                format!(
                    "Enso's flash-loan adapter {:#x} does not trust the Aave pool {pool:#x}",
                    adapter.address
                ),
            )
            .into());
        }
        let bps = crate::evm::aave::FLASHLOAN_PREMIUM_BPS;
        Ok(Lender {
            protocol: switchyard_catalog::FlashloanLender::AAVE_V3,
            address: pool,
            data: alloy_sol_types::SolValue::abi_encode(&(pool, token, amount)),
            loans: vec![Loan {
                token,
                amount,
                fee: (amount * U256::from(bps) + U256::from(5_000u16)) / U256::from(10_000u16),
                available,
            }],
            fee_terms: format!("Aave's {bps} bps premium"),
            name: "Aave V3".to_owned(),
        })
    }

    /// Morpho Blue, as the adapter trusts it on this chain (the named one,
    /// else the only one): one token per loan, for no fee, up to what it
    /// holds of it.
    fn morpho_lender(
        &self,
        loans: &[(Address, U256)],
        primary: Option<Address>,
        adapter: &Deployment,
        at: &str,
    ) -> Result<Lender, ExecError> {
        use switchyard_catalog::FlashloanLender;
        let (token, amount) = one_loan(loans, at, "Morpho Blue lends one token per flash loan")?;
        let trusted = adapter.lenders.iter().find(|l| {
            l.protocol == FlashloanLender::MORPHO && primary.is_none_or(|p| p == l.address)
        });
        let Some(morpho) = trusted.map(|l| l.address) else {
            return Err(BundleError::unroutable(
                at,
                format!(
                    "Enso's flash-loan adapter {:#x} trusts no Morpho Blue{} on chain {}",
                    adapter.address,
                    primary.map(|p| format!(" at {p:#x}")).unwrap_or_default(),
                    self.chain
                ),
            )
            .into());
        };
        let available = self
            .state
            .market
            .lender_holdings
            .iter()
            .find(|h| h.chain_id == self.chain && h.address == morpho && h.token == token)
            .map_or(U256::ZERO, |h| h.amount);
        Ok(Lender {
            protocol: FlashloanLender::MORPHO,
            address: morpho,
            data: alloy_sol_types::SolValue::abi_encode(&(morpho, token, amount)),
            loans: vec![Loan { token, amount, fee: U256::ZERO, available }],
            fee_terms: "no fee (Morpho Blue's flash loans are free)".to_owned(),
            name: "Morpho Blue".to_owned(),
        })
    }

    /// A Uniswap V3 pool of the factory the adapter trusts whose coins
    /// include every token borrowed (one coin or both; the named pool, else,
    /// or when the factory is named, the one holding the most of the first
    /// token), with active liquidity, as `flash` requires; its fee on each
    /// coin is the pool's own fee on the loan, rounded up
    /// ([`uniswap_v3::flash_fee`]).
    fn uniswap_lender(
        &self,
        loans: &[(Address, U256)],
        primary: Option<Address>,
        adapter: &Deployment,
        at: &str,
    ) -> Result<Lender, ExecError> {
        use switchyard_catalog::{FactoryKind, FlashloanLender};
        let factory = self
            .state
            .catalog
            .dex_factory(self.chain, "uniswap-v3")
            .filter(|f| f.kind == FactoryKind::UniswapV3)
            .map(|f| f.factory);
        let trusted = factory.is_some_and(|f| {
            adapter
                .lenders
                .iter()
                .any(|l| l.address == f && l.protocol == FlashloanLender::UNISWAP_V3)
        });
        if !trusted {
            return Err(BundleError::unroutable(
                at,
                format!(
                    "Enso's flash-loan adapter {:#x} trusts no Uniswap V3 factory recorded on chain {}",
                    adapter.address, self.chain
                ),
            )
            .into());
        }
        // The factory named as the lender leaves the pool to the search.
        let primary = primary.filter(|a| Some(*a) != factory);
        let tokens: Vec<Address> = loans.iter().map(|l| l.0).collect();
        let listed = tokens.iter().map(|t| format!("{t:#x}")).collect::<Vec<_>>().join(" and ");
        // Each pool of the tokens, with what its positions hold of each
        // (in the pool's order) and the token indexes of the loans.
        // A pool the world cannot prove (or whose feed is stale) lends only
        // when named, and is then refused by name.
        let best = self
            .snapshot
            .pools()
            .iter()
            .enumerate()
            .filter_map(|(k, p)| {
                let PoolState::UniswapV3(v3) = &p.state else { return None };
                if p.chain != self.chain
                    || &*p.protocol != "uniswap-v3"
                    || v3.liquidity == 0
                    || primary.is_some_and(|a| a != p.address)
                    || (primary.is_none() && !self.provable(k))
                {
                    return None;
                }
                let pair = [*p.tokens.first()?, *p.tokens.get(1)?];
                let at: Vec<usize> = tokens
                    .iter()
                    .map(|t| pair.iter().position(|x| x == t))
                    .collect::<Option<_>>()?;
                let held = crate::evm::lazy::v3_holdings(p).ok()?;
                Some((held[at[0]], p.address, pair, at, held, v3.fee, k))
            })
            .max_by_key(|c| c.0);
        let Some((_, pool, pair, at_pair, held, fee, k)) = best else {
            let (field, what) = match primary {
                Some(a) => ("primaryAddress", format!("{a:#x} is not a Uniswap V3 pool")),
                None => ("flashloanToken", "no Uniswap V3 pool".to_owned()),
            };
            return Err(BundleError::invalid(
                format!("{at}.{field}"),
                format!("{what} with liquidity holding {listed} on chain {}", self.chain),
            )
            .into());
        };
        self.has_fixture(k, pool, &format!("{at}.primaryAddress"))?;
        let mut amounts = [U256::ZERO; 2];
        let mut lent = Vec::with_capacity(loans.len());
        for (&(token, amount), &i) in loans.iter().zip(&at_pair) {
            amounts[i] = amount;
            let fee = switchyard_kernel::amm::uniswap_v3::flash_fee(amount, fee).map_err(|e| {
                BundleError::invalid(format!("{at}.flashloanAmount"), e.to_string())
            })?;
            lent.push(Loan { token, amount, fee, available: held[i] });
        }
        let data = (pool, pair[0], pair[1], amounts[0], amounts[1]);
        Ok(Lender {
            protocol: FlashloanLender::UNISWAP_V3,
            address: pool,
            data: alloy_sol_types::SolValue::abi_encode(&data),
            loans: lent,
            fee_terms: format!("the pool's {fee} millionths fee on each, rounded up"),
            name: format!("the Uniswap V3 pool {pool:#x}"),
        })
    }

    /// Permit2's `permitTransferFrom` for one token (its arguments as
    /// program words) or several (the batch overload, its calldata whole),
    /// every amount requested in full and sent to `receiver`.
    fn permit2_transfer(
        &mut self,
        permitted: &[(Address, U256)],
        owner: Address,
        receiver: Address,
        (nonce, deadline): (U256, U256),
        signature: &alloy_primitives::Bytes,
    ) -> Result<(), WeirollError> {
        if let [(token, amount)] = permitted {
            let words = [
                self.b.address(*token)?,
                self.b.uint(*amount)?,
                self.b.uint(nonce)?,
                self.b.uint(deadline)?,
                self.b.address(receiver)?,
                self.b.uint(*amount)?,
                self.b.address(owner)?,
                self.b.bytes(signature)?,
            ];
            let selector = permit2::IPermit2::permitTransferFromCall::SELECTOR;
            self.b.call(CallKind::Call, PERMIT2, selector, &words, Out::Ignore)?;
            return Ok(());
        }
        use permit2::IPermit2Batch::{
            PermitBatchTransferFrom, SignatureTransferDetails, TokenPermissions,
            permitTransferFromCall,
        };
        let call = permitTransferFromCall {
            permit: PermitBatchTransferFrom {
                permitted: permitted
                    .iter()
                    .map(|(token, amount)| TokenPermissions { token: *token, amount: *amount })
                    .collect(),
                nonce,
                deadline,
            },
            transferDetails: permitted
                .iter()
                .map(|(_, amount)| SignatureTransferDetails {
                    to: receiver,
                    requestedAmount: *amount,
                })
                .collect(),
            owner,
            signature: signature.clone(),
        };
        let data = self.b.raw(&call.abi_encode())?;
        self.b.raw_call(CallKind::Call, PERMIT2, data, Out::Ignore)?;
        Ok(())
    }

    /// `flashloan` from Aave V3 through Enso's `EnsoRouterFlashloanAdapter`:
    /// the callback is compiled as a program of its own (its own state and
    /// output indexes) for the router's executor, which the adapter runs
    /// with the loan through `routeSingle`, and which ends by paying the
    /// adapter the loan and Aave's premium (`percentMul`, rounded half up).
    /// The outer program calls `executeFlashloan`; what the loan's program
    /// produced stays in the account for the actions after. The callback's
    /// own predictions are not held to execution (its state is not the
    /// outer program's); the bundle's gains are measured as always.
    fn flashloan(
        &mut self,
        protocol: &str,
        kind: &ActionKind,
        at: &str,
    ) -> Result<Vec<Output>, ExecError> {
        let ActionKind::Flashloan {
            loans,
            tokens_in,
            amounts_in,
            tokens_out,
            primary,
            receiver,
            callback,
        } = kind
        else {
            return Err(BundleError::invalid(at, "not a flash loan").into());
        };
        let (primary, receiver) = (*primary, *receiver);
        each_once(loans, format!("{at}.flashloanToken"), "a flash loan borrows")?;
        if !matches!(self.runner, Runner::Router { .. }) {
            return Err(BundleError::unroutable(
                at,
                "a flash loan's program runs in the router's executor through Enso's router adapter: use routingStrategy=router",
            )
            .into());
        }
        let role = DeploymentRole::FlashloanRouterAdapter;
        let Some(adapter) = self.state.catalog.deployment(self.chain, role, None).cloned() else {
            return Err(BundleError::unroutable(
                at,
                format!("Enso has no flash-loan router adapter on chain {}", self.chain),
            )
            .into());
        };
        let lender = match protocol {
            "aave-v3" => self.aave_lender(loans, primary, &adapter, at)?,
            "uniswap-v3" => self.uniswap_lender(loans, primary, &adapter, at)?,
            "morpho-blue" => self.morpho_lender(loans, primary, &adapter, at)?,
            other => {
                return Err(BundleError::unroutable(
                    at,
                    format!(
                        "flash loans are built from Aave V3, Uniswap V3 and Morpho Blue here, not {other}: theirs are the lenders the world holds"
                    ),
                )
                .into());
            }
        };
        for (k, loan) in lender.loans.iter().enumerate() {
            if loan.amount.is_zero() || loan.amount > loan.available {
                return Err(BundleError::invalid(
                    item_field(at, "flashloanAmount", loans.len(), k),
                    format!(
                        "{} can lend from 1 to {} of {:#x} now",
                        lender.name, loan.available, loan.token
                    ),
                )
                .into());
            }
        }
        let owed = lender
            .loans
            .iter()
            .map(|l| format!("{} of {:#x}", l.amount + l.fee, l.token))
            .collect::<Vec<_>>()
            .join(" and ");
        // What the caller brings besides the loan.
        if tokens_in.len() != amounts_in.len() {
            return Err(BundleError::invalid(
                format!("{at}.amountIn"),
                "amountIn needs one amount per tokenIn",
            )
            .into());
        }
        for (k, (t, a)) in tokens_in.iter().zip(amounts_in).enumerate() {
            self.amount(a, &format!("{at}.amountIn[{k}]"))?;
            self.consume(*t, a, &format!("{at}.tokenIn[{k}]"))?;
        }
        // The loan's program, in a builder of its own.
        let helpers = Helpers::of(&self.state.catalog, self.chain);
        let outer_b = std::mem::replace(&mut self.b, ProgramBuilder::with_helpers(helpers));
        let inner_account = self.b.address(self.account).map_err(weiroll(at))?;
        let outer_account = std::mem::replace(&mut self.account_in, inner_account);
        let outer_outputs = std::mem::take(&mut self.outputs);
        let outer_marks = std::mem::take(&mut self.marks);
        let outer_checks = std::mem::take(&mut self.checks);
        let outer_base = std::mem::replace(&mut self.base, format!("{at}.callback"));
        // The lender is mid-call: a pool that lends is locked until paid.
        let newly_locked = self.locked.insert(lender.address);
        for l in &lender.loans {
            self.produce(l.token);
        }
        let compiled = (|| -> Result<(), ExecError> {
            for (k, a) in callback.iter().enumerate() {
                self.marks.push(self.b.words());
                let outs = self.action(k, a)?;
                self.outputs.push(outs);
            }
            for l in &lender.loans {
                let repay = self.b.uint(l.amount + l.fee).map_err(weiroll(at))?;
                self.send(l.token, adapter.address, repay, at)?;
            }
            Ok(())
        })();
        if newly_locked {
            self.locked.remove(&lender.address);
        }
        let inner = std::mem::replace(&mut self.b, outer_b).build();
        self.account_in = outer_account;
        self.outputs = outer_outputs;
        let inner_marks = std::mem::replace(&mut self.marks, outer_marks);
        self.checks = outer_checks;
        self.base = outer_base;
        compiled?;
        // The loan's program calls only what an outer one may.
        encode::guard::check(self.world, self.account, &inner).map_err(|e| {
            let action = e.command().map(|w| action_at(&inner_marks, w));
            let at =
                action.map_or_else(|| format!("{at}.callback"), |i| format!("{at}.callback[{i}]"));
            BundleError::invalid(at, e.to_string())
        })?;
        self.hints.push((
            adapter.address,
            format!(
                "a flash loan is paid back from what its program leaves in the account: {owed}, the loan and {}",
                lender.fee_terms
            ),
        ));
        let b = &mut self.b;
        let call = [
            b.uint(U256::from(lender.protocol)).map_err(weiroll(at))?,
            b.bytes(&lender.data).map_err(weiroll(at))?,
            b.word(encode::account_id(&self.req.account_id)).map_err(weiroll(at))?,
            b.word(self.request_id).map_err(weiroll(at))?,
            b.dynamic(&inner.commands).map_err(weiroll(at))?,
            b.dynamic(&inner.state).map_err(weiroll(at))?,
        ];
        b.call(
            CallKind::Call,
            adapter.address,
            flashloans::IEnsoFlashloanAdapter::executeFlashloanCall::SELECTOR,
            &call,
            Out::Ignore,
        )
        .map_err(weiroll(at))?;
        // The outputs: what the account holds of each named token now.
        let mut outs = Vec::with_capacity(tokens_out.len());
        for t in tokens_out {
            let held = encode::route::balance_of(&mut self.b, *t, self.account_in.clone())
                .map_err(encode_err(at))?;
            self.produce(*t);
            if let Some(r) = receiver.filter(|r| *r != self.account) {
                self.send(*t, r, held.clone(), at)?;
                self.receivers.insert(r);
            }
            outs.push(Output { slot: held, predicted: None, exact: false, token: Some(*t) });
        }
        Ok(outs)
    }

    /// `depositclmm` into a Uniswap V3 pool: both coins approved to the
    /// protocol's `NonfungiblePositionManager`, its `mint` over the ticks
    /// with the recipient as the position's owner. The kernel's liquidity
    /// and what the pool takes of each coin (measured as the pool's
    /// balances grow) are held to execution when the amounts are exact;
    /// what the pool does not take is swept back from a shared executor.
    /// The output is the position: one ERC-721 more for the recipient.
    fn clmm_deposit(
        &mut self,
        protocol: &str,
        kind: &ActionKind,
        at: &str,
    ) -> Result<Output, ExecError> {
        let ActionKind::DepositClmm {
            tokens_in,
            amounts_in,
            token_out,
            ticks,
            fee,
            tick_spacing,
            receiver,
        } = kind
        else {
            return Err(BundleError::invalid(at, "not a concentrated-liquidity deposit").into());
        };
        let (token_out, ticks, fee, tick_spacing, receiver) =
            (*token_out, *ticks, *fee, *tick_spacing, *receiver);
        let npm = self.position_manager(protocol, token_out, &format!("{at}.tokenOut"), at)?;
        let pair = match tokens_in.as_slice() {
            [a, b] if a != b && amounts_in.len() == 2 => {
                if a < b {
                    [*a, *b]
                } else {
                    [*b, *a]
                }
            }
            _ => {
                return Err(BundleError::invalid(
                    format!("{at}.tokenIn"),
                    "a position takes the pool's two tokens, each once with its amount",
                )
                .into());
            }
        };
        let family = self.templates.family(protocol);
        let found: Vec<(usize, &Pool, u32)> = self
            .snapshot
            .pools()
            .iter()
            .enumerate()
            .filter_map(|(k, p)| match &p.state {
                PoolState::UniswapV3(v3)
                    if p.chain == self.chain
                        && family.contains(&*p.protocol)
                        && p.tokens.len() == 2
                        && p.tokens[..] == pair[..]
                        && fee.is_none_or(|f| f == v3.fee) =>
                {
                    Some((k, p, v3.fee))
                }
                _ => None,
            })
            .collect();
        let (k, pool) = match found.as_slice() {
            [(k, p, _)] => (*k, (*p).clone()),
            [] => {
                let with_fee = fee.map(|f| format!(" with fee {f}")).unwrap_or_default();
                return Err(BundleError::invalid(
                    format!("{at}.{}", if fee.is_some() { "poolFee" } else { "tokenIn" }),
                    format!(
                        "the market has no {protocol} pool of {:#x} and {:#x}{with_fee} on chain {}",
                        pair[0], pair[1], self.chain
                    ),
                )
                .into());
            }
            several => {
                let fees: Vec<String> = several.iter().map(|(_, _, f)| f.to_string()).collect();
                return Err(BundleError::invalid(
                    format!("{at}.poolFee"),
                    format!(
                        "{protocol} has pools of these tokens at several fees ({}): name one",
                        fees.join(", ")
                    ),
                )
                .into());
            }
        };
        self.has_fixture(k, pool.address, at)?;
        if self.locked.contains(&pool.address) {
            return Err(BundleError::unroutable(
                at,
                format!(
                    "the pool {:#x} is lending this flash loan and is locked until it is paid back",
                    pool.address
                ),
            )
            .into());
        }
        let PoolState::UniswapV3(v3) = &pool.state else {
            return Err(BundleError::invalid(at, "not a concentrated-liquidity pool").into());
        };
        let v3_fee = v3.fee;
        if let Some(spacing) = tick_spacing.filter(|s| *s != v3.tick_spacing) {
            return Err(BundleError::invalid(
                format!("{at}.tickSpacing"),
                format!(
                    "the pool {:#x} has tick spacing {}, not {spacing}",
                    pool.address, v3.tick_spacing
                ),
            )
            .into());
        }
        // The manager mints only into the pool at its factory's CREATE2
        // address (the catalog's init code hash, the manager's constant).
        let factory = self.state.catalog.dex_factory(self.chain, protocol);
        let salt = alloy_primitives::keccak256(alloy_sol_types::SolValue::abi_encode(&(
            pair[0],
            pair[1],
            U256::from(v3_fee),
        )));
        if factory.is_none_or(|f| f.factory.create2(salt, f.init_code_hash) != pool.address) {
            return Err(BundleError::unroutable(
                at,
                format!(
                    "{:#x} is not at the address {protocol}'s factory gives its tokens and fee: the position manager cannot mint into it",
                    pool.address
                ),
            )
            .into());
        }
        let CoinsIn { args, amounts, exact, .. } =
            self.coins_in(&pool, 2, tokens_in, amounts_in, npm, at)?;
        let minted =
            pool.v3_mint(&pool.state, ticks, [amounts[0], amounts[1]]).map_err(|e| match e {
                switchyard_kernel::amm::PositionError::Ticks { .. } => {
                    BundleError::invalid(format!("{at}.ticks"), e.to_string())
                }
                _ => BundleError::unroutable(
                    at,
                    format!("{:#x} cannot mint this position now: {e}", pool.address),
                ),
            })?;
        let recipient = receiver.unwrap_or_else(|| self.beneficiary());
        let b = &mut self.b;
        let call = [
            b.address(pair[0]).map_err(weiroll(at))?,
            b.address(pair[1]).map_err(weiroll(at))?,
            b.uint(U256::from(v3_fee)).map_err(weiroll(at))?,
            // `int24` words, sign-extended as any signed integer's.
            b.word(ticks.0).map_err(weiroll(at))?,
            b.word(ticks.1).map_err(weiroll(at))?,
            args[0].clone(),
            args[1].clone(),
            b.uint(U256::ZERO).map_err(weiroll(at))?,
            b.uint(U256::ZERO).map_err(weiroll(at))?,
            b.address(recipient).map_err(weiroll(at))?,
            b.uint(U256::MAX).map_err(weiroll(at))?,
        ];
        let owner = call[9].clone();
        let pool_in = b.address(pool.address).map_err(weiroll(at))?;
        let mut before = Vec::with_capacity(3);
        for (token, of) in [(pair[0], &pool_in), (pair[1], &pool_in), (npm, &owner)] {
            before.push(encode::route::balance_of(b, token, of.clone()).map_err(encode_err(at))?);
        }
        b.call(CallKind::Call, npm, Npm::mintCall::SELECTOR, &call, Out::Ignore)
            .map_err(weiroll(at))?;
        let mut grew = Vec::with_capacity(3);
        for ((token, of), was) in
            [(pair[0], &pool_in), (pair[1], &pool_in), (npm, &owner)].into_iter().zip(before)
        {
            let now = encode::route::balance_of(b, token, of.clone()).map_err(encode_err(at))?;
            grew.push(helper(b, BinaryOp::Sub, &[now, was]).map_err(encode_err(at))?);
        }
        if exact {
            for (c, taken) in minted.taken.iter().enumerate() {
                self.checks.push((format!("{at}: token{c} taken"), grew[c].clone(), *taken));
            }
        }
        let one = U256::from(1);
        self.checks.push((format!("{at}: the position"), grew[2].clone(), one));
        self.pool_moved(k, minted.next)?;
        self.dust.extend(pair);
        self.positions.insert(npm);
        if recipient != self.beneficiary() {
            self.receivers.insert(recipient);
        }
        Ok(Output { slot: grew[2].clone(), predicted: Some(one), exact: true, token: Some(npm) })
    }

    /// `protocol`'s `NonfungiblePositionManager` on the chain, which the
    /// action names in `field` as `named`.
    fn position_manager(
        &self,
        protocol: &str,
        named: Address,
        field: &str,
        at: &str,
    ) -> Result<Address, ExecError> {
        let role = DeploymentRole::UniswapV3PositionManager;
        let Ok((_, npm)) =
            encode::route::periphery_of(&self.state.catalog, self.chain, protocol, &[role])
        else {
            return Err(BundleError::unroutable(
                at,
                format!("no {protocol} NonfungiblePositionManager on chain {}", self.chain),
            )
            .into());
        };
        if named != npm {
            return Err(BundleError::invalid(
                field,
                format!(
                    "{protocol} positions on chain {} are tokens of its NonfungiblePositionManager {npm:#x}, not {named:#x}",
                    self.chain
                ),
            )
            .into());
        }
        Ok(npm)
    }

    /// The account's balance of each of `tokens`, read now.
    fn balances(&mut self, tokens: &[Address], at: &str) -> Result<Vec<In>, ExecError> {
        let account = self.account_in.clone();
        tokens
            .iter()
            .map(|t| {
                encode::route::balance_of(&mut self.b, *t, account.clone())
                    .map_err(|e| encode_err(at)(e).into())
            })
            .collect()
    }

    /// Coins paid out to the account, `(token, predicted, exact)` each:
    /// what each gained since `before` (its balance read before the
    /// payout), held to the prediction where it is exact, produced, and
    /// sent on to `receiver` unless that is the account.
    fn paid_out(
        &mut self,
        paid: &[(Address, U256, bool)],
        before: Vec<In>,
        receiver: Option<Address>,
        at: &str,
    ) -> Result<Vec<Output>, ExecError> {
        let account = self.account_in.clone();
        let mut outs = Vec::with_capacity(paid.len());
        for (&(t, predicted, exact), was) in paid.iter().zip(before) {
            let now = encode::route::balance_of(&mut self.b, t, account.clone())
                .map_err(encode_err(at))?;
            let slot = self.helper(BinaryOp::Sub, &[now, was], at)?;
            let leg_at = format!("{at}.tokenOut[{}]", outs.len());
            if exact {
                self.checks.push((leg_at.clone(), slot.clone(), predicted));
            }
            self.produce(t);
            if let Some(r) = receiver.filter(|r| *r != self.account) {
                self.send(t, r, slot.clone(), &leg_at)?;
                self.receivers.insert(r);
            }
            outs.push(Output { slot, predicted: Some(predicted), exact, token: Some(t) });
        }
        Ok(outs)
    }

    /// Liquidity out of the sender's Uniswap V3 position (read from the
    /// chain's node): the position token taken in unless the account
    /// already holds it, `decreaseLiquidity` of `liquidity`, `collect` of
    /// exactly what that burn owes ([`Pool::v3_burn`], rounded down as the
    /// pool rounds) to the account, each coin measured and held to the
    /// kernel, the position token back to its owner. Fees the position
    /// earned before stay owed to it. The pool is locked for the rest of
    /// the bundle: the world holds the position on top of the chain's
    /// liquidity, so no other action may trade in that pool, before or
    /// after.
    fn clmm_redeem(
        &mut self,
        protocol: &str,
        kind: &ActionKind,
        at: &str,
    ) -> Result<Vec<Output>, ExecError> {
        let ActionKind::RedeemClmm { manager, token_id, liquidity, tokens_out, receiver } = kind
        else {
            return Err(BundleError::invalid(at, "not a concentrated-liquidity redeem").into());
        };
        let (manager, token_id, receiver) = (*manager, *token_id, *receiver);
        let npm = self.position_manager(protocol, manager, &format!("{at}.tokenIn"), at)?;
        if self.base != "body" {
            return Err(BundleError::unroutable(
                at,
                "a position is taken in by the transaction's entry point: redeem it in the bundle's own actions, not in a flash loan's callback",
            )
            .into());
        }
        if matches!(self.runner, Runner::LegacyRouter { .. }) {
            return Err(BundleError::unroutable(
                at,
                "the legacy router takes ERC-20 tokens only: use routingStrategy=router for a position",
            )
            .into());
        }
        let unavailable = |message: String| BundleError {
            code: switchyard_catalog::ApiCode::PositionUnavailable,
            at: format!("{at}.tokenId"),
            message,
        };
        let read = self.req.positions.iter().find(|p| p.manager == npm && p.token_id == token_id);
        let held = match read.map(|p| &p.read) {
            Some(Ok(h)) => *h,
            Some(Err(why)) => {
                return Err(unavailable(format!(
                    "position {token_id} of {npm:#x} on chain {}: {why}",
                    self.chain
                ))
                .into());
            }
            None => {
                return Err(unavailable(format!(
                    "no node follows chain {} here: a position's range and liquidity are read from the chain",
                    self.chain
                ))
                .into());
            }
        };
        if held.owner != self.owner {
            return Err(BundleError::invalid(
                format!("{at}.tokenId"),
                format!(
                    "position {token_id} belongs to {:#x}, not to {:#x} whose tokens this bundle spends",
                    held.owner, self.owner
                ),
            )
            .into());
        }
        if self.held.iter().any(|p| p.token_id == token_id && p.manager == npm) {
            return Err(BundleError::unroutable(
                format!("{at}.tokenId"),
                "one redeem per position in a bundle",
            )
            .into());
        }
        let mut order = Vec::with_capacity(2);
        for t in tokens_out {
            match held.tokens.iter().position(|x| x == t).filter(|c| !order.contains(c)) {
                Some(c) => order.push(c),
                None => break,
            }
        }
        if order.len() != 2 || tokens_out.len() != 2 {
            return Err(BundleError::invalid(
                format!("{at}.tokenOut"),
                format!(
                    "position {token_id} pays the pool's two tokens, each named once: {:#x} and {:#x}",
                    held.tokens[0], held.tokens[1]
                ),
            )
            .into());
        }
        let family = self.templates.family(protocol);
        let found = self.snapshot.pools().iter().enumerate().find_map(|(k, p)| match &p.state {
            PoolState::UniswapV3(v3)
                if p.chain == self.chain
                    && family.contains(&*p.protocol)
                    && p.tokens[..] == held.tokens[..]
                    && v3.fee == held.fee =>
            {
                Some((k, p.clone()))
            }
            _ => None,
        });
        let Some((k, pool)) = found else {
            return Err(unavailable(format!(
                "the market does not hold the {protocol} pool of {:#x} and {:#x} with fee {} that position {token_id} is in",
                held.tokens[0], held.tokens[1], held.fee
            ))
            .into());
        };
        self.has_fixture(k, pool.address, at)?;
        if self.locked.contains(&pool.address)
            || self.snapshot.pools()[k].state != self.state.snapshot.pools()[k].state
        {
            return Err(BundleError::unroutable(
                at,
                format!(
                    "an earlier action of the bundle trades in the pool {:#x} of position {token_id}: redeem it first, in a bundle of its own",
                    pool.address
                ),
            )
            .into());
        }
        let liquidity_at = format!("{at}.liquidity");
        let (x, pred, exact) = self.amount(liquidity, &liquidity_at)?;
        let Some(amount) = pred.filter(|_| exact) else {
            return Err(BundleError::invalid(
                liquidity_at,
                "the liquidity to remove is a number, or an earlier output known exactly",
            )
            .into());
        };
        let l = u128::try_from(amount).ok().filter(|l| *l > 0 && *l <= held.liquidity);
        let Some(l) = l else {
            return Err(BundleError::invalid(
                liquidity_at,
                format!(
                    "position {token_id} holds {} liquidity: remove from 1 to that",
                    held.liquidity
                ),
            )
            .into());
        };
        let burn = pool.v3_burn(&pool.state, held.ticks, l).map_err(|e| {
            BundleError::unroutable(at, format!("{:#x} cannot burn this now: {e}", pool.address))
        })?;
        // The position token comes in (and is approved to the entry point)
        // unless the account is its owner.
        if self.account != held.owner {
            self.nfts_in.push((npm, token_id));
        }
        self.held.push(held);
        let b = &mut self.b;
        let id = b.uint(token_id).map_err(weiroll(at))?;
        let zero = b.uint(U256::ZERO).map_err(weiroll(at))?;
        let deadline = b.uint(U256::MAX).map_err(weiroll(at))?;
        b.call(
            CallKind::Call,
            npm,
            Npm::decreaseLiquidityCall::SELECTOR,
            &[id.clone(), x, zero.clone(), zero, deadline],
            Out::Ignore,
        )
        .map_err(weiroll(at))?;
        let account = self.account_in.clone();
        let before = self.balances(tokens_out, at)?;
        let b = &mut self.b;
        let maxes = [
            b.uint(burn.owed[0]).map_err(weiroll(at))?,
            b.uint(burn.owed[1]).map_err(weiroll(at))?,
        ];
        let [m0, m1] = maxes;
        b.call(
            CallKind::Call,
            npm,
            Npm::collectCall::SELECTOR,
            &[id.clone(), account.clone(), m0, m1],
            Out::Ignore,
        )
        .map_err(weiroll(at))?;
        let paid: Vec<(Address, U256, bool)> =
            tokens_out.iter().zip(&order).map(|(t, c)| (*t, burn.owed[*c], true)).collect();
        let outs = self.paid_out(&paid, before, receiver, at)?;
        if self.account != held.owner {
            let b = &mut self.b;
            let from = account;
            let to = b.address(held.owner).map_err(weiroll(at))?;
            b.call(
                CallKind::Call,
                npm,
                Npm::transferFromCall::SELECTOR,
                &[from, to, id],
                Out::Ignore,
            )
            .map_err(weiroll(at))?;
        }
        self.pool_moved(k, burn.next)?;
        self.locked.insert(pool.address);
        Ok(outs)
    }

    /// The coins an action puts into `pool` together (of its first `n`
    /// tokens, each named once with its amount), each approved to
    /// `spender` (the native coin is sent as value instead).
    fn coins_in(
        &mut self,
        pool: &Pool,
        n: usize,
        tokens_in: &[Address],
        amounts_in: &[Amount],
        spender: Address,
        at: &str,
    ) -> Result<CoinsIn, ExecError> {
        if tokens_in.is_empty() || tokens_in.len() != amounts_in.len() {
            return Err(BundleError::invalid(
                format!("{at}.amountIn"),
                "amountIn needs one amount per tokenIn",
            )
            .into());
        }
        let coins = encode::route::curve_coin_list(pool, n);
        let zero = self.b.uint(U256::ZERO).map_err(weiroll(at))?;
        let mut c_in = CoinsIn {
            args: vec![zero; n],
            amounts: vec![U256::ZERO; n],
            named: vec![false; n],
            exact: true,
            value: None,
        };
        for (i, (t, a)) in tokens_in.iter().zip(amounts_in).enumerate() {
            let field = format!("{at}.tokenIn[{i}]");
            let c = pool.index_of(*t).filter(|c| *c < n && !c_in.named[*c]).ok_or_else(|| {
                BundleError::invalid(
                    &field,
                    format!(
                        "{t:#x} is not a coin of the pool {:#x} named once ({coins})",
                        pool.address
                    ),
                )
            })?;
            c_in.named[c] = true;
            let amount_at = format!("{at}.amountIn[{i}]");
            let (x, pred, ex) = self.amount(a, &amount_at)?;
            self.consume(*t, a, &field)?;
            c_in.amounts[c] = self.planned_amount(&x, pred, &amount_at)?;
            c_in.exact &= ex && pred.is_some();
            if *t == NATIVE_TOKEN {
                c_in.value = Some(x.clone());
            } else {
                encode::route::approve(&mut self.b, *t, spender, x.clone())
                    .map_err(encode_err(at))?;
            }
            c_in.args[c] = x;
        }
        Ok(c_in)
    }

    /// After several coins went into pool `k` and its position `token` was
    /// measured into `out`: the pool's state for the actions after, the
    /// kernel's mint held to execution when the amounts were exact, the
    /// token produced and sent on to a receiver other than the account.
    fn position_minted(
        &mut self,
        k: usize,
        minted: switchyard_kernel::amm::Swap,
        (token, out): (Address, In),
        exact: bool,
        receiver: Option<Address>,
        at: &str,
    ) -> Result<Output, ExecError> {
        self.pool_moved(k, minted.next)?;
        if exact {
            self.checks.push((at.to_owned(), out.clone(), minted.amount_out));
        }
        self.produce(token);
        if let Some(r) = receiver.filter(|r| *r != self.account) {
            self.send(token, r, out.clone(), at)?;
            self.receivers.insert(r);
        }
        Ok(Output { slot: out, predicted: Some(minted.amount_out), exact, token: Some(token) })
    }

    /// The Router02 of a Uniswap V2 protocol's factory on this chain.
    fn v2_router(&self, protocol: &str, at: &str) -> Result<Address, BundleError> {
        self.v2_router_of(protocol).map_err(|_| {
            BundleError::unroutable(at, format!("no {protocol} Router02 on chain {}", self.chain))
        })
    }

    /// The LP tokens burnt for every coin in proportion (a Curve pool's
    /// `remove_liquidity`, Router02's `removeLiquidity`, a Balancer
    /// `EXACT_BPT_IN_FOR_TOKENS_OUT` exit), each coin's payment measured, in
    /// the order the action names them.
    fn curve_multi_redeem(
        &mut self,
        r: &MultiRedeem<'_>,
        at: &str,
    ) -> Result<Vec<Output>, ExecError> {
        let MultiRedeem { protocol, token_in, tokens_out, amount_in, primary, receiver } = *r;
        let (k, pool) = self.lp_pool(protocol, primary, token_in, at)?;
        let lp = pool.lp_index().ok_or_else(|| BundleError::invalid(at, "not tokenized"))?;
        let lp_token = pool.tokens[lp];
        if let Some(t) = token_in.filter(|t| *t != lp_token) {
            return Err(BundleError::invalid(
                format!("{at}.tokenIn"),
                format!("the pool {:#x} burns {lp_token:#x}, not {t:#x}", pool.address),
            )
            .into());
        }
        let mut order = Vec::with_capacity(lp);
        for t in tokens_out {
            match pool.index_of(*t).filter(|c| *c < lp && !order.contains(c)) {
                Some(c) => order.push(c),
                None => break,
            }
        }
        if order.len() != lp || tokens_out.len() != lp {
            let coins = encode::route::curve_coin_list(&pool, lp);
            return Err(BundleError::invalid(
                format!("{at}.tokenOut"),
                format!(
                    "a proportional withdrawal from {:#x} pays every coin of the pool, each named once: {}",
                    pool.address, coins
                ),
            )
            .into());
        }
        let amount_at = format!("{at}.amountIn");
        let (x, pred, exact) = self.amount(amount_in, &amount_at)?;
        self.consume(lp_token, amount_in, &format!("{at}.tokenIn"))?;
        let amount = self.planned_amount(&x, pred, &amount_at)?;
        let exact = exact && pred.is_some();
        let v2 = matches!(pool.state, PoolState::UniswapV2Lp(_));
        let balancer = matches!(pool.state, PoolState::Weighted(_));
        let removed = match pool.state {
            PoolState::UniswapV2Lp(_) => pool
                .v2_remove_liquidity(&pool.state, amount)
                .map(|(paid, next)| (paid.to_vec(), next)),
            PoolState::Weighted(_) => pool.balancer_exit_proportional(&pool.state, amount),
            _ => pool.curve_remove_liquidity(&pool.state, amount),
        };
        let (paid, next) = removed.map_err(|e| {
            BundleError::unroutable(
                at,
                format!("{:#x} cannot pay out {amount} now: {e}", pool.address),
            )
        })?;
        let zero = self.b.uint(U256::ZERO).map_err(weiroll(at))?;
        // A Uniswap V2 pair burns through Router02's `removeLiquidity`, a
        // Balancer pool through the Vault's `exitPool`; a Curve pool's
        // `remove_liquidity` is its own.
        let burn = if balancer {
            None
        } else if v2 {
            let router = self.v2_router(&pool.protocol, at)?;
            encode::route::approve(&mut self.b, lp_token, router, x.clone())
                .map_err(encode_err(at))?;
            let (t0, t1) = (
                self.b.address(pool.tokens[0]).map_err(weiroll(at))?,
                self.b.address(pool.tokens[1]).map_err(weiroll(at))?,
            );
            let deadline = self.b.uint(U256::MAX).map_err(weiroll(at))?;
            let args =
                vec![t0, t1, x.clone(), zero.clone(), zero, self.account_in.clone(), deadline];
            Some((router, IUniswapV2Router::removeLiquidityCall::SELECTOR, args))
        } else {
            let selector = encode::route::curve_remove_liquidity_selector(lp)
                .ok_or_else(|| BundleError::invalid(at, format!("a pool of {lp} coins")))?;
            let mut args = vec![x.clone()];
            args.extend(std::iter::repeat_n(zero, lp));
            Some((pool.address, selector, args))
        };
        let account = self.account_in.clone();
        let before = self.balances(tokens_out, at)?;
        if let Some((target, selector, args)) = burn {
            self.b
                .call(CallKind::Call, target, selector, &args, Out::Ignore)
                .map_err(weiroll(at))?;
        } else {
            let book = crate::route::Book(self.state);
            let call = encode::route::BalancerCall::of(&self.state.catalog, &book, &pool)
                .map_err(encode_err(at))?;
            let exit = encode::route::BalancerExit::Proportional;
            encode::route::balancer_exit(&mut self.b, &call, exit, x, &account)
                .map_err(encode_err(at))?;
        }
        // A rebasing share token (stETH) arrives a wei or two short of what
        // the pool paid: measured, predicted, not exact.
        let paid: Vec<(Address, U256, bool)> = tokens_out
            .iter()
            .zip(&order)
            .map(|(t, c)| {
                (*t, paid[*c], exact && self.snapshot.share_pool(self.chain, *t).is_none())
            })
            .collect();
        let outs = self.paid_out(&paid, before, receiver, at)?;
        self.pool_moved(k, next)?;
        Ok(outs)
    }

    /// The LP token a Curve gauge of the world at `primary` stakes.
    fn gauge_lp(&self, primary: Address) -> Option<Address> {
        match self.world.positions.get(&primary) {
            Some(Ok(PositionFixture::Gauge { lp })) => Some(*lp),
            _ => None,
        }
    }

    /// A stake into a Curve gauge (`deposit(x, account)`: gauge tokens
    /// minted 1:1) or out of it (`withdraw(x)`: the gauge tokens burned,
    /// as many LP tokens back). Both move exactly `x`, so the output is
    /// the amount itself; gauge tokens are ERC-20s and leave like any
    /// output.
    fn through_gauge(
        &mut self,
        g: &GaugeAction<'_>,
        at: &str,
        amount_field: &str,
    ) -> Result<Output, ExecError> {
        let GaugeAction { gauge, token_in, token_out, amount, receiver, deposit } = *g;
        let lp = self.gauge_lp(gauge).ok_or_else(|| {
            BundleError::invalid(
                format!("{at}.primaryAddress"),
                format!("{gauge:#x} is not a gauge"),
            )
        })?;
        let (from, to) = if deposit { (lp, gauge) } else { (gauge, lp) };
        for (field, named, want) in [("tokenIn", token_in, from), ("tokenOut", token_out, to)] {
            if let Some(t) = named.filter(|t| *t != want) {
                return Err(BundleError::invalid(
                    format!("{at}.{field}"),
                    format!(
                        "the gauge {gauge:#x} {} {want:#x}, not {t:#x}",
                        if field == "tokenIn" { "takes" } else { "gives" }
                    ),
                )
                .into());
            }
        }
        let (x, pred, exact) = self.amount(amount, &format!("{at}.{amount_field}"))?;
        self.consume(from, amount, &format!("{at}.{amount_field}"))?;
        if deposit {
            encode::route::approve(&mut self.b, lp, gauge, x.clone()).map_err(encode_err(at))?;
            self.b
                .call(
                    CallKind::Call,
                    gauge,
                    lending::ICurveGauge::depositCall::SELECTOR,
                    &[x.clone(), self.account_in.clone()],
                    Out::Ignore,
                )
                .map_err(weiroll(at))?;
        } else {
            self.b
                .call(
                    CallKind::Call,
                    gauge,
                    lending::ICurveGauge::withdrawCall::SELECTOR,
                    std::slice::from_ref(&x),
                    Out::Ignore,
                )
                .map_err(weiroll(at))?;
        }
        self.produce(to);
        if let Some(r) = receiver.filter(|r| *r != self.account) {
            self.send(to, r, x.clone(), at)?;
            self.receivers.insert(r);
        }
        Ok(Output { slot: x, predicted: pred, exact, token: Some(to) })
    }

    fn lending_model(&self, primary: Address) -> Option<LendingModel> {
        self.snapshot.pools().iter().find_map(|p| match &p.state {
            PoolState::Lending(l) if p.chain == self.chain && p.address == primary => Some(l.model),
            _ => None,
        })
    }

    fn action(&mut self, i: usize, a: &Action) -> Result<Vec<Output>, ExecError> {
        let at = format!("{}[{i}].args", self.base);
        let one = |o: Output| Ok(vec![o]);
        match &a.kind {
            ActionKind::Route(args) => {
                let out = self.route(args, None, &at)?;
                // A route that crossed leaves nothing here.
                Ok(if out.token.is_some() { vec![out] } else { Vec::new() })
            }
            ActionKind::Swap {
                token_in,
                token_out,
                amount_in,
                primary,
                receiver,
                slippage_bps,
            } => {
                let family = self.templates.family(&a.protocol);
                let known = self.snapshot.pools().iter().any(|p| {
                    p.chain == self.chain && family.contains(&*p.protocol) && p.address == *primary
                }) || self.known_address(&a.protocol, *primary);
                if !known {
                    return Err(BundleError::invalid(
                        format!("{at}.primaryAddress"),
                        format!(
                            "{primary:#x} is not a {} pool or router on chain {}",
                            a.protocol, self.chain
                        ),
                    )
                    .into());
                }
                let args = RouteArgs {
                    token_in: *token_in,
                    token_out: *token_out,
                    amount_in: amount_in.clone(),
                    slippage_bps: *slippage_bps,
                    min_amount_out: None,
                    receiver: *receiver,
                    fee: None,
                    ignore_aggregators: Vec::new(),
                    ignore_standards: Vec::new(),
                    destination_chain: None,
                };
                one(self.route(&args, Some(&family), &at)?)
            }
            ActionKind::Deposit { token_in, token_out, amount_in, primary, receiver }
                if self.gauge_lp(*primary).is_some() =>
            {
                let staked = GaugeAction {
                    gauge: *primary,
                    token_in: Some(*token_in),
                    token_out: *token_out,
                    amount: amount_in,
                    receiver: *receiver,
                    deposit: true,
                };
                one(self.through_gauge(&staked, &at, "amountIn")?)
            }
            ActionKind::Redeem { token_in, token_out, amount_in, primary, receiver }
                if self.gauge_lp(*primary).is_some() =>
            {
                let staked = GaugeAction {
                    gauge: *primary,
                    token_in: *token_in,
                    token_out: Some(*token_out),
                    amount: amount_in,
                    receiver: *receiver,
                    deposit: false,
                };
                one(self.through_gauge(&staked, &at, "amountIn")?)
            }
            ActionKind::Withdraw { token_out, amount_out, primary, receiver }
                if crate::route::is_comet(self.state, self.chain, *primary) =>
            {
                // Compound III: `withdraw(base, amountOut)` from the balance
                // the market is the token of, within its cash.
                let cash = self.snapshot.pools().iter().find_map(|p| match &p.state {
                    PoolState::Lending(l) if p.chain == self.chain && p.address == *primary => {
                        Some(l.available_liquidity)
                    }
                    _ => None,
                });
                if let (Amount::Value(v), Some(cash)) = (amount_out, cash)
                    && *v > cash
                {
                    return Err(BundleError::unroutable(
                        format!("{at}.amountOut"),
                        format!(
                            "{primary:#x} holds {cash} of its base asset: withdraw at most that"
                        ),
                    )
                    .into());
                }
                let p = PoolAction {
                    protocol: &a.protocol,
                    primary: *primary,
                    token_in: Some(*primary),
                    token_out: Some(*token_out),
                    amount_in: amount_out,
                    receiver: *receiver,
                    deposit: false,
                };
                one(self.through_pool(&p, &at)?)
            }
            ActionKind::Withdraw { token_out, amount_out, primary, receiver } => {
                match self.world.positions.get(primary) {
                    Some(Ok(PositionFixture::Gauge { .. })) => {}
                    Some(Ok(PositionFixture::AaveDebt { .. })) => {
                        return Err(BundleError::invalid(
                            format!("{at}.primaryAddress"),
                            format!("{primary:#x} is a debt: it is repaid, not withdrawn from"),
                        )
                        .into());
                    }
                    Some(Err(why)) => {
                        return Err(BundleError::unroutable(
                            format!("{at}.primaryAddress"),
                            format!("{primary:#x} cannot be withdrawn from here: {why}"),
                        )
                        .into());
                    }
                    None => {
                        return Err(BundleError::invalid(
                            format!("{at}.primaryAddress"),
                            format!(
                                "{primary:#x} is not a {} position on chain {}",
                                a.protocol, self.chain
                            ),
                        )
                        .into());
                    }
                }
                let staked = GaugeAction {
                    gauge: *primary,
                    token_in: None,
                    token_out: Some(*token_out),
                    amount: amount_out,
                    receiver: *receiver,
                    deposit: false,
                };
                one(self.through_gauge(&staked, &at, "amountOut")?)
            }
            ActionKind::Deposit { token_in, token_out, amount_in, primary, receiver } => {
                let p = PoolAction {
                    protocol: &a.protocol,
                    primary: *primary,
                    token_in: Some(*token_in),
                    token_out: *token_out,
                    amount_in,
                    receiver: *receiver,
                    deposit: true,
                };
                one(self.through_pool(&p, &at)?)
            }
            ActionKind::MultiDeposit { tokens_in, amounts_in, token_out, primary, receiver } => {
                let d = MultiDeposit {
                    protocol: &a.protocol,
                    tokens_in,
                    amounts_in,
                    token_out: *token_out,
                    primary: *primary,
                    receiver: *receiver,
                };
                one(self.curve_multi_deposit(&d, &at)?)
            }
            ActionKind::Flashloan { .. } => self.flashloan(&a.protocol, &a.kind, &at),
            ActionKind::DepositClmm { .. } => one(self.clmm_deposit(&a.protocol, &a.kind, &at)?),
            ActionKind::RedeemClmm { .. } => self.clmm_redeem(&a.protocol, &a.kind, &at),
            ActionKind::MultiRedeem { token_in, tokens_out, amount_in, primary, receiver } => {
                let r = MultiRedeem {
                    protocol: &a.protocol,
                    token_in: *token_in,
                    tokens_out,
                    amount_in,
                    primary: *primary,
                    receiver: *receiver,
                };
                Ok(self.curve_multi_redeem(&r, &at)?)
            }
            ActionKind::Redeem { token_in, token_out, amount_in, primary, receiver } => {
                let p = PoolAction {
                    protocol: &a.protocol,
                    primary: *primary,
                    token_in: *token_in,
                    token_out: Some(*token_out),
                    amount_in,
                    receiver: *receiver,
                    deposit: false,
                };
                one(self.through_pool(&p, &at)?)
            }
            ActionKind::Borrow { token_out, amount_out, primary, receiver, collateral } => {
                let (x, pred, exact) = self.amount(amount_out, &format!("{at}.amountOut"))?;
                match self.lending_model(*primary) {
                    Some(LendingModel::Aave) => {
                        let asset = self.b.address(*token_out).map_err(weiroll(&at))?;
                        let mode = self.b.uint(U256::from(2u8)).map_err(weiroll(&at))?;
                        let referral = self.b.word(0u16).map_err(weiroll(&at))?;
                        self.b
                            .call(
                                CallKind::Call,
                                *primary,
                                lending::IAaveBorrow::borrowCall::SELECTOR,
                                &[asset, x.clone(), mode, referral, self.account_in.clone()],
                                Out::Ignore,
                            )
                            .map_err(weiroll(&at))?;
                    }
                    Some(LendingModel::Comet) => return Err(comet_debt(&at)),
                    Some(LendingModel::Compound) => {
                        self.enter_markets(*primary, collateral, &at)?;
                        self.compound_call(
                            *primary,
                            lending::ICompoundBorrow::borrowCall::SELECTOR,
                            x.clone(),
                            &at,
                        )?
                    }
                    None => {
                        return Err(BundleError::invalid(
                            format!("{at}.primaryAddress"),
                            format!("{primary:#x} is not a lending market on chain {}", self.chain),
                        )
                        .into());
                    }
                }
                self.produce(*token_out);
                if let Some(r) = receiver.filter(|r| *r != self.account) {
                    self.send(*token_out, r, x.clone(), &at)?;
                    self.receivers.insert(r);
                }
                one(Output { slot: x, predicted: pred, exact, token: Some(*token_out) })
            }
            ActionKind::Repay { token_in, amount_in, primary } => {
                let (x, pred, _) = self.amount(amount_in, &format!("{at}.amountIn"))?;
                self.consume(*token_in, amount_in, &format!("{at}.tokenIn"))?;
                encode::route::approve(&mut self.b, *token_in, *primary, x.clone())
                    .map_err(encode_err(&at))?;
                let repaid = match self.lending_model(*primary) {
                    Some(LendingModel::Aave) => {
                        let asset = self.b.address(*token_in).map_err(weiroll(&at))?;
                        let mode = self.b.uint(U256::from(2u8)).map_err(weiroll(&at))?;
                        let out = self
                            .b
                            .call(
                                CallKind::Call,
                                *primary,
                                lending::IAaveBorrow::repayCall::SELECTOR,
                                &[asset, x, mode, self.account_in.clone()],
                                Out::Word,
                            )
                            .map_err(weiroll(&at))?;
                        encode::route::word_out(out).map_err(encode_err(&at))?
                    }
                    Some(LendingModel::Comet) => return Err(comet_debt(&at)),
                    Some(LendingModel::Compound) => {
                        self.compound_call(
                            *primary,
                            lending::ICompoundBorrow::repayBorrowCall::SELECTOR,
                            x.clone(),
                            &at,
                        )?;
                        x
                    }
                    None => {
                        return Err(BundleError::invalid(
                            format!("{at}.primaryAddress"),
                            format!("{primary:#x} is not a lending market on chain {}", self.chain),
                        )
                        .into());
                    }
                };
                one(Output { slot: repaid, predicted: pred, exact: false, token: Some(*token_in) })
            }
            ActionKind::Harvest { token, primary } => {
                self.b
                    .call(
                        CallKind::Call,
                        *primary,
                        lending::ICurveGauge::claim_rewardsCall::SELECTOR,
                        std::slice::from_ref(&self.account_in),
                        Out::Ignore,
                    )
                    .map_err(weiroll(&at))?;
                self.produce(*token);
                Ok(Vec::new())
            }
            ActionKind::Approve { token, spender, amount } => {
                if self.is_shared_executor(*spender) {
                    return Err(BundleError::invalid(
                        format!("{at}.spender"),
                        "a shared executor runs anyone's program: it is never approved",
                    )
                    .into());
                }
                let (x, _, _) = self.amount(amount, &format!("{at}.amount"))?;
                encode::route::approve(&mut self.b, *token, *spender, x)
                    .map_err(encode_err(&at))?;
                Ok(Vec::new())
            }
            ActionKind::Transfer { token, amount, receiver } => {
                let (x, _, _) = self.amount(amount, &format!("{at}.amount"))?;
                self.consume(*token, amount, &format!("{at}.token"))?;
                self.send(*token, *receiver, x, &at)?;
                self.receivers.insert(*receiver);
                Ok(Vec::new())
            }
            ActionKind::TransferFrom { token, sender, receiver, amount } => {
                if self.runner.is_shared() {
                    return Err(BundleError::invalid(
                        format!("{at}.sender"),
                        "transferfrom spends an allowance given to the account running the program, and a shared executor is never approved: use a delegate or wallet strategy",
                    )
                    .into());
                }
                let (x, _, _) = self.amount(amount, &format!("{at}.amount"))?;
                let (s, r) = (
                    self.b.address(*sender).map_err(weiroll(&at))?,
                    self.b.address(*receiver).map_err(weiroll(&at))?,
                );
                self.b
                    .call(
                        CallKind::Call,
                        *token,
                        IERC20::transferFromCall::SELECTOR,
                        &[s, r, x],
                        Out::Ignore,
                    )
                    .map_err(weiroll(&at))?;
                if let Amount::Value(v) = amount {
                    self.pulled.push(Approval {
                        token: *token,
                        spender: self.account,
                        amount: *v,
                        owner: *sender,
                        nft: a.protocol == "erc721",
                    });
                }
                if *receiver == self.account {
                    self.produce(*token);
                } else {
                    self.receivers.insert(*receiver);
                }
                Ok(Vec::new())
            }
            ActionKind::PermitTransferFrom {
                permitted,
                sender,
                receiver,
                nonce,
                deadline,
                signature,
            } => {
                if self.runner.is_shared() {
                    return Err(BundleError::invalid(
                        format!("{at}.sender"),
                        "a permit names the account that runs the program as its spender, and anyone's program runs on a shared executor: use a delegate or wallet strategy",
                    )
                    .into());
                }
                each_once(permitted, format!("{at}.token"), "a permit moves")?;
                for (k, (token, _)) in permitted.iter().enumerate() {
                    self.known_token(*token, &item_field(&at, "token", permitted.len(), k))?;
                }
                // The world places Permit2 where the catalog lists it.
                if !self.world.is_listed(PERMIT2) {
                    return Err(BundleError::unroutable(
                        format!("{at}.signature"),
                        format!("Permit2 is not listed as deployed on chain {}", self.chain),
                    )
                    .into());
                }
                self.permit2_transfer(
                    permitted,
                    *sender,
                    *receiver,
                    (*nonce, *deadline),
                    signature,
                )
                .map_err(weiroll(&at))?;
                for (token, amount) in permitted {
                    self.pulled.push(Approval {
                        token: *token,
                        spender: PERMIT2,
                        amount: *amount,
                        owner: *sender,
                        nft: false,
                    });
                }
                // Tokens that arrive in the account are this action's
                // outputs, in the permit's order (Permit2 moves exactly the
                // amounts requested); sent on to someone else, they are
                // that receiver's.
                if *receiver != self.account {
                    self.receivers.insert(*receiver);
                    return Ok(Vec::new());
                }
                let mut outs = Vec::with_capacity(permitted.len());
                for (token, amount) in permitted {
                    self.produce(*token);
                    let slot = self.b.uint(*amount).map_err(weiroll(&at))?;
                    outs.push(Output {
                        slot,
                        predicted: Some(*amount),
                        exact: true,
                        token: Some(*token),
                    });
                }
                Ok(outs)
            }
            ActionKind::Split { token_in, tokens_out, amount_in, receiver } => {
                if tokens_out.is_empty() {
                    return Err(BundleError::invalid(
                        format!("{at}.tokenOut"),
                        "at least one token",
                    )
                    .into());
                }
                let amount_at = format!("{at}.amountIn");
                let (x, pred, exact) = self.amount(amount_in, &amount_at)?;
                self.consume(*token_in, amount_in, &format!("{at}.tokenIn"))?;
                let n = U256::from(tokens_out.len());
                let n_in = self.b.uint(n).map_err(weiroll(&at))?;
                let part = self.helper(BinaryOp::Div, &[x.clone(), n_in.clone()], &at)?;
                let spent = self.helper(BinaryOp::Mul, &[part.clone(), n_in], &at)?;
                let rest = self.helper(BinaryOp::Sub, &[x, spent], &at)?;
                // The last share takes the remainder of the division.
                let last = self.helper(BinaryOp::Add, &[part.clone(), rest], &at)?;
                let mut outs = Vec::with_capacity(tokens_out.len());
                for (k, t) in tokens_out.iter().enumerate() {
                    let is_last = k + 1 == tokens_out.len();
                    let share = if is_last { last.clone() } else { part.clone() };
                    let share_pred = pred.map(|p| {
                        let base = p / n;
                        if is_last { base + (p - base * n) } else { base }
                    });
                    let leg_at = format!("{at}.tokenOut[{k}]");
                    let amount = self.planned_amount(&share, share_pred, &leg_at)?;
                    let plan = self.plan((*token_in, *t), amount, &Filters::NONE, None, &leg_at)?;
                    let predicted = plan.amounts_out.first().copied();
                    let out = self.emit_plan(plan, share, &leg_at)?;
                    let exact = exact && share_pred.is_some();
                    if let (true, Some(p)) = (exact, predicted) {
                        self.checks.push((leg_at.clone(), out.clone(), p));
                    }
                    self.enforce_min(*t, out.clone(), predicted, None, None, &leg_at)?;
                    self.produce(*t);
                    if let Some(r) = receiver.filter(|r| *r != self.account) {
                        self.send(*t, r, out.clone(), &leg_at)?;
                        self.receivers.insert(r);
                    }
                    outs.push(Output { slot: out, predicted, exact, token: Some(*t) });
                }
                Ok(outs)
            }
            ActionKind::Merge { tokens_in, token_out, amounts_in, receiver } => {
                if tokens_in.len() != amounts_in.len() || tokens_in.is_empty() {
                    return Err(BundleError::invalid(
                        format!("{at}.amountIn"),
                        "amountIn needs one amount per tokenIn",
                    )
                    .into());
                }
                let mut total: Option<Output> = None;
                for (k, (t, a)) in tokens_in.iter().zip(amounts_in).enumerate() {
                    let args = RouteArgs {
                        token_in: *t,
                        token_out: *token_out,
                        amount_in: a.clone(),
                        slippage_bps: None,
                        min_amount_out: None,
                        receiver: None,
                        fee: None,
                        ignore_aggregators: Vec::new(),
                        ignore_standards: Vec::new(),
                        destination_chain: None,
                    };
                    let o = self.route(&args, None, &format!("{at}.tokenIn[{k}]"))?;
                    total = Some(match total {
                        None => o,
                        Some(t0) => Output {
                            slot: self.helper(BinaryOp::Add, &[t0.slot, o.slot], &at)?,
                            predicted: t0
                                .predicted
                                .zip(o.predicted)
                                .map(|(a, b)| a.saturating_add(b)),
                            exact: t0.exact && o.exact,
                            token: Some(*token_out),
                        },
                    });
                }
                let total = total.ok_or_else(|| BundleError::invalid(&at, "no input"))?;
                if let Some(r) = receiver.filter(|r| *r != self.account) {
                    self.send(*token_out, r, total.slot.clone(), &at)?;
                    self.receivers.insert(r);
                }
                one(total)
            }
            ActionKind::Balance { token, account, estimate } => {
                let who = match account {
                    Some(a) => self.b.address(*a).map_err(weiroll(&at))?,
                    None => self.account_in.clone(),
                };
                let slot =
                    encode::route::balance_of(&mut self.b, *token, who).map_err(encode_err(&at))?;
                one(Output { slot, predicted: *estimate, exact: false, token: Some(*token) })
            }
            ActionKind::MinAmountOut { amount_out, min_amount_out } => {
                let token = self.token_of(amount_out);
                let (x, pred, exact) = self.amount(amount_out, &format!("{at}.amountOut"))?;
                let (m, min, _) = self.amount(min_amount_out, &format!("{at}.minAmountOut"))?;
                let slot = self.require_at_least(x, m, &at)?;
                self.record_min(token, min);
                one(Output { slot, predicted: pred, exact, token })
            }
            ActionKind::Slippage { bps, amount_out } => {
                let (x, pred, exact) = self.amount(amount_out, &format!("{at}.amountOut"))?;
                let Some(p) = pred else {
                    return Err(BundleError::invalid(
                        format!("{at}.amountOut"),
                        "slippage needs an amount the bundle can predict (an estimate for a balance)",
                    )
                    .into());
                };
                let min = crate::route::min_amounts(&[p], &[], (*bps).min(10_000), true)
                    .ok()
                    .and_then(|v| v.first().copied())
                    .unwrap_or_default();
                let m = self.b.uint(min).map_err(weiroll(&at))?;
                let slot = self.require_at_least(x, m, &at)?;
                let token = self.token_of(amount_out);
                self.record_min(token, Some(min));
                one(Output { slot, predicted: pred, exact, token })
            }
            ActionKind::Fee { token, amount, bps, receiver } => {
                let (x, pred, exact) = self.amount(amount, &format!("{at}.amount"))?;
                self.consume(*token, amount, &format!("{at}.token"))?;
                let bps_in = self.b.uint(U256::from(*bps)).map_err(weiroll(&at))?;
                let fee = self.bps_of(x.clone(), bps_in, &at)?;
                // Paid, and answered as `feeAmount`: not an output (the
                // fee receiver is not watched for `amountsOut`).
                self.send(*token, *receiver, fee.clone(), &at)?;
                let rest = self.helper(BinaryOp::Sub, &[x, fee], &at)?;
                let fee_pred = pred.map(|p| crate::quote::fee_of(p, *bps));
                if let Some(f) = fee_pred {
                    let e = self.fees.entry(*token).or_default();
                    *e = e.saturating_add(f);
                }
                one(Output {
                    slot: rest,
                    predicted: pred.zip(fee_pred).map(|(p, f)| p - f),
                    exact,
                    token: Some(*token),
                })
            }
            ActionKind::Call { address, method, abi, args, value } => {
                let kind = match value {
                    Some(v) => {
                        let (x, _, _) = self.amount(v, &format!("{at}.value"))?;
                        self.consume(NATIVE_TOKEN, v, &format!("{at}.value"))?;
                        let In::Fixed(s) = x else {
                            return Err(BundleError::invalid(
                                format!("{at}.value"),
                                "not a one-word value",
                            )
                            .into());
                        };
                        CallKind::Value(s)
                    }
                    None => CallKind::Call,
                };
                let outputs = &self.outputs;
                let mut resolve = |action: usize,
                                   index: usize,
                                   p: &str|
                 -> Result<In, BundleError> {
                    let outs = outputs.get(action).ok_or_else(|| {
                        BundleError::invalid(
                            p,
                            format!("refers to action {action}, which is not an earlier action"),
                        )
                    })?;
                    outs.get(index).map(|o| o.slot.clone()).ok_or_else(|| {
                        BundleError::invalid(p, format!("action {action} has no output {index}"))
                    })
                };
                let c = call::encode_call(
                    &mut self.b,
                    self.templates,
                    abi,
                    method,
                    args,
                    &mut resolve,
                    &at,
                )?;
                self.deployed_function(*address, c.selector, &at)?;
                let out = self
                    .b
                    .call(
                        kind,
                        *address,
                        c.selector,
                        &c.args,
                        if c.returns_word { Out::Word } else { Out::Ignore },
                    )
                    .map_err(weiroll(&at))?;
                Ok(out
                    .map(|s| Output {
                        slot: In::Fixed(s),
                        predicted: None,
                        exact: false,
                        token: None,
                    })
                    .into_iter()
                    .collect())
            }
            ActionKind::Bridge { .. } => self.bridge(&a.kind, &at),
            ActionKind::Binary { op, a: x, b: y } => {
                let (xa, pa, ea) = self.amount(x, &format!("{at}.amountA"))?;
                let (yb, pb, eb) = self.amount(y, &format!("{at}.amountB"))?;
                let value = binary(*op, pa, pb);
                let slot = self.helper(*op, &[xa, yb], &at)?;
                one(Output {
                    slot,
                    predicted: value,
                    exact: ea && eb && value.is_some(),
                    token: None,
                })
            }
            ActionKind::Not(c) => {
                let cond = self.condition(c, &format!("{at}.condition"))?;
                let slot = self.helper(Op::Not, &[cond], &at)?;
                one(Output { slot, predicted: None, exact: false, token: None })
            }
            ActionKind::Check(c) => {
                let cond = self.condition(c, &format!("{at}.condition"))?;
                check(&mut self.b, cond.clone()).map_err(encode_err(&at))?;
                one(Output { slot: cond, predicted: None, exact: false, token: None })
            }
            ActionKind::Toggle { condition, a: x, b: y } => {
                let cond = self.condition(condition, &format!("{at}.condition"))?;
                let (xa, _, _) = self.amount(x, &format!("{at}.amountA"))?;
                let (yb, _, _) = self.amount(y, &format!("{at}.amountB"))?;
                let slot = self.helper(Op::Toggle, &[cond, xa, yb], &at)?;
                one(Output { slot, predicted: None, exact: false, token: None })
            }
        }
    }

    /// `enterMarkets` on the comptroller of Compound market `primary`: the
    /// collateral markets (named by cToken or by underlying token) and the
    /// market borrowed from.
    fn enter_markets(
        &mut self,
        primary: Address,
        collateral: &[Address],
        at: &str,
    ) -> Result<(), BundleError> {
        let compound = |r: &switchyard_catalog::PoolRecord| match r {
            switchyard_catalog::PoolRecord::Lending(l)
                if l.chain_id == self.chain && l.model == LendingModel::Compound =>
            {
                Some(l.clone())
            }
            _ => None,
        };
        let markets: Vec<_> = self.state.market.pools.iter().filter_map(compound).collect();
        let Some(comptroller) =
            markets.iter().find(|m| m.address == primary).and_then(|m| m.comptroller)
        else {
            return Err(BundleError::invalid(
                format!("{at}.primaryAddress"),
                format!("{primary:#x} has no comptroller in the market data"),
            ));
        };
        let mut entered = Vec::with_capacity(collateral.len() + 1);
        for (k, c) in collateral.iter().enumerate() {
            let market = markets
                .iter()
                .find(|m| m.comptroller == Some(comptroller) && (m.address == *c || m.asset == *c))
                .ok_or_else(|| {
                    BundleError::invalid(
                        format!("{at}.collateral[{k}]"),
                        format!("{c:#x} is not a market of {primary:#x}'s comptroller"),
                    )
                })?;
            entered.push(market.address);
        }
        entered.push(primary);
        entered.dedup();
        let list = entered
            .into_iter()
            .map(|m| self.b.address(m))
            .collect::<Result<Vec<_>, _>>()
            .map_err(weiroll(at))?;
        self.b
            .call(
                CallKind::Call,
                comptroller,
                crate::evm::abi::ReferenceComptroller::enterMarketsCall::SELECTOR,
                &[In::Array(list)],
                Out::Ignore,
            )
            .map_err(weiroll(at))?;
        Ok(())
    }

    fn compound_call(
        &mut self,
        market: Address,
        selector: [u8; 4],
        x: In,
        at: &str,
    ) -> Result<(), BundleError> {
        let code =
            self.b.call(CallKind::Call, market, selector, &[x], Out::Word).map_err(weiroll(at))?;
        let code = encode::route::word_out(code).map_err(encode_err(at))?;
        require_zero(&mut self.b, code).map_err(encode_err(at))
    }

    /// An address the catalog gives for `protocol` on the chain: the
    /// primary address of its tokens, its DEX factory.
    fn known_address(&self, protocol: &str, addr: Address) -> bool {
        let c = &self.state.catalog;
        c.tokens_on(self.chain).iter().any(|t| {
            t.protocol_slug.as_deref() == Some(protocol) && t.primary_address == Some(addr)
        }) || c.dex_factory(self.chain, protocol).is_some_and(|f| f.factory == addr)
    }

    fn is_shared_executor(&self, a: Address) -> bool {
        let s = &self.world.shortcuts;
        s.router.is_some_and(|(_, e)| e == a) || s.legacy_router.is_some_and(|(_, e)| e == a)
    }

    /// The beneficiary of what the bundle leaves: the receiver, or the
    /// sender (the account itself for account strategies).
    fn beneficiary(&self) -> Address {
        self.req.receiver.unwrap_or(match self.runner {
            Runner::Router { .. } | Runner::LegacyRouter { .. } => self.req.from,
            _ => self.account,
        })
    }

    /// The whole program around the body so far: prologue (inputs pulled
    /// into an account, balances before) and epilogue (sweeps), the
    /// transaction, the simulation setup and the approvals.
    fn assemble(&self, mut b: ProgramBuilder) -> Result<Assembled, BundleError> {
        let body_words = b.words();
        let mut prologue = 0;
        let at = "body";
        let acct = self.account;
        let beneficiary = self.beneficiary();
        // A Compound III balance moved in by `transfer` is credited as
        // principal, rounded down: enough is taken for what reads back to
        // cover the amount (the wei over is swept back).
        let moved_in = self.runner.is_shared()
            || matches!(self.runner, Runner::Wallet { .. })
            || (matches!(self.runner, Runner::Delegate { .. } | Runner::LegacyDelegate { .. })
                && self.owner != self.req.from)
            || matches!(self.runner, Runner::Account { account, .. } if self.owner != account);
        let inputs: Vec<TokenAmount> = self
            .external
            .iter()
            .map(|(t, a)| TokenAmount {
                token: *t,
                amount: if moved_in {
                    crate::route::comet_cover(self.state, self.chain, *t, *a)
                } else {
                    *a
                },
            })
            .collect();
        // Epilogue.
        let mut prologue_reads: Vec<(Address, In)> = Vec::new();
        if self.runner.is_shared() {
            let refund = self.req.refund_receiver.unwrap_or(beneficiary);
            let touched: Vec<(Address, Address)> = self
                .produced
                .iter()
                .map(|t| (*t, beneficiary))
                .chain(
                    self.external
                        .keys()
                        .filter(|t| !self.produced.contains(t))
                        .map(|t| (*t, refund)),
                )
                .chain(
                    self.dust
                        .iter()
                        .filter(|t| !self.produced.contains(t) && !self.external.contains_key(*t))
                        .map(|t| (*t, refund)),
                )
                .collect();
            for (t, to) in touched {
                let left = encode::route::balance_of(&mut b, t, self.account_in.clone())
                    .map_err(encode_err(at))?;
                encode::route::send(&mut b, t, to, encode::route::Amount::In(left))
                    .map_err(encode_err(at))?;
            }
        } else if beneficiary != acct {
            // The account's own balances: hand over only what the bundle made.
            let mark = b.words();
            for t in &self.produced {
                let before = encode::route::balance_of(&mut b, *t, self.account_in.clone())
                    .map_err(encode_err(at))?;
                prologue_reads.push((*t, before));
            }
            prologue += b.words() - mark;
            b.move_to_front(mark);
            for (t, before) in &prologue_reads {
                let after = encode::route::balance_of(&mut b, *t, self.account_in.clone())
                    .map_err(encode_err(at))?;
                let made = helper(&mut b, BinaryOp::Sub, &[after, before.clone()])
                    .map_err(encode_err(at))?;
                encode::route::send(&mut b, *t, beneficiary, encode::route::Amount::In(made))
                    .map_err(encode_err(at))?;
            }
        }
        if let Runner::Account { account, .. } = self.runner
            && self.owner != account
            && self.external.contains_key(&NATIVE_TOKEN)
        {
            return Err(BundleError::invalid(
                at,
                "a user operation carries no native coin: the account spends its own (spender = the account), or use the wrapped token",
            ));
        }
        // Prologue: pull the inputs into an account that does not hold them.
        let pull_from = match self.runner {
            Runner::Delegate { .. } | Runner::LegacyDelegate { .. }
                if self.owner != self.req.from =>
            {
                Some(self.owner)
            }
            Runner::Account { account, .. } if self.owner != account => Some(self.owner),
            _ => None,
        };
        if let Some(owner) = pull_from {
            let mark = b.words();
            let (o, a) = (b.address(owner).map_err(weiroll(at))?, self.account_in.clone());
            // An ERC-721's `transferFrom(from, to, id)` is the ERC-20's
            // call, an id for the amount.
            let tokens =
                inputs.iter().filter(|t| t.token != NATIVE_TOKEN).map(|t| (t.token, t.amount));
            for (token, amount) in tokens.chain(self.nfts_in.iter().copied()) {
                let amount = b.uint(amount).map_err(weiroll(at))?;
                b.call(
                    CallKind::Call,
                    token,
                    IERC20::transferFromCall::SELECTOR,
                    &[o.clone(), a.clone(), amount],
                    Out::Ignore,
                )
                .map_err(weiroll(at))?;
            }
            prologue += b.words() - mark;
            b.move_to_front(mark);
        }
        let program = b.build();
        encode::guard::check(self.world, acct, &program).map_err(|e| {
            // A command of an action calls what the client named (a token,
            // a contract): the action is refused. Anywhere else the
            // compiler wrote the call, and the refusal is its own bug.
            let action = e
                .command()
                .and_then(|w| w.checked_sub(prologue))
                .filter(|w| *w < body_words)
                .map(|w| action_at(&self.marks, w));
            match action {
                Some(i) => BundleError::invalid(format!("{}[{i}]", self.base), e.to_string()),
                None => {
                    tracing::error!(error = %e, chain = %self.chain, "bundle program refused by the guard");
                    BundleError { code: ApiCode::Internal, at: at.into(), message: e.to_string() }
                }
            }
        })?;
        let account_id = encode::account_id(&self.req.account_id);
        let tx = encode::transaction(
            self.runner,
            &program,
            &TxSpec {
                from: self.req.from,
                inputs: &inputs,
                nfts: if pull_from.is_some() { &[] } else { &self.nfts_in },
                outputs: &[],
                receiver: beneficiary,
                account_id,
                request_id: self.request_id(),
            },
        );
        let mut approvals = match self.runner {
            Runner::Account { account, .. } if self.owner == account => Vec::new(),
            Runner::Delegate { account } | Runner::LegacyDelegate { account }
                if self.owner != self.req.from =>
            {
                inputs
                    .iter()
                    .filter(|t| t.token != NATIVE_TOKEN)
                    .map(|t| Approval {
                        token: t.token,
                        spender: account,
                        amount: t.amount,
                        owner: self.owner,
                        nft: false,
                    })
                    .collect()
            }
            _ => encode::tx::approvals(self.runner, self.owner, &inputs),
        };
        // A position token taken in: ERC-721 `approve(spender, id)`, the
        // ERC-20 call with the id for the amount, to the entry point (or
        // the delegated account that pulls it).
        let nft_spender = if pull_from.is_some() { Some(acct) } else { self.runner.spender() };
        if let Some(spender) = nft_spender {
            approvals.extend(self.nfts_in.iter().map(|&(token, id)| Approval {
                token,
                spender,
                amount: id,
                owner: self.owner,
                nft: true,
            }));
        }
        approvals.extend(self.pulled.iter().filter(|p| p.owner != acct).copied());
        crate::route::all_or_nothing(self.state, self.chain, &mut approvals);
        encode::guard::check_entry(self.world, self.runner, &tx, &approvals).map_err(|e| {
            tracing::error!(error = %e, chain = %self.chain, "bundle transaction refused by the guard");
            BundleError { code: ApiCode::Internal, at: at.into(), message: e.to_string() }
        })?;
        let mut funds: Vec<(Address, Address, U256)> = inputs
            .iter()
            .map(|t| {
                // The native coin rides in the transaction from the sender,
                // but an ERC-4337 account spends its own.
                let holder = match self.runner {
                    Runner::Account { .. } => self.owner,
                    _ if t.token == NATIVE_TOKEN => self.req.from,
                    _ => self.owner,
                };
                (holder, t.token, t.amount)
            })
            .collect();
        funds.extend(
            self.pulled.iter().filter(|p| p.owner != acct).map(|p| (p.owner, p.token, p.amount)),
        );
        let delegations = match self.runner {
            Runner::Delegate { account } => self.world.shortcuts.delegate.map(|d| (account, d)),
            Runner::LegacyDelegate { account } => {
                self.world.shortcuts.legacy_delegate.map(|d| (account, d))
            }
            _ => None,
        };
        let mut watch = Vec::new();
        let mut gainers: Vec<Address> = vec![beneficiary];
        gainers.extend(self.receivers.iter().copied());
        // Each gainer once, or a gain would count twice.
        gainers.sort_unstable();
        gainers.dedup();
        let tokens: BTreeSet<Address> = self
            .produced
            .iter()
            .chain(self.external.keys())
            .chain(&self.positions)
            .copied()
            .collect();
        for g in &gainers {
            for t in &tokens {
                watch.push((*g, *t));
            }
        }
        Ok(Assembled {
            program,
            tx,
            setup: SimSetup {
                funds,
                approvals: approvals.clone(),
                delegations: delegations.into_iter().collect(),
                watch,
                debts: Vec::new(),
                positions: self.held.clone(),
                accounts: match (self.runner, self.world.shortcuts.accounts.as_ref()) {
                    (Runner::Account { owner, signer, .. }, Some(a)) => {
                        vec![(a.factory, owner, signer)]
                    }
                    _ => Vec::new(),
                },
                held_accounts: self.held_accounts.clone(),
            },
            approvals,
            prologue,
        })
    }

    fn request_id(&self) -> alloy_primitives::B256 {
        self.request_id
    }
}

/// What a route-like action may go through.
#[derive(Clone, Copy)]
struct Filters<'f> {
    ignore_aggregators: &'f [String],
    ignore_standards: &'f [String],
    /// Only these protocols, when given.
    only: Option<&'f BTreeSet<String>>,
}

impl Filters<'_> {
    const NONE: Filters<'static> =
        Filters { ignore_aggregators: &[], ignore_standards: &[], only: None };
}

/// A deposit into, or redeem from, one named pool.
struct PoolAction<'p> {
    protocol: &'p str,
    primary: Address,
    token_in: Option<Address>,
    token_out: Option<Address>,
    amount_in: &'p Amount,
    receiver: Option<Address>,
    deposit: bool,
}

/// A `multideposit` through a tokenized Curve pool.
#[derive(Clone, Copy)]
struct MultiDeposit<'p> {
    protocol: &'p str,
    tokens_in: &'p [Address],
    amounts_in: &'p [Amount],
    token_out: Option<Address>,
    primary: Address,
    receiver: Option<Address>,
}

/// A `multiredeem` through a tokenized Curve pool.
#[derive(Clone, Copy)]
struct MultiRedeem<'p> {
    protocol: &'p str,
    token_in: Option<Address>,
    tokens_out: &'p [Address],
    amount_in: &'p Amount,
    primary: Address,
    receiver: Option<Address>,
}

/// A bridge action compiled: its route in the snapshot, the amount it
/// sends when known before the bundle runs, and where it is in the body.
/// The slippage a Stargate `bridge` action allows on what arrives when
/// its amount is known only after earlier actions (a route action's own
/// default).
const BRIDGED_SLIPPAGE_BPS: u32 = 50;

struct Crossing {
    route: usize,
    predicted: Option<U256>,
    at: String,
    /// A Stargate taxi (else a CCTP burn).
    taxi: bool,
    /// What a taxi's callback does on arrival.
    callback: Option<Arrival>,
}

/// A bundle's callback on arrival, as its own proof on the destination
/// chain found it.
struct Arrival {
    /// (receiver, token) of each output it leaves.
    watch: Vec<(Address, Address)>,
    /// What each delivers.
    amounts: Vec<U256>,
    /// Its minimums.
    mins: BTreeMap<Address, U256>,
    /// Its plans, on the destination.
    plans: Vec<Plan>,
}

/// A program put together: its transaction, the simulation setup, the
/// approvals to grant, and how many command words precede the body.
struct Assembled {
    program: encode::Program,
    tx: Tx,
    setup: SimSetup,
    approvals: Vec<Approval>,
    prologue: usize,
}

/// The coins an action puts into a pool together, pool order.
struct CoinsIn {
    /// Each coin's amount slot (a zero constant for a coin not named).
    args: Vec<In>,
    /// Each coin's amount as planned.
    amounts: Vec<U256>,
    /// Which coins the action named.
    named: Vec<bool>,
    /// Whether every amount is known exactly.
    exact: bool,
    /// The native coin's amount slot, sent as value.
    value: Option<In>,
}

/// A binary operation's value on known operands.
fn binary(op: BinaryOp, a: Option<U256>, b: Option<U256>) -> Option<U256> {
    let both = a.zip(b);
    let flag = |f: fn(U256, U256) -> bool| both.map(|(x, y)| U256::from(u8::from(f(x, y))));
    match op {
        BinaryOp::Add => both.and_then(|(x, y)| x.checked_add(y)),
        BinaryOp::Sub => both.and_then(|(x, y)| x.checked_sub(y)),
        BinaryOp::Mul => both.and_then(|(x, y)| x.checked_mul(y)),
        BinaryOp::Div => both.and_then(|(x, y)| x.checked_div(y)),
        BinaryOp::Min => both.map(|(x, y)| x.min(y)),
        BinaryOp::Max => both.map(|(x, y)| x.max(y)),
        BinaryOp::IsEqual => flag(|x, y| x == y),
        BinaryOp::IsLessThan => flag(|x, y| x < y),
        BinaryOp::IsEqualOrLessThan => flag(|x, y| x <= y),
        BinaryOp::IsGreaterThan => flag(|x, y| x > y),
        BinaryOp::IsEqualOrGreaterThan => flag(|x, y| x >= y),
    }
}

/// Compiles `req`, builds its transaction, executes it in the chain's
/// world and checks every exact prediction (call it on the pool).
pub fn compile_and_prove(
    state: &MarketState,
    templates: &Templates,
    req: &BundleRequest,
) -> Result<super::BundleTx, ExecError> {
    let world = state.world.as_ref().map_err(|e| ExecError::SimulatorUnavailable(e.clone()))?;
    let cw =
        world.chain(req.chain).ok_or(ExecError::Route(KernelError::UnknownChain(req.chain)))?;
    let runner = if req.backend && req.strategy == switchyard_catalog::RoutingStrategy::EnsoWalletV2
    {
        crate::route::account_runner(cw, req.chain, req.from, req.backend_signer)?
    } else {
        runner(cw, req.strategy, req.chain, req.from)?
    };
    let owner = match runner {
        Runner::Delegate { .. } | Runner::LegacyDelegate { .. } | Runner::Account { .. } => {
            req.spender.unwrap_or(req.from)
        }
        _ => req.from,
    };
    let mut unique = [0u8; 16];
    getrandom::fill(&mut unique).map_err(|_| ExecError::Random)?;
    let request_id = encode::request_id(req.referral_code.as_deref(), unique);
    let mut c =
        Compiler::new(state, templates, cw, req, runner, owner, request_id, "body".to_owned())?;
    c.held_accounts = crate::route::held_account(cw, runner, req.account_read.as_ref())?;
    c.run()?;
    let Assembled { program, tx, setup, approvals, prologue } = c.assemble(c.b.clone())?;
    let mut evm = cw.fork();
    prepare(cw, &mut evm, &setup).map_err(|e| setup_failed(e, "body"))?;
    let outcome = run_prepared(&mut evm, &c.runnable(&tx), &setup.watch)
        .map_err(|e| reverted(e, "body", &c.marks, prologue, &c.hints))?;
    check_predictions(&c.checks, c.final_state(&outcome.output))?;
    if !crate::simulate::shortcut_ran(&outcome.logs, runner, c.request_id) {
        tracing::error!("simulated bundle emitted no ShortcutExecuted");
        return Err(ExecError::SimulationMismatch { index: 0 });
    }
    // An ERC-4337 account's program, checked above as its owner's direct
    // call, is answered as a user operation: proven again through the
    // EntryPoint, where it must deliver the same.
    let (tx, user_op, outcome, gas) = match (runner, cw.shortcuts.accounts.as_ref()) {
        (Runner::Account { owner: account_owner, signer, .. }, Some(accounts)) => {
            let proven = crate::account::prove(cw, accounts, (account_owner, signer), &tx, &setup)
                .map_err(|e| reverted(e, "body", &c.marks, prologue, &c.hints))?;
            if proven.outcome.gains != outcome.gains {
                tracing::error!(
                    "the bundle's user operation delivers other amounts than its direct run"
                );
                return Err(ExecError::SimulationMismatch { index: 0 });
            }
            (proven.tx, Some(proven.op), proven.outcome, proven.gas)
        }
        _ => {
            let gas = outcome.gas_used;
            (tx, None, outcome, gas)
        }
    };
    let mut amounts_out: BTreeMap<Address, U256> = BTreeMap::new();
    add_gains(&mut amounts_out, &setup.watch, &outcome.gains);
    let (mut mins, fees, mut plans) = (c.mins, c.fees, c.plans);
    // Each crossing followed to its destination chain.
    if !c.crossings.is_empty() {
        let burned = crate::bridge::deliver_cctp(
            world,
            &state.catalog,
            req.chain,
            &outcome.logs,
            c.request_id,
        )?;
        // A taxi whose callback runs on arrival is measured at its
        // outputs.
        let taxi_watch: Vec<Vec<(Address, Address)>> = c
            .crossings
            .iter()
            .filter(|x| x.taxi)
            .map(|x| x.callback.as_ref().map(|cb| cb.watch.clone()).unwrap_or_default())
            .collect();
        let taxis = crate::bridge::deliver_layerzero(
            world,
            &state.catalog,
            req.chain,
            &outcome.logs,
            &taxi_watch,
        )?;
        // Each kind in the order its actions sent them.
        let (mut burned, mut taxis) = (burned.into_iter(), taxis.into_iter());
        let delivered: Vec<_> = c
            .crossings
            .iter()
            .map_while(|x| if x.taxi { taxis.next() } else { burned.next() })
            .collect();
        if delivered.len() != c.crossings.len() || burned.next().is_some() || taxis.next().is_some()
        {
            tracing::error!(
                sent = delivered.len(),
                "bundle's bridge messages differ from its actions"
            );
            return Err(ExecError::SimulationMismatch { index: 0 });
        }
        for (x, d) in c.crossings.iter().zip(&delivered) {
            let route =
                state.snapshot.bridges().get(x.route).ok_or_else(|| {
                    BundleError::invalid(&x.at, "the bridge route left the snapshot")
                })?;
            let plan = route.crossing(x.route, d.amount_in).map_err(|e| {
                BundleError::unroutable(
                    &x.at,
                    format!("the bridge cannot carry {}: {e}", d.amount_in),
                )
            })?;
            // The kernel's amount is what the destination minted, in the
            // route's token on its chain, and what was known before the
            // run is what was sent.
            let paid_as_planned = plan.amounts_out.first() == Some(&d.arrived)
                && (d.to_chain, d.token_in) == (route.to_chain, route.token_in)
                && x.predicted.is_none_or(|p| route.amount_taken(p) == d.amount_in);
            let received = match &x.callback {
                None => d.token == route.token_out && d.amount == d.arrived,
                // The callback delivers on arrival what its own proof said.
                Some(a) => a.amounts == d.gains,
            };
            if !paid_as_planned || !received {
                tracing::error!(at = %x.at, sent = %d.amount_in, minted = %d.arrived, gains = ?d.gains, "bridge amounts differ");
                return Err(ExecError::SimulationMismatch { index: 0 });
            }
            plans.push(plan);
            match &x.callback {
                None => {
                    let e = amounts_out.entry(d.token).or_default();
                    *e = e.saturating_add(d.amount);
                }
                Some(a) => {
                    for ((_, token), amount) in a.watch.iter().zip(&a.amounts) {
                        let e = amounts_out.entry(*token).or_default();
                        *e = e.saturating_add(*amount);
                    }
                    mins.extend(a.mins.iter().map(|(t, m)| (*t, *m)));
                    plans.extend(a.plans.iter().cloned());
                }
            }
        }
    }
    // The minimums answered are the outputs': a check on an intermediate
    // (a swap's output the next action spends) is enforced in the program
    // but is not something the receiver gets.
    mins.retain(|t, _| amounts_out.contains_key(t));
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let head = state.snapshot.head(req.chain);
    Ok(super::BundleTx {
        user_op,
        program,
        tx,
        gas,
        amounts_out,
        min_amounts_out: mins,
        fee_amounts: fees,
        approvals,
        plans,
        request_id: c.request_id,
        block_number: head.map_or(0, |h| h.block_number),
        valid_until: now.max(head.map_or(0, |h| h.timestamp)) + ROUTE_VALIDITY_SECS,
    })
}

/// A failed simulation setup: an input no account could hold is the
/// bundle's fault, anything else the engine's.
fn setup_failed(e: SimError, base: &str) -> ExecError {
    match e {
        SimError::Unfundable { token, amount, .. } => ExecError::Bundle(BundleError {
            code: ApiCode::AmountTooLarge,
            at: base.to_owned(),
            message: format!(
                "the bundle spends {amount} of {token:#x}, more than can exist (its supply would overflow)"
            ),
        }),
        other => other.into_engine(),
    }
}

/// A failed simulation as the error of the action whose command failed.
fn reverted(
    e: SimError,
    base: &str,
    marks: &[usize],
    prologue: usize,
    hints: &[(Address, String)],
) -> ExecError {
    match e {
        SimError::Failed { reason, source } => {
            let failed = source.revert_data().and_then(|d| {
                <ShortcutsExecutor::ExecutionFailed as alloy_sol_types::SolError>::abi_decode(d)
                    .ok()
            });
            let hint = failed
                .as_ref()
                .and_then(|f| hints.iter().find(|(t, _)| *t == f.target))
                .map(|(_, h)| format!(" ({h})"))
                .unwrap_or_default();
            let failed = failed.and_then(|e| usize::try_from(e.command_index).ok());
            let action = failed.map(|w| action_at(marks, w.saturating_sub(prologue)));
            let at = action.map_or_else(|| base.to_owned(), |i| format!("{base}[{i}]"));
            tracing::info!(at = %at, reason = %reason, "bundle reverts in simulation");
            ExecError::Bundle(BundleError {
                code: ApiCode::BundleUnprocessable,
                at,
                message: format!("the bundle reverts when executed: {reason}{hint}"),
            })
        }
        other => ExecError::SimulationFailed(other.to_string()),
    }
}

/// Every exact prediction against the executed program's final state.
fn check_predictions(
    checks: &[(String, In, U256)],
    state_out: Option<Vec<alloy_primitives::Bytes>>,
) -> Result<(), ExecError> {
    for (at, slot, predicted) in checks {
        let In::Fixed(s) = slot else { continue };
        let got =
            state_out.as_ref().and_then(|st| st.get(s.index())).map(|w| U256::from_be_slice(w));
        if got != Some(*predicted) {
            tracing::error!(at = %at, predicted = %predicted, executed = ?got, "bundle output differs from the kernel's: not returning it");
            return Err(ExecError::SimulationMismatch { index: 0 });
        }
    }
    Ok(())
}

/// Adds each watched balance's gain to its token's total.
fn add_gains(
    into: &mut BTreeMap<Address, U256>,
    watch: &[(Address, Address)],
    gains: &[Option<U256>],
) {
    for ((_, token), gain) in watch.iter().zip(gains) {
        if let Some(g) = gain.filter(|g| !g.is_zero()) {
            let e = into.entry(*token).or_default();
            *e = e.saturating_add(g);
        }
    }
}

/// The action whose commands include body word `w`.
fn action_at(marks: &[usize], w: usize) -> usize {
    marks.iter().rposition(|m| *m <= w).unwrap_or(0)
}
