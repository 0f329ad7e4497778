//! Writes a large synthetic market for chain 1 that the server loads with
//! its embedded catalog: `cargo run --release -p switchyard-benches
//! --example make_market -- POOLS SEED DIR` (defaults 100000, 7, `.`).
//!
//! - `DIR/synthetic-tokens.json`: a catalog file of `POOLS / 10` tail
//!   tokens (18 decimals, log-uniform prices from $0.01 to $100), laid over
//!   the embedded catalog (`catalog_files`).
//! - `DIR/synthetic-market.json`: a market file (`market`) of Uniswap
//!   pools, 75.5% V2 and 24.5% V3 (fees 500/3000/10000, 15 initialized
//!   ticks each: seven positions around the price and the unused outer
//!   ticks), at the real CREATE2 addresses of the mainnet factories, over
//!   the tails and five real hubs (USDC, USDT, DAI, WETH, WBTC). One pool
//!   per pair of tokens and fee; reserves $2k to $300M, Zipf-skewed toward
//!   the first tails.
//!
//! Every number comes from the seed, so a benchmark sees the same market
//! every run.

use std::{collections::HashSet, io::Write};

use alloy_primitives::{Address, B256, U256, address, b256, keccak256};
use serde_json::{Value, json};
use switchyard_benches::Rng;
use switchyard_kernel::amm::uniswap_v3::{sqrt_ratio_at_tick, tick_at_sqrt_ratio};

const V2_FACTORY: Address = address!("5c69bee701ef814a2b6a3edd4b1652cb9cc5aa6f");
const V2_INIT: B256 = b256!("96e8ac4277198ff8b6f785478aa9a39f403cb768dd02cbee326c3e7da348845f");
const V3_FACTORY: Address = address!("1f98431c8ad98523631ae4a59f267346ea31f984");
const V3_INIT: B256 = b256!("e34f199b19b2b4f47f68442619d555527d244f78a3297ea89325f843f87b8b54");

/// (address, decimals, USD price) of the hubs.
const HUBS: [(Address, u8, f64); 5] = [
    (address!("a0b86991c6218b36c1d19d4a2e9eb0ce3606eb48"), 6, 1.0),
    (address!("dac17f958d2ee523a2206206994597c13d831ec7"), 6, 1.0),
    (address!("6b175474e89094c44da98b954eedeac495271d0f"), 18, 1.0),
    (address!("c02aaa39b223fe8d0a0e5c4f27ead9083c756cc2"), 18, 3000.0),
    (address!("2260fac5e5542a773aa44fbcfedf7c193bc2c599"), 8, 95_000.0),
];

/// The `i`-th tail token's address.
fn tail(i: usize) -> Address {
    let mut b = [0u8; 20];
    b[..4].copy_from_slice(&[0x5e, 0xed, 0x7a, 0x11]);
    b[12..].copy_from_slice(&(i as u64).to_be_bytes());
    Address::from(b)
}

/// `units` of a token worth `usd` at `price`, as a decimal string.
fn amount(usd: f64, price: f64, decimals: u8) -> U256 {
    let units = usd / price * 10f64.powi(i32::from(decimals));
    U256::from(units.clamp(1.0, 1e36) as u128)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let n: usize = args.next().map_or(Ok(100_000), |a| a.parse())?;
    let seed: u64 = args.next().map_or(Ok(7), |a| a.parse())?;
    let dir = std::path::PathBuf::from(args.next().unwrap_or_else(|| ".".into()));
    let mut rng = Rng::new(seed);
    let n_tails = (n / 10).max(50);
    let tails: Vec<(Address, u8, f64)> =
        (0..n_tails).map(|i| (tail(i), 18, rng.log_uniform(0.01, 100.0))).collect();
    let tokens: Vec<Value> = tails
        .iter()
        .enumerate()
        .map(|(i, (a, d, _))| {
            json!({"chainId": 1, "address": format!("{a:#x}"), "type": "base", "decimals": d,
                   "symbol": format!("SYN{i}"), "name": format!("Synthetic {i}"), "logosUri": []})
        })
        .collect();
    let all: Vec<(Address, u8, f64)> = HUBS.iter().copied().chain(tails.iter().copied()).collect();
    let mut seen = HashSet::new();
    let mut pools = Vec::with_capacity(n);
    let (mut v2, mut v3, mut ticks_total) = (0usize, 0usize, 0usize);
    while pools.len() < n {
        // Zipf-like: low tail indexes far more often.
        let pick = |rng: &mut Rng| {
            let u = rng.unit();
            5 + ((n_tails as f64).powf(u) as usize).min(n_tails - 1)
        };
        let a = pick(&mut rng);
        let b = if rng.unit() < 0.7 { (rng.next_u64() % 5) as usize } else { pick(&mut rng) };
        if a == b {
            continue;
        }
        let (x, y) = (all[a], all[b]);
        let (t0, t1) = if x.0 < y.0 { (x, y) } else { (y, x) };
        // 245 of every 1,000 pools are V3.
        let is_v3 = pools.len() % 1000 < 245;
        let fee = [500u32, 3000, 10000][(rng.next_u64() % 3) as usize];
        if !seen.insert((t0.0, t1.0, if is_v3 { fee } else { 0 })) {
            continue;
        }
        let usd = rng.log_uniform(2_000.0, 300_000_000.0);
        if is_v3 {
            let spacing: i32 = match fee {
                500 => 10,
                3000 => 60,
                _ => 200,
            };
            // Price of token0 in token1, raw units.
            let price = t0.2 / t1.2 * 10f64.powi(i32::from(t1.1)) / 10f64.powi(i32::from(t0.1));
            let sqrt = (price.sqrt() * 2f64.powi(96)).clamp(4_295_128_739.0, 1.4e48);
            let sqrt_price = U256::from(sqrt as u128);
            let Ok(tick) = tick_at_sqrt_ratio(sqrt_price) else { continue };
            // Seven nested positions around the price: lower and upper
            // ticks 1..=7 spacings away on each side.
            let base = tick.div_euclid(spacing) * spacing;
            let l = {
                // Liquidity for about `usd` of token1 across the ranges.
                let p = sqrt / 2f64.powi(96);
                let token1 = usd / 2.0 / t1.2 * 10f64.powi(i32::from(t1.1));
                (token1 / p / 7.0 / (1.0 - 1.0001f64.powf(-(spacing as f64) * 4.0)).max(1e-9))
                    .clamp(1e6, 1e30) as u128
            };
            let mut list: Vec<(i32, i128)> = Vec::new();
            for k in 1..=7 {
                list.push((base - spacing * k, l as i128));
                list.push((base + spacing * k, -(l as i128)));
            }
            // One unused outer tick pair, far away, as deployed pools have.
            list.push((base - spacing * 500, (l / 10) as i128));
            list.push((base + spacing * 500, -((l / 10) as i128)));
            list.sort_unstable();
            let lo = sqrt_ratio_at_tick(list[0].0);
            let hi = sqrt_ratio_at_tick(list[list.len() - 1].0);
            if lo.is_err() || hi.is_err() {
                continue;
            }
            ticks_total += list.len();
            let active: u128 = l * 7 + l / 10;
            // keccak256(abi.encode(token0, token1, fee)).
            let mut key = [0u8; 96];
            key[12..32].copy_from_slice(t0.0.as_slice());
            key[44..64].copy_from_slice(t1.0.as_slice());
            key[92..96].copy_from_slice(&fee.to_be_bytes());
            let salt = keccak256(key);
            let address = V3_FACTORY.create2(salt, V3_INIT);
            pools.push(json!({
                "kind": "uniswapV3", "chainId": 1, "protocol": "uniswap-v3",
                "address": format!("{address:#x}"),
                "token0": format!("{:#x}", t0.0), "token1": format!("{:#x}", t1.0),
                "fee": fee, "tickSpacing": spacing,
                "sqrtPriceX96": sqrt_price.to_string(), "tick": tick,
                "liquidity": active.to_string(),
                "ticks": list.iter().map(|(i, net)| json!({"index": i, "liquidityNet": net.to_string()})).collect::<Vec<_>>(),
            }));
            v3 += 1;
        } else {
            let salt = keccak256([t0.0.as_slice(), t1.0.as_slice()].concat());
            let address = V2_FACTORY.create2(salt, V2_INIT);
            let r0 = amount(usd / 2.0, t0.2, t0.1);
            let r1 = amount(usd / 2.0, t1.2, t1.1);
            let cap = (U256::ONE << 112) - U256::ONE;
            pools.push(json!({
                "kind": "uniswapV2", "chainId": 1, "protocol": "uniswap-v2",
                "address": format!("{address:#x}"),
                "token0": format!("{:#x}", t0.0), "token1": format!("{:#x}", t1.0),
                "reserve0": r0.min(cap).to_string(), "reserve1": r1.min(cap).to_string(),
                "feeBps": 30,
            }));
            v2 += 1;
        }
    }
    let market = json!({
        "description": format!("synthetic: {v2} Uniswap V2 and {v3} V3 pools ({ticks_total} initialized ticks), seed {seed}"),
        "chains": [{"chainId": 1, "blockNumber": 21_000_000, "timestamp": 1_730_000_000u64, "gasPriceWei": "12000000000"}],
        "pools": pools,
    });
    std::fs::create_dir_all(&dir)?;
    let write = |name: &str, v: &Value| -> std::io::Result<()> {
        let mut f = std::io::BufWriter::new(std::fs::File::create(dir.join(name))?);
        serde_json::to_writer(&mut f, v)?;
        f.flush()
    };
    write("synthetic-tokens.json", &json!({ "tokens": tokens }))?;
    write("synthetic-market.json", &market)?;
    println!(
        "{v2} V2 and {v3} V3 pools ({ticks_total} ticks), {n_tails} tail tokens, in {}",
        dir.display()
    );
    Ok(())
}
