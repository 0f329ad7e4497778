//! # switchyard-kernel
//!
//! Pure compute. The kernel turns a validated [`Market`](switchyard_catalog::Market)
//! into an immutable [`MarketSnapshot`] of pool states, and derives USD prices
//! from it. Routing (exact AMM math and the parallel path search) grows here.
//!
//! ```text
//! catalog::Market ──MarketSnapshot::build──▶ MarketSnapshot ──derive_prices──▶ PriceTable
//!                                                    │
//!                                  (engine publishes it behind an Arc, per block)
//! ```
//!
//! Invariants: no I/O, no clock, no async runtime; the same inputs give the
//! same outputs; nothing on pool data panics. Kernel types are not
//! serializable: the wire format is the server's business.
//!
//! ## Feature flags
//!
//! None.

#![cfg_attr(not(test), warn(unused_crate_dependencies))]

pub mod amm;
pub mod bridge;
mod error;
pub mod graph;
pub mod pool;
pub mod pools;
pub mod price;
pub mod search;
pub mod snapshot;

pub use bridge::BridgeRoute;
pub use error::KernelError;
pub use graph::{Edge, TokenGraph, TokenIx, TokenNode};
pub use pool::{
    LendingState, Pool, PoolState, PoolTokens, Protocol, RangeHint, StableswapState, StakingState,
    TickList, V2LpState, V3State, VaultState, WeightedState,
};
pub use pools::Pools;
pub use price::{PriceEntry, PriceTable, USD_ANCHOR_SYMBOLS, derive_prices, usd_anchors};
pub use search::{
    BridgeEstimate, ExactOutRequest, LadderPoint, Leg, Plan, PoolKinds, Route, RouteRequest,
    SearchParams, Step, StepAction, apply_plan, find_routes, find_routes_exact_out, ladder,
    plan_through,
};
pub use snapshot::{ChainHead, MarketSnapshot, SnapshotDelta};
