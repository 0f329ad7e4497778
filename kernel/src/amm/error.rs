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

/// Why a concentrated-liquidity position cannot be minted as asked
/// (`NonfungiblePositionManager.mint` would revert).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum PositionError {
    /// Not a Uniswap V3 pool.
    #[error("not a concentrated-liquidity pool")]
    NotConcentrated,
    /// The ticks are not increasing, out of range, or off the spacing.
    #[error(
        "the ticks must be increasing, within [{min}, {max}], and multiples of the pool's tick spacing {spacing}",
        min = super::uniswap_v3::MIN_TICK,
        max = super::uniswap_v3::MAX_TICK
    )]
    Ticks {
        /// The pool's tick spacing.
        spacing: i32,
    },
    /// The amounts back no liquidity over the range (the pool's `mint`
    /// refuses zero).
    #[error("these amounts back no liquidity over the range at the current price")]
    NoLiquidity,
    /// More liquidity than one tick may reference.
    #[error("the liquidity exceeds what one tick of the pool may hold")]
    TooMuch,
    /// The arithmetic overflows where the contracts revert.
    #[error(transparent)]
    Math(#[from] AmmError),
}
