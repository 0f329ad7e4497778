//! Catalog errors.

use std::fmt;

/// One thing wrong with a catalog or market file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// Where: section and index or key, e.g. `tokens[12]`.
    pub location: String,
    /// What is wrong, lowercase, no trailing period.
    pub message: String,
}

impl Problem {
    pub(crate) fn new(location: impl Into<String>, message: impl Into<String>) -> Self {
        Self { location: location.into(), message: message.into() }
    }
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.location, self.message)
    }
}

/// Why a catalog or a market could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum CatalogError {
    /// The file could not be read.
    #[error("cannot read {path}")]
    Io {
        /// File path.
        path: String,
        /// Cause.
        #[source]
        source: std::io::Error,
    },
    /// The file is not valid JSON of the expected shape.
    #[error("{file}: {message}")]
    Parse {
        /// File name.
        file: String,
        /// Parser message.
        message: String,
    },
    /// The data parsed but is inconsistent.
    #[error("{} problem(s), first: {}", problems.len(), problems.first().map(ToString::to_string).unwrap_or_default())]
    Invalid {
        /// Every problem found.
        problems: Vec<Problem>,
    },
}
