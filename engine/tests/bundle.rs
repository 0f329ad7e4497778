//! Bundles through the engine handle: compiled, executed before they are
//! returned, and executed again here in a fresh fork.

use std::path::PathBuf;

use alloy_primitives::{Address, U256, address};
use switchyard_catalog::{ChainId, NATIVE_TOKEN, RoutingStrategy};
use switchyard_engine::{
    Engine, EngineConfig,
    bundle::{Action, ActionKind, Amount, BundleRequest, RouteArgs},
    simulate::{SimSetup, simulate},
};

const USDC: Address = address!("a0b86991c6218b36c1d19d4a2e9eb0ce3606eb48");
const WETH: Address = address!("c02aaa39b223fe8d0a0e5c4f27ead9083c756cc2");
const DAI: Address = address!("6b175474e89094c44da98b954eedeac495271d0f");
const SDAI: Address = address!("83f20f44975d03b1b09e64809b757c47f942beea");
const USER: Address = address!("d8da6bf26964af9d7eed9e03e53415d37aa96045");
const V2_ROUTER: Address = address!("7a250d5630b4cf539739df2c5dacb4c659f2488d");

fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("switchyard-bundle-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

fn request(strategy: RoutingStrategy, actions: Vec<Action>) -> BundleRequest {
    BundleRequest {
        chain: ChainId(1),
        from: USER,
        strategy,
        receiver: None,
        spender: None,
        refund_receiver: None,
        ignore_aggregators: Vec::new(),
        skip_quote: false,
        referral_code: Some("bundle".into()),
        account_id: "0f8fad5b-d9cb-469f-a165-70867728950e".into(),
        actions,
    }
}

fn enso(kind: ActionKind) -> Action {
    Action { protocol: "enso".into(), kind }
}

fn route(token_in: Address, token_out: Address, amount_in: Amount) -> Action {
    enso(ActionKind::Route(RouteArgs {
        token_in,
        token_out,
        amount_in,
        slippage_bps: Some(100),
        min_amount_out: None,
        receiver: None,
        fee: None,
        ignore_aggregators: Vec::new(),
        ignore_standards: Vec::new(),
    }))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bundles_execute_for_every_strategy() {
    let dir = temp_dir("strategies");
    let (engine, shutdown) =
        Engine::start(EngineConfig { data_dir: dir.clone(), ..EngineConfig::default() })
            .expect("engine starts");
    let state = engine.state();
    let world = state.world.as_ref().expect("world").chain(ChainId(1)).expect("chain 1").clone();
    let actions = vec![
        Action {
            protocol: "uniswap-v2".into(),
            kind: ActionKind::Swap {
                token_in: WETH,
                token_out: USDC,
                amount_in: Amount::Value(U256::from(10u128.pow(18))),
                primary: V2_ROUTER,
                receiver: None,
                slippage_bps: Some(100),
            },
        },
        route(USDC, DAI, Amount::Output { action: 0, index: 0 }),
        Action {
            protocol: "erc4626".into(),
            kind: ActionKind::Deposit {
                token_in: DAI,
                token_out: Some(SDAI),
                amount_in: Amount::Output { action: 1, index: 0 },
                primary: SDAI,
                receiver: None,
            },
        },
        enso(ActionKind::Slippage { bps: 50, amount_out: Amount::Output { action: 2, index: 0 } }),
    ];
    for strategy in [
        RoutingStrategy::Router,
        RoutingStrategy::Delegate,
        RoutingStrategy::RouterLegacy,
        RoutingStrategy::EnsoWalletV2,
    ] {
        let req = request(strategy, actions.clone());
        let b = engine.bundle(req.clone()).await.unwrap_or_else(|e| panic!("{strategy}: {e:?}"));
        eprintln!("{strategy}: gas {} out {:?} mins {:?}", b.gas, b.amounts_out, b.min_amounts_out);
        assert!(
            b.amounts_out.get(&SDAI).is_some_and(|a| !a.is_zero()),
            "{strategy}: {:?}",
            b.amounts_out
        );
        // Executed again in a fresh fork: the same gain of sDAI.
        let beneficiary = match strategy {
            RoutingStrategy::EnsoWalletV2 => {
                let (f, i) = world.shortcuts.wallet_factory.expect("factory");
                switchyard_engine::evm::world::wallet_address(f, i, USER)
            }
            _ => USER,
        };
        let setup = SimSetup {
            funds: vec![(USER, WETH, U256::from(10u128.pow(18)))],
            approvals: b.approvals.clone(),
            delegations: match strategy {
                RoutingStrategy::Delegate => {
                    vec![(USER, world.shortcuts.delegate.expect("delegate"))]
                }
                _ => Vec::new(),
            },
            watch: vec![(beneficiary, SDAI)],
        };
        let out = simulate(&world, &b.tx, &setup).expect("executes again");
        assert_eq!(out.gains[0], b.amounts_out.get(&SDAI).copied(), "{strategy}");
    }
    let _ = NATIVE_TOKEN;
    shutdown.stop();
    let _ = std::fs::remove_dir_all(&dir);
}
