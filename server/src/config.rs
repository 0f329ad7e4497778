//! Configuration: a TOML file plus `SWITCHYARD_*` environment variables
//! (figment), validated into typed settings. Command-line flags win over
//! both.
//!
//! ```toml
//! bind = "127.0.0.1:8080"          # SWITCHYARD_BIND
//! data_dir = ".switchyard"         # SWITCHYARD_DATA_DIR: key and volume database
//! market = "market.json"           # SWITCHYARD_MARKET: omit for the embedded demo market
//! catalog_files = ["catalog.json"] # SWITCHYARD_CATALOG_FILES: omit for the embedded catalog
//! body_limit_bytes = 1048576       # SWITCHYARD_BODY_LIMIT_BYTES
//! request_timeout_ms = 10000       # SWITCHYARD_REQUEST_TIMEOUT_MS
//! default_key_rate = 10.0          # SWITCHYARD_DEFAULT_KEY_RATE: req/s of `keys create` without --rate
//! log_format = "json"              # SWITCHYARD_LOG_FORMAT: json | pretty
//! log_filter = "info"              # SWITCHYARD_LOG_FILTER (or RUST_LOG)
//! node_modules = "contracts/node_modules" # SWITCHYARD_NODE_MODULES: the Uniswap npm packages
//!
//! # Contract overrides, per chain and routing strategy.
//! [[contracts]]
//! chain_id = 1
//! strategy = "router"
//! router = "0x…"
//! executor = "0x…"
//! ```

use std::{net::SocketAddr, path::PathBuf};

use figment::{
    Figment,
    providers::{Env, Format, Serialized, Toml},
};
use serde::{Deserialize, Serialize};
use switchyard_catalog::{Address, ChainId, ContractSet, RoutingStrategy};

/// Default listen address.
pub const DEFAULT_BIND: &str = "127.0.0.1:8080";
/// Default data directory (relative to the working directory).
pub const DEFAULT_DATA_DIR: &str = ".switchyard";
/// Default request body limit: 1 MiB.
pub const DEFAULT_BODY_LIMIT_BYTES: usize = 1024 * 1024;
/// Default request timeout: 10 s.
pub const DEFAULT_REQUEST_TIMEOUT_MS: u64 = 10_000;
/// Default rate of new keys, requests per second.
pub const DEFAULT_KEY_RATE: f64 = 10.0;
/// Milliseconds between the embedded market's recorded blocks (Ethereum's
/// slot time).
pub const DEFAULT_EMBEDDED_BLOCK_MS: u64 = 12_000;

/// One contract override.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ContractOverride {
    /// Chain id.
    pub chain_id: u64,
    /// Routing strategy name.
    pub strategy: String,
    /// Router.
    pub router: Option<String>,
    /// Executor.
    pub executor: Option<String>,
    /// Delegate.
    pub delegate: Option<String>,
    /// Wallet factory.
    pub factory: Option<String>,
    /// Cross-chain receiver.
    pub receiver: Option<String>,
}

/// The raw configuration, every field optional in the sources.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RawConfig {
    /// Listen address.
    pub bind: String,
    /// Data directory.
    pub data_dir: PathBuf,
    /// Market file.
    pub market: Option<PathBuf>,
    /// Catalog files.
    pub catalog_files: Vec<PathBuf>,
    /// Body limit.
    pub body_limit_bytes: usize,
    /// Request timeout.
    pub request_timeout_ms: u64,
    /// Rate of new keys.
    pub default_key_rate: f64,
    /// `json` or `pretty`.
    pub log_format: String,
    /// tracing filter.
    pub log_filter: String,
    /// Contract overrides.
    pub contracts: Vec<ContractOverride>,
    /// `node_modules` with `@uniswap/v2-core` and `@uniswap/v3-core` (the
    /// bytecode of the EVM world); `None`: the source tree's
    /// `contracts/node_modules`.
    pub node_modules: Option<PathBuf>,
    /// `redis://host:port/db` holding the rate-limit counters that every
    /// replica shares; `None`: each process limits on its own.
    pub redis_url: Option<String>,
    /// `closed` (refuse with 503 while Redis is unreachable) or `open`
    /// (limit per replica meanwhile).
    pub on_redis_error: String,
    /// Milliseconds between the embedded market's recorded blocks; 0 keeps
    /// it still. Ignored with a market file.
    pub embedded_block_ms: u64,
}

impl Default for RawConfig {
    fn default() -> Self {
        Self {
            bind: DEFAULT_BIND.to_owned(),
            data_dir: PathBuf::from(DEFAULT_DATA_DIR),
            market: None,
            catalog_files: Vec::new(),
            body_limit_bytes: DEFAULT_BODY_LIMIT_BYTES,
            request_timeout_ms: DEFAULT_REQUEST_TIMEOUT_MS,
            default_key_rate: DEFAULT_KEY_RATE,
            log_format: "json".to_owned(),
            log_filter: "info".to_owned(),
            contracts: Vec::new(),
            node_modules: None,
            redis_url: None,
            on_redis_error: "closed".to_owned(),
            embedded_block_ms: DEFAULT_EMBEDDED_BLOCK_MS,
        }
    }
}

/// Validated configuration.
#[derive(Debug, Clone)]
pub struct Config {
    /// Listen address.
    pub bind: SocketAddr,
    /// Data directory.
    pub data_dir: PathBuf,
    /// Market file.
    pub market: Option<PathBuf>,
    /// Catalog files.
    pub catalog_files: Vec<PathBuf>,
    /// Server settings.
    pub settings: crate::ServerSettings,
    /// Rate of new keys.
    pub default_key_rate: f64,
    /// Pretty logs instead of JSON.
    pub pretty_logs: bool,
    /// tracing filter.
    pub log_filter: String,
    /// Contract overrides.
    pub contracts: Vec<ContractSet>,
    /// The Uniswap npm packages' directory.
    pub node_modules: Option<PathBuf>,
    /// Shared rate-limit store.
    pub redis_url: Option<String>,
    /// What a check does when it is unreachable.
    pub on_redis_error: switchyard_engine::shared_limit::OnStoreError,
    /// The embedded feed's block interval (`None`: still).
    pub embedded_block: Option<std::time::Duration>,
}

/// A configuration error.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The sources could not be read or merged.
    #[error("configuration")]
    Figment(#[from] Box<figment::Error>),
    /// A value is out of range.
    #[error("config `{key}`: {message}")]
    Invalid {
        /// Key.
        key: &'static str,
        /// Why.
        message: String,
    },
}

fn invalid(key: &'static str, message: impl Into<String>) -> ConfigError {
    ConfigError::Invalid { key, message: message.into() }
}

impl RawConfig {
    /// Defaults, then the file (if any), then `SWITCHYARD_*` variables.
    pub fn load(file: Option<&std::path::Path>) -> Result<Self, ConfigError> {
        let mut fig = Figment::from(Serialized::defaults(Self::default()));
        if let Some(f) = file {
            if !f.is_file() {
                return Err(invalid("--config", format!("{} is not a readable file", f.display())));
            }
            fig = fig.merge(Toml::file(f));
        }
        fig = fig.merge(Env::prefixed("SWITCHYARD_"));
        fig.extract().map_err(|e| ConfigError::Figment(Box::new(e)))
    }

    /// Validates.
    pub fn validate(self) -> Result<Config, ConfigError> {
        let bind = self
            .bind
            .parse()
            .map_err(|_| invalid("bind", format!("`{}` is not host:port", self.bind)))?;
        if self.body_limit_bytes == 0 {
            return Err(invalid("body_limit_bytes", "must be positive"));
        }
        if self.request_timeout_ms == 0 {
            return Err(invalid("request_timeout_ms", "must be positive"));
        }
        if !(self.default_key_rate.is_finite() && self.default_key_rate > 0.0) {
            return Err(invalid("default_key_rate", "must be a positive number"));
        }
        let on_redis_error = match self.on_redis_error.as_str() {
            "closed" => switchyard_engine::shared_limit::OnStoreError::Closed,
            "open" => switchyard_engine::shared_limit::OnStoreError::Open,
            other => {
                return Err(invalid("on_redis_error", format!("`{other}` is not closed or open")));
            }
        };
        if let Some(url) = &self.redis_url
            && !(url.starts_with("redis://") || url.starts_with("unix://"))
        {
            return Err(invalid("redis_url", format!("`{url}` is not a redis:// or unix:// URL")));
        }
        let pretty_logs = match self.log_format.as_str() {
            "json" => false,
            "pretty" => true,
            other => return Err(invalid("log_format", format!("`{other}` is not json or pretty"))),
        };
        let parse_addr =
            |key: &'static str, v: &Option<String>| -> Result<Option<Address>, ConfigError> {
                v.as_deref()
                    .map(|s| {
                        s.parse::<Address>()
                            .map_err(|_| invalid(key, format!("`{s}` is not an address")))
                    })
                    .transpose()
            };
        let contracts = self
            .contracts
            .iter()
            .map(|c| {
                Ok(ContractSet {
                    chain_id: ChainId(c.chain_id),
                    strategy: c.strategy.parse::<RoutingStrategy>().map_err(|_| {
                        invalid("contracts.strategy", format!("`{}` is unknown", c.strategy))
                    })?,
                    router: parse_addr("contracts.router", &c.router)?,
                    executor: parse_addr("contracts.executor", &c.executor)?,
                    delegate: parse_addr("contracts.delegate", &c.delegate)?,
                    factory: parse_addr("contracts.factory", &c.factory)?,
                    receiver: parse_addr("contracts.receiver", &c.receiver)?,
                })
            })
            .collect::<Result<_, ConfigError>>()?;
        Ok(Config {
            bind,
            data_dir: self.data_dir,
            market: self.market,
            catalog_files: self.catalog_files,
            settings: crate::ServerSettings {
                body_limit_bytes: self.body_limit_bytes,
                request_timeout: std::time::Duration::from_millis(self.request_timeout_ms),
            },
            default_key_rate: self.default_key_rate,
            pretty_logs,
            log_filter: self.log_filter,
            contracts,
            node_modules: self.node_modules,
            redis_url: self.redis_url,
            on_redis_error,
            embedded_block: (self.embedded_block_ms > 0)
                .then(|| std::time::Duration::from_millis(self.embedded_block_ms)),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_validate() {
        let c = RawConfig::default().validate();
        assert!(c.is_ok());
    }

    #[test]
    fn the_example_config_is_valid_and_states_the_defaults() {
        let path =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../deploy/config.example.toml");
        let raw = RawConfig::load(Some(&path)).expect("the example parses");
        assert_eq!(raw, RawConfig::default(), "the example documents exactly the defaults");
        assert!(raw.validate().is_ok());
    }

    #[test]
    fn bad_values_name_their_key() {
        let raw = RawConfig { bind: "nope".into(), ..RawConfig::default() };
        assert!(matches!(raw.validate(), Err(ConfigError::Invalid { key: "bind", .. })));
        let raw = RawConfig { log_format: "xml".into(), ..RawConfig::default() };
        assert!(matches!(raw.validate(), Err(ConfigError::Invalid { key: "log_format", .. })));
        let raw = RawConfig { on_redis_error: "maybe".into(), ..RawConfig::default() };
        assert!(matches!(raw.validate(), Err(ConfigError::Invalid { key: "on_redis_error", .. })));
        let raw = RawConfig { redis_url: Some("localhost:6379".into()), ..RawConfig::default() };
        assert!(matches!(raw.validate(), Err(ConfigError::Invalid { key: "redis_url", .. })));
    }
}
