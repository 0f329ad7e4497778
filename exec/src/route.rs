//! Executable routes: a quote turned into the transaction of the request's
//! routing strategy, executed in the chain's EVM world before it is
//! returned.
//!
//! ```text
//! RouteRequest ─▶ quote (fee off, kernel plan) ─▶ minimum per output (slippage wins)
//!   ─▶ runner of the strategy (router/executor, own account, wallet) ─▶ encode program + tx
//!   ─▶ simulate in a fork: sender funded, approvals granted ─▶ receiver's gain == amountOut?
//!   ─▶ RouteTx (measured gas)                 otherwise: internal error, logged, nothing returned
//! ```

use alloy_primitives::{Address, B256, U256};
use switchyard_catalog::{ChainId, NATIVE_TOKEN, RoutingStrategy};

use crate::{
    ExecError, MarketState,
    encode::{
        self, Approval, Runner, TokenAmount, Tx,
        route::{ProtocolBook, RouteSpec},
        tx::{TxSpec, approvals},
    },
    evm::world::{ChainWorld, wallet_address},
    quote::{Quote, QuoteRequest, quote_now},
    simulate::{SimError, SimOutcome, SimSetup, simulate},
};

/// A route request, already validated by the server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RouteRequest {
    /// The quote part: chains, inputs (full amounts), fee bps, outputs,
    /// filters.
    pub quote: QuoteRequest,
    /// Sender.
    pub from: Address,
    /// Routing strategy.
    pub strategy: RoutingStrategy,
    /// Receiver of the outputs (default: the sender; for `ensowallet-v2`,
    /// the wallet unless `to_eoa`).
    pub receiver: Option<Address>,
    /// Owner of the inputs when it is not the sender (`delegate`: the
    /// account pulls them with `transferFrom`).
    pub spender: Option<Address>,
    /// Receiver of what is left of inputs and intermediates in a shared
    /// executor.
    pub refund_receiver: Option<Address>,
    /// `ensowallet-v2`: send the outputs to the sender rather than keep them
    /// in the wallet (deprecated in the API, still honoured).
    pub to_eoa: bool,
    /// Fee receiver.
    pub fee_receiver: Option<Address>,
    /// Receiver of the operator's fee (`quote.operator_fee_bps`); without
    /// one no operator fee is taken.
    pub operator_fee_receiver: Option<Address>,
    /// Minimum per output (ignored when `slippage_given`).
    pub min_amount_out: Vec<U256>,
    /// Slippage, bps.
    pub slippage_bps: u32,
    /// Whether the slippage was given (it wins over `min_amount_out`).
    pub slippage_given: bool,
    /// Referral code (the request id's high half).
    pub referral_code: Option<String>,
    /// The API key's account id.
    pub account_id: String,
    /// `executionMode=backend`: an `ensowallet-v2` route runs in the
    /// sender's ERC-4337 account, as a user operation a backend submits
    /// ([`crate::account`]).
    pub backend: bool,
    /// The operator's backend signer (configuration; the engine sets it):
    /// the accounts it signs for instead of their owners.
    pub backend_signer: Option<Address>,
    /// The sender's ERC-4337 account as the chain's node holds it (the
    /// engine reads it where a node follows the chain; `None`: the
    /// world's, where it is not deployed).
    pub account_read: Option<crate::account::AccountRead>,
}

/// The API's default slippage, bps.
pub const DEFAULT_SLIPPAGE_BPS: u32 = 50;

impl RouteRequest {
    /// `quote` as a transaction `from` sends through the router, every
    /// other option at the API's default: the sender receives, slippage
    /// [`DEFAULT_SLIPPAGE_BPS`], no fee, no referral code.
    pub fn router(quote: QuoteRequest, from: Address, account_id: impl Into<String>) -> Self {
        Self {
            quote,
            from,
            strategy: RoutingStrategy::Router,
            receiver: None,
            spender: None,
            refund_receiver: None,
            to_eoa: false,
            fee_receiver: None,
            operator_fee_receiver: None,
            min_amount_out: Vec::new(),
            slippage_bps: DEFAULT_SLIPPAGE_BPS,
            slippage_given: false,
            referral_code: None,
            account_id: account_id.into(),
            backend: false,
            backend_signer: None,
            account_read: None,
        }
    }
}

/// An executable route.
#[derive(Debug, Clone, PartialEq)]
pub struct RouteTx {
    /// The quote it executes.
    pub quote: Quote,
    /// Minimum per output, enforced on chain.
    pub min_amounts_out: Vec<U256>,
    /// The most of each input the transaction takes (an exact output: the
    /// quoted input with the slippage; otherwise the input itself).
    pub max_amounts_in: Vec<U256>,
    /// The transaction.
    pub tx: Tx,
    /// Gas the transaction used in the simulation.
    pub gas: u64,
    /// Allowances the sender grants first.
    pub approvals: Vec<Approval>,
    /// The request id of the on-chain event.
    pub request_id: B256,
    /// Block of the state the route was simulated on.
    pub block_number: u64,
    /// Unix seconds after which the route should be fetched again.
    pub valid_until: u64,
    /// The ERC-4337 operation `tx` submits (`executionMode=backend`),
    /// unsigned.
    pub user_op: Option<crate::account::UserOp>,
}

/// How long a returned route stays valid, seconds.
pub const ROUTE_VALIDITY_SECS: u64 = 60;

/// `amount * (10_000 + slippage) / 10_000`, rounded up or down: the most
/// an exact output may take of its input.
pub fn with_slippage(amount: U256, slippage_bps: u32, round_up: bool) -> U256 {
    let grow = U256::from(10_000u32.saturating_add(slippage_bps));
    let ten_k = U256::from(10_000u32);
    match amount.checked_mul(grow) {
        Some(p) if round_up => p.div_ceil(ten_k),
        Some(p) => p / ten_k,
        None => amount.saturating_add(amount / ten_k * U256::from(slippage_bps)),
    }
}

/// The minimum of each output: `amount * (10_000 - slippage) / 10_000`
/// unless minimums were given without a slippage. A minimum above the
/// amount the route delivers is refused: the transaction could only revert.
pub fn min_amounts(
    amounts_out: &[U256],
    given: &[U256],
    slippage_bps: u32,
    slippage_given: bool,
) -> Result<Vec<U256>, ExecError> {
    let keep = U256::from(10_000u32.saturating_sub(slippage_bps));
    amounts_out
        .iter()
        .enumerate()
        .map(|(k, out)| {
            if slippage_given || given.is_empty() {
                return Ok(out
                    .checked_mul(keep)
                    .map_or(*out / U256::from(10_000u32) * keep, |p| p / U256::from(10_000u32)));
            }
            let min = given.get(k).copied().unwrap_or_default();
            if min > *out {
                return Err(ExecError::MinAmountOut { index: k, min, quoted: *out });
            }
            Ok(min)
        })
        .collect()
}

/// The strategy's runner on a chain.
pub fn runner(
    world: &ChainWorld,
    strategy: RoutingStrategy,
    chain: ChainId,
    from: Address,
) -> Result<Runner, ExecError> {
    let none = || ExecError::StrategyUnavailable { strategy, chain };
    let s = &world.shortcuts;
    Ok(match strategy {
        RoutingStrategy::Router => {
            let (router, executor) = s.router.ok_or_else(none)?;
            Runner::Router { router, executor }
        }
        RoutingStrategy::RouterLegacy => {
            let (router, executor) = s.legacy_router.ok_or_else(none)?;
            Runner::LegacyRouter { router, executor }
        }
        RoutingStrategy::Delegate | RoutingStrategy::Checkout => {
            s.delegate.ok_or_else(none)?;
            Runner::Delegate { account: from }
        }
        RoutingStrategy::DelegateLegacy => {
            s.legacy_delegate.ok_or_else(none)?;
            Runner::LegacyDelegate { account: from }
        }
        RoutingStrategy::EnsoWalletV2 => {
            let (factory, implementation) = s.wallet_factory.ok_or_else(none)?;
            Runner::Wallet { factory, wallet: wallet_address(factory, implementation, from) }
        }
    })
}

/// The sender's ERC-4337 account on a chain, for `ensowallet-v2` with
/// `executionMode=backend`: the account its factory gives it with `signer`
/// (the operator's backend signer, else the sender itself) signing its
/// operations.
pub fn account_runner(
    world: &ChainWorld,
    chain: ChainId,
    from: Address,
    signer: Option<Address>,
) -> Result<Runner, ExecError> {
    let accounts =
        world.shortcuts.accounts.as_ref().ok_or(ExecError::AccountsUnavailable { chain })?;
    let signer = signer.unwrap_or(from);
    Ok(Runner::Account {
        account: accounts.account(from, signer),
        entry_point: accounts.entry_point,
        owner: from,
        signer,
    })
}

/// The sender's ERC-4337 account as its chain holds it, for the proof's
/// fork: refused if the node could not say, or if the account trusts
/// another EntryPoint than the one its operations go to.
pub(crate) fn held_account(
    cw: &ChainWorld,
    runner: Runner,
    read: Option<&crate::account::AccountRead>,
) -> Result<Vec<crate::account::HeldAccount>, ExecError> {
    use crate::account::AccountRead;
    let Runner::Account { account, entry_point, .. } = runner else { return Ok(Vec::new()) };
    match read {
        None | Some(AccountRead::Absent) => Ok(Vec::new()),
        Some(AccountRead::Failed(why)) => {
            Err(ExecError::AccountUnreadable { chain: cw.chain, reason: why.clone() })
        }
        Some(AccountRead::Held(h)) if h.account != account => Ok(Vec::new()),
        Some(AccountRead::Held(h)) if h.entry_point != entry_point => {
            Err(ExecError::AccountEntryPoint { account, entry_point: h.entry_point })
        }
        Some(AccountRead::Held(h)) => Ok(vec![*h]),
    }
}

/// The code an account runs for a delegate strategy.
fn delegation(world: &ChainWorld, runner: Runner) -> Option<(Address, Address)> {
    match runner {
        Runner::Delegate { account } => world.shortcuts.delegate.map(|d| (account, d)),
        Runner::LegacyDelegate { account } => world.shortcuts.legacy_delegate.map(|d| (account, d)),
        _ => None,
    }
}

/// Weighted pool ids: the market record's, else the one the world's Vault
/// registered the pool under.
pub struct Book<'a>(pub &'a MarketState);

impl ProtocolBook for Book<'_> {
    fn pool_id(&self, chain: ChainId, pool: Address) -> Option<B256> {
        let recorded = self.0.market.pools.iter().find_map(|r| match r {
            switchyard_catalog::PoolRecord::Weighted(w)
                if w.chain_id == chain && w.address == pool =>
            {
                w.pool_id
            }
            _ => None,
        });
        recorded.or_else(|| {
            let world = self.0.world.as_ref().ok()?;
            world.chain(chain)?.balancer_pool_id(pool)
        })
    }
}

/// The program guard ([`encode::guard`]) over `program`, run as `account`
/// on `cw`'s chain.
pub(crate) fn guard(
    cw: &ChainWorld,
    account: Address,
    program: &encode::Program,
) -> Result<(), ExecError> {
    Ok(encode::guard::check(cw, account, program)?)
}

/// A fresh low half for a request id.
pub(crate) fn unique() -> Result<[u8; 16], ExecError> {
    let mut b = [0u8; 16];
    getrandom::fill(&mut b).map_err(|_| ExecError::Random)?;
    Ok(b)
}

/// Who takes part in a request on its source chain.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Parties {
    /// The strategy's runner.
    pub(crate) runner: Runner,
    /// The address the program runs as.
    pub(crate) account: Address,
    /// Receiver of the outputs.
    pub(crate) receiver: Address,
    /// Whose inputs the program spends (a delegate's spender, or the
    /// sender).
    pub(crate) owner: Address,
    /// Whom the program pulls the inputs from with `transferFrom`.
    pub(crate) pull_from: Option<Address>,
}

/// The parties of `req` on `cw`.
pub(crate) fn parties(cw: &ChainWorld, req: &RouteRequest) -> Result<Parties, ExecError> {
    let runner = if req.backend && req.strategy == RoutingStrategy::EnsoWalletV2 {
        account_runner(cw, req.quote.chain, req.from, req.backend_signer)?
    } else {
        runner(cw, req.strategy, req.quote.chain, req.from)?
    };
    let receiver = match (req.receiver, runner) {
        (Some(r), _) => r,
        (None, Runner::Wallet { wallet: account, .. } | Runner::Account { account, .. })
            if !req.to_eoa =>
        {
            account
        }
        (None, _) => req.from,
    };
    let owner = match runner {
        Runner::Delegate { .. } | Runner::LegacyDelegate { .. } | Runner::Account { .. } => {
            req.spender.unwrap_or(req.from)
        }
        _ => req.from,
    };
    if let Runner::Account { account, .. } = runner
        && owner != account
        && req.quote.inputs.iter().any(|(t, _)| *t == NATIVE_TOKEN)
    {
        return Err(ExecError::AccountNative);
    }
    if owner != req.from
        && !matches!(runner, Runner::Account { .. })
        && req.quote.inputs.iter().any(|(t, _)| *t == NATIVE_TOKEN)
    {
        return Err(ExecError::SpenderNative);
    }
    let pull_from = match runner {
        Runner::Delegate { .. } | Runner::LegacyDelegate { .. } if owner != req.from => Some(owner),
        Runner::Account { account, .. } if owner != account => Some(owner),
        _ => None,
    };
    Ok(Parties { runner, account: runner.account(), receiver, owner, pull_from })
}

pub(crate) fn token_amounts(list: &[(Address, U256)]) -> Vec<TokenAmount> {
    list.iter().map(|(token, amount)| TokenAmount { token: *token, amount: *amount }).collect()
}

/// The allowances the owner grants whoever pulls its inputs: the router,
/// its own wallet, or (delegate with a spender) the sender's account.
pub(crate) fn approvals_of(p: &Parties, from: Address, inputs: &[TokenAmount]) -> Vec<Approval> {
    match p.runner {
        // An account spending its own balance needs no allowance.
        Runner::Account { account, .. } if p.owner == account => Vec::new(),
        Runner::Delegate { account } | Runner::LegacyDelegate { account } if p.owner != from => {
            inputs
                .iter()
                .filter(|t| t.token != NATIVE_TOKEN)
                .map(|t| Approval {
                    token: t.token,
                    spender: account,
                    amount: t.amount,
                    owner: p.owner,
                    nft: false,
                })
                .collect()
        }
        _ => approvals(p.runner, p.owner, inputs),
    }
}

/// The simulation's starting point: the inputs with their owner (the
/// native coin with the sender), the approvals granted, the sender's
/// account delegated for a delegate strategy; nothing watched yet.
pub(crate) fn sim_setup(
    cw: &ChainWorld,
    p: &Parties,
    from: Address,
    inputs: &[TokenAmount],
    approvals: &[Approval],
) -> SimSetup {
    SimSetup {
        // The native coin rides in the transaction from the sender, but an
        // ERC-4337 account spends its own.
        funds: inputs
            .iter()
            .map(|t| {
                let holder = match p.runner {
                    Runner::Account { .. } => p.owner,
                    _ if t.token == NATIVE_TOKEN => from,
                    _ => p.owner,
                };
                (holder, t.token, t.amount)
            })
            .collect(),
        approvals: approvals.to_vec(),
        delegations: delegation(cw, p.runner).into_iter().collect(),
        watch: Vec::new(),
        debts: Vec::new(),
        positions: Vec::new(),
        accounts: Vec::new(),
        held_accounts: Vec::new(),
    }
}

/// Builds, simulates and checks the route, on the calling thread (the
/// handle's [`EngineHandle::route`](crate::EngineHandle::route) runs it on
/// the engine's pool; benchmarks call it directly).
pub fn route_now(state: &MarketState, req: &RouteRequest) -> Result<RouteTx, ExecError> {
    route_with(state, req, None)
}

/// [`route_now`]; with `entry`, a route across chains whose output, the
/// position's underlying, goes into `entry`'s position on arrival: the
/// crossing is a Stargate taxi (CCTP's receivers run nothing), its
/// destination program composed through Enso's composer ends by entering
/// the position, and the delivery is measured as the position moving.
pub(crate) fn route_with(
    state: &MarketState,
    req: &RouteRequest,
    entry: Option<&crate::nontokenized::PositionEntry>,
) -> Result<RouteTx, ExecError> {
    let world = state.world.as_ref().map_err(|e| ExecError::SimulatorUnavailable(e.clone()))?;
    let chain = req.quote.chain;
    let unknown = |c| ExecError::Route(switchyard_kernel::KernelError::UnknownChain(c));
    let cw = world.chain(chain).ok_or_else(|| unknown(chain))?;
    // A transaction crosses only through a bridge the world runs both sides
    // of (CCTP, Stargate): CCIP and Relay are not in the world.
    // The outputs reach the receiver by transfer unless it is the account
    // that runs the program.
    let parts = parties(cw, req)?;
    let transferred = parts.receiver != parts.account;
    let quote = match req.quote.destination_chain.filter(|d| *d != chain) {
        Some(_) => {
            let mut q = req.quote.clone();
            q.ignore_bridges.extend(unproven_bridges(state, true));
            q.outputs_transferred = transferred;
            let first = quote_now(state, &q)?;
            match split_at_crossing(state, &first.plan) {
                // The search's plan needs more on arrival than a crossing
                // can run (CCTP runs nothing there), or crosses more than
                // once: the route again through one Stargate taxi, pinned.
                Err(ExecError::BridgeUnavailable { .. }) if req.quote.amount_out.is_none() => {
                    pinned_crossing(state, &q, &first).unwrap_or(first)
                }
                _ => first,
            }
        }
        None if req.quote.outputs_transferred != transferred => quote_now(
            state,
            &QuoteRequest { outputs_transferred: transferred, ..req.quote.clone() },
        )?,
        None => quote_now(state, &req.quote)?,
    };
    let plan = &quote.plan;
    let crossing = if plan.destination_chain == chain {
        None
    } else if req.quote.amount_out.is_some() {
        return Err(ExecError::ExactOutRoute("a cross-chain route".into()));
    } else {
        Some(split_at_crossing(state, plan)?)
    };
    let Parties { runner, account, receiver, owner, pull_from } = parties(cw, req)?;
    // A Stargate taxi pays LayerZero's fee in the native coin, with the
    // transaction; a user operation carries none.
    let message_fee = crossing.as_ref().map_or(U256::ZERO, Crossing::fee);
    if !message_fee.is_zero() && matches!(runner, Runner::Account { .. }) {
        return Err(ExecError::AccountMessageFee);
    }
    // A native taxi from an account of the sender's own: what the program
    // measures it produced cannot tell the fee from the amount.
    if crossing.as_ref().is_some_and(|c| c.message_fee.is_some() && c.token == NATIVE_TOKEN)
        && !runner.is_shared()
    {
        return Err(ExecError::BridgeUnavailable {
            chain: req.quote.destination_chain.unwrap_or(chain),
        });
    }
    // The deployed legacy delegate has no `receive()`: an account delegated
    // to it cannot be paid the native coin.
    if matches!(runner, Runner::LegacyDelegate { .. })
        && (req.quote.outputs.contains(&NATIVE_TOKEN)
            || plan
                .legs
                .iter()
                .flat_map(|l| &l.routes)
                .flat_map(|r| &r.steps)
                .any(|s| s.token_out == NATIVE_TOKEN))
    {
        return Err(ExecError::NativeToLegacyDelegate);
    }
    // An exact output: the output is delivered exactly, and the slippage
    // goes on the input (each path may take that much more).
    let exact_out = req.quote.amount_out.is_some();
    let (mins, inputs, route_max) = if exact_out {
        let [(token, _)] = req.quote.inputs.as_slice() else {
            return Err(ExecError::ExactOutShape);
        };
        let total = quote.amounts_in.first().copied().ok_or(ExecError::ExactOutShape)?;
        let route_max: Vec<U256> = plan
            .legs
            .iter()
            .flat_map(|l| &l.routes)
            .map(|r| with_slippage(r.amount_in, req.slippage_bps, false))
            .collect();
        let max = with_slippage(total, req.slippage_bps, true);
        (plan.amounts_out.clone(), vec![TokenAmount { token: *token, amount: max }], route_max)
    } else {
        let mins = min_amounts(
            &plan.amounts_out,
            &req.min_amount_out,
            req.slippage_bps,
            req.slippage_given,
        )?;
        (mins, token_amounts(&req.quote.inputs), Vec::new())
    };
    let request_id = encode::request_id(req.referral_code.as_deref(), unique()?);
    let account_id = encode::account_id(&req.account_id);
    // What runs on arrival: the destination's program, composed through
    // Enso's composer there.
    let ids = (account_id, request_id);
    let composed = match (crossing.as_ref(), entry) {
        (Some(c), Some(e)) if c.message_fee.is_some() => {
            // Nothing to swap on arrival: the position takes what arrives.
            let d = c.destination.clone().unwrap_or_else(|| arrival_only(state, c, plan));
            Some(compose(state, &d, (receiver, mins.as_slice()), ids, Some(e))?)
        }
        (_, Some(_)) => {
            return Err(ExecError::BridgeUnavailable {
                chain: req.quote.destination_chain.unwrap_or(chain),
            });
        }
        (Some(c), None) => match c.destination.as_ref() {
            Some(d) => Some(compose(state, d, (receiver, mins.as_slice()), ids, None)?),
            None => None,
        },
        (None, None) => None,
    };
    let outputs: Vec<TokenAmount> = req
        .quote
        .outputs
        .iter()
        .zip(&mins)
        .map(|(token, amount)| TokenAmount { token: *token, amount: *amount })
        .collect();
    // The deployed routers read the receiver's balance before they pull the
    // inputs: a sender receiving a token it also pays in would see its gain
    // net of what it paid (and a loss would revert). Such a route checks
    // its minimums inside the program instead, on what it produced.
    let nets_inputs = receiver == req.from
        && req.quote.outputs.iter().any(|o| inputs.iter().any(|i| i.token == *o));
    // The outputs of a crossing arrive on the destination chain, where no
    // entry point can read them: the program checks what it burns.
    let outputs = if nets_inputs || crossing.is_some() { Vec::new() } else { outputs };
    let checks_min = !nets_inputs && runner.checks_min(inputs.len(), outputs.len());
    let burned = crossing.as_ref().map(|c| [c.token]);
    // What a crossing sends is held, in the source's decimals, to what
    // delivers the minimum on the destination.
    let source_mins: Vec<U256> = match (&crossing, &composed) {
        (Some(c), Some(k)) => vec![stargate_min(state, c, k.bridged_min)],
        (Some(c), None) if c.message_fee.is_some() => {
            mins.iter().map(|m| stargate_min(state, c, *m)).collect()
        }
        _ => mins.clone(),
    };
    let spec = RouteSpec {
        snapshot: &state.snapshot,
        plan: crossing.as_ref().map_or(plan, |c| &c.source),
        account,
        pull_from,
        inputs: &inputs,
        fees: &quote.fee_amounts,
        fee_receiver: req.fee_receiver,
        operator_fee: req.operator_fee_receiver.map(|r| (quote.operator_fee_amounts.as_slice(), r)),
        // What a crossing burns stays in the account until it is burned.
        receiver: if crossing.is_some() { account } else { receiver },
        outputs: burned.as_ref().map_or(&req.quote.outputs[..], |b| &b[..]),
        check_min: (!checks_min || crossing.is_some()).then_some(source_mins.as_slice()),
        shared: runner.is_shared(),
        // What an exact output leaves of the input goes back: to the
        // refund receiver, else the sender.
        refund: req
            .refund_receiver
            .or(exact_out.then_some(req.from))
            .filter(|_| runner.is_shared()),
        catalog: &state.catalog,
        exact_out_max_in: exact_out.then_some(route_max.as_slice()),
        spend_balance: false,
    };
    let burn = |b: &mut encode::ProgramBuilder, produced: &[encode::weiroll::In]| match (
        &crossing, produced,
    ) {
        (None, _) => Ok(()),
        (Some(c), [amount]) => match c.message_fee {
            None => encode::route::cctp_burn(
                b,
                c.messenger,
                c.token,
                amount.clone(),
                (c.domain, receiver),
            ),
            Some(fee) => {
                let (to, extra_options, compose) = match &composed {
                    Some(k) => (k.composer, k.options.clone(), k.message.clone()),
                    None => {
                        (receiver, alloy_primitives::Bytes::new(), alloy_primitives::Bytes::new())
                    }
                };
                let taxi = encode::route::StargateTaxi {
                    dst_eid: c.domain,
                    to,
                    min_amount_ld: encode::route::MinAmountLd::Fixed(
                        source_mins.first().copied().unwrap_or_default(),
                    ),
                    fee,
                    refund: req.from,
                    extra_options,
                    compose,
                };
                // A shared executor measures what it holds: the native coin
                // it sends holds the fee that came with the transaction.
                let with_fee = runner.is_shared();
                encode::route::stargate_send(
                    b,
                    c.messenger,
                    c.token,
                    amount.clone(),
                    &taxi,
                    with_fee,
                )
            }
        },
        (Some(_), _) => Err(encode::EncodeError::Unsupported("a crossing of several tokens")),
    };
    let encoded = encode::encode_plan_then(&spec, &Book(state), burn).map_err(|e| match e {
        encode::EncodeError::Unsupported(what) if exact_out => {
            ExecError::ExactOutRoute(what.into())
        }
        e => ExecError::Encode(e),
    })?;
    guard(cw, account, &encoded.program)?;
    let tx_inputs = with_native(&inputs, message_fee);
    let tx = encode::transaction(
        runner,
        &encoded.program,
        &TxSpec {
            from: req.from,
            nfts: &[],
            inputs: &tx_inputs,
            outputs: &outputs,
            receiver,
            account_id,
            request_id,
        },
    );
    let parts = Parties { runner, account, receiver, owner, pull_from };
    let mut approvals = approvals_of(&parts, req.from, &inputs);
    all_or_nothing(state, chain, &mut approvals);
    encode::guard::check_entry(cw, runner, &tx, &approvals)?;
    let mut setup = sim_setup(cw, &parts, req.from, &tx_inputs, &approvals);
    setup.held_accounts = held_account(cw, runner, req.account_read.as_ref())?;
    if crossing.is_none() {
        setup.watch = req.quote.outputs.iter().map(|t| (receiver, *t)).collect();
        setup.watch.dedup();
    }
    // An exact output through a shared executor: what it does not need of
    // the input goes back, and that is watched too.
    let refund_watch = match (exact_out, spec.refund, inputs.first()) {
        (true, Some(to), Some(input)) => {
            setup.watch.push((to, input.token));
            Some((setup.watch.len() - 1, to, input.token))
        }
        _ => None,
    };
    let failed = |e: SimError, side: &str| {
        if matches!(e, SimError::Unfundable { .. }) {
            tracing::info!(error = %e, chain = %chain, side, "route input cannot exist");
        } else {
            tracing::error!(error = %e, chain = %chain, strategy = %req.strategy, side, "route transaction failed in simulation");
        }
        e.into_engine()
    };
    let (tx, user_op, outcome, gas) = match (runner, cw.shortcuts.accounts.as_ref()) {
        (Runner::Account { owner: account_owner, signer, .. }, Some(accounts)) => {
            let proven = crate::account::prove(cw, accounts, (account_owner, signer), &tx, &setup)
                .map_err(|e| failed(e, "source"))?;
            (proven.tx, Some(proven.op), proven.outcome, proven.gas)
        }
        _ => {
            let outcome = simulate(cw, &tx, &setup).map_err(|e| failed(e, "source"))?;
            let gas = outcome.gas_used;
            (tx, None, outcome, gas)
        }
    };
    // The receiver may also have paid some of an output as an input.
    // (An ERC-4337 account pays even the native coin itself.)
    let payer = |t: &TokenAmount| match runner {
        Runner::Account { .. } => owner,
        _ if t.token == NATIVE_TOKEN => req.from,
        _ => owner,
    };
    let paid = |token: &Address| {
        inputs
            .iter()
            .filter(|t| t.token == *token && receiver == payer(t))
            .fold(U256::ZERO, |a, t| a.saturating_add(t.amount))
    };
    let delivered = match &crossing {
        None => gains(&setup.watch, &outcome, paid),
        Some(_) => {
            // Followed to the destination chain: the message attested and
            // received there, the receiver's gain measured there.
            let world =
                state.world.as_ref().map_err(|e| ExecError::SimulatorUnavailable(e.clone()))?;
            let arrived = match crossing.as_ref().and_then(|c| c.message_fee) {
                None => crate::bridge::deliver_cctp(
                    world,
                    &state.catalog,
                    chain,
                    &outcome.logs,
                    request_id,
                )?,
                Some(_) => crate::bridge::deliver_layerzero_with(
                    world,
                    &state.catalog,
                    chain,
                    &outcome.logs,
                    &[composed.as_ref().map(|k| vec![(receiver, k.token_out)]).unwrap_or_default()],
                    &entry.map(|e| debt_for(e, plan)).unwrap_or_default(),
                )?,
            };
            match (arrived.as_slice(), entry) {
                // The position moved by what the plan delivers.
                ([d], Some(e)) if d.receiver == e.owner && d.token == e.position => {
                    vec![d.balances.first().and_then(|(b, a)| e.moved(*b, *a))]
                }
                ([d], None) if d.receiver == receiver && req.quote.outputs == [d.token] => {
                    vec![Some(d.amount)]
                }
                _ => {
                    tracing::error!(chain = %chain, messages = arrived.len(), "route's crossing differs from its plan");
                    return Err(ExecError::SimulationMismatch { index: 0 });
                }
            }
        }
    };
    for (k, (token, quoted)) in req.quote.outputs.iter().zip(&plan.amounts_out).enumerate() {
        let got = delivered.get(k).copied().flatten();
        if got != Some(*quoted) {
            tracing::error!(
                chain = %chain,
                output = k,
                token = %token,
                quoted = %quoted,
                simulated = ?got,
                "simulated output differs from the quote: not returning the transaction"
            );
            return Err(ExecError::SimulationMismatch { index: k });
        }
    }
    if let Some((k, to, token)) = refund_watch {
        let max = inputs.first().map_or(U256::ZERO, |t| t.amount);
        let spent = quote.amounts_in.first().copied().unwrap_or_default();
        let back = if to == owner { max } else { U256::ZERO };
        let refunded = match (outcome.before.get(k), outcome.after.get(k)) {
            (Some(b), Some(a)) => a.checked_add(back).and_then(|a| a.checked_sub(*b)),
            _ => None,
        };
        if refunded != max.checked_sub(spent) {
            tracing::error!(
                chain = %chain,
                token = %token,
                max = %max,
                quoted_in = %spent,
                refunded = ?refunded,
                "exact output: the input refunded is not the unspent part: not returning the transaction"
            );
            return Err(ExecError::SimulationMismatch { index: 0 });
        }
    }
    if !crate::simulate::shortcut_ran(&outcome.logs, runner, request_id) {
        tracing::error!(chain = %chain, "simulated transaction emitted no ShortcutExecuted");
        return Err(ExecError::SimulationMismatch { index: 0 });
    }
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let head = state.snapshot.head(chain).map_or(0, |h| h.timestamp);
    Ok(RouteTx {
        valid_until: now.max(head) + ROUTE_VALIDITY_SECS,
        block_number: quote.block_number,
        quote,
        min_amounts_out: mins,
        max_amounts_in: inputs.iter().map(|t| t.amount).collect(),
        tx,
        gas,
        approvals,
        request_id,
        user_op,
    })
}

/// A cross-chain plan as the world can build it: it crosses once (CCTP,
/// or a Stargate taxi), and only a taxi may run more on the destination
/// chain (`destination`).
pub(crate) struct Crossing {
    /// The plan up to the crossing: what it leaves of the sent token.
    pub(crate) source: switchyard_kernel::Plan,
    /// The crossing's bridge route in the snapshot.
    pub(crate) route: usize,
    /// The sent token.
    pub(crate) token: Address,
    /// The bridge's entry contract on this chain: CCTP's
    /// `TokenMessengerV2`, or the token's Stargate pool.
    pub(crate) messenger: Address,
    /// The destination's CCTP domain (CCTP), or its LayerZero endpoint id
    /// (Stargate).
    pub(crate) domain: u32,
    /// LayerZero's native fee for a Stargate taxi; `None` for CCTP.
    pub(crate) message_fee: Option<U256>,
    /// What runs on the destination chain with what arrived (Stargate
    /// only, composed through Enso's composer): a plan on that chain from
    /// the bridged token to the outputs, its input exactly what arrives.
    pub(crate) destination: Option<switchyard_kernel::Plan>,
}

impl Crossing {
    /// The message's fee in the native coin, when it has one.
    pub(crate) fn fee(&self) -> U256 {
        self.message_fee.unwrap_or_default()
    }
}

/// Whether `token` is a Compound III market on `chain`, whose `approve`
/// takes 0 or all (`BadAmount` otherwise).
pub(crate) fn is_comet(state: &MarketState, chain: ChainId, token: Address) -> bool {
    comet_index(state, chain, token).is_some()
}

/// The supply index of the Compound III market `token` is, on `chain`.
fn comet_index(state: &MarketState, chain: ChainId, token: Address) -> Option<U256> {
    let p = state.snapshot.pools().get(state.snapshot.scaled_pool(chain, token)?)?;
    match &p.state {
        switchyard_kernel::PoolState::Lending(l)
            if l.model == switchyard_catalog::market::LendingModel::Comet =>
        {
            Some(l.exchange_rate)
        }
        _ => None,
    }
}

/// The least balance of `token` to send by `transfer` so that the account
/// it reaches reads at least `want`: `want` itself but for a Compound III
/// balance, whose principal rounds down on the way in.
pub(crate) fn comet_cover(state: &MarketState, chain: ChainId, token: Address, want: U256) -> U256 {
    use switchyard_kernel::amm::vault::{comet_principal, comet_read};
    let Some(index) = comet_index(state, chain, token) else { return want };
    let reads = |a: U256| comet_principal(index, a).and_then(|p| comet_read(index, p));
    let mut a = want;
    // Each wei more is a little under one more wei read (the index is at
    // least 1e15 and the balance rounds down twice): a few suffice.
    for _ in 0..8 {
        if reads(a).is_ok_and(|r| r >= want) {
            return a;
        }
        a = a.saturating_add(U256::ONE);
    }
    a
}

/// Each allowance of a Compound III balance raised to all of it: the
/// market approves nothing in between.
pub(crate) fn all_or_nothing(state: &MarketState, chain: ChainId, approvals: &mut [Approval]) {
    for a in approvals.iter_mut().filter(|a| !a.nft && is_comet(state, chain, a.token)) {
        a.amount = U256::MAX;
    }
}

/// The bridges a transaction may not cross by: those whose deployed
/// contracts the world does not run on both sides (every one but CCTP and,
/// with `stargate`, Stargate).
pub(crate) fn unproven_bridges(
    state: &MarketState,
    stargate: bool,
) -> impl Iterator<Item = String> + '_ {
    state
        .catalog
        .bridges()
        .iter()
        .filter(move |b| b.cctp.is_none() && !(stargate && b.layerzero.is_some()))
        .map(|b| b.name.clone())
}

pub(crate) fn split_at_crossing(
    state: &MarketState,
    plan: &switchyard_kernel::Plan,
) -> Result<Crossing, ExecError> {
    use switchyard_kernel::StepAction;
    let to = plan.destination_chain;
    let unavailable = || ExecError::BridgeUnavailable { chain: to };
    let cctp = crate::evm::cctp::setup(&state.catalog);
    let stargate = crate::evm::layerzero::setup(&state.catalog);
    // A bridge the world runs on both chains.
    let runs = |b: &switchyard_kernel::BridgeRoute| {
        cctp.is_some_and(|(c, s)| {
            *c.name == *b.name
                && s.domain(to).is_some()
                && b.fee_bps == 0
                && b.fixed_fee.is_zero()
                && b.decimals_in == b.decimals_out
        }) || stargate.is_some_and(|(c, _)| {
            *c.name == *b.name
                && b.fixed_fee.is_zero()
                && crate::evm::layerzero::pools_on(&state.catalog, b.from_chain)
                    .any(|p| p.pool == b.contract && p.token == b.token_in)
                && crate::evm::layerzero::pools_on(&state.catalog, to)
                    .any(|p| p.token == b.token_out)
        })
    };
    // Each route splits at its crossing: what runs before it on this
    // chain, and what runs after it on the destination. Routes wholly on
    // one side stay on it.
    let mut source = plan.clone();
    source.destination_chain = plan.chain;
    source.bridging.clear();
    let mut after: Vec<switchyard_kernel::Route> = Vec::new();
    let mut crossed: Option<usize> = None;
    let mut crossings = 0usize;
    let mut arrived = U256::ZERO;
    let mut sent = U256::ZERO;
    for leg in &mut source.legs {
        let mut leg_sent = U256::ZERO;
        let mut kept = Vec::with_capacity(leg.routes.len());
        for mut route in std::mem::take(&mut leg.routes) {
            let at = route.steps.iter().position(|s| s.action == StepAction::Bridge);
            let Some(at) = at else {
                if route.steps.first().is_some_and(|s| s.chain == plan.chain) {
                    kept.push(route);
                } else {
                    after.push(route);
                }
                continue;
            };
            let tail = route.steps.split_off(at + 1);
            let Some(last) = route.steps.pop() else { return Err(unavailable()) };
            let bridge = state.snapshot.bridges().get(last.pool);
            let ok = tail.iter().all(|s| s.action != StepAction::Bridge && s.chain == to)
                && crossed.is_none_or(|k| k == last.pool)
                && bridge.is_some_and(runs);
            if !ok {
                return Err(unavailable());
            }
            crossed = Some(last.pool);
            crossings += 1;
            arrived = arrived.saturating_add(last.amount_out);
            if !tail.is_empty() {
                let out = tail.last().map_or(U256::ZERO, |s| s.amount_out);
                after.push(switchyard_kernel::Route {
                    amount_in: last.amount_out,
                    amount_out: out,
                    steps: tail,
                });
            }
            route.amount_out = last.amount_in;
            leg_sent = leg_sent.saturating_add(last.amount_in);
            if !route.steps.is_empty() {
                kept.push(route);
            }
        }
        leg.routes = kept;
        leg.amount_out = leg_sent;
        sent = sent.saturating_add(leg_sent);
    }
    let k = crossed.ok_or_else(unavailable)?;
    let route = state.snapshot.bridges().get(k).ok_or_else(unavailable)?;
    for leg in &mut source.legs {
        leg.token_out = route.token_in;
    }
    source.amounts_out = vec![sent];
    let destination = match after.as_slice() {
        [] => None,
        // More than one message's worth of crossings would each round on
        // their own, and the destination's amounts are per crossing.
        _ if crossings > 1 || plan.legs.len() != 1 || stargate.is_none() => {
            return Err(unavailable());
        }
        _ => {
            let amount_out = plan.amounts_out.first().copied().unwrap_or_default();
            let token_out = plan.legs.first().map_or(route.token_out, |l| l.token_out);
            Some(switchyard_kernel::Plan {
                chain: to,
                destination_chain: to,
                bridging: Vec::new(),
                legs: vec![switchyard_kernel::Leg {
                    token_in: route.token_out,
                    token_out,
                    amount_in: arrived,
                    amount_out,
                    routes: after,
                }],
                amounts_out: plan.amounts_out.clone(),
                gas: 0,
            })
        }
    };
    // The crossing is exact: what arrives is what the plan says.
    let lands = if destination.is_some() {
        arrived
    } else {
        plan.amounts_out.first().copied().unwrap_or_default()
    };
    if route.amount_out(sent).ok() != Some(lands) {
        return Err(unavailable());
    }
    let crossing = |domain, message_fee| Crossing {
        source: source.clone(),
        route: k,
        token: route.token_in,
        messenger: route.contract,
        domain,
        message_fee,
        destination: destination.clone(),
    };
    match (cctp, stargate) {
        (Some((c, s)), _) if *c.name == *route.name => {
            let limit = U256::from(s.burn_limit_per_message);
            if sent > limit {
                return Err(ExecError::BridgeLimit {
                    bridge: route.name.to_string(),
                    amount: sent,
                    limit,
                });
            }
            if destination.is_some() {
                // Enso deploys no CCTP receiver that runs more on arrival.
                return Err(unavailable());
            }
            Ok(crossing(s.domain(to).ok_or_else(unavailable)?, None))
        }
        (_, Some((_, lz))) => {
            let eid = crate::evm::layerzero::eid_of(&state.catalog, to).ok_or_else(unavailable)?;
            let fee = lz.message_fee(plan.chain).ok_or_else(unavailable)?;
            Ok(crossing(eid, Some(U256::from(fee))))
        }
        _ => Err(unavailable()),
    }
}

/// A destination program composed into a Stargate taxi.
pub(crate) struct Composed {
    /// Enso's composer on the destination, the taxi's receiver.
    pub(crate) composer: Address,
    /// The compose message: `abi.encode(receiver, nativeDrop,
    /// estimatedGas, shortcutData)`, `shortcutData` the destination
    /// router's executor call.
    pub(crate) message: alloy_primitives::Bytes,
    /// The taxi's executor options: the compose's gas.
    pub(crate) options: alloy_primitives::Bytes,
    /// The output the receiver is measured in.
    pub(crate) token_out: Address,
    /// The least of the bridged token the destination program is built
    /// for (its slippage, applied to what arrives).
    pub(crate) bridged_min: U256,
}

/// Gas the composer spends around the shortcut (decoding, the `try`, an
/// approval, the failure path's transfer), beside what the destination
/// program measured.
pub(crate) const COMPOSE_OVERHEAD_GAS: u64 = 150_000;

/// The compose message of a shortcut on arrival whose run measured
/// `gas_used`, and the taxi's options buying its `lzCompose`: the
/// composer's `estimatedGas` a quarter over the measure, the option that
/// and [`COMPOSE_OVERHEAD_GAS`]; what is left of a failed shortcut goes to
/// `receiver`. `native_drop` is the destination's native coin the executor
/// calls the composer with, which it passes on to the router beside what
/// arrived (the composer refuses a call with less).
pub(crate) fn compose_message(
    receiver: Address,
    shortcut: alloy_primitives::Bytes,
    gas_used: u64,
    native_drop: u128,
) -> (Vec<u8>, alloy_primitives::Bytes) {
    use alloy_sol_types::SolValue;
    let estimated = gas_used.saturating_add(gas_used / 4);
    let message =
        (receiver, U256::from(native_drop), U256::from(estimated), shortcut).abi_encode_params();
    let options = crate::evm::layerzero::lz_compose_options(
        0,
        estimated.saturating_add(COMPOSE_OVERHEAD_GAS),
        native_drop,
    );
    (message, options)
}

/// Builds and measures the program that runs on arrival: `destination`'s
/// plan, run by the destination router's executor when Enso's composer
/// passes it what arrived (`routeSingle`), paying `receiver` and holding
/// each output to `mins`. Proven on the destination's world by itself
/// first (its gas, its outputs to the wei); the whole crossing is proven
/// again after the source side runs.
pub(crate) fn compose(
    state: &MarketState,
    destination: &switchyard_kernel::Plan,
    (receiver, mins): (Address, &[U256]),
    (account_id, request_id): (B256, B256),
    entry: Option<&crate::nontokenized::PositionEntry>,
) -> Result<Composed, ExecError> {
    use alloy_sol_types::{SolCall, SolValue};
    let to = destination.chain;
    let unavailable = || ExecError::BridgeUnavailable { chain: to };
    let world = state.world.as_ref().map_err(|e| ExecError::SimulatorUnavailable(e.clone()))?;
    let dcw = world.chain(to).ok_or_else(unavailable)?;
    let (router, executor) = dcw.shortcuts.router.ok_or_else(unavailable)?;
    let composer = crate::evm::layerzero::setup(&state.catalog)
        .and_then(|(_, lz)| lz.composer(to))
        .ok_or_else(unavailable)?;

    let leg = destination.legs.first().ok_or_else(unavailable)?;
    let (token_in, arrived) = (leg.token_in, leg.amount_in);
    let outputs = [leg.token_out];
    let inputs = [TokenAmount { token: token_in, amount: arrived }];
    let spec = RouteSpec {
        snapshot: &state.snapshot,
        plan: destination,
        account: executor,
        pull_from: None,
        inputs: &inputs,
        fees: &[U256::ZERO],
        fee_receiver: None,
        operator_fee: None,
        // What goes into a position stays with the executor until it does.
        receiver: if entry.is_some() { executor } else { receiver },
        outputs: &outputs,
        check_min: Some(mins),
        shared: true,
        refund: Some(receiver),
        catalog: &state.catalog,
        exact_out_max_in: None,
        // What arrives is known only on arrival: the executor spends all
        // it holds of it (it holds nothing else).
        spend_balance: true,
    };
    let program = encode::encode_plan_then(&spec, &Book(state), |b, produced| match entry {
        Some(e) => {
            let y =
                produced.first().cloned().ok_or(encode::EncodeError::Unsupported("no output"))?;
            crate::nontokenized::enter_position(b, e, y, Some((executor, receiver)))
        }
        None => Ok(()),
    })
    .map_err(ExecError::Encode)?
    .program;
    guard(dcw, executor, &program)?;
    let shortcut: alloy_primitives::Bytes = encode::protocols::IShortcuts::executeShortcutCall {
        accountId: account_id,
        requestId: request_id,
        commands: program.commands,
        state: program.state,
    }
    .abi_encode()
    .into();
    // The composer's own call, measured on the destination's world (the
    // native coin it passes as the call's value).
    use crate::evm::abi::ShortcutsRouter::{Token, TokenType};
    let (token, value, approvals) = if token_in == NATIVE_TOKEN {
        (Token { tokenType: TokenType::Native, data: arrived.abi_encode().into() }, arrived, vec![])
    } else {
        let token = Token {
            tokenType: TokenType::ERC20,
            data: (token_in, arrived).abi_encode_params().into(),
        };
        let approval = Approval {
            token: token_in,
            spender: router,
            amount: arrived,
            owner: composer,
            nft: false,
        };
        (token, U256::ZERO, vec![approval])
    };
    let call = crate::evm::abi::ShortcutsRouter::routeSingleCall {
        tokenIn: token,
        data: shortcut.clone(),
    };
    let tx = Tx { from: composer, to: router, data: call.abi_encode().into(), value };
    let setup = SimSetup {
        funds: vec![(composer, token_in, arrived)],
        approvals,
        watch: vec![entry.map_or((receiver, leg.token_out), |e| (e.owner, e.position))],
        debts: entry.map(|e| debt_for(e, destination)).unwrap_or_default(),
        ..SimSetup::default()
    };
    let ran = simulate(dcw, &tx, &setup).map_err(|e| {
        tracing::error!(error = %e, chain = %to, "the destination program failed in simulation");
        e.into_engine()
    })?;
    let delivered = match entry {
        Some(e) => ran.before.first().zip(ran.after.first()).and_then(|(b, a)| e.moved(*b, *a)),
        None => ran.gains.first().copied().flatten(),
    };
    if delivered != destination.amounts_out.first().copied() {
        tracing::error!(chain = %to, gains = ?ran.gains, planned = ?destination.amounts_out, "the destination program delivers other than its plan");
        return Err(ExecError::SimulationMismatch { index: 0 });
    }
    let (message, options) = compose_message(receiver, shortcut, ran.gas_used, 0);
    // The destination's slippage, applied to what arrives.
    let slippage = match (mins.first(), destination.amounts_out.first()) {
        (Some(m), Some(a)) if !a.is_zero() => (*a - (*m).min(*a)) * arrived / *a,
        _ => U256::ZERO,
    };
    Ok(Composed {
        composer,
        message: message.into(),
        options,
        token_out: entry.map_or(leg.token_out, |e| e.position),
        bridged_min: arrived - slippage.min(arrived),
    })
}

/// The debt a repayment on arrival is proven against: as much as the plan
/// repays (the world has no borrowers); none for another position.
fn debt_for(
    entry: &crate::nontokenized::PositionEntry,
    plan: &switchyard_kernel::Plan,
) -> Vec<(Address, Address, U256)> {
    match entry.fixture {
        crate::evm::world::PositionFixture::AaveDebt { .. } => {
            let amount = plan.amounts_out.first().copied().unwrap_or_default();
            vec![(entry.position, entry.owner, amount)]
        }
        crate::evm::world::PositionFixture::Gauge { .. } => Vec::new(),
    }
}

/// The destination program of a crossing with nothing to swap on arrival:
/// what arrives, as it arrives (a leg of no routes).
fn arrival_only(
    state: &MarketState,
    c: &Crossing,
    plan: &switchyard_kernel::Plan,
) -> switchyard_kernel::Plan {
    let to = plan.destination_chain;
    let token = state.snapshot.bridges().get(c.route).map_or(Address::ZERO, |r| r.token_out);
    let arrived = plan.amounts_out.first().copied().unwrap_or_default();
    switchyard_kernel::Plan {
        chain: to,
        destination_chain: to,
        bridging: Vec::new(),
        legs: vec![switchyard_kernel::Leg {
            token_in: token,
            token_out: token,
            amount_in: arrived,
            amount_out: arrived,
            routes: Vec::new(),
        }],
        amounts_out: vec![arrived],
        gas: 0,
    }
}

/// `inputs` with `wei` more of the native coin (an input of its own, or
/// added to the native input).
fn with_native(inputs: &[TokenAmount], wei: U256) -> Vec<TokenAmount> {
    let mut out = inputs.to_vec();
    if wei.is_zero() {
        return out;
    }
    match out.iter_mut().find(|t| t.token == NATIVE_TOKEN) {
        Some(t) => t.amount = t.amount.saturating_add(wei),
        None => out.push(TokenAmount { token: NATIVE_TOKEN, amount: wei }),
    }
    out
}

/// The best route of one input to one output on another chain that
/// crosses once, through one Stargate pool: for each pool that carries a
/// token from this chain to the destination, the search on this chain to
/// its token, the taxi (exact, as `FeeLibV1` charges), and the search on
/// the destination from what arrives. The plan is one leg: this chain's
/// routes, the crossing, the destination's routes. `base` is the search's
/// own quote of the request (its fees and views are the same).
fn pinned_crossing(
    state: &MarketState,
    q: &QuoteRequest,
    base: &crate::Quote,
) -> Option<crate::Quote> {
    let left = base.plan.legs.first()?.amount_in;
    let plan = pinned_plan(state, q, left)?;
    Some(crate::Quote { plan, ..base.clone() })
}

/// [`pinned_crossing`]'s plan for `left` of the request's one input (what
/// is left of it after fees), or `None` when no Stargate pool carries it.
pub(crate) fn pinned_plan(
    state: &MarketState,
    q: &QuoteRequest,
    left: U256,
) -> Option<switchyard_kernel::Plan> {
    let ([(token_in, _)], [token_out], Some(to)) =
        (q.inputs.as_slice(), q.outputs.as_slice(), q.destination_chain)
    else {
        return None;
    };
    let (stargate, _) = crate::evm::layerzero::setup(&state.catalog)?;
    let single = |chain: ChainId, inputs: Vec<(Address, U256)>, output: Address, fees: bool| {
        let r = QuoteRequest {
            chain,
            destination_chain: None,
            inputs,
            fee_bps: if fees { q.fee_bps.clone() } else { Vec::new() },
            inputs_transferred: fees && q.inputs_transferred,
            outputs_transferred: !fees && q.outputs_transferred,
            outputs: vec![output],
            ignore_aggregators: q.ignore_aggregators.clone(),
            ignore_standards: q.ignore_standards.clone(),
            ignore_bridges: Vec::new(),
            operator_fee_bps: if fees { q.operator_fee_bps } else { 0 },
            amount_out: None,
        };
        quote_now(state, &r).ok()
    };
    let mut best: Option<(U256, switchyard_kernel::Plan)> = None;
    for (k, bridge) in state.snapshot.bridges().iter().enumerate() {
        if *bridge.name != stargate.name || bridge.from_chain != q.chain || bridge.to_chain != to {
            continue;
        }
        // A pool this chain cannot reach, or whose arrival goes nowhere,
        // leaves the others to try.
        let (source, sent, source_gas) = if bridge.token_in == *token_in {
            (Vec::new(), left, 0)
        } else {
            let Some(s) = single(q.chain, q.inputs.clone(), bridge.token_in, true) else {
                continue;
            };
            let (Some(&sent), Some(leg)) = (s.plan.amounts_out.first(), s.plan.legs.first()) else {
                continue;
            };
            (leg.routes.clone(), sent, s.plan.gas)
        };
        let Ok(cross) = bridge.crossing(k, sent) else { continue };
        let Some(&arrived) = cross.amounts_out.first() else { continue };
        let (after, out, dest_gas) = if bridge.token_out == *token_out {
            (Vec::new(), arrived, 0)
        } else {
            let Some(d) = single(to, vec![(bridge.token_out, arrived)], *token_out, false) else {
                continue;
            };
            let (Some(&out), Some(leg)) = (d.plan.amounts_out.first(), d.plan.legs.first()) else {
                continue;
            };
            (leg.routes.clone(), out, d.plan.gas)
        };
        if best.as_ref().is_some_and(|(b, _)| *b >= out) {
            continue;
        }
        let crossing: Vec<_> = cross.legs.into_iter().flat_map(|l| l.routes).collect();
        // One path on each side is one route; a split on either side
        // stays its own routes, in order (the leg's routes go on from the
        // tokens earlier ones delivered).
        let routes = if source.len() <= 1 && after.len() <= 1 {
            let steps = source.into_iter().chain(crossing).chain(after).flat_map(|r| r.steps);
            vec![switchyard_kernel::Route {
                amount_in: left,
                amount_out: out,
                steps: steps.collect(),
            }]
        } else {
            source.into_iter().chain(crossing).chain(after).collect()
        };
        let plan = switchyard_kernel::Plan {
            chain: q.chain,
            destination_chain: to,
            bridging: cross.bridging,
            legs: vec![switchyard_kernel::Leg {
                token_in: *token_in,
                token_out: *token_out,
                amount_in: left,
                amount_out: out,
                routes,
            }],
            amounts_out: vec![out],
            gas: source_gas.saturating_add(cross.gas).saturating_add(dest_gas),
        };
        best = Some((out, plan));
    }
    best.map(|(_, plan)| plan)
}

/// A Stargate taxi's `minAmountLD` (the source's decimals) that holds
/// the destination to `min_out` (its own decimals): the pool compares
/// shared units, so the least whole shared unit at or above `min_out`.
pub(crate) fn stargate_min(state: &MarketState, c: &Crossing, min_out: U256) -> U256 {
    let Some(route) = state.snapshot.bridges().get(c.route) else { return min_out };
    crate::evm::layerzero::min_amount_ld(route, min_out)
}

/// Each watched output's gain (by the first watch of its token), with what
/// `paid` says the holder spent of it added back.
fn gains(
    watch: &[(Address, Address)],
    outcome: &SimOutcome,
    paid: impl Fn(&Address) -> U256,
) -> Vec<Option<U256>> {
    watch
        .iter()
        .enumerate()
        .map(|(i, (_, token))| {
            let (b, a) = (outcome.before.get(i)?, outcome.after.get(i)?);
            a.checked_add(paid(token))?.checked_sub(*b)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slippage_wins_and_minimums_above_the_route_are_refused() {
        let out = [U256::from(10_000u32)];
        assert_eq!(min_amounts(&out, &[], 50, false).ok(), Some(vec![U256::from(9_950u32)]));
        assert_eq!(
            min_amounts(&out, &[U256::from(9_000u32)], 50, false).ok(),
            Some(vec![U256::from(9_000u32)])
        );
        assert_eq!(
            min_amounts(&out, &[U256::from(9_000u32)], 100, true).ok(),
            Some(vec![U256::from(9_900u32)])
        );
        assert!(matches!(
            min_amounts(&out, &[U256::from(10_001u32)], 50, false),
            Err(ExecError::MinAmountOut { index: 0, .. })
        ));
    }
}
