//! Routes through the engine handle: every transaction returned is executed
//! again here, in a fresh fork of the engine's world, and must deliver the
//! quoted amount to the receiver.

use std::path::PathBuf;

use alloy_primitives::{Address, U256, address};
use switchyard_catalog::{ChainId, NATIVE_TOKEN, RoutingStrategy};
use switchyard_engine::{
    Engine, EngineConfig, QuoteRequest, RouteRequest, RouteTx,
    evm::world::ChainWorld,
    simulate::{SimSetup, simulate},
};

const USDC: Address = address!("a0b86991c6218b36c1d19d4a2e9eb0ce3606eb48");
const WETH: Address = address!("c02aaa39b223fe8d0a0e5c4f27ead9083c756cc2");
const USER: Address = address!("d8da6bf26964af9d7eed9e03e53415d37aa96045");
const DAI: Address = address!("6b175474e89094c44da98b954eedeac495271d0f");
const USDT: Address = address!("dac17f958d2ee523a2206206994597c13d831ec7");
const WBTC: Address = address!("2260fac5e5542a773aa44fbcfedf7c193bc2c599");
const SDAI: Address = address!("83f20f44975d03b1b09e64809b757c47f942beea");
const AUSDC: Address = address!("98c23e9d8f34fefb1b7bd6a91b7ff122f4e16f5c");
const CUSDC: Address = address!("39aa39c021dfbae8fac545936693ac917d5e7563");
/// Compound III USDC (Comet): the market is its own token.
const CUSDCV3: Address = address!("c3d688b66703497daa19211eedff47f25384cdc3");
const STETH: Address = address!("ae7ab96520de3a18e5e111b5eaab095312d7fe84");
const WSTETH: Address = address!("7f39c581f595b53c5cb19bd0b3f8da6c935e2ca0");
const THREE_CRV: Address = address!("6c3f90f043a72fa612cbac8115ee7e52bde6e490");
const STE_CRV: Address = address!("06325440d014e39736583c165c2963ba99faf14e");
/// Uniswap V2 USDC/WETH: the pair is its own liquidity token.
const UNI_V2_USDC_WETH: Address = address!("b4e16d0168e52d35cacd2c6185b44281ec28c9dc");
/// Balancer's 50/50 WBTC/WETH weighted pool: its own BPT.
const B_50WBTC_50WETH: Address = address!("a6f548df93de924d73be7d25dc02554c6bd66db5");

fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("switchyard-route-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

fn request(token_in: Address, amount: u128, token_out: Address) -> RouteRequest {
    let quote = QuoteRequest::one(ChainId(1), token_in, U256::from(amount), token_out);
    RouteRequest {
        referral_code: Some("switchyard".into()),
        ..RouteRequest::router(quote, USER, "0f8fad5b-d9cb-469f-a165-70867728950e")
    }
}

/// Executes `r` again in a fresh fork: the receiver gains exactly the quote.
fn replay(world: &ChainWorld, r: &RouteTx, req: &RouteRequest, receiver: Address) {
    let setup = SimSetup {
        funds: req.quote.inputs.iter().map(|(t, a)| (req.from, *t, *a)).collect(),
        approvals: r.approvals.clone(),
        delegations: Vec::new(),
        watch: req.quote.outputs.iter().map(|t| (receiver, *t)).collect(),
        ..SimSetup::default()
    };
    let out = simulate(world, &r.tx, &setup).expect("the returned transaction executes");
    for (k, token) in req.quote.outputs.iter().enumerate() {
        // What the receiver paid of the same token as an input counts back.
        let paid = req
            .quote
            .inputs
            .iter()
            .filter(|(t, _)| t == token && req.from == receiver)
            .fold(U256::ZERO, |a, (_, x)| a + x);
        let gained = out.after[k] + paid - out.before[k];
        assert_eq!(gained, r.quote.plan.amounts_out[k], "output {k}");
        assert!(r.quote.plan.amounts_out[k] >= r.min_amounts_out[k]);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn router_routes_execute_and_deliver_the_quote() {
    let dir = temp_dir("router");
    let (engine, shutdown) =
        Engine::start(EngineConfig { data_dir: dir.clone(), ..EngineConfig::default() })
            .expect("engine starts");
    let state = engine.state();
    let world = state.world.as_ref().expect("world built");
    let w1 = world.chain(ChainId(1)).expect("chain 1");
    let mut flows = 0;
    for (tin, amount, tout) in [
        (USDC, 5_000_000_000u128, WETH),
        (WETH, 2_000_000_000_000_000_000, USDC),
        (NATIVE_TOKEN, 1_000_000_000_000_000_000, USDC),
        (USDC, 1_000_000_000, NATIVE_TOKEN),
        (DAI, 10_000_000_000_000_000_000_000, USDT),
        (USDT, 50_000_000_000, DAI),
        (WBTC, 300_000_000, WETH),
        (WETH, 20_000_000_000_000_000_000, WBTC),
        (DAI, 1_000_000_000_000_000_000_000, SDAI),
        (SDAI, 1_000_000_000_000_000_000_000, USDC),
        (USDC, 1_000_000_000, AUSDC),
        (AUSDC, 1_000_000_000, USDC),
        (USDC, 1_000_000_000, CUSDC),
        (CUSDC, 40_000_000_000, USDC),
        // Compound III: supplied, then handed over by the executor (one more
        // rounding down, in the quote); pulled in, then withdrawn whole.
        (USDC, 1_000_000_000, CUSDCV3),
        (CUSDCV3, 1_000_000_000, USDC),
        (WETH, 2_000_000_000_000_000_000, CUSDCV3),
        (NATIVE_TOKEN, 10_000_000_000_000_000_000, STETH),
        (STETH, 10_000_000_000_000_000_000, NATIVE_TOKEN),
        (NATIVE_TOKEN, 10_000_000_000_000_000_000, WSTETH),
        (WSTETH, 10_000_000_000_000_000_000, NATIVE_TOKEN),
        (STETH, 10_000_000_000_000_000_000, WSTETH),
        (WSTETH, 1_000_000_000_000_000_000, STETH),
        // Curve LP zaps: one coin in through `add_liquidity`, one out
        // through `remove_liquidity_one_coin`, and on through other pools.
        (USDC, 1_000_000_000, THREE_CRV),
        (DAI, 25_000_000_000_000_000_000_000, THREE_CRV),
        (THREE_CRV, 1_000_000_000_000_000_000_000, USDT),
        (THREE_CRV, 500_000_000_000_000_000_000, WETH),
        (WETH, 2_000_000_000_000_000_000, THREE_CRV),
        (NATIVE_TOKEN, 5_000_000_000_000_000_000, STE_CRV),
        (STE_CRV, 3_000_000_000_000_000_000, NATIVE_TOKEN),
        (STETH, 3_000_000_000_000_000_000, STE_CRV),
        (STE_CRV, 2_000_000_000_000_000_000, USDC),
        // Uniswap V2 LP zaps through Router02: a coin in (part sold, then
        // `addLiquidity`), the token out (`removeLiquidity`, the other coin
        // sold), and on through other pools.
        (USDC, 10_000_000_000, UNI_V2_USDC_WETH),
        (WETH, 3_000_000_000_000_000_000, UNI_V2_USDC_WETH),
        (NATIVE_TOKEN, 1_000_000_000_000_000_000, UNI_V2_USDC_WETH),
        (DAI, 5_000_000_000_000_000_000_000, UNI_V2_USDC_WETH),
        (UNI_V2_USDC_WETH, 100_000_000_000_000, USDC),
        (UNI_V2_USDC_WETH, 1_000_000_000_000_000, WETH),
        (UNI_V2_USDC_WETH, 100_000_000_000_000, DAI),
        // Balancer joins and exits through the Vault: a coin in (one-coin
        // `EXACT_TOKENS_IN_FOR_BPT_OUT`), BPT out into one coin
        // (`EXACT_BPT_IN_FOR_ONE_TOKEN_OUT`), and on through other pools.
        (WBTC, 100_000_000, B_50WBTC_50WETH),
        (WETH, 5_000_000_000_000_000_000, B_50WBTC_50WETH),
        (USDC, 20_000_000_000, B_50WBTC_50WETH),
        (B_50WBTC_50WETH, 1_000_000_000_000_000_000, WBTC),
        (B_50WBTC_50WETH, 2_000_000_000_000_000_000, WETH),
        (B_50WBTC_50WETH, 1_000_000_000_000_000_000, USDC),
        // Beyond the market's depth: the optimal flow, split and merged at
        // intermediate tokens (each token's routes share what arrived).
        (WBTC, 500_000_000_000, USDC),
    ] {
        let req = request(tin, amount, tout);
        let r = engine.route(req.clone()).await.unwrap_or_else(|e| panic!("{tin} → {tout}: {e:?}"));
        eprintln!(
            "{tin} → {tout}: out {} gas {} steps {:?}",
            r.quote.plan.amounts_out[0],
            r.gas,
            r.quote.plan.legs[0]
                .routes
                .iter()
                .map(|r| r.steps.iter().map(|s| s.protocol.to_string()).collect::<Vec<_>>())
                .collect::<Vec<_>>()
        );
        replay(w1, &r, &req, USER);
        flows += usize::from(r.quote.plan.legs.iter().any(|l| l.splits_between()));
    }
    assert!(flows > 0, "a route split between its ends executes");
    shutdown.stop();
    let _ = std::fs::remove_dir_all(&dir);
}

/// A 2023 Balancer pool (the current pow rule) of three coins whose BPT
/// the market lists, added to the embedded data by a catalog file (the
/// BPT as a token) and a market file: one coin in and the BPT out into
/// another, on routes, execute on the published `WeightedPool` v3 and
/// deliver the quote; and a bundle joining with all three coins, then
/// exiting in proportion.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_three_coin_2023_balancer_pool_is_joined_and_exited() {
    let dir = temp_dir("balancer-v3");
    std::fs::create_dir_all(&dir).expect("dir");
    let bpt = address!("00000000000000000000000000000000000b9703");
    let catalog = dir.join("catalog.json");
    let token = serde_json::json!({"tokens": [{
        "chainId": 1, "address": format!("{bpt:#x}"), "type": "defi", "decimals": 18,
        "symbol": "B-33DAI-33USDC-33WETH", "name": "Balancer DAI/USDC/WETH", "logosUri": [],
        "project": "balancer", "protocolSlug": "balancer-v2",
        "primaryAddress": "0xba12222222228d8ba445958a75a0704d566bf2c8",
        "underlyingTokens": [format!("{DAI:#x}"), format!("{USDC:#x}"), format!("{WETH:#x}")],
        "apy": null, "apyBase": null, "apyReward": null, "tvl": null,
        "borrowApyBase": null, "borrowApyReward": null
    }]});
    std::fs::write(&catalog, token.to_string()).expect("catalog file");
    let mut market: serde_json::Value =
        serde_json::from_str(include_str!("../../catalog/data/market.json")).expect("market");
    let third = "333333333333333333";
    market["pools"].as_array_mut().expect("pools").push(serde_json::json!({
        "kind": "weighted", "chainId": 1, "protocol": "balancer-v2",
        "address": format!("{bpt:#x}"),
        // Ascending, as the pool requires.
        "tokens": [format!("{DAI:#x}"), format!("{USDC:#x}"), format!("{WETH:#x}")],
        "balances": ["3000000000000000000000000", "3000000000000", "1000000000000000000000"],
        "weights": ["333333333333333334", third, third],
        "swapFee": "3000000000000000",
        "bptSupply": "8657213990183477172611"
    }));
    let market_file = dir.join("market.json");
    std::fs::write(&market_file, market.to_string()).expect("market file");
    let (engine, shutdown) = Engine::start(EngineConfig {
        data_dir: dir.clone(),
        catalog_files: vec![catalog],
        market_file: Some(market_file),
        ..EngineConfig::default()
    })
    .expect("engine starts");
    let state = engine.state();
    let world = state.world.as_ref().expect("world built");
    let w1 = world.chain(ChainId(1)).expect("chain 1");
    for (tin, amount, tout) in [
        (USDC, 50_000_000_000u128, bpt),
        (DAI, 20_000_000_000_000_000_000_000, bpt),
        (bpt, 30_000_000_000_000_000_000, WETH),
        (bpt, 10_000_000_000_000_000_000, USDC),
    ] {
        let mut req = request(tin, amount, tout);
        req.quote.ignore_standards =
            ["uniswap-v2", "uniswap-v3", "curve"].map(String::from).to_vec();
        let r = engine.route(req.clone()).await.unwrap_or_else(|e| panic!("{tin} → {tout}: {e:?}"));
        let steps: Vec<_> = r.quote.plan.legs[0].routes.iter().flat_map(|r| &r.steps).collect();
        assert!(steps.iter().any(|s| s.address == bpt), "{tin} → {tout} joins or exits {bpt}");
        replay(w1, &r, &req, USER);
    }
    // Bundles: all three coins in one join; BPT out in proportion.
    use switchyard_engine::bundle::{Action, ActionKind, Amount, BundleRequest};
    let bundle = |kind| {
        let action = Action { protocol: "balancer-v2".into(), kind };
        let id = "0f8fad5b-d9cb-469f-a165-70867728950e";
        BundleRequest::new(ChainId(1), USER, RoutingStrategy::Router, id, vec![action])
    };
    let (dai, usdc, weth) = (
        U256::from(10_000_000_000_000_000_000_000u128),
        U256::from(5_000_000_000u64),
        U256::from(2_000_000_000_000_000_000u128),
    );
    let join = bundle(ActionKind::MultiDeposit {
        tokens_in: vec![WETH, DAI, USDC],
        amounts_in: vec![Amount::Value(weth), Amount::Value(dai), Amount::Value(usdc)],
        token_out: Some(bpt),
        primary: bpt,
        receiver: None,
    });
    let b = engine.bundle(join).await.expect("join");
    let setup = SimSetup {
        funds: vec![(USER, DAI, dai), (USER, USDC, usdc), (USER, WETH, weth)],
        approvals: b.approvals.clone(),
        watch: vec![(USER, bpt)],
        ..SimSetup::default()
    };
    let out = simulate(w1, &b.tx, &setup).expect("executes again");
    assert_eq!(out.gains[0], b.amounts_out.get(&bpt).copied(), "the BPT answered");
    let exit = bundle(ActionKind::MultiRedeem {
        token_in: Some(bpt),
        tokens_out: vec![USDC, WETH, DAI],
        amount_in: Amount::Value(U256::from(10u128.pow(18))),
        primary: bpt,
        receiver: None,
    });
    let b = engine.bundle(exit).await.expect("exit");
    let setup = SimSetup {
        funds: vec![(USER, bpt, U256::from(10u128.pow(18)))],
        approvals: b.approvals.clone(),
        watch: vec![(USER, USDC), (USER, WETH), (USER, DAI), (USER, bpt)],
        ..SimSetup::default()
    };
    let out = simulate(w1, &b.tx, &setup).expect("executes again");
    for (k, t) in [USDC, WETH, DAI].iter().enumerate() {
        let paid = b.amounts_out.get(t).copied();
        assert!(paid.is_some_and(|p| !p.is_zero()), "{t} paid");
        assert_eq!(out.gains[k], paid, "{t}");
    }
    assert_eq!(out.after[3], U256::ZERO, "every BPT burnt");
    shutdown.stop();
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pairwise_outputs_that_are_also_inputs() {
    let dir = temp_dir("pairwise");
    let (engine, shutdown) =
        Engine::start(EngineConfig { data_dir: dir.clone(), ..EngineConfig::default() })
            .expect("engine starts");
    let mut req = request(USDC, 1_000_000_000, WETH);
    req.quote.inputs.push((WETH, U256::from(1_000_000_000_000_000_000u128)));
    req.quote.outputs.push(USDC);
    let r = engine.route(req.clone()).await;
    let r = r.unwrap_or_else(|e| panic!("{e:?}"));
    let state = engine.state();
    let w1 = state.world.as_ref().expect("world").chain(ChainId(1)).expect("chain 1");
    replay(w1, &r, &req, USER);
    shutdown.stop();
    let _ = std::fs::remove_dir_all(&dir);
}

const USDC_BASE: Address = address!("833589fcd6edb6e08f4c7c32d4f71b54bda02913");
const USDC_ARB: Address = address!("af88d065e77c8cc2239327c5edb3a432268e5831");
const USDT_ARB: Address = address!("fd086bc7cd5c481dcc9c85ebe478a1c0b69fcbb9");
const WETH_ARB: Address = address!("82af49447d8a07e3bd95bd0d56f35241523fbab1");
const VAULT_BASE: Address = address!("c1256ae5ff1cf2719d4937adb3bbccab2e00a2ca");

/// Cross-chain routes through CCTP are built and proven on both chains:
/// the source program burns what it bought, the message is attested and
/// received on the destination, and the receiver there gains exactly the
/// quoted amount. Replayed here on a fresh fork of each chain. (A route
/// that needs more on the destination than the mint goes through Stargate
/// and Enso's composer instead: the next test.) A legacy-router route runs
/// on the deployed legacy executor.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cross_chain_routes_deliver_on_the_destination() {
    use switchyard_engine::evm::cctp;
    let dir = temp_dir("cross");
    let (engine, shutdown) =
        Engine::start(EngineConfig { data_dir: dir.clone(), ..EngineConfig::default() })
            .expect("engine starts");
    let state = engine.state();
    let world = state.world.as_ref().expect("world");
    let transmitter = cctp::setup(&state.catalog).expect("cctp").1.message_transmitter;
    let built: [(Address, u128, ChainId, Address, RoutingStrategy); 4] = [
        (USDC, 5_000_000_000, ChainId(8453), USDC_BASE, RoutingStrategy::Router),
        (USDC, 2_500_000_000, ChainId(42161), USDC_ARB, RoutingStrategy::Delegate),
        (WETH, 2_000_000_000_000_000_000, ChainId(42161), USDC_ARB, RoutingStrategy::Router),
        (DAI, 3_000_000_000_000_000_000_000, ChainId(8453), USDC_BASE, RoutingStrategy::Router),
    ];
    for (tin, amount, to, tout, strategy) in built {
        let mut req = request(tin, amount, tout);
        req.quote.destination_chain = Some(to);
        req.strategy = strategy;
        let r = engine.route(req.clone()).await.unwrap_or_else(|e| panic!("{tin} → {to}: {e:?}"));
        let quoted = r.quote.plan.amounts_out[0];
        assert_eq!(r.quote.plan.destination_chain, to);
        assert_eq!(r.quote.plan.bridging.len(), 1, "{tin} → {to}");
        assert_eq!(r.quote.plan.bridging[0].bridge, "cctp");
        assert!(r.min_amounts_out[0] <= quoted && !r.min_amounts_out[0].is_zero());
        // The source side again, on a fresh fork: USER holds the input.
        let w1 = world.chain(ChainId(1)).expect("chain 1");
        let mut setup = SimSetup {
            funds: vec![(USER, tin, U256::from(amount))],
            approvals: r.approvals.clone(),
            ..SimSetup::default()
        };
        if strategy == RoutingStrategy::Delegate {
            setup.delegations = vec![(USER, w1.shortcuts.delegate.expect("delegate"))];
        }
        let out = simulate(w1, &r.tx, &setup).expect("the source side runs");
        let messages = cctp::messages_sent(&out.logs, transmitter);
        let [message] = messages.as_slice() else { panic!("{} messages", messages.len()) };
        let burn = cctp::BurnMessage::decode(message).expect("burn message");
        assert_eq!((burn.mint_recipient, burn.amount, burn.burn_token), (USER, quoted, USDC));
        // The destination side: attested and relayed by anyone.
        let attested = burn.attested(alloy_primitives::B256::repeat_byte(1));
        let tx = switchyard_engine::encode::Tx {
            from: address!("00000000000000000000000000000000000b0b00"),
            to: transmitter,
            data: cctp::receive_calldata(&attested).expect("signs"),
            value: U256::ZERO,
        };
        let setup = SimSetup { watch: vec![(USER, tout)], ..SimSetup::default() };
        let got = simulate(world.chain(to).expect("destination"), &tx, &setup).expect("received");
        assert_eq!(got.gains, vec![Some(quoted)], "{tin} → {to}");
    }
    // More than the mint on the destination, or a token CCTP does not
    // carry: refused with the reason, no transaction.
    // USDC pulled from a spender into the sender's delegated account, and
    // burned whole: the minimum is held on what was pulled, once.
    let spender = address!("00000000000000000000000000000000005be4de");
    let mut req = request(USDC, 2_000_000_000, USDC_BASE);
    req.quote.destination_chain = Some(ChainId(8453));
    req.strategy = RoutingStrategy::Delegate;
    req.spender = Some(spender);
    let r = engine.route(req).await.unwrap_or_else(|e| panic!("from a spender: {e:?}"));
    assert_eq!(r.quote.plan.amounts_out, vec![U256::from(2_000_000_000u64)]);
    let w1 = world.chain(ChainId(1)).expect("chain 1");
    let setup = SimSetup {
        funds: vec![(spender, USDC, U256::from(2_000_000_000u64))],
        approvals: r.approvals.clone(),
        delegations: vec![(USER, w1.shortcuts.delegate.expect("delegate"))],
        watch: vec![(spender, USDC)],
        ..SimSetup::default()
    };
    let out = simulate(w1, &r.tx, &setup).expect("the source side runs");
    assert_eq!(out.after[0], U256::ZERO, "the spender's USDC is burned");

    // A legacy-router route runs on the deployed legacy executor.
    let mut req = request(USDC, 2_000_000_000, WETH);
    req.strategy = RoutingStrategy::RouterLegacy;
    engine.route(req).await.unwrap_or_else(|e| panic!("legacy: {e:?}"));
    shutdown.stop();
    let _ = std::fs::remove_dir_all(&dir);
}

/// Cross-chain routes through Stargate V2 (the published pools and
/// LayerZero endpoint, Enso's composer) are built and proven on both
/// chains: the source program sends a taxi with LayerZero's fee as the
/// transaction's value (through `routeMulti`, beside the token), and the
/// destination pool pays the receiver exactly the quote: FeeLibV1's fee
/// off, in the destination's decimals. Replayed here on fresh forks.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stargate_routes_deliver_on_the_destination() {
    use switchyard_engine::{bridge::deliver_layerzero, evm::layerzero};
    const USDT_BSC: Address = address!("55d398326f99059ff775485246999027b3197955");
    let dir = temp_dir("stargate");
    let (engine, shutdown) =
        Engine::start(EngineConfig { data_dir: dir.clone(), ..EngineConfig::default() })
            .expect("engine starts");
    let state = engine.state();
    let world = state.world.as_ref().expect("world");
    let fee = U256::from(
        layerzero::setup(&state.catalog)
            .and_then(|(_, lz)| lz.message_fee(ChainId(1)))
            .expect("a fee"),
    );
    let built: [(Address, u128, ChainId, Address, RoutingStrategy); 8] = [
        (USDT, 3_000_000_000, ChainId(42161), USDT_ARB, RoutingStrategy::Router),
        (WETH, 2_000_000_000_000_000_000, ChainId(42161), USDT_ARB, RoutingStrategy::Router),
        (USDT, 1_500_000_000, ChainId(42161), USDT_ARB, RoutingStrategy::Delegate),
        // More on arrival: composed through Enso's composer, run by the
        // destination router's executor.
        (USDT, 3_000_000_000, ChainId(42161), WETH_ARB, RoutingStrategy::Router),
        (USDC, 5_000_000_000, ChainId(42161), WETH_ARB, RoutingStrategy::Router),
        (WETH, 1_000_000_000_000_000_000, ChainId(8453), VAULT_BASE, RoutingStrategy::Delegate),
        // The native coin through the native pools: the value is the
        // amount and the fee; whole shared units cross (1 ETH less 601 of
        // them, each 1e12 wei).
        (
            NATIVE_TOKEN,
            1_000_000_000_000_000_000,
            ChainId(8453),
            NATIVE_TOKEN,
            RoutingStrategy::Router,
        ),
        // The native coin in, WETH out on Arbitrum: wrapped on arrival.
        (
            NATIVE_TOKEN,
            1_000_000_000_000_000_000,
            ChainId(42161),
            WETH_ARB,
            RoutingStrategy::Router,
        ),
    ];
    let mut ran = 0;
    for (tin, amount, to, tout, strategy) in built.into_iter().chain(
        // BNB Chain's USDT has 18 decimals: paid in them.
        world
            .chain(ChainId(56))
            .map(|_| (USDT, 2_000_000_000, ChainId(56), USDT_BSC, RoutingStrategy::Router)),
    ) {
        let mut req = request(tin, amount, tout);
        req.quote.destination_chain = Some(to);
        req.strategy = strategy;
        let r = engine.route(req.clone()).await.unwrap_or_else(|e| panic!("{tin} → {to}: {e:?}"));
        let quoted = r.quote.plan.amounts_out[0];
        assert_eq!(r.quote.plan.bridging.len(), 1, "{tin} → {to}");
        assert_eq!(r.quote.plan.bridging[0].bridge, "stargate");
        if (tin, tout) == (NATIVE_TOKEN, NATIVE_TOKEN) {
            assert_eq!(quoted, U256::from(999_399_000_000_000_000u128), "by the native pools");
        }
        let native_in = if tin == NATIVE_TOKEN { U256::from(amount) } else { U256::ZERO };
        assert_eq!(r.tx.value, native_in + fee, "LayerZero's fee rides with the transaction");
        assert_eq!(r.max_amounts_in, vec![U256::from(amount)], "the fee is no input");
        let w1 = world.chain(ChainId(1)).expect("chain 1");
        let funds = if tin == NATIVE_TOKEN {
            vec![(USER, tin, U256::from(amount) + fee)]
        } else {
            vec![(USER, tin, U256::from(amount)), (USER, NATIVE_TOKEN, fee)]
        };
        let mut setup = SimSetup { funds, approvals: r.approvals.clone(), ..SimSetup::default() };
        if strategy == RoutingStrategy::Delegate {
            setup.delegations = vec![(USER, w1.shortcuts.delegate.expect("delegate"))];
        }
        let out = simulate(w1, &r.tx, &setup).expect("the source side runs");
        // Measured at the receiver in the output, whether the pool pays it
        // or a composed shortcut does.
        let watch = [vec![(USER, tout)]];
        let delivered = deliver_layerzero(world, &state.catalog, ChainId(1), &out.logs, &watch)
            .unwrap_or_else(|e| panic!("{tin} → {to}:{tout}: {e}"));
        let [d] = delivered.as_slice() else { panic!("{} taxis", delivered.len()) };
        assert_eq!((d.to_chain, d.token, d.receiver, d.amount), (to, tout, USER, quoted));
        ran += 1;
    }
    assert!(ran >= 8);
    shutdown.stop();
    let _ = std::fs::remove_dir_all(&dir);
}

fn address_of(key: &k256::ecdsa::SigningKey) -> Address {
    let point = key.verifying_key().to_encoded_point(false);
    Address::from_slice(&alloy_primitives::keccak256(&point.as_bytes()[1..])[12..])
}

/// `key`'s signature of the EIP-191 message of `hash`, `r‖s‖v`.
fn sign_message(key: &k256::ecdsa::SigningKey, hash: alloy_primitives::B256) -> Vec<u8> {
    let mut message = b"\x19Ethereum Signed Message:\n32".to_vec();
    message.extend_from_slice(hash.as_slice());
    let digest = alloy_primitives::keccak256(&message);
    let (sig, recid) = key.sign_prehash_recoverable(digest.as_slice()).expect("signs");
    let mut out = sig.to_bytes().to_vec();
    out.push(27 + recid.to_byte());
    out
}

/// `ensowallet-v2` with `executionMode=backend`: the route runs in the
/// sender's ERC-4337 account (Enso's `EnsoReceiver`, not deployed yet) as a
/// user operation. The answer carries the operation unsigned and
/// `handleOps` to the EntryPoint v0.7 (its published bytecode). Signed here
/// by the sender, it runs through the EntryPoint's real `handleOps` in a
/// fresh fork: the factory deploys the account, the account pulls the
/// input it was approved for, and keeps exactly the quoted output. Signed
/// by anyone else, the EntryPoint refuses it; a native input, which an
/// operation cannot carry, is refused before any transaction is built.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_backend_route_is_a_user_operation_the_entry_point_runs() {
    use alloy_sol_types::{SolCall, SolEvent};
    use switchyard_engine::evm::abi::{AccountFactory, EntryPoint};

    let dir = temp_dir("user-op");
    let (engine, shutdown) =
        Engine::start(EngineConfig { data_dir: dir.clone(), ..EngineConfig::default() })
            .expect("engine starts");
    let state = engine.state();
    let world = state.world.as_ref().expect("world built");
    let w1 = world.chain(ChainId(1)).expect("chain 1");
    let accounts = w1.shortcuts.accounts.clone().expect("ERC-4337 accounts on chain 1");
    let key = k256::ecdsa::SigningKey::from_slice(&[0x33; 32]).expect("key");
    let owner = address_of(&key);

    let mut req = request(USDC, 2_500_000_000, WETH);
    req.from = owner;
    req.strategy = RoutingStrategy::EnsoWalletV2;
    req.backend = true;
    let r = engine.route(req.clone()).await.unwrap_or_else(|e| panic!("{e:?}"));
    let op = r.user_op.clone().expect("a user operation");
    let mut fork = w1.fork();
    let account = fork
        .view(accounts.factory, &AccountFactory::getAddressCall { account: owner })
        .expect("getAddress");
    assert_eq!(op.sender, account);
    assert_eq!(op.factory, Some(accounts.factory));
    assert_eq!(op.factory_data, AccountFactory::deployCall { account: owner }.abi_encode());
    assert_eq!((op.max_fee_per_gas, op.max_priority_fee_per_gas), (0, 0));
    assert!(op.signature.is_empty());
    assert!(op.call_gas_limit > 0 && op.verification_gas_limit > 0);
    assert_eq!(r.tx.to, accounts.entry_point);
    let handle = EntryPoint::handleOpsCall::abi_decode(&r.tx.data).expect("handleOps");
    assert_eq!(handle.ops, vec![op.packed()]);
    assert_eq!(r.approvals.len(), 1);
    assert_eq!((r.approvals[0].token, r.approvals[0].spender), (USDC, account));

    // Signed by the owner, through the real EntryPoint.
    let hash = fork
        .view(accounts.entry_point, &EntryPoint::getUserOpHashCall { userOp: op.packed() })
        .expect("getUserOpHash");
    assert_eq!(op.hash, hash, "the answered hash is the EntryPoint's");
    let mut signed = op.clone();
    signed.signature = sign_message(&key, hash).into();
    let bundler = address!("00000000000000000000000000000000000b0b1e");
    let setup = SimSetup {
        funds: vec![(owner, USDC, U256::from(2_500_000_000u64))],
        approvals: r.approvals.clone(),
        watch: vec![(account, WETH), (owner, USDC)],
        ..SimSetup::default()
    };
    let tx = signed.handle_ops(accounts.entry_point, bundler, bundler);
    let out = simulate(w1, &tx, &setup).expect("handleOps runs the signed operation");
    assert_eq!(out.gains[0], Some(r.quote.plan.amounts_out[0]), "the account keeps the quote");
    assert_eq!(out.after[1], U256::ZERO, "the input was pulled");
    let event = out
        .logs
        .iter()
        .find_map(|l| EntryPoint::UserOperationEvent::decode_log_data(&l.data).ok())
        .expect("UserOperationEvent");
    assert!(event.success);
    assert_eq!(event.sender, account);

    // Signed by someone else: AA24.
    let other = k256::ecdsa::SigningKey::from_slice(&[0x44; 32]).expect("key");
    let mut forged = op.clone();
    forged.signature = sign_message(&other, hash).into();
    let tx = forged.handle_ops(accounts.entry_point, bundler, bundler);
    let e = simulate(w1, &tx, &setup).expect_err("the EntryPoint refuses another signer");
    assert!(e.to_string().contains("AA24"), "{e}");

    // A native input cannot ride in an operation: the account spends its
    // own (spender = the account), or the request is refused.
    let mut native = req.clone();
    let one_eth = U256::from(1_000_000_000_000_000_000u128);
    native.quote.inputs = vec![(NATIVE_TOKEN, one_eth)];
    native.quote.outputs = vec![USDC];
    native.spender = Some(account);
    let own = engine.route(native.clone()).await.unwrap_or_else(|e| panic!("{e:?}"));
    assert!(own.approvals.is_empty(), "the account spends its own coin");
    let op = own.user_op.clone().expect("a user operation");
    let hash = fork
        .view(accounts.entry_point, &EntryPoint::getUserOpHashCall { userOp: op.packed() })
        .expect("getUserOpHash");
    let mut signed = op;
    signed.signature = sign_message(&key, hash).into();
    let setup = SimSetup {
        funds: vec![(account, NATIVE_TOKEN, one_eth)],
        watch: vec![(account, USDC)],
        ..SimSetup::default()
    };
    let tx = signed.handle_ops(accounts.entry_point, bundler, bundler);
    let out = simulate(w1, &tx, &setup).expect("the account swaps its own ETH");
    assert_eq!(out.gains[0], Some(own.quote.plan.amounts_out[0]));
    native.spender = None;
    let e = engine.route(native).await.expect_err("native input refused");
    assert!(
        matches!(
            e,
            switchyard_engine::EngineError::Exec(switchyard_engine::ExecError::AccountNative)
        ),
        "{e:?}"
    );

    shutdown.stop();
    let _ = std::fs::remove_dir_all(&dir);
}

/// With the operator's backend signer configured, a backend route runs in
/// the sender's account deployed for that signer (`delegateDeploy`): the
/// operator signs the operation, the sender's own signature is refused.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_backend_signer_signs_for_the_accounts_deployed_for_it() {
    use alloy_sol_types::SolCall;
    use switchyard_engine::evm::abi::{AccountFactory, EntryPoint};

    let operator = k256::ecdsa::SigningKey::from_slice(&[0x66; 32]).expect("key");
    let sender = k256::ecdsa::SigningKey::from_slice(&[0x77; 32]).expect("key");
    let (signer, owner) = (address_of(&operator), address_of(&sender));
    let dir = temp_dir("backend-signer");
    let (engine, shutdown) = Engine::start(EngineConfig {
        data_dir: dir.clone(),
        backend_signer: Some(signer),
        ..EngineConfig::default()
    })
    .expect("engine starts");
    let state = engine.state();
    let w1 = state.world.as_ref().expect("world").chain(ChainId(1)).expect("chain 1");
    let accounts = w1.shortcuts.accounts.clone().expect("accounts");
    let mut req = request(USDC, 1_000_000_000, DAI);
    req.from = owner;
    req.strategy = RoutingStrategy::EnsoWalletV2;
    req.backend = true;
    let r = engine.route(req).await.unwrap_or_else(|e| panic!("{e:?}"));
    let op = r.user_op.clone().expect("a user operation");
    let mut fork = w1.fork();
    let account = fork
        .view(accounts.factory, &AccountFactory::getDelegateAddressCall { account: owner, signer })
        .expect("getDelegateAddress");
    assert_eq!(op.sender, account);
    assert_eq!(
        op.factory_data,
        AccountFactory::delegateDeployCall { account: owner, signer }.abi_encode()
    );
    let hash = fork
        .view(accounts.entry_point, &EntryPoint::getUserOpHashCall { userOp: op.packed() })
        .expect("getUserOpHash");
    let setup = SimSetup {
        funds: vec![(owner, USDC, U256::from(1_000_000_000u64))],
        approvals: r.approvals.clone(),
        watch: vec![(account, DAI)],
        ..SimSetup::default()
    };
    let bundler = address!("00000000000000000000000000000000000b0b1e");
    let mut by_owner = op.clone();
    by_owner.signature = sign_message(&sender, hash).into();
    let e = simulate(w1, &by_owner.handle_ops(accounts.entry_point, bundler, bundler), &setup)
        .expect_err("the sender does not sign for this account");
    assert!(e.to_string().contains("AA24"), "{e}");
    let mut by_operator = op;
    by_operator.signature = sign_message(&operator, hash).into();
    let out = simulate(w1, &by_operator.handle_ops(accounts.entry_point, bundler, bundler), &setup)
        .expect("the operator's signature runs it");
    assert_eq!(out.gains[0], Some(r.quote.plan.amounts_out[0]));
    shutdown.stop();
    let _ = std::fs::remove_dir_all(&dir);
}
