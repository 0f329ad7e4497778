//! A plan's program: the calls each step makes, with every step's output in
//! a slot the next step reads. Every call goes to a contract deployed on
//! the chain: the tokens, the pools, their periphery routers and Enso's
//! helper contracts (`helpers.rs`); never to the executing account.
//!
//! ```text
//! [before: balance of each output]      token.balanceOf(account)     (not on a shared executor)
//! [pull inputs from their owner]        token.transferFrom(owner, account, amountIn)
//! [fee per input]                       token.transfer(feeReceiver, fee)
//! [operator fee per input]              token.transfer(operatorFeeReceiver, ensoFee)
//! per leg, per route (split share; a route from an intermediate token: its
//! share of what the routes into that token delivered, the last the rest), per step:
//!     V2     approve(router); router.swapExactTokensForTokens(x, 0, [in, out], account, max)
//!            (out = balance after − before)
//!     V3     approve(swapRouter); out = swapRouter.exactInputSingle((in, out, fee, account, …, x, 0, 0))
//!            LP in:  sold = x·sold/amountIn; approve; router.swapExactTokensForTokens(sold, 0, [in, other], account, max)
//!                    approve ×2; router.addLiquidity(in, other, x − sold, bought, 0, 0, account, max)
//!                    (bought, out = balance after − before)
//!            LP out: approve; router.removeLiquidity(out, other, x, 0, 0, account, max);
//!                    approve; router.swapExactTokensForTokens(paid, 0, [other, out], account, max)
//!                    (paid, out = balance after − before)
//!     curve  out = pool.get_dy(i, j, x); approve; pool.exchange{value?}(i, j, x, out)
//!            LP in:  approve; pool.add_liquidity{value?}([.., x at i, ..], 0)   (out = LP balance after − before)
//!            LP out: out = pool.calc_withdraw_one_coin(x, j); pool.remove_liquidity_one_coin(x, j, out)
//!     bal.   approve; out = vault.swap((poolId, GIVEN_IN, in, out, x, ""), (account, false, account, false), 0, max)
//!     4626   approve; out = vault.deposit(x, account)  |  out = vault.redeem(x, account, account)
//!     wrap   weth.deposit{value: x}()  |  weth.withdraw(x)            (out = x)
//! exact output, per route instead (one router call for its whole path):
//!     V2     approve(router, max); router.swapTokensForExactTokens(out, max, path, account, ∞); approve(router, 0)
//!     V3     approve(swapRouter, max); swapRouter.exactOutput((path reversed, account, ∞, out, max)); approve(.., 0)
//! [after: what the program produced of each output (a shared executor:
//!  its balance; an account: the difference), checked against the minimum
//!  where the entry point does not check it, sent to the receiver]
//! [sweep what is left of inputs and intermediates to the refund receiver]
//! ```
//!
//! The program is written for the address that runs it (`account`): the
//! router's executor, the caller's own account, or the caller's wallet.

use std::collections::BTreeSet;

use alloy_primitives::{Address, B256, Bytes, U256, aliases::U24};
use alloy_sol_types::SolCall;
use switchyard_catalog::{Catalog, ChainId, DeploymentRole, NATIVE_TOKEN, market::LendingModel};
use switchyard_kernel::{MarketSnapshot, Plan, Pool, PoolState, Step, StepAction};

pub use super::helpers::balance_of;
use super::{
    EncodeError, TokenAmount,
    helpers::{BinaryOp, Helpers, helper, require_at_least},
    protocols::{
        IAavePool, IBalancerHelpers, IBalancerVault, ICToken, IComet, ICurvePool, ICurvePool2,
        ICurvePool3, ICurvePool4, IERC20, IERC4626, IStETH, ISwapRouter, ISwapRouter02,
        IUniswapV2Router, IWETH, IWstETH,
    },
    weiroll::{CallKind, In, Out, Program, ProgramBuilder},
};

/// Protocol facts a step needs beyond the kernel's pool state.
pub trait ProtocolBook {
    /// The Balancer pool id of a weighted pool.
    fn pool_id(&self, chain: ChainId, pool: Address) -> Option<B256>;
}

impl ProtocolBook for () {
    fn pool_id(&self, _: ChainId, _: Address) -> Option<B256> {
        None
    }
}

/// What a plan's program must do besides the steps.
#[derive(Debug, Clone)]
pub struct RouteSpec<'a> {
    /// The snapshot the plan was found on.
    pub snapshot: &'a MarketSnapshot,
    /// The plan.
    pub plan: &'a Plan,
    /// The address that runs the program.
    pub account: Address,
    /// Pull every non-native input from this owner with `transferFrom`
    /// first (a wallet's owner, a delegate's spender).
    pub pull_from: Option<Address>,
    /// Inputs with their full amounts (fee included), in plan order.
    pub inputs: &'a [TokenAmount],
    /// Fee taken off each input, wei, and who gets it.
    pub fees: &'a [U256],
    /// Fee receiver.
    pub fee_receiver: Option<Address>,
    /// The operator's fee taken off each input, and who gets it.
    pub operator_fee: Option<(&'a [U256], Address)>,
    /// Receiver of the outputs.
    pub receiver: Address,
    /// Output tokens.
    pub outputs: &'a [Address],
    /// Minimum per output, enforced in the program when given (strategies
    /// whose entry point does not check it).
    pub check_min: Option<&'a [U256]>,
    /// The account is a shared executor, which holds nothing between
    /// transactions (the router's): what it holds at the end is what the
    /// program produced.
    pub shared: bool,
    /// Receiver of whatever is left of inputs and intermediates, when the
    /// account is a shared executor.
    pub refund: Option<Address>,
    /// The catalog: the chain's periphery routers and helper contracts.
    pub catalog: &'a Catalog,
    /// An exact-output plan: the most each route of its one leg may take
    /// of the input (its planned input with the slippage), each route one
    /// router exact-output call.
    pub exact_out_max_in: Option<&'a [U256]>,
    /// Each leg spends the account's whole balance of its input, read when
    /// the program runs, in the plan's proportions (a shared executor
    /// passed an amount known only then: what a bridge delivered).
    pub spend_balance: bool,
}

/// An encoded plan.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Encoded {
    /// The program the account runs.
    pub program: Program,
}

/// Builds the program of a plan.
pub fn encode_plan(spec: &RouteSpec<'_>, book: &dyn ProtocolBook) -> Result<Encoded, EncodeError> {
    encode_plan_then(spec, book, |_, _| Ok(()))
}

/// [`encode_plan`], with `then` writing more calls once the outputs are
/// measured (and checked against their minimums): it gets the slot of what
/// the program produced of each output, in `spec.outputs` order without
/// repeats. For a plan whose outputs stay in the account (`receiver` is the
/// account) and go on into something else, a position.
pub fn encode_plan_then(
    spec: &RouteSpec<'_>,
    book: &dyn ProtocolBook,
    then: impl FnOnce(&mut ProgramBuilder, &[In]) -> Result<(), EncodeError>,
) -> Result<Encoded, EncodeError> {
    // A plan whose outputs arrive on another chain is split at its
    // crossing by the caller (each side its own program).
    if spec.plan.chain != spec.plan.destination_chain {
        return Err(EncodeError::Unsupported("a cross-chain plan"));
    }
    let mut b = ProgramBuilder::with_helpers(Helpers::of(spec.catalog, spec.plan.chain));
    let acct = spec.account;
    let acct_in = b.address(acct)?;
    // A shared executor holds nothing between transactions: what it holds
    // of an output at the end is what the program produced.
    let shared = spec.shared;

    // Outputs arriving here: their balance before, so only what the
    // program produces moves (the account may be the caller's own, holding
    // more).
    let outputs: Vec<Address> = dedup(spec.outputs);
    let chain = spec.plan.destination_chain;
    let is_share = |t: &Address| spec.snapshot.share_pool(chain, *t).is_some();
    let mut before = Vec::with_capacity(outputs.len());
    let mut shares_before = Vec::with_capacity(outputs.len());
    for t in &outputs {
        before.push(if shared { None } else { Some(balance_of(&mut b, *t, acct_in.clone())?) });
        // A rebasing share token is handed over in shares, so the receiver
        // reads exactly what the account gained.
        shares_before.push(if is_share(t) && spec.receiver != acct && !shared {
            let out = b.call(
                CallKind::StaticCall,
                *t,
                IStETH::sharesOfCall::SELECTOR,
                std::slice::from_ref(&acct_in),
                Out::Word,
            )?;
            Some(word_out(out)?)
        } else {
            None
        });
    }

    if let Some(owner) = spec.pull_from {
        let owner_in = b.address(owner)?;
        for input in spec.inputs.iter().filter(|i| i.token != NATIVE_TOKEN) {
            let amount = b.uint(input.amount)?;
            b.call(
                CallKind::Call,
                input.token,
                IERC20::transferFromCall::SELECTOR,
                &[owner_in.clone(), acct_in.clone(), amount],
                Out::Ignore,
            )?;
        }
    }

    let fees = spec.fee_receiver.map(|r| (spec.fees, r)).into_iter().chain(spec.operator_fee);
    for (amounts, receiver) in fees {
        for (input, fee) in spec.inputs.iter().zip(amounts) {
            if fee.is_zero() {
                continue;
            }
            send(&mut b, input.token, receiver, b_uint(fee))?;
        }
    }

    let ctx = StepCtx {
        snapshot: spec.snapshot,
        book,
        catalog: spec.catalog,
        account: acct,
        account_in: acct_in.clone(),
    };
    for leg in &spec.plan.legs {
        match spec.exact_out_max_in {
            Some(max_in) => encode_leg_exact_out(&mut b, &ctx, leg, max_in)?,
            None if spec.spend_balance => {
                let held = balance_of(&mut b, leg.token_in, acct_in.clone())?;
                drop(encode_leg(&mut b, &ctx, leg, LegInput::Slot(held))?);
            }
            None => drop(encode_leg(&mut b, &ctx, leg, LegInput::Planned)?),
        }
    }

    let mut produced = Vec::with_capacity(outputs.len());
    for (k, t) in outputs.iter().enumerate() {
        let after = balance_of(&mut b, *t, acct_in.clone())?;
        let mut delta = match before[k].clone() {
            None => after,
            Some(before) => {
                // A token that is also an input, held before the program,
                // left the account in full (routed and fee) during it: add
                // it back to count only what the program produced. One
                // pulled from an owner arrived after `before`, and left.
                let spent = spec
                    .inputs
                    .iter()
                    .filter(|i| i.token == *t && spec.pull_from.is_none())
                    .fold(U256::ZERO, |a, i| a.saturating_add(i.amount));
                let after = if spent.is_zero() {
                    after
                } else {
                    let spent = b.uint(spent)?;
                    helper(&mut b, BinaryOp::Add, &[after, spent])?
                };
                helper(&mut b, BinaryOp::Sub, &[after, before])?
            }
        };
        if let Some(mins) = spec.check_min {
            let pos = spec.outputs.iter().position(|o| o == t).unwrap_or(k);
            let min = b.uint(mins.get(pos).copied().unwrap_or_default())?;
            delta = require_at_least(&mut b, delta, min)?;
        }
        produced.push(delta.clone());
        if spec.receiver == acct {
            continue;
        }
        if is_share(t) {
            // Shares, so the receiver reads exactly what the account gained.
            let sa = b.call(
                CallKind::StaticCall,
                *t,
                IStETH::sharesOfCall::SELECTOR,
                std::slice::from_ref(&acct_in),
                Out::Word,
            )?;
            let moved = match shares_before[k].clone() {
                Some(sb) => helper(&mut b, BinaryOp::Sub, &[word_out(sa)?, sb])?,
                None => word_out(sa)?,
            };
            let to = b.address(spec.receiver)?;
            b.call(
                CallKind::Call,
                *t,
                IStETH::transferSharesCall::SELECTOR,
                &[to, moved],
                Out::Ignore,
            )?;
        } else {
            send(&mut b, *t, spec.receiver, Amount::In(delta))?;
        }
    }

    then(&mut b, &produced)?;

    if let Some(refund) = spec.refund {
        let out_set: BTreeSet<Address> = outputs.iter().copied().collect();
        let mut touched: Vec<Address> = Vec::new();
        // This chain's steps only (a bridge's input is the last of them).
        let here = spec.plan.chain;
        for st in spec
            .plan
            .legs
            .iter()
            .flat_map(|l| &l.routes)
            .flat_map(|r| &r.steps)
            .filter(|s| s.chain == here)
        {
            let tokens = if st.action == StepAction::Bridge {
                [st.token_in, st.token_in]
            } else {
                [st.token_in, st.token_out]
            };
            // A zap through a pair's liquidity token leaves a few units of
            // either coin.
            let coins = spec
                .snapshot
                .pools()
                .get(st.pool)
                .filter(|p| {
                    st.action != StepAction::Bridge && matches!(p.state, PoolState::UniswapV2Lp(_))
                })
                .map_or(&[][..], |p| &p.tokens[..2]);
            for t in tokens.into_iter().chain(coins.iter().copied()) {
                if !out_set.contains(&t) && !touched.contains(&t) {
                    touched.push(t);
                }
            }
        }
        for t in touched {
            let left = balance_of(&mut b, t, acct_in.clone())?;
            send(&mut b, t, refund, Amount::In(left))?;
        }
    }
    Ok(Encoded { program: b.build() })
}

/// An amount to send: a constant or a slot.
pub(crate) enum Amount {
    Const(U256),
    In(In),
}

fn b_uint(v: &U256) -> Amount {
    Amount::Const(*v)
}

fn dedup(v: &[Address]) -> Vec<Address> {
    let mut out: Vec<Address> = Vec::with_capacity(v.len());
    for a in v {
        if !out.contains(a) {
            out.push(*a);
        }
    }
    out
}

/// Sends `amount` of `token` (the native coin too) from the account.
pub(crate) fn send(
    b: &mut ProgramBuilder,
    token: Address,
    to: Address,
    amount: Amount,
) -> Result<(), EncodeError> {
    let amount = match amount {
        Amount::Const(v) => b.uint(v)?,
        Amount::In(i) => i,
    };
    if token == NATIVE_TOKEN {
        let In::Fixed(v) = amount else { return Err(EncodeError::Unsupported("native amount")) };
        let empty = b.raw(&[])?;
        b.raw_call(CallKind::Value(v), to, empty, Out::Ignore)?;
    } else {
        let to_in = b.address(to)?;
        b.call(
            CallKind::Call,
            token,
            IERC20::transferCall::SELECTOR,
            &[to_in, amount],
            Out::Ignore,
        )?;
    }
    Ok(())
}

pub(crate) fn approve(
    b: &mut ProgramBuilder,
    token: Address,
    spender: Address,
    amount: In,
) -> Result<(), EncodeError> {
    let s = b.address(spender)?;
    b.call(CallKind::Call, token, IERC20::approveCall::SELECTOR, &[s, amount], Out::Ignore)?;
    Ok(())
}

/// A CCTP V2 standard transfer of `amount` of `token` to `recipient` on
/// CCTP domain `domain`: the token approved to the chain's
/// `TokenMessengerV2` and burned by its `depositForBurn` (no fee, anyone
/// may relay, attested when finalized, no hook).
pub(crate) fn cctp_burn(
    b: &mut ProgramBuilder,
    messenger: Address,
    token: Address,
    amount: In,
    (domain, recipient): (u32, Address),
) -> Result<(), EncodeError> {
    approve(b, token, messenger, amount.clone())?;
    let args = [
        amount,
        b.word(domain)?,
        b.word(recipient.into_word())?,
        b.address(token)?,
        b.word(B256::ZERO)?,
        b.uint(U256::ZERO)?,
        b.word(crate::evm::cctp::FINALIZED)?,
    ];
    b.call(
        CallKind::Call,
        messenger,
        crate::evm::abi::CctpTokenMessengerV2::depositForBurnCall::SELECTOR,
        &args,
        Out::Ignore,
    )?;
    Ok(())
}

/// What a Stargate taxi carries besides its amount.
#[derive(Debug, Clone)]
pub(crate) struct StargateTaxi {
    /// Destination endpoint id.
    pub(crate) dst_eid: u32,
    /// Who the destination pool pays (Enso's composer when it composes).
    pub(crate) to: Address,
    /// The least the destination may receive, in the source's decimals
    /// (the pool reverts `Stargate_SlippageTooHigh` below it).
    pub(crate) min_amount_ld: MinAmountLd,
    /// LayerZero's native fee, paid with the call.
    pub(crate) fee: U256,
    /// Who the endpoint refunds an overpaid fee to.
    pub(crate) refund: Address,
    /// Executor options besides the enforced ones (the compose gas).
    pub(crate) extra_options: Bytes,
    /// The compose message (empty: none).
    pub(crate) compose: Bytes,
}

/// A taxi's `minAmountLD`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum MinAmountLd {
    /// Known before the program runs (from an amount known before).
    Fixed(U256),
    /// From the amount sent, at run time, for an amount known only then:
    /// `max(sent · (10,000 − off_bps) / 10,000, less) − less`. With
    /// `off_bps` the pool's fee and the slippage allowed, and `less` two
    /// units of the shared decimals (one the pool leaves as dust, one its
    /// fee's rounding up), the pool delivers at least this.
    OfSent {
        /// Basis points off what is sent.
        off_bps: u32,
        /// Raw units taken off after.
        less: U256,
    },
}

impl MinAmountLd {
    /// The run-time minimum of a taxi through `route` that allows
    /// `slippage_bps` besides the pool's fee: [`Self::OfSent`] with two
    /// shared units off (the dust the pool leaves, its fee's rounding up).
    pub(crate) fn off_sent(route: &switchyard_kernel::BridgeRoute, slippage_bps: u32) -> Self {
        Self::OfSent {
            off_bps: route.fee_bps.saturating_add(slippage_bps),
            less: crate::evm::layerzero::shared_unit(route.decimals_in) * U256::from(2u8),
        }
    }
}

#[cfg(test)]
impl MinAmountLd {
    /// The minimum for `sent`, as the program computes it.
    pub(crate) fn at(self, sent: U256) -> U256 {
        match self {
            Self::Fixed(v) => v,
            Self::OfSent { off_bps, less } => {
                let share = sent.saturating_mul(U256::from(10_000u32.saturating_sub(off_bps)))
                    / U256::from(10_000u32);
                share.max(less) - less
            }
        }
    }
}

/// A Stargate V2 taxi of `amount` of `token` through its pool `pool`: the
/// token approved to the pool, and `send` with LayerZero's fee as the
/// call's value; of the native coin (`StargatePoolNative`), the value is
/// the amount and the fee (the pool keeps whole shared units of the
/// amount, and what is over goes to the endpoint, which refunds what its
/// quote does not need). `with_fee`: `amount` is a native balance that
/// holds the fee too (what a shared executor measures it produced, the
/// fee having come with the transaction): the amount sent is the rest.
pub(crate) fn stargate_send(
    b: &mut ProgramBuilder,
    pool: Address,
    token: Address,
    amount: In,
    taxi: &StargateTaxi,
    with_fee: bool,
) -> Result<(), EncodeError> {
    let fee = b.uint(taxi.fee)?;
    let (amount, value) = match (token == NATIVE_TOKEN, with_fee) {
        (true, true) => (helper(b, BinaryOp::Sub, &[amount.clone(), fee])?, amount),
        (true, false) => (amount.clone(), helper(b, BinaryOp::Add, &[amount, fee])?),
        (false, _) => {
            approve(b, token, pool, amount.clone())?;
            (amount, fee)
        }
    };
    let In::Fixed(value) = value else {
        return Err(EncodeError::Unsupported("a value that is no word"));
    };
    let min = match taxi.min_amount_ld {
        MinAmountLd::Fixed(v) => b.uint(v)?,
        MinAmountLd::OfSent { off_bps, less } => {
            let keep = b.uint(U256::from(10_000u32.saturating_sub(off_bps)))?;
            let scaled = helper(b, BinaryOp::Mul, &[amount.clone(), keep])?;
            let whole = b.uint(U256::from(10_000u32))?;
            let share = helper(b, BinaryOp::Div, &[scaled, whole])?;
            let less = b.uint(less)?;
            let above = helper(b, BinaryOp::Max, &[share, less.clone()])?;
            helper(b, BinaryOp::Sub, &[above, less])?
        }
    };
    let param = In::Tuple(vec![
        b.word(taxi.dst_eid)?,
        b.word(taxi.to.into_word())?,
        amount,
        min,
        b.bytes(&taxi.extra_options)?,
        b.bytes(&taxi.compose)?,
        b.bytes(&[])?,
    ]);
    let args = [param, b.uint(taxi.fee)?, b.uint(U256::ZERO)?, b.address(taxi.refund)?];
    b.call(
        CallKind::Value(value),
        pool,
        crate::evm::abi::StargatePool::sendCall::SELECTOR,
        &args,
        Out::Ignore,
    )?;
    Ok(())
}

pub(crate) fn word_out(out: Option<super::weiroll::Slot>) -> Result<In, EncodeError> {
    out.map(In::Fixed).ok_or(EncodeError::Unsupported("call without output"))
}

/// What a step encoder needs to know.
pub struct StepCtx<'a> {
    /// The snapshot the plan was found on.
    pub snapshot: &'a MarketSnapshot,
    /// Protocol facts.
    pub book: &'a dyn ProtocolBook,
    /// The catalog: periphery routers.
    pub catalog: &'a Catalog,
    /// The address that runs the program.
    pub account: Address,
    /// `account` as a program argument.
    pub account_in: In,
}

/// Where a leg's input amount comes from.
#[derive(Debug, Clone)]
pub enum LegInput {
    /// The amounts the plan was found for, as constants (each route of a
    /// split its own share).
    Planned,
    /// A slot produced at run time (a bundle action's output). When the
    /// plan splits, each route takes `x · planned share / planned total`
    /// and the last one the rest: exactly the planned shares when `x` is
    /// the planned amount.
    Slot(In),
}

/// The calls of one leg; returns the output slot of each route that
/// delivers the leg's output (not of those ending at an intermediate token
/// later routes go on from).
///
/// The routes run in order. Those from the leg's input take their planned
/// amounts, or shares of the input slot. Those from an intermediate token
/// share what the earlier routes delivered there (the sum of their output
/// slots): each takes `arrived · amount_in / Σ amount_in` over the routes
/// from that token, the last one the rest, so the planned amounts exactly
/// when the earlier routes deliver what was planned, and nothing stays
/// behind when they deliver otherwise.
pub fn encode_leg(
    b: &mut ProgramBuilder,
    ctx: &StepCtx<'_>,
    leg: &switchyard_kernel::Leg,
    input: LegInput,
) -> Result<Vec<In>, EncodeError> {
    let empty = EncodeError::Unsupported("a route without steps");
    let starts: Vec<Address> =
        leg.routes.iter().map(|r| r.token_in().ok_or(empty.clone())).collect::<Result<_, _>>()?;
    // What arrived at each intermediate token, and what its routes took.
    let mut arrived: Vec<(Address, In)> = Vec::new();
    let mut spent: Vec<(Address, In)> = Vec::new();
    let mut outs = Vec::with_capacity(leg.routes.len());
    for (k, route) in leg.routes.iter().enumerate() {
        let t = starts[k];
        let source = if t == leg.token_in {
            match &input {
                LegInput::Planned => None,
                LegInput::Slot(x) => Some(x.clone()),
            }
        } else {
            let at = arrived.iter().find(|(a, _)| *a == t);
            Some(at.map(|(_, x)| x.clone()).ok_or(EncodeError::Unsupported(
                "a route from a token no earlier route delivers",
            ))?)
        };
        let mut x = match source {
            None => b.uint(route.amount_in)?,
            Some(src) => {
                let siblings = starts.iter().filter(|s| **s == t).count();
                let last = !starts[k + 1..].contains(&t);
                let taken = spent.iter().position(|(a, _)| *a == t);
                if siblings == 1 {
                    src
                } else if last {
                    let used = taken
                        .map(|p| spent[p].1.clone())
                        .ok_or(EncodeError::Unsupported("empty split"))?;
                    helper(b, BinaryOp::Sub, &[src, used])?
                } else {
                    let total = leg
                        .routes
                        .iter()
                        .zip(&starts)
                        .filter(|(_, s)| **s == t)
                        .fold(U256::ZERO, |a, (r, _)| a.saturating_add(r.amount_in));
                    let share = b.uint(route.amount_in)?;
                    let total = b.uint(total)?;
                    let scaled = helper(b, BinaryOp::Mul, &[src, share])?;
                    let part = helper(b, BinaryOp::Div, &[scaled, total])?;
                    match taken {
                        None => spent.push((t, part.clone())),
                        Some(p) => {
                            let sum =
                                helper(b, BinaryOp::Add, &[spent[p].1.clone(), part.clone()])?;
                            spent[p].1 = sum;
                        }
                    }
                    part
                }
            }
        };
        for st in &route.steps {
            x = step(b, ctx, st, x)?;
        }
        let end = route.token_out().ok_or(empty.clone())?;
        if !starts.contains(&end) {
            outs.push(x);
            continue;
        }
        // An intermediate token: every route into it runs before the first
        // from it.
        if starts[..=k].contains(&end) {
            return Err(EncodeError::Unsupported("a route into a token already shared"));
        }
        match arrived.iter().position(|(a, _)| *a == end) {
            None => arrived.push((end, x)),
            Some(p) => {
                let sum = helper(b, BinaryOp::Add, &[arrived[p].1.clone(), x])?;
                arrived[p].1 = sum;
            }
        }
    }
    Ok(outs)
}

/// The calls of one leg of an exact-output plan: each route one
/// exact-output call, for the route's planned output and taking at most
/// `max_in[k]` of the input (what it does not need stays in the account,
/// for the sweep). A route runs through one protocol's Uniswap V2 pairs
/// (`swapTokensForExactTokens` over its whole path) or V3 pools
/// (`exactOutput` with the path reversed), or is one step: a Balancer
/// weighted pool (`swap` given out, limited to the maximum) or an ERC-4626
/// vault (`mint` of the shares, `withdraw` of the assets).
pub fn encode_leg_exact_out(
    b: &mut ProgramBuilder,
    ctx: &StepCtx<'_>,
    leg: &switchyard_kernel::Leg,
    max_in: &[U256],
) -> Result<(), EncodeError> {
    let unsupported = EncodeError::Unsupported("an exact-output path through several routers");
    for (route, max) in leg.routes.iter().zip(max_in) {
        let (Some(first), Some(last)) = (route.steps.first(), route.steps.last()) else {
            continue;
        };
        let pools = route
            .steps
            .iter()
            .map(|st| ctx.snapshot.pools().get(st.pool).ok_or(EncodeError::UnknownPool(st.pool)))
            .collect::<Result<Vec<_>, _>>()?;
        if pools.windows(2).any(|w| w[0].protocol != w[1].protocol) {
            return Err(unsupported);
        }
        let amount_out = b.uint(last.amount_out)?;
        let max = b.uint(*max)?;
        let deadline = b.uint(U256::MAX)?;
        let acct_in = ctx.account_in.clone();
        let zero = b.uint(U256::ZERO)?;
        if pools.iter().all(|p| p.state.v2_pair().is_some()) {
            let router = periphery(ctx, pools[0], &[DeploymentRole::UniswapV2Router])?.1;
            approve(b, first.token_in, router, max.clone())?;
            let mut path = vec![b.address(first.token_in)?];
            for st in &route.steps {
                path.push(b.address(st.token_out)?);
            }
            b.call(
                CallKind::Call,
                router,
                IUniswapV2Router::swapTokensForExactTokensCall::SELECTOR,
                &[amount_out, max, In::Array(path), acct_in, deadline],
                Out::Ignore,
            )?;
            approve(b, first.token_in, router, zero)?;
        } else if pools.iter().all(|p| matches!(p.state, PoolState::UniswapV3(_))) {
            use DeploymentRole::{UniswapV3SwapRouter, UniswapV3SwapRouter02};
            let (role, router) =
                periphery(ctx, pools[0], &[UniswapV3SwapRouter, UniswapV3SwapRouter02])?;
            approve(b, first.token_in, router, max.clone())?;
            // `abi.encodePacked(tokenOut, fee, …, tokenIn)`: the path
            // from the output back.
            let mut path = Vec::with_capacity(20 + 23 * route.steps.len());
            path.extend_from_slice(last.token_out.as_slice());
            for (st, pool) in route.steps.iter().zip(&pools).rev() {
                let PoolState::UniswapV3(v3) = &pool.state else { return Err(unsupported) };
                path.extend_from_slice(&v3.fee.to_be_bytes()[1..]);
                path.extend_from_slice(st.token_in.as_slice());
            }
            let path = b.bytes(&path)?;
            let (selector, params) = if role == UniswapV3SwapRouter {
                (
                    ISwapRouter::exactOutputCall::SELECTOR,
                    vec![path, acct_in, deadline, amount_out, max],
                )
            } else {
                (ISwapRouter02::exactOutputCall::SELECTOR, vec![path, acct_in, amount_out, max])
            };
            b.call(CallKind::Call, router, selector, &[In::Tuple(params)], Out::Ignore)?;
            approve(b, first.token_in, router, zero)?;
        } else if let ([st], [pool]) = (route.steps.as_slice(), pools.as_slice()) {
            // One step through a pool with an exact-output entry point of
            // its own.
            match &pool.state {
                PoolState::Weighted(_) => {
                    let vault = balancer_vault(ctx, pool)?;
                    approve(b, st.token_in, vault, max.clone())?;
                    let given_out = BalancerKind::GivenOut { out: st.amount_out, max_in: max };
                    balancer_swap(b, ctx, pool, st, given_out)?;
                    approve(b, st.token_in, vault, zero)?;
                }
                PoolState::Erc4626(_) if st.action == StepAction::Deposit => {
                    // `mint(shares)` takes what the shares cost.
                    approve(b, st.token_in, pool.address, max)?;
                    b.call(
                        CallKind::Call,
                        pool.address,
                        IERC4626::mintCall::SELECTOR,
                        &[amount_out, acct_in],
                        Out::Ignore,
                    )?;
                    approve(b, st.token_in, pool.address, zero)?;
                }
                PoolState::Erc4626(_) => {
                    // `withdraw(assets)` burns what they cost of the
                    // account's shares.
                    b.call(
                        CallKind::Call,
                        pool.address,
                        IERC4626::withdrawCall::SELECTOR,
                        &[amount_out, acct_in.clone(), acct_in],
                        Out::Ignore,
                    )?;
                }
                _ => return Err(EncodeError::Unsupported("an exact-output step of this kind")),
            }
        } else {
            return Err(EncodeError::Unsupported(
                "an exact-output path outside one Uniswap router, one Balancer pool or one vault",
            ));
        }
    }
    Ok(())
}

/// The chain's Balancer Vault.
fn balancer_vault(ctx: &StepCtx<'_>, pool: &Pool) -> Result<Address, EncodeError> {
    ctx.catalog
        .deployment(pool.chain, DeploymentRole::BalancerVault, None)
        .map(|d| d.address)
        .ok_or(EncodeError::DeploymentUnavailable {
            chain: pool.chain,
            role: DeploymentRole::BalancerVault,
        })
}

/// What a Balancer single swap is given.
enum BalancerKind {
    /// The input (`GIVEN_IN`, no minimum: the program checks it).
    GivenIn(In),
    /// The output, and the most input it may take (`GIVEN_OUT`).
    GivenOut { out: U256, max_in: In },
}

/// `Vault.swap` of one weighted pool, the account sending and receiving;
/// returns the slot of the amount the Vault computed (the output given
/// in, the input given out). The Vault must already be approved.
fn balancer_swap(
    b: &mut ProgramBuilder,
    ctx: &StepCtx<'_>,
    pool: &Pool,
    st: &Step,
    kind: BalancerKind,
) -> Result<In, EncodeError> {
    let pool_id =
        ctx.book.pool_id(pool.chain, pool.address).ok_or(EncodeError::UnknownPool(st.pool))?;
    let vault = balancer_vault(ctx, pool)?;
    let acct_in = ctx.account_in.clone();
    let id = b.word(pool_id)?;
    let (tin, tout) = (b.address(st.token_in)?, b.address(st.token_out)?);
    let user_data = b.bytes(&[])?;
    let no = b.word(false)?;
    let (code, amount, limit) = match kind {
        BalancerKind::GivenIn(x) => (0u8, x, b.uint(U256::ZERO)?),
        BalancerKind::GivenOut { out, max_in } => (1u8, b.uint(out)?, max_in),
    };
    let code = b.uint(U256::from(code))?;
    let deadline = b.uint(U256::MAX)?;
    let out = b.call(
        CallKind::Call,
        vault,
        IBalancerVault::swapCall::SELECTOR,
        &[
            In::Tuple(vec![id, code, tin, tout, amount, user_data]),
            acct_in.clone(),
            no.clone(),
            acct_in,
            no,
            limit,
            deadline,
        ],
        Out::Word,
    )?;
    word_out(out)
}

/// The calls of one step, from its input slot `x`; returns its output.
pub fn step(
    b: &mut ProgramBuilder,
    ctx: &StepCtx<'_>,
    st: &Step,
    x: In,
) -> Result<In, EncodeError> {
    // A rebasing share token paid out by `transfer` arrives a few wei
    // short of what the pool says it paid: measure what arrived.
    let pays_shares = st.action != StepAction::Bridge
        && ctx.snapshot.share_pool(st.to_chain, st.token_out).is_some()
        && ctx
            .snapshot
            .pools()
            .get(st.pool)
            .is_some_and(|p| !matches!(p.state, PoolState::LiquidStaking { .. }));
    if pays_shares {
        let acct_in = ctx.account_in.clone();
        return measured(b, st.token_out, &acct_in, |b| step_calls(b, ctx, st, x).map(drop));
    }
    step_calls(b, ctx, st, x)
}

/// The calls of one step and the slot of its output.
fn step_calls(
    b: &mut ProgramBuilder,
    ctx: &StepCtx<'_>,
    st: &Step,
    x: In,
) -> Result<In, EncodeError> {
    let acct_in = &ctx.account_in;
    if st.action == StepAction::Bridge {
        return Err(EncodeError::Unsupported("a bridge step"));
    }
    let pool = ctx.snapshot.pools().get(st.pool).ok_or(EncodeError::UnknownPool(st.pool))?;
    let unsupported = || EncodeError::UnsupportedStep { protocol: pool.protocol.to_string() };
    let lp_step = pool
        .lp_index()
        .is_some_and(|lp| pool.tokens[lp] == st.token_in || pool.tokens[lp] == st.token_out);
    match &pool.state {
        PoolState::UniswapV2Lp(_) if lp_step => v2_liquidity(b, ctx, pool, st, x),
        PoolState::UniswapV2 { .. } | PoolState::UniswapV2Lp(_) => {
            let router = periphery(ctx, pool, &[DeploymentRole::UniswapV2Router])?.1;
            measured(b, st.token_out, acct_in, |b| {
                v2_sell(b, router, [st.token_in, st.token_out], x, acct_in)
            })
        }
        PoolState::UniswapV3(v3) => {
            use DeploymentRole::{UniswapV3SwapRouter, UniswapV3SwapRouter02};
            let (role, router) =
                periphery(ctx, pool, &[UniswapV3SwapRouter, UniswapV3SwapRouter02])?;
            approve(b, st.token_in, router, x.clone())?;
            let (tin, tout) = (b.address(st.token_in)?, b.address(st.token_out)?);
            let fee = b.word(U24::from(v3.fee))?;
            let zero = b.uint(U256::ZERO)?;
            // The struct is static: its members are the call's words.
            let (selector, args) = if role == UniswapV3SwapRouter {
                let deadline = b.uint(U256::MAX)?;
                (
                    ISwapRouter::exactInputSingleCall::SELECTOR,
                    vec![tin, tout, fee, acct_in.clone(), deadline, x, zero.clone(), zero],
                )
            } else {
                (
                    ISwapRouter02::exactInputSingleCall::SELECTOR,
                    vec![tin, tout, fee, acct_in.clone(), x, zero.clone(), zero],
                )
            };
            let out = b.call(CallKind::Call, router, selector, &args, Out::Word)?;
            out.map(In::Fixed).ok_or_else(unsupported)
        }
        PoolState::Stableswap(_) if lp_step => curve_liquidity(b, ctx, pool, st, x),
        PoolState::Stableswap(_) => {
            let (Some(i), Some(j)) = (pool.index_of(st.token_in), pool.index_of(st.token_out))
            else {
                return Err(unsupported());
            };
            let (i, j) = (b.word(i as i128)?, b.word(j as i128)?);
            let dy = b.call(
                CallKind::StaticCall,
                pool.address,
                ICurvePool::get_dyCall::SELECTOR,
                &[i.clone(), j.clone(), x.clone()],
                Out::Word,
            )?;
            let dy = word_out(dy)?;
            let kind = if st.token_in == NATIVE_TOKEN {
                let In::Fixed(v) = x else { return Err(unsupported()) };
                CallKind::Value(v)
            } else {
                approve(b, st.token_in, pool.address, x.clone())?;
                CallKind::Call
            };
            b.call(
                kind,
                pool.address,
                ICurvePool::exchangeCall::SELECTOR,
                &[i, j, x, dy.clone()],
                Out::Ignore,
            )?;
            Ok(dy)
        }
        PoolState::Weighted(_) if lp_step => balancer_liquidity(b, ctx, pool, st, x),
        PoolState::Weighted(_) => {
            let vault = balancer_vault(ctx, pool)?;
            approve(b, st.token_in, vault, x.clone())?;
            balancer_swap(b, ctx, pool, st, BalancerKind::GivenIn(x))
        }
        PoolState::Erc4626 { .. } => {
            if st.action == StepAction::Deposit {
                approve(b, st.token_in, pool.address, x.clone())?;
                let out = b.call(
                    CallKind::Call,
                    pool.address,
                    IERC4626::depositCall::SELECTOR,
                    &[x, acct_in.clone()],
                    Out::Word,
                )?;
                word_out(out)
            } else {
                let out = b.call(
                    CallKind::Call,
                    pool.address,
                    IERC4626::redeemCall::SELECTOR,
                    &[x, acct_in.clone(), acct_in.clone()],
                    Out::Word,
                )?;
                word_out(out)
            }
        }
        PoolState::Wrap => {
            if st.action == StepAction::Deposit {
                let In::Fixed(v) = x else { return Err(unsupported()) };
                b.call(
                    CallKind::Value(v),
                    pool.address,
                    IWETH::depositCall::SELECTOR,
                    &[],
                    Out::Ignore,
                )?;
            } else {
                b.call(
                    CallKind::Call,
                    pool.address,
                    IWETH::withdrawCall::SELECTOR,
                    std::slice::from_ref(&x),
                    Out::Ignore,
                )?;
            }
            Ok(x)
        }
        PoolState::Lending(l) => {
            let (asset, receipt) = (pool.tokens[0], pool.tokens[1]);
            match (l.model, st.action == StepAction::Deposit) {
                (LendingModel::Aave, true) => {
                    approve(b, asset, pool.address, x.clone())?;
                    let asset_in = b.address(asset)?;
                    let zero = b.word(0u16)?;
                    measured(b, receipt, acct_in, |b| {
                        b.call(
                            CallKind::Call,
                            pool.address,
                            IAavePool::supplyCall::SELECTOR,
                            &[asset_in, x, acct_in.clone(), zero],
                            Out::Ignore,
                        )?;
                        Ok(())
                    })
                }
                (LendingModel::Aave, false) => {
                    let asset_in = b.address(asset)?;
                    let out = b.call(
                        CallKind::Call,
                        pool.address,
                        IAavePool::withdrawCall::SELECTOR,
                        &[asset_in, x, acct_in.clone()],
                        Out::Word,
                    )?;
                    word_out(out)
                }
                // Comet: the account supplies for itself (its balance grows
                // by what the principal credited reads) and withdraws the
                // amount it reads, paid whole.
                (LendingModel::Comet, true) => {
                    approve(b, asset, pool.address, x.clone())?;
                    let asset_in = b.address(asset)?;
                    measured(b, receipt, acct_in, |b| {
                        b.call(
                            CallKind::Call,
                            pool.address,
                            IComet::supplyCall::SELECTOR,
                            &[asset_in, x],
                            Out::Ignore,
                        )?;
                        Ok(())
                    })
                }
                (LendingModel::Comet, false) => {
                    let asset_in = b.address(asset)?;
                    b.call(
                        CallKind::Call,
                        pool.address,
                        IComet::withdrawCall::SELECTOR,
                        &[asset_in, x.clone()],
                        Out::Ignore,
                    )?;
                    Ok(x)
                }
                (LendingModel::Compound, deposit) => {
                    let (selector, produced) = if deposit {
                        approve(b, asset, pool.address, x.clone())?;
                        (ICToken::mintCall::SELECTOR, receipt)
                    } else {
                        (ICToken::redeemCall::SELECTOR, asset)
                    };
                    measured(b, produced, acct_in, |b| {
                        // Compound reports failure as a nonzero code.
                        let code =
                            b.call(CallKind::Call, pool.address, selector, &[x], Out::Word)?;
                        super::helpers::require_zero(b, word_out(code)?)
                    })
                }
            }
        }
        PoolState::LiquidStaking(s) if s.rebasing && st.action == StepAction::Deposit => {
            // stETH: submit the native coin; the balance it reads is the
            // output.
            let In::Fixed(v) = x else { return Err(unsupported()) };
            let referral = b.address(Address::ZERO)?;
            measured(b, pool.tokens[1], acct_in, |b| {
                b.call(
                    CallKind::Value(v),
                    pool.address,
                    IStETH::submitCall::SELECTOR,
                    &[referral],
                    Out::Ignore,
                )?;
                Ok(())
            })
        }
        PoolState::LiquidStaking(s) if !s.rebasing => {
            let (asset, wrapper) = (pool.tokens[0], pool.tokens[1]);
            if st.action == StepAction::Deposit {
                approve(b, asset, wrapper, x.clone())?;
                let out =
                    b.call(CallKind::Call, wrapper, IWstETH::wrapCall::SELECTOR, &[x], Out::Word)?;
                word_out(out)
            } else {
                measured(b, asset, acct_in, |b| {
                    b.call(
                        CallKind::Call,
                        wrapper,
                        IWstETH::unwrapCall::SELECTOR,
                        &[x],
                        Out::Ignore,
                    )?;
                    Ok(())
                })
            }
        }
        _ => Err(unsupported()),
    }
}

/// `add_liquidity(uint256[n],uint256)` of a Curve pool of `n` coins (its
/// coin count is in the selector).
pub fn curve_add_liquidity_selector(n: usize) -> Option<[u8; 4]> {
    match n {
        2 => Some(ICurvePool2::add_liquidityCall::SELECTOR),
        3 => Some(ICurvePool3::add_liquidityCall::SELECTOR),
        4 => Some(ICurvePool4::add_liquidityCall::SELECTOR),
        _ => None,
    }
}

/// `remove_liquidity(uint256,uint256[n])` of a Curve pool of `n` coins.
pub fn curve_remove_liquidity_selector(n: usize) -> Option<[u8; 4]> {
    match n {
        2 => Some(ICurvePool2::remove_liquidityCall::SELECTOR),
        3 => Some(ICurvePool3::remove_liquidityCall::SELECTOR),
        4 => Some(ICurvePool4::remove_liquidityCall::SELECTOR),
        _ => None,
    }
}

/// The coins of a tokenized Curve pool (those before its LP token), for
/// messages naming what it takes or pays.
pub fn curve_coin_list(pool: &Pool, lp: usize) -> String {
    let coins: Vec<String> = pool.tokens[..lp].iter().map(|c| format!("{c:#x}")).collect();
    coins.join(", ")
}

/// A Curve pool's one-coin deposit (coin → LP token) or withdrawal (LP
/// token → coin). The deposit's mint is measured (`calc_token_amount`
/// leaves the fee out, and the 3pool's `add_liquidity` returns nothing);
/// the withdrawal pays exactly `calc_withdraw_one_coin`, which is its
/// minimum.
fn curve_liquidity(
    b: &mut ProgramBuilder,
    ctx: &StepCtx<'_>,
    pool: &Pool,
    st: &Step,
    x: In,
) -> Result<In, EncodeError> {
    let unsupported = || EncodeError::UnsupportedStep { protocol: pool.protocol.to_string() };
    let lp = pool.lp_index().ok_or_else(unsupported)?;
    let lp_token = pool.tokens[lp];
    if st.token_out == lp_token {
        let i = pool.index_of(st.token_in).filter(|i| *i < lp).ok_or_else(unsupported)?;
        let selector = curve_add_liquidity_selector(lp).ok_or_else(unsupported)?;
        let zero = b.uint(U256::ZERO)?;
        // `uint256[n]` is static: its members are the call's first words.
        let mut args = vec![zero; lp + 1];
        args[i] = x.clone();
        let kind = if st.token_in == NATIVE_TOKEN {
            let In::Fixed(v) = x else { return Err(unsupported()) };
            CallKind::Value(v)
        } else {
            approve(b, st.token_in, pool.address, x)?;
            CallKind::Call
        };
        measured(b, lp_token, &ctx.account_in, |b| {
            b.call(kind, pool.address, selector, &args, Out::Ignore)?;
            Ok(())
        })
    } else {
        let j = pool.index_of(st.token_out).filter(|j| *j < lp).ok_or_else(unsupported)?;
        let j = b.word(j as i128)?;
        let dy = b.call(
            CallKind::StaticCall,
            pool.address,
            ICurvePool::calc_withdraw_one_coinCall::SELECTOR,
            &[x.clone(), j.clone()],
            Out::Word,
        )?;
        let dy = word_out(dy)?;
        b.call(
            CallKind::Call,
            pool.address,
            ICurvePool::remove_liquidity_one_coinCall::SELECTOR,
            &[x, j, dy.clone()],
            Out::Ignore,
        )?;
        Ok(dy)
    }
}

/// One coin into a Balancer weighted pool's BPT, or BPT out into one
/// coin, through the Vault, the account sending and receiving: a
/// [`balancer_join`] of `x` at the coin's index (the Vault approved for
/// it), or a [`balancer_exit`] of `x` BPT into the coin, measured.
fn balancer_liquidity(
    b: &mut ProgramBuilder,
    ctx: &StepCtx<'_>,
    pool: &Pool,
    st: &Step,
    x: In,
) -> Result<In, EncodeError> {
    let unsupported = || EncodeError::UnsupportedStep { protocol: pool.protocol.to_string() };
    let call = BalancerCall::of(ctx.catalog, ctx.book, pool)?;
    let n = call.coins;
    if st.token_out == pool.address {
        let i = pool.index_of(st.token_in).filter(|i| *i < n).ok_or_else(unsupported)?;
        approve(b, st.token_in, call.vault, x.clone())?;
        let zero = b.uint(U256::ZERO)?;
        let mut amounts = vec![zero; n];
        amounts[i] = x;
        let mut named = vec![false; n];
        named[i] = true;
        balancer_join(b, &call, amounts, &named, &ctx.account_in)
    } else {
        let j = pool.index_of(st.token_out).filter(|j| *j < n).ok_or_else(unsupported)?;
        measured(b, st.token_out, &ctx.account_in, |b| {
            balancer_exit(b, &call, BalancerExit::OneCoin(j), x, &ctx.account_in)
        })
    }
}

/// A Balancer weighted pool whose BPT is listed, and what a program calls
/// to join or exit it.
pub(crate) struct BalancerCall<'a> {
    pool: &'a Pool,
    /// Its coins (the BPT is the next token).
    coins: usize,
    pool_id: B256,
    vault: Address,
    /// Enso's `BalancerHelpers`.
    encoder: Address,
}

impl<'a> BalancerCall<'a> {
    /// The pool's id, the chain's Vault and `BalancerHelpers`.
    pub(crate) fn of(
        catalog: &Catalog,
        book: &dyn ProtocolBook,
        pool: &'a Pool,
    ) -> Result<Self, EncodeError> {
        let unsupported = || EncodeError::UnsupportedStep { protocol: pool.protocol.to_string() };
        let coins = pool.lp_index().ok_or_else(unsupported)?;
        let pool_id = book.pool_id(pool.chain, pool.address).ok_or_else(unsupported)?;
        let deployed = |role| {
            catalog
                .deployment(pool.chain, role, None)
                .map(|d| d.address)
                .ok_or(EncodeError::DeploymentUnavailable { chain: pool.chain, role })
        };
        Ok(Self {
            pool,
            coins,
            pool_id,
            vault: deployed(DeploymentRole::BalancerVault)?,
            encoder: deployed(DeploymentRole::BalancerHelpers)?,
        })
    }

    /// The Vault.
    pub(crate) const fn vault(&self) -> Address {
        self.vault
    }

    /// `joinPool` or `exitPool` (`selector`) of the account's own, the
    /// request's assets the coins, its limits `limits` (`maxAmountsIn` or
    /// `minAmountsOut`), its `userData` the slot `user_data`, no internal
    /// balances: the two requests have the same layout.
    fn vault_call(
        &self,
        b: &mut ProgramBuilder,
        selector: [u8; 4],
        limits: &Vec<U256>,
        user_data: In,
        account: &In,
    ) -> Result<(), EncodeError> {
        let request = vec![
            b.dynamic(&self.pool.tokens[..self.coins].to_vec())?,
            b.dynamic(limits)?,
            user_data,
            b.word(false)?,
        ];
        let id = b.word(self.pool_id)?;
        let args = [id, account.clone(), account.clone(), In::Tuple(request)];
        b.call(CallKind::Call, self.vault, selector, &args, Out::Ignore)?;
        Ok(())
    }
}

/// `joinPool` of `EXACT_TOKENS_IN_FOR_BPT_OUT` with `amounts` (one slot
/// per coin, pool order; the Vault already approved for each): Enso's
/// `BalancerHelpers` encodes the `userData` from the amounts as they
/// arrive (no minimum: the program checks its outputs), the most each
/// `named` coin may take is unbounded and the others' zero. Returns the
/// BPT minted, measured (the Vault returns nothing).
pub(crate) fn balancer_join(
    b: &mut ProgramBuilder,
    call: &BalancerCall<'_>,
    amounts: Vec<In>,
    named: &[bool],
    account: &In,
) -> Result<In, EncodeError> {
    let kind = b.uint(U256::ONE)?;
    let zero = b.uint(U256::ZERO)?;
    let user_data = b.call(
        CallKind::StaticCall,
        call.encoder,
        IBalancerHelpers::encodeDataForJoinKindOneCall::SELECTOR,
        &[kind, In::Array(amounts), zero],
        Out::Var,
    )?;
    let user_data = user_data.map(In::Var).ok_or(EncodeError::Unsupported("a join's userData"))?;
    let max_in: Vec<U256> = named.iter().map(|n| if *n { U256::MAX } else { U256::ZERO }).collect();
    measured(b, call.pool.address, account, |b| {
        call.vault_call(b, IBalancerVault::joinPoolCall::SELECTOR, &max_in, user_data, account)
    })
}

/// Which exit a program asks of a Balancer pool.
#[derive(Debug, Clone, Copy)]
pub(crate) enum BalancerExit {
    /// `EXACT_BPT_IN_FOR_ONE_TOKEN_OUT` into the coin at this index.
    OneCoin(usize),
    /// `EXACT_BPT_IN_FOR_TOKENS_OUT`: every coin in proportion.
    Proportional,
}

/// `exitPool` burning `x` BPT of the account, paying it: the `userData`
/// encoded by Enso's `BalancerHelpers.encodeDataForExitKindZero(kind, x,
/// index)` (a proportional exit's decoder reads the first two words and
/// ignores the index), no minimum (the program measures and checks).
pub(crate) fn balancer_exit(
    b: &mut ProgramBuilder,
    call: &BalancerCall<'_>,
    exit: BalancerExit,
    x: In,
    account: &In,
) -> Result<(), EncodeError> {
    let (kind, index) = match exit {
        BalancerExit::OneCoin(j) => (0u8, j),
        BalancerExit::Proportional => (1, 0),
    };
    let (kind, index) = (b.uint(U256::from(kind))?, b.uint(U256::from(index))?);
    let user_data = b.call(
        CallKind::StaticCall,
        call.encoder,
        IBalancerHelpers::encodeDataForExitKindZeroCall::SELECTOR,
        &[kind, x, index],
        Out::Var,
    )?;
    let user_data = user_data.map(In::Var).ok_or(EncodeError::Unsupported("an exit's userData"))?;
    let min_out = vec![U256::ZERO; call.coins];
    call.vault_call(b, IBalancerVault::exitPoolCall::SELECTOR, &min_out, user_data, account)
}

/// One coin into a Uniswap V2 pair's liquidity token, or the token out
/// into one coin, through Router02.
///
/// In: the kernel's share of the input is sold for the other coin (`x ·
/// sold / amountIn`: exactly the quoted sale when `x` is the quoted
/// input), then `addLiquidity(coin, other, x − sold, bought, 0, 0)`; the
/// router takes what the reserves' ratio admits, and the few units it
/// leaves (a few units of the dearer coin's worth at most,
/// [`switchyard_kernel::amm::uniswap_v2::ZapIn::left`])
/// stay with the account, swept to the refund receiver with the rest.
/// Out: `removeLiquidity` pays both coins; the other is sold for the one
/// asked for. What the sale bought and what arrived in all are measured,
/// since the router's functions return tuples and arrays.
fn v2_liquidity(
    b: &mut ProgramBuilder,
    ctx: &StepCtx<'_>,
    pool: &Pool,
    st: &Step,
    x: In,
) -> Result<In, EncodeError> {
    let unsupported = || EncodeError::UnsupportedStep { protocol: pool.protocol.to_string() };
    let router = periphery(ctx, pool, &[DeploymentRole::UniswapV2Router])?.1;
    let pair = pool.address;
    let other_than =
        |t: Address| pool.tokens[..2].iter().copied().find(|c| *c != t).ok_or_else(unsupported);
    let acct = ctx.account_in.clone();
    let zero = b.uint(U256::ZERO)?;
    let deadline = b.uint(U256::MAX)?;
    let sell = |b: &mut ProgramBuilder, from: Address, to: Address, amount: In| {
        v2_sell(b, router, [from, to], amount, &acct)
    };
    if st.token_out == pair {
        let (coin, other) = (st.token_in, other_than(st.token_in)?);
        let sold = st.sold.filter(|s| !s.is_zero()).ok_or_else(unsupported)?;
        let (sold, quoted) = (b.uint(sold)?, b.uint(st.amount_in)?);
        let scaled = helper(b, BinaryOp::Mul, &[x.clone(), sold])?;
        let sold = helper(b, BinaryOp::Div, &[scaled, quoted])?;
        let bought = measured(b, other, &acct, |b| sell(b, coin, other, sold.clone()))?;
        let rest = helper(b, BinaryOp::Sub, &[x, sold])?;
        approve(b, coin, router, rest.clone())?;
        approve(b, other, router, bought.clone())?;
        let (a, o) = (b.address(coin)?, b.address(other)?);
        measured(b, pair, &acct, |b| {
            b.call(
                CallKind::Call,
                router,
                IUniswapV2Router::addLiquidityCall::SELECTOR,
                &[a, o, rest, bought, zero.clone(), zero, acct.clone(), deadline],
                Out::Ignore,
            )?;
            Ok(())
        })
    } else if st.token_in == pair {
        let (target, other) = (st.token_out, other_than(st.token_out)?);
        approve(b, pair, router, x.clone())?;
        let (t, o) = (b.address(target)?, b.address(other)?);
        measured(b, target, &acct.clone(), |b| {
            let paid = measured(b, other, &acct, |b| {
                b.call(
                    CallKind::Call,
                    router,
                    IUniswapV2Router::removeLiquidityCall::SELECTOR,
                    &[t, o, x, zero.clone(), zero, acct.clone(), deadline],
                    Out::Ignore,
                )?;
                Ok(())
            })?;
            sell(b, other, target, paid)
        })
    } else {
        Err(unsupported())
    }
}

/// `approve(router, amount)` of `path[0]`, then Router02's
/// `swapExactTokensForTokens(amount, 0, path, account, max)`; its output
/// (an array) is ignored, for the caller to measure.
fn v2_sell(
    b: &mut ProgramBuilder,
    router: Address,
    path: [Address; 2],
    amount: In,
    acct_in: &In,
) -> Result<(), EncodeError> {
    approve(b, path[0], router, amount.clone())?;
    let path = In::Array(vec![b.address(path[0])?, b.address(path[1])?]);
    let (zero, deadline) = (b.uint(U256::ZERO)?, b.uint(U256::MAX)?);
    b.call(
        CallKind::Call,
        router,
        IUniswapV2Router::swapExactTokensForTokensCall::SELECTOR,
        &[amount, zero, path, acct_in.clone(), deadline],
        Out::Ignore,
    )?;
    Ok(())
}

/// `calls` framed by the account's balance of `token` before and after:
/// the difference is the output (for protocols whose functions do not
/// return what they minted or paid).
pub fn measured(
    b: &mut ProgramBuilder,
    token: Address,
    acct_in: &In,
    calls: impl FnOnce(&mut ProgramBuilder) -> Result<(), EncodeError>,
) -> Result<In, EncodeError> {
    let before = balance_of(b, token, acct_in.clone())?;
    calls(b)?;
    let after = balance_of(b, token, acct_in.clone())?;
    helper(b, BinaryOp::Sub, &[after, before])
}

/// The periphery router (of one of `roles`) bound to the factory of
/// `pool`'s protocol on its chain.
fn periphery(
    ctx: &StepCtx<'_>,
    pool: &Pool,
    roles: &[DeploymentRole],
) -> Result<(DeploymentRole, Address), EncodeError> {
    periphery_of(ctx.catalog, pool.chain, &pool.protocol, roles)
}

/// The periphery router (of the first of `roles` the catalog records)
/// bound to `protocol`'s factory on `chain`.
pub(crate) fn periphery_of(
    catalog: &Catalog,
    chain: ChainId,
    protocol: &str,
    roles: &[DeploymentRole],
) -> Result<(DeploymentRole, Address), EncodeError> {
    let missing = EncodeError::DeploymentUnavailable { chain, role: roles[0] };
    let factory = catalog.dex_factory(chain, protocol).ok_or(missing.clone())?;
    roles
        .iter()
        .find_map(|r| catalog.deployment(chain, *r, Some(factory.factory)).map(|d| (*r, d.address)))
        .ok_or(missing)
}

#[cfg(test)]
mod tests {
    use alloy_primitives::{Address, U256};
    use switchyard_catalog::ChainId;

    use super::MinAmountLd;

    /// A minimum taken off what is sent holds whatever amount is sent: never
    /// above what FeeLibV1's arithmetic (the kernel's, held to the
    /// published pool by the Stargate tests) delivers, and within the
    /// slippage of it for amounts above a few shared units.
    #[test]
    fn a_minimum_off_what_is_sent_never_exceeds_what_arrives() {
        for decimals in [6u8, 18] {
            let route = switchyard_kernel::BridgeRoute {
                name: "stargate".into(),
                from_chain: ChainId(1),
                token_in: Address::ZERO,
                decimals_in: decimals,
                to_chain: ChainId(8453),
                token_out: Address::ZERO,
                decimals_out: decimals,
                contract: Address::ZERO,
                fee_bps: 6,
                fixed_fee: U256::ZERO,
                estimated_seconds: 60,
                block_ms: [12_000, 2_000],
                shared_decimals: Some(crate::evm::layerzero::SHARED_DECIMALS),
                send_confirmations: None,
            };
            let unit = crate::evm::layerzero::shared_unit(decimals);
            let min = MinAmountLd::off_sent(&route, 50);
            assert_eq!(min, MinAmountLd::OfSent { off_bps: 6 + 50, less: unit * U256::from(2u8) });
            let mut sent = U256::from(1u8);
            let mut k = 0u64;
            while sent < U256::from(10u128.pow(30)) {
                if let Ok(out) = route.amount_out(sent) {
                    let floor = min.at(sent);
                    assert!(floor <= out, "{decimals} decimals: {sent} sent, {out} out, {floor}");
                    if sent > unit * U256::from(100_000u32) {
                        // Within the slippage and two units of it.
                        let lowest = out * U256::from(9_940u32) / U256::from(10_000u32);
                        assert!(floor + unit * U256::from(2u8) >= lowest, "{sent}: {floor}");
                    }
                }
                // Irregular steps through every magnitude.
                k += 1;
                sent = sent * U256::from(3u8) + U256::from(k * 7_919);
            }
        }
    }
}
