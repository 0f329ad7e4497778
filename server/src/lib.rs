//! # switchyard-server
//!
//! The HTTP front end and the only crate that knows HTTP, JSON wire names and
//! status codes. A request flows:
//!
//! ```text
//! request ─▶ request id ─▶ trace ─▶ catch panic ─▶ timeout ─▶ metrics
//!         ─▶ /api/v1 auth (bearer or ?apikey=) ─▶ rate limit (GCRA)
//!         ─▶ handler: parse query (query.rs) ─▶ one EngineHandle call ─▶ dto
//! ```
//!
//! [`app`] builds the whole router; tests drive it with `tower::ServiceExt::oneshot`.
//!
//! ## Feature flags
//!
//! None.

#![cfg_attr(not(test), warn(unused_crate_dependencies))]

pub mod api;
pub mod config;
pub mod dto;
pub mod error;
pub mod listener;
pub mod metrics;
pub mod middleware;
pub mod openapi;
pub mod query;
pub mod quote_id;
pub mod status;
pub mod stream;
pub mod ws;

use std::{sync::Arc, time::Duration};

use axum::Router;
pub use error::ApiError;
use switchyard_engine::EngineHandle;

// The binary uses these; the library does not.
use anyhow as _;
use clap as _;
use figment as _;
use mimalloc as _;
use tracing_subscriber as _;

/// Per-server settings the handlers and middleware need.
#[derive(Debug, Clone)]
pub struct ServerSettings {
    /// Largest request body, bytes.
    pub body_limit_bytes: usize,
    /// Time after which a request is answered 503.
    pub request_timeout: Duration,
    /// Quote streams one key may hold at once.
    pub stream_subscriptions_per_key: usize,
}

impl Default for ServerSettings {
    fn default() -> Self {
        Self {
            body_limit_bytes: config::DEFAULT_BODY_LIMIT_BYTES,
            request_timeout: Duration::from_millis(config::DEFAULT_REQUEST_TIMEOUT_MS),
            stream_subscriptions_per_key: config::DEFAULT_STREAM_SUBSCRIPTIONS_PER_KEY,
        }
    }
}

/// Shared state of every handler.
#[derive(Debug, Clone)]
pub struct AppState {
    /// The engine.
    pub engine: EngineHandle,
    /// Request metrics.
    pub metrics: Arc<metrics::Metrics>,
    /// Settings.
    pub settings: Arc<ServerSettings>,
    /// Quote streams.
    pub streams: Arc<stream::StreamHub>,
}

impl AppState {
    /// State over an engine.
    pub fn new(engine: EngineHandle, settings: ServerSettings) -> Self {
        Self {
            engine,
            metrics: Arc::default(),
            settings: Arc::new(settings),
            streams: Arc::default(),
        }
    }
}

/// The whole HTTP application.
pub fn app(state: AppState) -> Router {
    middleware::wrap(api::router(state.clone()), state)
}
