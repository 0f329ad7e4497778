//! Kernel errors.

use switchyard_catalog::{Address, ChainId, ErrorCode};

/// Why the kernel could not build or use a snapshot.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum KernelError {
    /// A pool names a token the catalog does not list.
    #[error("token {token} on chain {chain} is not in the catalog")]
    UnknownToken {
        /// Chain.
        chain: ChainId,
        /// Token.
        token: Address,
    },
}

impl KernelError {
    /// What the caller should do.
    pub const fn code(&self) -> ErrorCode {
        match self {
            Self::UnknownToken { .. } => ErrorCode::BadRequest,
        }
    }
}
