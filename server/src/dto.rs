//! Wire types: the JSON shapes of the public API (`enso-openapi-schemas`,
//! the TypeScript client's `types.ts`). Field names here are the contract;
//! domain types never serialize themselves.

use alloy_primitives::Address;
use serde::Serialize;
use utoipa::ToSchema;

/// Lower-case `0x` hex of an address (the form the API returns).
pub fn addr(a: Address) -> String {
    format!("{a:#x}")
}

/// `GET /networks` item.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ConnectedNetwork {
    /// Chain id.
    pub id: u64,
    /// Network name.
    pub name: String,
    /// Whether this instance has market state for the chain.
    pub is_connected: bool,
}

/// A network reference.
#[derive(Debug, Serialize, ToSchema)]
pub struct Network {
    /// Chain id.
    pub id: u64,
    /// Network name.
    pub name: String,
}

/// `ProtocolModel`.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProtocolModel {
    /// Project.
    pub project: String,
    /// Protocol slug.
    pub slug: String,
    /// Name.
    pub name: Option<String>,
    /// Description.
    pub description: Option<String>,
    /// Website.
    pub url: Option<String>,
    /// Logos.
    pub logos_uri: Vec<String>,
    /// Chains.
    pub chains: Vec<Network>,
}

/// `Project`.
#[derive(Debug, Serialize, ToSchema)]
pub struct Project {
    /// Project id.
    pub id: String,
    /// Chain ids.
    pub chains: Vec<u64>,
    /// Protocol slugs.
    pub protocols: Vec<String>,
}

/// A protocol reference inside a standard.
#[derive(Debug, Serialize, ToSchema)]
pub struct ProtocolRef {
    /// Slug.
    pub slug: String,
    /// Website.
    pub url: String,
}

/// `StandardAction`.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct StandardAction {
    /// Action name.
    pub action: String,
    /// Display name.
    pub name: Option<String>,
    /// Contract functions called.
    pub function_names: Vec<String>,
    /// Chains.
    pub supported_chains: Vec<Network>,
    /// Input names.
    pub inputs: Vec<String>,
}

/// `Standard`.
#[derive(Debug, Serialize, ToSchema)]
pub struct Standard {
    /// The protocol.
    pub protocol: ProtocolRef,
    /// Forks reusing it.
    pub forks: Vec<ProtocolRef>,
    /// Actions.
    pub actions: Vec<StandardAction>,
}

/// `ActionInputMetadata`.
#[derive(Debug, Serialize, ToSchema)]
pub struct ActionInput {
    /// Type.
    #[serde(rename = "type")]
    pub kind: String,
    /// Description.
    pub description: String,
    /// Optional input.
    pub optional: bool,
}

/// `Action`.
#[derive(Debug, Serialize, ToSchema)]
pub struct Action {
    /// Action name.
    pub action: String,
    /// Inputs by name.
    pub inputs: std::collections::BTreeMap<String, ActionInput>,
}

/// `PaginationMeta`.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PaginationMeta {
    /// Total number of matching items.
    pub total: u64,
    /// Last page number (1-based; 1 when nothing matches).
    pub last_page: u64,
    /// This page (1-based).
    pub current_page: u64,
    /// Page size.
    pub per_page: u64,
    /// Previous page, or null.
    pub prev: Option<u64>,
    /// Next page, or null.
    pub next: Option<u64>,
    /// Offset of the next page's first item, or null at the end.
    pub cursor: Option<u64>,
}

/// `TokenModel` (an underlying token).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TokenModel {
    /// Address.
    pub address: String,
    /// Chain id.
    pub chain_id: u64,
    /// `base` or `defi`.
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// Decimals.
    pub decimals: u8,
    /// Symbol (with `includeMetadata=true`).
    pub symbol: Option<String>,
    /// Name (with `includeMetadata=true`).
    pub name: Option<String>,
    /// Logos (with `includeMetadata=true`).
    pub logos_uri: Option<Vec<String>>,
}

/// `PositionModel` (a token record of `/tokens`): a [`TokenModel`] plus its
/// DeFi details.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PositionModel {
    /// Address, chain, type, decimals and (with `includeMetadata=true`)
    /// symbol, name and logos.
    #[serde(flatten)]
    pub token: TokenModel,
    /// Underlying tokens (null with `includeUnderlying=false` or for base tokens).
    pub underlying_tokens: Option<Vec<TokenModel>>,
    /// Project.
    pub project: Option<String>,
    /// Protocol slug (same as `protocolSlug`).
    pub protocol: Option<String>,
    /// Protocol slug.
    pub protocol_slug: Option<String>,
    /// APY, percent.
    pub apy: Option<f64>,
    /// Base APY, percent.
    pub apy_base: Option<f64>,
    /// Reward APY, percent.
    pub apy_reward: Option<f64>,
    /// Base borrow APY, percent.
    pub borrow_apy_base: Option<f64>,
    /// Reward borrow APY, percent.
    pub borrow_apy_reward: Option<f64>,
    /// TVL, USD.
    pub tvl: Option<f64>,
    /// Contract a deposit calls.
    pub primary_address: Option<String>,
    /// Where the token comes from: `catalog` (the embedded catalog or an
    /// operator's file), or `node` (read from the node that follows its
    /// chain, as one of its pools' tokens).
    #[schema(example = "catalog")]
    pub source: String,
}

/// A page of tokens.
#[derive(Debug, Serialize, ToSchema)]
pub struct TokenPage {
    /// Pagination.
    pub meta: PaginationMeta,
    /// Tokens.
    pub data: Vec<PositionModel>,
}

/// `NonTokenizedModel`.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct NonTokenizedModel {
    /// Chain id.
    pub chain_id: u64,
    /// Project.
    pub project: String,
    /// Protocol slug.
    pub protocol: String,
    /// Contract representing the position.
    pub address: String,
    /// Opaque id.
    pub position_id: String,
    /// Contract to call.
    pub primary_address: String,
    /// Name.
    pub name: Option<String>,
    /// Logo.
    pub logos_uri: Option<String>,
    /// Underlying tokens.
    pub underlying_tokens: Vec<TokenModel>,
}

/// A page of non-tokenized positions.
#[derive(Debug, Serialize, ToSchema)]
pub struct NonTokenizedPage {
    /// Pagination.
    pub meta: PaginationMeta,
    /// Positions.
    pub data: Vec<NonTokenizedModel>,
}

/// `Price`.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Price {
    /// USD per whole token.
    pub price: f64,
    /// Token address.
    pub address: String,
    /// Decimals.
    pub decimals: u8,
    /// Symbol.
    pub symbol: String,
    /// Name.
    pub name: String,
    /// Timestamp of the block the price derives from (unix seconds).
    pub timestamp: u64,
    /// Chain id.
    pub chain_id: u64,
    /// Confidence, 0 to 1.
    pub confidence: f64,
}

/// `GET /volume/{chainId}`.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Volume {
    /// Chain id.
    pub chain_id: u64,
    /// USD value of every input this instance routed on the chain.
    pub total_volume_usd: f64,
    /// Number of transactions this instance built on the chain.
    pub transaction_count: u64,
}

/// Destination side of a LayerZero pool.
#[derive(Debug, Serialize, ToSchema)]
pub struct LzDestination {
    /// Destination pool.
    pub pool: String,
    /// Destination token.
    pub token: String,
    /// Destination token decimals.
    pub decimals: u8,
}

/// `LZPoolLookupResponse`.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct LzPool {
    /// Source pool, or null when the token has none on the chain.
    pub pool: Option<String>,
    /// Source chain.
    pub chain_id: u64,
    /// Destination chain, or null when none matches.
    pub destination_chain_id: Option<u64>,
    /// Source token.
    pub token: String,
    /// Source token decimals, or null for an unknown token.
    pub decimals: Option<u8>,
    /// Destination pool and token, or null when none matches.
    pub destination_data: Option<LzDestination>,
}

/// `CcipRouterResponse`.
#[derive(Debug, Serialize, ToSchema)]
pub struct CcipRouter {
    /// CCIP router of the chain.
    pub router: String,
}

/// `CctpTokenMessengerResponse`.
#[derive(Debug, Serialize, ToSchema)]
pub struct CctpTokenMessenger {
    /// TokenMessengerV2 of the chain.
    pub address: String,
}

/// Bridge status (`BridgeTransactionResponse` and its per-bridge variants).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct BridgeStatus {
    /// Source chain.
    pub source_chain_id: u64,
    /// Source transaction.
    pub source_tx_hash: String,
    /// `pending`, `inflight`, `delivered`, `failed` or `unknown`.
    pub status: &'static str,
    /// CCIP only: finality time of the source chain, seconds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source_chain_id_finality: Option<u64>,
    /// Destination chain, once known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub destination_chain_id: Option<u64>,
    /// Destination transaction, once delivered.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub destination_tx_hash: Option<String>,
    /// CCTP: `fast` (finality executed up to 1000) or `standard`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub transfer_type: Option<&'static str>,
    /// CCTP: why Circle delays the message, when it says.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub delay_reason: Option<String>,
    /// CCTP: the burn's parameters, when the source called
    /// `depositForBurn`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deposit_for_burn: Option<DepositForBurn>,
    /// CCTP: the burn's parameters, when it called
    /// `depositForBurnWithHook`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deposit_for_burn_with_hook: Option<DepositForBurn>,
    /// Enso's `ShortcutExecuted` in the source transaction.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub enso_source_event: Option<EnsoEvent>,
    /// What ran on arrival: Enso's `ShortcutExecuted` on the destination
    /// (LayerZero: the composed shortcut), with whether it succeeded.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub enso_destination_event: Option<EnsoEvent>,
    /// LayerZero / Stargate: the message as the endpoints see it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub layer_zero_message: Option<LayerZeroMessage>,
    /// Why the status is not further along.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// `DepositForBurnParams` / `DepositForBurnWithHookParams`.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DepositForBurn {
    /// Amount burned, raw units.
    pub amount: String,
    /// CCTP destination domain.
    pub destination_domain: u32,
    /// Mint recipient, bytes32.
    pub mint_recipient: String,
    /// Token burned on the source chain.
    pub burn_token: String,
    /// Who may relay (bytes32; zero: anyone).
    pub destination_caller: String,
    /// Most fee it pays, raw units.
    pub max_fee: String,
    /// Finality asked for.
    pub min_finality_threshold: u32,
    /// Hook data (`depositForBurnWithHook` only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hook_data: Option<String>,
}

/// `EnsoEvent`: a `ShortcutExecuted`.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct EnsoEvent {
    /// Account id.
    pub account_id: String,
    /// Request id.
    pub request_id: String,
    /// Block.
    pub block_number: u64,
    /// Transaction.
    pub transaction_hash: String,
    /// Chain.
    pub chain_id: u64,
    /// Whether the shortcut ran (it emits only when it did).
    pub success: bool,
    /// The failed shortcut's revert data, when it failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// `LayerZeroMessageStatus`.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct LayerZeroMessage {
    /// Source endpoint id.
    pub src_eid: u32,
    /// Destination endpoint id.
    pub dst_eid: u32,
    /// Source chain.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub src_chain_id: Option<u64>,
    /// Destination chain.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dst_chain_id: Option<u64>,
    /// `INFLIGHT`, `CONFIRMING` or `DELIVERED`.
    pub status: &'static str,
    /// Source transaction.
    pub src_tx_hash: String,
    /// Destination transaction, once delivered.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dst_tx_hash: Option<String>,
    /// Source block.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub src_block_number: Option<u64>,
    /// Destination block, once delivered.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dst_block_number: Option<u64>,
    /// The sending OApp (Stargate's `TokenMessaging`).
    pub sender: String,
    /// The receiving OApp.
    pub receiver: String,
}

/// `CctpClaimTransaction`.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CctpClaimTransaction {
    /// The destination's `MessageTransmitterV2`.
    pub to: String,
    /// `receiveMessage(message, attestation)`.
    pub data: String,
    /// Wei sent: "0".
    pub value: String,
    /// Destination chain.
    pub chain_id: u64,
}

/// `CctpClaimResponse`.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CctpClaim {
    /// Whether a claim transaction is available.
    pub claimable: bool,
    /// Where `receiveMessage` is called, once known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub destination_chain_id: Option<u64>,
    /// The claim.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tx: Option<CctpClaimTransaction>,
    /// Why not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// `/health`.
#[derive(Debug, Serialize, ToSchema)]
pub struct Health {
    /// `ok`.
    pub status: &'static str,
}

/// One feed in `/ready`.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct FeedStatus {
    /// Chain.
    pub chain_id: u64,
    /// Source: `embedded`, or the protocol an RPC feed follows.
    pub source: String,
    /// `indexing`, `ready`, `delayed`, `stale` or `ended`.
    pub status: &'static str,
    /// Head block.
    pub head_block: u64,
    /// Blocks behind.
    pub lag_blocks: u64,
    /// While an RPC feed indexes: how far it is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub progress: Option<IndexProgress>,
}

/// How far an RPC feed's indexing is.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct IndexProgress {
    /// `discovery` (the factory's creation events, counted in blocks) or
    /// `state` (the pools found, counted in pool reads).
    pub phase: &'static str,
    /// Done so far.
    pub done: u64,
    /// Of this many.
    pub total: u64,
}

/// `/ready`.
#[derive(Debug, Serialize, ToSchema)]
pub struct Ready {
    /// `ready` or `not_ready`.
    pub status: &'static str,
    /// Every feed.
    pub feeds: Vec<FeedStatus>,
}

/// One source of a chain in `/status.json`.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SourceStatus {
    /// `demo`, `file`, or the protocol an RPC feed follows.
    pub source: String,
    /// `indexing`, `ready`, `delayed`, `stale` or `ended`.
    pub status: &'static str,
    /// Head block it published.
    pub head_block: u64,
    /// Blocks behind the node.
    pub lag_blocks: u64,
}

/// One chain in `/status.json`.
#[derive(Debug, Default, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ChainStatus {
    /// Chain id.
    pub chain_id: u64,
    /// Network name.
    pub name: String,
    /// The newest head any source published.
    pub head_block: u64,
    /// The largest lag of its sources, in blocks.
    pub lag_blocks: u64,
    /// The largest lag of its sources, in seconds behind the node's head.
    pub lag_seconds: f64,
    /// Pools in the published state.
    pub pools: usize,
    /// Tokens known (catalog and discovered).
    pub tokens: usize,
    /// Its sources.
    pub sources: Vec<SourceStatus>,
}

/// `/status.json`.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Status {
    /// Server version.
    pub version: &'static str,
    /// Seconds since start.
    pub uptime_seconds: u64,
    /// Every chain.
    pub chains: Vec<ChainStatus>,
    /// The last minutes of requests.
    pub window: crate::status::Window,
}

/// An address in a request body: 0x and 40 hex digits (mixed case must be a
/// valid EIP-55 checksum).
#[derive(Debug, ToSchema)]
#[schema(value_type = String, pattern = "^0x[0-9a-fA-F]{40}$")]
pub struct AddressText(pub String);

/// A wei amount in a request body: a decimal integer within uint256.
#[derive(Debug, ToSchema)]
#[schema(value_type = String, pattern = "^[0-9]{1,78}$")]
pub struct WeiText(pub String);

/// `POST /shortcuts/quote` body: the parameters of `GET /shortcuts/quote`
/// as one JSON object (scalars are accepted where arrays are declared,
/// numbers as strings).
#[derive(Debug, ToSchema)]
pub struct QuoteBody(pub serde_json::Map<String, serde_json::Value>);

/// `POST /shortcuts/route` body (documentation of the accepted shape; the
/// handler coerces scalars to arrays and numbers to strings).
#[derive(Debug, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RouteShortcutVariableInputs {
    /// Chain the transaction executes on.
    #[schema(minimum = 1, maximum = 9223372036854775807i64)]
    pub chain_id: u64,
    /// Sender.
    #[schema(pattern = "^0x[0-9a-fA-F]{40}$")]
    pub from_address: String,
    /// Routing strategy (default router).
    #[schema(
        pattern = "^(ensowallet-v2|ensowallet|servicewallet|servicewallet-v2|router|delegate|router-legacy|delegate-legacy)$"
    )]
    pub routing_strategy: Option<String>,
    /// `user` (default) or `backend`.
    #[schema(pattern = "^(user|backend)$")]
    pub execution_mode: Option<String>,
    /// Deprecated: send the output to the EOA.
    pub to_eoa: Option<bool>,
    /// Receiver of tokenOut; required with destinationChainId.
    #[schema(pattern = "^0x[0-9a-fA-F]{40}$")]
    pub receiver: Option<String>,
    /// Spender of tokenIn.
    #[schema(pattern = "^0x[0-9a-fA-F]{40}$")]
    pub spender: Option<String>,
    /// Receiver of dust.
    #[schema(pattern = "^0x[0-9a-fA-F]{40}$")]
    pub refund_receiver: Option<String>,
    /// Amounts in wei, one per tokenIn (required unless amountOut is
    /// given).
    #[schema(min_items = 1)]
    pub amount_in: Option<Vec<WeiText>>,
    /// Exact output wanted, wei, instead of amountIn (one tokenIn, one
    /// tokenOut); slippage then applies to the input.
    pub amount_out: Option<WeiText>,
    /// Minimum amounts out in wei, one per tokenOut.
    pub min_amount_out: Option<Vec<WeiText>>,
    /// Slippage in bps, 0 to 10000 (default 50); wins over minAmountOut.
    #[schema(pattern = "^[0-9]{1,5}$")]
    pub slippage: Option<String>,
    /// Fee in bps per amountIn, 0 to 100.
    pub fee: Option<Vec<String>>,
    /// Fee receiver; required with fee.
    #[schema(pattern = "^0x[0-9a-fA-F]{40}$")]
    pub fee_receiver: Option<String>,
    /// Liquidity sources to exclude.
    pub ignore_aggregators: Option<Vec<String>>,
    /// Standards to exclude.
    pub ignore_standards: Option<Vec<String>>,
    /// Bridges to exclude.
    pub ignore_bridges: Option<Vec<String>>,
    /// Referral code, at most 16 characters.
    #[schema(max_length = 16)]
    pub referral_code: Option<String>,
    /// Input tokens.
    #[schema(min_items = 1)]
    pub token_in: Vec<AddressText>,
    /// Output tokens.
    #[schema(min_items = 1)]
    pub token_out: Vec<AddressText>,
    /// Destination chain of a cross-chain route.
    #[schema(minimum = 1, maximum = 9223372036854775807i64)]
    pub destination_chain_id: Option<u64>,
}

/// One bundle action (`POST /shortcuts/bundle` body is an array of them).
/// The action must be one the protocol's standard supports (`GET
/// /standards`); an argument `{"useOutputOfCallAt": i}` must name an earlier
/// action.
#[derive(Debug, ToSchema)]
pub struct BundleAction {
    /// Protocol slug.
    pub protocol: String,
    /// Action name (`GET /actions`).
    pub action: String,
    /// Action arguments.
    pub args: serde_json::Map<String, serde_json::Value>,
}

/// `POST /shortcuts/static/ipor` body.
#[derive(Debug, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct IporShortcutInput {
    /// Use the shared router (default true).
    pub is_router: Option<bool>,
    /// Amount of tokenIn in wei.
    #[schema(pattern = "^[0-9]{1,78}$")]
    pub amount_in: String,
    /// Input token.
    #[schema(pattern = "^0x[0-9a-fA-F]{40}$")]
    pub token_in: String,
    /// Token B to buy.
    #[schema(pattern = "^0x[0-9a-fA-F]{40}$")]
    pub token_b_to_buy: String,
    /// Share of amountIn that buys token B, bps, 0 to 10000.
    #[schema(pattern = "^[0-9]{1,5}$")]
    pub percentage_for_token_b: String,
    /// Slippage in bps (default 300).
    #[schema(pattern = "^[0-9]{1,5}$")]
    pub slippage: Option<String>,
    /// Simulate before answering.
    pub simulate: Option<bool>,
}

/// A step of a split (`RouteSegment` of the TypeScript client).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RouteSegment {
    /// Action.
    pub action: &'static str,
    /// Protocol slug.
    pub protocol: String,
    /// Pool or contract.
    pub primary: String,
    /// Input token.
    pub token_in: Vec<String>,
    /// Output token.
    pub token_out: Vec<String>,
}

/// `Hop`: one step of a route, or a split with its paths in
/// `internalRoutes`.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Hop {
    /// Input tokens.
    pub token_in: Vec<String>,
    /// Output tokens.
    pub token_out: Vec<String>,
    /// Protocol slug (`enso` for a split).
    pub protocol: String,
    /// `swap`, `deposit`, `redeem`, `bridge`, or `split`.
    pub action: &'static str,
    /// Pool or contract called (for a split, its first pool).
    pub primary: String,
    /// Chain.
    pub chain_id: u64,
    /// For a bridge hop: the chain it leaves.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source_chain_id: Option<u64>,
    /// For a bridge hop: the chain it arrives on.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub destination_chain_id: Option<u64>,
    /// Pools the hop uses.
    pub pool_addresses: Vec<String>,
    /// For a split: one list of segments per path; empty otherwise.
    pub internal_routes: Vec<Vec<RouteSegment>>,
    /// The liquidity sources (protocols) the hop draws on: its own, or for
    /// a split every path's.
    pub sources: Vec<String>,
    /// For the deposit into a non-tokenized position: its position id.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub position_out: Option<Vec<String>>,
    /// Exact amounts of the hop: `amountIn`, `amountOut` (wei strings).
    pub args: std::collections::BTreeMap<&'static str, String>,
}

/// One amount, or one per output token.
#[derive(Debug, Serialize, ToSchema)]
#[serde(untagged)]
pub enum OneOrMany {
    /// A single output.
    One(String),
    /// Several outputs, in `tokenOut` order.
    Many(Vec<String>),
}

/// `QuoteEndpointResponse`.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct QuoteResponse {
    /// With `amountOut` (an exact output): the input it takes, wei, fee
    /// included.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub amount_in: Option<String>,
    /// Exact output in wei: a string, or an array with several `tokenOut`.
    pub amount_out: OneOrMany,
    /// USD value lost from inputs to outputs, bps; null without USD prices.
    pub price_impact: Option<f64>,
    /// The route.
    pub route: Vec<Hop>,
    /// Fee taken off each input before routing, wei.
    pub fee_amount: Vec<String>,
    /// This instance's own fee taken off each input, wei (its
    /// `operator_fee_bps`; zeros without one).
    pub enso_fee_amount: Vec<String>,
    /// Gas estimate of the transaction (per-step estimates until execution
    /// measures it).
    pub gas: String,
    /// Block of the chain state the quote was computed on.
    pub block_number: u64,
    /// Names this quote: the state it was computed on (chain, block, and
    /// the block's revision) and the normalized request.
    /// `GET /shortcuts/quote/{quoteId}` answers these very bytes again
    /// while that block is held.
    pub quote_id: String,
    /// Bridge crossings of a cross-chain route, with their latency.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub bridging_estimates: Vec<BridgeLatencyEstimate>,
}

/// `POST /shortcuts/quote/batch` body (documentation of the accepted
/// shape: each item takes the parameters of `GET /shortcuts/quote`, coerced
/// as POST bodies are).
#[derive(Debug, ToSchema)]
pub struct QuoteBatchRequest {
    /// 1 to 1,000 quote requests.
    #[schema(min_items = 1, max_items = 1000)]
    pub quotes: Vec<serde_json::Map<String, serde_json::Value>>,
}

/// `POST /shortcuts/quote/batch` answer.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct QuoteBatchResponse {
    /// Per chain id (as a string key): the block every quote of that chain
    /// was computed on.
    pub block_numbers: std::collections::BTreeMap<String, u64>,
    /// One result per quote, in order.
    pub results: Vec<QuoteBatchItem>,
}

/// One quote's answer in a batch.
#[derive(Debug, Serialize, ToSchema)]
pub struct QuoteBatchItem {
    /// The status its own `GET /shortcuts/quote` would have answered.
    pub status: u16,
    /// The quote, or the standard error body.
    pub body: QuoteBatchBody,
}

/// A quote or an error body.
#[derive(Debug, Serialize, ToSchema)]
#[serde(untagged)]
pub enum QuoteBatchBody {
    /// 200.
    Quote(Box<QuoteResponse>),
    /// 4xx or 5xx.
    Error(crate::error::ErrorBody),
}

/// `POST /shortcuts/quote/ladder` body.
#[derive(Debug, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct LadderRequest {
    /// Chain (default 1).
    pub chain_id: Option<u64>,
    /// Input token.
    pub token_in: AddressText,
    /// Output token.
    pub token_out: AddressText,
    /// 1 to 64 amounts in wei, strictly increasing.
    #[schema(min_items = 1, max_items = 64)]
    pub amounts_in: Vec<WeiText>,
}

/// `POST /shortcuts/quote/ladder` answer.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct LadderResponse {
    /// The block every point was computed on.
    pub block_number: u64,
    /// One point per amount, in order.
    pub points: Vec<LadderPoint>,
}

/// One point of a ladder.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct LadderPoint {
    /// Amount in, wei.
    pub amount_in: String,
    /// Exact amount out, wei.
    pub amount_out: String,
    /// tokenOut per tokenIn, in whole tokens, of the next small part of the
    /// input (a float: a guide, never an amount).
    pub marginal_price: f64,
    /// Gas estimate of the transaction.
    pub gas: String,
    /// The route.
    pub route: Vec<Hop>,
}

/// `BridgeLatencyEstimate`.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct BridgeLatencyEstimate {
    /// Chain the bridge leaves.
    pub from_chain_id: u64,
    /// Chain it arrives on.
    pub to_chain_id: u64,
    /// Token received on the destination chain.
    pub token: String,
    /// Typical end-to-end latency, seconds (the bridge's catalog estimate).
    pub estimated_seconds: u64,
    /// The bridge that produced the estimate.
    pub bridge: String,
    /// Blocks the bridge waits for before it releases the message (the
    /// catalog's record for the source chain; absent where it has none).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub send_confirmations: Option<u32>,
    /// Blocks the delivery waits for on the destination: its inclusion.
    pub receive_confirmations: u32,
    /// Average block time of the chain the send confirmations are counted
    /// on, seconds (the source's, or Ethereum's for a rollup whose batches
    /// finalize there; the catalog's network).
    pub send_block_time_seconds: f64,
    /// Average block time assumed for the destination chain, seconds.
    pub receive_block_time_seconds: f64,
    /// Where the figures come from: `catalog` (the bridge's and the
    /// networks' records of the loaded catalog).
    pub source: &'static str,
    /// What the figures assume beyond the source chain's own blocks, or
    /// that the catalog records no confirmations for it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// `Transaction`: what a client signs and sends (all strings, as `ethers`
/// takes them).
#[derive(Debug, Serialize, ToSchema)]
pub struct Transaction {
    /// Calldata, `0x` hex.
    pub data: String,
    /// Contract called.
    pub to: String,
    /// Sender.
    pub from: String,
    /// Wei sent, decimal.
    pub value: String,
}

/// `UserOperation`: an ERC-4337 v0.7 operation in the bundler RPC's
/// unpacked form (`eth_sendUserOperation`): quantities as `0x` hex, bytes as
/// `0x` hex. Unsigned: the account's signer puts its signature of the
/// EIP-191 message of `EntryPoint.getUserOpHash(op)` in `signature`.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct UserOperation {
    /// The account.
    pub sender: String,
    /// The EntryPoint's nonce for it (key 0).
    pub nonce: String,
    /// The account factory, while the account is not deployed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub factory: Option<String>,
    /// The factory's call that deploys it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub factory_data: Option<String>,
    /// The account's call.
    pub call_data: String,
    /// Gas for the call.
    pub call_gas_limit: String,
    /// Gas for deployment and validation.
    pub verification_gas_limit: String,
    /// Gas for what the EntryPoint cannot measure.
    pub pre_verification_gas: String,
    /// `0x0`: the backend that submits it pays the gas.
    pub max_fee_per_gas: String,
    /// `0x0`.
    pub max_priority_fee_per_gas: String,
    /// `0x` until signed.
    pub signature: String,
}

/// `RouteShortcutTransaction`.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RouteResponse {
    /// Gas the transaction used when it was executed against the snapshot.
    pub gas: String,
    /// With `amountOut` (an exact output): the input it takes at the
    /// quoted state, wei, fee included.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub amount_in: Option<String>,
    /// With `amountOut`: the most the transaction takes (`amountIn` with
    /// the slippage); what it does not use goes back to `refundReceiver`
    /// (default: the sender). Approve this much.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_amount_in: Option<String>,
    /// Exact output in wei: a string, or an array with several `tokenOut`.
    pub amount_out: OneOrMany,
    /// The least the receiver gets, enforced on chain (slippage applied).
    pub min_amount_out: OneOrMany,
    /// USD value lost from inputs to outputs, bps; null without USD prices.
    pub price_impact: Option<f64>,
    /// Fee taken off each input, wei.
    pub fee_amount: Vec<String>,
    /// This instance's own fee taken off each input and paid inside the
    /// program, wei (zeros without one).
    pub enso_fee_amount: Vec<String>,
    /// Block of the state the transaction was built and executed on.
    pub created_at: u64,
    /// Same block (the spec names it twice).
    pub block_number: u64,
    /// Unix seconds after which the route should be fetched again.
    pub valid_until: u64,
    /// Names the route's quote on the state the transaction was executed
    /// on: `GET /shortcuts/quote/{quoteId}` answers that quote (the same
    /// amounts and route) while the block is held. The transaction itself
    /// is not replayed: each carries a request id of its own.
    pub quote_id: String,
    /// The transaction.
    pub tx: Transaction,
    /// The route.
    pub route: Vec<Hop>,
    /// Bridge crossings of a cross-chain route, with their latency.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub bridging_estimates: Vec<BridgeLatencyEstimate>,
    /// `ensowallet-v2` with `executionMode=backend`: the ERC-4337 operation
    /// of the sender's account that `tx` (`handleOps`) submits.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub user_op: Option<UserOperation>,
    /// With `userOp`: `EntryPoint.getUserOpHash(userOp)`, whose EIP-191
    /// message the account's signer signs (then set in `userOp.signature`
    /// and in `tx`'s `handleOps`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub user_op_hash: Option<String>,
}

/// `NontokenizedRouteShortcutTransaction`.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct NontokenizedResponse {
    /// Block of the state the transaction was built and executed on.
    pub created_at: u64,
    /// Gas the transaction used when it was executed against the snapshot.
    pub gas: String,
    /// What goes into the position, in its underlying token, wei (the debt
    /// repaid, the LP tokens staked).
    pub amount_deposited: String,
    /// USD value lost from inputs to the underlying, bps; null without USD
    /// prices.
    pub price_impact: Option<f64>,
    /// The transaction.
    pub tx: Transaction,
    /// The route to the underlying token (empty when the input is it).
    pub route: Vec<Hop>,
    /// Fee taken off each input, wei.
    pub fee_amount: Vec<String>,
    /// This instance's own fee, wei: none is taken on positions (zeros).
    pub enso_fee_amount: Vec<String>,
    /// Unix seconds after which the route should be fetched again.
    pub valid_until: u64,
}

/// `IporLog`: a log of the simulated transaction.
#[derive(Debug, Serialize, ToSchema)]
pub struct IporLog {
    /// Topics, `0x` hex.
    pub topics: Vec<String>,
    /// Data, `0x` hex.
    pub data: String,
    /// Emitting contract.
    pub address: String,
}

/// `IporShortcutTransaction`.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct IporResponse {
    /// Block of the state the transaction was built and executed on.
    pub created_at: u64,
    /// The transaction.
    pub tx: Transaction,
    /// The logs of its execution against that state (the swap, the vault's
    /// `Deposit` with the shares minted, `ShortcutExecuted`…).
    pub logs: Vec<IporLog>,
    /// Always empty: the transaction was executed in this server's own EVM
    /// (its logs are above); there is no hosted simulation to link to.
    #[serde(rename = "simulationURL")]
    pub simulation_url: String,
}

/// An approval to send before a bundle (`BundleApprovalTransaction`).
#[derive(Debug, Serialize, ToSchema)]
pub struct BundleApproval {
    /// The token contract.
    pub to: String,
    /// The owner who signs it.
    pub from: String,
    /// `approve(spender, amount)` calldata.
    pub data: String,
    /// What it allows.
    pub description: String,
}

/// `BundleShortcutTransaction`.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct BundleResponse {
    /// The actions, as sent.
    #[schema(value_type = Vec<Object>)]
    pub bundle: serde_json::Value,
    /// Gas the transaction used when executed against the snapshot
    /// (absent with `skipQuote=true`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gas: Option<String>,
    /// What the receivers gained when it was executed, by token (absent
    /// with `skipQuote=true`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub amounts_out: Option<std::collections::BTreeMap<String, String>>,
    /// Minimums the program enforces, by token.
    pub min_amounts_out: std::collections::BTreeMap<String, String>,
    /// Fees taken, by token.
    pub fee_amount: std::collections::BTreeMap<String, String>,
    /// The routes of the route-like actions, then each bridge crossing.
    pub route: Vec<Hop>,
    /// The bundle's bridge crossings, with their latency.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub bridging_estimates: Vec<BridgeLatencyEstimate>,
    /// Block of the state it was executed on.
    pub created_at: u64,
    /// Unix seconds after which to fetch it again.
    pub valid_until: u64,
    /// The transaction.
    pub tx: Transaction,
    /// Approvals to send first (never to an executor).
    pub approvals: Vec<BundleApproval>,
    /// `ensowallet-v2` with `executionMode=backend`: the ERC-4337 operation
    /// of the sender's account that `tx` (`handleOps`) submits.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub user_op: Option<UserOperation>,
    /// With `userOp`: `EntryPoint.getUserOpHash(userOp)`, whose EIP-191
    /// message the account's signer signs (then set in `userOp.signature`
    /// and in `tx`'s `handleOps`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub user_op_hash: Option<String>,
}

/// `WalletTransaction`.
#[derive(Debug, Serialize, ToSchema)]
pub struct WalletTransaction {
    /// Calldata.
    pub data: String,
    /// The token contract.
    pub to: String,
    /// The owner.
    pub from: String,
    /// Wei sent: "0".
    pub value: String,
}

/// `WalletApproveTransaction`.
#[derive(Debug, Serialize, ToSchema)]
pub struct ApproveResponse {
    /// The approval.
    pub tx: WalletTransaction,
    /// Gas it used in the world.
    pub gas: String,
    /// The token.
    pub token: String,
    /// The allowance, wei.
    pub amount: String,
    /// The spender: a router or the caller's own wallet, never an executor.
    pub spender: String,
}

/// `WalletBalance`.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct WalletBalance {
    /// Token (`0xeeee…eeee` for the native coin).
    pub token: String,
    /// Raw amount, decimal.
    pub amount: String,
    /// Chain.
    pub chain_id: u64,
    /// Decimals.
    pub decimals: u8,
    /// USD per whole token, as a decimal string; null without a price.
    pub price: Option<String>,
    /// Name.
    pub name: Option<String>,
    /// Symbol.
    pub symbol: Option<String>,
    /// Logo.
    pub logo_uri: Option<String>,
}
