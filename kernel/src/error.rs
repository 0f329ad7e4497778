//! Kernel errors.

use switchyard_catalog::{Address, ApiCode, ChainId};

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
    /// The snapshot has no state for the chain.
    #[error("no market state for chain {0}")]
    UnknownChain(ChainId),
    /// No input or no output.
    #[error("a route needs at least one input and one output")]
    EmptyRequest,
    /// Several outputs, but not one per input.
    #[error("outputs must be one, or one per input")]
    OutputShape,
    /// An input is also its own output.
    #[error("tokenIn and tokenOut are the same token")]
    SameToken,
    /// A snapshot delta names a pool that does not exist, or gives it a
    /// state of another kind or shape.
    #[error("delta for pool {pool} does not fit the snapshot")]
    BadDelta {
        /// Pool index.
        pool: usize,
    },
    /// A pool's record gives it a state its contract could not hold (a V2
    /// reserve past `uint112`).
    #[error("pool {pool} on chain {chain} holds a state its contract cannot")]
    BadPool {
        /// Chain.
        chain: ChainId,
        /// Pool.
        pool: Address,
    },
    /// No path connects the tokens with enough liquidity.
    #[error("no route from {token_in} to {token_out}")]
    NoRoute {
        /// Input token.
        token_in: Address,
        /// Output token.
        token_out: Address,
    },
}

impl KernelError {
    /// What the API answers.
    pub const fn code(&self) -> ApiCode {
        match self {
            Self::OutputShape | Self::SameToken => ApiCode::InvalidParameter,
            Self::EmptyRequest => ApiCode::MissingParameter,
            Self::UnknownChain(_) | Self::UnknownToken { .. } => ApiCode::NotFound,
            Self::NoRoute { .. } => ApiCode::NoRoute,
            // Feed- and load-side: no request produces them.
            Self::BadDelta { .. } | Self::BadPool { .. } => ApiCode::Internal,
        }
    }
}
