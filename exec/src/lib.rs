//! Switchyard's transaction layer: everything between a kernel plan and a
//! transaction that is proven before it is answered, synchronous and free of
//! actors and HTTP (the engine runs it on its rayon pool).
//!
//! - [`evm`]: the EVM world of the chain as deployed (published bytecode,
//!   reference contracts with exactly the deployed interfaces).
//! - [`encode`]: weiroll programs for the deployed executors, the
//!   transaction per routing strategy, and the program guard.
//! - [`simulate`]: executing a transaction in a fork of the world.
//! - [`quote`], [`route`], [`ipor`], [`nontokenized`], [`wallet`],
//!   [`bundle`]: the use cases, each a `*_now` function of a
//!   [`MarketState`].

pub mod account;
pub mod bridge;
pub mod bundle;
pub mod encode;
mod error;
pub mod evm;
pub mod ipor;
pub mod market;
pub mod nontokenized;
pub mod observe;
pub mod quote;
pub mod route;
pub mod simulate;
pub mod wallet;

pub use error::ExecError;
pub use evm::artifacts::error_chain;
pub use market::{MarketState, StateInputs, ViewId, build_state, build_state_after, prove_state};
pub use quote::{Quote, QuoteRequest};
pub use route::{RouteRequest, RouteTx};
