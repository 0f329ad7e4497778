//! Gas of one transaction per route class, as the engine measured it while
//! proving the transaction in its world (embedded market, chain 1). Prints
//! a markdown table for BENCHMARKS.md:
//!
//! ```text
//! scripts/setup.sh && cargo run --release -p switchyard-engine --example gas_report
//! ```

use alloy_primitives::{Address, U256, address};
use switchyard_catalog::{ChainId, NATIVE_TOKEN, RoutingStrategy};
use switchyard_engine::{Engine, EngineConfig, QuoteRequest, RouteRequest};

const USDC: Address = address!("a0b86991c6218b36c1d19d4a2e9eb0ce3606eb48");
const WETH: Address = address!("c02aaa39b223fe8d0a0e5c4f27ead9083c756cc2");
const DAI: Address = address!("6b175474e89094c44da98b954eedeac495271d0f");
const USDT: Address = address!("dac17f958d2ee523a2206206994597c13d831ec7");
const WBTC: Address = address!("2260fac5e5542a773aa44fbcfedf7c193bc2c599");
const SDAI: Address = address!("83f20f44975d03b1b09e64809b757c47f942beea");
const AUSDC: Address = address!("98c23e9d8f34fefb1b7bd6a91b7ff122f4e16f5c");
const CUSDC: Address = address!("39aa39c021dfbae8fac545936693ac917d5e7563");
const CUSDCV3: Address = address!("c3d688b66703497daa19211eedff47f25384cdc3");
const STETH: Address = address!("ae7ab96520de3a18e5e111b5eaab095312d7fe84");
const WSTETH: Address = address!("7f39c581f595b53c5cb19bd0b3f8da6c935e2ca0");
const USER: Address = address!("d8da6bf26964af9d7eed9e03e53415d37aa96045");
const NATIVE: Address = NATIVE_TOKEN;

struct Class {
    name: &'static str,
    strategy: RoutingStrategy,
    /// `executionMode=backend`: a user operation of the sender's account.
    backend: bool,
    inputs: Vec<(Address, u128)>,
    outputs: Vec<Address>,
    ignore: &'static [&'static str],
}

fn class(name: &'static str, inputs: Vec<(Address, u128)>, outputs: Vec<Address>) -> Class {
    Class { name, strategy: RoutingStrategy::Router, backend: false, inputs, outputs, ignore: &[] }
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = std::env::temp_dir().join(format!("switchyard-gas-{}", std::process::id()));
    let (engine, shutdown) =
        Engine::start(EngineConfig { data_dir: dir.clone(), ..EngineConfig::default() })?;
    let e18 = 1_000_000_000_000_000_000u128;
    let mut classes = vec![
        class("single hop (USDC → WETH)", vec![(USDC, 5_000_000_000)], vec![WETH]),
        class("multi-hop (WBTC → DAI)", vec![(WBTC, 10_000_000)], vec![DAI]),
        class("split (300 WETH → USDC)", vec![(WETH, 300 * e18)], vec![USDC]),
        class(
            "several inputs (USDC + DAI → WETH)",
            vec![(USDC, 1_000_000_000), (DAI, 1000 * e18)],
            vec![WETH],
        ),
        class("stableswap (DAI → USDT)", vec![(DAI, 10_000 * e18)], vec![USDT]),
        class("ERC-4626 deposit (DAI → sDAI)", vec![(DAI, 1000 * e18)], vec![SDAI]),
        class("ERC-4626 redeem (sDAI → DAI)", vec![(SDAI, 1000 * e18)], vec![DAI]),
        class("Aave supply (USDC → aUSDC)", vec![(USDC, 1_000_000_000)], vec![AUSDC]),
        class("Compound mint (USDC → cUSDC)", vec![(USDC, 1_000_000_000)], vec![CUSDC]),
        class("Compound III supply (USDC → cUSDCv3)", vec![(USDC, 1_000_000_000)], vec![CUSDCV3]),
        class("Lido stake (ETH → stETH)", vec![(NATIVE, 10 * e18)], vec![STETH]),
        class("wstETH (ETH → wstETH)", vec![(NATIVE, 10 * e18)], vec![WSTETH]),
        class("native in (ETH → USDC)", vec![(NATIVE, e18)], vec![USDC]),
        class("native out (USDC → ETH)", vec![(USDC, 1_000_000_000)], vec![NATIVE]),
    ];
    classes.push(Class {
        ignore: &["uniswap-v2", "uniswap-v3"],
        ..class("weighted pool (WBTC → WETH)", vec![(WBTC, 100_000_000)], vec![WETH])
    });
    for (name, strategy) in [
        ("delegate (USDC → WETH)", RoutingStrategy::Delegate),
        ("legacy router (USDC → WETH)", RoutingStrategy::RouterLegacy),
        ("ensowallet-v2 (USDC → WETH)", RoutingStrategy::EnsoWalletV2),
    ] {
        classes.push(Class { strategy, ..class(name, vec![(USDC, 5_000_000_000)], vec![WETH]) });
    }
    // The whole `handleOps` of the account's first operation (the account
    // deployed by it, then the call).
    classes.push(Class {
        strategy: RoutingStrategy::EnsoWalletV2,
        backend: true,
        ..class("ERC-4337 account, backend (USDC → WETH)", vec![(USDC, 5_000_000_000)], vec![WETH])
    });
    println!("| route class | strategy | gas |");
    println!("| --- | --- | ---: |");
    for c in classes {
        let (first, amount) = c.inputs[0];
        let mut quote = QuoteRequest::one(ChainId(1), first, U256::from(amount), c.outputs[0]);
        quote.inputs = c.inputs.iter().map(|(t, a)| (*t, U256::from(*a))).collect();
        quote.fee_bps = vec![0; quote.inputs.len()];
        quote.outputs = c.outputs.clone();
        quote.ignore_standards = c.ignore.iter().map(|s| (*s).to_owned()).collect();
        let mut req = RouteRequest::router(quote, USER, "gas-report");
        req.strategy = c.strategy;
        req.backend = c.backend;
        match engine.route(req).await {
            Ok(r) => println!("| {} | {} | {} |", c.name, c.strategy, r.gas),
            Err(e) => println!("| {} | {} | – ({e}) |", c.name, c.strategy),
        }
    }
    shutdown.stop();
    let _ = std::fs::remove_dir_all(&dir);
    Ok(())
}
