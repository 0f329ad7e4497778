//! Bridge calls: the source-chain call of each bridge in its public ABI,
//! from the amount slot the source steps left, carrying the destination
//! program (or nothing, when the funds go straight to the receiver).
//!
//! | bridge | call | destination data |
//! |---|---|---|
//! | `cctp` | `depositForBurn[WithHook](x, domain, mintRecipient, token, 0, 0, 2000[, hookData])` | hook data |
//! | `stargate` | the token's pool: `send((dstEid, to, x, x − dust, "", composeMsg, ""), (0, 0), refund)` | compose message |
//! | `ccip` | `ccipSend(selector, (receiver, data, [(token, x)], 0, ""))`, encoded by `ccipSendCalldata` | message data |
//! | `relay` | `announce(id, chain, recipient)`; `depositErc20(0, token, x, id)` or `depositNative{x}(0, id)` | off chain (the order) |
//!
//! The id tables are facts: CCTP domains from Circle's supported-domains
//! list, CCIP chain selectors from Chainlink's chain-selectors registry,
//! LayerZero endpoint ids from the catalog's LayerZero pools.

use alloy_primitives::{Address, B256, Bytes, U256};
use alloy_sol_types::SolCall;
use switchyard_catalog::{Catalog, ChainId, NATIVE_TOKEN};
use switchyard_kernel::BridgeRoute;

use super::{
    EncodeError,
    helpers::{BinaryOp, helper},
    protocols::{IRelayDepository, IStargatePool, ITokenMessengerV2},
    route::approve,
    weiroll::{CallKind, In, Out, ProgramBuilder},
};

/// CCTP domain of a chain.
pub fn cctp_domain(chain: ChainId) -> Option<u32> {
    Some(match chain.0 {
        1 => 0,
        43114 => 1,
        10 => 2,
        42161 => 3,
        8453 => 6,
        137 => 7,
        130 => 10,
        59144 => 11,
        81224 => 12,
        146 => 13,
        480 => 14,
        1329 => 16,
        _ => return None,
    })
}

/// CCIP chain selector of a chain.
pub fn ccip_selector(chain: ChainId) -> Option<u64> {
    Some(match chain.0 {
        1 => 5_009_297_550_715_157_269,
        10 => 3_734_403_246_176_062_136,
        56 => 11_344_663_589_394_136_015,
        100 => 465_200_170_687_744_372,
        130 => 1_923_510_103_922_296_319,
        137 => 4_051_577_828_743_386_545,
        146 => 1_673_871_237_479_749_969,
        8453 => 15_971_525_489_660_198_786,
        42161 => 4_949_039_107_694_359_620,
        43114 => 6_433_500_567_565_415_381,
        59144 => 4_627_098_889_531_055_414,
        80094 => 1_294_465_214_383_781_161,
        _ => return None,
    })
}

/// A bridge crossing to encode.
#[derive(Debug, Clone)]
pub struct Crossing<'a> {
    /// The kernel's bridge route.
    pub route: &'a BridgeRoute,
    /// Who receives on the destination chain: the cross-chain receiver
    /// (with `payload`) or the final receiver.
    pub recipient: Address,
    /// The destination program, empty for a direct delivery.
    pub payload: Bytes,
    /// Where a bridge returns what it does not take (Stargate's fee refund).
    pub refund: Address,
    /// An id for bridges that take one (Relay's order id).
    pub id: B256,
}

/// The bridge call of `crossing` for `x` of its token, from the account
/// `acct` (`acct_in` as an argument).
pub fn bridge_call(
    b: &mut ProgramBuilder,
    catalog: &Catalog,
    acct: Address,
    crossing: &Crossing<'_>,
    x: In,
) -> Result<(), EncodeError> {
    let r = crossing.route;
    let unsupported = |why: &'static str| EncodeError::Unsupported(why);
    let to_word = B256::left_padding_from(crossing.recipient.as_slice());
    let native = r.token_in == NATIVE_TOKEN;
    match &*r.name {
        "cctp" => {
            let domain =
                cctp_domain(r.to_chain).ok_or(unsupported("no CCTP domain for the destination"))?;
            if native {
                return Err(unsupported("CCTP carries tokens only"));
            }
            approve(b, r.token_in, r.contract, x.clone())?;
            let mut args = vec![
                x,
                b.uint(U256::from(domain))?,
                b.word(to_word)?,
                b.address(r.token_in)?,
                b.word(B256::ZERO)?,
                b.uint(U256::ZERO)?,
                b.uint(U256::from(2000u32))?,
            ];
            let selector = if crossing.payload.is_empty() {
                ITokenMessengerV2::depositForBurnCall::SELECTOR
            } else {
                args.push(b.bytes(&crossing.payload)?);
                ITokenMessengerV2::depositForBurnWithHookCall::SELECTOR
            };
            b.call(CallKind::Call, r.contract, selector, &args, Out::Ignore)?;
        }
        "stargate" => {
            let pool = catalog
                .layerzero_pools()
                .iter()
                .find(|p| p.chain_id == r.from_chain && p.token == r.token_in)
                .ok_or(unsupported("no Stargate pool for the token"))?;
            let eid = catalog
                .layerzero_pools()
                .iter()
                .find(|p| p.chain_id == r.to_chain)
                .map(|p| p.eid)
                .ok_or(unsupported("no LayerZero endpoint id for the destination"))?;
            // The pool takes whole units of its shared decimals: ask for no
            // less than that.
            let taken = match r.shared_decimals {
                Some(s) if r.decimals_in > s => {
                    let unit = b.uint(U256::from(10u8).pow(U256::from(r.decimals_in - s)))?;
                    let units = helper(b, BinaryOp::Div, &[x.clone(), unit.clone()])?;
                    helper(b, BinaryOp::Mul, &[units, unit])?
                }
                _ => x.clone(),
            };
            let kind = if native {
                let In::Fixed(v) = x else { return Err(unsupported("native amount")) };
                CallKind::Value(v)
            } else {
                approve(b, r.token_in, pool.pool, x.clone())?;
                CallKind::Call
            };
            let send = In::Tuple(vec![
                b.uint(U256::from(eid))?,
                b.word(to_word)?,
                x,
                taken,
                b.bytes(&[])?,
                b.bytes(&crossing.payload)?,
                b.bytes(&[])?,
            ]);
            let zero = b.uint(U256::ZERO)?;
            let refund = b.address(crossing.refund)?;
            b.call(
                kind,
                pool.pool,
                IStargatePool::sendCall::SELECTOR,
                &[send, zero.clone(), zero, refund],
                Out::Ignore,
            )?;
        }
        "ccip" => {
            let selector = ccip_selector(r.to_chain)
                .ok_or(unsupported("no CCIP selector for the destination"))?;
            if native {
                return Err(unsupported("the CCIP route carries tokens only"));
            }
            // The message is a struct with a nested array of token
            // amounts, which no deployed helper lays out for a run-time
            // amount.
            let _ = (selector, acct);
            return Err(unsupported("a CCIP send with a run-time amount"));
        }
        "relay" => {
            let id = b.word(crossing.id)?;
            let announce =
                [id.clone(), b.uint(U256::from(r.to_chain.0))?, b.address(crossing.recipient)?];
            b.call(
                CallKind::Call,
                r.contract,
                IRelayDepository::announceCall::SELECTOR,
                &announce,
                Out::Ignore,
            )?;
            let zero = b.address(Address::ZERO)?;
            if native {
                let In::Fixed(v) = x else { return Err(unsupported("native amount")) };
                b.call(
                    CallKind::Value(v),
                    r.contract,
                    IRelayDepository::depositNativeCall::SELECTOR,
                    &[zero, id],
                    Out::Ignore,
                )?;
            } else {
                approve(b, r.token_in, r.contract, x.clone())?;
                let token = b.address(r.token_in)?;
                b.call(
                    CallKind::Call,
                    r.contract,
                    IRelayDepository::depositErc20Call::SELECTOR,
                    &[zero, token, x, id],
                    Out::Ignore,
                )?;
            }
        }
        _ => return Err(unsupported("a bridge this version does not encode")),
    }
    Ok(())
}

/// The payload a cross-chain receiver runs: `abi.encode(accountId,
/// requestId, commands, state, refundTo)`.
pub fn receiver_payload(
    account_id: B256,
    request_id: B256,
    program: &super::Program,
    refund_to: Address,
) -> Bytes {
    use alloy_sol_types::SolValue;
    (account_id, request_id, program.commands.clone(), program.state.clone(), refund_to)
        .abi_encode_params()
        .into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_id_tables_cover_the_bridges_chains() {
        assert_eq!(cctp_domain(ChainId(1)), Some(0));
        assert_eq!(cctp_domain(ChainId(8453)), Some(6));
        assert_eq!(cctp_domain(ChainId(56)), None);
        assert_eq!(ccip_selector(ChainId(1)), Some(5_009_297_550_715_157_269));
    }
}
