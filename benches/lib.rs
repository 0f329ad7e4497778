//! Benchmark fixtures: deterministic synthetic markets.
//!
//! [`synthetic_market`] builds a one-chain market of `n_pools` pools over
//! `n_pools / 10` tokens (at least 50): five hubs (USDC at $1, WETH at
//! $3,000, WBTC at $95,000, and two more dollar stablecoins) and tails with
//! log-uniform prices. The mix is 50% Uniswap V2, 35% Uniswap V3 (30
//! initialized ticks each), 5% StableSwap between dollar tokens, 5% 80/20
//! Balancer weighted pools and 5% ERC-4626 vaults. Every number comes from a fixed xorshift seed, so a
//! benchmark sees the same market every run.
//!
//! [`optimum`] computes the convex optimum of a trade over constant-product
//! pools (Clarabel), the reference of the route-quality benchmark.
//!
//! Criterion benchmarks live in `benches/benches/*.rs`.

pub mod optimum;

use alloy_primitives::{Address, U256};
use switchyard_catalog::{
    Catalog, CatalogDocument, ChainId, NATIVE_TOKEN, NativeCurrency, Network, Token,
    market::{
        ChainState, Erc4626Record, Market, PoolRecord, StableswapRecord, TickRecord,
        UniswapV2Record, UniswapV3Record, WeightedRecord,
    },
};

/// The chain of the synthetic market.
pub const CHAIN: ChainId = ChainId(1);

/// The queries the cost examples run: a name, the input token's index and
/// the output token's (hubs first, then tails).
pub const QUERIES: [(&str, usize, usize); 3] =
    [("hub→hub", 0, 1), ("tail→hub", 7, 1), ("tail→tail", 17, 23)];

/// The median of `v` (the upper one of an even count).
pub fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// A deterministic 64-bit xorshift generator.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    /// A generator from a seed.
    pub const fn new(seed: u64) -> Self {
        Self(seed | 1)
    }

    /// Next value.
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// Uniform in [0, 1).
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Log-uniform in [lo, hi).
    pub fn log_uniform(&mut self, lo: f64, hi: f64) -> f64 {
        (lo.ln() + self.unit() * (hi.ln() - lo.ln())).exp()
    }
}

/// Token `i` of the synthetic market.
pub fn token(i: usize) -> Address {
    let mut b = [0u8; 20];
    b[0] = 0x10;
    b[12..20].copy_from_slice(&(i as u64).to_be_bytes());
    Address::from(b)
}

/// The synthetic market: its catalog, market and the USD price of each token.
pub struct Synthetic {
    /// Catalog (one network, every token).
    pub catalog: Catalog,
    /// Pools.
    pub market: Market,
    /// USD price by token index.
    pub prices: Vec<f64>,
    /// Decimals by token index.
    pub decimals: Vec<u8>,
}

fn raw(usd: f64, price: f64, decimals: u8) -> U256 {
    let units = usd / price * 10f64.powi(i32::from(decimals));
    U256::from(units.max(1.0) as u128)
}

fn f64_to_u256(x: f64) -> U256 {
    // x < 2^160 here; split to keep the mantissa exact.
    let hi = (x / 2f64.powi(64)).floor();
    let lo = x - hi * 2f64.powi(64);
    (U256::from(hi as u128) << 64) + U256::from(lo.max(0.0) as u128)
}

/// A plain base token of the synthetic chain.
fn base_token(address: Address, decimals: u8, symbol: String, name: String) -> Token {
    Token::base(CHAIN, address, decimals, symbol, name)
}

/// Builds the market (see the module docs).
pub fn synthetic_market(n_pools: usize, seed: u64) -> Synthetic {
    let mut rng = Rng::new(seed);
    let n_tokens = (n_pools / 10).max(50);
    let mut prices = vec![1.0, 3000.0, 95_000.0, 1.0, 1.0];
    let mut decimals = vec![6u8, 18, 8, 18, 6];
    let mut stable = vec![0usize, 3, 4];
    for i in 5..n_tokens {
        // One tail in ten is a dollar token (for StableSwap pools).
        if i % 10 == 0 {
            prices.push(1.0);
            stable.push(i);
        } else {
            prices.push(rng.log_uniform(0.01, 100.0));
        }
        decimals.push(18);
    }
    let mut pools = Vec::with_capacity(n_pools);
    let pick = |rng: &mut Rng| {
        if rng.unit() < 0.5 {
            (rng.next_u64() % 5) as usize
        } else {
            (rng.next_u64() as usize) % n_tokens
        }
    };
    let mut n_vault_tokens = 0usize;
    for k in 0..n_pools {
        let kind = k % 20; // 0..9 V2, 10..16 V3, 17 stable, 18 weighted, 19 vault
        let addr = {
            let mut b = [0u8; 20];
            b[0] = 0x20;
            b[12..20].copy_from_slice(&(k as u64).to_be_bytes());
            Address::from(b)
        };
        let usd = rng.log_uniform(10_000.0, 20_000_000.0);
        if kind == 18 {
            // An 80/20 Balancer pool between two tokens.
            let a = pick(&mut rng);
            let mut b = pick(&mut rng);
            if a == b {
                b = (a + 1) % n_tokens;
            }
            let e18 = U256::from(1_000_000_000_000_000_000u64);
            let w = e18 / U256::from(5u8);
            pools.push(PoolRecord::Weighted(WeightedRecord {
                chain_id: CHAIN,
                address: addr,
                protocol: "balancer-v2".into(),
                pool_id: None,
                tokens: vec![token(a), token(b)],
                balances: vec![
                    raw(usd * 0.8, prices[a], decimals[a]),
                    raw(usd * 0.2, prices[b], decimals[b]),
                ],
                weights: vec![e18 - w, w],
                swap_fee: U256::from(3_000_000_000_000_000u64),
                pool_version: None,
                bpt_supply: None,
            }));
            continue;
        }
        if kind == 17 {
            let a = stable[(rng.next_u64() as usize) % stable.len()];
            let mut b = stable[(rng.next_u64() as usize) % stable.len()];
            if a == b {
                b = stable[(stable.iter().position(|x| *x == a).unwrap_or(0) + 1) % stable.len()];
            }
            pools.push(PoolRecord::Stableswap(StableswapRecord {
                chain_id: CHAIN,
                address: addr,
                protocol: "curve".into(),
                lp_token: None,
                coins: vec![token(a), token(b)],
                balances: vec![raw(usd / 2.0, 1.0, decimals[a]), raw(usd / 2.0, 1.0, decimals[b])],
                amp: U256::from(200u32),
                fee: U256::from(4_000_000u32),
                admin_fee: Some(U256::from(5_000_000_000u64)),
                a_precision: Some(100),
                amp_precise: None,
                lp_supply: None,
            }));
            continue;
        }
        if kind == 19 {
            let asset = pick(&mut rng);
            let share = n_tokens + n_vault_tokens;
            n_vault_tokens += 1;
            let rate = 1.0 + rng.unit() * 0.2;
            prices.push(prices[asset] * rate);
            decimals.push(decimals[asset]);
            let assets = raw(usd, prices[asset], decimals[asset]);
            let supply = f64_to_u256(crate::to_f64(assets) / rate);
            pools.push(PoolRecord::Erc4626(Erc4626Record {
                chain_id: CHAIN,
                address: token(share),
                protocol: "erc4626".into(),
                asset: token(asset),
                total_assets: assets,
                total_supply: supply.max(U256::from(1u8)),
                rule: Default::default(),
                decimals_offset: 0,
            }));
            continue;
        }
        let a = pick(&mut rng);
        let mut b = pick(&mut rng);
        if a == b {
            b = (a + 1 + (rng.next_u64() as usize) % (n_tokens - 1)) % n_tokens;
        }
        let (t0, t1) = if token(a) < token(b) { (a, b) } else { (b, a) };
        let r0 = raw(usd / 2.0, prices[t0], decimals[t0]);
        let r1 = raw(usd / 2.0, prices[t1], decimals[t1]);
        if kind < 10 {
            pools.push(PoolRecord::UniswapV2(UniswapV2Record {
                chain_id: CHAIN,
                address: addr,
                protocol: "uniswap-v2".into(),
                token0: token(t0),
                token1: token(t1),
                reserve0: r0,
                reserve1: r1,
                fee_bps: 30,
                lp_supply: None,
                k_last: None,
                fee_on: false,
            }));
        } else {
            // Raw price of token0 in token1, its tick, and 15 nested ranges.
            let p = to_f64(r1) / to_f64(r0);
            let sqrt_p = p.sqrt();
            let spacing = 60;
            let tick = (p.ln() / 1.0001f64.ln()).floor() as i32;
            let tick = tick.clamp(-800_000, 800_000);
            let sqrt_at_tick = 1.0001f64.powf(f64::from(tick) / 2.0);
            let sqrt_price = f64_to_u256(sqrt_at_tick * 1.00004 * 2f64.powi(96));
            let l_total = to_f64(r0) * sqrt_p;
            let per = (l_total / 15.0).max(1.0) as u128;
            let base = tick.div_euclid(spacing) * spacing;
            let mut ticks = Vec::with_capacity(30);
            for w in 1..=15 {
                ticks
                    .push(TickRecord { index: base - w * spacing * 4, liquidity_net: per as i128 });
                ticks.push(TickRecord {
                    index: base + w * spacing * 4,
                    liquidity_net: -(per as i128),
                });
            }
            ticks.sort_by_key(|t| t.index);
            pools.push(PoolRecord::UniswapV3(UniswapV3Record {
                chain_id: CHAIN,
                address: addr,
                protocol: "uniswap-v3".into(),
                token0: token(t0),
                token1: token(t1),
                fee: 3000,
                tick_spacing: spacing,
                sqrt_price_x96: sqrt_price,
                tick,
                liquidity: per * 15,
                ticks,
            }));
        }
    }
    let total_tokens = prices.len();
    let symbol = |i: usize| match i {
        0 => "USDC".to_owned(),
        1 => "WETH".to_owned(),
        2 => "WBTC".to_owned(),
        3 => "DAI".to_owned(),
        4 => "USDT".to_owned(),
        _ => format!("T{i}"),
    };
    let tokens = (0..total_tokens)
        .map(|i| base_token(token(i), decimals[i], symbol(i), format!("Token {i}")))
        .chain(std::iter::once(base_token(NATIVE_TOKEN, 18, "ETH".into(), "Ether".into())))
        .collect();
    let doc = CatalogDocument {
        networks: vec![Network {
            id: CHAIN,
            name: "Synthetic".into(),
            native_currency: NativeCurrency {
                symbol: "ETH".into(),
                name: "Ether".into(),
                decimals: 18,
            },
            wrapped_native: token(1),
            block_time_seconds: 12.0,
        }],
        tokens,
        ..CatalogDocument::default()
    };
    let catalog = match Catalog::from_documents([doc]) {
        Ok(c) => c,
        Err(e) => panic!("synthetic catalog: {e:?}"),
    };
    let market = Market {
        description: format!("synthetic, {n_pools} pools, seed {seed}"),
        chains: vec![ChainState {
            chain_id: CHAIN,
            block_number: 1,
            timestamp: 1,
            gas_price_wei: U256::from(3_000_000_000u64),
        }],
        pools,
        dual_vaults: Vec::new(),
        lender_holdings: Vec::new(),
    };
    Synthetic { catalog, market, prices, decimals }
}

/// `U256` to `f64`.
pub fn to_f64(x: U256) -> f64 {
    x.as_limbs().iter().rev().fold(0.0, |acc, &l| acc * 18_446_744_073_709_551_616.0 + l as f64)
}

/// Raw amount of token `i` worth `usd`.
pub fn amount_of(s: &Synthetic, i: usize, usd: f64) -> U256 {
    raw(usd, s.prices[i], s.decimals[i])
}
