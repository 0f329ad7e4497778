//! Transaction encoding: a kernel [`Plan`](switchyard_kernel::Plan) (or a
//! compiled bundle) becomes a weiroll program whose commands are the real
//! protocol calls, run by the strategy's executing contract, and the
//! transaction that starts it.
//!
//! ```text
//! Plan ──route::encode_plan──▶ Program (pull, fee, steps, outputs, checks, sweep)
//!      ──tx::transaction(runner, program, tokens in/out)──▶ Tx {to, data, value} + approvals
//! ```
//!
//! Every step's output lives in a state slot that the next step reads: the
//! amounts the program uses are the ones the chain produces, never the
//! quote's, except for the input amounts (and their split shares), which
//! the caller fixes.

pub mod guard;
pub mod helpers;
pub mod protocols;
pub mod route;
pub mod tx;
pub mod weiroll;

use alloy_primitives::{Address, Bytes, U256};
use switchyard_catalog::{ChainId, RoutingStrategy};

pub use self::{
    route::{Encoded, RouteSpec, encode_plan, encode_plan_then},
    tx::{Approval, Runner, Tx, transaction},
    weiroll::{Program, ProgramBuilder, WeirollError},
};

/// Why a transaction could not be encoded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EncodeError {
    /// The program does not fit the VM.
    #[error("program")]
    Weiroll(#[from] WeirollError),
    /// A step through a pool kind the encoder has no calls for.
    #[error("no calls for a {protocol} step")]
    UnsupportedStep {
        /// The step's protocol.
        protocol: String,
    },
    /// A plan names a pool or bridge the snapshot does not have.
    #[error("plan refers to pool {0}, which the snapshot does not have")]
    UnknownPool(usize),
    /// The strategy has no contracts on the chain.
    #[error("routing strategy {strategy} has no contracts on chain {chain}")]
    NoContracts {
        /// Strategy.
        strategy: RoutingStrategy,
        /// Chain.
        chain: ChainId,
    },
    /// A contract the program needs has no address established on the
    /// chain (`catalog/data/deployments.json`).
    #[error("no {role} contract is known to be deployed on chain {chain}")]
    DeploymentUnavailable {
        /// Chain.
        chain: ChainId,
        /// What is missing.
        role: switchyard_catalog::DeploymentRole,
    },
    /// The program calls something not deployed on the chain (an engine
    /// defect: the guard stops it before it is simulated or answered).
    #[error("program guard: {0}")]
    Guard(#[from] guard::GuardError),
    /// The request cannot be expressed with this strategy (a native input
    /// pulled from a spender, several inputs through the legacy single
    /// form…).
    #[error("{0}")]
    Unsupported(&'static str),
}

impl EncodeError {
    /// What the API answers: a missing deployment is the chain's (422);
    /// anything else is an encoder defect.
    pub const fn code(&self) -> switchyard_catalog::ApiCode {
        use switchyard_catalog::ApiCode;
        match self {
            Self::DeploymentUnavailable { .. } => ApiCode::DeploymentUnavailable,
            Self::Weiroll(_)
            | Self::UnsupportedStep { .. }
            | Self::UnknownPool(_)
            | Self::NoContracts { .. }
            | Self::Guard(_)
            | Self::Unsupported(_) => ApiCode::Internal,
        }
    }
}

/// A token and an amount.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TokenAmount {
    /// Token (`NATIVE_TOKEN` for the native coin).
    pub token: Address,
    /// Amount, wei.
    pub amount: U256,
}

/// The two halves of a request id: the referral code (UTF-8, at most 16
/// bytes) in the high half, a unique value in the low half.
pub fn request_id(referral: Option<&str>, unique: [u8; 16]) -> alloy_primitives::B256 {
    let mut id = [0u8; 32];
    if let Some(code) = referral {
        let b = code.as_bytes();
        let n = b.len().min(16);
        id[..n].copy_from_slice(&b[..n]);
    }
    id[16..].copy_from_slice(&unique);
    alloy_primitives::B256::from(id)
}

/// The account id of an API key as `bytes32`: the 16 bytes of its UUID in
/// the high half (hyphens dropped), zeros after; an id that is not a UUID
/// is hashed instead.
pub fn account_id(account: &str) -> alloy_primitives::B256 {
    let hex: String = account.chars().filter(|c| *c != '-').collect();
    let mut id = [0u8; 32];
    match alloy_primitives::hex::decode(&hex) {
        Ok(b) if b.len() == 16 => {
            id[..16].copy_from_slice(&b);
            alloy_primitives::B256::from(id)
        }
        _ => alloy_primitives::keccak256(account.as_bytes()),
    }
}

/// Calldata of a plain ERC-20 `approve(spender, amount)`.
pub fn approve_calldata(spender: Address, amount: U256) -> Bytes {
    use alloy_sol_types::SolCall;
    crate::evm::abi::TestERC20::approveCall { spender, amount }.abi_encode().into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn request_ids_carry_the_referral_code_high() {
        let id = request_id(Some("0123456789ABCDEF"), [7; 16]);
        assert_eq!(&id[..16], b"0123456789ABCDEF");
        assert_eq!(&id[16..], &[7; 16]);
        let none = request_id(None, [1; 16]);
        assert_eq!(&none[..16], &[0; 16]);
    }

    #[test]
    fn account_ids_are_the_uuid_bytes() {
        let id = account_id("0f8fad5b-d9cb-469f-a165-70867728950e");
        assert_eq!(alloy_primitives::hex::encode(&id[..16]), "0f8fad5bd9cb469fa16570867728950e");
        assert_eq!(&id[16..], &[0; 16]);
    }
}
