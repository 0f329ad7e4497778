//! Circle's CCTP V2 in the world: the message formats, and the attester.
//!
//! Each chain the catalog's CCTP bridge lists gets `MessageTransmitterV2`,
//! `TokenMinterV2` and `TokenMessengerV2` at their deployed addresses (as
//! references: no registry publishes their bytecode), and its carried USDC
//! as a FiatToken that the minter may mint and burn. They are configured as
//! the deployed ones are: each remote domain's messenger, each remote USDC
//! linked to the local one, a per-message burn limit.
//!
//! One thing differs by necessity: the attester. Circle's attestation
//! service signs the messages it has seen finalize, with keys only it holds.
//! The world's transmitters trust one attester, [`attester`], whose key is
//! public and used only here, so that a burn on one chain of the world can
//! be attested and minted on another exactly as the deployed contracts
//! would do it with Circle's signature. Nothing the service answers is
//! signed with it.

use std::sync::OnceLock;

use alloy_primitives::{Address, B256, Bytes, U256, keccak256};
use k256::ecdsa::SigningKey;
use switchyard_catalog::{Bridge, Catalog, CctpSetup, ChainId};

/// Finality from which a message is finalized (a standard transfer:
/// attested after hard finality, no fee).
pub const FINALIZED: u32 = 2000;

/// The largest message body the world's transmitters accept.
pub const MAX_MESSAGE_BODY_SIZE: u64 = 8192;

/// Where each field of a message starts (`MessageV2`).
mod at {
    pub(super) const SOURCE_DOMAIN: usize = 4;
    pub(super) const DESTINATION_DOMAIN: usize = 8;
    pub(super) const NONCE: usize = 12;
    pub(super) const SENDER: usize = 44;
    pub(super) const RECIPIENT: usize = 76;
    pub(super) const DESTINATION_CALLER: usize = 108;
    pub(super) const MIN_FINALITY: usize = 140;
    pub(super) const FINALITY_EXECUTED: usize = 144;
    pub(super) const BODY: usize = 148;
    /// And of a burn message (`BurnMessageV2`), from the body's start.
    pub(super) const BURN_TOKEN: usize = 4;
    pub(super) const MINT_RECIPIENT: usize = 36;
    pub(super) const AMOUNT: usize = 68;
    pub(super) const MESSAGE_SENDER: usize = 100;
    pub(super) const MAX_FEE: usize = 132;
    pub(super) const FEE_EXECUTED: usize = 164;
    pub(super) const EXPIRATION: usize = 196;
    pub(super) const HOOK_DATA: usize = 228;
}

/// The catalog's CCTP bridge: its record and its setup.
pub fn setup(catalog: &Catalog) -> Option<(&Bridge, &CctpSetup)> {
    catalog.bridges().iter().find_map(|b| b.cctp.as_ref().map(|c| (b, c)))
}

/// The chain of CCTP domain `domain`.
pub fn chain_of(setup: &CctpSetup, domain: u32) -> Option<ChainId> {
    setup.domains.iter().find(|(_, d)| **d == domain).and_then(|(c, _)| c.parse().ok().map(ChainId))
}

fn key() -> &'static SigningKey {
    static KEY: OnceLock<SigningKey> = OnceLock::new();
    KEY.get_or_init(|| {
        let secret = keccak256(b"switchyard world cctp attester");
        // A keccak output is a valid secp256k1 scalar except with
        // negligible probability; this one is.
        SigningKey::from_slice(secret.as_slice()).unwrap_or_else(|_| unreachable!())
    })
}

/// The one attester the world's message transmitters trust.
pub fn attester() -> Address {
    let point = key().verifying_key().to_encoded_point(false);
    Address::from_slice(&keccak256(&point.as_bytes()[1..])[12..])
}

/// The world attester's signature of `message`: `r | s | v`, `s` in the
/// lower half order, `v` 27 or 28 (what `receiveMessage` recovers).
pub fn attest(message: &[u8]) -> Option<Bytes> {
    let digest = keccak256(message);
    let (sig, recid) = key().sign_prehash_recoverable(digest.as_slice()).ok()?;
    let (sig, recid) = match sig.normalize_s() {
        Some(low) => (low, k256::ecdsa::RecoveryId::new(!recid.is_y_odd(), recid.is_x_reduced())),
        None => (sig, recid),
    };
    let mut out = sig.to_bytes().to_vec();
    out.push(27 + recid.to_byte());
    Some(out.into())
}

/// A burn message as the source chain's transmitter emitted it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BurnMessage {
    /// The message, as emitted (nonce and finality empty).
    pub raw: Bytes,
    /// Source domain.
    pub source_domain: u32,
    /// Destination domain.
    pub destination_domain: u32,
    /// The source chain's messenger.
    pub sender: Address,
    /// The destination chain's messenger.
    pub recipient: Address,
    /// Who may relay it (zero: anyone).
    pub destination_caller: B256,
    /// Finality asked for.
    pub min_finality: u32,
    /// Token burned, on the source chain.
    pub burn_token: Address,
    /// Who is minted to.
    pub mint_recipient: Address,
    /// Amount burned.
    pub amount: U256,
    /// Who burned it.
    pub message_sender: Address,
    /// Most fee it may pay.
    pub max_fee: U256,
    /// Hook data for the destination.
    pub hook_data: Bytes,
}

fn word(b: &[u8], from: usize) -> Option<B256> {
    b.get(from..from + 32).map(B256::from_slice)
}

fn uint32(b: &[u8], from: usize) -> Option<u32> {
    b.get(from..from + 4).and_then(|s| s.try_into().ok()).map(u32::from_be_bytes)
}

fn address(b: &[u8], from: usize) -> Option<Address> {
    word(b, from).map(Address::from_word)
}

impl BurnMessage {
    /// Decodes `message`; `None` for anything shorter than a burn message.
    pub fn decode(message: &[u8]) -> Option<Self> {
        let body = message.get(at::BODY..)?;
        Some(Self {
            raw: Bytes::copy_from_slice(message),
            source_domain: uint32(message, at::SOURCE_DOMAIN)?,
            destination_domain: uint32(message, at::DESTINATION_DOMAIN)?,
            sender: address(message, at::SENDER)?,
            recipient: address(message, at::RECIPIENT)?,
            destination_caller: word(message, at::DESTINATION_CALLER)?,
            min_finality: uint32(message, at::MIN_FINALITY)?,
            burn_token: address(body, at::BURN_TOKEN)?,
            mint_recipient: address(body, at::MINT_RECIPIENT)?,
            amount: word(body, at::AMOUNT)?.into(),
            message_sender: address(body, at::MESSAGE_SENDER)?,
            max_fee: word(body, at::MAX_FEE)?.into(),
            hook_data: Bytes::copy_from_slice(body.get(at::HOOK_DATA..)?),
        })
    }

    /// The message as the attestation service returns it for a standard
    /// transfer: with `nonce`, attested at [`FINALIZED`], no fee executed.
    pub fn attested(&self, nonce: B256) -> Bytes {
        let mut m = self.raw.to_vec();
        m[at::NONCE..at::NONCE + 32].copy_from_slice(nonce.as_slice());
        m[at::FINALITY_EXECUTED..at::FINALITY_EXECUTED + 4]
            .copy_from_slice(&FINALIZED.to_be_bytes());
        let fee = at::BODY + at::FEE_EXECUTED;
        m[fee..fee + 32].fill(0);
        m.into()
    }
}

/// The messages `transmitter` sent among `logs` (its `MessageSent`
/// events), in order.
pub fn messages_sent(logs: &[alloy_primitives::Log], transmitter: Address) -> Vec<Bytes> {
    use alloy_sol_types::SolEvent;
    logs.iter()
        .filter(|l| l.address == transmitter)
        .filter_map(|l| super::abi::CctpMessageTransmitterV2::MessageSent::decode_log(l).ok())
        .map(|e| e.data.message)
        .collect()
}

/// `receiveMessage(message, attestation)` of an attested message, signed
/// by the world's attester: what a relayer sends to the destination's
/// transmitter.
pub fn receive_calldata(message: &Bytes) -> Option<Bytes> {
    use alloy_sol_types::SolCall;
    let attestation = attest(message)?;
    let call = super::abi::CctpMessageTransmitterV2::receiveMessageCall {
        message: message.clone(),
        attestation,
    };
    Some(call.abi_encode().into())
}

/// An attested message's expiration block (zero: none).
pub fn expiration(message: &[u8]) -> Option<U256> {
    word(message.get(at::BODY..)?, at::EXPIRATION).map(|w| U256::from_be_bytes(w.0))
}

/// An attested message's nonce.
pub fn nonce(message: &[u8]) -> Option<B256> {
    word(message, at::NONCE)
}

/// What an attested message says was executed: the finality threshold and
/// the fee.
pub fn executed(message: &[u8]) -> Option<(u32, U256)> {
    let body = message.get(at::BODY..)?;
    Some((uint32(message, at::FINALITY_EXECUTED)?, word(body, at::FEE_EXECUTED)?.into()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The attestation recovers to the attester, with a low `s`.
    #[test]
    fn attestations_recover_to_the_attester() {
        for m in [&b"hello"[..], &[0u8; 300][..], b"another message"] {
            let sig = attest(m).expect("signs");
            assert_eq!(sig.len(), 65);
            let s = U256::from_be_slice(&sig[32..64]);
            let half = U256::from_str_radix(
                "7FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF5D576E7357A4501DDFE92F46681B20A0",
                16,
            )
            .expect("hex");
            assert!(s <= half);
            let rs = k256::ecdsa::Signature::from_slice(&sig[..64]).expect("r, s");
            let recid = k256::ecdsa::RecoveryId::from_byte(sig[64] - 27).expect("v");
            let key = k256::ecdsa::VerifyingKey::recover_from_prehash(
                keccak256(m).as_slice(),
                &rs,
                recid,
            )
            .expect("recovers");
            let point = key.to_encoded_point(false);
            assert_eq!(Address::from_slice(&keccak256(&point.as_bytes()[1..])[12..]), attester());
        }
    }
}
