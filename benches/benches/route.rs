//! Executable routes on the embedded market: what building and proving a
//! transaction adds to a quote.
//!
//! Per route, on one thread, the engine's own state (its EVM world built):
//!
//! - `route/quote/…`: the kernel search and pricing (`quote_now`), what
//!   `/shortcuts/quote` costs;
//! - `route/encode/…`: the weiroll program and the router transaction of
//!   that quote's plan;
//! - `route/guard/…`: the program guard over that program (every command's
//!   target listed and its function deployed), which every answer passes;
//! - `route/simulate/…`: executing that transaction in a fork of the world
//!   (funding, approvals, the call, balances read before and after);
//! - `route/total/…`: `route_now`, all of it as `/shortcuts/route` runs it
//!   (quote, encode, guard, simulate, the checks).
//!
//! Cross-chain routes (CCTP, Stargate) are measured over HTTP instead
//! (BENCHMARKS.md): their cost is the world's both sides.
//!
//! Run with `cargo bench -p switchyard-benches --bench route`.

use std::hint::black_box;

use alloy_primitives::{Address, U256, address};
use criterion::{Criterion, criterion_group, criterion_main};
use switchyard_catalog::{ChainId, NATIVE_TOKEN};
use switchyard_engine::{
    Engine, EngineConfig, QuoteRequest, RouteRequest,
    encode::{self, RouteSpec, Runner, TokenAmount, route::ProtocolBook, tx::TxSpec},
    quote::quote_now,
    route::route_now,
    simulate::{SimSetup, simulate},
};

const USDC: Address = address!("a0b86991c6218b36c1d19d4a2e9eb0ce3606eb48");
const WETH: Address = address!("c02aaa39b223fe8d0a0e5c4f27ead9083c756cc2");
const DAI: Address = address!("6b175474e89094c44da98b954eedeac495271d0f");
const SDAI: Address = address!("83f20f44975d03b1b09e64809b757c47f942beea");
const THREE_CRV: Address = address!("6c3f90f043a72fa612cbac8115ee7e52bde6e490");
const USDT: Address = address!("dac17f958d2ee523a2206206994597c13d831ec7");
/// Uniswap V2 USDC/WETH: the pair is its own liquidity token.
const UNI_V2: Address = address!("b4e16d0168e52d35cacd2c6185b44281ec28c9dc");
const WBTC: Address = address!("2260fac5e5542a773aa44fbcfedf7c193bc2c599");
/// Balancer's 50/50 WBTC/WETH pool, its own BPT.
const B_WBTC_WETH: Address = address!("a6f548df93de924d73be7d25dc02554c6bd66db5");
const USER: Address = address!("d8da6bf26964af9d7eed9e03e53415d37aa96045");

fn request(token_in: Address, amount: u128, token_out: Address, to: Option<u64>) -> RouteRequest {
    let quote = QuoteRequest {
        destination_chain: to.map(ChainId),
        ..QuoteRequest::one(ChainId(1), token_in, U256::from(amount), token_out)
    };
    RouteRequest {
        receiver: Some(USER),
        referral_code: Some("bench".into()),
        ..RouteRequest::router(quote, USER, "0f8fad5b-d9cb-469f-a165-70867728950e")
    }
}

fn routes(c: &mut Criterion) {
    let dir = std::env::temp_dir().join(format!("switchyard-bench-route-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let (engine, _shutdown) =
        Engine::start(EngineConfig { data_dir: dir.clone(), ..EngineConfig::default() })
            .expect("engine");
    let state = engine.state();
    let world = state.world.as_ref().expect("the EVM world (scripts/setup.sh)");
    let w1 = world.chain(ChainId(1)).expect("chain 1");
    let (router, executor) = w1.shortcuts.router.expect("router");
    let cases = [
        ("single_hop_usdc_weth", request(USDC, 5_000_000_000, WETH, None)),
        ("split_300_weth_usdc", request(WETH, 300_000_000_000_000_000_000, USDC, None)),
        ("native_eth_dai", request(NATIVE_TOKEN, 1_000_000_000_000_000_000, DAI, None)),
        ("deposit_dai_sdai", request(DAI, 1_000_000_000_000_000_000_000, SDAI, None)),
        ("zap_usdc_3crv", request(USDC, 1_000_000_000, THREE_CRV, None)),
        ("zap_3crv_usdt", request(THREE_CRV, 1_000_000_000_000_000_000_000, USDT, None)),
        ("zap_usdc_univ2", request(USDC, 1_000_000_000, UNI_V2, None)),
        ("zap_univ2_weth", request(UNI_V2, 100_000_000_000_000, WETH, None)),
        ("join_weth_bpt", request(WETH, 5_000_000_000_000_000_000, B_WBTC_WETH, None)),
        ("exit_bpt_wbtc", request(B_WBTC_WETH, 1_000_000_000_000_000_000, WBTC, None)),
    ];
    let mut group = c.benchmark_group("route");
    for (name, req) in &cases {
        let quote = quote_now(&state, &req.quote).expect("quote");
        group.bench_function(format!("quote/{name}"), |b| {
            b.iter(|| quote_now(black_box(&state), black_box(&req.quote)).expect("quote"))
        });
        group.bench_function(format!("total/{name}"), |b| {
            b.iter(|| route_now(black_box(&state), black_box(req)).expect("route"))
        });
        let inputs: Vec<TokenAmount> = req
            .quote
            .inputs
            .iter()
            .map(|(token, amount)| TokenAmount { token: *token, amount: *amount })
            .collect();
        let mins = switchyard_engine::route::min_amounts(&quote.plan.amounts_out, &[], 50, true)
            .expect("minimums");
        let outputs: Vec<TokenAmount> = req
            .quote
            .outputs
            .iter()
            .zip(&mins)
            .map(|(token, amount)| TokenAmount { token: *token, amount: *amount })
            .collect();
        let spec = RouteSpec {
            snapshot: &state.snapshot,
            plan: &quote.plan,
            account: executor,
            pull_from: None,
            inputs: &inputs,
            fees: &quote.fee_amounts,
            fee_receiver: None,
            operator_fee: None,
            receiver: USER,
            outputs: &req.quote.outputs,
            check_min: None,
            shared: true,
            refund: None,
            catalog: &state.catalog,
            exact_out_max_in: None,
            spend_balance: false,
        };
        let runner = Runner::Router { router, executor };
        // Balancer pool ids as the routes find them.
        let book: &dyn ProtocolBook = &switchyard_engine::route::Book(&state);
        let program = encode::encode_plan(&spec, book).expect("encodes").program;
        group.bench_function(format!("guard/{name}"), |b| {
            b.iter(|| {
                encode::guard::check(black_box(w1), executor, black_box(&program)).expect("passes")
            })
        });
        let build = || {
            let encoded = encode::encode_plan(&spec, book).expect("encodes");
            encode::transaction(
                runner,
                &encoded.program,
                &TxSpec {
                    from: USER,
                    nfts: &[],
                    inputs: &inputs,
                    outputs: &outputs,
                    receiver: USER,
                    account_id: encode::account_id(&req.account_id),
                    request_id: encode::request_id(Some("bench"), [7; 16]),
                },
            )
        };
        group.bench_function(format!("encode/{name}"), |b| b.iter(|| black_box(build())));
        let tx = build();
        let setup = SimSetup {
            funds: inputs.iter().map(|t| (USER, t.token, t.amount)).collect(),
            approvals: encode::tx::approvals(runner, USER, &inputs),
            watch: req.quote.outputs.iter().map(|t| (USER, *t)).collect(),
            ..SimSetup::default()
        };
        let out = simulate(w1, &tx, &setup).expect("executes");
        assert_eq!(out.gains[0], Some(quote.plan.amounts_out[0]), "{name}");
        group.bench_function(format!("simulate/{name}"), |b| {
            b.iter(|| simulate(black_box(w1), black_box(&tx), black_box(&setup)).expect("runs"))
        });
    }
    group.finish();
    // The quote streams' workload: after the embedded feed's first blocks
    // the market is dislocated (USDC→WETH goes through USDT, and a split
    // over the StableSwap pools is weighed for a $1,000 trade).
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    runtime.block_on(engine.step_blocks(30)).expect("blocks");
    let moved = engine.latest();
    let small = request(USDC, 1_000_000_000, WETH, None).quote;
    c.bench_function("route/quote_after_30_blocks/usdc_weth_1000", |b| {
        b.iter(|| quote_now(black_box(&moved), black_box(&small)).expect("quote"))
    });
    let _ = std::fs::remove_dir_all(&dir);
}

criterion_group!(benches, routes);
criterion_main!(benches);
