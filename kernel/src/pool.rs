//! Pool state and its marginal (spot) rates.
//!
//! Spot rates are `f64`: they guide searches and derive display prices, and
//! never decide an amount the service returns. Exact integer quoting lives
//! beside them, one implementation per pool kind, matching its contract.

use std::sync::Arc;

use alloy_primitives::{U128, U256};
use switchyard_catalog::{
    Address, ChainId,
    market::{LendingModel, VaultRule},
};

/// Converts a `U256` to the nearest `f64` (exact up to 2^53, then rounded).
pub fn u256_to_f64(x: U256) -> f64 {
    x.as_limbs()
        .iter()
        .rev()
        .fold(0.0, |acc, &limb| acc * 18_446_744_073_709_551_616.0 + limb as f64)
}

/// [`u256_to_f64`] of a `U128`, the same bits without widening it (the
/// same two limbs, folded in the same order).
#[inline]
pub fn u128_to_f64(x: U128) -> f64 {
    let [lo, hi] = *x.as_limbs();
    (hi as f64) * 18_446_744_073_709_551_616.0 + lo as f64
}

const Q96: f64 = 79_228_162_514_264_337_593_543_950_336.0;

/// The initialized ticks of a concentrated-liquidity pool, sorted by index,
/// each with its `liquidityNet`, and each tick's `sqrt(1.0001^tick)` in
/// `f64` for the shadow quote (computed once, not per quote). Cheap to clone
/// (shared): swaps never change the ticks.
#[derive(Debug, Clone)]
pub struct TickList(std::sync::Arc<Ticks>);

/// The data behind a [`TickList`].
#[derive(Debug)]
struct Ticks {
    /// `(index, liquidityNet)`, sorted by index.
    ticks: Vec<(i32, i128)>,
    /// `sqrt(1.0001^index)` of each.
    sqrt: Vec<f64>,
}

impl From<Vec<(i32, i128)>> for TickList {
    fn from(ticks: Vec<(i32, i128)>) -> Self {
        let sqrt =
            ticks.iter().map(|(t, _)| (f64::from(*t) * 0.5 * 1.0001f64.ln()).exp()).collect();
        Self(std::sync::Arc::new(Ticks { ticks, sqrt }))
    }
}

impl std::ops::Deref for TickList {
    type Target = [(i32, i128)];

    fn deref(&self) -> &Self::Target {
        &self.0.ticks
    }
}

impl PartialEq for TickList {
    fn eq(&self, other: &Self) -> bool {
        self.0.ticks == other.0.ticks
    }
}

impl TickList {
    /// `sqrt(1.0001^tick)` of each tick, in order.
    pub fn sqrt_prices(&self) -> &[f64] {
        &self.0.sqrt
    }

    /// This list's identity (its shared allocation), read without touching
    /// the list: a [`RangeHint`] names the list it was computed over.
    fn id(&self) -> usize {
        std::sync::Arc::as_ptr(&self.0) as usize
    }
}

/// Where a V3 pool's current tick sits in its [`TickList`], and the
/// `sqrt(1.0001^tick)` of the initialized ticks on either side, kept in the
/// state itself. The shadow quote of a trade that stays within the current
/// range then reads only the state, not the tick list behind two more
/// pointers: on a cold cache (a request after the server sat idle, when
/// other programs have taken the caches) each pointer followed is a miss,
/// and most pools a search prices are asked for less than their range
/// holds.
///
/// A hint is for one tick over one list. It answers only while the state's
/// `tick` and `ticks` are the ones it was computed for, so a state whose
/// tick was moved without a new hint (or a default one) is priced from the
/// list as before; the answer is the same either way. It takes no part in
/// equality.
#[derive(Debug, Clone, Copy, Default)]
pub struct RangeHint {
    tick: i32,
    /// Number of initialized ticks at or below `tick`.
    at: u32,
    list: usize,
    /// `sqrt(1.0001^t)` of the nearest initialized tick at or below `tick`
    /// (0 when none is).
    below: f64,
    /// Of the nearest above it (infinity when none is).
    above: f64,
}

impl PartialEq for RangeHint {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl RangeHint {
    /// The hint for `tick` over `ticks`.
    pub fn of(tick: i32, ticks: &TickList) -> Self {
        let at = ticks.partition_point(|(t, _)| *t <= tick);
        let sqrt = ticks.sqrt_prices();
        Self {
            tick,
            at: u32::try_from(at).unwrap_or(u32::MAX),
            list: ticks.id(),
            below: at.checked_sub(1).and_then(|p| sqrt.get(p)).copied().unwrap_or(0.0),
            above: sqrt.get(at).copied().unwrap_or(f64::INFINITY),
        }
    }

    /// `(at, below, above)` if the hint is for `tick` over `ticks`.
    pub(crate) fn get(&self, tick: i32, ticks: &TickList) -> Option<(usize, f64, f64)> {
        (self.list == ticks.id() && self.tick == tick && self.at != u32::MAX).then_some((
            self.at as usize,
            self.below,
            self.above,
        ))
    }
}

/// The state of a Curve StableSwap pool.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StableswapState {
    /// Balances, pool order.
    pub balances: Vec<U256>,
    /// `A * A_PRECISION` (the pool's `A_precise()`): exact mid-ramp too,
    /// where `A` itself is not a whole number.
    pub amp: U256,
    /// Fee, 1e-10 units.
    pub fee: U256,
    /// Admin share of the fee, 1e-10 units.
    pub admin_fee: U256,
    /// `A_PRECISION` of the pool's code.
    pub a_precision: U256,
    /// LP supply, when tokenized.
    pub lp_supply: Option<U256>,
}

/// The state of a Balancer weighted pool.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WeightedState {
    /// Balances, pool order.
    pub balances: Vec<U256>,
    /// Weights, 1e18 fixed point.
    pub weights: Vec<U256>,
    /// Swap fee, 1e18 fixed point.
    pub swap_fee: U256,
    /// The pool code's `powUp`.
    pub pow_rule: crate::amm::weighted::PowRule,
    /// The pool token's (BPT's) `totalSupply`, when it is listed: the pool
    /// is then its own last token, joined and exited one coin at a time.
    pub bpt_supply: Option<U256>,
}

/// A Uniswap V2 pair whose liquidity token (the pair itself) is listed:
/// the pair's reserves and fee as [`PoolState::UniswapV2`] holds them, and
/// the liquidity token's state. The pool's tokens are `[token0, token1,
/// pair]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct V2LpState {
    /// Reserves, pool order (`uint112`s).
    pub reserves: [U128; 2],
    /// Fee in bps.
    pub fee_bps: u32,
    /// Supply, `kLast`, and whether the protocol fee is on.
    pub liquidity: crate::amm::uniswap_v2::Liquidity,
}

/// The state of a Uniswap V3 pool.
#[derive(Debug, Clone, PartialEq)]
pub struct V3State {
    /// Q64.96 sqrt price.
    pub sqrt_price_x96: U256,
    /// Active liquidity.
    pub liquidity: u128,
    /// Current tick.
    pub tick: i32,
    /// Fee in hundredths of a bip.
    pub fee: u32,
    /// Tick spacing.
    pub tick_spacing: i32,
    /// Initialized ticks (index, liquidityNet), sorted; shared, since swaps
    /// never change them.
    pub ticks: TickList,
    /// The current range, for the shadow quote: [`RangeHint::of`] `tick`
    /// and `ticks`, or the default (no hint).
    pub range: RangeHint,
}

/// The state of an ERC-4626 vault; the pool's tokens are `[asset, share]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VaultState {
    /// `totalAssets()`.
    pub total_assets: U256,
    /// `totalSupply()`.
    pub total_supply: U256,
    /// Whose conversion arithmetic the vault has.
    pub rule: VaultRule,
}

/// The state of a lending market's supply side; tokens are `[asset, receipt]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LendingState {
    /// Exchange-rate model.
    pub model: LendingModel,
    /// Index (ray) or cToken rate (1e18).
    pub exchange_rate: U256,
    /// Withdrawable asset.
    pub available_liquidity: U256,
}

/// The state of a liquid staking deposit; tokens are `[asset, receipt]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StakingState {
    /// Total asset.
    pub total_pooled_asset: U256,
    /// Total shares.
    pub total_shares: U256,
    /// Receipt balances are in asset units.
    pub rebasing: bool,
}

/// The state of one pool, by kind.
///
/// Uniswap V2 pairs, most of any market, are stored inline in the width the
/// pair stores them (`uint112` reserves); every other kind is boxed, so the
/// enum stays at 40 bytes.
#[derive(Debug, Clone, PartialEq)]
pub enum PoolState {
    /// Constant product: reserves and fee.
    UniswapV2 {
        /// Reserves, pool order: the pair's `uint112`s (a state never holds
        /// more; a record naming more is refused when the snapshot is built).
        reserves: [U128; 2],
        /// Fee in bps.
        fee_bps: u32,
    },
    /// A constant-product pair entered and left through its liquidity
    /// token as well.
    UniswapV2Lp(Box<V2LpState>),
    /// Concentrated liquidity.
    UniswapV3(Box<V3State>),
    /// Curve StableSwap over `coins`; the LP token, if any, is the last token
    /// of the pool and is not swappable through this state.
    Stableswap(Box<StableswapState>),
    /// Balancer weighted.
    Weighted(Box<WeightedState>),
    /// ERC-4626 vault.
    Erc4626(Box<VaultState>),
    /// Lending supply.
    Lending(Box<LendingState>),
    /// Liquid staking deposit.
    LiquidStaking(Box<StakingState>),
    /// Wrapping the native coin; tokens are `[native, wrapped]`, 1:1.
    Wrap,
}

impl PoolState {
    /// A Uniswap V2 pair's state, or `None` when a reserve exceeds the
    /// pair's `uint112`.
    pub fn uniswap_v2(reserves: [U256; 2], fee_bps: u32) -> Option<Self> {
        Some(Self::UniswapV2 { reserves: pair_reserves(reserves)?, fee_bps })
    }

    /// A Uniswap V2 pair's reserves, widened (`None` for another kind).
    pub fn v2_reserves(&self) -> Option<[U256; 2]> {
        self.v2_pair().map(|(r, _)| [U256::from(r[0]), U256::from(r[1])])
    }

    /// A Uniswap V2 pair's reserves and fee in bps, with its liquidity
    /// token listed or not.
    pub fn v2_pair(&self) -> Option<(&[U128; 2], u32)> {
        match self {
            Self::UniswapV2 { reserves, fee_bps } => Some((reserves, *fee_bps)),
            Self::UniswapV2Lp(p) => Some((&p.reserves, p.fee_bps)),
            _ => None,
        }
    }

    /// This pair's state with `reserves` (and `liquidity`, where the token
    /// is listed); `None` past `uint112`.
    pub fn v2_with(
        &self,
        reserves: [U256; 2],
        liquidity: Option<crate::amm::uniswap_v2::Liquidity>,
    ) -> Option<Self> {
        let reserves = pair_reserves(reserves)?;
        Some(match self {
            Self::UniswapV2 { fee_bps, .. } => Self::UniswapV2 { reserves, fee_bps: *fee_bps },
            Self::UniswapV2Lp(p) => Self::UniswapV2Lp(Box::new(V2LpState {
                reserves,
                fee_bps: p.fee_bps,
                liquidity: liquidity.unwrap_or(p.liquidity),
            })),
            _ => return None,
        })
    }
}

/// Reserves in the width a pair stores them (`uint112`), `None` past it.
fn pair_reserves(reserves: [U256; 2]) -> Option<[U128; 2]> {
    let max = crate::amm::uniswap_v2::MAX_RESERVE;
    (reserves[0] <= max && reserves[1] <= max)
        .then(|| [U128::from(reserves[0]), U128::from(reserves[1])])
}

/// A protocol slug, shared by every pool of the protocol: one pointer wide.
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Protocol(Arc<Box<str>>);

impl Protocol {
    /// The slug.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::ops::Deref for Protocol {
    type Target = str;

    fn deref(&self) -> &str {
        &self.0
    }
}

impl From<&str> for Protocol {
    fn from(slug: &str) -> Self {
        Self(Arc::new(slug.into()))
    }
}

impl From<&Protocol> for Arc<str> {
    fn from(p: &Protocol) -> Self {
        Self::from(p.as_str())
    }
}

impl PartialEq<str> for Protocol {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for Protocol {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl std::fmt::Debug for Protocol {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(self.as_str(), f)
    }
}

impl std::fmt::Display for Protocol {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A pool's tokens, in pool order, with their decimals. Two tokens (every
/// pair, vault, lending market and staking deposit) are stored inline;
/// more behind one allocation.
#[derive(Clone, PartialEq, Eq)]
pub struct PoolTokens(TokensRepr);

#[derive(Clone, PartialEq, Eq)]
enum TokensRepr {
    Two { tokens: [Address; 2], decimals: [u8; 2] },
    Many(Box<ManyTokens>),
}

/// More than two tokens, with their decimals.
#[derive(Clone, PartialEq, Eq)]
struct ManyTokens {
    tokens: Box<[Address]>,
    decimals: Box<[u8]>,
}

impl PoolTokens {
    /// The tokens, each with its decimals.
    pub fn new(tokens: impl IntoIterator<Item = (Address, u8)>) -> Self {
        let (tokens, decimals): (Vec<Address>, Vec<u8>) = tokens.into_iter().unzip();
        match (<[Address; 2]>::try_from(tokens.as_slice()), <[u8; 2]>::try_from(&decimals[..])) {
            (Ok(tokens), Ok(decimals)) => Self(TokensRepr::Two { tokens, decimals }),
            _ => Self(TokensRepr::Many(Box::new(ManyTokens {
                tokens: tokens.into(),
                decimals: decimals.into(),
            }))),
        }
    }

    /// The decimals of each token, in the same order.
    pub fn decimals(&self) -> &[u8] {
        match &self.0 {
            TokensRepr::Two { decimals, .. } => decimals,
            TokensRepr::Many(m) => &m.decimals,
        }
    }
}

impl std::ops::Deref for PoolTokens {
    type Target = [Address];

    fn deref(&self) -> &[Address] {
        match &self.0 {
            TokensRepr::Two { tokens, .. } => tokens,
            TokensRepr::Many(m) => &m.tokens,
        }
    }
}

impl std::fmt::Debug for PoolTokens {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter().zip(self.decimals())).finish()
    }
}

/// A pool with its identity and tokens.
#[derive(Debug, Clone, PartialEq)]
pub struct Pool {
    /// Chain.
    pub chain: ChainId,
    /// Pool, vault or market address (the wrapped token for `Wrap`).
    pub address: Address,
    /// Protocol slug (shared by every pool of the protocol).
    pub protocol: Protocol,
    /// Tokens, pool order, with their decimals.
    pub tokens: PoolTokens,
    /// State.
    pub state: PoolState,
}

impl Pool {
    /// Decimals of [`Self::tokens`].
    pub fn decimals(&self) -> &[u8] {
        self.tokens.decimals()
    }

    /// Position of `token` in the pool.
    pub fn index_of(&self, token: Address) -> Option<usize> {
        self.tokens.iter().position(|t| *t == token)
    }

    /// The index of a pool's liquidity token among its tokens (after the
    /// coins), when the market lists its supply: depositing one coin and
    /// withdrawing into one are then trades with it. A Curve pool's LP
    /// token must be a contract of its own (a Curve pool that is its own
    /// LP token, as the newer factory pools are, is not entered this way);
    /// a Uniswap V2 pair and a Balancer pool are their own tokens.
    pub fn lp_index(&self) -> Option<usize> {
        if let PoolState::UniswapV2Lp(_) = &self.state {
            // The pair is its own liquidity token.
            return (self.tokens.len() == 3 && self.tokens[2] == self.address).then_some(2);
        }
        if let PoolState::Weighted(w) = &self.state {
            // A Balancer pool is its own pool token.
            let n = w.balances.len();
            return (w.bpt_supply.is_some()
                && self.tokens.len() == n + 1
                && self.tokens[n] == self.address)
                .then_some(n);
        }
        let PoolState::Stableswap(st) = &self.state else { return None };
        let n = st.balances.len();
        (st.lp_supply.is_some()
            && self.tokens.len() == n + 1
            && self.tokens[n] != self.address
            && !self.tokens[..n].contains(&self.tokens[n]))
        .then_some(n)
    }

    /// Marginal rate, in raw units of token `j` per raw unit of token `i`,
    /// before fees. `None` when the pool cannot convert `i` into `j` or has
    /// no liquidity.
    pub fn spot_rate(&self, i: usize, j: usize) -> Option<f64> {
        if i == j || i >= self.tokens.len() || j >= self.tokens.len() {
            return None;
        }
        let r = match &self.state {
            PoolState::UniswapV2 { reserves, .. } => {
                u128_to_f64(reserves[j]) / u128_to_f64(reserves[i])
            }
            PoolState::UniswapV2Lp(p) => {
                // A small deposit sells about half for the other coin, and
                // the pair's value is twice either reserve.
                let supply = u256_to_f64(p.liquidity.supply);
                let reserve = |k: usize| u128_to_f64(p.reserves[k]);
                match (i, j) {
                    (2, k) => 2.0 * reserve(k) / supply,
                    (k, 2) => supply / (2.0 * reserve(k)),
                    _ => reserve(j) / reserve(i),
                }
            }
            PoolState::UniswapV3(v3) => {
                if v3.liquidity == 0 {
                    return None;
                }
                let s = u256_to_f64(v3.sqrt_price_x96) / Q96;
                let p01 = s * s;
                if i == 0 { p01 } else { 1.0 / p01 }
            }
            PoolState::Stableswap(st) => {
                let StableswapState { balances, amp, a_precision, lp_supply, .. } = &**st;
                let amp = u256_to_f64(*amp) / u256_to_f64(*a_precision).max(1.0);
                let n = balances.len();
                let lp = self.lp_index();
                let coin = |k: usize| k < n || Some(k) == lp;
                if !coin(i) || !coin(j) {
                    return None;
                }
                let scale: Vec<f64> =
                    self.decimals().iter().map(|d| 10f64.powi(18 - i32::from(*d))).collect();
                let x: Vec<f64> =
                    balances.iter().zip(&scale).map(|(b, s)| u256_to_f64(*b) * s).collect();
                let d = crate::amm::shadow::stableswap_d(&x, amp)?;
                let ann = amp * n as f64;
                let prod: f64 = x.iter().product();
                let k = d.powi(n as i32 + 1) / ((n as f64).powi(n as i32) * prod);
                // ∂F/∂x of the invariant F = Ann·S + D − Ann·D − D^(n+1)/(nⁿ·Πx).
                let dfdx = |c: usize| ann + k / x[c];
                if i < n && j < n {
                    // Normalized units of j per normalized unit of i, back to raw.
                    dfdx(i) / dfdx(j) * scale[i] / scale[j]
                } else {
                    // LP tokens per raw unit of a coin: supply / D · ∂D/∂x.
                    let supply = u256_to_f64((*lp_supply)?);
                    let dd = |c: usize| dfdx(c) / (ann - 1.0 + (n as f64 + 1.0) * k / d);
                    let per_coin = |c: usize| supply / d * dd(c) * scale[c];
                    if j == n { per_coin(i) } else { 1.0 / per_coin(j) }
                }
            }
            PoolState::Weighted(w) => {
                let WeightedState { balances, weights, bpt_supply, .. } = &**w;
                // Value per raw unit of coin k, in units of the invariant's
                // share: weight / balance. A BPT is supply⁻¹ of the whole.
                let per = |k: usize| -> Option<f64> {
                    match (balances.get(k), weights.get(k)) {
                        (Some(b), Some(w)) => Some(u256_to_f64(*w) / 1e18 / u256_to_f64(*b)),
                        _ if self.lp_index() == Some(k) => Some(1.0 / u256_to_f64((*bpt_supply)?)),
                        _ => None,
                    }
                };
                per(i)? / per(j)?
            }
            PoolState::Erc4626(v) => {
                let (a, s) = (u256_to_f64(v.total_assets), u256_to_f64(v.total_supply));
                if i == 0 { s / a } else { a / s }
            }
            PoolState::Lending(l) => {
                let per_receipt = match l.model {
                    LendingModel::Aave | LendingModel::Comet => 1.0,
                    LendingModel::Compound => u256_to_f64(l.exchange_rate) / 1e18,
                };
                if i == 0 { 1.0 / per_receipt } else { per_receipt }
            }
            PoolState::LiquidStaking(st) => {
                let per_asset = if st.rebasing {
                    1.0
                } else {
                    u256_to_f64(st.total_shares) / u256_to_f64(st.total_pooled_asset)
                };
                if i == 0 { per_asset } else { 1.0 / per_asset }
            }
            PoolState::Wrap => 1.0,
        };
        (r.is_finite() && r > 0.0).then_some(r)
    }

    /// How much of token `i` the pool holds, in raw units, as far as its
    /// state tells (virtual reserves for V3, withdrawable liquidity for
    /// lending). Used to weight prices by liquidity.
    pub fn depth(&self, i: usize) -> f64 {
        let d = match &self.state {
            PoolState::UniswapV2 { reserves, .. } => {
                reserves.get(i).map_or(0.0, |r| u128_to_f64(*r))
            }
            PoolState::UniswapV2Lp(p) => match p.reserves.get(i) {
                Some(r) => u128_to_f64(*r),
                None => u256_to_f64(p.liquidity.supply),
            },
            PoolState::UniswapV3(v3) => {
                let s = u256_to_f64(v3.sqrt_price_x96) / Q96;
                let l = v3.liquidity as f64;
                if i == 0 { l / s } else { l * s }
            }
            PoolState::Stableswap(st) => match st.balances.get(i) {
                Some(b) => u256_to_f64(*b),
                None if self.lp_index() == Some(i) => st.lp_supply.map_or(0.0, u256_to_f64),
                None => 0.0,
            },
            PoolState::Weighted(w) => match w.balances.get(i) {
                Some(b) => u256_to_f64(*b),
                None if self.lp_index() == Some(i) => w.bpt_supply.map_or(0.0, u256_to_f64),
                None => 0.0,
            },
            PoolState::Erc4626(v) => {
                u256_to_f64(if i == 0 { v.total_assets } else { v.total_supply })
            }
            PoolState::Lending(l) => {
                let a = u256_to_f64(l.available_liquidity);
                match (i, l.model) {
                    (0, _) | (_, LendingModel::Aave | LendingModel::Comet) => a,
                    (_, LendingModel::Compound) => a / (u256_to_f64(l.exchange_rate) / 1e18),
                }
            }
            PoolState::LiquidStaking(st) => {
                u256_to_f64(if i == 0 { st.total_pooled_asset } else { st.total_shares })
            }
            PoolState::Wrap => f64::INFINITY,
        };
        if d.is_finite() || matches!(self.state, PoolState::Wrap) { d.max(0.0) } else { 0.0 }
    }
}

/// A pool of tokens `0x…01`, `0x…02`, … with the given decimals, for unit
/// tests.
#[cfg(test)]
pub(crate) fn test_pool(state: PoolState, decimals: Vec<u8>) -> Pool {
    let tokens =
        decimals.iter().enumerate().map(|(i, d)| (Address::with_last_byte(i as u8 + 1), *d));
    Pool {
        chain: ChainId(1),
        address: Address::ZERO,
        protocol: "t".into(),
        tokens: PoolTokens::new(tokens),
        state,
    }
}

/// A Uniswap V3 pool (fee 3000, spacing 60, 18 decimals each side) at
/// `tick`'s price with `liquidity` active over `ticks`, no range hint, for
/// unit tests.
#[cfg(test)]
pub(crate) fn test_v3_pool(ticks: Vec<(i32, i128)>, liquidity: u128, tick: i32) -> Pool {
    let sqrt_price_x96 = crate::amm::uniswap_v3::sqrt_ratio_at_tick(tick).unwrap_or_default();
    test_pool(
        PoolState::UniswapV3(Box::new(V3State {
            sqrt_price_x96,
            liquidity,
            tick,
            fee: 3000,
            tick_spacing: 60,
            ticks: TickList::from(ticks),
            range: RangeHint::default(),
        })),
        vec![18, 18],
    )
}

#[cfg(test)]
mod tests {
    use super::{test_pool as pool, *};

    #[test]
    fn u256_to_f64_is_close() {
        assert_eq!(u256_to_f64(U256::from(12345u64)), 12345.0);
        for x in
            [0u128, 1, 12345, u128::from(u64::MAX), u128::from(u64::MAX) + 1, 3 << 100, u128::MAX]
        {
            let (narrow, wide) = (u128_to_f64(U128::from(x)), u256_to_f64(U256::from(x)));
            assert_eq!(narrow.to_bits(), wide.to_bits(), "{x}");
        }
        let big = U256::from(1u64) << 200;
        assert_eq!(u256_to_f64(big), 2f64.powi(200));
    }

    #[test]
    fn v2_spot_is_reserve_ratio() {
        let p = pool(
            PoolState::UniswapV2 {
                reserves: [U128::from(100u64), U128::from(300u64)],
                fee_bps: 30,
            },
            vec![18, 18],
        );
        assert_eq!(p.spot_rate(0, 1), Some(3.0));
        assert_eq!(p.spot_rate(1, 0), Some(1.0 / 3.0));
        assert_eq!(p.spot_rate(0, 0), None);
    }

    #[test]
    fn v3_spot_is_sqrt_price_squared() {
        // sqrtPriceX96 = 2^96 * 2 means price 4.
        let p = pool(
            PoolState::UniswapV3(Box::new(V3State {
                sqrt_price_x96: U256::from(2u64) << 96,
                liquidity: 1_000,
                tick: 13_863,
                fee: 3000,
                tick_spacing: 60,
                ticks: TickList::from(Vec::new()),
                range: RangeHint::default(),
            })),
            vec![18, 18],
        );
        assert!((p.spot_rate(0, 1).unwrap_or_default() - 4.0).abs() < 1e-12);
        assert!((p.spot_rate(1, 0).unwrap_or_default() - 0.25).abs() < 1e-12);
    }

    #[test]
    fn balanced_stableswap_is_at_par_across_decimals() {
        let p = pool(
            PoolState::Stableswap(Box::new(StableswapState {
                balances: vec![
                    U256::from(10u64).pow(U256::from(24u64)),
                    U256::from(10u64).pow(U256::from(12u64)),
                ],
                amp: U256::from(2000u64),
                fee: U256::from(1_000_000u64),
                admin_fee: U256::ZERO,
                a_precision: U256::from(1u8),
                lp_supply: None,
            })),
            vec![18, 6],
        );
        // 1 raw unit of an 18-dec coin buys 1e-12 raw units of a 6-dec coin.
        let r = p.spot_rate(0, 1).unwrap_or_default();
        assert!((r / 1e-12 - 1.0).abs() < 1e-9, "{r}");
    }

    #[test]
    fn imbalanced_stableswap_prices_the_scarce_coin_higher() {
        let e = U256::from(10u64).pow(U256::from(18u64));
        let p = pool(
            PoolState::Stableswap(Box::new(StableswapState {
                balances: vec![e * U256::from(900u64), e * U256::from(100u64)],
                amp: U256::from(100u64),
                fee: U256::ZERO,
                admin_fee: U256::ZERO,
                a_precision: U256::from(1u8),
                lp_supply: None,
            })),
            vec![18, 18],
        );
        let r = p.spot_rate(0, 1).unwrap_or_default();
        // dy/dx of the invariant at 900:100, A=100, checked numerically with
        // get_y over a 1e-4 step: 0.894035.
        assert!((r - 0.894_035).abs() < 1e-5, "{r}");
    }

    /// The 3pool with its LP token (index 3): the LP directions' spot rate
    /// is a small trade's rate, the shadow follows the exact math, and a
    /// deposit withdrawn again gives back the coin less the fees.
    #[test]
    fn a_curve_lp_token_is_entered_and_left_through_one_coin() {
        let e = |n: u64, d: u32| U256::from(n) * U256::from(10u64).pow(U256::from(d));
        let mut p = pool(
            PoolState::Stableswap(Box::new(StableswapState {
                balances: vec![e(52_400_000, 18), e(55_100_000, 6), e(63_800_000, 6)],
                amp: U256::from(2000u64),
                fee: U256::from(1_000_000u64),
                admin_fee: U256::from(5_000_000_000u64),
                a_precision: U256::from(1u8),
                lp_supply: Some(e(159_541_690, 18)),
            })),
            vec![18, 6, 6, 18],
        );
        p.address = Address::with_last_byte(0xee);
        assert_eq!(p.lp_index(), Some(3));
        for (i, amount) in [(1usize, e(1_000, 6)), (0, e(25_000, 18)), (2, e(5_000_000, 6))] {
            let minted = p.swap_exact_in(i, 3, amount).expect("deposit");
            let spot = p.spot_rate(i, 3).unwrap_or_default();
            let exact = u256_to_f64(minted.amount_out) / u256_to_f64(amount);
            let shadow = p.shadow_out(i, 3, u256_to_f64(amount)) / u256_to_f64(amount);
            assert!((shadow / exact - 1.0).abs() < 1e-6, "{i}: shadow {shadow} exact {exact}");
            assert!(exact <= spot && exact > spot * 0.99, "{i}: exact {exact} spot {spot}");
            let PoolState::Stableswap(next) = &minted.next else { unreachable!() };
            assert_eq!(next.lp_supply, Some(e(159_541_690, 18) + minted.amount_out));
            let after = Pool { state: minted.next.clone(), ..p.clone() };
            let back = after.swap_exact_in(3, i, minted.amount_out).expect("withdraw");
            let shadow = after.shadow_out(3, i, u256_to_f64(minted.amount_out))
                / u256_to_f64(back.amount_out);
            assert!((shadow - 1.0).abs() < 1e-6, "{i}: shadow {shadow}");
            // Two imbalance fees (0.0075% each) at most, and never more.
            assert!(back.amount_out < amount, "{i}");
            assert!(u256_to_f64(back.amount_out) > u256_to_f64(amount) * 0.9997, "{i}");
        }
        // Coins are not exchanged for the LP token through `exchange`, and
        // a pool that is its own LP token is not entered this way.
        p.address = p.tokens[3];
        assert_eq!(p.lp_index(), None);
        assert!(p.swap_exact_in(0, 3, e(1, 18)).is_err());
    }

    #[test]
    fn empty_pools_have_no_rate() {
        let p = pool(
            PoolState::UniswapV2 { reserves: [U128::ZERO, U128::ZERO], fee_bps: 30 },
            vec![18, 18],
        );
        assert_eq!(p.spot_rate(0, 1), None);
    }

    /// The layout the memory target rests on: a V2 pool is one 128-byte
    /// record with nothing on the heap.
    #[test]
    fn pool_layout_stays_compact() {
        assert_eq!(std::mem::size_of::<PoolState>(), 40);
        assert_eq!(std::mem::size_of::<PoolTokens>(), 48);
        assert_eq!(std::mem::size_of::<Pool>(), 128);
    }

    #[test]
    fn v2_reserves_are_the_pairs_uint112() {
        let max = (U256::ONE << 112) - U256::ONE;
        let s = PoolState::uniswap_v2([max, U256::ONE], 30).expect("fits");
        assert_eq!(s.v2_reserves(), Some([max, U256::ONE]));
        assert_eq!(PoolState::uniswap_v2([max + U256::ONE, U256::ONE], 30), None);
    }

    #[test]
    fn two_tokens_inline_more_on_the_heap() {
        let a = Address::with_last_byte;
        let two = PoolTokens::new([(a(1), 6), (a(2), 18)]);
        assert_eq!(&*two, &[a(1), a(2)]);
        assert_eq!(two.decimals(), &[6, 18]);
        let three = PoolTokens::new([(a(1), 6), (a(2), 18), (a(3), 8)]);
        assert_eq!(&*three, &[a(1), a(2), a(3)]);
        assert_eq!(three.decimals(), &[6, 18, 8]);
        assert_ne!(two, three);
    }
}
