//! Market snapshot records: pool state at a stated block, as described in
//! `docs/market-format.md`.

use serde::{Deserialize, Deserializer};

use crate::types::{Address, ChainId, U256};

/// A whole market file.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct MarketDocument {
    /// Free text; the embedded default says it is a demo snapshot.
    #[serde(default)]
    pub description: String,
    /// Per-chain block, timestamp and gas price.
    #[serde(default)]
    pub chains: Vec<ChainState>,
    /// Pools.
    #[serde(default)]
    pub pools: Vec<PoolRecord>,
    /// Two-token vaults (the IPOR-style static shortcut's): not routed
    /// through, deposited into by their own endpoint.
    #[serde(default)]
    pub dual_vaults: Vec<DualVaultRecord>,
    /// What flash lenders hold (Morpho Blue), which they lend at once.
    #[serde(default)]
    pub lender_holdings: Vec<LenderHolding>,
}

/// What a flash lender holds of a token: for Morpho Blue, what its
/// markets' suppliers left unborrowed and their borrowers' collateral, all
/// of which its `flashLoan` lends for no fee.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct LenderHolding {
    /// Chain id.
    pub chain_id: ChainId,
    /// The lender's protocol slug (`morpho-blue`).
    pub protocol: String,
    /// The lender's contract.
    pub address: Address,
    /// The token held.
    pub token: Address,
    /// How much of it.
    #[serde(deserialize_with = "de_u256")]
    pub amount: U256,
}

/// A vault taking two tokens at once for pro-rata shares (the target of
/// `/shortcuts/static/ipor`).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DualVaultRecord {
    /// Chain id.
    pub chain_id: ChainId,
    /// The vault (its share token).
    pub address: Address,
    /// Protocol slug.
    pub protocol: String,
    /// Share token name.
    pub name: String,
    /// Share token symbol.
    pub symbol: String,
    /// First token.
    pub token_a: Address,
    /// Second token.
    pub token_b: Address,
    /// Amount of `token_a` the vault holds.
    #[serde(deserialize_with = "de_u256")]
    pub held_a: U256,
    /// Amount of `token_b` the vault holds.
    #[serde(deserialize_with = "de_u256")]
    pub held_b: U256,
    /// Shares outstanding.
    #[serde(deserialize_with = "de_u256")]
    pub total_supply: U256,
    /// One whole B in whole A, 1e18 fixed point (a first deposit's price).
    #[serde(deserialize_with = "de_u256")]
    pub price_b_in_a: U256,
}

/// The head a chain's pool state belongs to.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ChainState {
    /// Chain id.
    pub chain_id: ChainId,
    /// Block number.
    pub block_number: u64,
    /// Block timestamp, unix seconds.
    pub timestamp: u64,
    /// Gas price in wei.
    #[serde(deserialize_with = "de_u256")]
    pub gas_price_wei: U256,
}

/// One pool, tagged by kind.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum PoolRecord {
    /// Constant product.
    UniswapV2(UniswapV2Record),
    /// Concentrated liquidity.
    UniswapV3(UniswapV3Record),
    /// Curve StableSwap.
    Stableswap(StableswapRecord),
    /// Balancer weighted.
    Weighted(WeightedRecord),
    /// ERC-4626 vault.
    Erc4626(Erc4626Record),
    /// Lending market supply/withdraw.
    Lending(LendingRecord),
    /// Liquid staking deposit.
    LiquidStaking(LiquidStakingRecord),
}

impl PoolRecord {
    /// Fields every kind has.
    pub fn common(&self) -> PoolCommon<'_> {
        macro_rules! common {
            ($p:expr) => {
                PoolCommon { chain_id: $p.chain_id, address: $p.address, protocol: &$p.protocol }
            };
        }
        match self {
            Self::UniswapV2(p) => common!(p),
            Self::UniswapV3(p) => common!(p),
            Self::Stableswap(p) => common!(p),
            Self::Weighted(p) => common!(p),
            Self::Erc4626(p) => common!(p),
            Self::Lending(p) => common!(p),
            Self::LiquidStaking(p) => common!(p),
        }
    }

    /// The kind's file name.
    pub const fn kind_name(&self) -> &'static str {
        match self {
            Self::UniswapV2(_) => "uniswapV2",
            Self::UniswapV3(_) => "uniswapV3",
            Self::Stableswap(_) => "stableswap",
            Self::Weighted(_) => "weighted",
            Self::Erc4626(_) => "erc4626",
            Self::Lending(_) => "lending",
            Self::LiquidStaking(_) => "liquidStaking",
        }
    }

    /// Every contract the record names: the pool, its tokens, and a
    /// Compound market's comptroller.
    pub fn contracts(&self) -> Vec<Address> {
        let mut out = self.tokens();
        out.push(self.common().address);
        if let Self::Lending(LendingRecord { comptroller: Some(c), .. }) = self {
            out.push(*c);
        }
        out
    }

    /// Every token the pool trades, in pool order.
    pub fn tokens(&self) -> Vec<Address> {
        match self {
            Self::UniswapV2(p) => {
                let mut t = vec![p.token0, p.token1];
                if p.lp_supply.is_some() {
                    t.push(p.address);
                }
                t
            }
            Self::UniswapV3(p) => vec![p.token0, p.token1],
            Self::Stableswap(p) => {
                let mut t = p.coins.clone();
                if let Some(lp) = p.lp_token {
                    t.push(lp);
                }
                t
            }
            Self::Weighted(p) => {
                let mut t = p.tokens.clone();
                if p.bpt_supply.is_some() {
                    t.push(p.address);
                }
                t
            }
            Self::Erc4626(p) => vec![p.asset, p.address],
            Self::Lending(p) => vec![p.asset, p.receipt],
            Self::LiquidStaking(p) => vec![p.asset, p.receipt],
        }
    }
}

/// Fields every pool has.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PoolCommon<'a> {
    /// Chain id.
    pub chain_id: ChainId,
    /// Pool (or vault, or market) address.
    pub address: Address,
    /// Protocol slug.
    pub protocol: &'a str,
}

/// Uniswap V2-style pair.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct UniswapV2Record {
    /// Chain id.
    pub chain_id: ChainId,
    /// Pool, vault or market address.
    pub address: Address,
    /// Protocol slug.
    pub protocol: String,
    /// Lower token.
    pub token0: Address,
    /// Higher token.
    pub token1: Address,
    /// Reserve of token0.
    #[serde(deserialize_with = "de_u256")]
    pub reserve0: U256,
    /// Reserve of token1.
    #[serde(deserialize_with = "de_u256")]
    pub reserve1: U256,
    /// Swap fee in bps.
    pub fee_bps: u32,
    /// The pair's liquidity token supply (`totalSupply()`): listed, the
    /// pair's own token is entered from either coin and left into either
    /// (Router02's `addLiquidity` / `removeLiquidity` beside a swap).
    #[serde(default, deserialize_with = "de_opt_u256")]
    pub lp_supply: Option<U256>,
    /// `kLast()` (0 when omitted).
    #[serde(default, deserialize_with = "de_opt_u256")]
    pub k_last: Option<U256>,
    /// Whether the factory's `feeTo` is set: the protocol's share of the
    /// fees is then minted at the next mint or burn (off when omitted).
    #[serde(default)]
    pub fee_on: bool,
}

/// An initialized tick.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TickRecord {
    /// Tick index.
    pub index: i32,
    /// Net liquidity added when the price crosses the tick upwards.
    #[serde(deserialize_with = "de_i128")]
    pub liquidity_net: i128,
}

/// Uniswap V3-style pool.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct UniswapV3Record {
    /// Chain id.
    pub chain_id: ChainId,
    /// Pool, vault or market address.
    pub address: Address,
    /// Protocol slug.
    pub protocol: String,
    /// Lower token.
    pub token0: Address,
    /// Higher token.
    pub token1: Address,
    /// Fee in hundredths of a bip.
    pub fee: u32,
    /// Tick spacing.
    pub tick_spacing: i32,
    /// Current sqrt price, Q64.96.
    #[serde(deserialize_with = "de_u256")]
    pub sqrt_price_x96: U256,
    /// Current tick.
    pub tick: i32,
    /// Active liquidity.
    #[serde(deserialize_with = "de_u128")]
    pub liquidity: u128,
    /// Initialized ticks, sorted.
    pub ticks: Vec<TickRecord>,
}

/// Curve StableSwap pool.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct StableswapRecord {
    /// Chain id.
    pub chain_id: ChainId,
    /// Pool, vault or market address.
    pub address: Address,
    /// Protocol slug.
    pub protocol: String,
    /// LP token, if tokenized.
    #[serde(default)]
    pub lp_token: Option<Address>,
    /// Coins, 2 to 4.
    pub coins: Vec<Address>,
    /// Balances, raw units.
    #[serde(deserialize_with = "de_u256_vec")]
    pub balances: Vec<U256>,
    /// Amplification `A`.
    #[serde(deserialize_with = "de_u256")]
    pub amp: U256,
    /// Fee in 1e-10 units.
    #[serde(deserialize_with = "de_u256")]
    pub fee: U256,
    /// Share of the fee kept by the admin, 1e-10 units (taken out of the
    /// pool's balance on each exchange; 0 when omitted).
    #[serde(default, deserialize_with = "de_opt_u256")]
    pub admin_fee: Option<U256>,
    /// `A_PRECISION` of the pool's code: 1 for the older pools (3pool), 100
    /// for the newer ones (1 when omitted).
    #[serde(default)]
    pub a_precision: Option<u32>,
    /// `A * A_PRECISION` (the pool's `A_precise()`), where it is not
    /// `amp * aPrecision`: a pool caught mid-ramp (read from a node).
    #[serde(default, deserialize_with = "de_opt_u256")]
    pub amp_precise: Option<U256>,
    /// LP token supply.
    #[serde(default, deserialize_with = "de_opt_u256")]
    pub lp_supply: Option<U256>,
}

impl StableswapRecord {
    /// `A * A_PRECISION`: what the pool computes with.
    pub fn amp_precise(&self) -> U256 {
        self.amp_precise
            .unwrap_or_else(|| self.amp.saturating_mul(U256::from(self.a_precision.unwrap_or(1))))
    }
}

/// Balancer weighted pool.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct WeightedRecord {
    /// Chain id.
    pub chain_id: ChainId,
    /// Pool, vault or market address.
    pub address: Address,
    /// Protocol slug.
    pub protocol: String,
    /// Vault pool id.
    #[serde(default)]
    pub pool_id: Option<alloy_primitives::B256>,
    /// Tokens.
    pub tokens: Vec<Address>,
    /// Balances, raw units.
    #[serde(deserialize_with = "de_u256_vec")]
    pub balances: Vec<U256>,
    /// Normalized weights, 1e18 fixed point.
    #[serde(deserialize_with = "de_u256_vec")]
    pub weights: Vec<U256>,
    /// Swap fee, 1e18 fixed point.
    #[serde(deserialize_with = "de_u256")]
    pub swap_fee: U256,
    /// Balancer's pool type version: 1 for the 2021 pools, whose `powUp`
    /// has no shortcut for exponents 1, 2 and 4; later versions when omitted.
    #[serde(default)]
    pub pool_version: Option<u8>,
    /// The pool token's (BPT's) `totalSupply`. When listed, the pool is
    /// its own last token: one coin joins it, and it exits into one coin.
    /// The pool's protocol fee percentages must then be zero (the joins
    /// and exits are quoted without the protocol's share of fees).
    #[serde(default, deserialize_with = "de_opt_u256")]
    pub bpt_supply: Option<U256>,
}

/// ERC-4626 vault.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Erc4626Record {
    /// Chain id.
    pub chain_id: ChainId,
    /// Pool, vault or market address.
    pub address: Address,
    /// Protocol slug.
    pub protocol: String,
    /// Underlying asset.
    pub asset: Address,
    /// `totalAssets()`.
    #[serde(deserialize_with = "de_u256")]
    pub total_assets: U256,
    /// `totalSupply()`.
    #[serde(deserialize_with = "de_u256")]
    pub total_supply: U256,
    /// Whose ERC-4626 arithmetic the vault inherits (default `solmate`).
    #[serde(default)]
    pub rule: VaultRuleName,
    /// OpenZeppelin's `_decimalsOffset()` (the shares' extra decimals; a
    /// MetaMorpho vault's is `18 - asset decimals`). Only with
    /// `openZeppelin`.
    #[serde(default)]
    pub decimals_offset: u8,
}

impl Erc4626Record {
    /// The vault's conversion rule.
    pub const fn rule(&self) -> VaultRule {
        match self.rule {
            VaultRuleName::Solmate => VaultRule::Solmate,
            VaultRuleName::OpenZeppelin => {
                VaultRule::OpenZeppelin { decimals_offset: self.decimals_offset }
            }
        }
    }
}

/// The `rule` of an ERC-4626 record.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum VaultRuleName {
    /// solmate's `ERC4626`.
    #[default]
    Solmate,
    /// OpenZeppelin's `ERC4626` (5.x).
    OpenZeppelin,
}

/// How an ERC-4626 vault converts assets and shares (both round down for
/// `deposit` and `redeem`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum VaultRule {
    /// solmate: `assets * supply / total`, one share per asset while no
    /// share exists; a deposit of zero shares reverts.
    Solmate,
    /// OpenZeppelin 5: virtual shares and one virtual asset,
    /// `assets * (supply + 10^offset) / (total + 1)` and back.
    OpenZeppelin {
        /// `_decimalsOffset()`.
        decimals_offset: u8,
    },
}

/// Exchange-rate model of a lending market.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum LendingModel {
    /// aToken balances grow with the liquidity index (ray).
    Aave,
    /// cToken with an 1e18-scaled exchange rate.
    Compound,
    /// Compound III (Comet): the market is its own receipt, balances are
    /// signed principal read through the base supply index (1e15-scaled).
    Comet,
}

/// Lending market supply/withdraw.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct LendingRecord {
    /// Chain id.
    pub chain_id: ChainId,
    /// Pool, vault or market address.
    pub address: Address,
    /// Protocol slug.
    pub protocol: String,
    /// Exchange-rate model.
    pub model: LendingModel,
    /// Supplied asset.
    pub asset: Address,
    /// Receipt token.
    pub receipt: Address,
    /// Liquidity index (ray), cToken exchange rate (1e18-scaled) or
    /// Comet base supply index (1e15-scaled, accrued to the block).
    #[serde(deserialize_with = "de_u256")]
    pub exchange_rate: U256,
    /// Asset available to withdraw.
    #[serde(deserialize_with = "de_u256")]
    pub available_liquidity: U256,
    /// Loan to value (Aave) or collateral factor (Compound) of the asset,
    /// bps; absent, the asset is not collateral.
    #[serde(default)]
    pub ltv_bps: Option<u16>,
    /// Compound: the market's comptroller.
    #[serde(default)]
    pub comptroller: Option<Address>,
}

/// Liquid staking deposit (or a wrapper such as wstETH).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct LiquidStakingRecord {
    /// Chain id.
    pub chain_id: ChainId,
    /// Pool, vault or market address.
    pub address: Address,
    /// Protocol slug.
    pub protocol: String,
    /// Staked asset.
    pub asset: Address,
    /// Receipt token.
    pub receipt: Address,
    /// Total asset held.
    #[serde(deserialize_with = "de_u256")]
    pub total_pooled_asset: U256,
    /// Total receipt shares.
    #[serde(deserialize_with = "de_u256")]
    pub total_shares: U256,
    /// The receipt is a rebasing token whose balances are in asset units
    /// (stETH): a deposit mints one receipt unit per asset unit, and the
    /// totals only describe the share accounting behind the balances.
    #[serde(default)]
    pub rebasing: bool,
}

/// Parses a decimal string of at most 78 digits into a `U256`.
pub fn parse_dec_u256(s: &str) -> Option<U256> {
    if s.is_empty() || s.len() > 78 || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    U256::from_str_radix(s, 10).ok()
}

fn de_u256<'de, D: Deserializer<'de>>(d: D) -> Result<U256, D::Error> {
    let s = String::deserialize(d)?;
    parse_dec_u256(&s)
        .ok_or_else(|| serde::de::Error::custom(format!("`{s}` is not a decimal uint256")))
}

fn de_opt_u256<'de, D: Deserializer<'de>>(d: D) -> Result<Option<U256>, D::Error> {
    de_u256(d).map(Some)
}

fn de_u256_vec<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<U256>, D::Error> {
    let v = Vec::<String>::deserialize(d)?;
    v.iter()
        .map(|s| {
            parse_dec_u256(s)
                .ok_or_else(|| serde::de::Error::custom(format!("`{s}` is not a decimal uint256")))
        })
        .collect()
}

fn de_u128<'de, D: Deserializer<'de>>(d: D) -> Result<u128, D::Error> {
    let s = String::deserialize(d)?;
    s.parse().map_err(|_| serde::de::Error::custom(format!("`{s}` is not a decimal uint128")))
}

fn de_i128<'de, D: Deserializer<'de>>(d: D) -> Result<i128, D::Error> {
    let s = String::deserialize(d)?;
    s.parse().map_err(|_| serde::de::Error::custom(format!("`{s}` is not a decimal int128")))
}

/// A market document checked against a catalog.
#[derive(Debug, Clone, Default)]
pub struct Market {
    /// Free text.
    pub description: String,
    /// Per-chain heads, by chain id.
    pub chains: Vec<ChainState>,
    /// Pools, in file order.
    pub pools: Vec<PoolRecord>,
    /// Two-token vaults, in file order.
    pub dual_vaults: Vec<DualVaultRecord>,
    /// What flash lenders hold, in file order.
    pub lender_holdings: Vec<LenderHolding>,
}

impl Market {
    /// Validates a market document against `catalog`; every problem is
    /// reported.
    pub fn validate(
        doc: MarketDocument,
        catalog: &crate::Catalog,
    ) -> Result<Self, crate::CatalogError> {
        use crate::error::Problem;
        let mut problems = Vec::new();
        let mut chains = doc.chains;
        chains.sort_by_key(|c| c.chain_id);
        for w in chains.windows(2) {
            if w[0].chain_id == w[1].chain_id {
                problems.push(Problem::new("chains", format!("chain {} twice", w[0].chain_id)));
            }
        }
        for c in &chains {
            if catalog.network(c.chain_id).is_none() {
                problems.push(Problem::new("chains", format!("unknown chain {}", c.chain_id)));
            }
        }
        let mut seen = std::collections::HashSet::new();
        for (i, pool) in doc.pools.iter().enumerate() {
            let c = pool.common();
            let loc = format!("pools[{i}] ({} {})", pool.kind_name(), c.address);
            if !seen.insert((c.chain_id, c.address, pool.tokens())) {
                problems.push(Problem::new(&loc, "pool listed twice"));
            }
            if chains.binary_search_by_key(&c.chain_id, |s| s.chain_id).is_err() {
                problems.push(Problem::new(
                    &loc,
                    format!("chain {} has no `chains` entry", c.chain_id),
                ));
            }
            if catalog.protocol(c.protocol).is_none() {
                problems.push(Problem::new(&loc, format!("unknown protocol `{}`", c.protocol)));
            }
            for t in pool.tokens() {
                if catalog.token(c.chain_id, t).is_none() {
                    problems.push(Problem::new(&loc, format!("token {t} is not in the catalog")));
                }
            }
            check_pool(pool, catalog, &loc, &mut problems);
        }
        // A record's chain has a `chains` entry and its protocol is known.
        let known_here = |(chain, protocol): (ChainId, &str),
                          loc: &str,
                          problems: &mut Vec<Problem>| {
            if chains.binary_search_by_key(&chain, |s| s.chain_id).is_err() {
                problems.push(Problem::new(loc, format!("chain {chain} has no `chains` entry")));
            }
            if catalog.protocol(protocol).is_none() {
                problems.push(Problem::new(loc, format!("unknown protocol `{protocol}`")));
            }
        };
        for (i, v) in doc.dual_vaults.iter().enumerate() {
            let loc = format!("dualVaults[{i}] ({})", v.address);
            known_here((v.chain_id, &v.protocol), &loc, &mut problems);
            if v.token_a == v.token_b {
                problems.push(Problem::new(&loc, "tokenA and tokenB are the same token"));
            }
            for t in [v.token_a, v.token_b] {
                match catalog.token(v.chain_id, t) {
                    None => problems
                        .push(Problem::new(&loc, format!("token {t} is not in the catalog"))),
                    Some(tok) if tok.decimals > 18 => problems
                        .push(Problem::new(&loc, format!("token {t} has more than 18 decimals"))),
                    Some(_) => {}
                }
            }
            if v.total_supply.is_zero() != (v.held_a.is_zero() && v.held_b.is_zero()) {
                problems
                    .push(Problem::new(&loc, "shares without assets, or assets without shares"));
            }
        }
        for (i, h) in doc.lender_holdings.iter().enumerate() {
            let loc = format!("lenderHoldings[{i}] ({} {})", h.address, h.token);
            known_here((h.chain_id, &h.protocol), &loc, &mut problems);
            if catalog.token(h.chain_id, h.token).is_none() || h.token == crate::NATIVE_TOKEN {
                problems.push(Problem::new(
                    &loc,
                    format!("token {} is not an ERC-20 of the catalog", h.token),
                ));
            }
            let twice = doc.lender_holdings[..i]
                .iter()
                .any(|o| (o.chain_id, o.address, o.token) == (h.chain_id, h.address, h.token));
            if twice {
                problems.push(Problem::new(&loc, "listed twice"));
            }
        }
        if problems.is_empty() {
            Ok(Self {
                description: doc.description,
                chains,
                pools: doc.pools,
                dual_vaults: doc.dual_vaults,
                lender_holdings: doc.lender_holdings,
            })
        } else {
            Err(crate::CatalogError::Invalid { problems })
        }
    }

    /// The head of a chain.
    pub fn chain(&self, chain: ChainId) -> Option<&ChainState> {
        self.chains.iter().find(|c| c.chain_id == chain)
    }
}

/// The CREATE2 address a Uniswap V2-style factory gives a pair.
pub fn v2_pair_address(
    factory: Address,
    init_code_hash: alloy_primitives::B256,
    token0: Address,
    token1: Address,
) -> Address {
    let mut packed = [0u8; 40];
    packed[..20].copy_from_slice(token0.as_slice());
    packed[20..].copy_from_slice(token1.as_slice());
    factory.create2(alloy_primitives::keccak256(packed), init_code_hash)
}

/// The CREATE2 address a Uniswap V3-style factory gives a pool.
pub fn v3_pool_address(
    factory: Address,
    init_code_hash: alloy_primitives::B256,
    token0: Address,
    token1: Address,
    fee: u32,
) -> Address {
    let mut encoded = [0u8; 96];
    encoded[12..32].copy_from_slice(token0.as_slice());
    encoded[44..64].copy_from_slice(token1.as_slice());
    encoded[92..96].copy_from_slice(&fee.to_be_bytes());
    factory.create2(alloy_primitives::keccak256(encoded), init_code_hash)
}

fn check_pool(
    pool: &PoolRecord,
    catalog: &crate::Catalog,
    loc: &str,
    problems: &mut Vec<crate::error::Problem>,
) {
    use crate::{error::Problem, model::FactoryKind};
    let mut bad = |m: String| problems.push(Problem::new(loc, m));
    let wad = U256::from(10u64).pow(U256::from(18u64));
    match pool {
        PoolRecord::UniswapV2(p) => {
            if p.token0 >= p.token1 {
                bad("token0 must sort below token1".into());
            }
            if p.fee_bps >= 10_000 {
                bad(format!("feeBps {} is not below 10000", p.fee_bps));
            }
            // The pair stores reserves as `uint112`.
            let max = (U256::ONE << 112) - U256::ONE;
            for (name, r) in [("reserve0", p.reserve0), ("reserve1", p.reserve1)] {
                if r > max {
                    bad(format!("{name} {r} exceeds the pair's uint112"));
                }
            }
            if let Some(f) = catalog.dex_factory(p.chain_id, &p.protocol) {
                let want = v2_pair_address(f.factory, f.init_code_hash, p.token0, p.token1);
                if f.kind != FactoryKind::UniswapV2 || want != p.address {
                    bad(format!("address is not the factory's CREATE2 address {want}"));
                }
            }
            if p.lp_supply.is_some() && p.fee_bps != 30 {
                bad(format!(
                    "lpSupply with feeBps {}: only a 30 bps pair (the published pair's code) mints and burns here; another is only swapped through",
                    p.fee_bps
                ));
            }
            if p.lp_supply.is_some_and(|s| s.is_zero()) {
                bad("lpSupply must be positive: a zap never makes a pair's first mint".into());
            }
            if p.lp_supply.is_none() && (p.k_last.is_some() || p.fee_on) {
                bad("kLast and feeOn describe the liquidity token: list lpSupply too".into());
            }
            if p.fee_on && catalog.dex_factory(p.chain_id, &p.protocol).is_none() {
                bad("feeOn needs the protocol's factory in the catalog".into());
            }
        }
        PoolRecord::UniswapV3(p) => {
            if p.token0 >= p.token1 {
                bad("token0 must sort below token1".into());
            }
            if p.tick_spacing <= 0 {
                bad("tickSpacing must be positive".into());
            }
            if !p.ticks.windows(2).all(|w| w[0].index < w[1].index) {
                bad("ticks must be sorted and distinct".into());
            }
            if p.ticks.iter().any(|t| p.tick_spacing > 0 && t.index % p.tick_spacing != 0) {
                bad("a tick is not a multiple of tickSpacing".into());
            }
            let mut sum: i128 = 0;
            let mut active: i128 = 0;
            for t in &p.ticks {
                sum = sum.saturating_add(t.liquidity_net);
                if t.index <= p.tick {
                    active = active.saturating_add(t.liquidity_net);
                }
            }
            if sum != 0 {
                bad("liquidityNet of all ticks must sum to zero".into());
            }
            if u128::try_from(active).ok() != Some(p.liquidity) {
                bad(format!("liquidity {} differs from the ticks' sum {active}", p.liquidity));
            }
            if let Some(f) = catalog.dex_factory(p.chain_id, &p.protocol) {
                let want = v3_pool_address(f.factory, f.init_code_hash, p.token0, p.token1, p.fee);
                if f.kind != FactoryKind::UniswapV3 || want != p.address {
                    bad(format!("address is not the factory's CREATE2 address {want}"));
                }
            }
        }
        PoolRecord::Stableswap(p) => {
            if !(2..=4).contains(&p.coins.len()) || p.coins.len() != p.balances.len() {
                bad("a stableswap pool has 2 to 4 coins and one balance per coin".into());
            }
            if p.amp.is_zero() {
                bad("amp must be positive".into());
            }
            if p.fee >= U256::from(10_000_000_000u64) {
                bad("fee must be below 1e10".into());
            }
            if p.admin_fee.is_some_and(|f| f > U256::from(10_000_000_000u64)) {
                bad("adminFee must be at most 1e10".into());
            }
            if p.a_precision.is_some_and(|a| a == 0) {
                bad("aPrecision must be positive".into());
            }
        }
        PoolRecord::Weighted(p) => {
            if p.tokens.len() < 2
                || p.tokens.len() != p.balances.len()
                || p.tokens.len() != p.weights.len()
            {
                bad("a weighted pool has 2+ tokens, one balance and one weight per token".into());
            }
            if p.weights.iter().fold(U256::ZERO, |a, w| a.saturating_add(*w)) != wad {
                bad("weights must sum to 1e18".into());
            }
            if p.swap_fee >= wad {
                bad("swapFee must be below 1e18".into());
            }
            if p.bpt_supply.is_some_and(|s| s.is_zero()) {
                bad("bptSupply must be positive".into());
            }
            // A pool direction names its tokens in 3 bits: the BPT, after
            // the coins, may be the eighth token at most.
            if p.bpt_supply.is_some() && p.tokens.len() > 7 {
                bad("bptSupply on a pool of more than 7 coins: its BPT would be a ninth token, past what a pool direction indexes".into());
            }
        }
        PoolRecord::Erc4626(p) => {
            if p.total_supply.is_zero() != p.total_assets.is_zero() {
                bad("totalAssets and totalSupply must both be zero or both positive".into());
            }
            if p.decimals_offset != 0 && p.rule == VaultRuleName::Solmate {
                bad("decimalsOffset is OpenZeppelin's: set rule to openZeppelin".into());
            }
            if p.decimals_offset > 36 {
                bad("decimalsOffset above 36 is not a vault anyone deploys".into());
            }
        }
        PoolRecord::Lending(p) => {
            if p.exchange_rate.is_zero() {
                bad("exchangeRate must be positive".into());
            }
            // Compound caps collateral factors at 90%.
            let cap = match p.model {
                LendingModel::Aave => 10_000,
                LendingModel::Compound => 9_000,
                // The base asset is never collateral in its own market.
                LendingModel::Comet => 0,
            };
            if p.model == LendingModel::Comet {
                if p.receipt != p.address {
                    bad("a Comet market is its own receipt token: receipt must be address".into());
                }
                if p.exchange_rate < U256::from(1_000_000_000_000_000u64) {
                    bad("a Comet base supply index starts at 1e15 and only grows".into());
                }
            }
            if p.ltv_bps.is_some_and(|l| l > cap) {
                bad(format!("ltvBps must be at most {cap}"));
            }
            if p.comptroller.is_some() && p.model != LendingModel::Compound {
                bad("only a Compound market has a comptroller".into());
            }
        }
        PoolRecord::LiquidStaking(p) => {
            if p.total_shares.is_zero() != p.total_pooled_asset.is_zero() {
                bad("totalPooledAsset and totalShares must both be zero or both positive".into());
            }
        }
    }
}

/// One trade of a recorded block: `amount_in` of `token_in` sold into the
/// pool at `pool` for `token_out`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RecordedTrade {
    /// Chain id.
    pub chain_id: ChainId,
    /// Pool address.
    pub pool: Address,
    /// Token sold.
    pub token_in: Address,
    /// Token bought.
    pub token_out: Address,
    /// Amount sold, wei.
    #[serde(deserialize_with = "de_u256")]
    pub amount_in: U256,
}

/// A recorded block stream over a market (`blocks.json`): the trades of
/// each block, in order. The embedded feed replays it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct BlockStream {
    /// Free text.
    #[serde(default)]
    pub description: String,
    /// Per block, its trades.
    pub blocks: Vec<Vec<RecordedTrade>>,
}
