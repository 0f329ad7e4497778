//! A plan's program: the calls each step makes, with every step's output in
//! a slot the next step reads.
//!
//! ```text
//! [before: balance of each output]      STATICCALL account.tokenBalance
//! [pull inputs from their owner]        token.transferFrom(owner, account, amountIn)
//! [fee per input]                       token.transfer(feeReceiver, fee)
//! per leg, per route (split share), per step:
//!     V2     out = v2AmountOut(pair, in, x, fee); in.transfer(pair, x); pair.swap(…, account, "")
//!     V3     raw = pool.swap(account, zeroForOne, x, limit, ""); out = v3AmountOut(raw)
//!     curve  out = pool.get_dy(i, j, x); approve; pool.exchange{value?}(i, j, x, out)
//!     bal.   approve; out = vault.swap((poolId, GIVEN_IN, in, out, x, ""), (account, false, account, false), 0, max)
//!     4626   approve; out = vault.deposit(x, account)  |  out = vault.redeem(x, account, account)
//!     wrap   weth.deposit{value: x}()  |  weth.withdraw(x)            (out = x)
//! [after: delta of each output; requireAtLeast(delta, min); transfer delta to the receiver]
//! [sweep what is left of inputs and intermediates to the refund receiver]
//! ```
//!
//! The program is written for the address that runs it (`account`): the
//! router's executor, the caller's own account, or the caller's wallet.

use std::collections::BTreeSet;

use alloy_primitives::{Address, B256, U256, aliases::U160};
use alloy_sol_types::SolCall;
use switchyard_catalog::{ChainId, NATIVE_TOKEN};
use switchyard_kernel::{MarketSnapshot, Plan, PoolState, Step, StepAction, amm::uniswap_v3};

use super::{
    EncodeError, TokenAmount,
    protocols::{
        IBalancerVault, ICurvePool, IERC20, IERC4626, IShortcutsHelpers, IUniswapV2Pair,
        IUniswapV3Pool, IWETH,
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
    /// Receiver of the outputs.
    pub receiver: Address,
    /// Output tokens.
    pub outputs: &'a [Address],
    /// Minimum per output, enforced in the program when given (strategies
    /// whose entry point does not check it).
    pub check_min: Option<&'a [U256]>,
    /// Receiver of whatever is left of inputs and intermediates, when the
    /// account is a shared executor.
    pub refund: Option<Address>,
}

/// Lowest and highest price limits a V3 swap may set.
fn v3_limit(zero_for_one: bool) -> U256 {
    if zero_for_one {
        uniswap_v3::MIN_SQRT_RATIO + U256::ONE
    } else {
        uniswap_v3::MAX_SQRT_RATIO - U256::ONE
    }
}

/// Builds the program of a same-chain plan.
pub fn encode_plan(spec: &RouteSpec<'_>, book: &dyn ProtocolBook) -> Result<Program, EncodeError> {
    if spec.plan.chain != spec.plan.destination_chain {
        return Err(EncodeError::Unsupported("a cross-chain plan needs its bridge step encoded"));
    }
    let mut b = ProgramBuilder::new();
    let acct = spec.account;
    let acct_in = b.address(acct)?;

    // Outputs: their balance before, so only what the program produces
    // moves (the account may be the caller's own, holding more).
    let outputs: Vec<Address> = dedup(spec.outputs);
    let mut before = Vec::with_capacity(outputs.len());
    for t in &outputs {
        let t_in = b.address(*t)?;
        before.push(balance_of(&mut b, acct, t_in, acct_in.clone())?);
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

    if let Some(receiver) = spec.fee_receiver {
        for (input, fee) in spec.inputs.iter().zip(spec.fees) {
            if fee.is_zero() {
                continue;
            }
            send(&mut b, input.token, receiver, b_uint(fee))?;
        }
    }

    for leg in &spec.plan.legs {
        for route in &leg.routes {
            let mut x = b.uint(route.amount_in)?;
            for st in &route.steps {
                x = step(&mut b, spec, book, st, x, &acct_in)?;
            }
        }
    }

    for (k, t) in outputs.iter().enumerate() {
        let t_in = b.address(*t)?;
        let after = balance_of(&mut b, acct, t_in, acct_in.clone())?;
        let mut delta = helper(
            &mut b,
            acct,
            IShortcutsHelpers::subCall::SELECTOR,
            &[after, before[k].clone()],
        )?;
        if let Some(mins) = spec.check_min {
            let pos = spec.outputs.iter().position(|o| o == t).unwrap_or(k);
            let min = b.uint(mins.get(pos).copied().unwrap_or_default())?;
            delta = helper(
                &mut b,
                acct,
                IShortcutsHelpers::requireAtLeastCall::SELECTOR,
                &[delta, min],
            )?;
        }
        if spec.receiver != acct {
            send(&mut b, *t, spec.receiver, Amount::In(delta))?;
        }
    }

    if let Some(refund) = spec.refund {
        let out_set: BTreeSet<Address> = outputs.iter().copied().collect();
        let mut touched: Vec<Address> = Vec::new();
        for st in spec.plan.legs.iter().flat_map(|l| &l.routes).flat_map(|r| &r.steps) {
            for t in [st.token_in, st.token_out] {
                if !out_set.contains(&t) && !touched.contains(&t) {
                    touched.push(t);
                }
            }
        }
        for t in touched {
            let t_in = b.address(t)?;
            let left = balance_of(&mut b, acct, t_in, acct_in.clone())?;
            send(&mut b, t, refund, Amount::In(left))?;
        }
    }
    Ok(b.build())
}

/// An amount to send: a constant or a slot.
enum Amount {
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

/// A helper on the running account (STATICCALL), returning one word.
fn helper(
    b: &mut ProgramBuilder,
    acct: Address,
    selector: [u8; 4],
    args: &[In],
) -> Result<In, EncodeError> {
    let out = b.call(CallKind::StaticCall, acct, selector, args, Out::Word)?;
    out.map(In::Fixed).ok_or(EncodeError::Unsupported("helper without output"))
}

fn balance_of(
    b: &mut ProgramBuilder,
    acct: Address,
    token: In,
    holder: In,
) -> Result<In, EncodeError> {
    helper(b, acct, IShortcutsHelpers::tokenBalanceCall::SELECTOR, &[token, holder])
}

/// Sends `amount` of `token` (the native coin too) from the account.
fn send(
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

fn approve(
    b: &mut ProgramBuilder,
    token: Address,
    spender: Address,
    amount: In,
) -> Result<(), EncodeError> {
    let s = b.address(spender)?;
    b.call(CallKind::Call, token, IERC20::approveCall::SELECTOR, &[s, amount], Out::Ignore)?;
    Ok(())
}

fn word_out(out: Option<super::weiroll::Slot>) -> Result<In, EncodeError> {
    out.map(In::Fixed).ok_or(EncodeError::Unsupported("call without output"))
}

/// The calls of one step, from its input slot `x`; returns its output.
fn step(
    b: &mut ProgramBuilder,
    spec: &RouteSpec<'_>,
    book: &dyn ProtocolBook,
    st: &Step,
    x: In,
    acct_in: &In,
) -> Result<In, EncodeError> {
    let acct = spec.account;
    if st.action == StepAction::Bridge {
        return Err(EncodeError::Unsupported("bridge steps are encoded with their payload"));
    }
    let pool = spec.snapshot.pools().get(st.pool).ok_or(EncodeError::UnknownPool(st.pool))?;
    let unsupported = || EncodeError::UnsupportedStep { protocol: pool.protocol.to_string() };
    match &pool.state {
        PoolState::UniswapV2 { fee_bps, .. } => {
            let zero_for_one = st.token_in == pool.tokens[0];
            let (pair, tin) = (b.address(pool.address)?, b.address(st.token_in)?);
            let fee = b.uint(U256::from(*fee_bps))?;
            let out = helper(
                b,
                acct,
                IShortcutsHelpers::v2AmountOutCall::SELECTOR,
                &[pair.clone(), tin, x.clone(), fee],
            )?;
            b.call(
                CallKind::Call,
                st.token_in,
                IERC20::transferCall::SELECTOR,
                &[pair, x],
                Out::Ignore,
            )?;
            let zero = b.uint(U256::ZERO)?;
            let (a0, a1) = if zero_for_one { (zero, out.clone()) } else { (out.clone(), zero) };
            let empty = b.bytes(&[])?;
            b.call(
                CallKind::Call,
                pool.address,
                IUniswapV2Pair::swapCall::SELECTOR,
                &[a0, a1, acct_in.clone(), empty],
                Out::Ignore,
            )?;
            Ok(out)
        }
        PoolState::UniswapV3 { .. } => {
            let zero_for_one = st.token_in == pool.tokens[0];
            let zfo = b.word(zero_for_one)?;
            let limit = b.word(U160::from(v3_limit(zero_for_one)))?;
            let empty = b.bytes(&[])?;
            let raw = b.call(
                CallKind::Call,
                pool.address,
                IUniswapV3Pool::swapCall::SELECTOR,
                &[acct_in.clone(), zfo.clone(), x, limit, empty],
                Out::Raw,
            )?;
            let raw = raw.map(In::Var).ok_or_else(unsupported)?;
            helper(b, acct, IShortcutsHelpers::v3AmountOutCall::SELECTOR, &[raw, zfo])
        }
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
        PoolState::Weighted(_) => {
            let pool_id = book
                .pool_id(pool.chain, pool.address)
                .unwrap_or_else(|| crate::evm::world::weighted_pool_id(pool.address));
            let vault = crate::evm::world::BALANCER_VAULT;
            approve(b, st.token_in, vault, x.clone())?;
            let id = b.word(pool_id)?;
            let given_in = b.uint(U256::ZERO)?;
            let (tin, tout) = (b.address(st.token_in)?, b.address(st.token_out)?);
            let user_data = b.bytes(&[])?;
            let no = b.word(false)?;
            let limit = b.uint(U256::ZERO)?;
            let deadline = b.uint(U256::MAX)?;
            let out = b.call(
                CallKind::Call,
                vault,
                IBalancerVault::swapCall::SELECTOR,
                &[
                    In::Tuple(vec![id, given_in, tin, tout, x, user_data]),
                    acct_in.clone(),
                    no.clone(),
                    acct_in.clone(),
                    no,
                    limit,
                    deadline,
                ],
                Out::Word,
            )?;
            word_out(out)
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
        _ => Err(unsupported()),
    }
}
