//! The IPOR-style static shortcut (`/shortcuts/static/ipor`): part of one
//! input buys token B, and both go into the market's two-token vault for
//! the sender.
//!
//! ```text
//! amountIn ─▶ b = amountIn · percentageForTokenB / 10_000,  a = amountIn − b      (exact integers)
//!   b ─kernel route─▶ y (≥ y · (1 − slippage))
//!   a ─(native: WETH.deposit)─▶ token A
//!   approve both; shares = vault.deposit(a, y, sender) (≥ previewDeposit(a, min y))
//! ```
//!
//! The route is the kernel's exact plan and the vault's shares follow from
//! its holdings, which the swap does not touch: the simulation must mint
//! exactly `previewDeposit(a, y)` shares to the sender, or nothing is
//! returned.

use alloy_primitives::{Address, Bytes, Log, U256};
use alloy_sol_types::SolCall;
use switchyard_catalog::{ChainId, NATIVE_TOKEN, RoutingStrategy, market::DualVaultRecord};

use crate::{
    ExecError, MarketState,
    encode::{
        self, EncodeError,
        helpers::{BinaryOp, Helpers, helper, require_at_least},
        protocols::IWETH,
        route::{Amount, LegInput, StepCtx, approve, balance_of, encode_leg, send, word_out},
        tx::TxSpec,
        weiroll::{CallKind, Out, ProgramBuilder},
    },
    evm::abi::ReferenceDualVault,
    quote::{QuoteRequest, quote_now},
    route::{
        Book, RouteRequest, approvals_of, min_amounts, parties, sim_setup, token_amounts, unique,
    },
    simulate::simulate,
};

/// The default slippage of the IPOR shortcut, bps.
pub const DEFAULT_IPOR_SLIPPAGE_BPS: u32 = 300;

/// An IPOR shortcut request, validated by the server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IporRequest {
    /// Chain.
    pub chain: ChainId,
    /// Sender, and owner of the shares.
    pub from: Address,
    /// Through the shared router (else from the sender's own account, the
    /// delegate strategy).
    pub is_router: bool,
    /// Input token (the native coin for [`NATIVE_TOKEN`]).
    pub token_in: Address,
    /// Input amount, wei.
    pub amount_in: U256,
    /// Token B.
    pub token_b: Address,
    /// Share of the input that buys token B, bps.
    pub percentage_b_bps: u32,
    /// Slippage on the purchase (and so on the shares), bps.
    pub slippage_bps: u32,
    /// The API key's account id.
    pub account_id: String,
    /// Referral code.
    pub referral_code: Option<String>,
}

/// Why an IPOR shortcut was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum IporError {
    /// No vault of the market takes the two tokens.
    #[error("no two-token vault on chain {chain} takes {token_a:#x} with {token_b:#x}")]
    NoVault {
        /// Chain.
        chain: ChainId,
        /// Token A (token in, wrapped).
        token_a: Address,
        /// Token B.
        token_b: Address,
    },
    /// One side of the deposit would be empty.
    #[error("percentageForTokenB leaves one side of the deposit empty")]
    EmptySide,
    /// Nothing to deposit.
    #[error("amountIn must be more than 0")]
    ZeroAmount,
}

impl IporError {
    /// What the API answers.
    pub const fn code(&self) -> switchyard_catalog::ApiCode {
        match self {
            Self::NoVault { .. } => switchyard_catalog::ApiCode::NotFound,
            Self::EmptySide | Self::ZeroAmount => switchyard_catalog::ApiCode::InvalidParameter,
        }
    }
}

/// A built IPOR shortcut.
#[derive(Debug, Clone, PartialEq)]
pub struct IporTx {
    /// The transaction.
    pub tx: encode::Tx,
    /// Block of the state it was executed on.
    pub block_number: u64,
    /// The simulation's logs.
    pub logs: Vec<Log>,
    /// The vault.
    pub vault: Address,
    /// Shares the sender receives (as executed).
    pub shares: U256,
    /// Token B bought.
    pub amount_b: U256,
    /// Gas used.
    pub gas: u64,
    /// Approvals to grant first.
    pub approvals: Vec<encode::Approval>,
}

/// The vault for `(token_a, token_b)`, either way round, on `chain`.
fn vault_for(
    state: &MarketState,
    chain: ChainId,
    token_a: Address,
    token_b: Address,
) -> Option<(DualVaultRecord, bool)> {
    state.market.dual_vaults.iter().filter(|v| v.chain_id == chain).find_map(|v| {
        if v.token_a == token_a && v.token_b == token_b {
            Some((v.clone(), false))
        } else if v.token_a == token_b && v.token_b == token_a {
            Some((v.clone(), true))
        } else {
            None
        }
    })
}

/// Builds, simulates and checks the shortcut (call it on the pool).
pub fn ipor_now(state: &MarketState, req: &IporRequest) -> Result<IporTx, ExecError> {
    let world = state.world.as_ref().map_err(|e| ExecError::SimulatorUnavailable(e.clone()))?;
    let chain = req.chain;
    let cw = world
        .chain(chain)
        .ok_or(ExecError::Route(switchyard_kernel::KernelError::UnknownChain(chain)))?;
    let wrapped = state.catalog.network(chain).map(|n| n.wrapped_native);
    let native = req.token_in == NATIVE_TOKEN;
    let token_a = if native { wrapped.unwrap_or(NATIVE_TOKEN) } else { req.token_in };
    let (vault, swapped) = vault_for(state, chain, token_a, req.token_b)
        .ok_or(IporError::NoVault { chain, token_a, token_b: req.token_b })?;
    if req.amount_in.is_zero() {
        return Err(IporError::ZeroAmount.into());
    }
    let b_part = req.amount_in * U256::from(req.percentage_b_bps) / U256::from(10_000u32);
    let a_part = req.amount_in - b_part;
    if a_part.is_zero() || b_part.is_zero() {
        return Err(IporError::EmptySide.into());
    }
    let route = RouteRequest {
        quote: QuoteRequest {
            chain,
            destination_chain: None,
            inputs: vec![(req.token_in, b_part)],
            fee_bps: Vec::new(),
            inputs_transferred: req.is_router,
            outputs_transferred: req.is_router,
            outputs: vec![req.token_b],
            ignore_aggregators: Vec::new(),
            ignore_standards: Vec::new(),
            ignore_bridges: Vec::new(),
            operator_fee_bps: 0,
            amount_out: None,
        },
        from: req.from,
        strategy: if req.is_router { RoutingStrategy::Router } else { RoutingStrategy::Delegate },
        receiver: Some(req.from),
        spender: None,
        refund_receiver: None,
        to_eoa: false,
        fee_receiver: None,
        operator_fee_receiver: None,
        min_amount_out: Vec::new(),
        slippage_bps: req.slippage_bps,
        slippage_given: true,
        referral_code: req.referral_code.clone(),
        account_id: req.account_id.clone(),
        backend: false,
        backend_signer: None,
        account_read: None,
    };
    let p = parties(cw, &route)?;
    let quote = quote_now(state, &route.quote)?;
    let leg = quote
        .plan
        .legs
        .first()
        .ok_or(ExecError::Encode(EncodeError::Unsupported("a route without a leg")))?;
    let bought = quote.plan.amounts_out.first().copied().unwrap_or_default();
    let min_b =
        min_amounts(&[bought], &[], req.slippage_bps, true)?.first().copied().unwrap_or_default();
    // The vault's holdings are not what the swap moves: its shares for the
    // deposit follow from the world as it is.
    let ordered = |a: U256, b: U256| if swapped { (b, a) } else { (a, b) };
    let mut evm = cw.fork();
    let preview = |evm: &mut crate::evm::ForkEvm, a: U256, b: U256| {
        let (x, y) = ordered(a, b);
        evm.view(vault.address, &ReferenceDualVault::previewDepositCall { amountA: x, amountB: y })
            .map_err(|e| ExecError::SimulationFailed(format!("previewDeposit: {e}")))
    };
    let shares_expected = preview(&mut evm, a_part, bought)?;
    let shares_min = preview(&mut evm, a_part, min_b)?;

    let acct = p.account;
    let mut b = ProgramBuilder::with_helpers(Helpers::of(&state.catalog, req.chain));
    let encode = |b: &mut ProgramBuilder| -> Result<(), EncodeError> {
        let acct_in = b.address(acct)?;
        let ctx = StepCtx {
            snapshot: &state.snapshot,
            book: &Book(state),
            catalog: &state.catalog,
            account: acct,
            account_in: acct_in.clone(),
        };
        let outs = encode_leg(b, &ctx, leg, LegInput::Planned)?;
        let mut y = outs.first().cloned().ok_or(EncodeError::Unsupported("empty leg"))?;
        for o in outs.into_iter().skip(1) {
            y = helper(b, BinaryOp::Add, &[y, o])?;
        }
        let min = b.uint(min_b)?;
        y = require_at_least(b, y, min)?;
        let a = b.uint(a_part)?;
        if native {
            let encode::weiroll::In::Fixed(v) = a.clone() else {
                return Err(EncodeError::Unsupported("native amount"));
            };
            b.call(CallKind::Value(v), token_a, IWETH::depositCall::SELECTOR, &[], Out::Ignore)?;
        }
        approve(b, token_a, vault.address, a.clone())?;
        approve(b, req.token_b, vault.address, y.clone())?;
        let (x0, x1) = if swapped { (y, a) } else { (a, y) };
        let owner = b.address(req.from)?;
        let shares = b.call(
            CallKind::Call,
            vault.address,
            ReferenceDualVault::depositCall::SELECTOR,
            &[x0, x1, owner],
            Out::Word,
        )?;
        let shares = word_out(shares)?;
        let min_shares = b.uint(shares_min)?;
        require_at_least(b, shares, min_shares)?;
        if p.runner.is_shared() {
            // A shared executor keeps nothing.
            for t in [token_a, req.token_b] {
                let left = balance_of(b, t, acct_in.clone())?;
                send(b, t, req.from, Amount::In(left))?;
            }
        }
        Ok(())
    };
    encode(&mut b).map_err(ExecError::Encode)?;
    let program = b.build();
    crate::route::guard(cw, p.account, &program)?;
    let inputs = token_amounts(&[(req.token_in, req.amount_in)]);
    let request_id = encode::request_id(req.referral_code.as_deref(), unique()?);
    let tx = encode::transaction(
        p.runner,
        &program,
        &TxSpec {
            from: req.from,
            nfts: &[],
            inputs: &inputs,
            outputs: &[],
            receiver: req.from,
            account_id: encode::account_id(&req.account_id),
            request_id,
        },
    );
    let approvals = approvals_of(&p, req.from, &inputs);
    encode::guard::check_entry(cw, p.runner, &tx, &approvals)?;
    let mut setup = sim_setup(cw, &p, req.from, &inputs, &approvals);
    setup.watch = vec![(req.from, vault.address)];
    let outcome = simulate(cw, &tx, &setup).map_err(|e| {
        tracing::error!(error = %e, chain = %chain, "IPOR shortcut failed in simulation");
        e.into_engine()
    })?;
    let minted = outcome.gains.first().copied().flatten();
    if minted != Some(shares_expected) {
        tracing::error!(expected = %shares_expected, minted = ?minted, "IPOR shortcut minted other shares than predicted");
        return Err(ExecError::SimulationMismatch { index: 0 });
    }
    Ok(IporTx {
        tx,
        block_number: quote.block_number,
        logs: outcome.logs,
        vault: vault.address,
        shares: shares_expected,
        amount_b: bought,
        gas: outcome.gas_used,
        approvals,
    })
}

/// A log as the API shows it: topics and data in hex.
pub fn log_parts(log: &Log) -> (Vec<String>, Bytes, Address) {
    (log.topics().iter().map(ToString::to_string).collect(), log.data.data.clone(), log.address)
}
