//! Cross-chain plans: each route runs its source steps, crosses its bridge
//! to the destination chain's receiver contract, and there runs a program
//! of its own on the destination executor.
//!
//! ```text
//! source program (the strategy's account)         destination program, per route (executor)
//!   x = route's share of the input                  y = tokenBalance(bridged token, executor)
//!   x = source steps(x)                              y = destination steps(y)
//!   bridge_call(x, recipient = receiver,   ──▶       y = requireAtLeast(y, route minimum)
//!               payload = abi.encode(accountId,      transfer y of the output to the receiver
//!               requestId, commands, state,          sweep the steps' intermediates to refundTo
//!               refundTo))
//! ```
//!
//! The executor holds nothing between transactions, so its balance of the
//! bridged token is what the delivery brought. If a destination program
//! reverts (its minimum not met), the receiver contract sends the bridged
//! amount to `refundTo` instead: a user is never left with less than the
//! minimum of the output, only with the bridged token.
//!
//! Minimums: each route's is its share of the output's minimum, rounded up,
//! so that the routes together deliver at least the requested minimum.

use alloy_primitives::{Address, B256, Bytes, U256, keccak256};
use alloy_sol_types::SolCall;
use switchyard_catalog::Catalog;
use switchyard_kernel::{Plan, StepAction};

use super::{
    EncodeError,
    bridge::{Crossing, bridge_call, receiver_payload},
    helpers::{Helpers, require_at_least},
    protocols::IStETH,
    route::{Amount, StepCtx, balance_of, send, step},
    weiroll::{CallKind, Out, Program, ProgramBuilder},
};

/// What a cross-chain plan needs besides the source chain's spec.
#[derive(Debug, Clone)]
pub struct CrossSpec<'a> {
    /// The catalog (bridge pools and ids).
    pub catalog: &'a Catalog,
    /// The destination chain's executor: every delivery's program runs on
    /// it.
    pub executor: Address,
    /// The destination chain's receiver contract: every bridge delivers
    /// there.
    pub receiver_contract: Address,
    /// `accountId` of the destination's `ShortcutExecuted`.
    pub account_id: B256,
    /// `requestId` of the destination's `ShortcutExecuted` (the source's).
    pub request_id: B256,
    /// Who gets a delivery whose program reverts, what a destination
    /// program leaves over, and a bridge's fee refund.
    pub refund_to: Address,
    /// Minimum per output, in plan output order.
    pub mins: &'a [U256],
}

/// One bridge crossing of an encoded plan and what it does on arrival.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Delivery {
    /// The crossing's bridge route, by index in the snapshot.
    pub bridge: usize,
    /// The token arriving on the destination chain.
    pub token: Address,
    /// The program the destination executor runs.
    pub program: Program,
    /// The payload the receiver contract decodes: `abi.encode(accountId,
    /// requestId, commands, state, refundTo)`.
    pub payload: Bytes,
    /// The output the program delivers and its minimum.
    pub output: Address,
    /// The route's minimum of `output`.
    pub min_out: U256,
}

/// Ceiling of `a · b / c` (`c > 0`), saturating.
fn mul_div_up(a: U256, b: U256, c: U256) -> U256 {
    if c.is_zero() {
        return U256::ZERO;
    }
    a.checked_mul(b).map_or(U256::MAX, |p| p.div_ceil(c))
}

/// Encodes every route of a cross-chain `plan` into the source program `b`
/// (for the account of `ctx`) and returns the deliveries, in the order the
/// bridge calls are made.
pub fn encode_crossings(
    b: &mut ProgramBuilder,
    ctx: &StepCtx<'_>,
    plan: &Plan,
    outputs: &[Address],
    receiver: Address,
    cross: &CrossSpec<'_>,
) -> Result<Vec<Delivery>, EncodeError> {
    let mut deliveries = Vec::new();
    let mut n = 0u64;
    for leg in &plan.legs {
        let k = outputs
            .iter()
            .position(|o| *o == leg.token_out)
            .ok_or(EncodeError::Unsupported("a leg's output is not requested"))?;
        let total = plan.amounts_out.get(k).copied().unwrap_or_default();
        let min_total = cross.mins.get(k).copied().unwrap_or_default();
        for route in &leg.routes {
            let at = route
                .steps
                .iter()
                .position(|s| s.action == StepAction::Bridge)
                .ok_or(EncodeError::Unsupported("a cross-chain route without a bridge"))?;
            let mut x = b.uint(route.amount_in)?;
            for st in &route.steps[..at] {
                x = step(b, ctx, st, x)?;
            }
            let crossing = &route.steps[at];
            let bridge = ctx
                .snapshot
                .bridges()
                .get(crossing.pool)
                .ok_or(EncodeError::UnknownPool(crossing.pool))?;
            let min_out = mul_div_up(route.amount_out, min_total, total).min(route.amount_out);
            let program = destination_program(
                ctx,
                bridge.token_out,
                &route.steps[at + 1..],
                leg.token_out,
                min_out,
                receiver,
                cross,
            )?;
            let payload =
                receiver_payload(cross.account_id, cross.request_id, &program, cross.refund_to);
            // Relay names each deposit: the request and the route's number.
            let id = keccak256([cross.request_id.as_slice(), &n.to_be_bytes()].concat());
            n += 1;
            bridge_call(
                b,
                cross.catalog,
                ctx.account,
                &Crossing {
                    route: bridge,
                    recipient: cross.receiver_contract,
                    payload: payload.clone(),
                    refund: cross.refund_to,
                    id,
                },
                x,
            )?;
            deliveries.push(Delivery {
                bridge: crossing.pool,
                token: bridge.token_out,
                program,
                payload,
                output: leg.token_out,
                min_out,
            });
        }
    }
    Ok(deliveries)
}

/// The program a delivery of `token` runs on the destination executor.
fn destination_program(
    src: &StepCtx<'_>,
    token: Address,
    steps: &[switchyard_kernel::Step],
    output: Address,
    min_out: U256,
    receiver: Address,
    cross: &CrossSpec<'_>,
) -> Result<Program, EncodeError> {
    let chain = steps.last().map_or(switchyard_catalog::ChainId(0), |s| s.to_chain);
    let mut b = ProgramBuilder::with_helpers(Helpers::of(src.catalog, chain));
    let acct = cross.executor;
    let acct_in = b.address(acct)?;
    let ctx = StepCtx {
        snapshot: src.snapshot,
        book: src.book,
        catalog: src.catalog,
        account: acct,
        account_in: acct_in.clone(),
    };
    let mut y = balance_of(&mut b, token, acct_in.clone())?;
    for st in steps {
        y = step(&mut b, &ctx, st, y)?;
    }
    let min = b.uint(min_out)?;
    y = require_at_least(&mut b, y, min)?;
    let chain = steps.last().map(|s| s.to_chain);
    let is_share = chain.is_some_and(|c| src.snapshot.share_pool(c, output).is_some());
    if is_share {
        // A rebasing share token moves in shares: all the executor holds.
        let shares = b.call(
            CallKind::StaticCall,
            output,
            IStETH::sharesOfCall::SELECTOR,
            std::slice::from_ref(&acct_in),
            Out::Word,
        )?;
        let shares = super::route::word_out(shares)?;
        let to = b.address(receiver)?;
        b.call(
            CallKind::Call,
            output,
            IStETH::transferSharesCall::SELECTOR,
            &[to, shares],
            Out::Ignore,
        )?;
    } else {
        send(&mut b, output, receiver, Amount::In(y))?;
    }
    // Whatever the steps left of their tokens (rounding of a rebasing
    // token) goes to the refund address, not to the shared executor.
    let mut left: Vec<Address> = Vec::new();
    for st in steps {
        for t in [st.token_in, st.token_out] {
            if t != output && !left.contains(&t) {
                left.push(t);
            }
        }
    }
    for t in left {
        let rest = balance_of(&mut b, t, acct_in.clone())?;
        send(&mut b, t, cross.refund_to, Amount::In(rest))?;
    }
    Ok(b.build())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn route_minimums_round_up_and_never_exceed_the_route() {
        let (out, min, total) = (U256::from(333u32), U256::from(990u32), U256::from(1_000u32));
        // 333 · 990 / 1000 = 329.67 → 330.
        assert_eq!(mul_div_up(out, min, total), U256::from(330u32));
        assert_eq!(mul_div_up(out, total, total), out);
        assert_eq!(mul_div_up(out, min, U256::ZERO), U256::ZERO);
    }
}
