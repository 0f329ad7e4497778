//! Configuration: a TOML file plus `SWITCHYARD_*` environment variables
//! (figment), validated into typed settings. Command-line flags win over
//! both.
//!
//! ```toml
//! bind = "127.0.0.1:8080"          # SWITCHYARD_BIND
//! data_dir = ".switchyard"         # SWITCHYARD_DATA_DIR: key and volume database
//! market = "market.json"           # SWITCHYARD_MARKET: omit for the embedded demo market
//! catalog_files = ["catalog.json"] # SWITCHYARD_CATALOG_FILES: laid over the embedded catalog
//! body_limit_bytes = 1048576       # SWITCHYARD_BODY_LIMIT_BYTES
//! request_timeout_ms = 10000       # SWITCHYARD_REQUEST_TIMEOUT_MS
//! stream_subscriptions_per_key = 100 # SWITCHYARD_STREAM_SUBSCRIPTIONS_PER_KEY
//! replay_blocks = 64               # SWITCHYARD_REPLAY_BLOCKS: blocks per chain a quoteId replays on
//! operator_fee_bps = 0             # SWITCHYARD_OPERATOR_FEE_BPS: this instance's fee on quotes and routes (ensoFeeAmount)
//! operator_fee_receiver = "0x…"    # SWITCHYARD_OPERATOR_FEE_RECEIVER: who receives it (required with a fee)
//! backend_signer = "0x…"           # SWITCHYARD_BACKEND_SIGNER: executionMode=backend uses each sender's ERC-4337 account deployed for this signer, whose operations the operator signs (omit: the sender's own account)
//! max_connections = 4096           # SWITCHYARD_MAX_CONNECTIONS: one more is closed at once
//! header_timeout_ms = 10000        # SWITCHYARD_HEADER_TIMEOUT_MS: to send headers; also the keep-alive idle time
//! shutdown_drain_ms = 10000        # SWITCHYARD_SHUTDOWN_DRAIN_MS: in-flight requests' time on SIGTERM
//! default_key_rate = 10.0          # SWITCHYARD_DEFAULT_KEY_RATE: req/s of `keys create` without --rate
//! log_format = "json"              # SWITCHYARD_LOG_FORMAT: json | pretty
//! log_filter = "info"              # SWITCHYARD_LOG_FILTER (or RUST_LOG)
//! node_modules = "contracts/node_modules" # SWITCHYARD_NODE_MODULES: the Uniswap npm packages
//! cctp_attestation_url = "http://…" # SWITCHYARD_CCTP_ATTESTATION_URL: Circle's attestation API (V2), http:// (a TLS proxy in front of https://iris-api.circle.com)
//!
//! # Nodes bridge status reads, besides those of [[nodes]].
//! [[bridge_nodes]]
//! chain_id = 8453
//! url = "http://127.0.0.1:8546"
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
/// Default cap on open connections.
pub const DEFAULT_MAX_CONNECTIONS: usize = 4096;
/// Default time to send a request's headers (and the keep-alive idle time).
pub const DEFAULT_HEADER_TIMEOUT_MS: u64 = 10_000;
/// Default drain of in-flight requests on shutdown.
pub const DEFAULT_SHUTDOWN_DRAIN_MS: u64 = 10_000;
/// Default request timeout: 10 s.
pub const DEFAULT_REQUEST_TIMEOUT_MS: u64 = 10_000;

/// Quote streams (`/shortcuts/quote/stream`) one key may hold at once.
pub const DEFAULT_STREAM_SUBSCRIPTIONS_PER_KEY: usize = 100;
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
    /// The wallet implementation the factory clones.
    pub implementation: Option<String>,
    /// The ERC-4337 account factory (`executionMode=backend`).
    #[serde(default)]
    pub account_factory: Option<String>,
    /// The account implementation it clones.
    #[serde(default)]
    pub account_implementation: Option<String>,
    /// The EntryPoint the accounts trust.
    #[serde(default)]
    pub entry_point: Option<String>,
}

/// A chain followed through its own JSON-RPC node (`[[nodes]]`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NodeConfig {
    /// Chain id; the node must answer it to `eth_chainId`.
    pub chain_id: u64,
    /// `http://host:port/path`.
    pub url: String,
    /// How often the node is asked for a new block (default 1000).
    pub poll_ms: Option<u64>,
    /// Without a good answer for this long the feed is `delayed` (default
    /// 30000).
    pub delayed_after_ms: Option<u64>,
    /// Without a good answer for this long the feed is `stale` and its
    /// pools are not routed through (default 60000).
    pub stale_after_ms: Option<u64>,
    /// Blocks kept to roll a reorg back (default 64).
    pub reorg_depth: Option<u64>,
    /// First block searched for the factories' pools (default 0).
    pub from_block: Option<u64>,
    /// Blocks per discovery `eth_getLogs` (default 10000).
    pub log_range: Option<u64>,
    /// Timeout of one call (default 10000).
    pub timeout_ms: Option<u64>,
    /// Factory addresses instead of the catalog's, by protocol slug
    /// (`balancer-v2`: the Balancer V2 Vault; `curve`: one Curve registry or
    /// factory, instead of those the catalog lists).
    #[serde(default)]
    pub factories: std::collections::BTreeMap<String, String>,
}

/// A node bridge status reads (`[[bridge_nodes]]`), for a chain no
/// `[[nodes]]` entry follows.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BridgeNodeConfig {
    /// Chain id.
    pub chain_id: u64,
    /// `http://host:port/path`.
    pub url: String,
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
    /// Quote streams per key.
    pub stream_subscriptions_per_key: usize,
    /// Open connections at most.
    pub max_connections: usize,
    /// Time to send a request's headers; also the keep-alive idle time.
    pub header_timeout_ms: u64,
    /// Time in-flight requests get on shutdown.
    pub shutdown_drain_ms: u64,
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
    /// `postgres://user@host:port/db` holding keys and routed volume for
    /// every replica; `None`: SQLite in `data_dir`.
    pub database_url: Option<String>,
    /// `redis://host:port/db` holding the rate-limit counters that every
    /// replica shares; `None`: each process limits on its own.
    pub redis_url: Option<String>,
    /// `closed` (refuse with 503 while Redis is unreachable) or `open`
    /// (limit per replica meanwhile).
    pub on_redis_error: String,
    /// Milliseconds between the embedded market's recorded blocks; 0 keeps
    /// it still. Ignored with a market file.
    pub embedded_block_ms: u64,
    /// Chains followed through their own node.
    pub nodes: Vec<NodeConfig>,
    /// Blocks per chain whose states are held for replay (`quoteId`,
    /// `atBlock`); 0 holds none.
    pub replay_blocks: usize,
    /// This instance's own fee on quotes and routes, bps of each input
    /// (answered as `ensoFeeAmount`); 0 takes none.
    pub operator_fee_bps: u32,
    /// Who receives it.
    pub operator_fee_receiver: Option<String>,
    /// The operator's signer of its users' ERC-4337 accounts.
    pub backend_signer: Option<String>,
    /// Nodes bridge status reads besides `nodes`.
    pub bridge_nodes: Vec<BridgeNodeConfig>,
    /// CCTP's attestation service (Circle's V2 API), `http://…`.
    pub cctp_attestation_url: Option<String>,
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
            stream_subscriptions_per_key: DEFAULT_STREAM_SUBSCRIPTIONS_PER_KEY,
            max_connections: DEFAULT_MAX_CONNECTIONS,
            header_timeout_ms: DEFAULT_HEADER_TIMEOUT_MS,
            shutdown_drain_ms: DEFAULT_SHUTDOWN_DRAIN_MS,
            default_key_rate: DEFAULT_KEY_RATE,
            log_format: "json".to_owned(),
            log_filter: "info".to_owned(),
            contracts: Vec::new(),
            node_modules: None,
            database_url: None,
            redis_url: None,
            on_redis_error: "closed".to_owned(),
            embedded_block_ms: DEFAULT_EMBEDDED_BLOCK_MS,
            nodes: Vec::new(),
            replay_blocks: switchyard_engine::DEFAULT_REPLAY_BLOCKS,
            operator_fee_bps: 0,
            operator_fee_receiver: None,
            backend_signer: None,
            bridge_nodes: Vec::new(),
            cctp_attestation_url: None,
        }
    }
}

/// The largest operator fee, bps: a client's own `fee` has the same cap.
pub const MAX_OPERATOR_FEE_BPS: u32 = 100;

/// The most blocks per chain `replay_blocks` may hold.
pub const MAX_REPLAY_BLOCKS: usize = 4096;

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
    /// How connections are held.
    pub connections: crate::listener::ConnectionLimits,
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
    /// Shared key and volume store (`None`: SQLite in `data_dir`).
    pub database_url: Option<String>,
    /// Shared rate-limit store.
    pub redis_url: Option<String>,
    /// What a check does when it is unreachable.
    pub on_redis_error: switchyard_engine::shared_limit::OnStoreError,
    /// The embedded feed's block interval (`None`: still).
    pub embedded_block: Option<std::time::Duration>,
    /// Chains followed through their own node.
    pub nodes: Vec<switchyard_engine::rpc_feed::RpcFeedConfig>,
    /// Blocks per chain held for replay.
    pub replay_blocks: usize,
    /// The operator's fee, when one is configured.
    pub operator_fee: Option<switchyard_engine::OperatorFee>,
    /// The operator's signer of its users' ERC-4337 accounts.
    pub backend_signer: Option<Address>,
    /// Nodes bridge status reads besides `nodes`.
    pub bridge_nodes: Vec<(ChainId, String)>,
    /// CCTP's attestation service.
    pub cctp_attestation_url: Option<String>,
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
        if self.stream_subscriptions_per_key == 0 {
            return Err(invalid("stream_subscriptions_per_key", "must be positive"));
        }
        if self.request_timeout_ms == 0 {
            return Err(invalid("request_timeout_ms", "must be positive"));
        }
        for (key, v) in [
            ("max_connections", self.max_connections as u64),
            ("header_timeout_ms", self.header_timeout_ms),
            ("shutdown_drain_ms", self.shutdown_drain_ms),
        ] {
            if v == 0 {
                return Err(invalid(key, "must be positive"));
            }
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
        if let Some(url) = &self.database_url
            && !(url.starts_with("postgres://") || url.starts_with("postgresql://"))
        {
            return Err(invalid(
                "database_url",
                "not a postgres:// or postgresql:// URL (leave it unset for SQLite)".to_owned(),
            ));
        }
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
                    implementation: parse_addr("contracts.implementation", &c.implementation)?,
                    account_factory: parse_addr("contracts.account_factory", &c.account_factory)?,
                    account_implementation: parse_addr(
                        "contracts.account_implementation",
                        &c.account_implementation,
                    )?,
                    entry_point: parse_addr("contracts.entry_point", &c.entry_point)?,
                    source: Some("operator configuration".to_owned()),
                })
            })
            .collect::<Result<_, ConfigError>>()?;
        let nodes = self.nodes.iter().map(node_config).collect::<Result<Vec<_>, _>>()?;
        let mut seen = std::collections::BTreeSet::new();
        if let Some(n) = nodes.iter().find(|n| !seen.insert(n.chain)) {
            return Err(invalid("nodes.chain_id", format!("chain {} has two nodes", n.chain)));
        }
        if self.replay_blocks > MAX_REPLAY_BLOCKS {
            return Err(invalid(
                "replay_blocks",
                format!("at most {MAX_REPLAY_BLOCKS} (each held block keeps its states alive)"),
            ));
        }
        let operator_fee = match (
            self.operator_fee_bps,
            parse_addr("operator_fee_receiver", &self.operator_fee_receiver)?,
        ) {
            (0, _) => None,
            (bps, _) if bps > MAX_OPERATOR_FEE_BPS => {
                return Err(invalid(
                    "operator_fee_bps",
                    format!("at most {MAX_OPERATOR_FEE_BPS} (1%), as a client's fee"),
                ));
            }
            (_, None) => {
                return Err(invalid("operator_fee_receiver", "required with operator_fee_bps"));
            }
            (_, Some(r)) if r == Address::ZERO => {
                return Err(invalid(
                    "operator_fee_receiver",
                    "the zero address would burn the fee",
                ));
            }
            (bps, Some(receiver)) => Some(switchyard_engine::OperatorFee { bps, receiver }),
        };
        let backend_signer = parse_addr("backend_signer", &self.backend_signer)?;
        if backend_signer == Some(Address::ZERO) {
            return Err(invalid("backend_signer", "the zero address signs nothing"));
        }
        let http = |key: &'static str, url: &str| {
            if url.starts_with("http://") {
                Ok(())
            } else {
                Err(invalid(key, format!("`{url}` is not an http:// URL")))
            }
        };
        let mut bridge_seen = std::collections::BTreeSet::new();
        for n in &self.bridge_nodes {
            http("bridge_nodes.url", &n.url)?;
            if !bridge_seen.insert(n.chain_id) {
                return Err(invalid(
                    "bridge_nodes.chain_id",
                    format!("chain {} has two bridge nodes", n.chain_id),
                ));
            }
        }
        if let Some(u) = &self.cctp_attestation_url {
            http("cctp_attestation_url", u)?;
        }
        Ok(Config {
            bridge_nodes: self
                .bridge_nodes
                .iter()
                .map(|n| (ChainId(n.chain_id), n.url.clone()))
                .collect(),
            cctp_attestation_url: self.cctp_attestation_url,
            operator_fee,
            backend_signer,
            replay_blocks: self.replay_blocks,
            nodes,
            bind,
            data_dir: self.data_dir,
            market: self.market,
            catalog_files: self.catalog_files,
            settings: crate::ServerSettings {
                body_limit_bytes: self.body_limit_bytes,
                request_timeout: std::time::Duration::from_millis(self.request_timeout_ms),
                stream_subscriptions_per_key: self.stream_subscriptions_per_key,
            },
            connections: crate::listener::ConnectionLimits {
                max_connections: self.max_connections,
                header_timeout: std::time::Duration::from_millis(self.header_timeout_ms),
                shutdown_drain: std::time::Duration::from_millis(self.shutdown_drain_ms),
            },
            default_key_rate: self.default_key_rate,
            pretty_logs,
            log_filter: self.log_filter,
            contracts,
            node_modules: self.node_modules,
            database_url: self.database_url,
            redis_url: self.redis_url,
            on_redis_error,
            embedded_block: (self.embedded_block_ms > 0)
                .then(|| std::time::Duration::from_millis(self.embedded_block_ms)),
        })
    }
}

fn node_config(n: &NodeConfig) -> Result<switchyard_engine::rpc_feed::RpcFeedConfig, ConfigError> {
    use std::time::Duration;
    let mut c = switchyard_engine::rpc_feed::RpcFeedConfig::new(ChainId(n.chain_id), &n.url);
    if !n.url.starts_with("http://") {
        return Err(invalid("nodes.url", format!("`{}` is not an http:// URL", n.url)));
    }
    let ms = |key: &'static str, v: Option<u64>, default: Duration| match v {
        None => Ok(default),
        Some(0) => Err(invalid(key, "must be positive")),
        Some(ms) => Ok(Duration::from_millis(ms)),
    };
    c.poll = ms("nodes.poll_ms", n.poll_ms, c.poll)?;
    c.delayed_after = ms("nodes.delayed_after_ms", n.delayed_after_ms, c.delayed_after)?;
    c.stale_after = ms("nodes.stale_after_ms", n.stale_after_ms, c.stale_after)?;
    c.timeout = ms("nodes.timeout_ms", n.timeout_ms, c.timeout)?;
    if c.stale_after < c.delayed_after {
        return Err(invalid("nodes.stale_after_ms", "must not be below delayed_after_ms"));
    }
    c.reorg_depth = n.reorg_depth.unwrap_or(c.reorg_depth).max(1);
    c.from_block = n.from_block.unwrap_or(c.from_block);
    c.log_range = match n.log_range {
        Some(0) => return Err(invalid("nodes.log_range", "must be positive")),
        Some(r) => r,
        None => c.log_range,
    };
    for (protocol, addr) in &n.factories {
        let a = addr
            .parse::<Address>()
            .map_err(|_| invalid("nodes.factories", format!("`{addr}` is not an address")))?;
        c.factories.push((protocol.clone(), a));
    }
    Ok(c)
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
        let raw = RawConfig {
            database_url: Some("localhost:5432/switchyard".into()),
            ..RawConfig::default()
        };
        assert!(matches!(raw.validate(), Err(ConfigError::Invalid { key: "database_url", .. })));
        let raw = RawConfig { redis_url: Some("localhost:6379".into()), ..RawConfig::default() };
        assert!(matches!(raw.validate(), Err(ConfigError::Invalid { key: "redis_url", .. })));
        for bad in ["0x12", "0x0000000000000000000000000000000000000000"] {
            let raw = RawConfig { backend_signer: Some(bad.into()), ..RawConfig::default() };
            assert!(matches!(
                raw.validate(),
                Err(ConfigError::Invalid { key: "backend_signer", .. })
            ));
        }
        let signer = "0x00000000000000000000000000000000000000b5";
        let raw = RawConfig { backend_signer: Some(signer.into()), ..RawConfig::default() };
        let c = raw.validate().expect("a signer");
        assert_eq!(c.backend_signer, signer.parse().ok());
    }

    #[test]
    fn nodes_are_checked() {
        let node = |url: &str| NodeConfig {
            chain_id: 1,
            url: url.into(),
            poll_ms: Some(250),
            delayed_after_ms: None,
            stale_after_ms: None,
            reorg_depth: None,
            from_block: Some(10_000_835),
            log_range: None,
            timeout_ms: None,
            factories: [(
                "uniswap-v2".to_owned(),
                "0x5c69bee701ef814a2b6a3edd4b1652cb9cc5aa6f".to_owned(),
            )]
            .into(),
        };
        let raw = RawConfig { nodes: vec![node("http://127.0.0.1:8545")], ..RawConfig::default() };
        let cfg = raw.validate().expect("valid");
        let n = &cfg.nodes[0];
        assert_eq!((n.poll.as_millis(), n.from_block, n.factories.len()), (250, 10_000_835, 1));
        let raw = RawConfig { nodes: vec![node("https://node")], ..RawConfig::default() };
        assert!(matches!(raw.validate(), Err(ConfigError::Invalid { key: "nodes.url", .. })));
        let two = vec![node("http://a:1"), node("http://b:1")];
        let raw = RawConfig { nodes: two, ..RawConfig::default() };
        assert!(matches!(raw.validate(), Err(ConfigError::Invalid { key: "nodes.chain_id", .. })));
        let mut bad = node("http://a:1");
        bad.stale_after_ms = Some(10);
        let raw = RawConfig { nodes: vec![bad], ..RawConfig::default() };
        assert!(matches!(
            raw.validate(),
            Err(ConfigError::Invalid { key: "nodes.stale_after_ms", .. })
        ));
    }
}
