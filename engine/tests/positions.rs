//! Routes into non-tokenized positions and the IPOR-style static shortcut,
//! through the engine handle; every transaction returned is executed again
//! here in a fresh fork of the engine's world.

use std::path::PathBuf;

use alloy_primitives::{Address, U256, address};
use alloy_sol_types::SolEvent;
use switchyard_catalog::{ChainId, NATIVE_TOKEN, RoutingStrategy};
use switchyard_engine::{
    Engine, EngineConfig, EngineError, QuoteRequest, RouteRequest,
    evm::abi::ShortcutsExecutor,
    ipor::IporRequest,
    nontokenized::NontokenizedRequest,
    simulate::{SimSetup, simulate},
};

const USDC: Address = address!("a0b86991c6218b36c1d19d4a2e9eb0ce3606eb48");
const WETH: Address = address!("c02aaa39b223fe8d0a0e5c4f27ead9083c756cc2");
const DAI: Address = address!("6b175474e89094c44da98b954eedeac495271d0f");
const THREE_CRV: Address = address!("6c3f90f043a72fa612cbac8115ee7e52bde6e490");
const USER: Address = address!("d8da6bf26964af9d7eed9e03e53415d37aa96045");
const OWNER: Address = address!("00000000000000000000000000000000000b0b01");
const USDC_DEBT: Address = address!("72e95b8931767c79ba4eee721354d6e99a61d004");
const GAUGE_3POOL: Address = address!("bfcf63294ad7105dea65aa58f8ae5be2d9d0952a");
const COMET: Address = address!("c3d688b66703497daa19211eedff47f25384cdc3");
const VAULT: Address = address!("5eed000000000000000000000000000000001f01");
const ACCOUNT: &str = "0f8fad5b-d9cb-469f-a165-70867728950e";

fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("switchyard-pos-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

fn position(
    token_in: Address,
    amount: u128,
    underlying: Address,
    at: Address,
) -> NontokenizedRequest {
    let quote = QuoteRequest {
        inputs_transferred: false,
        outputs_transferred: false,
        ..QuoteRequest::one(ChainId(1), token_in, U256::from(amount), underlying)
    };
    NontokenizedRequest {
        route: RouteRequest {
            strategy: RoutingStrategy::Delegate,
            receiver: Some(OWNER),
            referral_code: Some("positions".into()),
            ..RouteRequest::router(quote, USER, ACCOUNT)
        },
        position: at,
    }
}

fn executor_of(world: &switchyard_engine::evm::world::ChainWorld) -> Address {
    world.shortcuts.router.expect("router").1
}

/// Positions on Base entered from Ethereum: the inputs taxied by Stargate
/// and, on arrival, routed to the underlying (if need be) and repaid on the
/// owner's behalf through Enso's composer. Each transaction is run again on
/// fresh forks, its taxi followed to Base with a debt larger than the
/// repayment, which falls by exactly the amount deposited.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn positions_on_another_chain_are_entered_on_arrival() {
    use switchyard_engine::bridge::deliver_layerzero_with;
    const BASE: ChainId = ChainId(8453);
    const USDC_BASE: Address = address!("833589fcd6edb6e08f4c7c32d4f71b54bda02913");
    const WETH_BASE: Address = address!("4200000000000000000000000000000000000006");
    const USDC_DEBT_BASE: Address = address!("59dca05b6c26dbd64b5381374aaac5cd05644c28");
    const WETH_DEBT_BASE: Address = address!("24e6e0795b3c7c71d965fcc4f371803d1c1dca1e");
    let dir = temp_dir("across");
    let (engine, shutdown) =
        Engine::start(EngineConfig { data_dir: dir.clone(), ..EngineConfig::default() })
            .expect("engine starts");
    let state = engine.state();
    let worlds = state.world.as_ref().expect("world");
    let world = worlds.chain(ChainId(1)).expect("chain 1").clone();
    let across = |token_in, amount: u128, underlying, at| {
        let mut req = position(token_in, amount, underlying, at);
        req.route.strategy = RoutingStrategy::Router;
        req.route.quote.destination_chain = Some(BASE);
        req
    };
    for (name, req) in [
        ("USDC → Base USDC debt", across(USDC, 2_000_000_000, USDC_BASE, USDC_DEBT_BASE)),
        ("WETH → Base USDC debt", across(WETH, 10u128.pow(18), USDC_BASE, USDC_DEBT_BASE)),
        ("USDC → Base WETH debt", across(USDC, 3_000_000_000, WETH_BASE, WETH_DEBT_BASE)),
    ] {
        let r = engine.nontokenized(req.clone()).await.unwrap_or_else(|e| panic!("{name}: {e:?}"));
        let deposited = r.amount_deposited;
        assert!(!deposited.is_zero(), "{name}");
        assert!(
            r.route.quote.plan.bridging.iter().any(|b| b.bridge == "stargate"),
            "{name}: {:?}",
            r.route.quote.plan.bridging
        );
        let (token, amount) = req.route.quote.inputs[0];
        let setup = SimSetup {
            funds: vec![(USER, token, amount), (USER, NATIVE_TOKEN, r.route.tx.value)],
            approvals: r.route.approvals.clone(),
            ..SimSetup::default()
        };
        let out = simulate(&world, &r.route.tx, &setup).unwrap_or_else(|e| panic!("{name}: {e}"));
        let extra = U256::from(1_000_000u64);
        let delivered = deliver_layerzero_with(
            worlds,
            &state.catalog,
            ChainId(1),
            &out.logs,
            &[vec![(OWNER, req.position)]],
            &[(req.position, OWNER, deposited + extra)],
        )
        .unwrap_or_else(|e| panic!("{name}: {e}"));
        let [(before, after)] = delivered[0].balances.as_slice() else {
            panic!("{name}: {:?}", delivered[0].balances)
        };
        assert_eq!(*before - *after, deposited, "{name}: the debt falls by the deposit");
        assert_eq!(*after, extra, "{name}: the rest of the debt stays");
    }
    // CCTP's receivers run nothing on arrival: with Stargate ignored, no
    // bridge can enter the position there, and the crossing is refused.
    let mut cctp_only = across(USDC, 2_000_000_000, USDC_BASE, USDC_DEBT_BASE);
    cctp_only.route.quote.ignore_bridges = vec!["stargate".into()];
    match engine.nontokenized(cctp_only).await {
        Err(EngineError::Exec(switchyard_engine::ExecError::BridgeUnavailable { chain })) => {
            assert_eq!(chain, BASE);
        }
        other => panic!("entered without a composer: {other:?}"),
    }
    shutdown.stop();
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn positions_move_by_exactly_the_amount_deposited() {
    let dir = temp_dir("nontokenized");
    let (engine, shutdown) =
        Engine::start(EngineConfig { data_dir: dir.clone(), ..EngineConfig::default() })
            .expect("engine starts");
    let state = engine.state();
    let world = state.world.as_ref().expect("world").chain(ChainId(1)).expect("chain 1").clone();
    let delegate = world.shortcuts.delegate.expect("delegate code");

    let mut with_fee = position(USDC, 2_000_000_000, USDC, USDC_DEBT);
    with_fee.route.quote.fee_bps = vec![30];
    with_fee.route.fee_receiver = Some(address!("00000000000000000000000000000000000fee01"));
    let cases = [
        ("WETH → USDC debt", position(WETH, 10u128.pow(18), USDC, USDC_DEBT), true),
        ("USDC (fee) → USDC debt", with_fee, true),
        (
            "3Crv → 3pool gauge",
            position(THREE_CRV, 5 * 10u128.pow(21), THREE_CRV, GAUGE_3POOL),
            false,
        ),
        // Through the 3pool's `add_liquidity`, then staked.
        ("DAI → 3pool gauge", position(DAI, 10u128.pow(21), THREE_CRV, GAUGE_3POOL), false),
    ];
    let router = world.shortcuts.router.expect("router").0;
    let through_router = |mut req: NontokenizedRequest| {
        req.route.strategy = RoutingStrategy::Router;
        req
    };
    let cases = cases.into_iter().flat_map(|(name, req, debt)| {
        [(name, req.clone(), debt), (name, through_router(req), debt)]
    });
    for (name, req, debt) in cases {
        let by_router = req.route.strategy == RoutingStrategy::Router;
        let r = engine.nontokenized(req.clone()).await.unwrap_or_else(|e| panic!("{name}: {e:?}"));
        assert_eq!(r.route.tx.to, if by_router { router } else { USER }, "{name}");
        let deposited = r.amount_deposited;
        eprintln!("{name}: deposited {deposited}, gas {}", r.route.gas);
        if req.route.quote.inputs[0].0 == USDC && debt {
            // The fee comes off the input; the rest is repaid.
            assert_eq!(deposited, U256::from(2_000_000_000u64 - 6_000_000));
        }
        // Again, in a fresh fork: the owner's debt (a larger one, so the
        // repayment shows whole) falls, or their stake grows, by exactly it.
        let extra = U256::from(1_000_000u64);
        let setup = SimSetup {
            funds: req.route.quote.inputs.iter().map(|(t, a)| (USER, *t, *a)).collect(),
            approvals: r.route.approvals.clone(),
            delegations: if by_router { Vec::new() } else { vec![(USER, delegate)] },
            watch: vec![(OWNER, req.position)],
            debts: if debt { vec![(req.position, OWNER, deposited + extra)] } else { Vec::new() },
            positions: Vec::new(),
            accounts: Vec::new(),
            held_accounts: Vec::new(),
        };
        let out = simulate(&world, &r.route.tx, &setup).expect("executes again");
        let moved = if debt { out.before[0] - out.after[0] } else { out.after[0] - out.before[0] };
        assert_eq!(moved, deposited, "{name}");
        if debt {
            assert_eq!(out.after[0], extra, "{name}: the rest of the debt stays");
        }
        let account = if by_router { executor_of(&world) } else { USER };
        let executed = out.logs.iter().any(|l| {
            l.address == account
                && ShortcutsExecutor::ShortcutExecuted::decode_log_data(&l.data).is_ok_and(|e| {
                    e.requestId == r.route.request_id && &e.requestId[..9] == b"positions"
                })
        });
        assert!(executed, "{name}: ShortcutExecuted with the referral code");
    }

    // Through the router, a debt smaller than the repayment: Aave repays
    // the debt, and the executor sends what is left to the sender.
    let req = through_router(position(USDC, 2_000_000_000, USDC, USDC_DEBT));
    let r = engine.nontokenized(req.clone()).await.expect("router repayment");
    let debt = r.amount_deposited - U256::from(5_000_000u64);
    let setup = SimSetup {
        funds: vec![(USER, USDC, U256::from(2_000_000_000u64))],
        approvals: r.route.approvals.clone(),
        watch: vec![(OWNER, USDC_DEBT), (USER, USDC), (executor_of(&world), USDC)],
        debts: vec![(USDC_DEBT, OWNER, debt)],
        ..SimSetup::default()
    };
    let out = simulate(&world, &r.route.tx, &setup).expect("repays less");
    assert_eq!(out.after[0], U256::ZERO, "the whole debt is repaid");
    assert_eq!(out.after[1], U256::from(5_000_000u64), "the rest comes back to the sender");
    assert_eq!(out.after[2], U256::ZERO, "the shared executor keeps nothing");

    // Refusals: a wallet (it would own the position), a position without a
    // fixture, an input that cannot reach the LP token.
    let mut wallet = position(WETH, 10u128.pow(18), USDC, USDC_DEBT);
    wallet.route.strategy = RoutingStrategy::EnsoWalletV2;
    assert!(matches!(
        engine.nontokenized(wallet).await,
        Err(EngineError::Exec(switchyard_engine::ExecError::PositionNeedsDelegate))
    ));
    let comet = position(WETH, 10u128.pow(18), USDC, COMET);
    assert!(matches!(
        engine.nontokenized(comet).await,
        Err(EngineError::Exec(switchyard_engine::ExecError::PositionUnavailable { .. }))
    ));
    // A coin of no pool the catalog lists.
    let nowhere = address!("00000000000000000000000000000000000c0c01");
    let unroutable = position(nowhere, 10u128.pow(21), THREE_CRV, GAUGE_3POOL);
    assert!(matches!(
        engine.nontokenized(unroutable).await,
        Err(EngineError::Exec(switchyard_engine::ExecError::Route(_)))
    ));
    shutdown.stop();
    let _ = std::fs::remove_dir_all(&dir);
}

fn ipor(token_in: Address, amount: u128, pct: u32, is_router: bool) -> IporRequest {
    IporRequest {
        chain: ChainId(1),
        from: USER,
        is_router,
        token_in,
        amount_in: U256::from(amount),
        token_b: USDC,
        percentage_b_bps: pct,
        slippage_bps: 300,
        account_id: ACCOUNT.into(),
        referral_code: None,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ipor_shortcut_mints_the_previewed_shares() {
    let dir = temp_dir("ipor");
    let (engine, shutdown) =
        Engine::start(EngineConfig { data_dir: dir.clone(), ..EngineConfig::default() })
            .expect("engine starts");
    let state = engine.state();
    let world = state.world.as_ref().expect("world").chain(ChainId(1)).expect("chain 1").clone();
    for (name, req) in [
        ("ETH, router", ipor(NATIVE_TOKEN, 2 * 10u128.pow(18), 5_000, true)),
        ("WETH, router", ipor(WETH, 10u128.pow(18), 3_000, true)),
        ("ETH, own account", ipor(NATIVE_TOKEN, 10u128.pow(18), 5_000, false)),
    ] {
        let r = engine.ipor(req.clone()).await.unwrap_or_else(|e| panic!("{name}: {e:?}"));
        eprintln!(
            "{name}: shares {} USDC {} gas {} logs {}",
            r.shares,
            r.amount_b,
            r.gas,
            r.logs.len()
        );
        assert!(!r.shares.is_zero());
        assert!(
            r.tx.value == if req.token_in == NATIVE_TOKEN { req.amount_in } else { U256::ZERO }
        );
        let setup = SimSetup {
            funds: vec![(USER, req.token_in, req.amount_in)],
            approvals: r.approvals.clone(),
            delegations: if req.is_router {
                Vec::new()
            } else {
                vec![(USER, world.shortcuts.delegate.expect("delegate"))]
            },
            watch: vec![(USER, VAULT), (world.shortcuts.router.expect("router").1, USDC)],
            ..SimSetup::default()
        };
        let out = simulate(&world, &r.tx, &setup).expect("executes again");
        assert_eq!(out.gains[0], Some(r.shares), "{name}");
        assert_eq!(out.after[1], out.before[1], "{name}: the executor keeps nothing");
        assert!(r.approvals.iter().all(|a| Some(a.spender) != world.shortcuts.router.map(|r| r.1)));
    }
    // One side empty; no vault for the pair.
    assert!(matches!(
        engine.ipor(ipor(NATIVE_TOKEN, 10u128.pow(18), 10_000, true)).await,
        Err(EngineError::Exec(switchyard_engine::ExecError::Ipor(_)))
    ));
    let mut dai = ipor(NATIVE_TOKEN, 10u128.pow(18), 5_000, true);
    dai.token_b = DAI;
    assert!(matches!(
        engine.ipor(dai).await,
        Err(EngineError::Exec(switchyard_engine::ExecError::Ipor(_)))
    ));
    shutdown.stop();
    let _ = std::fs::remove_dir_all(&dir);
}
