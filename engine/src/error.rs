//! Engine errors: the services' own (keys, rate limits, actors, data), and
//! the transaction layer's ([`ExecError`]).

use std::time::Duration;

use switchyard_catalog::{ApiCode, CatalogError};
use switchyard_exec::ExecError;

/// Why an engine operation failed.
#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    /// The catalog or market data could not be loaded.
    #[error("catalog")]
    Catalog(#[from] CatalogError),
    /// The market snapshot could not be built.
    #[error("market snapshot")]
    Kernel(#[from] switchyard_kernel::KernelError),
    /// The SQLite store (API keys and routed volume) failed; the cause is
    /// the source (logs print the chain: "database or disk is full").
    #[error("SQLite store (api keys, routed volume)")]
    Store(#[from] rusqlite::Error),
    /// The PostgreSQL store (api keys, routed volume) failed or cannot be
    /// reached; the cause is the source.
    #[error("PostgreSQL store (api keys, routed volume)")]
    Postgres(#[from] tokio_postgres::Error),
    /// The PostgreSQL store did not answer in time.
    #[error("PostgreSQL store (api keys, routed volume) did not answer within {0:?}")]
    PostgresTimeout(Duration),
    /// The data directory could not be prepared.
    #[error("data directory {path}")]
    DataDir {
        /// Path.
        path: String,
        /// Cause.
        #[source]
        source: std::io::Error,
    },
    /// No or an unknown API key.
    #[error("missing or invalid api key")]
    Unauthenticated,
    /// The key was revoked.
    #[error("api key revoked")]
    Revoked,
    /// The key is over its rate.
    #[error("rate limit exceeded")]
    RateLimited {
        /// When a request would be admitted again.
        retry_after: Duration,
    },
    /// The configuration cannot be used (a node's URL, a factory).
    #[error("configuration: {0}")]
    Config(String),
    /// An actor is not running (restarting or stopped).
    #[error("engine service {0} unavailable")]
    Unavailable(&'static str),
    /// The route search panicked; the request is answered, the pool of
    /// search threads lives on.
    #[error("route search panicked")]
    SearchPanicked,
    /// The system could not get randomness for a key or a request id.
    #[error("no randomness available")]
    Random,
    /// The rate-limit store (Redis) is unreachable and the policy refuses,
    /// or its URL is malformed at start.
    #[error("rate-limit store: {0}")]
    RateStore(String),
    /// A replay named a market state that is not held.
    #[error(transparent)]
    Replay(#[from] crate::replay::ReplayError),
    /// The transaction layer refused or failed the request.
    #[error(transparent)]
    Exec(#[from] ExecError),
}

impl EngineError {
    /// What the API answers: every variant, and every nested error,
    /// exhaustively.
    pub const fn code(&self) -> ApiCode {
        match self {
            Self::Unauthenticated | Self::Revoked => ApiCode::Unauthorized,
            Self::RateLimited { .. } => ApiCode::RateLimited,
            Self::Unavailable(_) | Self::Postgres(_) | Self::PostgresTimeout(_) => {
                ApiCode::Unavailable
            }
            Self::RateStore(_) => ApiCode::RateLimiterUnavailable,
            Self::Exec(e) => e.code(),
            Self::Replay(crate::replay::ReplayError::Expired { .. }) => ApiCode::SnapshotExpired,
            Self::Replay(_) => ApiCode::InvalidParameter,
            Self::Config(_)
            | Self::Catalog(_)
            | Self::Kernel(_)
            | Self::Store(_)
            | Self::DataDir { .. }
            | Self::SearchPanicked
            | Self::Random => ApiCode::Internal,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A failing SQLite store names itself, and the log line carries the
    /// cause (issue 16: a full disk was logged as `key store` alone).
    #[test]
    fn a_store_error_is_logged_with_its_cause() {
        let full = rusqlite::Error::SqliteFailure(
            rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_FULL),
            None,
        );
        let line = crate::error_chain(&EngineError::Store(full));
        assert!(line.starts_with("SQLite store"), "{line}");
        assert!(line.contains("database or disk is full"), "{line}");
    }
}
