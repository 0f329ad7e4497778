//! Routes into non-tokenized positions (`/shortcuts/route/nontokenized`):
//! the inputs are routed to the position's underlying token in the account
//! that runs the program (the router's shared executor, or the caller's own
//! account under a delegate strategy), and what arrives goes into the
//! position on the receiver's behalf.
//!
//! ```text
//! inputs ─route (fee, slippage)─▶ underlying in the account (y, checked ≥ min)
//!   Aave variable debt   approve(pool, y); pool.repay(asset, y, 2, receiver)   the receiver's debt −y
//!                        (shared executor: what repay left → refund receiver)
//!   Curve gauge          approve(gauge, y); gauge.deposit(y, receiver)        the receiver's stake +y
//! ```
//!
//! `amountDeposited` is `y` as the kernel predicts it, and the simulation
//! must move the receiver's position by exactly that much. The embedded
//! world has no borrowers, so a repayment is proven against a debt of the
//! amount it repays (the receiver's real debt must be at least that much for
//! all of `y` to be used; Aave repays no more than the debt and the rest
//! stays in the caller's account, or goes from the shared executor to the
//! refund receiver).

use alloy_primitives::{Address, U256};
use alloy_sol_types::SolCall;
use switchyard_catalog::NATIVE_TOKEN;
use switchyard_kernel::Plan;

use crate::{
    ExecError, MarketState,
    encode::{
        self, EncodeError, Runner,
        route::{RouteSpec, approve},
        tx::TxSpec,
        weiroll::{CallKind, Out},
    },
    evm::world::PositionFixture,
    quote::{Quote, fee_of, quote_now},
    route::{
        Book, ROUTE_VALIDITY_SECS, RouteRequest, RouteTx, approvals_of, min_amounts, parties,
        sim_setup, token_amounts, unique,
    },
    simulate::simulate,
};

/// The position calls (public ABIs).
mod calls {
    #![allow(missing_docs)]
    alloy_sol_types::sol! {
        interface IAaveRepay {
            function repay(address asset, uint256 amount, uint256 interestRateMode, address onBehalfOf) external returns (uint256);
        }
        interface IGaugeDeposit {
            function deposit(uint256 value, address addr) external;
        }
    }
}

/// A route into a non-tokenized position.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NontokenizedRequest {
    /// The route to the position's underlying token; `receiver` owns the
    /// position, `quote.outputs` is the underlying token.
    pub route: RouteRequest,
    /// The position's address (its catalog `address`).
    pub position: Address,
}

/// An executable route into a position.
#[derive(Debug, Clone, PartialEq)]
pub struct NontokenizedTx {
    /// The transaction and its quote (the route to the underlying token).
    pub route: RouteTx,
    /// What goes into the position, in the underlying token.
    pub amount_deposited: U256,
}

/// A position entered on its owner's behalf with what a program produced.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct PositionEntry {
    /// The position's address (an Aave debt token, a Curve gauge).
    pub(crate) position: Address,
    /// How the world holds it.
    pub(crate) fixture: PositionFixture,
    /// Whose position it is.
    pub(crate) owner: Address,
}

impl PositionEntry {
    /// The position's underlying token: what goes in.
    pub(crate) const fn underlying(&self) -> Address {
        match self.fixture {
            PositionFixture::AaveDebt { asset, .. } => asset,
            PositionFixture::Gauge { lp } => lp,
        }
    }

    /// How much `before` and `after` of the owner's position balance say
    /// went in: a debt falls, a stake grows.
    pub(crate) fn moved(&self, before: U256, after: U256) -> Option<U256> {
        match self.fixture {
            PositionFixture::AaveDebt { .. } => before.checked_sub(after),
            PositionFixture::Gauge { .. } => after.checked_sub(before),
        }
    }
}

/// Writes the calls putting `y` of the underlying into `entry`'s position
/// for its owner: approve and `repay` on the owner's behalf (Aave), or
/// approve and `deposit` for the owner (a gauge). `sweep`: a shared
/// executor (its address) sends what a repayment above the debt left to the
/// refund receiver.
pub(crate) fn enter_position(
    b: &mut encode::ProgramBuilder,
    entry: &PositionEntry,
    y: encode::weiroll::In,
    sweep: Option<(Address, Address)>,
) -> Result<(), EncodeError> {
    let owner_in = b.address(entry.owner)?;
    match entry.fixture {
        PositionFixture::AaveDebt { pool, asset } => {
            approve(b, asset, pool, y.clone())?;
            let asset_in = b.address(asset)?;
            let variable = b.uint(U256::from(2u8))?;
            b.call(
                CallKind::Call,
                pool,
                calls::IAaveRepay::repayCall::SELECTOR,
                &[asset_in, y, variable, owner_in],
                Out::Ignore,
            )?;
            if let Some((account, refund)) = sweep {
                let account_in = b.address(account)?;
                let left = encode::route::balance_of(b, asset, account_in)?;
                encode::route::send(b, asset, refund, encode::route::Amount::In(left))?;
            }
        }
        PositionFixture::Gauge { lp } => {
            approve(b, lp, entry.position, y.clone())?;
            b.call(
                CallKind::Call,
                entry.position,
                calls::IGaugeDeposit::depositCall::SELECTOR,
                &[y, owner_in],
                Out::Ignore,
            )?;
        }
    }
    Ok(())
}

/// Builds, simulates and checks a route into a position (call it on the
/// pool).
pub fn nontokenized_now(
    state: &MarketState,
    req: &NontokenizedRequest,
) -> Result<NontokenizedTx, ExecError> {
    let world = state.world.as_ref().map_err(|e| ExecError::SimulatorUnavailable(e.clone()))?;
    let route = &req.route;
    let chain = route.quote.chain;
    let cw = world
        .chain(chain)
        .ok_or(ExecError::Route(switchyard_kernel::KernelError::UnknownChain(chain)))?;
    if let Some(to) = route.quote.destination_chain.filter(|d| *d != chain) {
        return across(state, req, to);
    }
    let fixture = fixture_of(cw, req.position, chain)?;
    let p = parties(cw, route)?;
    // The router's shared executor puts what arrives into the position on
    // the receiver's behalf, as an account does; a wallet would own the
    // position itself.
    if !matches!(
        p.runner,
        Runner::Router { .. } | Runner::Delegate { .. } | Runner::LegacyDelegate { .. }
    ) {
        return Err(ExecError::PositionNeedsDelegate);
    }
    let shared = p.runner.is_shared();
    // What the position does not take (a repayment above the debt) leaves a
    // shared executor, to the refund receiver or the sender.
    let refund = route.refund_receiver.unwrap_or(route.from);
    let underlying =
        PositionEntry { position: req.position, fixture, owner: p.receiver }.underlying();
    if route.quote.outputs != [underlying] {
        return Err(ExecError::Encode(EncodeError::Unsupported(
            "a position takes its one underlying token",
        )));
    }
    let quote = quote_into(state, route, underlying)?;
    let deposited = quote.plan.amounts_out.first().copied().unwrap_or_default();
    let mins = min_amounts(
        &quote.plan.amounts_out,
        &route.min_amount_out,
        route.slippage_bps,
        route.slippage_given,
    )?;
    let inputs = token_amounts(&route.quote.inputs);
    let account = p.account;
    let spec = RouteSpec {
        snapshot: &state.snapshot,
        plan: &quote.plan,
        account,
        pull_from: p.pull_from,
        inputs: &inputs,
        fees: &quote.fee_amounts,
        fee_receiver: route.fee_receiver,
        operator_fee: None,
        // The underlying stays in the account and goes on into the position.
        receiver: account,
        outputs: &route.quote.outputs,
        check_min: Some(&mins),
        shared,
        refund: None,
        catalog: &state.catalog,
        exact_out_max_in: None,
        spend_balance: false,
    };
    let entry = PositionEntry { position: req.position, fixture, owner: p.receiver };
    let owner = entry.owner;
    let encoded = encode::encode_plan_then(&spec, &Book(state), |b, produced| {
        let y = produced.first().cloned().ok_or(EncodeError::Unsupported("no output"))?;
        enter_position(b, &entry, y, shared.then_some((account, refund)))
    })
    .map_err(ExecError::Encode)?;
    crate::route::guard(cw, p.account, &encoded.program)?;
    let request_id = encode::request_id(route.referral_code.as_deref(), unique()?);
    let tx = encode::transaction(
        p.runner,
        &encoded.program,
        &TxSpec {
            from: route.from,
            nfts: &[],
            inputs: &inputs,
            outputs: &[],
            receiver: owner,
            account_id: encode::account_id(&route.account_id),
            request_id,
        },
    );
    let approvals = approvals_of(&p, route.from, &inputs);
    encode::guard::check_entry(cw, p.runner, &tx, &approvals)?;
    let mut setup = sim_setup(cw, &p, route.from, &inputs, &approvals);
    // The position as a balance: the receiver's debt or stake.
    setup.watch = vec![(owner, req.position)];
    if let PositionFixture::AaveDebt { .. } = fixture {
        setup.debts = vec![(req.position, owner, deposited)];
    }
    let outcome = simulate(cw, &tx, &setup).map_err(|e| {
        tracing::error!(error = %e, chain = %chain, "position transaction failed in simulation");
        e.into_engine()
    })?;
    let (before, after) = (outcome.before.first(), outcome.after.first());
    let moved = before.zip(after).and_then(|(b, a)| entry.moved(*b, *a));
    if moved != Some(deposited) {
        tracing::error!(
            chain = %chain,
            position = %req.position,
            quoted = %deposited,
            simulated = ?moved,
            "the position moved by another amount than quoted: not returning the transaction"
        );
        return Err(ExecError::SimulationMismatch { index: 0 });
    }
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let head = state.snapshot.head(chain).map_or(0, |h| h.timestamp);
    Ok(NontokenizedTx {
        route: RouteTx {
            valid_until: now.max(head) + ROUTE_VALIDITY_SECS,
            block_number: quote.block_number,
            max_amounts_in: quote.amounts_in.clone(),
            quote,
            min_amounts_out: mins,
            tx,
            gas: outcome.gas_used,
            approvals,
            request_id,
            user_op: None,
        },
        amount_deposited: deposited,
    })
}

/// How the world holds `position` on `chain`, or why it cannot.
fn fixture_of(
    cw: &crate::evm::world::ChainWorld,
    position: Address,
    chain: switchyard_catalog::ChainId,
) -> Result<PositionFixture, ExecError> {
    match cw.positions.get(&position) {
        Some(Ok(f)) => Ok(*f),
        Some(Err(why)) => Err(ExecError::PositionUnavailable { position, why: why.clone() }),
        None => Err(ExecError::PositionUnavailable {
            position,
            why: format!("not a position of chain {chain}"),
        }),
    }
}

/// A position on chain `to`, entered on arrival: the inputs routed on this
/// chain to a Stargate pool, taxied to `to`, and there, through Enso's
/// composer, routed to the underlying and put into the position for the
/// receiver ([`crate::route::route_with`]). Only a taxi runs a program on
/// arrival, so the other bridges are left out.
fn across(
    state: &MarketState,
    req: &NontokenizedRequest,
    to: switchyard_catalog::ChainId,
) -> Result<NontokenizedTx, ExecError> {
    let world = state.world.as_ref().map_err(|e| ExecError::SimulatorUnavailable(e.clone()))?;
    let dcw = world.chain(to).ok_or(ExecError::BridgeUnavailable { chain: to })?;
    let route = &req.route;
    let entry = PositionEntry {
        position: req.position,
        fixture: fixture_of(dcw, req.position, to)?,
        owner: route.receiver.unwrap_or(route.from),
    };
    if route.quote.outputs != [entry.underlying()] {
        return Err(ExecError::Encode(EncodeError::Unsupported(
            "a position takes its one underlying token",
        )));
    }
    let mut r = route.clone();
    let composes = |b: &&switchyard_catalog::Bridge| b.layerzero.is_some();
    let ignored = |b: &&switchyard_catalog::Bridge| route.quote.ignore_bridges.contains(&b.name);
    if !state.catalog.bridges().iter().any(|b| composes(&b) && !ignored(&b)) {
        return Err(ExecError::BridgeUnavailable { chain: to });
    }
    r.quote
        .ignore_bridges
        .extend(state.catalog.bridges().iter().filter(|b| !composes(b)).map(|b| b.name.clone()));
    let tx = crate::route::route_with(state, &r, Some(&entry))?;
    let deposited = tx.quote.plan.amounts_out.first().copied().unwrap_or_default();
    Ok(NontokenizedTx { route: tx, amount_deposited: deposited })
}

/// The quote of the route to `underlying`; when the one input already is
/// it, no route: what is left after the fee goes in.
fn quote_into(
    state: &MarketState,
    route: &RouteRequest,
    underlying: Address,
) -> Result<Quote, ExecError> {
    let q = &route.quote;
    match q.inputs.as_slice() {
        [(token, amount)] if *token == underlying => {
            let bps = q.fee_bps.first().copied().unwrap_or(0);
            let fee = fee_of(*amount, bps);
            let net = *amount - fee;
            if net.is_zero() {
                return Err(ExecError::ZeroAfterFee { index: 0 });
            }
            Ok(Quote {
                plan: Plan {
                    chain: q.chain,
                    destination_chain: q.chain,
                    bridging: Vec::new(),
                    legs: Vec::new(),
                    amounts_out: vec![net],
                    gas: 0,
                },
                amounts_in: vec![*amount],
                exact_out: false,
                operator_fee_amounts: vec![U256::ZERO],
                fee_amounts: vec![fee],
                price_impact_bps: Some(0.0),
                usd_in: None,
                block_number: state.snapshot.head(q.chain).map_or(0, |h| h.block_number),
                views: state.view_of(q.chain).into_iter().collect(),
            })
        }
        _ if q.inputs.iter().any(|(t, _)| *t == NATIVE_TOKEN && underlying == NATIVE_TOKEN) => {
            Err(ExecError::Encode(EncodeError::Unsupported("a position of the native coin")))
        }
        _ => quote_now(state, q),
    }
}
