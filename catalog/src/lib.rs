//! # switchyard-catalog
//!
//! The shared vocabulary of Switchyard: networks, tokens, protocols, standards
//! and their actions, aggregators, bridges, non-tokenized positions, DEX
//! factories, router/executor/delegate addresses, and market snapshots of pool
//! state. It also carries the embedded default data and the file loaders.
//!
//! ```text
//! catalog/data/*.json ──loaders──▶ CatalogDocument ──validate──▶ Catalog (Arc, immutable)
//! market.json         ──loaders──▶ MarketDocument  ──validate──▶ Market ──▶ kernel::MarketSnapshot
//! ```
//!
//! Nothing here does async work or touches the network; loading happens once,
//! at startup.
//!
//! ## Feature flags
//!
//! - `loaders` (default): the simd-json file loaders and the embedded data.
//!   The kernel builds without it.

#![cfg_attr(not(test), warn(unused_crate_dependencies))]

mod error;
#[cfg(feature = "loaders")]
pub mod loaders;
pub mod market;
pub mod model;
mod registry;
pub mod types;

pub use error::{CatalogError, Problem};
pub use market::{Market, MarketDocument, PoolRecord};
pub use model::*;
pub use registry::{Catalog, Project};
pub use types::*;
