//! Engine errors.

use std::time::Duration;

use switchyard_catalog::{CatalogError, ErrorCode};

/// Why an engine operation failed.
#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    /// The catalog or market data could not be loaded.
    #[error("catalog")]
    Catalog(#[from] CatalogError),
    /// The market snapshot could not be built.
    #[error("market snapshot")]
    Kernel(#[from] switchyard_kernel::KernelError),
    /// The key store failed.
    #[error("key store")]
    Store(#[from] rusqlite::Error),
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
    /// An actor is not running (restarting or stopped).
    #[error("engine service {0} unavailable")]
    Unavailable(&'static str),
    /// The route search refused the request or found no route.
    #[error("route search")]
    Route(#[source] switchyard_kernel::KernelError),
    /// The route search panicked; the request is answered, the pool of
    /// search threads lives on.
    #[error("route search panicked")]
    SearchPanicked,
    /// The system could not get randomness for a key.
    #[error("no randomness available")]
    Random,
}

impl EngineError {
    /// What the caller should do.
    pub const fn code(&self) -> ErrorCode {
        match self {
            Self::Unauthenticated => ErrorCode::Unauthenticated,
            Self::Revoked => ErrorCode::Forbidden,
            Self::RateLimited { .. } => ErrorCode::TooManyRequests,
            Self::Unavailable(_) => ErrorCode::Unavailable,
            Self::Route(e) => e.code(),
            Self::Catalog(_)
            | Self::Kernel(_)
            | Self::Store(_)
            | Self::DataDir { .. }
            | Self::SearchPanicked
            | Self::Random => ErrorCode::Internal,
        }
    }
}
