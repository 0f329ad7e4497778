//! Bridged amounts followed to their destination chain in the world.
//!
//! A transaction that bridges is proven on both sides before it is
//! answered: the source chain's program runs first; then each message it
//! sent is relayed as the bridge would relay it, and received on the
//! destination chain's world. What the receiver gains there is what the
//! answer promises.
//!
//! CCTP V2 (standard transfer): the message `MessageTransmitterV2` emitted
//! gets a nonce and the finalized threshold as Circle's attestation service
//! fills them, the world's attester signs it ([`crate::evm::cctp`]), and a
//! relayer calls `receiveMessage` on the destination's transmitter, which
//! has the destination's `TokenMessengerV2` mint the USDC.

use alloy_primitives::{Address, B256, Bytes, Log, U256, address, keccak256};
use alloy_sol_types::{SolEvent, SolValue};
use switchyard_catalog::{Catalog, ChainId};

use crate::{
    ExecError,
    encode::Tx,
    evm::{
        abi::CctpTokenMessengerV2,
        cctp::{self, BurnMessage},
        world::World,
    },
    simulate::{SimSetup, simulate},
};

/// Who relays messages to the destination chains of the world.
pub const RELAYER: Address = address!("5eed00000000000000000000000000000000e1a7");

/// One bridged amount received on its destination chain.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Delivery {
    /// Destination chain.
    pub to_chain: ChainId,
    /// Token sent, on the source chain.
    pub token_in: Address,
    /// Amount sent.
    pub amount_in: U256,
    /// Token received, on the destination chain.
    pub token: Address,
    /// Who received it.
    pub receiver: Address,
    /// What the receiver gained.
    pub amount: U256,
    /// What the bridge paid out on the destination (the amount, but for a
    /// Stargate taxi whose compose ran a shortcut).
    pub arrived: U256,
    /// Each watched balance's gain, in the order watched (a composed
    /// shortcut's outputs).
    pub gains: Vec<U256>,
    /// Each watched balance before and after (a position entered on
    /// arrival may fall, as a debt repaid does); empty for CCTP.
    pub balances: Vec<(U256, U256)>,
}

/// Every CCTP message among `logs` (a source transaction's, on `from`),
/// attested and received on its destination chain: what each delivered,
/// in the order they were sent. `request_id` makes each message's nonce
/// unique, as Circle's are.
pub fn deliver_cctp(
    world: &World,
    catalog: &Catalog,
    from: ChainId,
    logs: &[Log],
    request_id: B256,
) -> Result<Vec<Delivery>, ExecError> {
    let Some((bridge, setup)) = cctp::setup(catalog) else { return Ok(Vec::new()) };
    let mut out = Vec::new();
    for (k, sent) in cctp::messages_sent(logs, setup.message_transmitter).iter().enumerate() {
        let failed = |why: String| ExecError::SimulationFailed(format!("CCTP message {k}: {why}"));
        let m = BurnMessage::decode(sent).ok_or_else(|| failed("not a burn message".to_owned()))?;
        let to = cctp::chain_of(setup, m.destination_domain).ok_or_else(|| {
            failed(format!("domain {} is no chain of the catalog", m.destination_domain))
        })?;
        let cw = world.chain(to).ok_or(ExecError::BridgeUnavailable { chain: to })?;
        let token = bridge
            .tokens
            .get(&to.0.to_string())
            .into_iter()
            .flatten()
            .copied()
            .find(|t| cw.token_impl(*t).is_some())
            .ok_or(ExecError::BridgeUnavailable { chain: to })?;
        let nonce = keccak256((U256::from(from.0), request_id, U256::from(k)).abi_encode());
        let message = m.attested(nonce);
        let data = cctp::receive_calldata(&message)
            .ok_or_else(|| failed("the attester cannot sign".to_owned()))?;
        let tx = Tx { from: RELAYER, to: setup.message_transmitter, data, value: U256::ZERO };
        let setup_watch =
            SimSetup { watch: vec![(m.mint_recipient, token)], ..SimSetup::default() };
        let outcome = simulate(cw, &tx, &setup_watch)
            .map_err(|e| failed(format!("not received on chain {to}: {e}")))?;
        let gained = outcome.gains.first().copied().flatten().unwrap_or_default();
        // A finalized message mints the whole amount, no fee.
        let minted = outcome.logs.iter().find_map(|l| {
            CctpTokenMessengerV2::MintAndWithdraw::decode_log(l)
                .ok()
                .filter(|e| e.mintRecipient == m.mint_recipient && e.mintToken == token)
                .map(|e| (e.amount, e.feeCollected))
        });
        if gained != m.amount || minted != Some((m.amount, U256::ZERO)) {
            tracing::error!(burned = %m.amount, gained = %gained, ?minted, "CCTP delivery differs");
            return Err(ExecError::SimulationMismatch { index: 0 });
        }
        out.push(Delivery {
            to_chain: to,
            token_in: m.burn_token,
            amount_in: m.amount,
            token,
            receiver: m.mint_recipient,
            amount: gained,
            arrived: gained,
            gains: vec![gained],
            balances: Vec::new(),
        });
    }
    Ok(out)
}

/// What Enso's composer at `composer` says of its shortcut for message
/// `guid` in one log (`address`, `topics`, `data`): `Some(None)` it ran,
/// `Some(Some(error))` it failed with `error` (and the composer paid the
/// receiver what arrived); `None` for any other log.
pub fn composer_outcome(
    (composer, guid): (Address, alloy_primitives::B256),
    address: Address,
    topics: &[alloy_primitives::B256],
    data: &[u8],
) -> Option<Option<Bytes>> {
    use crate::evm::abi::ComposeReceiver::{ShortcutExecutionFailed, ShortcutExecutionSuccessful};
    use alloy_sol_types::SolEvent;
    if address != composer {
        return None;
    }
    match topics.first() {
        Some(t) if *t == ShortcutExecutionSuccessful::SIGNATURE_HASH => {
            let ran = ShortcutExecutionSuccessful::abi_decode_data(data).ok()?;
            (ran.0 == guid).then_some(None)
        }
        Some(t) if *t == ShortcutExecutionFailed::SIGNATURE_HASH => {
            let (g, error) = ShortcutExecutionFailed::abi_decode_data(data).ok()?;
            (g == guid).then_some(Some(error))
        }
        _ => None,
    }
}

/// Who executes LayerZero messages on the world's destination chains.
pub const LZ_EXECUTOR: Address = address!("5eed00000000000000000000000000000000e7ec");

/// Every Stargate taxi among `logs` (a source transaction's, on `from`),
/// verified, received and (when it composes) composed on its destination
/// chain: what each delivered, in the order they were sent. `watch[k]`
/// names who is measured, and in which tokens, for the `k`th taxi when it
/// is not its receiver in the destination pool's token (a composed
/// shortcut pays onwards).
pub fn deliver_layerzero(
    world: &World,
    catalog: &Catalog,
    from: ChainId,
    logs: &[Log],
    watch: &[Vec<(Address, Address)>],
) -> Result<Vec<Delivery>, ExecError> {
    deliver_layerzero_with(world, catalog, from, logs, watch, &[])
}

/// [`deliver_layerzero`], with Aave variable debts `(debt token, borrower,
/// amount)` added on each destination's fork first: what a repayment on
/// arrival repays (the world has no borrowers of its own).
pub fn deliver_layerzero_with(
    world: &World,
    catalog: &Catalog,
    from: ChainId,
    logs: &[Log],
    watch: &[Vec<(Address, Address)>],
    debts: &[(Address, Address, U256)],
) -> Result<Vec<Delivery>, ExecError> {
    use crate::evm::{
        abi::{LzEndpointV2, LzSimpleMessageLib, StargatePool},
        layerzero::{self, Packet, Taxi},
    };
    use alloy_sol_types::SolCall;
    let Some((_, lz)) = layerzero::setup(catalog) else { return Ok(Vec::new()) };
    let mut out = Vec::new();
    let sent = logs
        .iter()
        .filter(|l| l.address == lz.endpoint)
        .filter_map(|l| LzEndpointV2::PacketSent::decode_log(l).ok());
    for (k, event) in sent.enumerate() {
        let failed =
            |why: String| ExecError::SimulationFailed(format!("LayerZero packet {k}: {why}"));
        let p = Packet::decode(&event.encodedPayload)
            .ok_or_else(|| failed("not a V1 packet".to_owned()))?;
        let taxi =
            Taxi::decode(&p.message).ok_or_else(|| failed("not a Stargate taxi".to_owned()))?;
        let to = layerzero::chain_of(catalog, p.dst_eid)
            .ok_or_else(|| failed(format!("endpoint {} is no chain of the catalog", p.dst_eid)))?;
        let cw = world.chain(to).ok_or(ExecError::BridgeUnavailable { chain: to })?;
        let pool = layerzero::pools_on(catalog, to)
            .find(|q| q.asset_id == Some(taxi.asset_id))
            .ok_or(ExecError::BridgeUnavailable { chain: to })?;
        let source_pool = logs.iter().find_map(|l| {
            StargatePool::OFTSent::decode_log(l)
                .ok()
                .filter(|e| e.guid == p.guid)
                .map(|e| (l.address, e.data.amountSentLD))
        });
        let watched = watch.get(k).filter(|w| !w.is_empty());
        let watched = watched.cloned().unwrap_or_else(|| vec![(taxi.receiver, pool.token)]);
        let mut evm = cw.fork();
        let balances = |evm: &mut crate::evm::ForkEvm| {
            watched
                .iter()
                .map(|(holder, token)| {
                    crate::evm::world::ChainWorld::balance_of(evm, *token, *holder)
                        .map_err(|e| failed(format!("balance of {holder}: {e}")))
                })
                .collect::<Result<Vec<U256>, ExecError>>()
        };
        for (token, borrower, amount) in debts {
            cw.add_debt(&mut evm, *token, *borrower, *amount)
                .map_err(|e| failed(format!("a debt of {borrower} in {token}: {e}")))?;
        }
        let before = balances(&mut evm)?;
        let step = |evm: &mut crate::evm::ForkEvm, to_: Address, data: Vec<u8>, what: &str| {
            evm.call(LZ_EXECUTOR, to_, data.into(), U256::ZERO).map_err(|e| {
                failed(format!("{what} on chain {to}: {}", crate::simulate::describe(&e)))
            })
        };
        let verify = LzSimpleMessageLib::validatePacketCall { packetBytes: p.raw.clone() };
        step(&mut evm, layerzero::MESSAGE_LIB, verify.abi_encode(), "not verified")?;
        let origin = LzEndpointV2::Origin { srcEid: p.src_eid, sender: p.sender, nonce: p.nonce };
        let receive = LzEndpointV2::lzReceiveCall {
            origin,
            receiver: p.receiver,
            guid: p.guid,
            message: p.message.clone(),
            extraData: Bytes::new(),
        };
        let received = step(&mut evm, lz.endpoint, receive.abi_encode(), "not received")?;
        let arrived = received.logs.iter().find_map(|l| {
            StargatePool::OFTReceived::decode_log(l)
                .ok()
                .filter(|e| l.address == pool.pool && e.guid == p.guid)
                .map(|e| e.data.amountReceivedLD)
        });
        let Some(arrived) = arrived else {
            // Stargate keeps what it could not pay as an unreceived token:
            // more than the destination pool holds.
            let held =
                crate::evm::world::ChainWorld::balance_of(&mut cw.fork(), pool.token, pool.pool)
                    .unwrap_or_default();
            let unit = layerzero::shared_unit(pool.decimals);
            let amount = U256::from(taxi.amount_sd).saturating_mul(unit);
            if held < amount {
                return Err(ExecError::BridgeLimit {
                    bridge: "stargate".to_owned(),
                    amount,
                    limit: held,
                });
            }
            // The pool holds enough: its receiver refused the payment.
            return Err(failed(format!(
                "the pool on chain {to} could not pay {:#x} (kept as an unreceived token)",
                taxi.receiver
            )));
        };
        if taxi.composes {
            let composed = received
                .logs
                .iter()
                .find_map(|l| {
                    LzEndpointV2::ComposeSent::decode_log(l)
                        .ok()
                        .filter(|e| l.address == lz.endpoint && e.guid == p.guid)
                })
                .ok_or_else(|| failed("no compose message was queued".to_owned()))?;
            let compose = LzEndpointV2::lzComposeCall {
                from: composed.from,
                to: composed.to,
                guid: composed.guid,
                index: composed.index,
                message: composed.message.clone(),
                extraData: Bytes::new(),
            };
            // As the executor runs it: with the gas the taxi's options
            // bought, no more.
            let data = compose.abi_encode();
            let budget = layerzero::compose_budget(&event.options, composed.index)
                .ok_or_else(|| failed("no lzCompose gas in the taxi's options".to_owned()))?;
            let limit = budget.gas.saturating_add(layerzero::intrinsic_gas(&data));
            // The executor brings the native coin the options ask for (it
            // was paid for it on the source chain, in the message fee).
            if !budget.value.is_zero() {
                let held = evm.balance(LZ_EXECUTOR);
                evm.set_balance(LZ_EXECUTOR, held.saturating_add(budget.value));
            }
            let ran = evm
                .call_with_gas(LZ_EXECUTOR, lz.endpoint, data.into(), budget.value, limit)
                .map_err(|e| {
                    failed(format!("not composed on chain {to}: {}", crate::simulate::describe(&e)))
                })?;
            let outcome = ran.logs.iter().find_map(|l| {
                composer_outcome((composed.to, composed.guid), l.address, l.topics(), &l.data.data)
            });
            match outcome {
                Some(None) => {}
                Some(Some(error)) => {
                    return Err(failed(format!(
                        "the composed shortcut failed on chain {to}: {}",
                        crate::simulate::decode_revert(&error).unwrap_or_else(|| error.to_string())
                    )));
                }
                None => return Err(failed("the composer ran no shortcut".to_owned())),
            }
        }
        let after = balances(&mut evm)?;
        let gains: Vec<U256> =
            after.iter().zip(&before).map(|(a, b)| a.checked_sub(*b).unwrap_or_default()).collect();
        let gained = gains.first().copied().unwrap_or_default();
        let (holder, token) = watched.first().copied().unwrap_or((taxi.receiver, pool.token));
        let (token_in, amount_in) = match source_pool {
            Some((pool_at, sent)) => (
                layerzero::pools_on(catalog, from)
                    .find(|q| q.pool == pool_at)
                    .map_or(Address::ZERO, |q| q.token),
                sent,
            ),
            None => (Address::ZERO, U256::ZERO),
        };
        // Paid straight to the receiver, the gain is what the pool says it
        // paid.
        if watch.get(k).is_none_or(Vec::is_empty) && gained != arrived {
            tracing::error!(%arrived, %gained, "Stargate delivery differs");
            return Err(ExecError::SimulationMismatch { index: 0 });
        }
        out.push(Delivery {
            to_chain: to,
            token_in,
            amount_in,
            token,
            receiver: holder,
            amount: gained,
            arrived,
            balances: before.iter().copied().zip(after.iter().copied()).collect(),
            gains,
        });
    }
    Ok(out)
}
