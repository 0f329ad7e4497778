//! Small shared value types: chain ids, basis points, routing strategies and
//! the error classification every crate maps its errors onto.

use std::{fmt, str::FromStr};

pub use alloy_primitives::{Address, U256, address};
use serde::Deserialize;

/// An EVM chain id (`1` for Ethereum, `8453` for Base, ...).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Deserialize)]
#[serde(transparent)]
pub struct ChainId(pub u64);

impl fmt::Display for ChainId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

/// The address clients use for the native coin of every chain.
pub const NATIVE_TOKEN: Address = address!("eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee");

/// The zero address or a precompile (Ethereum's 0x01–0x11, RIP-7212's
/// 0x100 and the L2s' low system addresses, all below 0x200): never a
/// token or an account a transaction should name.
pub fn is_reserved(a: Address) -> bool {
    a.0[..18] == [0u8; 18] && u16::from_be_bytes([a.0[18], a.0[19]]) < 0x200
}

/// Basis points (1/10_000).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Bps(pub u32);

/// How a shortcut transaction reaches the shortcuts executor.
///
/// The wire names and their aliases are parsed by [`RoutingStrategy::from_str`];
/// which strategies an endpoint accepts is decided by the endpoint.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RoutingStrategy {
    /// The shared router pulls the input and calls the executor.
    Router,
    /// The caller's smart account delegate-calls the shortcuts contract.
    Delegate,
    /// The legacy router ABI.
    RouterLegacy,
    /// The legacy delegate ABI.
    DelegateLegacy,
    /// The per-user wallet created by the wallet factory (aliases
    /// `ensowallet`, `servicewallet`, `servicewallet-v2`).
    EnsoWalletV2,
    /// Non-tokenized positions only: a hosted checkout flow, which is served
    /// as the delegate flow.
    Checkout,
}

impl RoutingStrategy {
    /// Every strategy, in a stable order.
    pub const ALL: [Self; 6] = [
        Self::Router,
        Self::Delegate,
        Self::RouterLegacy,
        Self::DelegateLegacy,
        Self::EnsoWalletV2,
        Self::Checkout,
    ];

    /// The canonical wire name.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Router => "router",
            Self::Delegate => "delegate",
            Self::RouterLegacy => "router-legacy",
            Self::DelegateLegacy => "delegate-legacy",
            Self::EnsoWalletV2 => "ensowallet-v2",
            Self::Checkout => "checkout",
        }
    }
}

impl fmt::Display for RoutingStrategy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A routing strategy name that is not one of the known names or aliases.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown routing strategy")]
pub struct UnknownStrategy;

impl FromStr for RoutingStrategy {
    type Err = UnknownStrategy;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Ok(match s {
            "router" => Self::Router,
            "delegate" => Self::Delegate,
            "router-legacy" => Self::RouterLegacy,
            "delegate-legacy" => Self::DelegateLegacy,
            "ensowallet-v2" | "ensowallet" | "servicewallet" | "servicewallet-v2" => {
                Self::EnsoWalletV2
            }
            "checkout" => Self::Checkout,
            _ => return Err(UnknownStrategy),
        })
    }
}

/// What went wrong, as the API answers it: one variant per machine code a
/// client sees, each with one status, independent of transport.
///
/// Every error type of the workspace maps onto it exhaustively (no
/// catch-all arm), and the server maps it onto the wire code and the HTTP
/// status in exactly one place. Add a variant only when clients must act
/// differently.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ApiCode {
    /// A parameter is malformed or out of range; do not retry.
    InvalidParameter,
    /// A required parameter is missing.
    MissingParameter,
    /// The method is not served on this path.
    MethodNotAllowed,
    /// The request body is over the limit.
    PayloadTooLarge,
    /// No, an unknown or a revoked API key.
    Unauthorized,
    /// The key is valid but not allowed to do this.
    Forbidden,
    /// The named resource (chain, token, vault, path) does not exist.
    NotFound,
    /// No path connects the tokens with enough liquidity.
    NoRoute,
    /// A requested minimum is above what the best route delivers.
    MinAmountOut,
    /// The crossing, or what would run on its arrival, is not one the
    /// world proves (a bridge not in it, a CCTP callback).
    BridgeUnavailable,
    /// A contract the program needs is not known to be deployed on the
    /// chain.
    DeploymentUnavailable,
    /// A non-tokenized position cannot be entered here.
    PositionUnavailable,
    /// An input is more of the token than can exist.
    AmountTooLarge,
    /// A valid bundle nothing can satisfy (it reverts, no route).
    BundleUnprocessable,
    /// Over the key's rate; retry later.
    RateLimited,
    /// The request did not finish in time; retrying may succeed.
    Timeout,
    /// A service inside the engine is restarting; retry.
    Unavailable,
    /// Transactions cannot be proven on this instance (no EVM world).
    SimulatorUnavailable,
    /// The shared rate-limit store is unreachable.
    RateLimiterUnavailable,
    /// A chain's market data is stale (its node does not answer).
    StaleMarket,
    /// The API has the feature, this build does not serve it.
    NotImplemented,
    /// The market state a replay names is no longer held.
    SnapshotExpired,
    /// A bug or an unexpected failure inside the service.
    Internal,
}
