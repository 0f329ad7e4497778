//! Bridge routes: one carried token from one chain to its counterpart on
//! another, with the bridge's fee and latency.
//!
//! The exact amount delivered is integer arithmetic on the route's
//! parameters: the proportional fee rounds in the bridge's favour, the fixed
//! fee is taken in the token's raw units, and a change of decimals between
//! the two chains truncates to the coarser unit first (as shared-decimal
//! bridges do), so no dust is promised that the destination cannot pay.

use alloy_primitives::U256;
use switchyard_catalog::{Address, ChainId};

use crate::{amm::AmmError, pool::u256_to_f64};

/// Gas of the source-chain bridge call.
pub const BRIDGE_GAS: u64 = 200_000;

/// One directed bridge route.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BridgeRoute {
    /// Bridge name (`cctp`, `stargate`, `ccip`, `relay`).
    pub name: std::sync::Arc<str>,
    /// Source chain.
    pub from_chain: ChainId,
    /// Token sent.
    pub token_in: Address,
    /// Its decimals.
    pub decimals_in: u8,
    /// Destination chain.
    pub to_chain: ChainId,
    /// Token received.
    pub token_out: Address,
    /// Its decimals.
    pub decimals_out: u8,
    /// The bridge's entry contract on the source chain.
    pub contract: Address,
    /// Proportional fee, bps.
    pub fee_bps: u32,
    /// Fixed fee, raw units of `token_in` (from the catalog's USD fee and the
    /// snapshot's price of the token, rounded up, when the snapshot is built).
    pub fixed_fee: U256,
    /// Typical end-to-end latency.
    pub estimated_seconds: u64,
    /// Average block time of the source and the destination chain, ms
    /// (the catalog's networks; what the latency assumes).
    pub block_ms: [u64; 2],
    /// Decimals amounts are carried in (Stargate's shared decimals): only
    /// whole units of it leave the source; the dust stays with the sender.
    pub shared_decimals: Option<u8>,
    /// What the bridge waits for on the source chain, where the catalog
    /// records it.
    pub send_confirmations: Option<SendConfirmations>,
}

/// The blocks a bridge waits for before it releases a message, and the
/// chain they are counted on (the source, or where its batches finalize).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SendConfirmations {
    /// Blocks waited for.
    pub blocks: u32,
    /// The chain they are counted on.
    pub counted_on: ChainId,
    /// That chain's average block time, ms (the catalog's network).
    pub block_ms: u64,
}

impl BridgeRoute {
    /// What the bridge takes of `amount_in`: all of it, or only whole units
    /// of its shared decimals (a token of fewer decimals than the shared
    /// ones is refused by [`Self::amount_out`]).
    pub fn amount_taken(&self, amount_in: U256) -> U256 {
        match self.shared_decimals {
            Some(s) if self.decimals_in > s => {
                let unit = U256::from(10u8).pow(U256::from(self.decimals_in - s));
                amount_in - amount_in % unit
            }
            _ => amount_in,
        }
    }

    /// Exact amount delivered on the destination chain.
    pub fn amount_out(&self, amount_in: U256) -> Result<U256, AmmError> {
        if self.fee_bps > 10_000 {
            return Err(AmmError::InvalidState);
        }
        if let Some(shared) = self.shared_decimals {
            return self.shared_amount_out(amount_in, shared);
        }
        let bps = U256::from(self.fee_bps);
        let fee = amount_in
            .checked_mul(bps)
            .map(|v| v.div_ceil(U256::from(10_000u32)))
            .ok_or(AmmError::InvalidState)?;
        let net = amount_in
            .checked_sub(fee)
            .and_then(|v| v.checked_sub(self.fixed_fee))
            .filter(|v| !v.is_zero())
            .ok_or(AmmError::InsufficientLiquidity)?;
        let out = match self.decimals_in.cmp(&self.decimals_out) {
            std::cmp::Ordering::Equal => net,
            std::cmp::Ordering::Greater => {
                net / U256::from(10u8).pow(U256::from(self.decimals_in - self.decimals_out))
            }
            std::cmp::Ordering::Less => net
                .checked_mul(U256::from(10u8).pow(U256::from(self.decimals_out - self.decimals_in)))
                .ok_or(AmmError::InvalidState)?,
        };
        if out.is_zero() { Err(AmmError::InsufficientLiquidity) } else { Ok(out) }
    }

    /// Stargate V2's arithmetic: the amount travels in shared units (the
    /// source's local amount floored to them, a `uint64`); `FeeLibV1`
    /// charges `floor(x * feeMillionth / 1e6) + 1` shared units of a
    /// nonzero fee (the fee in bps is `feeMillionth / 100`); the
    /// destination pays what is left in its own local units. A fixed fee is
    /// taken in the source's local units, floored to shared units.
    fn shared_amount_out(&self, amount_in: U256, shared: u8) -> Result<U256, AmmError> {
        let unit = |decimals: u8| -> Result<U256, AmmError> {
            let d = decimals.checked_sub(shared).ok_or(AmmError::InvalidState)?;
            Ok(U256::from(10u8).pow(U256::from(d)))
        };
        let (unit_in, unit_out) = (unit(self.decimals_in)?, unit(self.decimals_out)?);
        let sd = amount_in / unit_in;
        // Shared units travel as a `uint64`: more cannot be sent at once.
        if sd > U256::from(u64::MAX) {
            return Err(AmmError::InsufficientLiquidity);
        }
        let fee = if self.fee_bps == 0 || sd.is_zero() {
            U256::ZERO
        } else {
            sd * U256::from(self.fee_bps * 100) / U256::from(1_000_000u32) + U256::ONE
        };
        let net = sd
            .checked_sub(fee)
            .and_then(|v| v.checked_sub(self.fixed_fee / unit_in))
            .filter(|v| !v.is_zero())
            .ok_or(AmmError::InsufficientLiquidity)?;
        net.checked_mul(unit_out).ok_or(AmmError::InvalidState)
    }

    /// The crossing's latency, as a plan reports it.
    pub fn estimate(&self) -> crate::BridgeEstimate {
        crate::BridgeEstimate {
            bridge: self.name.to_string(),
            from_chain: self.from_chain,
            to_chain: self.to_chain,
            token: self.token_out,
            estimated_seconds: self.estimated_seconds,
            block_ms: self.block_ms,
            send_confirmations: self.send_confirmations,
        }
    }

    /// A plan that only crosses: `amount_in` through this route (its index
    /// `k` in the snapshot), delivered on the destination chain.
    pub fn crossing(&self, k: usize, amount_in: U256) -> Result<crate::Plan, AmmError> {
        let amount_out = self.amount_out(amount_in)?;
        let step = crate::Step {
            pool: k,
            chain: self.from_chain,
            to_chain: self.to_chain,
            address: self.contract,
            protocol: std::sync::Arc::clone(&self.name),
            action: crate::StepAction::Bridge,
            token_in: self.token_in,
            token_out: self.token_out,
            amount_in,
            amount_out,
            gas: BRIDGE_GAS,
            sold: None,
        };
        Ok(crate::Plan {
            chain: self.from_chain,
            destination_chain: self.to_chain,
            bridging: vec![self.estimate()],
            legs: vec![crate::Leg {
                token_in: self.token_in,
                token_out: self.token_out,
                amount_in,
                amount_out,
                routes: vec![crate::Route { amount_in, amount_out, steps: vec![step] }],
            }],
            amounts_out: vec![amount_out],
            gas: BRIDGE_GAS,
        })
    }

    /// `f64` estimate of [`Self::amount_out`], for the search.
    pub fn shadow_out(&self, amount_in: f64) -> f64 {
        let net = amount_in * (1.0 - f64::from(self.fee_bps) / 1e4) - u256_to_f64(self.fixed_fee);
        let out = net * 10f64.powi(i32::from(self.decimals_out) - i32::from(self.decimals_in));
        if out.is_finite() && out > 0.0 { out } else { 0.0 }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn route(fee_bps: u32, fixed: u64, d_in: u8, d_out: u8) -> BridgeRoute {
        BridgeRoute {
            name: "stargate".into(),
            from_chain: ChainId(1),
            token_in: Address::with_last_byte(1),
            decimals_in: d_in,
            to_chain: ChainId(56),
            token_out: Address::with_last_byte(2),
            decimals_out: d_out,
            contract: Address::with_last_byte(3),
            fee_bps,
            fixed_fee: U256::from(fixed),
            estimated_seconds: 180,
            block_ms: [12_000, 2_000],
            send_confirmations: None,
            shared_decimals: None,
        }
    }

    #[test]
    fn a_crossing_plan_carries_the_exact_amount_and_the_estimate() {
        let r = route(6, 500_000, 6, 6);
        let plan = r.crossing(4, U256::from(1_000_000_001u64)).expect("carried");
        let out = U256::from(998_900_000u64);
        assert_eq!((plan.chain, plan.destination_chain), (ChainId(1), ChainId(56)));
        assert_eq!(plan.amounts_out, vec![out]);
        assert_eq!(plan.bridging, vec![r.estimate()]);
        let [leg] = plan.legs.as_slice() else { panic!("one leg") };
        let [step] = leg.routes[0].steps.as_slice() else { panic!("one step") };
        assert_eq!((step.pool, step.action, step.amount_out), (4, crate::StepAction::Bridge, out));
        assert_eq!(
            (step.chain, step.to_chain, step.address),
            (ChainId(1), ChainId(56), r.contract)
        );
        assert!(r.crossing(0, U256::from(1u8)).is_err());
    }

    #[test]
    fn fees_round_for_the_bridge() {
        // 1,000.000001 USDC at 6 bps: fee 0.600001 (rounded up), fixed 0.5.
        let r = route(6, 500_000, 6, 6);
        assert_eq!(r.amount_out(U256::from(1_000_000_001u64)), Ok(U256::from(998_900_000u64)));
        assert_eq!(r.amount_out(U256::from(500_000u64)), Err(AmmError::InsufficientLiquidity));
        assert!((r.shadow_out(1_000_000_001.0) - 998_900_000.4).abs() < 1.0);
    }

    /// `FeeLibV1`'s fee in shared units: `floor(x * feeMillionth / 1e6) + 1`
    /// of a nonzero fee, none of a zero one; the destination pays the rest
    /// in its own decimals (BNB Chain's USDC has 18).
    #[test]
    fn stargate_fees_are_fee_lib_arithmetic_in_shared_units() {
        let usdc = BridgeRoute { shared_decimals: Some(6), ..route(6, 0, 6, 6) };
        // 1,000 USDC: 600 units of fee, plus one.
        assert_eq!(usdc.amount_out(U256::from(1_000_000_000u64)), Ok(U256::from(999_399_999u64)));
        // 1 unit: floor(0.0006) + 1 takes it all.
        assert_eq!(usdc.amount_out(U256::ONE), Err(AmmError::InsufficientLiquidity));
        let to_bsc = BridgeRoute { shared_decimals: Some(6), ..route(6, 0, 6, 18) };
        assert_eq!(
            to_bsc.amount_out(U256::from(1_000_000_000u64)),
            Ok(U256::from(999_399_999u64) * U256::from(10u64.pow(12)))
        );
        let from_bsc = BridgeRoute { shared_decimals: Some(6), ..route(6, 0, 18, 6) };
        let x = U256::from(1_000_000_000u64) * U256::from(10u64.pow(12)) + U256::from(5u8);
        assert_eq!(from_bsc.amount_out(x), Ok(U256::from(999_399_999u64)));
        let free = BridgeRoute { shared_decimals: Some(6), ..route(0, 0, 6, 6) };
        assert_eq!(free.amount_out(U256::from(7u8)), Ok(U256::from(7u8)));
        let coarse = BridgeRoute { shared_decimals: Some(6), ..route(0, 0, 2, 2) };
        assert_eq!(coarse.amount_out(U256::from(7u8)), Err(AmmError::InvalidState));
    }

    #[test]
    fn shared_units_beyond_u64_cannot_be_sent() {
        let r = BridgeRoute { shared_decimals: Some(6), ..route(0, 0, 18, 18) };
        let max = U256::from(u64::MAX) * U256::from(10u64.pow(12));
        assert!(r.amount_out(max).is_ok());
        assert_eq!(
            r.amount_out(max + U256::from(10u64.pow(12))),
            Err(AmmError::InsufficientLiquidity)
        );
    }

    #[test]
    fn shared_decimals_leave_the_dust_behind() {
        let r = BridgeRoute { shared_decimals: Some(6), ..route(0, 0, 18, 18) };
        let x = U256::from(1_234_567_890_123_456_789u64);
        assert_eq!(r.amount_taken(x), U256::from(1_234_567_000_000_000_000u64));
        assert_eq!(r.amount_out(x), Ok(U256::from(1_234_567_000_000_000_000u64)));
        // Six decimals or fewer: nothing to truncate.
        let usdc = BridgeRoute { shared_decimals: Some(6), ..route(0, 0, 6, 6) };
        assert_eq!(usdc.amount_taken(U256::from(7u8)), U256::from(7u8));
    }

    #[test]
    fn decimals_change_truncates_to_the_coarser_unit() {
        let up = route(0, 0, 6, 18);
        assert_eq!(up.amount_out(U256::from(7u8)), Ok(U256::from(7_000_000_000_000u64)));
        let down = route(0, 0, 18, 6);
        assert_eq!(down.amount_out(U256::from(1_999_999_999_999u64)), Ok(U256::from(1u8)));
        assert_eq!(
            down.amount_out(U256::from(999_999_999_999u64)),
            Err(AmmError::InsufficientLiquidity)
        );
    }
}
