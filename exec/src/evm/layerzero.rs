//! LayerZero V2 and Stargate V2 in the world: the catalog's setup, the
//! packet and option formats, and the world's message library.
//!
//! Each chain the catalog's Stargate bridge lists gets LayerZero's
//! `EndpointV2`, Stargate's `TokenMessaging`, its pools and their
//! `FeeLibV1`s at their deployed addresses, all the published bytecode
//! (`@layerzerolabs/lz-evm-protocol-v2`, `@stargatefinance/stg-evm-v2`), and
//! Enso's composer (`LayerZeroReceiver`, a reference contract). They are
//! configured as the deployed ones are: each remote chain's `TokenMessaging`
//! a peer, each pool's asset id, taxis' enforced `lzReceive` gas, each
//! pool's fee, each pool the composer's OFT.
//!
//! What differs by necessity is the verification. On chain, DVNs attest a
//! packet to `ReceiveUln302` with keys only they hold. The world's
//! endpoints use LayerZero's own published `SimpleMessageLib` as their send
//! and receive library: it charges a fixed native fee (the catalog's
//! `messageFeeWei`, refunded above the endpoint's quote as on chain) and
//! lets a relayer verify a packet on the destination endpoint. Everything
//! after verification (`lzReceive`, the pool paying out, `sendCompose`,
//! `lzCompose`, the composer running the shortcut) is the deployed code.

use alloy_primitives::{Address, B256, Bytes, U256, address};
use switchyard_catalog::{Bridge, Catalog, ChainId, LayerZeroPool, LayerZeroSetup};

/// Where the world places each chain's message library.
pub const MESSAGE_LIB: Address = address!("5eed000000000000000000000000000000001a1b");

/// Stargate's shared decimals.
pub const SHARED_DECIMALS: u8 = 6;

/// `TokenMessaging`'s message type of a taxi.
pub const MSG_TYPE_TAXI: u16 = 1;

/// A Stargate taxi's `minAmountLD` (the source's decimals) that holds the
/// destination to `min_out` (its own decimals): the pool compares shared
/// units, so the least whole shared unit at or above `min_out`.
pub fn min_amount_ld(route: &switchyard_kernel::BridgeRoute, min_out: U256) -> U256 {
    min_out.div_ceil(shared_unit(route.decimals_out)).saturating_mul(shared_unit(route.decimals_in))
}

/// One shared unit in raw units of a token of `decimals`.
pub fn shared_unit(decimals: u8) -> U256 {
    U256::from(10u8).pow(U256::from(decimals.saturating_sub(SHARED_DECIMALS)))
}

/// The catalog's Stargate bridge: its record and its LayerZero setup.
pub fn setup(catalog: &Catalog) -> Option<(&Bridge, &LayerZeroSetup)> {
    catalog.bridges().iter().find_map(|b| b.layerzero.as_ref().map(|s| (b, s)))
}

/// The Stargate pools of `chain` whose deployment the catalog records
/// (asset id, fee library and contract kind).
pub fn pools_on(catalog: &Catalog, chain: ChainId) -> impl Iterator<Item = &LayerZeroPool> {
    catalog
        .layerzero_pools()
        .iter()
        .filter(move |p| p.chain_id == chain && p.asset_id.is_some() && p.fee_lib.is_some())
}

/// The chain of LayerZero endpoint id `eid`.
pub fn chain_of(catalog: &Catalog, eid: u32) -> Option<ChainId> {
    catalog.layerzero_pools().iter().find(|p| p.eid == eid).map(|p| p.chain_id)
}

/// The endpoint id of `chain`.
pub fn eid_of(catalog: &Catalog, chain: ChainId) -> Option<u32> {
    catalog.layerzero_pools().iter().find(|p| p.chain_id == chain).map(|p| p.eid)
}

/// An address as LayerZero's `bytes32`.
pub fn word(a: Address) -> B256 {
    a.into_word()
}

/// Type-3 options with one executor option of `option_type` and `params`.
fn executor_option(out: &mut Vec<u8>, option_type: u8, params: &[u8]) {
    // worker id 1 (the executor), size (type + params), type, params.
    out.push(1);
    out.extend_from_slice(&u16::try_from(params.len() + 1).unwrap_or(u16::MAX).to_be_bytes());
    out.push(option_type);
    out.extend_from_slice(params);
}

/// Type-3 options giving the executor `gas` for `lzReceive`.
pub fn lz_receive_options(gas: u64) -> Bytes {
    let mut out = vec![0, 3];
    executor_option(&mut out, 1, &u128::from(gas).to_be_bytes());
    out.into()
}

/// Type-3 options giving the executor `gas` for the `lzCompose` of compose
/// message `index`, and `value` of the destination's native coin to call
/// it with (LayerZero's encoding: the value only when it is not zero).
pub fn lz_compose_options(index: u16, gas: u64, value: u128) -> Bytes {
    let mut out = vec![0, 3];
    let mut params = index.to_be_bytes().to_vec();
    params.extend_from_slice(&u128::from(gas).to_be_bytes());
    if value != 0 {
        params.extend_from_slice(&value.to_be_bytes());
    }
    executor_option(&mut out, 3, &params);
    out.into()
}

/// What the executor gives the `lzCompose` of compose message `index`, as
/// type-3 `options` say.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ComposeBudget {
    /// Gas for the call.
    pub gas: u64,
    /// The destination's native coin sent with the call.
    pub value: U256,
}

/// The executor's gas and value for the `lzCompose` of compose message
/// `index`, as type-3 `options` give them (the sum of every such option, as
/// LayerZero's executor adds them up); `None` when they give none, are not
/// type 3, or an option is neither 18 nor 34 bytes of parameters.
pub fn compose_budget(options: &[u8], index: u16) -> Option<ComposeBudget> {
    let mut rest = options.strip_prefix(&[0, 3])?;
    let mut total: Option<(u128, u128)> = None;
    while !rest.is_empty() {
        let (&worker, after) = rest.split_first()?;
        let size = usize::from(u16::from_be_bytes(after.get(..2)?.try_into().ok()?));
        let option = after.get(2..2 + size)?;
        rest = after.get(2 + size..)?;
        let (&kind, params) = option.split_first()?;
        if worker == 1
            && kind == 3
            && params.get(..2).map(|i| u16::from_be_bytes([i[0], i[1]])) == Some(index)
        {
            let value = match params.len() {
                18 => 0,
                34 => u128::from_be_bytes(params.get(18..34)?.try_into().ok()?),
                _ => return None,
            };
            let gas = u128::from_be_bytes(params.get(2..18)?.try_into().ok()?);
            let (g, v) = total.unwrap_or_default();
            total = Some((g.saturating_add(gas), v.saturating_add(value)));
        }
    }
    let (gas, value) = total?;
    Some(ComposeBudget { gas: u64::try_from(gas).ok()?, value: U256::from(value) })
}

/// A transaction's intrinsic gas for `calldata` (21,000 and its bytes).
pub fn intrinsic_gas(calldata: &[u8]) -> u64 {
    calldata.iter().fold(21_000u64, |g, b| g + if *b == 0 { 4 } else { 16 })
}

/// Where each field of a V1 packet starts (`PacketV1Codec`).
mod at {
    pub(super) const NONCE: usize = 1;
    pub(super) const SRC_EID: usize = 9;
    pub(super) const SENDER: usize = 13;
    pub(super) const DST_EID: usize = 45;
    pub(super) const RECEIVER: usize = 49;
    pub(super) const GUID: usize = 81;
    pub(super) const MESSAGE: usize = 113;
}

/// A packet as the source endpoint's `PacketSent` carries it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Packet {
    /// The encoded packet.
    pub raw: Bytes,
    /// The channel's nonce.
    pub nonce: u64,
    /// Source endpoint id.
    pub src_eid: u32,
    /// Sending OApp.
    pub sender: B256,
    /// Destination endpoint id.
    pub dst_eid: u32,
    /// Receiving OApp.
    pub receiver: Address,
    /// The message's GUID.
    pub guid: B256,
    /// The OApp's message.
    pub message: Bytes,
}

impl Packet {
    /// Decodes `raw`; `None` for anything that is not a V1 packet.
    pub fn decode(raw: &[u8]) -> Option<Self> {
        if raw.first() != Some(&1) {
            return None;
        }
        let word = |from: usize| raw.get(from..from + 32).map(B256::from_slice);
        let n = |from: usize, len: usize| raw.get(from..from + len);
        Some(Self {
            raw: Bytes::copy_from_slice(raw),
            nonce: u64::from_be_bytes(n(at::NONCE, 8)?.try_into().ok()?),
            src_eid: u32::from_be_bytes(n(at::SRC_EID, 4)?.try_into().ok()?),
            sender: word(at::SENDER)?,
            dst_eid: u32::from_be_bytes(n(at::DST_EID, 4)?.try_into().ok()?),
            receiver: Address::from_word(word(at::RECEIVER)?),
            guid: word(at::GUID)?,
            message: Bytes::copy_from_slice(raw.get(at::MESSAGE..)?),
        })
    }
}

/// A taxi message's fields (`TaxiCodec`): asset id, receiver, shared
/// amount, and whether it composes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Taxi {
    /// Stargate's asset id.
    pub asset_id: u16,
    /// Who the destination pool pays.
    pub receiver: Address,
    /// Amount, shared decimals.
    pub amount_sd: u64,
    /// Whether a compose message follows.
    pub composes: bool,
}

impl Taxi {
    /// Decodes a `TokenMessaging` taxi message.
    pub fn decode(message: &[u8]) -> Option<Self> {
        if message.first() != Some(&1) || message.len() < 43 {
            return None;
        }
        Some(Self {
            asset_id: u16::from_be_bytes(message.get(1..3)?.try_into().ok()?),
            receiver: Address::from_word(B256::from_slice(message.get(3..35)?)),
            amount_sd: u64::from_be_bytes(message.get(35..43)?.try_into().ok()?),
            composes: message.len() > 43,
        })
    }
}

/// The amount a compose message (`OFTComposeMsgCodec`) says arrived.
pub fn composed_amount(message: &[u8]) -> Option<U256> {
    message.get(12..44).map(U256::from_be_slice)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_are_type_3_executor_options() {
        let r = lz_receive_options(150_000);
        assert_eq!(&r[..5], &[0, 3, 1, 0, 17]);
        assert_eq!(r[5], 1);
        assert_eq!(u128::from_be_bytes(r[6..22].try_into().expect("16")), 150_000);
        let c = lz_compose_options(0, 500_000, 0);
        assert_eq!(&c[..6], &[0, 3, 1, 0, 19, 3]);
        assert_eq!(&c[6..8], &[0, 0]);
        assert_eq!(u128::from_be_bytes(c[8..24].try_into().expect("16")), 500_000);
        let gas = |g| Some(ComposeBudget { gas: g, value: U256::ZERO });
        assert_eq!(compose_budget(&c, 0), gas(500_000));
        assert_eq!(compose_budget(&c, 1), None);
        assert_eq!(compose_budget(&r, 0), None);
        // Enforced options first, the caller's after (TokenMessaging's
        // combination): the compose gas is found among them.
        let mut both = r.to_vec();
        both.extend_from_slice(&c[2..]);
        assert_eq!(compose_budget(&both, 0), gas(500_000));
        assert_eq!(compose_budget(&both[..both.len() - 1], 0), None);
        // With value: 34 bytes of parameters, the value last; two options
        // for one message add up.
        let v = lz_compose_options(0, 300_000, 7_000);
        assert_eq!(&v[..6], &[0, 3, 1, 0, 35, 3]);
        assert_eq!(u128::from_be_bytes(v[24..40].try_into().expect("16")), 7_000);
        let mut two = v.to_vec();
        two.extend_from_slice(&c[2..]);
        assert_eq!(
            compose_budget(&two, 0),
            Some(ComposeBudget { gas: 800_000, value: U256::from(7_000u32) })
        );
        // Neither 18 nor 34 bytes: not an option the executor reads.
        let mut odd = c.to_vec();
        odd[4] = 20;
        odd.push(0);
        assert_eq!(compose_budget(&odd, 0), None);
    }

    #[test]
    fn packets_and_taxis_decode_field_by_field() {
        let mut raw = vec![1u8];
        raw.extend_from_slice(&7u64.to_be_bytes());
        raw.extend_from_slice(&30101u32.to_be_bytes());
        raw.extend_from_slice(word(Address::repeat_byte(0xaa)).as_slice());
        raw.extend_from_slice(&30184u32.to_be_bytes());
        raw.extend_from_slice(word(Address::repeat_byte(0xbb)).as_slice());
        raw.extend_from_slice(&[0x11; 32]);
        let mut taxi = vec![1u8, 0, 1];
        taxi.extend_from_slice(word(Address::repeat_byte(0xcc)).as_slice());
        taxi.extend_from_slice(&999u64.to_be_bytes());
        raw.extend_from_slice(&taxi);
        let p = Packet::decode(&raw).expect("a packet");
        assert_eq!((p.nonce, p.src_eid, p.dst_eid), (7, 30101, 30184));
        assert_eq!(p.receiver, Address::repeat_byte(0xbb));
        assert_eq!(p.guid, B256::repeat_byte(0x11));
        let t = Taxi::decode(&p.message).expect("a taxi");
        assert_eq!(
            t,
            Taxi {
                asset_id: 1,
                receiver: Address::repeat_byte(0xcc),
                amount_sd: 999,
                composes: false
            }
        );
        assert!(Packet::decode(&raw[..100]).is_none());
    }
}
