//! # switchyard-engine
//!
//! The stateful core. [`Engine::start`] loads the catalog and market, derives
//! prices, and starts an actix system on its own thread with supervised
//! actors:
//!
//! ```text
//!                       ┌────────────── actix system thread ──────────────┐
//! EngineHandle ──send──▶│ KeyStoreActor   (SQLite, refreshes KeyCache)    │
//!   (cloneable,         │ VolumeRecorder  (SQLite)                        │
//!    any runtime)       │ PriceCacheActor (new snapshot → prices → swap)  │
//!        │              └─────────────────────────────────────────────────┘
//!        └──load──▶ ArcSwap<MarketState>, ArcSwap<KeyCache>   (lock-free reads)
//! ```
//!
//! The server reaches all of it only through [`EngineHandle`]; actor
//! addresses never leave this crate. Reads on the request hot path
//! (market state, key cache, rate limiter) never cross a thread.
//!
//! [`evm`] is an in-process EVM (revm) over the committed contract artifacts
//! in `contracts/`. Today it holds the kernel's exact pool math to the real
//! contracts' bytecode (`tests/differential.rs`); it is where simulating the
//! transactions the engine builds will live.
//!
//! ## Feature flags
//!
//! None.

#![cfg_attr(not(test), warn(unused_crate_dependencies))]

pub mod bridge_status;
mod bundle_service;
mod curve_lists;
mod error;
mod feed;
mod jobs;
pub mod keys;
mod listed;
mod market;
pub mod pg;
pub mod rate_limit;
pub mod replay;
pub mod rpc;
pub mod rpc_feed;
pub mod shared_limit;
mod supervise;
pub mod token_meta;
mod volume;

use std::{path::PathBuf, sync::Arc, thread::JoinHandle, time::Duration};

use actix::prelude::*;
use arc_swap::ArcSwap;
pub use error::EngineError;
pub use feed::BLOCK_SECONDS;
pub use keys::{Database, KeyCache, KeyRecord, KeyStore, NewKey};
pub use market::{DEMO_CONFIDENCE, PUBLICATION_SECONDS, STALE_CONFIDENCE};
pub use rate_limit::{RateDecision, RateLimiter};
// The transaction layer, under the paths the server and the tests use.
use switchyard_catalog::{Catalog, ChainId, ContractSet, PoolRecord, loaders};
pub use switchyard_exec::{
    ExecError, MarketState, Quote, QuoteRequest, RouteRequest, RouteTx, StateInputs, ViewId,
    account, bridge, build_state, build_state_after, bundle, encode, error_chain, evm, ipor,
    nontokenized, observe, quote, route, simulate, wallet,
};
use switchyard_kernel::MarketSnapshot;
pub use volume::VolumeStats;

/// How long a caller waits for an actor before giving up.
pub const ACTOR_TIMEOUT: Duration = Duration::from_secs(5);

/// Timeout of one call bridge status makes (a node, the attestation
/// service).
pub const BRIDGE_NODE_TIMEOUT: Duration = Duration::from_secs(4);

/// The most a bundle waits for the node to report one position a
/// `redeemclmm` names.
pub const POSITION_READ_BUDGET: Duration = Duration::from_secs(4);

/// What the engine needs to start.
#[derive(Debug, Clone, Default)]
pub struct EngineConfig {
    /// Directory of the key/volume database.
    pub data_dir: PathBuf,
    /// PostgreSQL holding keys and routed volume for every replica
    /// (`postgres://…`; `None`: SQLite in `data_dir`).
    pub database_url: Option<String>,
    /// Catalog files laid over the embedded default (by key: an entry
    /// replaces the one with its key, anything else is added).
    pub catalog_files: Vec<PathBuf>,
    /// Market file; `None` means the embedded demo snapshot.
    pub market_file: Option<PathBuf>,
    /// Contract address overrides from the operator's config.
    pub contract_overrides: Vec<ContractSet>,
    /// The `node_modules` directory holding the Uniswap npm packages
    /// (`None`: [`evm::NpmArtifacts::default_dir`]).
    pub node_modules: Option<PathBuf>,
    /// Redis holding the rate-limit counters every replica shares (`None`:
    /// each process limits on its own).
    pub redis_url: Option<String>,
    /// What a check does when that Redis cannot be reached.
    pub on_redis_error: shared_limit::OnStoreError,
    /// How often the embedded feed replays the next recorded block (only
    /// on the embedded market). `None`: only [`EngineHandle::step_blocks`]
    /// moves it.
    pub block_interval: Option<Duration>,
    /// Chains followed through a node: their pools come from the node's
    /// factories (one [`rpc_feed`] per catalog factory on the chain), and
    /// the embedded market's pools of those chains are dropped.
    pub rpc_feeds: Vec<rpc_feed::RpcFeedConfig>,
    /// Blocks per chain whose states are held for replay (`None`:
    /// [`DEFAULT_REPLAY_BLOCKS`]; 0 holds none).
    pub replay_blocks: Option<usize>,
    /// The operator's own fee on quotes and routes (`ensoFeeAmount`).
    pub operator_fee: Option<OperatorFee>,
    /// The operator's backend signer: with `executionMode=backend`, the
    /// sender's ERC-4337 account is the one deployed for this signer
    /// (`delegateDeploy`), whose operations the operator signs (`None`:
    /// the sender's own account, which the sender signs for).
    pub backend_signer: Option<alloy_primitives::Address>,
    /// Nodes bridge status reads besides the feeds' (chains no feed
    /// follows): `(chain, http://…)`.
    pub bridge_nodes: Vec<(ChainId, String)>,
    /// CCTP's attestation service (`http://…`, Circle's V2 API), for bridge
    /// status and claims.
    pub cctp_attestation_url: Option<String>,
}

/// The operator's own fee: bps of every input of a quote or route, paid
/// inside the route's program to `receiver`, answered as `ensoFeeAmount`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OperatorFee {
    /// Basis points of each input.
    pub bps: u32,
    /// Who receives it.
    pub receiver: switchyard_catalog::Address,
}

/// Which market state a request reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum At {
    /// The newest.
    Latest,
    /// The newest view of this block of the request's chain.
    Block(u64),
    /// Exactly these views (a `quoteId`'s): the very state an answer was
    /// computed on.
    Views(Vec<ViewId>),
}

/// Blocks per chain held for replay unless configured.
pub const DEFAULT_REPLAY_BLOCKS: usize = 64;

/// The answers of [`EngineHandle::quote_batch`].
#[derive(Debug)]
pub struct QuoteBatch {
    /// The head block each chain's quotes read.
    pub blocks: std::collections::BTreeMap<ChainId, u64>,
    /// One answer per request, in order.
    pub results: Vec<Result<Quote, EngineError>>,
}

/// Status of a market data feed (tycho's states).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FeedState {
    /// Loading its pools for the first time (or again, after losing the
    /// chain).
    Indexing,
    /// Up to date.
    Ready,
    /// Behind, still usable.
    Delayed,
    /// Too old to route through.
    Stale,
    /// Finished (a recorded stream that ran out).
    Ended,
}

impl FeedState {
    /// Lower-case name.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Indexing => "indexing",
            Self::Ready => "ready",
            Self::Delayed => "delayed",
            Self::Stale => "stale",
            Self::Ended => "ended",
        }
    }
}

/// One feed's status.
#[derive(Debug, Clone, PartialEq)]
pub struct FeedStatus {
    /// Chain.
    pub chain: ChainId,
    /// Source name: `demo` (the embedded demo market's recorded blocks),
    /// `file` (an operator's market file, which nothing moves), or the
    /// protocol an RPC feed follows.
    pub source: Arc<str>,
    /// State.
    pub state: FeedState,
    /// Head block of the published state.
    pub head_block: u64,
    /// Blocks behind the chain head.
    pub lag_blocks: u64,
    /// Seconds since the published head fell behind the node's head (0
    /// when it is not behind, and for the embedded feed and a market file).
    pub lag_seconds: f64,
    /// While an RPC feed indexes: how far it is.
    pub progress: Option<IndexProgress>,
}

/// How far an RPC feed's indexing is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IndexProgress {
    /// `discovery` (searching the factory's creation events, in blocks) or
    /// `state` (reading the pools found, in pool reads).
    pub phase: &'static str,
    /// Done so far.
    pub done: u64,
    /// Of this many.
    pub total: u64,
}

/// Stops the engine's actor system when dropped or on [`Shutdown::stop`].
#[derive(Debug)]
pub struct Shutdown {
    system: Option<System>,
    thread: Option<JoinHandle<()>>,
    /// The database actors' own thread (PostgreSQL), joined after the
    /// system stops so the last volume flush is done.
    db_arbiter: Option<Arbiter>,
}

impl Shutdown {
    /// Stops the actors and waits for the engine thread.
    pub fn stop(mut self) {
        self.stop_inner();
    }

    fn stop_inner(&mut self) {
        if let Some(s) = self.system.take() {
            s.stop();
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
        if let Some(a) = self.db_arbiter.take() {
            a.stop();
            let _ = a.join();
        }
    }
}

impl Drop for Shutdown {
    fn drop(&mut self) {
        self.stop_inner();
    }
}

/// The engine's supervised actors (for fault injection).
#[cfg(feature = "fault-injection")]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ActorName {
    /// Keys and their cache.
    KeyStore,
    /// Routed volume.
    VolumeRecorder,
    /// Snapshot publication and prices.
    PriceCache,
    /// The embedded market's recorded block stream.
    EmbeddedFeed,
    /// Bundle compilation.
    BundleCompiler,
}

/// Entry point.
#[derive(Debug)]
pub struct Engine;

impl Engine {
    /// Loads data and starts the actors.
    pub fn start(config: EngineConfig) -> Result<(EngineHandle, Shutdown), EngineError> {
        let mut catalog = loaders::load_catalog(&config.catalog_files)?;
        for set in config.contract_overrides {
            catalog.override_contracts(set);
        }
        let mut market = loaders::load_market(config.market_file.as_deref(), &catalog)?;
        // A chain followed through a node takes its pools (and head) from
        // the node alone: Uniswap's from the factories, the others the
        // market lists as templates whose state the node answers.
        let node_chains: std::collections::BTreeSet<ChainId> =
            config.rpc_feeds.iter().map(|f| f.chain).collect();
        let (on_nodes, rest): (Vec<PoolRecord>, Vec<PoolRecord>) =
            std::mem::take(&mut market.pools)
                .into_iter()
                .partition(|p| node_chains.contains(&p.common().chain_id));
        market.pools = rest;
        let templates: Vec<PoolRecord> = on_nodes
            .into_iter()
            .filter(|p| !matches!(p, PoolRecord::UniswapV2(_) | PoolRecord::UniswapV3(_)))
            .collect();
        market.chains.retain(|c| !node_chains.contains(&c.chain_id));
        market.dual_vaults.retain(|v| !node_chains.contains(&v.chain_id));
        let snapshot = MarketSnapshot::build(&market, &catalog)?;
        // The recorded stream fits the embedded market only.
        let stream = match config.market_file {
            None => Some(Arc::new(loaders::embedded_blocks()?)),
            Some(_) => None,
        };
        let feed_ended = Arc::new(std::sync::atomic::AtomicBool::new(stream.is_none()));
        let demo = config.market_file.is_none();
        let start_snapshot = Arc::new(snapshot.clone());
        let npm_dir = config.node_modules.clone().unwrap_or_else(evm::NpmArtifacts::default_dir);
        let catalog = Arc::new(catalog);
        let rpc_sources = rpc_sources(&catalog, &config.rpc_feeds, &templates)?;
        let inputs = StateInputs {
            catalog: Arc::clone(&catalog),
            market: Arc::new(market),
            npm: evm::NpmArtifacts::load(&npm_dir)
                .map(Arc::new)
                .map_err(|e| evm::artifacts::error_chain(&e)),
        };
        let first = build_state(&inputs, Arc::new(snapshot));
        let held = config.replay_blocks.unwrap_or(DEFAULT_REPLAY_BLOCKS);
        let state = Arc::new(replay::Published::new(first.clone(), held));
        let latest = Arc::new(replay::Published::new(first, held));
        // Open the database here first: a bad data directory fails the start
        // in this thread, and the first request already sees every key.
        let db = keys::Database::from_config(&config.data_dir, config.database_url.as_deref());
        let key_cache = Arc::new(ArcSwap::from_pointee(KeyStore::connect(&db)?.load_cache()?));

        let (tx, rx) = std::sync::mpsc::channel();
        let key_db = db.clone();
        let volume_db = db.clone();
        let networked_db = matches!(db, keys::Database::Postgres(_));
        let changed = Arc::new(tokio::sync::watch::Sender::new(0u64));
        let changed_tx = Arc::clone(&changed);
        let (st, lt, kc) = (Arc::clone(&state), Arc::clone(&latest), Arc::clone(&key_cache));
        let ended = Arc::clone(&feed_ended);
        let block_interval = config.block_interval;
        let health: Vec<_> = rpc_sources.iter().map(|s| Arc::clone(&s.health)).collect();
        let nodes: std::collections::BTreeMap<ChainId, Arc<rpc::RpcClient>> =
            rpc_sources.iter().map(|s| (s.config.chain, Arc::clone(&s.client))).collect();
        // Bridge status reads the feeds' nodes and any named for it alone.
        let mut watched = nodes.clone();
        for (chain, url) in &config.bridge_nodes {
            let client = rpc::RpcClient::new(url, BRIDGE_NODE_TIMEOUT)
                .map_err(|e| EngineError::Config(e.to_string()))?;
            watched.entry(*chain).or_insert_with(|| Arc::new(client));
        }
        if let Some(url) = &config.cctp_attestation_url {
            // Fail at start on a URL the client cannot use.
            rpc::RpcClient::new(url, BRIDGE_NODE_TIMEOUT)
                .map_err(|e| EngineError::Config(format!("cctp attestation url: {e}")))?;
        }
        let bridges = bridge_status::BridgeWatch {
            nodes: watched,
            attestation_url: config.cctp_attestation_url.clone(),
            timeout: BRIDGE_NODE_TIMEOUT,
        };
        let thread = std::thread::Builder::new()
            .name("switchyard-engine".into())
            .spawn(move || {
                let sys = System::new();
                // PostgreSQL is reached over the network: its actors get a
                // thread of their own, so a slow database never holds up
                // the feeds.
                let db_arbiter = sys.block_on(async { networked_db.then(Arbiter::new) });
                let db_handle = db_arbiter.as_ref().map(Arbiter::handle);
                sys.block_on(async move {
                    let key_actor = move |_: &mut Context<keys::KeyStoreActor>| {
                        keys::KeyStoreActor::new(key_db, kc)
                    };
                    let volume_actor = move |_: &mut Context<volume::VolumeRecorder>| {
                        volume::VolumeRecorder::new(volume_db)
                    };
                    let (keys, volume) = match &db_handle {
                        Some(h) => (
                            Supervisor::start_in_arbiter(h, key_actor),
                            Supervisor::start_in_arbiter(h, volume_actor),
                        ),
                        None => (Supervisor::start(key_actor), Supervisor::start(volume_actor)),
                    };
                    let prices =
                        Supervisor::start(move |_| {
                            market::PriceCacheActor::new(st, lt, inputs).notifying(changed_tx)
                        });
                    let feed = stream.map(|stream| {
                        let (publisher, ended) = (prices.clone(), Arc::clone(&ended));
                        Supervisor::start(move |_| {
                            feed::EmbeddedFeed::new(
                                stream,
                                start_snapshot,
                                block_interval,
                                publisher,
                                ended,
                                node_chains,
                            )
                        })
                    });
                    for src in rpc_sources {
                        let hub = prices.clone();
                        let catalog = Arc::clone(&catalog);
                        Supervisor::start(move |_| src.start(catalog, hub));
                    }
                    let bundles = Supervisor::start(|_| bundle_service::BundleCompiler::new());
                    let _ = tx.send((
                        System::current(),
                        keys,
                        volume,
                        prices,
                        feed,
                        bundles,
                        db_arbiter,
                    ));
                });
                if let Err(e) = sys.run() {
                    tracing::error!(error = %crate::error_chain(&e), "engine actor system stopped with an error");
                }
            })
            .map_err(|source| EngineError::DataDir { path: "engine thread".into(), source })?;
        let shared = config
            .redis_url
            .as_deref()
            .map(|url| shared_limit::SharedLimiter::new(url, config.on_redis_error))
            .transpose()
            .map_err(|e| EngineError::RateStore(e.to_string()))?;
        let (system, keys, volume, prices, feed, bundles, db_arbiter) =
            rx.recv().map_err(|_| EngineError::Unavailable("actor system"))?;
        let handle = EngineHandle {
            inner: Arc::new(Inner {
                state,
                latest,
                key_cache,
                limiter: RateLimiter::new(),
                shared,
                keys,
                volume,
                prices,
                bundles,
                feed,
                feed_ended,
                rpc_health: health,
                nodes,
                demo,
                changed,
                operator_fee: config.operator_fee,
                backend_signer: config.backend_signer,
                bridges,
            }),
        };
        Ok((handle, Shutdown { system: Some(system), thread: Some(thread), db_arbiter }))
    }
}

struct Inner {
    /// The proven state (snapshot and its world).
    state: Arc<replay::Published>,
    /// The newest snapshot and prices, for quotes.
    latest: Arc<replay::Published>,
    key_cache: Arc<ArcSwap<KeyCache>>,
    limiter: RateLimiter,
    /// Limits shared through Redis, when configured (then `limiter` is
    /// unused).
    shared: Option<shared_limit::SharedLimiter>,
    keys: Addr<keys::KeyStoreActor>,
    volume: Addr<volume::VolumeRecorder>,
    prices: Addr<market::PriceCacheActor>,
    bundles: Addr<bundle_service::BundleCompiler>,
    /// The embedded feed (on the embedded market only).
    feed: Option<Addr<feed::EmbeddedFeed>>,
    feed_ended: Arc<std::sync::atomic::AtomicBool>,
    /// Every RPC feed's status.
    rpc_health: Vec<Arc<rpc_feed::FeedHealth>>,
    /// The node of each chain followed through one.
    nodes: std::collections::BTreeMap<ChainId, Arc<rpc::RpcClient>>,
    /// The chains no node follows answer from the embedded demo market
    /// (not an operator's market file).
    demo: bool,
    /// Moves whenever what quotes read changes.
    changed: Arc<tokio::sync::watch::Sender<u64>>,
    /// The operator's fee on quotes and routes.
    operator_fee: Option<OperatorFee>,
    /// The operator's backend signer of ERC-4337 accounts.
    backend_signer: Option<alloy_primitives::Address>,
    /// The nodes and service bridge status reads.
    bridges: bridge_status::BridgeWatch,
}

/// One RPC feed to start: a factory of the catalog, or one protocol's
/// listed pools, on a node's chain.
struct RpcSource {
    config: rpc_feed::RpcFeedConfig,
    client: Arc<rpc::RpcClient>,
    source: Arc<str>,
    origin: rpc_feed::Origin,
    health: Arc<rpc_feed::FeedHealth>,
    /// The tokens the chain's sources read from the node (one map per
    /// chain).
    discovered: Arc<rpc_feed::Discovered>,
}

impl RpcSource {
    fn start(self, catalog: Arc<Catalog>, hub: Addr<market::PriceCacheActor>) -> rpc_feed::RpcFeed {
        rpc_feed::RpcFeed::new(
            self.config,
            self.client,
            self.source,
            self.origin,
            catalog,
            hub,
            self.health,
            self.discovered,
        )
    }
}

/// The protocol slug of Balancer V2's pools, and the name of the source
/// that follows its Vault (and of the `factories` entry that moves it).
const BALANCER_SOURCE: &str = "balancer-v2";
/// The protocol slug of Curve's StableSwap pools, and the name of the
/// source that follows Curve's registry and factories (and of the
/// `factories` entry that names one list instead of the catalog's).
const CURVE_SOURCE: &str = "curve";

/// The feeds of the configured nodes: one per catalog factory on each
/// node's chain (at the operator's address for it, if given), and one per
/// protocol of the other pools the market lists there (`templates`).
fn rpc_sources(
    catalog: &Catalog,
    configs: &[rpc_feed::RpcFeedConfig],
    templates: &[PoolRecord],
) -> Result<Vec<RpcSource>, EngineError> {
    let mut out = Vec::new();
    for cfg in configs {
        // Fail at start on a URL the client cannot use.
        let client = Arc::new(
            rpc::RpcClient::new(&cfg.url, cfg.timeout)
                .map_err(|e| EngineError::Config(e.to_string()))?,
        );
        let factories: Vec<_> =
            catalog.dex_factories().iter().filter(|f| f.chain_id == cfg.chain).collect();
        let mut listed: std::collections::BTreeMap<&str, Vec<PoolRecord>> = Default::default();
        for t in templates.iter().filter(|t| t.common().chain_id == cfg.chain) {
            listed.entry(t.common().protocol).or_default().push(t.clone());
        }
        // Balancer's Vault, where the catalog has one on the chain (or the
        // operator names one), is followed for its weighted pools.
        let vault = cfg
            .factories
            .iter()
            .find(|(p, _)| p == BALANCER_SOURCE)
            .map(|(_, a)| *a)
            .or_else(|| {
                catalog
                    .deployment(cfg.chain, switchyard_catalog::DeploymentRole::BalancerVault, None)
                    .map(|d| d.address)
            });
        // Curve's registry and factories, where the catalog lists them (or
        // the one list the operator names).
        let curve_lists: Vec<alloy_primitives::Address> =
            match cfg.factories.iter().find(|(p, _)| p == CURVE_SOURCE) {
                Some((_, a)) => vec![*a],
                None => catalog
                    .deployments_on(cfg.chain)
                    .filter(|d| d.role == switchyard_catalog::DeploymentRole::CurvePoolList)
                    .map(|d| d.address)
                    .collect(),
            };
        if factories.is_empty() && listed.is_empty() && vault.is_none() && curve_lists.is_empty() {
            return Err(EngineError::Config(format!(
                "chain {} has a node but neither a DEX factory, a Balancer Vault nor a Curve registry in the catalog, nor a pool in the market",
                cfg.chain
            )));
        }
        let discovered = Arc::new(rpc_feed::Discovered::default());
        let source = |name: &str, origin| {
            let source: Arc<str> = Arc::from(name);
            RpcSource {
                config: cfg.clone(),
                client: Arc::clone(&client),
                discovered: Arc::clone(&discovered),
                health: Arc::new(rpc_feed::FeedHealth::new(cfg.chain, Arc::clone(&source))),
                source,
                origin,
            }
        };
        for (protocol, _) in &cfg.factories {
            if protocol != BALANCER_SOURCE
                && protocol != CURVE_SOURCE
                && !factories.iter().any(|f| &f.protocol == protocol)
            {
                return Err(EngineError::Config(format!(
                    "chain {}: no `{protocol}` factory in the catalog to move",
                    cfg.chain
                )));
            }
        }
        for f in factories {
            let at =
                cfg.factories.iter().find(|(p, _)| *p == f.protocol).map_or(f.factory, |(_, a)| *a);
            out.push(source(&f.protocol, rpc_feed::Origin::Factory { kind: f.kind, factory: at }));
        }
        if let Some(vault) = vault {
            let seeds = listed.remove(BALANCER_SOURCE).unwrap_or_default();
            out.push(source(
                BALANCER_SOURCE,
                rpc_feed::Origin::Balancer { vault, seeds: seeds.into() },
            ));
        }
        if !curve_lists.is_empty() {
            let seeds = listed.remove(CURVE_SOURCE).unwrap_or_default();
            out.push(source(
                CURVE_SOURCE,
                rpc_feed::Origin::Curve { lists: curve_lists.into(), seeds: seeds.into() },
            ));
        }
        for (protocol, records) in listed {
            if out.iter().any(|s| s.config.chain == cfg.chain && &*s.source == protocol) {
                return Err(EngineError::Config(format!(
                    "chain {}: the market lists `{protocol}` pools that are not a factory's",
                    cfg.chain
                )));
            }
            out.push(source(protocol, rpc_feed::Origin::Listed(records.into())));
        }
    }
    Ok(out)
}

/// The server's only way into the engine. Cheap to clone; usable from any
/// async runtime or thread.
#[derive(Clone)]
pub struct EngineHandle {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for EngineHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EngineHandle").finish_non_exhaustive()
    }
}

async fn ask<A, M>(addr: &Addr<A>, msg: M, what: &'static str) -> Result<M::Result, EngineError>
where
    A: Actor + Handler<M>,
    A::Context: actix::dev::ToEnvelope<A, M>,
    M: Message + Send + 'static,
    M::Result: Send,
{
    match tokio::time::timeout(ACTOR_TIMEOUT, addr.send(msg)).await {
        Ok(Ok(r)) => Ok(r),
        Ok(Err(_)) | Err(_) => Err(EngineError::Unavailable(what)),
    }
}

/// The state of `cell` that `at` names, for a request on `chain`.
fn resolve(
    cell: &replay::Published,
    chain: ChainId,
    at: &At,
) -> Result<Arc<MarketState>, replay::ReplayError> {
    match at {
        At::Latest => Ok(cell.load_full()),
        At::Block(b) => cell.at_block(chain, *b),
        At::Views(views) => {
            let mut found = None;
            for v in views {
                let s = cell.view(v.chain, v.block, v.revision)?;
                if views.iter().all(|w| s.view_of(w.chain) == Some(*w)) {
                    found = Some(s);
                    break;
                }
            }
            let first = views.first().map_or((chain, 0), |v| (v.chain, v.block));
            found.ok_or(replay::ReplayError::Expired {
                chain: first.0,
                block: first.1,
                held: cell.blocks(),
            })
        }
    }
}

impl EngineHandle {
    /// The proven market state (catalog, snapshot, prices, and the world
    /// built from that snapshot), one atomic load: transactions are built
    /// and executed on it.
    pub fn state(&self) -> Arc<MarketState> {
        self.inner.state.load_full()
    }

    /// A receiver that wakes whenever a newly published snapshot has its
    /// prices derived (what quotes read is then complete): quote streams
    /// recompute on it. Its value only counts the changes.
    pub fn market_changes(&self) -> tokio::sync::watch::Receiver<u64> {
        self.inner.changed.subscribe()
    }

    /// The newest market state: a new block's snapshot and prices as soon
    /// as they are derived, before its world is built (its world is the
    /// proven state's). Quotes and prices read it.
    pub fn latest(&self) -> Arc<MarketState> {
        self.inner.latest.load_full()
    }

    /// The catalog.
    pub fn catalog(&self) -> Arc<Catalog> {
        Arc::clone(&self.inner.state.load().catalog)
    }

    /// Authenticates a presented API key against the in-memory cache.
    pub fn authenticate(&self, key: &str) -> Result<Arc<KeyRecord>, EngineError> {
        self.inner.key_cache.load().authenticate(key)
    }

    /// Admits (or refuses) one request of `key` under its rate: in this
    /// process, or across every replica sharing the configured Redis.
    pub async fn admit(&self, key: &KeyRecord) -> Result<RateDecision, EngineError> {
        self.admit_n(key, 1).await
    }

    /// Admits (or refuses) `cost` requests of `key` at once, all or none
    /// (a batch of quotes counts one request per quote).
    pub async fn admit_n(&self, key: &KeyRecord, cost: u32) -> Result<RateDecision, EngineError> {
        match &self.inner.shared {
            None => Ok(self.inner.limiter.check_n(key.id, key.rate_per_s, cost)),
            Some(shared) => shared
                .check_n(key.id, key.rate_per_s, cost)
                .await
                .map_err(|e| EngineError::RateStore(e.0)),
        }
    }

    /// Creates a key while the server runs.
    pub async fn create_key(
        &self,
        rate_per_s: f64,
        label: Option<String>,
    ) -> Result<NewKey, EngineError> {
        ask(&self.inner.keys, keys::CreateKey { rate_per_s, label }, "key store").await?
    }

    /// Creates the 1 req/s documentation key if no key exists yet.
    pub async fn ensure_documentation_key(&self) -> Result<Option<NewKey>, EngineError> {
        ask(&self.inner.keys, keys::EnsureDocKey, "key store").await?
    }

    /// Records one routed transaction of `usd` value.
    /// Not awaited: the recorder adds it up and writes in batches, off the
    /// request path (a read through [`Self::volume`] sees it).
    pub fn record_volume(&self, chain: ChainId, usd: f64) {
        self.inner.volume.do_send(volume::RecordVolume { chain, usd });
    }

    /// Routed volume of a chain.
    pub async fn volume(&self, chain: ChainId) -> Result<VolumeStats, EngineError> {
        ask(&self.inner.volume, volume::GetVolume(chain), "volume recorder").await?
    }

    /// Makes one actor panic inside a handler (test-only fault injection):
    /// the answer is the error its callers would see; its supervisor
    /// restarts it.
    #[cfg(feature = "fault-injection")]
    pub async fn crash_actor(&self, which: ActorName) -> Result<(), EngineError> {
        match which {
            ActorName::KeyStore => ask(&self.inner.keys, supervise::Crash, "key store").await?,
            ActorName::VolumeRecorder => {
                ask(&self.inner.volume, supervise::Crash, "volume recorder").await?
            }
            ActorName::PriceCache => {
                ask(&self.inner.prices, supervise::Crash, "price cache").await?
            }
            ActorName::BundleCompiler => {
                ask(&self.inner.bundles, supervise::Crash, "bundle compiler").await?
            }
            ActorName::EmbeddedFeed => {
                let feed =
                    self.inner.feed.as_ref().ok_or(EngineError::Unavailable("embedded feed"))?;
                ask(feed, supervise::Crash, "embedded feed").await?
            }
        }
    }

    /// Publishes a new snapshot; prices are recomputed before it is visible.
    pub async fn publish_snapshot(&self, snapshot: MarketSnapshot) -> Result<(), EngineError> {
        ask(&self.inner.prices, market::PublishSnapshot(Arc::new(snapshot)), "price cache").await
    }

    /// Quotes a route on the current market state (kernel search on the
    /// rayon pool, never on the async runtime).
    pub async fn quote(&self, req: QuoteRequest) -> Result<Quote, EngineError> {
        jobs::quote(self.latest(), self.fee(req)).await
    }

    /// The operator's fee on quotes and routes, and who receives it (a
    /// bundle's `ensofee` action pays that receiver).
    pub fn operator_fee(&self) -> Option<OperatorFee> {
        self.inner.operator_fee
    }

    /// `req` with the operator's fee.
    fn fee(&self, mut req: QuoteRequest) -> QuoteRequest {
        req.operator_fee_bps = self.inner.operator_fee.map_or(0, |f| f.bps);
        req
    }

    /// Quotes every request on one market state (the newest), each its own
    /// job on the rayon pool: the futures resolve as each is done, so a
    /// caller can use the first answers while the rest compute.
    pub fn quote_each(
        &self,
        reqs: Vec<QuoteRequest>,
    ) -> Vec<impl std::future::Future<Output = Result<Quote, EngineError>> + Send + 'static> {
        let state = self.latest();
        reqs.into_iter().map(|r| jobs::quote(Arc::clone(&state), self.fee(r))).collect()
    }

    /// Quotes a route on the state `at` names (a held block, or the views
    /// of an earlier answer: the same state, so the same answer).
    pub async fn quote_at(&self, req: QuoteRequest, at: &At) -> Result<Quote, EngineError> {
        let state = resolve(&self.inner.latest, req.chain, at)?;
        jobs::quote(state, self.fee(req)).await
    }

    /// Quotes a route on the proven state `at` names (a route's quote, on
    /// the state its transaction executed on).
    pub async fn proven_quote_at(&self, req: QuoteRequest, at: &At) -> Result<Quote, EngineError> {
        let state = resolve(&self.inner.state, req.chain, at)?;
        jobs::quote(state, self.fee(req)).await
    }

    /// Quotes one pair at several increasing amounts on one market state,
    /// the search shared across the points (on the rayon pool).
    pub async fn ladder(&self, req: quote::LadderRequest) -> Result<quote::Ladder, EngineError> {
        jobs::ladder(self.latest(), req).await
    }

    /// Quotes every request on one market state, in parallel: each chain's
    /// quotes read the same block. Answers that state's head block per
    /// chain asked about, and each quote or its own error, in order.
    pub async fn quote_batch(&self, reqs: Vec<QuoteRequest>) -> Result<QuoteBatch, EngineError> {
        let state = self.latest();
        let blocks = reqs
            .iter()
            .flat_map(|r| [Some(r.chain), r.destination_chain])
            .flatten()
            .filter_map(|c| Some((c, state.snapshot.head(c)?.block_number)))
            .collect();
        let reqs = reqs.into_iter().map(|r| self.fee(r)).collect();
        let results = jobs::quote_batch(state, reqs).await?;
        Ok(QuoteBatch { blocks, results })
    }

    /// Builds the transaction of a route and executes it in the EVM world
    /// of the same state before returning it (on the rayon pool).
    ///
    /// A route built counts in the chain's routed volume
    /// ([`Self::volume`]).
    pub async fn route(&self, mut req: RouteRequest) -> Result<RouteTx, EngineError> {
        let chain = req.quote.chain;
        req.quote = self.fee(req.quote);
        req.operator_fee_receiver = self.inner.operator_fee.map(|f| f.receiver);
        req.backend_signer = self.inner.backend_signer;
        let state = self.state();
        if req.backend && req.strategy == switchyard_catalog::RoutingStrategy::EnsoWalletV2 {
            req.account_read = self.read_account(&state, chain, req.from).await;
        }
        let r = jobs::route(state, req).await?;
        self.record_volume(chain, r.quote.usd_in.unwrap_or(0.0));
        Ok(r)
    }

    /// Builds the IPOR-style static shortcut, executes it in the EVM world
    /// and checks the shares it mints.
    pub async fn ipor(&self, req: ipor::IporRequest) -> Result<ipor::IporTx, EngineError> {
        jobs::ipor(self.state(), req).await
    }

    /// Builds a route into a non-tokenized position, executes it in the
    /// EVM world and checks the position moved by the quoted amount.
    pub async fn nontokenized(
        &self,
        req: nontokenized::NontokenizedRequest,
    ) -> Result<nontokenized::NontokenizedTx, EngineError> {
        let chain = req.route.quote.chain;
        let r = jobs::nontokenized(self.state(), req).await?;
        self.record_volume(chain, r.route.quote.usd_in.unwrap_or(0.0));
        Ok(r)
    }

    /// Compiles a bundle, builds its transaction and executes it in the
    /// EVM world before returning it (on the rayon pool).
    ///
    /// The positions its `redeemclmm` actions name that the request does
    /// not carry are read first from the node following the chain, at the
    /// block of the state it compiles on ([`Self::read_positions`]).
    pub async fn bundle(
        &self,
        mut req: bundle::BundleRequest,
    ) -> Result<bundle::BundleTx, EngineError> {
        let state = self.state();
        req.backend_signer = self.inner.backend_signer;
        if req.backend && req.strategy == switchyard_catalog::RoutingStrategy::EnsoWalletV2 {
            req.account_read = self.read_account(&state, req.chain, req.from).await;
        }
        self.read_positions(&state, &mut req).await;
        let msg = bundle_service::CompileBundle { state, req };
        ask(&self.inner.bundles, msg, "bundle compiler").await?
    }

    /// The sender's ERC-4337 account (for the operator's backend signer,
    /// else its own) as the node following `chain` holds it at `state`'s
    /// block: absent, or deployed with its owner, signer, EntryPoint and
    /// nonce; within [`POSITION_READ_BUDGET`]. `None` where no node follows
    /// the chain (the world's account is then the one proven: not deployed).
    async fn read_account(
        &self,
        state: &MarketState,
        chain: ChainId,
        from: alloy_primitives::Address,
    ) -> Option<account::AccountRead> {
        use account::AccountRead;
        let node = self.inner.nodes.get(&chain)?;
        let world = state.world.as_ref().ok()?;
        let contracts = world.chain(chain)?.shortcuts.accounts.clone()?;
        let address = contracts.account(from, self.inner.backend_signer.unwrap_or(from));
        let block = state.snapshot.head(chain).map(|h| h.block_number);
        let read = async {
            let code = node.code(address, block).await?;
            if code.is_empty() {
                return Ok(AccountRead::Absent);
            }
            let [owner, signer, entry] = account::read_calls();
            let nonce = account::nonce_call(address);
            let (o, s, e, n) = tokio::join!(
                node.eth_call(address, &owner, block),
                node.eth_call(address, &signer, block),
                node.eth_call(address, &entry, block),
                node.eth_call(contracts.entry_point, &nonce, block),
            );
            let (o, s, e, n) = (o?, s?, e?, n?);
            Ok::<_, rpc::RpcError>(
                match account::decode_held(address, [o.as_ref(), s.as_ref(), e.as_ref()], &n) {
                    Ok(h) => AccountRead::Held(h),
                    Err(why) => AccountRead::Failed(why),
                },
            )
        };
        Some(match tokio::time::timeout(POSITION_READ_BUDGET, read).await {
            Ok(Ok(r)) => r,
            Ok(Err(e)) => AccountRead::Failed(format!("the chain's node refused the read: {e}")),
            Err(_) => AccountRead::Failed(format!(
                "the chain's node did not answer within {} s",
                POSITION_READ_BUDGET.as_secs()
            )),
        })
    }

    /// Reads each position `req`'s `redeemclmm` actions name (and `req`
    /// does not carry) from the node following `req.chain`, at `state`'s
    /// block there: the manager's `positions` and `ownerOf`, within
    /// [`POSITION_READ_BUDGET`] for all of them together (they run at
    /// once). A chain no node follows gets no reads
    /// (the compiler then says so); a failed read is kept with its reason.
    async fn read_positions(&self, state: &MarketState, req: &mut bundle::BundleRequest) {
        let wanted = req.positions_to_read();
        if wanted.is_empty() {
            return;
        }
        let Some(node) = self.inner.nodes.get(&req.chain) else { return };
        let block = state.snapshot.head(req.chain).map(|h| h.block_number);
        // Every read at once, under one budget.
        let mut reads = tokio::task::JoinSet::new();
        for (manager, token_id) in wanted {
            if req.positions.iter().any(|p| p.manager == manager && p.token_id == token_id) {
                continue;
            }
            let node = Arc::clone(node);
            reads.spawn(async move {
                let [positions, owner] = evm::clmm::read_calls(token_id);
                let (p, o) = tokio::join!(
                    node.eth_call(manager, &positions, block),
                    node.eth_call(manager, &owner, block)
                );
                let read = match (p, o) {
                    (Ok(p), Ok(o)) => evm::clmm::decode_read(manager, token_id, &p, &o),
                    (Err(e), _) | (_, Err(e)) => {
                        Err(format!("the chain's node refused the read: {e}"))
                    }
                };
                bundle::PositionRead { manager, token_id, read }
            });
        }
        let deadline = tokio::time::Instant::now() + POSITION_READ_BUDGET;
        let mut done = Vec::new();
        while let Ok(Some(joined)) = tokio::time::timeout_at(deadline, reads.join_next()).await {
            if let Ok(read) = joined {
                done.push(read);
            }
        }
        reads.abort_all();
        for (manager, token_id) in req.positions_to_read() {
            if req.positions.iter().any(|p| p.manager == manager && p.token_id == token_id) {
                continue;
            }
            let read = done
                .iter()
                .position(|p| p.manager == manager && p.token_id == token_id)
                .map(|k| done.swap_remove(k));
            req.positions.push(read.unwrap_or_else(|| bundle::PositionRead {
                manager,
                token_id,
                read: Err(format!(
                    "the chain's node did not answer within {} s",
                    POSITION_READ_BUDGET.as_secs()
                )),
            }));
        }
    }

    /// The approval `from` sends so that `strategy` can take `amount` of
    /// `token`: to the strategy's router or the caller's wallet, never to
    /// an executor; its gas measured in the world.
    pub async fn approve(
        &self,
        chain: ChainId,
        from: alloy_primitives::Address,
        token: alloy_primitives::Address,
        amount: alloy_primitives::U256,
        strategy: switchyard_catalog::RoutingStrategy,
    ) -> Result<wallet::ApproveTx, EngineError> {
        let state = self.state();
        jobs::on_pool("approval", move || {
            Ok(wallet::approve_now(&state, chain, from, token, amount, strategy)?)
        })
        .await
    }

    /// The non-zero balances of `eoa` (or of its wallet) on `chain`, or on
    /// every chain: read from the chain's node where one is configured,
    /// else in the proven state's world.
    pub async fn balances(
        &self,
        chain: Option<ChainId>,
        eoa: alloy_primitives::Address,
        use_eoa: bool,
    ) -> Result<Vec<wallet::Balance>, EngineError> {
        let state = self.state();
        let chains: Vec<ChainId> = match chain {
            Some(c) => vec![c],
            None => {
                let mut all: std::collections::BTreeSet<ChainId> =
                    state.snapshot.heads().keys().copied().collect();
                all.extend(self.inner.nodes.keys().copied());
                all.into_iter().collect()
            }
        };
        let (on_nodes, in_world): (Vec<ChainId>, Vec<ChainId>) =
            chains.into_iter().partition(|c| self.inner.nodes.contains_key(c));
        let mut out = Vec::new();
        if !in_world.is_empty() {
            let st = Arc::clone(&state);
            let found = jobs::on_pool("balances", move || {
                Ok(wallet::balances_now(&st, &in_world, eoa, use_eoa)?)
            })
            .await?;
            out.extend(found);
        }
        for c in on_nodes {
            if let Some(node) = self.inner.nodes.get(&c) {
                out.extend(jobs::node_balances(&state, c, node, eoa, use_eoa).await?);
            }
        }
        out.sort_by_key(|b| b.chain);
        Ok(out)
    }

    /// Where the LayerZero message (a Stargate taxi) of source
    /// transaction `tx` on `chain` is, read from the chains' nodes.
    pub async fn layerzero_status(
        &self,
        chain: ChainId,
        tx: alloy_primitives::B256,
    ) -> bridge_status::LzTransfer {
        let catalog = self.catalog();
        self.inner.bridges.layerzero(&catalog, chain, tx).await
    }

    /// Where the CCTP transfer of source transaction `tx` on `chain` is,
    /// read from the chains' nodes and the attestation service.
    pub async fn cctp_status(
        &self,
        chain: ChainId,
        tx: alloy_primitives::B256,
    ) -> bridge_status::CctpTransfer {
        let catalog = self.catalog();
        self.inner.bridges.cctp(&catalog, chain, tx).await
    }

    /// The claim transaction of the CCTP transfer of `tx` on `chain`, or
    /// the destination chain (when known) and why there is none.
    pub async fn cctp_claim(
        &self,
        chain: ChainId,
        tx: alloy_primitives::B256,
    ) -> Result<bridge_status::CctpClaim, (Option<ChainId>, String)> {
        let catalog = self.catalog();
        self.inner.bridges.cctp_claim(&catalog, chain, tx).await
    }

    /// Whether a node follows `chain` (its pools and head are live).
    pub fn follows(&self, chain: ChainId) -> bool {
        self.inner.nodes.contains_key(&chain)
    }

    /// Whether `chain` answers from the embedded demo market: recorded
    /// data, not a live one.
    pub fn is_demo(&self, chain: ChainId) -> bool {
        self.inner.demo && !self.follows(chain)
    }

    /// Status of every feed: the demo feed (or the market file) per chain
    /// no node follows, at the published head (`ended` once the demo's
    /// recorded stream has run out, or for a market file, which nothing
    /// moves); then every RPC feed.
    pub fn feeds(&self) -> Vec<FeedStatus> {
        let state = self.inner.latest.load();
        let ended = self.inner.feed_ended.load(std::sync::atomic::Ordering::Relaxed);
        let embedded: Arc<str> = Arc::from(if self.inner.demo { "demo" } else { "file" });
        let mut out: Vec<FeedStatus> = state
            .snapshot
            .heads()
            .iter()
            .filter(|(chain, _)| self.inner.rpc_health.iter().all(|h| h.chain != **chain))
            .map(|(chain, head)| FeedStatus {
                chain: *chain,
                source: Arc::clone(&embedded),
                state: if ended { FeedState::Ended } else { FeedState::Ready },
                head_block: head.block_number,
                lag_blocks: 0,
                lag_seconds: 0.0,
                progress: None,
            })
            .collect();
        for h in &self.inner.rpc_health {
            let (state, head_block, lag_blocks, lag_seconds) = h.read();
            out.push(FeedStatus {
                chain: h.chain,
                source: Arc::clone(&h.source),
                state,
                head_block,
                lag_blocks,
                lag_seconds,
                progress: (state == FeedState::Indexing).then(|| h.progress()).flatten(),
            });
        }
        out
    }

    /// Replays the next `n` recorded blocks of the embedded feed and
    /// publishes the result; returns how many were replayed (fewer at the
    /// end of the stream) once requests see the new state.
    pub async fn step_blocks(&self, n: usize) -> Result<usize, EngineError> {
        let feed = self.inner.feed.as_ref().ok_or(EngineError::Unavailable("embedded feed"))?;
        ask(feed, feed::StepBlocks(n), "embedded feed").await?
    }

    /// Whether the engine can serve requests.
    pub fn ready(&self) -> bool {
        self.inner.keys.connected()
            && self.inner.volume.connected()
            && self.inner.prices.connected()
            && self.inner.bundles.connected()
            && self.inner.feed.as_ref().is_none_or(Addr::connected)
    }
}
