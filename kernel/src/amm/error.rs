//! Pool math errors, classified by what the search should do with the pool.

/// Why a pool could not quote.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum AmmError {
    /// The pool cannot absorb this trade (empty, or the price limit is hit):
    /// skip it for this amount.
    #[error("insufficient liquidity")]
    InsufficientLiquidity,
    /// The pool cannot convert these tokens in this direction.
    #[error("unsupported direction")]
    Unsupported,
    /// The state is inconsistent or an intermediate overflowed where the
    /// contract would revert: quarantine the pool for the request.
    #[error("invalid pool state")]
    InvalidState,
}

impl AmmError {
    /// Whether the pool should be quarantined for the rest of the request.
    pub const fn is_fatal(self) -> bool {
        matches!(self, Self::InvalidState)
    }
}
