//! The catalog records, exactly as the catalog file format describes them
//! (`docs/catalog-format.md`).
//!
//! These types derive `Deserialize` for the *file* format only. The HTTP wire
//! format is the server's business and has its own types.

use std::collections::BTreeMap;

use serde::Deserialize;

use crate::types::{Address, ChainId, RoutingStrategy};

/// A catalog document: any subset of the sections.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CatalogDocument {
    /// Networks.
    #[serde(default)]
    pub networks: Vec<Network>,
    /// Tokens, base and DeFi.
    #[serde(default)]
    pub tokens: Vec<Token>,
    /// Protocols (one integration of a project).
    #[serde(default)]
    pub protocols: Vec<Protocol>,
    /// Standards: the actions a protocol supports in bundles.
    #[serde(default)]
    pub standards: Vec<Standard>,
    /// Bundle actions and their input metadata.
    #[serde(default)]
    pub actions: Vec<ActionSpec>,
    /// Named liquidity sources.
    #[serde(default)]
    pub aggregators: Vec<Aggregator>,
    /// Bridges.
    #[serde(default)]
    pub bridges: Vec<Bridge>,
    /// LayerZero / Stargate pools.
    #[serde(default)]
    pub layerzero_pools: Vec<LayerZeroPool>,
    /// Non-tokenized positions.
    #[serde(default)]
    pub positions: Vec<Position>,
    /// DEX factories.
    #[serde(default)]
    pub dex_factories: Vec<DexFactory>,
    /// Router, executor and delegate addresses.
    #[serde(default)]
    pub contracts: Vec<ContractSet>,
    /// Deployed contracts programs call besides tokens and pools: protocol
    /// periphery and Enso's helper contracts, each with its source.
    #[serde(default)]
    pub deployments: Vec<Deployment>,
}

impl CatalogDocument {
    /// Adds every entry of `other` (duplicates are the validation's to
    /// report).
    pub fn append(&mut self, other: Self) {
        self.networks.extend(other.networks);
        self.tokens.extend(other.tokens);
        self.protocols.extend(other.protocols);
        self.standards.extend(other.standards);
        self.actions.extend(other.actions);
        self.aggregators.extend(other.aggregators);
        self.bridges.extend(other.bridges);
        self.layerzero_pools.extend(other.layerzero_pools);
        self.positions.extend(other.positions);
        self.dex_factories.extend(other.dex_factories);
        self.contracts.extend(other.contracts);
        self.deployments.extend(other.deployments);
    }

    /// Lays `other` over this document: an entry with the key of one here
    /// replaces it whole, any other is added. Keys: a network's id; a
    /// token's (chain, address); a protocol's slug; a standard's protocol;
    /// an action's name; an aggregator's and a bridge's name; a LayerZero
    /// pool's (chain, token); a position's (chain, position id); a DEX
    /// factory's (chain, protocol); a contract set's (chain, strategy); a
    /// deployment's (chain, role, factory), and its address for the roles a
    /// chain lists several of ([`DeploymentRole::several`]). Two entries
    /// with one key inside `other` are both added, so the validation still
    /// reports them.
    pub fn overlay(&mut self, other: Self) {
        overlay_by(&mut self.networks, other.networks, |n| n.id);
        overlay_by(&mut self.tokens, other.tokens, |t| (t.chain_id, t.address));
        overlay_by(&mut self.protocols, other.protocols, |p| p.slug.clone());
        overlay_by(&mut self.standards, other.standards, |s| s.protocol.clone());
        overlay_by(&mut self.actions, other.actions, |a| a.action.clone());
        overlay_by(&mut self.aggregators, other.aggregators, |a| a.name.clone());
        overlay_by(&mut self.bridges, other.bridges, |b| b.name.clone());
        overlay_by(&mut self.layerzero_pools, other.layerzero_pools, |p| (p.chain_id, p.token));
        overlay_by(&mut self.positions, other.positions, |p| (p.chain_id, p.position_id.clone()));
        overlay_by(&mut self.dex_factories, other.dex_factories, |f| {
            (f.chain_id, f.protocol.clone())
        });
        overlay_by(&mut self.contracts, other.contracts, |c| (c.chain_id, c.strategy));
        overlay_by(&mut self.deployments, other.deployments, |d| {
            (d.chain_id, d.role, d.factory, d.role.several().then_some(d.address))
        });
    }
}

/// `over`'s entries replace those of `base` with their key; the others are
/// added.
fn overlay_by<T, K: Eq + std::hash::Hash>(base: &mut Vec<T>, over: Vec<T>, key: impl Fn(&T) -> K) {
    let at: std::collections::HashMap<K, usize> =
        base.iter().enumerate().map(|(i, t)| (key(t), i)).collect();
    for t in over {
        match at.get(&key(&t)) {
            Some(&i) => base[i] = t,
            None => base.push(t),
        }
    }
}

/// What a deployed contract is to a program.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum DeploymentRole {
    /// Enso's `MathHelpers`: `add`, `sub` (checked), `mul`, `div`, `min`,
    /// `max`, `average`, `mod`, `conditional`.
    MathHelpers,
    /// Enso's `EnsoShortcutsHelpers`: `getBalance`, `getBlockTimestamp`,
    /// `toggle`, `not`, the comparisons; `check` from version 3 on.
    ShortcutsHelpers,
    /// A Uniswap V2 `Router02` (or a fork's identical router) bound to
    /// `factory`.
    UniswapV2Router,
    /// Uniswap V3 `SwapRouter` (`exactInputSingle` with a deadline) bound to
    /// `factory`.
    UniswapV3SwapRouter,
    /// Uniswap `SwapRouter02` (`exactInputSingle` without a deadline) bound
    /// to `factory`.
    UniswapV3SwapRouter02,
    /// Uniswap V3 `NonfungiblePositionManager` bound to `factory`:
    /// concentrated-liquidity positions (`mint`), each an ERC-721.
    UniswapV3PositionManager,
    /// The Balancer V2 `Vault`, through which every weighted pool swaps.
    BalancerVault,
    /// Enso's `BalancerHelpers` (VERSION 2): `encodeDataForJoinKindOne`
    /// and `encodeDataForExitKindZero`, the `userData` of a join or exit
    /// whose amount a program computes.
    BalancerHelpers,
    /// Enso's `PercentageMathHelpers` (`percentMul`, `percentDiv`): called
    /// by clients' own `call` actions; several generations may be listed.
    PercentageMathHelpers,
    /// A Curve registry or factory whose `pool_count()` and `pool_list(i)`
    /// list StableSwap pools: where a node follows the chain, its pools are
    /// found there. No program calls it.
    CurvePoolList,
    /// Uniswap's `Permit2`: a `permittransferfrom` action's signature
    /// transfer.
    Permit2,
    /// Enso's `EnsoRouterFlashloanAdapter`: borrows from one of its trusted
    /// `lenders` and runs a program in the router's executor with the
    /// loan, which must pay it back.
    FlashloanRouterAdapter,
}

impl DeploymentRole {
    /// A chain may list several contracts of this role, told apart by
    /// address: generations of a helper nobody routes through (programs a
    /// client writes call them), and Curve's registries and factories.
    pub const fn several(self) -> bool {
        matches!(self, Self::PercentageMathHelpers | Self::CurvePoolList)
    }

    /// Its name in files and errors.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::MathHelpers => "mathHelpers",
            Self::ShortcutsHelpers => "shortcutsHelpers",
            Self::UniswapV2Router => "uniswapV2Router",
            Self::UniswapV3SwapRouter => "uniswapV3SwapRouter",
            Self::UniswapV3SwapRouter02 => "uniswapV3SwapRouter02",
            Self::UniswapV3PositionManager => "uniswapV3PositionManager",
            Self::BalancerVault => "balancerVault",
            Self::BalancerHelpers => "balancerHelpers",
            Self::PercentageMathHelpers => "percentageMathHelpers",
            Self::CurvePoolList => "curvePoolList",
            Self::Permit2 => "permit2",
            Self::FlashloanRouterAdapter => "flashloanRouterAdapter",
        }
    }
}

impl std::fmt::Display for DeploymentRole {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A contract deployed on a chain that programs may call.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Deployment {
    /// Chain id.
    pub chain_id: ChainId,
    /// Its role.
    pub role: DeploymentRole,
    /// The contract's name where it is published.
    pub name: String,
    /// Its address.
    pub address: Address,
    /// The DEX factory a periphery router is bound to.
    #[serde(default)]
    pub factory: Option<Address>,
    /// The deployed contract's `VERSION()` where its generations differ in
    /// functions (`EnsoShortcutsHelpers` 2 or 3).
    #[serde(default)]
    pub version: Option<u32>,
    /// The lenders a flash-loan adapter trusts, as its constructor was
    /// given them.
    #[serde(default)]
    pub lenders: Vec<FlashloanLender>,
    /// Where the address comes from (deployment records, verified source).
    pub source: String,
}

/// A lender a flash-loan adapter trusts.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct FlashloanLender {
    /// The lender's contract (for Uniswap V3, the factory of its pools).
    pub address: Address,
    /// Its protocol, as the adapter numbers them: 1 Morpho, 2 Aave V3,
    /// 3 Balancer V3, 4 Dolomite, 5 Uniswap V3.
    pub protocol: u8,
}

impl FlashloanLender {
    /// The adapter's number for Morpho Blue (`LenderProtocol.Morpho`).
    pub const MORPHO: u8 = 1;
    /// The adapter's number for an Aave V3 pool (`LenderProtocol.AaveV3`).
    pub const AAVE_V3: u8 = 2;
    /// The adapter's number for a Uniswap V3 factory's pools
    /// (`LenderProtocol.UniswapV3`): the adapter trusts the factory, and a
    /// pool that it finds by `getPool`.
    pub const UNISWAP_V3: u8 = 5;
}

/// The native coin of a network.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct NativeCurrency {
    /// Ticker, e.g. `ETH`.
    pub symbol: String,
    /// Name, e.g. `Ether`.
    pub name: String,
    /// Decimals, 18 on every EVM chain we know.
    pub decimals: u8,
}

/// A network (chain).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Network {
    /// Chain id.
    pub id: ChainId,
    /// Human name.
    pub name: String,
    /// The native coin.
    pub native_currency: NativeCurrency,
    /// The canonical wrapped native token (WETH, WBNB, ...).
    pub wrapped_native: Address,
    /// Average block time in seconds.
    pub block_time_seconds: f64,
}

/// `base` or `defi`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TokenKind {
    /// A plain asset.
    Base,
    /// A position token with underlying tokens.
    Defi,
}

impl TokenKind {
    /// The wire name.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Base => "base",
            Self::Defi => "defi",
        }
    }
}

/// A token on one chain.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Token {
    /// Chain id.
    pub chain_id: ChainId,
    /// Contract address (`NATIVE_TOKEN` for the native coin).
    pub address: Address,
    /// Base or DeFi.
    #[serde(rename = "type")]
    pub kind: TokenKind,
    /// ERC-20 decimals.
    pub decimals: u8,
    /// Ticker.
    pub symbol: String,
    /// Name.
    pub name: String,
    /// Logo URLs.
    #[serde(default)]
    pub logos_uri: Vec<String>,
    /// Project of a DeFi token (`aave`).
    #[serde(default)]
    pub project: Option<String>,
    /// Protocol slug of a DeFi token (`aave-v3`).
    #[serde(default)]
    pub protocol_slug: Option<String>,
    /// The contract a deposit into this DeFi token calls.
    #[serde(default)]
    pub primary_address: Option<Address>,
    /// Underlying tokens (same chain).
    #[serde(default)]
    pub underlying_tokens: Vec<Address>,
    /// Total APY in percent.
    #[serde(default)]
    pub apy: Option<f64>,
    /// Base APY in percent.
    #[serde(default)]
    pub apy_base: Option<f64>,
    /// Reward APY in percent.
    #[serde(default)]
    pub apy_reward: Option<f64>,
    /// Base borrow APY in percent.
    #[serde(default)]
    pub borrow_apy_base: Option<f64>,
    /// Reward borrow APY in percent.
    #[serde(default)]
    pub borrow_apy_reward: Option<f64>,
    /// TVL in USD.
    #[serde(default)]
    pub tvl: Option<f64>,
    /// Where the entry comes from: absent for a catalog file's, `node` for
    /// a token discovered from a followed chain (its metadata read with
    /// `eth_call`).
    #[serde(default)]
    pub source: Option<String>,
}

impl Token {
    /// A plain (base) token with no logo, project, yield or source.
    pub fn base(
        chain_id: ChainId,
        address: Address,
        decimals: u8,
        symbol: String,
        name: String,
    ) -> Self {
        Self {
            chain_id,
            address,
            kind: TokenKind::Base,
            decimals,
            symbol,
            name,
            logos_uri: Vec::new(),
            project: None,
            protocol_slug: None,
            primary_address: None,
            underlying_tokens: Vec::new(),
            apy: None,
            apy_base: None,
            apy_reward: None,
            borrow_apy_base: None,
            borrow_apy_reward: None,
            tvl: None,
            source: None,
        }
    }
}

/// A protocol: one integration (version) of a project.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Protocol {
    /// Project (`uniswap`).
    pub project: String,
    /// Slug (`uniswap-v2`).
    pub slug: String,
    /// Display name.
    #[serde(default)]
    pub name: Option<String>,
    /// Description.
    #[serde(default)]
    pub description: Option<String>,
    /// Website.
    #[serde(default)]
    pub url: Option<String>,
    /// Logo URLs.
    #[serde(default)]
    pub logos_uri: Vec<String>,
    /// Chains it is deployed on.
    #[serde(default)]
    pub chains: Vec<ChainId>,
}

/// One action of a standard.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct StandardAction {
    /// Action name (an entry of the `actions` section).
    pub action: String,
    /// Display name.
    #[serde(default)]
    pub name: Option<String>,
    /// Contract functions the action calls.
    #[serde(default)]
    pub function_names: Vec<String>,
    /// Chains the action is supported on.
    #[serde(default)]
    pub chains: Vec<ChainId>,
    /// Input names.
    #[serde(default)]
    pub inputs: Vec<String>,
}

/// A standard: the bundle actions of one protocol and its forks.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Standard {
    /// Protocol slug.
    pub protocol: String,
    /// Slugs of protocols that reuse this standard.
    #[serde(default)]
    pub forks: Vec<String>,
    /// Actions.
    pub actions: Vec<StandardAction>,
}

/// Metadata of one input of an action.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct InputSpec {
    /// Type description (`address`, `uint256 | CallOutput`, ...).
    #[serde(rename = "type")]
    pub kind: String,
    /// What the input means.
    pub description: String,
    /// Whether the input may be omitted.
    #[serde(default)]
    pub optional: bool,
}

/// A bundle action and its inputs.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ActionSpec {
    /// Action name.
    pub action: String,
    /// Inputs by name, in a stable order.
    pub inputs: BTreeMap<String, InputSpec>,
}

/// A named liquidity source.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Aggregator {
    /// Name clients pass in `ignoreAggregators`.
    pub name: String,
    /// Chains it serves.
    pub chains: Vec<ChainId>,
    /// Protocol slugs whose pools it provides.
    pub protocols: Vec<String>,
}

/// A bridge.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Bridge {
    /// `cctp`, `stargate`, `ccip` or `relay`.
    pub name: String,
    /// Proportional fee.
    #[serde(default)]
    pub fee_bps: u32,
    /// Fixed fee in USD.
    #[serde(default)]
    pub fixed_fee_usd: f64,
    /// Typical end-to-end latency.
    pub estimated_seconds: u64,
    /// Decimals every amount is carried in across chains (Stargate's
    /// "shared decimals", 6): the source takes only whole units of it, the
    /// rest (dust) stays with the sender.
    #[serde(default)]
    pub shared_decimals: Option<u8>,
    /// Entry contract per chain id (decimal string keys).
    pub contracts: BTreeMap<String, Address>,
    /// Tokens carried, per chain id (decimal string keys).
    pub tokens: BTreeMap<String, Vec<Address>>,
    /// What the bridge waits for on each source chain before it releases
    /// the message (decimal string keys), where the bridge documents it.
    #[serde(default)]
    pub confirmations: BTreeMap<String, BridgeConfirmations>,
    /// CCTP's other contracts and domains, for the bridge whose entry
    /// contract is a `TokenMessengerV2`.
    #[serde(default)]
    pub cctp: Option<CctpSetup>,
    /// LayerZero V2 beside the Stargate V2 pools (the bridge's entry
    /// contracts, listed in `layerzeroPools`).
    #[serde(default)]
    pub layerzero: Option<LayerZeroSetup>,
}

/// LayerZero V2 and Stargate V2's messaging beside the pools: where the
/// endpoint and each chain's `TokenMessaging` are, Enso's composer on each
/// chain, and the messaging fee the world's message library charges.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct LayerZeroSetup {
    /// `EndpointV2` (the same address on these chains).
    pub endpoint: Address,
    /// Stargate's `TokenMessaging` per chain (decimal chain id keys).
    pub token_messaging: BTreeMap<String, Address>,
    /// Enso's `LayerZeroReceiver` per chain (decimal chain id keys): the
    /// composer that runs a shortcut with what a transfer delivered.
    #[serde(default)]
    pub composer: BTreeMap<String, Address>,
    /// The native fee of one message from each chain, wei (decimal chain
    /// id keys): what the world's message library charges, and what a
    /// transaction pays beside its value. On chain LayerZero's quote
    /// depends on the destination and the gas bought there, and a value
    /// below it reverts the transaction before anything moves, so this is
    /// a ceiling: the endpoint refunds what its quote does not need to the
    /// sender.
    pub message_fee_wei: BTreeMap<String, u64>,
    /// Gas of a taxi's `lzReceive` on the destination (Stargate's
    /// enforced option for taxis).
    pub lz_receive_gas: u64,
}

impl LayerZeroSetup {
    /// The native fee of one message from `chain`.
    pub fn message_fee(&self, chain: ChainId) -> Option<u64> {
        self.message_fee_wei.get(&chain.0.to_string()).copied()
    }

    /// Stargate's `TokenMessaging` on `chain`.
    pub fn token_messaging(&self, chain: ChainId) -> Option<Address> {
        self.token_messaging.get(&chain.0.to_string()).copied()
    }

    /// Enso's composer on `chain`.
    pub fn composer(&self, chain: ChainId) -> Option<Address> {
        self.composer.get(&chain.0.to_string()).copied()
    }
}

/// Circle's CCTP V2 beside its `TokenMessengerV2` (the bridge's entry
/// contract): where the message transmitter and the token minter are, each
/// chain's CCTP domain, and what one message may burn.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CctpSetup {
    /// `MessageTransmitterV2` (the same address on every EVM chain).
    pub message_transmitter: Address,
    /// `TokenMinterV2` (the same address on every EVM chain).
    pub token_minter: Address,
    /// Each chain's CCTP domain (decimal chain id keys).
    pub domains: BTreeMap<String, u32>,
    /// The message format version (`MessageTransmitterV2.version()`).
    pub message_version: u32,
    /// The burn message format version (`messageBodyVersion()`).
    pub message_body_version: u32,
    /// The most of a token one message may burn, raw units
    /// (`burnLimitsPerMessage`).
    pub burn_limit_per_message: u64,
}

impl CctpSetup {
    /// The CCTP domain of `chain`.
    pub fn domain(&self, chain: ChainId) -> Option<u32> {
        self.domains.get(&chain.0.to_string()).copied()
    }
}

/// The blocks a bridge waits for on a source chain (CCTP's standard
/// transfer: Circle attests after hard finality).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct BridgeConfirmations {
    /// Blocks waited for.
    pub blocks: u32,
    /// The chain they are counted on, when it is not the source: a rollup
    /// whose batches finalize on Ethereum waits for Ethereum blocks.
    #[serde(default)]
    pub counted_on: Option<ChainId>,
}

/// A LayerZero (Stargate) pool.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct LayerZeroPool {
    /// Chain id.
    pub chain_id: ChainId,
    /// Token the pool carries.
    pub token: Address,
    /// Pool contract.
    pub pool: Address,
    /// Token decimals.
    pub decimals: u8,
    /// LayerZero endpoint id of the chain.
    pub eid: u32,
    /// Stargate's asset id of the token (1 USDC, 2 USDT, 13 ETH), where the
    /// catalog records the pool's deployment.
    #[serde(default)]
    pub asset_id: Option<u16>,
    /// The pool's `FeeLibV1`.
    #[serde(default)]
    pub fee_lib: Option<Address>,
    /// Which published Stargate contract the pool is.
    #[serde(default)]
    pub kind: Option<StargatePoolKind>,
}

/// The published Stargate V2 contract of a pool.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum StargatePoolKind {
    /// `StargatePoolUSDC`.
    Usdc,
    /// `StargatePoolMigratable` (USDT).
    Migratable,
    /// `StargatePool`.
    Pool,
    /// `StargatePoolNative` (the chain's coin).
    Native,
}

/// A non-tokenized position.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Position {
    /// Chain id.
    pub chain_id: ChainId,
    /// Project.
    pub project: String,
    /// Protocol slug.
    pub protocol: String,
    /// Contract that represents the position.
    pub address: Address,
    /// Opaque position id.
    pub position_id: String,
    /// Contract to call.
    pub primary_address: Address,
    /// Display name.
    #[serde(default)]
    pub name: Option<String>,
    /// Logo URL.
    #[serde(default)]
    pub logos_uri: Option<String>,
    /// Underlying tokens (same chain).
    #[serde(default)]
    pub underlying_tokens: Vec<Address>,
}

/// The pool family a DEX factory deploys.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum FactoryKind {
    /// Uniswap V2-style pairs.
    UniswapV2,
    /// Uniswap V3-style pools.
    UniswapV3,
}

/// A DEX factory.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DexFactory {
    /// Chain id.
    pub chain_id: ChainId,
    /// Protocol slug of the pools it deploys.
    pub protocol: String,
    /// Pool family.
    pub kind: FactoryKind,
    /// Factory address.
    pub factory: Address,
    /// Init code hash of its pools.
    pub init_code_hash: alloy_primitives::B256,
}

/// The contracts of one routing strategy on one chain.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ContractSet {
    /// Chain id.
    pub chain_id: ChainId,
    /// Strategy.
    #[serde(deserialize_with = "de_strategy")]
    pub strategy: RoutingStrategy,
    /// Router (the approval spender for router strategies).
    #[serde(default)]
    pub router: Option<Address>,
    /// Shortcuts executor (never an approval spender).
    #[serde(default)]
    pub executor: Option<Address>,
    /// Delegate (shortcuts implementation for smart accounts).
    #[serde(default)]
    pub delegate: Option<Address>,
    /// Wallet factory (ensowallet-v2).
    #[serde(default)]
    pub factory: Option<Address>,
    /// The wallet implementation the factory clones (ensowallet-v2): its
    /// constructor argument, which the wallet addresses derive from.
    #[serde(default)]
    pub implementation: Option<Address>,
    /// The ERC-4337 account factory (Enso's `ERC4337CloneFactory`) whose
    /// accounts (`EnsoReceiver` clones) run an `ensowallet-v2` shortcut
    /// for a backend (`executionMode=backend`) through the EntryPoint.
    #[serde(default)]
    pub account_factory: Option<Address>,
    /// The account implementation that factory clones.
    #[serde(default)]
    pub account_implementation: Option<Address>,
    /// The ERC-4337 EntryPoint (v0.7) the accounts trust.
    #[serde(default)]
    pub entry_point: Option<Address>,
    /// Where the addresses come from (deployment records); absent for an
    /// operator's own overrides.
    #[serde(default)]
    pub source: Option<String>,
}

fn de_strategy<'de, D: serde::Deserializer<'de>>(d: D) -> Result<RoutingStrategy, D::Error> {
    let s = String::deserialize(d)?;
    s.parse().map_err(|_| serde::de::Error::custom(format!("unknown routing strategy `{s}`")))
}
