//! Pool state and its marginal (spot) rates.
//!
//! Spot rates are `f64`: they guide searches and derive display prices, and
//! never decide an amount the service returns. Exact integer quoting lives
//! beside them, one implementation per pool kind, matching its contract.

use alloy_primitives::U256;
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
}

/// The state of one pool, by kind.
#[derive(Debug, Clone, PartialEq)]
pub enum PoolState {
    /// Constant product: reserves and fee.
    UniswapV2 {
        /// Reserves, pool order.
        reserves: [U256; 2],
        /// Fee in bps.
        fee_bps: u32,
    },
    /// Concentrated liquidity.
    UniswapV3 {
        /// Q64.96 sqrt price.
        sqrt_price_x96: U256,
        /// Active liquidity.
        liquidity: u128,
        /// Current tick.
        tick: i32,
        /// Fee in hundredths of a bip.
        fee: u32,
        /// Tick spacing.
        tick_spacing: i32,
        /// Initialized ticks (index, liquidityNet), sorted; shared, since
        /// swaps never change them.
        ticks: TickList,
    },
    /// Curve StableSwap over `coins`; the LP token, if any, is the last token
    /// of the pool and is not swappable through this state. Boxed, like
    /// `Weighted`, so the common kinds keep `PoolState` small.
    Stableswap(Box<StableswapState>),
    /// Balancer weighted.
    Weighted(Box<WeightedState>),
    /// ERC-4626 vault; tokens are `[asset, share]`.
    Erc4626 {
        /// `totalAssets()`.
        total_assets: U256,
        /// `totalSupply()`.
        total_supply: U256,
        /// Whose conversion arithmetic the vault has.
        rule: VaultRule,
    },
    /// Lending supply; tokens are `[asset, receipt]`.
    Lending {
        /// Exchange-rate model.
        model: LendingModel,
        /// Index (ray) or cToken rate (1e18).
        exchange_rate: U256,
        /// Withdrawable asset.
        available_liquidity: U256,
    },
    /// Liquid staking deposit; tokens are `[asset, receipt]`.
    LiquidStaking {
        /// Total asset.
        total_pooled_asset: U256,
        /// Total shares.
        total_shares: U256,
        /// Receipt balances are in asset units.
        rebasing: bool,
    },
    /// Wrapping the native coin; tokens are `[native, wrapped]`, 1:1.
    Wrap,
}

/// A pool with its identity and tokens.
#[derive(Debug, Clone, PartialEq)]
pub struct Pool {
    /// Chain.
    pub chain: ChainId,
    /// Pool, vault or market address (the wrapped token for `Wrap`).
    pub address: Address,
    /// Protocol slug (shared by every pool of the protocol).
    pub protocol: std::sync::Arc<str>,
    /// Tokens, pool order.
    pub tokens: Box<[Address]>,
    /// Decimals of `tokens`.
    pub decimals: Box<[u8]>,
    /// State.
    pub state: PoolState,
}

impl Pool {
    /// Position of `token` in the pool.
    pub fn index_of(&self, token: Address) -> Option<usize> {
        self.tokens.iter().position(|t| *t == token)
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
                u256_to_f64(reserves[j]) / u256_to_f64(reserves[i])
            }
            PoolState::UniswapV3 { sqrt_price_x96, liquidity, .. } => {
                if *liquidity == 0 {
                    return None;
                }
                let s = u256_to_f64(*sqrt_price_x96) / Q96;
                let p01 = s * s;
                if i == 0 { p01 } else { 1.0 / p01 }
            }
            PoolState::Stableswap(st) => {
                let StableswapState { balances, amp, a_precision, .. } = &**st;
                let amp = u256_to_f64(*amp) / u256_to_f64(*a_precision).max(1.0);
                let n = balances.len();
                if i >= n || j >= n {
                    return None;
                }
                let x: Vec<f64> = balances
                    .iter()
                    .zip(&self.decimals)
                    .map(|(b, d)| u256_to_f64(*b) * 10f64.powi(18 - i32::from(*d)))
                    .collect();
                let d = crate::amm::shadow::stableswap_d(&x, amp)?;
                let ann = amp * n as f64;
                let prod: f64 = x.iter().product();
                let k = d.powi(n as i32 + 1) / ((n as f64).powi(n as i32) * prod);
                let di = ann + k / x[i];
                let dj = ann + k / x[j];
                // Normalized units of j per normalized unit of i, back to raw.
                di / dj * 10f64.powi(i32::from(self.decimals[j]) - i32::from(self.decimals[i]))
            }
            PoolState::Weighted(w) => {
                let WeightedState { balances, weights, .. } = &**w;
                let bi = u256_to_f64(balances[i]) / u256_to_f64(weights[i]);
                let bj = u256_to_f64(balances[j]) / u256_to_f64(weights[j]);
                bj / bi
            }
            PoolState::Erc4626 { total_assets, total_supply, .. } => {
                let (a, s) = (u256_to_f64(*total_assets), u256_to_f64(*total_supply));
                if i == 0 { s / a } else { a / s }
            }
            PoolState::Lending { model, exchange_rate, .. } => {
                let per_receipt = match model {
                    LendingModel::Aave => 1.0,
                    LendingModel::Compound => u256_to_f64(*exchange_rate) / 1e18,
                };
                if i == 0 { 1.0 / per_receipt } else { per_receipt }
            }
            PoolState::LiquidStaking { total_pooled_asset, total_shares, rebasing } => {
                let per_asset = if *rebasing {
                    1.0
                } else {
                    u256_to_f64(*total_shares) / u256_to_f64(*total_pooled_asset)
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
                reserves.get(i).map_or(0.0, |r| u256_to_f64(*r))
            }
            PoolState::UniswapV3 { sqrt_price_x96, liquidity, .. } => {
                let s = u256_to_f64(*sqrt_price_x96) / Q96;
                let l = *liquidity as f64;
                if i == 0 { l / s } else { l * s }
            }
            PoolState::Stableswap(st) => st.balances.get(i).map_or(0.0, |b| u256_to_f64(*b)),
            PoolState::Weighted(w) => w.balances.get(i).map_or(0.0, |b| u256_to_f64(*b)),
            PoolState::Erc4626 { total_assets, total_supply, .. } => {
                u256_to_f64(if i == 0 { *total_assets } else { *total_supply })
            }
            PoolState::Lending { available_liquidity, exchange_rate, model } => {
                let a = u256_to_f64(*available_liquidity);
                match (i, model) {
                    (0, _) | (_, LendingModel::Aave) => a,
                    (_, LendingModel::Compound) => a / (u256_to_f64(*exchange_rate) / 1e18),
                }
            }
            PoolState::LiquidStaking { total_pooled_asset, total_shares, .. } => {
                u256_to_f64(if i == 0 { *total_pooled_asset } else { *total_shares })
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
    let tokens = (0..decimals.len()).map(|i| Address::with_last_byte(i as u8 + 1)).collect();
    Pool {
        chain: ChainId(1),
        address: Address::ZERO,
        protocol: "t".into(),
        tokens,
        decimals: decimals.into(),
        state,
    }
}

#[cfg(test)]
mod tests {
    use super::{test_pool as pool, *};

    #[test]
    fn u256_to_f64_is_close() {
        assert_eq!(u256_to_f64(U256::from(12345u64)), 12345.0);
        let big = U256::from(1u64) << 200;
        assert_eq!(u256_to_f64(big), 2f64.powi(200));
    }

    #[test]
    fn v2_spot_is_reserve_ratio() {
        let p = pool(
            PoolState::UniswapV2 {
                reserves: [U256::from(100u64), U256::from(300u64)],
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
            PoolState::UniswapV3 {
                sqrt_price_x96: U256::from(2u64) << 96,
                liquidity: 1_000,
                tick: 13_863,
                fee: 3000,
                tick_spacing: 60,
                ticks: TickList::from(Vec::new()),
            },
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

    #[test]
    fn empty_pools_have_no_rate() {
        let p = pool(
            PoolState::UniswapV2 { reserves: [U256::ZERO, U256::ZERO], fee_bps: 30 },
            vec![18, 18],
        );
        assert_eq!(p.spot_rate(0, 1), None);
    }
}
