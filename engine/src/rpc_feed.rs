//! The RPC feed: follows one liquidity source (a DEX factory of the
//! catalog, or one protocol's pools the market lists) on one chain through
//! an Ethereum JSON-RPC node. A listed source reads its pools' state at each
//! new head ([`crate::listed`]); the rest of this page is a factory's.
//!
//! - **Discovery:** the factory's `PairCreated` / `PoolCreated` logs, from
//!   the configured first block, in ranges of `log_range` blocks. Pools of
//!   tokens the catalog does not list on the chain are left out (counted in
//!   the log).
//! - **Initial state:** one `eth_call` per batch, pinned to one block, of
//!   the [`PoolLens`](crate::evm::artifacts::Artifact::PoolLens) initcode:
//!   never deployed, its constructor reads V2 reserves and V3 prices,
//!   liquidity and every initialized tick, and returns them. A progress bar
//!   shows it on a terminal.
//! - **Following the chain:** every `poll`, `eth_blockNumber`, the headers
//!   of the new blocks (one batch) and their logs: `Sync` (V2 reserves;
//!   `Swap`, `Mint` and `Burn` of a pair always end in one), the new pairs
//!   and pools, and the V3 `Initialize`, `Swap`, `Mint` and `Burn` (price,
//!   liquidity and ticks, exactly as the pool's own bookkeeping moves them).
//! - **Reorgs:** the last `reorg_depth` blocks are kept with their hashes
//!   and the pool states after them. A head whose hash changed, or a new
//!   block whose parent is not ours, rolls back to the newest kept block
//!   the node still has, then replays from there. Deeper than that (or a
//!   node that restarted on a new chain), the source is indexed again.
//! - **Failures:** a node that is down, slow or answering errors is retried
//!   with backoff (doubling from `poll` to [`MAX_RETRY`]). The feed's state
//!   goes `delayed`, then `stale` past `stale_after` without a good answer:
//!   its pools are then left out of routing (a request that needed them
//!   gets 503 `STALE_MARKET`), with an error in the log. The first good
//!   answer makes it `ready` again.
//!
//! Every change is published to the [`PriceCacheActor`]: the source's pool
//! records replace the previous ones and the state (prices, the EVM world)
//! is rebuilt off the actor thread before readers see it.

use std::{
    collections::{BTreeMap, VecDeque},
    sync::{Arc, Mutex},
    time::{Duration, Instant},
};

use actix::prelude::*;
use alloy_primitives::{Address, B256, U64, U256};
use alloy_sol_types::{SolEvent, sol};
use switchyard_catalog::{
    Catalog, ChainId, FactoryKind, PoolRecord,
    market::{ChainState, TickRecord, UniswapV2Record, UniswapV3Record},
};
use switchyard_kernel::PoolState;
use switchyard_kernel::amm::uniswap_v3::Ledger;

use crate::{
    FeedState,
    evm::artifacts::Artifact,
    market::{MovedPool, PriceCacheActor, ReplaceSource, SetStale, SourcePools},
    rpc::{Header, Log, LogFilter, RpcClient, RpcError},
};

/// The longest wait between retries of a failing node.
pub const MAX_RETRY: Duration = Duration::from_secs(5);
/// At most this many new blocks are read per step (a feed catching up
/// publishes every this many blocks).
const MAX_BLOCKS_PER_STEP: u64 = 200;
/// A `eth_getLogs` names the emitters when there are at most this many
/// (else it asks for the event signatures alone and filters here).
const MAX_FILTER_ADDRESSES: usize = 1000;
/// Getter calls of one batch `eth_call` (a V2 pair's reserves, a V3
/// pool's price or liquidity, a tick, a bitmap word): each costs a few
/// thousand gas, far below [`crate::rpc::BATCH_CALL_GAS`], and a node that
/// traces the call's steps (Hardhat) slows per step as a call grows.
const GETTERS_PER_CALL: usize = 512;
/// The V2 swap fee of a Uniswap V2 factory's pairs, in bps.
const V2_FEE_BPS: u32 = 30;
/// Uniswap V3's tick bounds.
const MIN_TICK: i32 = -887_272;
const MAX_TICK: i32 = 887_272;

sol! {
    event PairCreated(address indexed token0, address indexed token1, address pair, uint256 count);
    event Sync(uint112 reserve0, uint112 reserve1);
    event PoolCreated(address indexed token0, address indexed token1, uint24 indexed fee, int24 tickSpacing, address pool);
    event Initialize(uint160 sqrtPriceX96, int24 tick);
    event Swap(address indexed sender, address indexed recipient, int256 amount0, int256 amount1, uint160 sqrtPriceX96, uint128 liquidity, int24 tick);
    event Mint(address sender, address indexed owner, int24 indexed tickLower, int24 indexed tickUpper, uint128 amount, uint256 amount0, uint256 amount1);
    event Burn(address indexed owner, int24 indexed tickLower, int24 indexed tickUpper, uint128 amount, uint256 amount0, uint256 amount1);
    event PoolRegistered(bytes32 indexed poolId, address indexed poolAddress, uint8 specialization);
    event TokensRegistered(bytes32 indexed poolId, address[] tokens, address[] assetManagers);

}

/// One chain's node, as the operator configured it.
#[derive(Debug, Clone)]
pub struct RpcFeedConfig {
    /// Chain.
    pub chain: ChainId,
    /// `http://host:port/path` of the node.
    pub url: String,
    /// How often the node is asked for a new block.
    pub poll: Duration,
    /// Without a good answer for this long the feed is `delayed`.
    pub delayed_after: Duration,
    /// Without a good answer for this long the feed is `stale`, and its
    /// pools are not routed through.
    pub stale_after: Duration,
    /// Blocks kept for rolling back a reorg.
    pub reorg_depth: u64,
    /// First block searched for the factories' pools.
    pub from_block: u64,
    /// Blocks per discovery `eth_getLogs`.
    pub log_range: u64,
    /// Timeout of one JSON-RPC call.
    pub timeout: Duration,
    /// Factory addresses to use instead of the catalog's, by protocol.
    pub factories: Vec<(String, Address)>,
}

impl RpcFeedConfig {
    /// The defaults for a chain's node at `url`.
    pub fn new(chain: ChainId, url: impl Into<String>) -> Self {
        Self {
            chain,
            url: url.into(),
            poll: Duration::from_secs(1),
            delayed_after: Duration::from_secs(30),
            stale_after: Duration::from_secs(60),
            reorg_depth: 64,
            from_block: 0,
            log_range: 10_000,
            timeout: Duration::from_secs(10),
            factories: Vec::new(),
        }
    }
}

/// Why a step of the feed failed (it is retried).
#[derive(Debug, thiserror::Error)]
pub enum FeedError {
    /// The node failed.
    #[error(transparent)]
    Rpc(#[from] RpcError),
    /// The node is on another chain.
    #[error("the node at {url} is on chain {found}, not {expected}")]
    WrongChain {
        /// URL.
        url: String,
        /// Configured chain.
        expected: u64,
        /// The node's.
        found: u64,
    },
    /// The node's answers disagree with each other (a reorg while
    /// reading): read again.
    #[error("inconsistent answers: {0}")]
    Inconsistent(String),
    /// The batch reader's answer could not be decoded.
    #[error("pool state batch: {0}")]
    Lens(String),
}

/// What `/ready` and `/metrics` show of one feed; shared between the actor
/// and the engine handle.
#[derive(Debug)]
pub(crate) struct FeedHealth {
    pub(crate) chain: ChainId,
    pub(crate) source: Arc<str>,
    inner: Mutex<HealthInner>,
}

#[derive(Debug, Clone, Copy)]
struct HealthInner {
    state: FeedState,
    head: u64,
    node_head: u64,
    /// Readers see the source's pools (its first publication is done).
    published: bool,
    /// The indexing step's progress, while one runs.
    progress: Option<crate::IndexProgress>,
    /// Since when the published head is behind the node's (`None`: it is
    /// not).
    behind_since: Option<std::time::Instant>,
}

impl FeedHealth {
    pub(crate) fn new(chain: ChainId, source: Arc<str>) -> Self {
        Self {
            chain,
            source,
            inner: Mutex::new(HealthInner {
                state: FeedState::Indexing,
                head: 0,
                node_head: 0,
                published: false,
                progress: None,
                behind_since: None,
            }),
        }
    }

    /// `(state, head block, blocks behind the node, seconds since the
    /// published head fell behind the node's)`.
    pub(crate) fn read(&self) -> (FeedState, u64, u64, f64) {
        let h = *self.inner.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let behind = h.behind_since.map_or(0.0, |t| t.elapsed().as_secs_f64());
        (h.state, h.head, h.node_head.saturating_sub(h.head), behind)
    }

    /// How far indexing is, while it runs.
    pub(crate) fn progress(&self) -> Option<crate::IndexProgress> {
        self.inner.lock().unwrap_or_else(std::sync::PoisonError::into_inner).progress
    }

    /// Records indexing progress (`None`: done).
    fn set_progress(&self, phase: &'static str, done: u64, total: u64) {
        self.update(|h| h.progress = Some(crate::IndexProgress { phase, done, total }));
    }

    fn update(&self, f: impl FnOnce(&mut HealthInner)) {
        let mut h = self.inner.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        f(&mut h);
        if h.node_head <= h.head {
            h.behind_since = None;
        } else if h.behind_since.is_none() {
            h.behind_since = Some(std::time::Instant::now());
        }
    }
}

/// One V3 pool as the feed tracks it: its tokens, and the kernel's ledger
/// its events move.
#[derive(Debug, Clone, PartialEq, Eq)]
struct V3Pool {
    token0: Address,
    token1: Address,
    ledger: Ledger,
}

/// One pool as the feed tracks it.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Tracked {
    V2 { token0: Address, token1: Address, reserves: [U256; 2] },
    V3(V3Pool),
}

impl Tracked {
    /// Whether the pool has liquidity to route through (V2: both reserves;
    /// V3: a price and an initialized tick).
    fn routable(&self) -> bool {
        match self {
            Self::V2 { reserves, .. } => {
                // Both reserves, each within the pair's `uint112` (a node
                // telling of more is not believed).
                let max = switchyard_kernel::amm::uniswap_v2::MAX_RESERVE;
                reserves.iter().all(|r| !r.is_zero() && *r <= max)
            }
            Self::V3(v) => v.ledger.routable(),
        }
    }

    /// The pool's state for the kernel (`None`: a V2 reserve past
    /// `uint112`, which [`Self::routable`] keeps from publication).
    fn state(&self) -> Option<PoolState> {
        match self {
            Self::V2 { reserves, .. } => PoolState::uniswap_v2(*reserves, V2_FEE_BPS),
            Self::V3(v) => Some(v.ledger.state()),
        }
    }

    /// The pool's two tokens.
    const fn tokens(&self) -> [Address; 2] {
        match self {
            Self::V2 { token0, token1, .. } => [*token0, *token1],
            Self::V3(v) => [v.token0, v.token1],
        }
    }
}

type Pools = BTreeMap<Address, Arc<Tracked>>;

/// What one block changed in a factory source's pools: each pool's value
/// before it (`None`: the block created it), to roll the block back.
type Undo = Vec<(Address, Option<Arc<Tracked>>)>;

/// The indexed source: its pools at `head`, and the recent blocks for
/// rolling back. Owned by one step at a time: a block's logs change the
/// pools in place, and each block keeps only what it changed.
#[derive(Debug)]
struct Book {
    pools: Pools,
    /// A listed source's pools that read well at `head`.
    listed: Arc<[PoolRecord]>,
    /// When the node's answers for the last step were in (the logs, or the
    /// state reads): publication measures from here.
    read_at: Option<Instant>,
    /// The pools the last step moved, when that is all it did (no pool
    /// created, none starting or stopping to be routable, no token read):
    /// those alone are published. `None`: publish them all.
    moved: Option<Arc<[Address]>>,
    /// A read of new pools' tokens failed: asked again at the next step.
    tokens_due: bool,
    head: Header,
    /// `(header, what that block changed)`, oldest first, at most
    /// `reorg_depth`.
    history: VecDeque<(Header, Undo)>,
}

impl Book {
    /// A freshly indexed source's book at `header`: a factory's `pools`, or
    /// a listed or Balancer source's `listed`.
    fn new(pools: Pools, listed: Arc<[PoolRecord]>, header: Header, depth: u64) -> Self {
        let mut book = Self {
            pools,
            listed,
            read_at: None,
            moved: None,
            tokens_due: false,
            head: header,
            history: VecDeque::new(),
        };
        book.push(header, Undo::new(), depth);
        book
    }

    fn push(&mut self, header: Header, undo: Undo, depth: u64) {
        self.head = header;
        self.history.push_back((header, undo));
        while self.history.len() as u64 > depth.max(1) {
            self.history.pop_front();
        }
    }

    /// Undoes the blocks after `history[k]`, newest first.
    fn roll_back_to(&mut self, k: usize) {
        while self.history.len() > k + 1 {
            let Some((_, undo)) = self.history.pop_back() else { break };
            for (address, before) in undo.into_iter().rev() {
                match before {
                    Some(p) => {
                        self.pools.insert(address, p);
                    }
                    None => {
                        self.pools.remove(&address);
                    }
                }
            }
        }
        if let Some((header, _)) = self.history.back() {
            self.head = *header;
        }
    }
}

/// Where a source's pools come from.
#[derive(Debug, Clone)]
pub(crate) enum Origin {
    /// Found from a DEX factory's creation events and followed through
    /// their pools' logs.
    Factory {
        /// Uniswap V2 or V3.
        kind: FactoryKind,
        /// Its address on the chain.
        factory: Address,
    },
    /// Listed by the market (templates whose moving state is read from the
    /// node at each head; [`crate::listed`]).
    Listed(Arc<[PoolRecord]>),
    /// The Balancer V2 Vault: weighted pools found from its
    /// `PoolRegistered`/`TokensRegistered` events (and the market's listed
    /// ones), read from the node at each head as listed pools are.
    Balancer {
        /// The Vault's address on the chain.
        vault: Address,
        /// The weighted pools the market lists.
        seeds: Arc<[PoolRecord]>,
    },
    /// Curve's registry and factories: StableSwap pools found from their
    /// `pool_list` (and the market's listed ones), each proven to price as
    /// the kernel computes before it is used, then read from the node at
    /// each head as listed pools are ([`crate::curve_lists`]).
    Curve {
        /// The registries' and factories' addresses on the chain.
        lists: Arc<[Address]>,
        /// The StableSwap pools the market lists.
        seeds: Arc<[PoolRecord]>,
    },
}

/// What the feed knows of its source, for the async steps.
#[derive(Debug)]
struct Spec {
    config: RpcFeedConfig,
    source: Arc<str>,
    /// What `/ready` shows of the feed (indexing progress is set here).
    health: Arc<FeedHealth>,
    origin: Origin,
    catalog: Arc<Catalog>,
    /// Tokens no catalog lists, read from the node: their entry, or `None`
    /// when unusable (their pools stay out). Shared by the chain's sources,
    /// so a token is read and probed once per chain.
    discovered: Arc<Discovered>,
    /// The listed pools (by address and last token) whose last read failed.
    failing: Mutex<std::collections::BTreeSet<(Address, Address)>>,
    /// A Balancer source's pools by id: weighted ones (their templates, the
    /// tokens as registered), and `None` for those that are not weighted.
    /// (A Curve source keys its pools by their address, left-padded.)
    found: Mutex<BTreeMap<B256, Option<PoolRecord>>>,
    /// A Curve source's lists, by address: the count last read.
    counted: Mutex<BTreeMap<Address, u64>>,
    /// Tokens read from the node whose pools held none to probe a transfer
    /// with yet: probed again when something moves.
    unprobed: Mutex<std::collections::HashMap<Address, switchyard_catalog::Token>>,
}

impl Spec {
    /// The tokens of `tokens` neither the catalog lists nor the node was
    /// asked about yet.
    fn unread(&self, tokens: impl Iterator<Item = Address>) -> Vec<Address> {
        let Ok(d) = self.discovered.lock() else { return Vec::new() };
        let Ok(waiting) = self.unprobed.lock() else { return Vec::new() };
        let mut out: Vec<Address> = tokens
            .filter(|t| {
                self.catalog.token(self.config.chain, *t).is_none()
                    && !d.contains_key(t)
                    && !waiting.contains_key(t)
            })
            .collect();
        out.sort();
        out.dedup();
        out
    }

    /// Whether any token read from the node waits for a holder to probe it
    /// with.
    fn awaits_probe(&self) -> bool {
        self.unprobed.lock().is_ok_and(|u| !u.is_empty())
    }

    /// The usable tokens read from the node.
    fn discovered_tokens(&self) -> Vec<switchyard_catalog::Token> {
        self.discovered.lock().map(|d| d.values().flatten().cloned().collect()).unwrap_or_default()
    }

    /// The factory, for a source that has one.
    const fn factory(&self) -> Option<(FactoryKind, Address)> {
        match &self.origin {
            Origin::Factory { kind, factory } => Some((*kind, *factory)),
            Origin::Listed(_) | Origin::Balancer { .. } | Origin::Curve { .. } => None,
        }
    }

    fn creation_topic(&self) -> B256 {
        match self.factory() {
            Some((FactoryKind::UniswapV2, _)) => PairCreated::SIGNATURE_HASH,
            Some((FactoryKind::UniswapV3, _)) => PoolCreated::SIGNATURE_HASH,
            None => B256::ZERO,
        }
    }

    fn state_topics(&self) -> Vec<B256> {
        match self.factory() {
            None => Vec::new(),
            Some((FactoryKind::UniswapV2, _)) => {
                vec![PairCreated::SIGNATURE_HASH, Sync::SIGNATURE_HASH]
            }
            Some((FactoryKind::UniswapV3, _)) => vec![
                PoolCreated::SIGNATURE_HASH,
                Initialize::SIGNATURE_HASH,
                Swap::SIGNATURE_HASH,
                Mint::SIGNATURE_HASH,
                Burn::SIGNATURE_HASH,
            ],
        }
    }

    /// A new pool from a creation log of the factory (its tokens are read
    /// from the node when no catalog lists them).
    fn created(&self, log: &Log) -> Option<(Address, Tracked)> {
        let (kind, factory) = self.factory()?;
        if log.address != factory {
            return None;
        }
        Some(match kind {
            FactoryKind::UniswapV2 => {
                let e = PairCreated::decode_raw_log(log.topics.iter().copied(), &log.data).ok()?;
                let t =
                    Tracked::V2 { token0: e.token0, token1: e.token1, reserves: [U256::ZERO; 2] };
                (e.pair, t)
            }
            FactoryKind::UniswapV3 => {
                let e = PoolCreated::decode_raw_log(log.topics.iter().copied(), &log.data).ok()?;
                let spacing = i32::try_from(e.tickSpacing).ok().filter(|s| *s > 0)?;
                let t = Tracked::V3(V3Pool {
                    token0: e.token0,
                    token1: e.token1,
                    ledger: Ledger::new(e.fee.to::<u32>(), spacing),
                });
                (e.pool, t)
            }
        })
    }

    /// The pools of `pools` that can be routed through: every token a
    /// catalog token or one read from the node and usable, and liquidity.
    fn publishable<'a>(
        &self,
        pools: impl Iterator<Item = (&'a Address, &'a Arc<Tracked>)>,
    ) -> Vec<(&'a Address, &'a Arc<Tracked>)> {
        let chain_id = self.config.chain;
        let Ok(discovered) = self.discovered.lock() else { return Vec::new() };
        let known = |t: Address| {
            self.catalog.token(chain_id, t).is_some()
                || discovered.get(&t).is_some_and(Option::is_some)
        };
        pools.filter(|(_, p)| p.tokens().into_iter().all(known) && p.routable()).collect()
    }

    /// The records of `pools` that can be routed through.
    fn records_of<'a>(
        &self,
        pools: impl Iterator<Item = (&'a Address, &'a Arc<Tracked>)>,
    ) -> Vec<PoolRecord> {
        let chain_id = self.config.chain;
        let protocol = self.source.to_string();
        self.publishable(pools)
            .into_iter()
            .map(|(address, p)| match p.as_ref() {
                Tracked::V2 { token0, token1, reserves } => {
                    PoolRecord::UniswapV2(UniswapV2Record {
                        chain_id,
                        address: *address,
                        protocol: protocol.clone(),
                        token0: *token0,
                        token1: *token1,
                        reserve0: reserves[0],
                        reserve1: reserves[1],
                        fee_bps: V2_FEE_BPS,
                        lp_supply: None,
                        k_last: None,
                        fee_on: false,
                    })
                }
                Tracked::V3(v) => PoolRecord::UniswapV3(UniswapV3Record {
                    chain_id,
                    address: *address,
                    protocol: protocol.clone(),
                    token0: v.token0,
                    token1: v.token1,
                    fee: v.ledger.fee,
                    tick_spacing: v.ledger.tick_spacing,
                    sqrt_price_x96: v.ledger.sqrt_price_x96,
                    tick: v.ledger.tick,
                    liquidity: v.ledger.liquidity,
                    ticks: v
                        .ledger
                        .ticks
                        .iter()
                        .map(|(i, (_, net))| TickRecord { index: *i, liquidity_net: *net })
                        .collect(),
                }),
            })
            .collect()
    }

    /// What a source publishes at `book`'s head: the pools that moved, as
    /// kernel states, when that is all the step did; else every pool, as
    /// records.
    fn publication(&self, book: &Book) -> SourcePools {
        match (&self.origin, &book.moved) {
            (Origin::Factory { .. }, Some(moved)) => SourcePools::Moved(
                self.publishable(moved.iter().filter_map(|a| book.pools.get_key_value(a)))
                    .into_iter()
                    .filter_map(|(address, p)| {
                        Some(MovedPool {
                            address: *address,
                            tokens: p.tokens().to_vec(),
                            state: p.state()?,
                        })
                    })
                    .collect(),
            ),
            (Origin::Factory { .. }, None) => SourcePools::All(self.records_of(book.pools.iter())),
            // The same listed pools as at the last publication: their
            // states (a record no state holds goes whole, for the build to
            // refuse with its reason).
            (_, Some(_)) => match book.listed.iter().map(MovedPool::of).collect() {
                Some(moved) => SourcePools::Moved(moved),
                None => SourcePools::All(book.listed.to_vec()),
            },
            (_, None) => SourcePools::All(book.listed.to_vec()),
        }
    }
}

/// Applies one state log to `pools`; returns the pool's value before it
/// when anything changed (`Some(None)`: the log created the pool).
fn apply_log(spec: &Spec, pools: &mut Pools, log: &Log) -> Option<Option<Arc<Tracked>>> {
    if let Some((address, tracked)) = spec.created(log) {
        if pools.contains_key(&address) {
            return None;
        }
        pools.insert(address, Arc::new(tracked));
        return Some(None);
    }
    let current = pools.get(&log.address)?;
    let topics = log.topics.iter().copied();
    let next = match current.as_ref() {
        Tracked::V2 { token0, token1, .. } => {
            let e = Sync::decode_raw_log(topics, &log.data).ok()?;
            Tracked::V2 {
                token0: *token0,
                token1: *token1,
                reserves: [U256::from(e.reserve0), U256::from(e.reserve1)],
            }
        }
        Tracked::V3(v) => {
            let mut v = v.clone();
            let topic0 = log.topics.first().copied().unwrap_or_default();
            if topic0 == Initialize::SIGNATURE_HASH {
                let e = Initialize::decode_raw_log(topics, &log.data).ok()?;
                v.ledger.initialize(U256::from(e.sqrtPriceX96), e.tick.as_i32());
            } else if topic0 == Swap::SIGNATURE_HASH {
                let e = Swap::decode_raw_log(topics, &log.data).ok()?;
                v.ledger.swap(U256::from(e.sqrtPriceX96), e.liquidity, e.tick.as_i32());
            } else if topic0 == Mint::SIGNATURE_HASH {
                let e = Mint::decode_raw_log(topics, &log.data).ok()?;
                v.ledger.modify_position(
                    e.tickLower.as_i32(),
                    e.tickUpper.as_i32(),
                    e.amount,
                    true,
                );
            } else if topic0 == Burn::SIGNATURE_HASH {
                let e = Burn::decode_raw_log(topics, &log.data).ok()?;
                v.ledger.modify_position(
                    e.tickLower.as_i32(),
                    e.tickUpper.as_i32(),
                    e.amount,
                    false,
                );
            } else {
                return None;
            }
            Tracked::V3(v)
        }
    };
    if *current.as_ref() == next {
        return None;
    }
    Some(pools.insert(log.address, Arc::new(next)))
}

/// The tick-bitmap words of a pool with `spacing`, as the pool's
/// `TickBitmap.position` places them.
fn word_range(spacing: i32) -> (i32, i32) {
    let compress = |t: i32| t.div_euclid(spacing);
    (compress(MIN_TICK) >> 8, compress(MAX_TICK) >> 8)
}

/// The result of one step, for the actor.
enum Step {
    /// Indexed from scratch: publish everything.
    Indexed { book: Book, node_head: u64 },
    /// Followed to a new head (or rolled back); publish when `changed`.
    Followed { book: Book, node_head: u64, changed: bool },
    /// The book no longer matches the node beyond `reorg_depth`: index
    /// again.
    Lost { why: String },
}

/// What following did to a book.
enum Moved {
    /// It is at a new head (or rolled back); `changed`: a pool moved.
    To { node_head: u64, changed: bool },
    /// It no longer matches the node beyond `reorg_depth`.
    Lost { why: String },
}

async fn index(spec: &Spec, client: &RpcClient) -> Result<Step, FeedError> {
    let chain = client.chain_id().await?;
    if chain != spec.config.chain.0 {
        return Err(FeedError::WrongChain {
            url: client.url().to_owned(),
            expected: spec.config.chain.0,
            found: chain,
        });
    }
    let node_head = client.block_number().await?;
    let header = client
        .headers(&[node_head])
        .await?
        .pop()
        .flatten()
        .ok_or_else(|| FeedError::Inconsistent(format!("block {node_head} vanished")))?;
    let head = header.number.to::<u64>();
    let factory = match &spec.origin {
        Origin::Factory { factory, .. } => *factory,
        Origin::Listed(_) | Origin::Balancer { .. } | Origin::Curve { .. } => {
            spec.counted.lock().unwrap_or_else(std::sync::PoisonError::into_inner).clear();
            let seeds: Vec<(B256, PoolRecord)> = match &spec.origin {
                Origin::Balancer { seeds, .. } => seeds
                    .iter()
                    .filter_map(|s| match s {
                        PoolRecord::Weighted(w) => Some((w.pool_id.unwrap_or_default(), s.clone())),
                        _ => None,
                    })
                    .collect(),
                Origin::Curve { seeds, .. } => {
                    seeds.iter().map(|s| (curve_key(s.common().address), s.clone())).collect()
                }
                Origin::Listed(_) | Origin::Factory { .. } => Vec::new(),
            };
            *spec.found.lock().unwrap_or_else(std::sync::PoisonError::into_inner) =
                seeds.into_iter().map(|(k, s)| (k, Some(s))).collect();
            let listed = read_source(spec, client, spec.config.from_block.min(head), head).await?;
            read_listed_tokens(spec, client, &listed, head, true).await?;
            let book = Book::new(Pools::new(), listed, header, spec.config.reorg_depth);
            return Ok(Step::Indexed { book, node_head });
        }
    };
    // Discovery: the pools, and for V3 every tick a position was minted at
    // since the pool's creation (a superset of its initialized ticks).
    let mut pools = Pools::new();
    let mut minted: std::collections::HashMap<Address, std::collections::BTreeSet<i32>> =
        Default::default();
    let v3 = matches!(spec.factory(), Some((FactoryKind::UniswapV3, _)));
    let range = spec.config.log_range.max(1);
    let first = spec.config.from_block.min(head);
    let mut from = first;
    let blocks = head - first + 1;
    while from <= head {
        spec.health.set_progress("discovery", from - first, blocks);
        let to = from.saturating_add(range - 1).min(head);
        let logs = client
            .logs(&LogFilter {
                from_block: U64::from(from),
                to_block: U64::from(to),
                address: Some(vec![factory]),
                topics: vec![vec![spec.creation_topic()]],
            })
            .await?;
        for log in &logs {
            if let Some((a, t)) = spec.created(log) {
                pools.insert(a, Arc::new(t));
            }
        }
        if v3 && !pools.is_empty() {
            let addresses = (pools.len() <= MAX_FILTER_ADDRESSES)
                .then(|| pools.keys().copied().collect::<Vec<_>>());
            let mints = client
                .logs(&LogFilter {
                    from_block: U64::from(from),
                    to_block: U64::from(to),
                    address: addresses,
                    topics: vec![vec![Mint::SIGNATURE_HASH]],
                })
                .await?;
            for log in mints.iter().filter(|l| pools.contains_key(&l.address)) {
                let topics = log.topics.iter().copied();
                if let Ok(e) = Mint::decode_raw_log(topics, &log.data) {
                    let ticks = minted.entry(log.address).or_default();
                    ticks.insert(e.tickLower.as_i32());
                    ticks.insert(e.tickUpper.as_i32());
                }
            }
        }
        from = to + 1;
    }
    // State, at `head`, in batches.
    use crate::evm::pool_lens::{Answer, Read, Request};
    let mut requests: Vec<Request> = Vec::new();
    for (address, p) in &pools {
        let pool = *address;
        match p.as_ref() {
            Tracked::V2 { .. } => requests.push(Request { pool, read: Read::V2 }),
            Tracked::V3(v) => {
                let spacing = v.ledger.tick_spacing;
                let (lo, hi) = word_range(spacing);
                // A tick read costs a getter call, as a bitmap word does.
                let ticks: Vec<i32> =
                    minted.remove(address).map(|t| t.into_iter().collect()).unwrap_or_default();
                if v3 && ticks.len() < (hi - lo + 1) as usize {
                    if ticks.is_empty() {
                        requests.push(Request { pool, read: Read::V3Ticks(Vec::new()) });
                    }
                    for part in ticks.chunks(crate::evm::pool_lens::MAX_TICKS_PER_REQUEST) {
                        requests.push(Request { pool, read: Read::V3Ticks(part.to_vec()) });
                    }
                    continue;
                }
                let mut w = lo;
                while w <= hi {
                    let end = (w + GETTERS_PER_CALL as i32 - 3).min(hi);
                    let read = Read::V3Words { from: w as i16, to: end as i16, spacing };
                    requests.push(Request { pool, read });
                    w = end + 1;
                }
            }
        }
    }
    // A V3 pool with a small tick spacing is read in several requests.
    let bar = indicatif::ProgressBar::new(requests.len() as u64);
    bar.set_style(
        indicatif::ProgressStyle::with_template(
            "{prefix} indexing {bar:30} {pos}/{len} pool reads ({elapsed})",
        )
        .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    bar.set_prefix(format!("chain {} {}: {} pools,", spec.config.chain, spec.source, pools.len()));
    let lens = Artifact::PoolLens.initcode().map_err(|e| FeedError::Lens(e.to_string()))?;
    // The node's size limits bound what a call asks (after the lens's
    // code) and answers; a call makes at most GETTERS_PER_CALL getter
    // calls. The list is cut where a batch would pass any of these.
    let asked_room = crate::rpc::MAX_INITCODE_BYTES.saturating_sub(lens.len() + 32);
    let answer_room = crate::rpc::MAX_ANSWER_CODE_BYTES;
    let mut batches: Vec<Vec<Request>> = Vec::new();
    let (mut calls, mut asked, mut answered) = (0, 0, 0);
    for r in requests {
        let (c, a, b) = (r.getter_calls(), r.asked_bytes(), r.answer_bytes());
        match batches.last_mut() {
            Some(batch)
                if calls + c <= GETTERS_PER_CALL
                    && asked + a <= asked_room
                    && answered + b <= answer_room =>
            {
                (calls, asked, answered) = (calls + c, asked + a, answered + b);
                batch.push(r);
            }
            _ => {
                (calls, asked, answered) = (c, a, b);
                batches.push(vec![r]);
            }
        }
    }
    let total = batches.iter().map(Vec::len).sum::<usize>() as u64;
    let mut done = 0u64;
    let mut unreadable = 0usize;
    for batch in batches {
        let read = client
            .lens_batches(
                &lens,
                &batch,
                head,
                batch.len(),
                |items: &[Request]| crate::evm::pool_lens::encode(items),
                |out: &[u8]| crate::evm::pool_lens::decode(out),
                Request::split,
                |n| {
                    done += n as u64;
                    bar.set_position(done);
                    spec.health.set_progress("state", done.min(total), total);
                },
            )
            .await?;
        for (request, r) in read {
            let address = request.pool;
            let r = match r {
                Ok(r) => r,
                Err(why) => {
                    // Its state cannot be read: the pool stays out.
                    tracing::warn!(chain = %spec.config.chain, source = %spec.source, pool = %address, why, "a pool's state cannot be read: it is left out");
                    pools.remove(&address);
                    unreadable += 1;
                    continue;
                }
            };
            let Some(p) = pools.get_mut(&address) else { continue };
            match (Arc::make_mut(p), r) {
                (Tracked::V2 { reserves, .. }, Answer::V2 { reserves: read }) => {
                    *reserves = read.map(U256::from);
                }
                (Tracked::V3(v), Answer::V3 { sqrt_price_x96, tick, liquidity, ticks }) => {
                    let l = &mut v.ledger;
                    l.sqrt_price_x96 = sqrt_price_x96;
                    l.tick = tick;
                    l.liquidity = liquidity;
                    for (index, gross, net) in ticks {
                        l.ticks.insert(index, (gross, net));
                    }
                }
                (_, r) => {
                    return Err(FeedError::Inconsistent(format!(
                        "the lens answered {r:?} for pool {address}"
                    )));
                }
            }
        }
    }
    if unreadable > 0 {
        tracing::warn!(chain = %spec.config.chain, source = %spec.source, unreadable, "pools left out: the node refused to read them");
    }
    bar.finish_and_clear();
    let unread = spec.unread(pools.values().flat_map(|p| p.tokens()));
    read_tokens(spec, client, unread, |wanted| flash_lenders(&pools, wanted), head).await?;
    let book = Book::new(pools, Arc::default(), header, spec.config.reorg_depth);
    Ok(Step::Indexed { book, node_head })
}

/// Moves `book` to the node's head (at most [`MAX_BLOCKS_PER_STEP`] ahead),
/// or rolls it back. Everything that can fail is asked first: on an error
/// the book is as it was.
async fn follow(spec: &Spec, client: &RpcClient, book: &mut Book) -> Result<Moved, FeedError> {
    let factory = match &spec.origin {
        Origin::Factory { factory, .. } => *factory,
        Origin::Listed(_) | Origin::Balancer { .. } | Origin::Curve { .. } => {
            return follow_read(spec, client, book).await;
        }
    };
    let node_head = client.block_number().await?;
    let ours = book.head.number.to::<u64>();
    let to = node_head.min(ours.saturating_add(MAX_BLOCKS_PER_STEP));
    let numbers: Vec<u64> = std::iter::once(ours).chain((ours + 1)..=to).collect();
    let headers = client.headers(&numbers).await?;
    if headers.first().copied().flatten().map(|h| h.hash) != Some(book.head.hash) {
        return roll_back(spec, client, book, node_head).await;
    }
    let mut chain = Vec::with_capacity(headers.len().saturating_sub(1));
    let mut parent = book.head;
    for (n, h) in numbers.iter().zip(&headers).skip(1) {
        let h = h.ok_or_else(|| FeedError::Inconsistent(format!("block {n} vanished")))?;
        if h.parent_hash != parent.hash || h.number.to::<u64>() != *n {
            return Err(FeedError::Inconsistent(format!(
                "block {n} does not follow {}",
                parent.hash
            )));
        }
        chain.push(h);
        parent = h;
    }
    if chain.is_empty() && !book.tokens_due {
        return Ok(Moved::To { node_head, changed: false });
    }
    let addresses = (book.pools.len() < MAX_FILTER_ADDRESSES)
        .then(|| std::iter::once(factory).chain(book.pools.keys().copied()).collect::<Vec<_>>());
    let filtered = addresses.is_some();
    let range = |address| LogFilter {
        from_block: U64::from(ours + 1),
        to_block: U64::from(to),
        address,
        topics: vec![spec.state_topics()],
    };
    let mut logs =
        if chain.is_empty() { Vec::new() } else { client.logs(&range(addresses)).await? };
    if filtered {
        // Pools created in this range were not in the filter: their first
        // logs (the V2 Sync of the first mint, the V3 Initialize and Mints)
        // are read now, or their state would start wrong.
        let born: Vec<Address> = logs
            .iter()
            .filter_map(|l| match spec.created(l) {
                Some((pool, _)) if !book.pools.contains_key(&pool) => Some(pool),
                _ => None,
            })
            .collect();
        if !born.is_empty() {
            logs.extend(client.logs(&range(Some(born))).await?);
        }
    }
    book.read_at = Some(Instant::now());
    logs.sort_by_key(|l| (l.block_number, l.log_index));
    logs.dedup_by_key(|l| (l.block_number, l.log_index));
    // Every log must name its block as the headers do, before any is
    // booked.
    for log in &logs {
        let k = log.block_number.to::<u64>().wrapping_sub(ours + 1);
        if let Some(h) = usize::try_from(k).ok().and_then(|k| chain.get(k))
            && log.block_hash != h.hash
        {
            return Err(FeedError::Inconsistent(format!(
                "a log of block {} names block {}",
                h.number, log.block_hash
            )));
        }
    }
    // The step's pools before it (for the shape of what moved).
    let mut before: BTreeMap<Address, Option<Arc<Tracked>>> = BTreeMap::new();
    let mut created = false;
    let mut at = 0;
    for h in chain {
        let n = h.number;
        let mut undo: BTreeMap<Address, Option<Arc<Tracked>>> = BTreeMap::new();
        while let Some(log) = logs.get(at).filter(|l| l.block_number == n) {
            created |= log.address == factory;
            if let Some(old) = apply_log(spec, &mut book.pools, log) {
                before.entry(log.address).or_insert_with(|| old.clone());
                undo.entry(log.address).or_insert(old);
            }
            at += 1;
        }
        book.push(h, undo.into_iter().collect(), spec.config.reorg_depth);
    }
    let changed = !before.is_empty();
    // Only moves, each pool as routable as before, and no token waiting for
    // them: publish just those pools.
    let same_shape = before.iter().all(|(a, old)| {
        old.as_ref().map(|p| p.routable()) == book.pools.get(a).map(|p| p.routable())
    });
    let touches_waiting = {
        let u = spec.unprobed.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        !u.is_empty()
            && before
                .keys()
                .filter_map(|a| book.pools.get(a))
                .any(|p| p.tokens().iter().any(|t| u.contains_key(t)))
    };
    let read = (changed && (created || touches_waiting)) || book.tokens_due;
    if read {
        // The pools are booked already: a failed read is asked again at the
        // next step rather than losing them.
        let pools = &book.pools;
        let unread = spec.unread(pools.values().flat_map(|p| p.tokens()));
        let lenders = |wanted: &_| flash_lenders(pools, wanted);
        match read_tokens(spec, client, unread, lenders, book.head.number.to::<u64>()).await {
            Ok(_) => book.tokens_due = false,
            Err(e) => {
                tracing::warn!(chain = %spec.config.chain, source = %spec.source, error = %crate::error_chain(&e), "the tokens of new pools were not read: asked again at the next step");
                book.tokens_due = true;
            }
        }
    }
    book.moved =
        (!created && same_shape && !read).then(|| before.into_keys().collect::<Vec<_>>().into());
    Ok(Moved::To { node_head, changed: changed || read })
}

/// A listed or Balancer source at the node's head (at most
/// [`MAX_BLOCKS_PER_STEP`] ahead): the Vault's new registrations booked,
/// then its pools read again when the head moved (a reorg needs nothing
/// more: the state is read at the head).
async fn follow_read(spec: &Spec, client: &RpcClient, book: &mut Book) -> Result<Moved, FeedError> {
    let node_head = client.block_number().await?;
    let ours = book.head.number.to::<u64>();
    let to = node_head.min(ours.saturating_add(MAX_BLOCKS_PER_STEP));
    let header = client
        .headers(&[to])
        .await?
        .pop()
        .flatten()
        .ok_or_else(|| FeedError::Inconsistent(format!("block {to} vanished")))?;
    if header.hash == book.head.hash {
        return Ok(Moved::To { node_head, changed: false });
    }
    let listed = read_source(spec, client, ours + 1, to).await?;
    let moved = listed != book.listed;
    // A token that became usable lets its pools in: they go whole. One
    // waiting for a holder is asked again when its pools move, and at least
    // every few blocks (a holder may appear without a pool moving: tokens
    // sent straight to it).
    let retry = to / PENDING_PROBE_BLOCKS != ours / PENDING_PROBE_BLOCKS;
    let usable = read_listed_tokens(spec, client, &listed, to, moved || retry).await?;
    book.read_at = Some(Instant::now());
    let changed = moved || usable > 0;
    // The same pools as before (only their states moved): published as
    // states.
    let identity = |r: &PoolRecord| (r.common().address, r.tokens());
    let same = usable == 0
        && listed.len() == book.listed.len()
        && listed.iter().map(identity).eq(book.listed.iter().map(identity));
    book.moved = same.then(|| Arc::from(Vec::new()));
    book.listed = listed;
    book.push(header, Undo::new(), spec.config.reorg_depth);
    Ok(Moved::To { node_head, changed })
}

/// Books the Vault's `PoolRegistered` and `TokensRegistered` events of
/// blocks `[from, to]` into the source's pools.
async fn register_balancer_pools(
    spec: &Spec,
    client: &RpcClient,
    vault: Address,
    from: u64,
    to: u64,
) -> Result<(), FeedError> {
    let range = spec.config.log_range.max(1);
    let mut start = from;
    while start <= to {
        let end = start.saturating_add(range - 1).min(to);
        let logs = client
            .logs(&LogFilter {
                from_block: U64::from(start),
                to_block: U64::from(end),
                address: Some(vec![vault]),
                topics: vec![vec![
                    PoolRegistered::SIGNATURE_HASH,
                    TokensRegistered::SIGNATURE_HASH,
                ]],
            })
            .await?;
        let mut found = spec.found.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        for log in logs.iter().filter(|l| l.address == vault) {
            let topics = log.topics.iter().copied();
            if let Ok(e) = PoolRegistered::decode_raw_log(topics.clone(), &log.data) {
                found.entry(e.poolId).or_insert_with(|| {
                    Some(PoolRecord::Weighted(switchyard_catalog::market::WeightedRecord {
                        chain_id: spec.config.chain,
                        address: e.poolAddress,
                        protocol: spec.source.to_string(),
                        pool_id: Some(e.poolId),
                        tokens: Vec::new(),
                        balances: Vec::new(),
                        weights: Vec::new(),
                        swap_fee: U256::ZERO,
                        pool_version: None,
                        bpt_supply: None,
                    }))
                });
            } else if let Ok(e) = TokensRegistered::decode_raw_log(topics, &log.data)
                && let Some(Some(PoolRecord::Weighted(w))) = found.get_mut(&e.poolId)
            {
                for t in e.tokens {
                    if !w.tokens.contains(&t) {
                        w.tokens.push(t);
                        w.balances.push(U256::ZERO);
                        w.weights.push(U256::ZERO);
                    }
                }
            }
        }
        start = end + 1;
    }
    Ok(())
}

/// A Curve source's key for `pool` in [`Spec::found`].
fn curve_key(pool: Address) -> B256 {
    B256::left_padding_from(pool.as_slice())
}

/// Reads the count of each of Curve's `lists` at `block`, and, for a list
/// whose count moved, its entries; every pool listed there and not routed
/// yet is examined ([`crate::curve_lists::examine`]): found, or set aside
/// with the reason until a count moves again.
async fn find_curve_pools(
    spec: &Spec,
    client: &RpcClient,
    lists: &[Address],
    block: u64,
) -> Result<(), FeedError> {
    let counts = crate::curve_lists::counts(client, lists, block).await?;
    let mut fresh: Vec<(Address, Address)> = Vec::new();
    for (list, count) in lists.iter().zip(counts) {
        let key = (*list, Address::ZERO);
        let count = match count {
            Ok(n) => {
                if spec
                    .failing
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner)
                    .remove(&key)
                {
                    tracing::info!(chain = %spec.config.chain, source = %spec.source, list = %list, block, "a Curve pool list reads again");
                }
                n
            }
            Err(why) => {
                if spec
                    .failing
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner)
                    .insert(key)
                {
                    tracing::warn!(chain = %spec.config.chain, source = %spec.source, list = %list, block, why, "a Curve pool list cannot be read from the node: its pools are not looked for");
                }
                continue;
            }
        };
        let seen = spec
            .counted
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .get(list)
            .copied();
        if seen == Some(count) {
            continue;
        }
        let listed = crate::curve_lists::entries(client, *list, count, block).await?;
        let found = spec.found.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        for pool in listed {
            let routed = matches!(found.get(&curve_key(pool)), Some(Some(_)));
            if !routed && !fresh.iter().any(|(p, _)| *p == pool) {
                fresh.push((pool, *list));
            }
        }
        drop(found);
        spec.counted.lock().unwrap_or_else(std::sync::PoisonError::into_inner).insert(*list, count);
    }
    if fresh.is_empty() {
        return Ok(());
    }
    let examined =
        crate::curve_lists::examine(client, spec.config.chain, &spec.source, &fresh, block).await?;
    let mut found = spec.found.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    let (mut kept, mut aside) = (0usize, 0usize);
    for ((pool, list), r) in fresh.iter().zip(examined) {
        match r {
            Ok(t) => {
                kept += 1;
                found.insert(curve_key(*pool), Some(t));
            }
            Err(u) => {
                aside += 1;
                tracing::debug!(chain = %spec.config.chain, pool = %pool, list = %list, why = u.why, "a Curve pool is set aside");
                found.insert(curve_key(*pool), None);
            }
        }
    }
    tracing::info!(chain = %spec.config.chain, source = %spec.source, block, found = kept, set_aside = aside, "Curve pools examined from their lists");
    Ok(())
}

/// A listed or Balancer source's pools as the node has them at `block`
/// (a Balancer source books the Vault's registrations of blocks
/// `from..=block` first). A pool's failure is logged when it starts, and
/// when it ends; a Balancer pool that is not weighted (stable, linear, …)
/// is set aside for good, at debug level.
async fn read_source(
    spec: &Spec,
    client: &RpcClient,
    from: u64,
    block: u64,
) -> Result<Arc<[PoolRecord]>, FeedError> {
    let (ids, templates): (Vec<B256>, std::borrow::Cow<'_, [PoolRecord]>) = match &spec.origin {
        Origin::Listed(templates) => (Vec::new(), std::borrow::Cow::Borrowed(&templates[..])),
        Origin::Balancer { .. } | Origin::Curve { .. } => {
            match &spec.origin {
                Origin::Balancer { vault, .. } if from <= block => {
                    register_balancer_pools(spec, client, *vault, from, block).await?;
                }
                Origin::Curve { lists, .. } => find_curve_pools(spec, client, lists, block).await?,
                _ => {}
            }
            let found = spec.found.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            let (ids, templates): (Vec<B256>, Vec<PoolRecord>) = found
                .iter()
                .filter_map(|(id, t)| Some((*id, t.clone()?)))
                .filter(|(_, t)| t.tokens().len() >= 2)
                .unzip();
            (ids, std::borrow::Cow::Owned(templates))
        }
        Origin::Factory { .. } => {
            return Err(FeedError::Inconsistent("a factory source has no listed pools".into()));
        }
    };
    let read = crate::listed::read(client, &templates, block).await?;
    let mut failing = spec.failing.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    let mut found = spec.found.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    let mut out = Vec::with_capacity(read.len());
    for (k, (t, r)) in templates.iter().zip(read).enumerate() {
        let pool = t.common().address;
        let key = (pool, t.tokens().last().copied().unwrap_or_default());
        match r {
            Ok(rec) => {
                if failing.remove(&key) {
                    tracing::info!(chain = %spec.config.chain, source = %spec.source, pool = %pool, block, "a listed pool reads again");
                }
                out.push(rec);
            }
            Err(u) if u.other_kind && k < ids.len() => {
                tracing::debug!(chain = %spec.config.chain, source = %spec.source, pool = %pool, why = u.why, "a pool not of its source's kind is set aside");
                found.insert(ids[k], None);
            }
            Err(u) => {
                if failing.insert(key) {
                    tracing::warn!(chain = %spec.config.chain, source = %spec.source, pool = %pool, block, why = u.why, "a listed pool cannot be read from the node: it is left out");
                }
            }
        }
    }
    Ok(out.into())
}

/// Where a token's transfer is probed from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Lender {
    /// A Uniswap pool's flash swap.
    Flash(crate::token_meta::ProbeRequest),
    /// An account holding it (a Curve pool, the Balancer Vault), which the
    /// probe's code is lent to.
    Held(Address),
}

/// Of `offers` (a token, how much of it a lender holds, the lender), the
/// lender holding the most of each of `wanted`; one holding none is not a
/// lender.
fn best_lenders(
    offers: impl Iterator<Item = (Address, U256, Lender)>,
    wanted: &std::collections::HashSet<Address>,
) -> std::collections::HashMap<Address, Lender> {
    let mut best: std::collections::HashMap<Address, (U256, Lender)> = Default::default();
    for (token, weight, lender) in offers {
        if wanted.contains(&token)
            && !weight.is_zero()
            && best.get(&token).is_none_or(|(w, _)| *w < weight)
        {
            best.insert(token, (weight, lender));
        }
    }
    best.into_iter().map(|(t, (_, l))| (t, l)).collect()
}

/// The pool of `pools` holding the most of each of `wanted` (V2 reserves
/// first; a V3 pool with liquidity otherwise), in one pass over the pools.
fn flash_lenders(
    pools: &Pools,
    wanted: &std::collections::HashSet<Address>,
) -> std::collections::HashMap<Address, Lender> {
    use crate::token_meta::ProbeRequest;
    let offers = pools.iter().flat_map(|(address, p)| {
        p.tokens().into_iter().enumerate().map(move |(k, token)| {
            let (weight, v3) = match p.as_ref() {
                Tracked::V2 { reserves, .. } => (reserves[k] << 1, false),
                Tracked::V3(v) => (U256::from(u8::from(v.ledger.liquidity > 0)), true),
            };
            let request = ProbeRequest { token, pool: *address, v3, is_token0: k == 0 };
            (token, weight, Lender::Flash(request))
        })
    });
    best_lenders(offers, wanted)
}

/// The account holding the most of each of `wanted` among a listed
/// source's `records`, by what the records say they hold: a Balancer
/// pool's tokens are held by the `vault`, every other pool's by the pool
/// itself. A token that is its own holder (a vault's share) is left out.
fn held_lenders(
    vault: Option<Address>,
    records: &[PoolRecord],
    wanted: &std::collections::HashSet<Address>,
) -> std::collections::HashMap<Address, Lender> {
    let offers = records.iter().flat_map(|r| {
        let (holder, balances) = match r {
            PoolRecord::Weighted(w) => (vault.unwrap_or(w.address), Some(&w.balances)),
            PoolRecord::Stableswap(c) => (c.address, Some(&c.balances)),
            other => (other.common().address, None),
        };
        r.tokens().into_iter().enumerate().filter(move |(_, t)| *t != holder).map(move |(k, t)| {
            let weight = balances.and_then(|b| b.get(k).copied()).unwrap_or(U256::from(1));
            (t, weight, Lender::Held(holder))
        })
    });
    best_lenders(offers, wanted)
}

/// Reads, at `block`, the tokens of `unread` (a source's tokens no catalog
/// lists and the node was not asked about yet), and simulates a transfer
/// of each, and of each token still waiting, out of the account `lenders`
/// names for it. A token is usable once its metadata is sane and its
/// transfers move the amount asked; one that cannot be used is logged
/// once; one no account holds yet waits for one that does. A token another
/// source of the chain is reading is waited for, not read again (and read
/// here if that source failed to). Answers how many tokens became usable.
async fn read_tokens(
    spec: &Spec,
    client: &RpcClient,
    unread: Vec<Address>,
    lenders: impl Fn(&std::collections::HashSet<Address>) -> std::collections::HashMap<Address, Lender>,
    block: u64,
) -> Result<usize, FeedError> {
    let (mut unread, mut usable) = (unread, 0);
    loop {
        let (claim, theirs) = spec.discovered.claim(unread);
        let read = read_claimed(spec, client, claim.mine.clone(), &lenders, block).await;
        drop(claim);
        usable += read?;
        if theirs.is_empty() {
            return Ok(usable);
        }
        spec.discovered.wait_for(&theirs).await;
        // What the other source failed to read, this one reads.
        unread = spec.unread(theirs.into_iter());
        if unread.is_empty() {
            return Ok(usable);
        }
    }
}

/// [`read_tokens`] of the tokens this source claimed.
async fn read_claimed<L>(
    spec: &Spec,
    client: &RpcClient,
    unread: Vec<Address>,
    lenders: L,
    block: u64,
) -> Result<usize, FeedError>
where
    L: Fn(&std::collections::HashSet<Address>) -> std::collections::HashMap<Address, Lender>,
{
    use crate::token_meta::Transfers;
    let mut candidates: Vec<switchyard_catalog::Token> = Vec::new();
    if !unread.is_empty() {
        let read = crate::token_meta::discover(client, spec.config.chain, &unread, block).await?;
        let mut d = spec.discovered.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        for (token, entry) in read {
            match entry {
                Ok(t) => candidates.push(t),
                Err(why) => {
                    tracing::warn!(chain = %spec.config.chain, token = %token, why, "a token no catalog lists cannot be used: its pools stay out");
                    d.insert(token, None);
                }
            }
        }
    }
    {
        let mut waiting = spec.unprobed.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        candidates.extend(waiting.drain().map(|(_, t)| t));
    }
    if candidates.is_empty() {
        return Ok(0);
    }
    let wanted: std::collections::HashSet<Address> = candidates.iter().map(|t| t.address).collect();
    let lenders = lenders(&wanted);
    let (mut flash, mut held) = (Vec::new(), Vec::new());
    let mut waiting = Vec::new();
    for t in candidates {
        match lenders.get(&t.address) {
            Some(Lender::Flash(r)) => flash.push((t, *r)),
            Some(Lender::Held(h)) => held.push((t, *h)),
            None => waiting.push(t),
        }
    }
    let requests: Vec<_> = flash.iter().map(|(_, r)| *r).collect();
    let mut verdicts = crate::token_meta::probe_transfers(client, &requests, block).await?;
    let requests: Vec<_> = held.iter().map(|(t, h)| (t.address, *h)).collect();
    verdicts.extend(crate::token_meta::probe_held(client, &requests, block).await?);
    let probed = flash.into_iter().map(|(t, _)| t).chain(held.into_iter().map(|(t, _)| t));
    let (mut usable, mut refused) = (0usize, 0usize);
    let mut later: Vec<switchyard_catalog::Token> = waiting;
    {
        let mut d = spec.discovered.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        for (t, verdict) in probed.zip(verdicts) {
            match verdict {
                Transfers::Exact => {
                    usable += 1;
                    d.insert(t.address, Some(t));
                }
                Transfers::Unusual(why) => {
                    refused += 1;
                    tracing::warn!(chain = %spec.config.chain, token = %t.address, symbol = %t.symbol, why, "a token no catalog lists does not transfer the amount asked: its pools stay out of routes");
                    d.insert(t.address, None);
                }
                Transfers::Unknown => later.push(t),
            }
        }
    }
    let pending = later.len();
    spec.unprobed
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .extend(later.into_iter().map(|t| (t.address, t)));
    tracing::info!(chain = %spec.config.chain, source = %spec.source, read = unread.len(), usable, refused, pending, "tokens read from the node");
    Ok(usable)
}

/// Blocks after which a listed source asks again about a token waiting for
/// a holder, though none of its pools moved.
pub const PENDING_PROBE_BLOCKS: u64 = 4;

/// [`read_tokens`] for a listed source's `records`: asked only when one
/// of their tokens is new to the source, or, when the records `moved`, a
/// token waits for a holder (as a factory source asks again when its pools
/// move, not at every block).
async fn read_listed_tokens(
    spec: &Spec,
    client: &RpcClient,
    records: &[PoolRecord],
    block: u64,
    moved: bool,
) -> Result<usize, FeedError> {
    let unread = spec.unread(records.iter().flat_map(PoolRecord::tokens));
    if unread.is_empty() && !(moved && spec.awaits_probe()) {
        return Ok(0);
    }
    let vault = match &spec.origin {
        Origin::Balancer { vault, .. } => Some(*vault),
        Origin::Listed(_) | Origin::Factory { .. } | Origin::Curve { .. } => None,
    };
    read_tokens(spec, client, unread, |wanted| held_lenders(vault, records, wanted), block).await
}

/// Rolls `book` back to the newest kept block the node still has.
async fn roll_back(
    spec: &Spec,
    client: &RpcClient,
    book: &mut Book,
    node_head: u64,
) -> Result<Moved, FeedError> {
    let numbers: Vec<u64> = book.history.iter().map(|(h, _)| h.number.to::<u64>()).collect();
    let canonical = client.headers(&numbers).await?;
    let keep = book
        .history
        .iter()
        .zip(&canonical)
        .rposition(|((ours, _), theirs)| theirs.is_some_and(|t| t.hash == ours.hash));
    let Some(k) = keep else {
        return Ok(Moved::Lost {
            why: format!(
                "none of the last {} blocks is on the node's chain any more",
                book.history.len()
            ),
        });
    };
    let from = book.head.number.to::<u64>();
    book.roll_back_to(k);
    tracing::warn!(
        chain = %spec.config.chain,
        source = %spec.source,
        to = book.head.number.to::<u64>(),
        dropped = from.saturating_sub(book.head.number.to::<u64>()),
        "reorg: rolled back"
    );
    book.moved = None;
    Ok(Moved::To { node_head, changed: true })
}

/// Tokens no catalog lists, read from one chain's node and shared by its
/// sources: each one's entry (`None` when unusable), and the ones a source
/// is reading now, which the others wait for instead of reading them again
/// (two factory sources indexing at once reach the same tokens).
#[derive(Debug, Default)]
pub(crate) struct Discovered {
    tokens: Mutex<std::collections::HashMap<Address, Option<switchyard_catalog::Token>>>,
    reading: Mutex<std::collections::HashSet<Address>>,
    read: tokio::sync::Notify,
}

/// The tokens a source reads; released (and the waiting sources woken)
/// when dropped, whether the reading succeeded or not.
struct Claim<'a> {
    discovered: &'a Discovered,
    mine: Vec<Address>,
}

impl Drop for Claim<'_> {
    fn drop(&mut self) {
        {
            let mut reading =
                self.discovered.reading.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            for t in &self.mine {
                reading.remove(t);
            }
        }
        self.discovered.read.notify_waiters();
    }
}

impl Discovered {
    /// The tokens read so far.
    fn lock(
        &self,
    ) -> std::sync::LockResult<
        std::sync::MutexGuard<
            '_,
            std::collections::HashMap<Address, Option<switchyard_catalog::Token>>,
        >,
    > {
        self.tokens.lock()
    }

    /// Splits `unread` into the tokens the caller is now to read and the
    /// ones another source is reading.
    fn claim(&self, unread: Vec<Address>) -> (Claim<'_>, Vec<Address>) {
        let mut reading = self.reading.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let (theirs, mine): (Vec<Address>, Vec<Address>) =
            unread.into_iter().partition(|t| reading.contains(t));
        reading.extend(mine.iter().copied());
        (Claim { discovered: self, mine }, theirs)
    }

    /// Until no source is reading any of `tokens`.
    async fn wait_for(&self, tokens: &[Address]) {
        loop {
            // Made before the check, so a release between the two wakes it.
            let released = self.read.notified();
            {
                let reading =
                    self.reading.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
                if !tokens.iter().any(|t| reading.contains(t)) {
                    return;
                }
            }
            released.await;
        }
    }
}

/// The feed's actor: one per (chain, source).
pub(crate) struct RpcFeed {
    spec: Arc<Spec>,
    client: Arc<RpcClient>,
    hub: Addr<PriceCacheActor>,
    /// The book, when no step holds it.
    book: Option<Book>,
    /// Whether the source is indexed (its book may be out, with a step).
    indexed: bool,
    busy: bool,
    /// When the node last answered a whole step.
    last_ok: Option<Instant>,
    failures: u32,
    next_try: Instant,
    /// Whether the hub has the source's pools left out.
    excluded: bool,
}

impl RpcFeed {
    /// A feed of the pools of `origin` (`source` is their protocol), with
    /// the tokens its chain's sources read from the node.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn new(
        config: RpcFeedConfig,
        client: Arc<RpcClient>,
        source: Arc<str>,
        origin: Origin,
        catalog: Arc<Catalog>,
        hub: Addr<PriceCacheActor>,
        health: Arc<FeedHealth>,
        discovered: Arc<Discovered>,
    ) -> Self {
        Self {
            spec: Arc::new(Spec {
                config,
                source,
                health,
                origin,
                catalog,
                discovered,
                failing: Mutex::default(),
                unprobed: Mutex::default(),
                found: Mutex::default(),
                counted: Mutex::default(),
            }),
            client,
            hub,
            book: None,
            indexed: false,
            busy: false,
            last_ok: None,
            failures: 0,
            next_try: Instant::now(),
            excluded: false,
        }
    }

    fn tick(&mut self, ctx: &mut Context<Self>) {
        self.judge();
        if self.busy || Instant::now() < self.next_try {
            return;
        }
        self.busy = true;
        let (spec, client, book) =
            (Arc::clone(&self.spec), Arc::clone(&self.client), self.book.take());
        let before = book.as_ref().map(|b| b.head.hash);
        let work = async move {
            // The gas price rides along, asked first so that a step's
            // answers go out without a round trip more; a node that fails
            // to give it leaves the last one.
            let gas = client.gas_price().await.ok();
            // The step owns the book; it comes back with an error.
            match book {
                None => (index(&spec, &client).await.map(|step| (step, gas)), None),
                Some(mut book) => match follow(&spec, &client, &mut book).await {
                    Ok(Moved::To { node_head, changed }) => {
                        (Ok((Step::Followed { book, node_head, changed }, gas)), None)
                    }
                    Ok(Moved::Lost { why }) => (Ok((Step::Lost { why }, gas)), None),
                    Err(e) => (Err(e), Some(book)),
                },
            }
        };
        ctx.spawn(work.into_actor(self).map(move |(res, back), act, ctx| {
            act.busy = false;
            if back.is_some() {
                act.book = back;
            }
            act.settle(res, before, ctx);
        }));
    }

    /// Takes a step's result; `before`: the head of the book it followed.
    fn settle(
        &mut self,
        res: Result<(Step, Option<U256>), FeedError>,
        before: Option<B256>,
        ctx: &mut Context<Self>,
    ) {
        let spec = Arc::clone(&self.spec);
        match res {
            Ok((step, gas)) => {
                if self.failures > 0 || self.spec.health.read().0 == FeedState::Stale {
                    tracing::info!(chain = %spec.config.chain, source = %spec.source, url = %spec.config.url, "rpc feed: node answers again");
                }
                self.failures = 0;
                self.next_try = Instant::now();
                self.last_ok = Some(Instant::now());
                match step {
                    Step::Indexed { book, node_head } => {
                        tracing::info!(
                            chain = %spec.config.chain,
                            source = %spec.source,
                            pools = book.pools.len(),
                            head = book.head.number.to::<u64>(),
                            "rpc feed: indexed"
                        );
                        self.spec.health.update(|h| h.progress = None);
                        self.publish(&book, node_head, gas, ctx);
                        self.book = Some(book);
                        self.indexed = true;
                    }
                    Step::Followed { book, node_head, changed } => {
                        let moved = before != Some(book.head.hash);
                        if changed || moved {
                            self.publish(&book, node_head, gas, ctx);
                        } else {
                            self.spec.health.update(|h| h.node_head = node_head);
                        }
                        self.book = Some(book);
                    }
                    Step::Lost { why } => {
                        tracing::warn!(chain = %spec.config.chain, source = %spec.source, reason = %why, "rpc feed: indexing again");
                        self.book = None;
                        self.indexed = false;
                        self.spec.health.update(|h| {
                            h.state = FeedState::Indexing;
                            h.published = false;
                        });
                    }
                }
            }
            Err(e) => {
                self.failures = self.failures.saturating_add(1);
                let wait =
                    (spec.config.poll * 2u32.saturating_pow(self.failures.min(8))).min(MAX_RETRY);
                self.next_try = Instant::now() + wait;
                tracing::warn!(
                    chain = %spec.config.chain,
                    source = %spec.source,
                    url = %spec.config.url,
                    error = %crate::error_chain(&e),
                    failures = self.failures,
                    retry_in_ms = wait.as_millis() as u64,
                    "rpc feed: step failed"
                );
            }
        }
        self.judge();
    }

    /// Sends the source's pools and head to the hub; the feed's head moves
    /// once readers see them.
    fn publish(&self, book: &Book, node_head: u64, gas: Option<U256>, ctx: &mut Context<Self>) {
        let spec = &self.spec;
        let head = book.head.number.to::<u64>();
        let msg = ReplaceSource {
            source: Arc::clone(&spec.source),
            head: ChainState {
                chain_id: spec.config.chain,
                block_number: head,
                timestamp: book.head.timestamp.to(),
                gas_price_wei: U256::ZERO,
            },
            gas_price: gas,
            pools: spec.publication(book),
            tokens: if book.moved.is_some() { Vec::new() } else { spec.discovered_tokens() },
            read_at: book.read_at,
        };
        let (pools, moved) = match &msg.pools {
            SourcePools::All(r) => (r.len(), false),
            SourcePools::Moved(m) => (m.len(), true),
        };
        tracing::debug!(chain = %spec.config.chain, source = %spec.source, head, pools, moved, "rpc feed: publishing");
        // Sent now, so publications keep the order of the blocks.
        let sent = self.hub.send(msg);
        let health = Arc::clone(&self.spec.health);
        let (chain, source, read_at) = (spec.config.chain, Arc::clone(&spec.source), book.read_at);
        ctx.spawn(
            async move {
                if sent.await.is_ok() {
                    // From the node's answers to readers seeing them.
                    if let Some(t) = read_at {
                        tracing::debug!(%chain, %source, head, node_to_readers_us = t.elapsed().as_micros() as u64, "rpc feed: published");
                    }
                    health.update(|h| {
                        h.head = head;
                        h.node_head = node_head;
                        h.published = true;
                    });
                }
            }
            .into_actor(self),
        );
    }

    /// The feed's state from the age of its last good answer; tells the hub
    /// when its pools stop (or start again) being fit to route through.
    fn judge(&mut self) {
        let cfg = &self.spec.config;
        let age = self.last_ok.map(|t| t.elapsed());
        let published = self.spec.health.inner.lock().map(|h| h.published).unwrap_or(false);
        let state = match (self.indexed && published, age) {
            (_, Some(a)) if a > cfg.stale_after => FeedState::Stale,
            (false, None) if self.failures > 0 => FeedState::Stale,
            (false, _) => FeedState::Indexing,
            (true, Some(a)) if a > cfg.delayed_after || self.failures > 0 => FeedState::Delayed,
            (true, _) => {
                let (_, _, lag, _) = self.spec.health.read();
                if lag > 1 { FeedState::Delayed } else { FeedState::Ready }
            }
        };
        // Stale pools, and those of a source being indexed again (the chain
        // they were on is gone), are not routed through until the source
        // publishes fresh ones.
        let exclude = matches!(state, FeedState::Stale | FeedState::Indexing);
        if state == FeedState::Stale && self.spec.health.read().0 != FeedState::Stale {
            tracing::error!(
                chain = %cfg.chain,
                source = %self.spec.source,
                url = %cfg.url,
                stale_after_ms = cfg.stale_after.as_millis() as u64,
                "ALERT rpc feed stale: its pools are left out of routing"
            );
        }
        if exclude != self.excluded {
            self.hub.do_send(SetStale {
                chain: cfg.chain,
                source: Arc::clone(&self.spec.source),
                stale: exclude,
            });
            self.excluded = exclude;
        }
        self.spec.health.update(|h| h.state = state);
    }
}

impl Actor for RpcFeed {
    type Context = Context<Self>;

    fn started(&mut self, ctx: &mut Self::Context) {
        let every =
            self.spec.config.poll.min(Duration::from_millis(250)).max(Duration::from_millis(10));
        let poll = self.spec.config.poll;
        self.tick(ctx);
        let mut last = Instant::now();
        ctx.run_interval(every, move |act, ctx| {
            // Judge often (staleness is a matter of time), ask the node
            // every `poll`.
            if last.elapsed() >= poll || !act.indexed {
                last = Instant::now();
                act.tick(ctx);
            } else {
                act.judge();
            }
        });
    }
}

impl Supervised for RpcFeed {
    fn restarting(&mut self, _: &mut Self::Context) {
        self.busy = false;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_token_another_source_reads_is_waited_for_then_left_to_it() {
        let d = Arc::new(Discovered::default());
        let (a, b) = (Address::repeat_byte(1), Address::repeat_byte(2));
        let (first, theirs) = d.claim(vec![a]);
        assert!(theirs.is_empty());
        let (second, theirs) = d.claim(vec![a, b]);
        assert_eq!((second.mine.as_slice(), theirs.as_slice()), (&[b][..], &[a][..]));
        let waiting = tokio::spawn({
            let d = Arc::clone(&d);
            async move { d.wait_for(&[a]).await }
        });
        tokio::task::yield_now().await;
        assert!(!waiting.is_finished());
        // Released whether the read succeeded or not: the waiter goes on.
        drop(first);
        tokio::time::timeout(Duration::from_secs(5), waiting).await.unwrap().unwrap();
        drop(second);
        let (again, theirs) = d.claim(vec![a, b]);
        assert_eq!((again.mine.len(), theirs.len()), (2, 0));
    }

    #[test]
    fn a_listed_token_is_probed_out_of_its_largest_holder() {
        use switchyard_catalog::market::{StableswapRecord, WeightedRecord};
        let (new, usdt, vault) =
            (Address::repeat_byte(1), Address::repeat_byte(2), Address::repeat_byte(0xba));
        let curve = |address: Address, held: u64| {
            PoolRecord::Stableswap(StableswapRecord {
                chain_id: ChainId(1),
                address,
                protocol: "curve".into(),
                lp_token: None,
                coins: vec![new, usdt],
                balances: vec![U256::from(held), U256::from(5)],
                amp: U256::from(100),
                fee: U256::ZERO,
                admin_fee: None,
                a_precision: None,
                amp_precise: None,
                lp_supply: None,
            })
        };
        let wanted = std::collections::HashSet::from([new]);
        let records =
            [curve(Address::repeat_byte(0xc1), 10), curve(Address::repeat_byte(0xc2), 30)];
        let lenders = held_lenders(None, &records, &wanted);
        assert_eq!(lenders.get(&new), Some(&Lender::Held(Address::repeat_byte(0xc2))));
        assert_eq!(lenders.get(&usdt), None, "only the tokens wanted");
        // A Balancer pool's tokens sit in the Vault.
        let weighted = PoolRecord::Weighted(WeightedRecord {
            chain_id: ChainId(1),
            address: Address::repeat_byte(0xb1),
            protocol: "balancer-v2".into(),
            pool_id: Some(B256::repeat_byte(7)),
            tokens: vec![usdt, new],
            balances: vec![U256::from(1), U256::from(2)],
            weights: vec![U256::from(1), U256::from(1)],
            swap_fee: U256::ZERO,
            pool_version: None,
            bpt_supply: None,
        });
        let lenders = held_lenders(Some(vault), &[weighted], &wanted);
        assert_eq!(lenders.get(&new), Some(&Lender::Held(vault)));
        // A pool holding none of it lends nothing; nor does a token that
        // is its own holder.
        let empty = [curve(Address::repeat_byte(0xc3), 0)];
        assert!(held_lenders(None, &empty, &wanted).is_empty());
        let own = [curve(new, 10)];
        assert!(held_lenders(None, &own, &wanted).is_empty());
    }

    #[test]
    fn bitmap_words_cover_every_tick() {
        assert_eq!(word_range(60), (-58, 57));
        assert_eq!(word_range(1), (-3466, 3465));
        assert_eq!(word_range(200), (-18, 17));
    }

    #[test]
    fn a_block_rolled_back_restores_what_it_changed_and_removes_what_it_created() {
        let header = |n: u64| Header {
            number: U64::from(n),
            hash: B256::repeat_byte(n as u8),
            parent_hash: B256::repeat_byte(n.saturating_sub(1) as u8),
            timestamp: U64::from(n * 12),
        };
        let v2 = |r: u64| {
            Arc::new(Tracked::V2 {
                token0: Address::repeat_byte(1),
                token1: Address::repeat_byte(2),
                reserves: [U256::from(r), U256::from(r)],
            })
        };
        let (a, b) = (Address::repeat_byte(0xa), Address::repeat_byte(0xb));
        let mut book = Book::new(Pools::from([(a, v2(1))]), Arc::default(), header(10), 8);
        // Block 11 moves `a` twice (the first value before it is kept);
        // block 12 creates `b` and moves `a` again.
        book.pools.insert(a, v2(3));
        book.push(header(11), vec![(a, Some(v2(1)))], 8);
        book.pools.insert(b, v2(5));
        book.pools.insert(a, v2(4));
        book.push(header(12), vec![(a, Some(v2(3))), (b, None)], 8);
        book.roll_back_to(1);
        assert_eq!(book.head.number, U64::from(11));
        assert_eq!((book.pools.get(&a), book.pools.get(&b)), (Some(&v2(3)), None));
        book.roll_back_to(0);
        assert_eq!(book.head.number, U64::from(10));
        assert_eq!(book.pools, Pools::from([(a, v2(1))]));
        assert_eq!(book.history.len(), 1);
    }
}
