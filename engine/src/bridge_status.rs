//! CCTP transfers followed on the nodes of their chains, and claimed.
//!
//! A source transaction is read from its chain's node: its receipt, the
//! `DepositForBurn` of the chain's `TokenMessengerV2` and the message its
//! `MessageTransmitterV2` emitted (`MessageSent`), and Enso's
//! `ShortcutExecuted` when a shortcut sent it. Circle's attestation service
//! (its V2 `GET /v2/messages/{sourceDomain}?transactionHash=…`, at the
//! configured URL) gives the message as attested, with its nonce. The
//! destination chain's node says whether that nonce is used
//! (`usedNonces`) and in which transaction (`MessageReceived`):
//!
//! - `unknown`: no node follows the source chain, no such receipt, or no
//!   burn in it;
//! - `failed`: the source transaction reverted;
//! - `pending`: burned, not yet attested;
//! - `inflight`: attested, not yet received on the destination;
//! - `delivered`: received, minted to the recipient.
//!
//! Every answer a node or the service sends is untrusted: anything
//! malformed is a reason in `error`, never a panic.

use std::{collections::BTreeMap, sync::Arc, time::Duration};

use alloy_primitives::{Address, B256, Bytes, U64, U256};
use alloy_sol_types::{SolCall, SolEvent};
use serde::Deserialize;
use switchyard_catalog::{Catalog, ChainId};
use switchyard_exec::evm::{
    abi::{CctpMessageTransmitterV2 as Transmitter, ShortcutsExecutor},
    cctp::{self, BurnMessage},
    layerzero::{self, Packet},
};

use crate::rpc::{RpcClient, http_get};

/// The most one status or claim waits for the nodes and the attestation
/// service together.
pub const STATUS_BUDGET: Duration = Duration::from_secs(8);

/// Blocks of the destination chain searched for the message's receipt.
pub const RECEIPT_LOOKBACK_BLOCKS: u64 = 100_000;

/// Where the transfer is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// Burned, not yet attested.
    Pending,
    /// Attested, not yet received.
    Inflight,
    /// Received on the destination.
    Delivered,
    /// The source transaction reverted.
    Failed,
    /// Not known here.
    Unknown,
}

impl Status {
    /// Its wire name.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Pending => "pending",
            Self::Inflight => "inflight",
            Self::Delivered => "delivered",
            Self::Failed => "failed",
            Self::Unknown => "unknown",
        }
    }
}

/// `ShortcutExecuted` as a chain emitted it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShortcutEvent {
    /// Account id.
    pub account_id: B256,
    /// Request id.
    pub request_id: B256,
    /// Block.
    pub block_number: u64,
    /// Transaction.
    pub transaction_hash: B256,
    /// Chain.
    pub chain: ChainId,
}

/// A CCTP transfer as the followed chains and the attestation service see
/// it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CctpTransfer {
    /// Source chain.
    pub source_chain: ChainId,
    /// Source transaction.
    pub source_tx: B256,
    /// Where it is.
    pub status: Status,
    /// Destination chain, once the burn is read.
    pub destination_chain: Option<ChainId>,
    /// The receipt on the destination.
    pub destination_tx: Option<B256>,
    /// The burn, as emitted.
    pub burn: Option<BurnMessage>,
    /// The source function had hook data (`depositForBurnWithHook`).
    pub with_hook: bool,
    /// What the attestation says: finality executed and fee executed.
    pub executed: Option<(u32, U256)>,
    /// Why Circle delays it, when it says.
    pub delay_reason: Option<String>,
    /// The message as attested and its attestation.
    pub attested: Option<(Bytes, Bytes)>,
    /// Its nonce.
    pub nonce: Option<B256>,
    /// Enso's event on the source chain.
    pub source_event: Option<ShortcutEvent>,
    /// Why the status is not further along.
    pub error: Option<String>,
}

/// A claim: `receiveMessage` on the destination's transmitter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CctpClaim {
    /// Destination chain.
    pub chain: ChainId,
    /// The transmitter.
    pub to: Address,
    /// `receiveMessage(message, attestation)`.
    pub data: Bytes,
}

/// The nodes bridge status reads, and CCTP's attestation service.
#[derive(Debug, Clone)]
pub struct BridgeWatch {
    /// A node per chain.
    pub nodes: BTreeMap<ChainId, Arc<RpcClient>>,
    /// Base URL of the attestation service (`http://…`).
    pub attestation_url: Option<String>,
    /// Timeout of one request to it.
    pub timeout: Duration,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Receipt {
    status: Option<U64>,
    block_number: U64,
    logs: Vec<crate::rpc::Log>,
}

/// One message of the attestation service's answer.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct AttestedMessage {
    message: Option<String>,
    attestation: Option<String>,
    status: Option<String>,
    delay_reason: Option<String>,
}

#[derive(Debug, Deserialize)]
struct Messages {
    #[serde(default)]
    messages: Vec<AttestedMessage>,
}

fn hex_bytes(s: &str) -> Option<Bytes> {
    alloy_primitives::hex::decode(s.strip_prefix("0x")?).ok().map(Bytes::from)
}

impl BridgeWatch {
    fn transfer(chain: ChainId, tx: B256, status: Status, error: String) -> CctpTransfer {
        CctpTransfer {
            source_chain: chain,
            source_tx: tx,
            status,
            destination_chain: None,
            destination_tx: None,
            burn: None,
            with_hook: false,
            executed: None,
            delay_reason: None,
            attested: None,
            nonce: None,
            source_event: None,
            error: Some(error),
        }
    }

    /// Where the CCTP transfer of source transaction `tx` on `chain` is,
    /// within [`STATUS_BUDGET`]: past it, `unknown` with the reason (a slow
    /// node or service never holds a request past the server's timeout).
    pub async fn cctp(&self, catalog: &Catalog, chain: ChainId, tx: B256) -> CctpTransfer {
        match tokio::time::timeout(STATUS_BUDGET, self.follow(catalog, chain, tx)).await {
            Ok(t) => t,
            Err(_) => Self::transfer(
                chain,
                tx,
                Status::Unknown,
                format!(
                    "the nodes and the attestation service did not answer within {} s",
                    STATUS_BUDGET.as_secs()
                ),
            ),
        }
    }

    async fn follow(&self, catalog: &Catalog, chain: ChainId, tx: B256) -> CctpTransfer {
        let unknown = |why: String| Self::transfer(chain, tx, Status::Unknown, why);
        let Some((bridge, setup)) = cctp::setup(catalog) else {
            return unknown("the catalog lists no CCTP".into());
        };
        let Some(source_domain) = setup.domain(chain) else {
            return unknown(format!("chain {chain} has no CCTP domain"));
        };
        let Some(node) = self.nodes.get(&chain) else {
            return unknown(format!("no node follows chain {chain} here"));
        };
        let receipt = match receipt_of(node, tx).await {
            Ok(r) => r,
            Err(e) => return unknown(format!("the node of chain {chain}: {e}")),
        };
        let Some(receipt) = receipt else {
            return unknown(format!("Transaction receipt not found for {tx}"));
        };
        if receipt.status.is_some_and(|s| s.is_zero()) {
            return Self::transfer(
                chain,
                tx,
                Status::Failed,
                "the source transaction reverted".into(),
            );
        }
        let messenger = bridge.contracts.get(&chain.0.to_string()).copied();
        let mut burns = receipt.logs.iter().filter_map(|l| {
            (l.address == setup.message_transmitter
                && l.topics.first() == Some(&Transmitter::MessageSent::SIGNATURE_HASH))
            .then(|| Transmitter::MessageSent::abi_decode_data(&l.data).ok())
            .flatten()
            .and_then(|(m,)| BurnMessage::decode(&m))
            .filter(|b| Some(b.sender) == messenger && b.source_domain == source_domain)
        });
        let Some(burn) = burns.next() else {
            return unknown(format!("transaction {tx} burns nothing through CCTP"));
        };
        let source_event = shortcut_event(&receipt, tx, chain);
        let mut out = CctpTransfer {
            source_chain: chain,
            source_tx: tx,
            status: Status::Pending,
            destination_chain: cctp::chain_of(setup, burn.destination_domain),
            destination_tx: None,
            with_hook: !burn.hook_data.is_empty(),
            burn: Some(burn.clone()),
            executed: None,
            delay_reason: None,
            attested: None,
            nonce: None,
            source_event,
            error: None,
        };
        let Some(to) = out.destination_chain else {
            out.error =
                Some(format!("domain {} is no chain of the catalog", burn.destination_domain));
            return out;
        };
        // The attestation.
        let Some(base) = &self.attestation_url else {
            out.error = Some("no CCTP attestation service is configured here".into());
            return out;
        };
        let path = format!("/v2/messages/{source_domain}?transactionHash={tx}");
        let answer = match http_get(base, &path, self.timeout).await {
            Ok((404, _)) => {
                out.error = Some("Circle has not seen the burn yet".into());
                return out;
            }
            Ok((200, body)) => serde_json::from_slice::<Messages>(&body)
                .map_err(|e| format!("the attestation service's answer: {e}")),
            Ok((status, _)) => Err(format!("the attestation service answered {status}")),
            Err(e) => Err(format!("the attestation service: {e}")),
        };
        let messages = match answer {
            Ok(m) => m.messages,
            Err(why) => {
                out.error = Some(why);
                return out;
            }
        };
        // The attested form of this burn: the same message, nonce,
        // finality and fee filled in.
        let same = |m: &BurnMessage| {
            (m.source_domain, m.destination_domain, m.sender, m.recipient)
                == (burn.source_domain, burn.destination_domain, burn.sender, burn.recipient)
                && (m.burn_token, m.mint_recipient, m.amount, m.message_sender, &m.hook_data)
                    == (
                        burn.burn_token,
                        burn.mint_recipient,
                        burn.amount,
                        burn.message_sender,
                        &burn.hook_data,
                    )
        };
        let found = messages.iter().find_map(|m| {
            let raw = hex_bytes(m.message.as_deref()?)?;
            let decoded = BurnMessage::decode(&raw).filter(same)?;
            Some((m, raw, decoded))
        });
        let Some((m, raw, _)) = found else {
            out.error = Some("the attestation service lists no message of this burn yet".into());
            return out;
        };
        out.delay_reason = m.delay_reason.clone();
        let attestation = m.attestation.as_deref().and_then(hex_bytes).filter(|a| !a.is_empty());
        let (Some(attestation), Some("complete")) = (attestation, m.status.as_deref()) else {
            out.error = Some(format!("attestation {}", m.status.as_deref().unwrap_or("pending")));
            return out;
        };
        out.executed = cctp::executed(&raw);
        let nonce = cctp::nonce(&raw);
        out.nonce = nonce;
        out.attested = Some((raw, attestation));
        out.status = Status::Inflight;
        // The destination.
        let (Some(dest), Some(nonce)) = (self.nodes.get(&to), nonce) else {
            out.error =
                Some(format!("no node follows chain {to} here: its receipt cannot be seen"));
            return out;
        };
        let used = Transmitter::usedNoncesCall { nonce }.abi_encode();
        match dest.eth_call(setup.message_transmitter, &used.into(), None).await {
            Ok(word) if U256::try_from_be_slice(&word).is_some_and(|u| !u.is_zero()) => {
                out.status = Status::Delivered;
                out.destination_tx = received_in(dest, setup.message_transmitter, nonce).await;
            }
            Ok(_) => {}
            Err(e) => out.error = Some(format!("the node of chain {to}: {e}")),
        }
        out
    }

    /// The claim of the CCTP transfer of `tx` on `chain`: its attested
    /// message, not yet received on the destination; otherwise why not.
    pub async fn cctp_claim(
        &self,
        catalog: &Catalog,
        chain: ChainId,
        tx: B256,
    ) -> Result<CctpClaim, (Option<ChainId>, String)> {
        let t = self.cctp(catalog, chain, tx).await;
        let why = |t: &CctpTransfer, default: &str| {
            (t.destination_chain, t.error.clone().unwrap_or_else(|| default.to_owned()))
        };
        match (t.status, &t.attested, t.destination_chain) {
            (Status::Delivered, _, _) => Err((t.destination_chain, "Already claimed".into())),
            (Status::Inflight, Some(_), _)
                if t.burn.as_ref().is_some_and(|b| !b.destination_caller.is_zero()) =>
            {
                let caller = t.burn.as_ref().map(|b| b.destination_caller).unwrap_or_default();
                Err((
                    t.destination_chain,
                    format!("only {caller:#x} may receive this message on the destination"),
                ))
            }
            (Status::Inflight, Some((message, _)), _)
                if cctp::expiration(message).is_some_and(|b| !b.is_zero()) =>
            {
                Err((
                    t.destination_chain,
                    "the attestation expires: it must be re-signed by Circle before it is received"
                        .into(),
                ))
            }
            (Status::Inflight, Some((message, attestation)), Some(to))
                if self.nodes.contains_key(&to) && t.error.is_none() =>
            {
                let Some((_, setup)) = cctp::setup(catalog) else {
                    return Err(why(&t, "the catalog lists no CCTP"));
                };
                let data = Transmitter::receiveMessageCall {
                    message: message.clone(),
                    attestation: attestation.clone(),
                }
                .abi_encode();
                Ok(CctpClaim { chain: to, to: setup.message_transmitter, data: data.into() })
            }
            _ => Err(why(&t, "not attested yet")),
        }
    }
}

/// The transaction in which `transmitter` received the message of `nonce`,
/// searched in the last [`RECEIPT_LOOKBACK_BLOCKS`] blocks.
async fn received_in(node: &RpcClient, transmitter: Address, nonce: B256) -> Option<B256> {
    let head = node.block_number().await.ok()?;
    // `null`: any caller.
    let filter = serde_json::json!({
        "fromBlock": U64::from(head.saturating_sub(RECEIPT_LOOKBACK_BLOCKS)),
        "toBlock": U64::from(head),
        "address": transmitter,
        "topics": [Transmitter::MessageReceived::SIGNATURE_HASH, null, nonce],
    });
    let logs: Vec<serde_json::Value> =
        node.call("eth_getLogs", serde_json::json!([filter])).await.ok()?;
    logs.iter().find_map(|l| serde_json::from_value(l.get("transactionHash")?.clone()).ok())
}

/// A LayerZero message (a Stargate taxi) as the followed chains see it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LzTransfer {
    /// Source chain.
    pub source_chain: ChainId,
    /// Source transaction.
    pub source_tx: B256,
    /// Where it is.
    pub status: Status,
    /// LayerZero's own word for it: `INFLIGHT` (sent), `CONFIRMING`
    /// (verified on the destination), `DELIVERED` (received there).
    pub message_status: &'static str,
    /// The packet, as the source endpoint emitted it.
    pub packet: Option<Packet>,
    /// Source block.
    pub source_block: Option<u64>,
    /// Destination chain, once the packet is read.
    pub destination_chain: Option<ChainId>,
    /// The transaction that received it on the destination, and its block.
    pub destination_tx: Option<(B256, u64)>,
    /// Enso's event on the source chain.
    pub source_event: Option<ShortcutEvent>,
    /// What ran on arrival: the composed shortcut's event (Enso's executor
    /// on the destination), whether it succeeded, and its error.
    pub destination_event: Option<(ShortcutEvent, bool, Option<Bytes>)>,
    /// Why the status is not further along.
    pub error: Option<String>,
}

/// `bytes32(uint256(1))`: a compose message the endpoint delivered.
const COMPOSE_RECEIVED: B256 = B256::with_last_byte(1);

impl BridgeWatch {
    fn lz_transfer(chain: ChainId, tx: B256, status: Status, error: String) -> LzTransfer {
        LzTransfer {
            source_chain: chain,
            source_tx: tx,
            status,
            message_status: "UNKNOWN",
            packet: None,
            source_block: None,
            destination_chain: None,
            destination_tx: None,
            source_event: None,
            destination_event: None,
            error: Some(error),
        }
    }

    /// The status of the LayerZero message (Stargate taxi) `tx` sent on
    /// `chain`, within [`STATUS_BUDGET`].
    pub async fn layerzero(&self, catalog: &Catalog, chain: ChainId, tx: B256) -> LzTransfer {
        match tokio::time::timeout(STATUS_BUDGET, self.follow_lz(catalog, chain, tx)).await {
            Ok(t) => t,
            Err(_) => Self::lz_transfer(
                chain,
                tx,
                Status::Unknown,
                format!("the nodes did not answer within {} s", STATUS_BUDGET.as_secs()),
            ),
        }
    }

    async fn follow_lz(&self, catalog: &Catalog, chain: ChainId, tx: B256) -> LzTransfer {
        use switchyard_exec::evm::abi::LzEndpointV2 as Endpoint;
        let unknown = |why: String| Self::lz_transfer(chain, tx, Status::Unknown, why);
        let Some((_, lz)) = layerzero::setup(catalog) else {
            return unknown("the catalog lists no LayerZero endpoint".into());
        };
        let Some(node) = self.nodes.get(&chain) else {
            return unknown(format!("no node follows chain {chain} here"));
        };
        let receipt = match receipt_of(node, tx).await {
            Ok(Some(r)) => r,
            Ok(None) => return unknown(format!("Transaction receipt not found for {tx}")),
            Err(e) => return unknown(format!("the node of chain {chain}: {e}")),
        };
        if receipt.status.is_some_and(|s| s.is_zero()) {
            return Self::lz_transfer(
                chain,
                tx,
                Status::Failed,
                "the source transaction reverted".into(),
            );
        }
        let packet = receipt.logs.iter().find_map(|l| {
            (l.address == lz.endpoint
                && l.topics.first() == Some(&Endpoint::PacketSent::SIGNATURE_HASH))
            .then(|| Endpoint::PacketSent::abi_decode_data(&l.data).ok())
            .flatten()
            .and_then(|(payload, _, _)| Packet::decode(&payload))
        });
        let Some(packet) = packet else {
            return unknown(format!("transaction {tx} sends no LayerZero packet"));
        };
        let mut out = LzTransfer {
            source_chain: chain,
            source_tx: tx,
            status: Status::Pending,
            message_status: "INFLIGHT",
            packet: Some(packet.clone()),
            source_block: Some(receipt.block_number.to::<u64>()),
            destination_chain: layerzero::chain_of(catalog, packet.dst_eid),
            destination_tx: None,
            source_event: shortcut_event(&receipt, tx, chain),
            destination_event: None,
            error: None,
        };
        let Some(to) = out.destination_chain else {
            out.error = Some(format!("endpoint {} is no chain of the catalog", packet.dst_eid));
            return out;
        };
        let Some(dest) = self.nodes.get(&to) else {
            out.error =
                Some(format!("no node follows chain {to} here: its delivery cannot be seen"));
            return out;
        };
        let (receiver, src, sender, nonce) =
            (packet.receiver, packet.src_eid, packet.sender, packet.nonce);
        let view =
            |data: Vec<u8>| async move { dest.eth_call(lz.endpoint, &data.into(), None).await };
        let hash = view(
            Endpoint::inboundPayloadHashCall { receiver, srcEid: src, sender, nonce }.abi_encode(),
        );
        let lazy =
            view(Endpoint::lazyInboundNonceCall { receiver, srcEid: src, sender }.abi_encode());
        let (hash, lazy) = match (hash.await, lazy.await) {
            (Ok(h), Ok(n)) => (
                B256::try_from(h.as_ref()).unwrap_or_default(),
                U256::try_from_be_slice(&n).unwrap_or_default(),
            ),
            (Err(e), _) | (_, Err(e)) => {
                out.error = Some(format!("the node of chain {to}: {e}"));
                return out;
            }
        };
        if !hash.is_zero() {
            out.status = Status::Inflight;
            out.message_status = "CONFIRMING";
            out.error = Some("verified on the destination, not yet received".into());
            return out;
        }
        if lazy < U256::from(nonce) {
            out.error = Some("not yet verified on the destination".into());
            return out;
        }
        // Received: the transaction, and what it composed.
        let delivered =
            find_log(dest, lz.endpoint, Endpoint::PacketDelivered::SIGNATURE_HASH, |data| {
                Endpoint::PacketDelivered::abi_decode_data(data).ok().is_some_and(|(o, r)| {
                    (o.srcEid, o.sender, o.nonce, r) == (src, sender, nonce, receiver)
                })
            })
            .await;
        let Some((delivery_tx, block)) = delivered else {
            out.status = Status::Delivered;
            out.message_status = "DELIVERED";
            out.error = Some("received, but its transaction is past the lookback".into());
            return out;
        };
        out.destination_tx = Some((delivery_tx, block));
        out.status = Status::Delivered;
        out.message_status = "DELIVERED";
        let Ok(Some(delivery)) = receipt_of(dest, delivery_tx).await else { return out };
        // Received by the endpoint, but a pool that could not pay keeps
        // the tokens (`retryReceiveToken` pays them later).
        use switchyard_exec::evm::abi::StargatePool;
        let paid = delivery.logs.iter().any(|l| {
            l.topics.first() == Some(&StargatePool::OFTReceived::SIGNATURE_HASH)
                && l.topics.get(1) == Some(&packet.guid)
        });
        if !paid {
            out.status = Status::Inflight;
            out.error = Some(
                "received, but the destination pool kept the tokens as unreceived \
                 (retryReceiveToken pays them)"
                    .into(),
            );
            return out;
        }
        let composed = delivery.logs.iter().find_map(|l| {
            (l.address == lz.endpoint
                && l.topics.first() == Some(&Endpoint::ComposeSent::SIGNATURE_HASH))
            .then(|| Endpoint::ComposeSent::abi_decode_data(&l.data).ok())
            .flatten()
            .filter(|c| c.2 == packet.guid)
        });
        let Some((from, composer, guid, index, _)) = composed else { return out };
        // Composed: delivered once the endpoint ran it.
        let queue = Endpoint::composeQueueCall { from, to: composer, guid, index }.abi_encode();
        let queued = dest.eth_call(lz.endpoint, &queue.into(), None).await;
        if queued.ok().and_then(|w| B256::try_from(w.as_ref()).ok()) != Some(COMPOSE_RECEIVED) {
            out.status = Status::Inflight;
            out.error = Some("received; the shortcut on arrival waits for its lzCompose".into());
            return out;
        }
        let ran = find_log(dest, lz.endpoint, Endpoint::ComposeDelivered::SIGNATURE_HASH, |data| {
            Endpoint::ComposeDelivered::abi_decode_data(data)
                .ok()
                .is_some_and(|(f, t, g, i)| (f, t, g, i) == (from, composer, guid, index))
        })
        .await;
        let Some((compose_tx, _)) = ran else { return out };
        let Ok(Some(r)) = receipt_of(dest, compose_tx).await else { return out };
        let failed = r
            .logs
            .iter()
            .find_map(|l| {
                switchyard_exec::bridge::composer_outcome(
                    (composer, guid),
                    l.address,
                    &l.topics,
                    &l.data,
                )
            })
            .flatten();
        let event = shortcut_event(&r, compose_tx, to).unwrap_or(ShortcutEvent {
            account_id: B256::ZERO,
            request_id: B256::ZERO,
            block_number: r.block_number.to::<u64>(),
            transaction_hash: compose_tx,
            chain: to,
        });
        if failed.is_some() {
            out.error = Some(
                "the shortcut on arrival failed: the composer sent what arrived to the receiver"
                    .into(),
            );
        }
        out.destination_event = Some((event, failed.is_none(), failed));
        out
    }
}

/// A transaction's receipt from `node` (`None`: the node has none).
async fn receipt_of(node: &RpcClient, tx: B256) -> Result<Option<Receipt>, crate::rpc::RpcError> {
    node.call("eth_getTransactionReceipt", serde_json::json!([tx])).await
}

/// Enso's `ShortcutExecuted` in `receipt`.
fn shortcut_event(receipt: &Receipt, tx: B256, chain: ChainId) -> Option<ShortcutEvent> {
    receipt.logs.iter().find_map(|l| {
        (l.topics.first() == Some(&ShortcutsExecutor::ShortcutExecuted::SIGNATURE_HASH))
            .then(|| ShortcutsExecutor::ShortcutExecuted::abi_decode_data(&l.data).ok())
            .flatten()
            .map(|(account_id, request_id)| ShortcutEvent {
                account_id,
                request_id,
                block_number: receipt.block_number.to::<u64>(),
                transaction_hash: tx,
                chain,
            })
    })
}

/// The transaction (and block) of the first log of `emitter` with
/// `topic` whose data `matches`, in the last [`RECEIPT_LOOKBACK_BLOCKS`]
/// blocks.
async fn find_log(
    node: &RpcClient,
    emitter: Address,
    topic: B256,
    matches: impl Fn(&[u8]) -> bool,
) -> Option<(B256, u64)> {
    let head = node.block_number().await.ok()?;
    let filter = serde_json::json!({
        "fromBlock": U64::from(head.saturating_sub(RECEIPT_LOOKBACK_BLOCKS)),
        "toBlock": U64::from(head),
        "address": emitter,
        "topics": [topic],
    });
    let logs: Vec<serde_json::Value> =
        node.call("eth_getLogs", serde_json::json!([filter])).await.ok()?;
    logs.iter().find_map(|l| {
        let data: Bytes = serde_json::from_value(l.get("data")?.clone()).ok()?;
        if !matches(&data) {
            return None;
        }
        let hash: B256 = serde_json::from_value(l.get("transactionHash")?.clone()).ok()?;
        let block: U64 = serde_json::from_value(l.get("blockNumber")?.clone()).ok()?;
        Some((hash, block.to::<u64>()))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A node that accepts and never answers holds a status no longer
    /// than the budget: it answers `unknown`, saying why.
    #[tokio::test]
    async fn a_silent_node_costs_the_budget_and_no_more() {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let url = format!("http://{}", listener.local_addr().expect("addr"));
        tokio::spawn(async move {
            let mut held = Vec::new();
            while let Ok((s, _)) = listener.accept().await {
                held.push(s);
            }
        });
        let node = RpcClient::new(&url, Duration::from_secs(60)).expect("client");
        let watch = BridgeWatch {
            nodes: BTreeMap::from([(ChainId(1), Arc::new(node))]),
            attestation_url: None,
            timeout: Duration::from_secs(60),
        };
        let catalog = switchyard_catalog::loaders::load_catalog(&[] as &[&str]).expect("catalog");
        let started = std::time::Instant::now();
        let t = watch.cctp(&catalog, ChainId(1), B256::repeat_byte(1)).await;
        let took = started.elapsed();
        assert_eq!(t.status, Status::Unknown);
        assert!(t.error.as_deref().is_some_and(|e| e.contains("did not answer")), "{t:?}");
        assert!(took >= STATUS_BUDGET && took < STATUS_BUDGET + Duration::from_secs(5), "{took:?}");
    }
}
