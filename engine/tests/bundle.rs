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
        referral_code: Some("bundle".into()),
        ..BundleRequest::new(
            ChainId(1),
            USER,
            strategy,
            "0f8fad5b-d9cb-469f-a165-70867728950e",
            actions,
        )
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
            ..SimSetup::default()
        };
        let out = simulate(&world, &b.tx, &setup).expect("executes again");
        assert_eq!(out.gains[0], b.amounts_out.get(&SDAI).copied(), "{strategy}");
    }
    let _ = NATIVE_TOKEN;
    shutdown.stop();
    let _ = std::fs::remove_dir_all(&dir);
}

const USDC_BASE: Address = address!("833589fcd6edb6e08f4c7c32d4f71b54bda02913");
const VAULT_BASE: Address = address!("c1256ae5ff1cf2719d4937adb3bbccab2e00a2ca");
const USDC_ARB: Address = address!("af88d065e77c8cc2239327c5edb3a432268e5831");
const CCTP: Address = address!("28b5a0e9c621a5badaa536219b3a228c8168cf5d");
const RELAY: Address = address!("a5f565650890fba1824ee0f21ebbbf660a179934");
const STARGATE_NATIVE: Address = address!("77b2043768d28e9c9ab44e1abfc95944bce57931");
const FEE_TO: Address = address!("00000000000000000000000000000000000fee01");

fn bridge(
    protocol: &str,
    token_in: Address,
    amount_in: Amount,
    primary: Address,
    to: u64,
    callback: Vec<Action>,
) -> Action {
    Action {
        protocol: protocol.into(),
        kind: ActionKind::Bridge {
            token_in,
            amount_in,
            primary,
            destination_chain: ChainId(to),
            receiver: USER,
            callback,
        },
    }
}

/// Executes a bundle with bridge actions again: the source transaction in
/// a fresh fork, then each `BridgeRequest` it emitted paid out on a fresh
/// fork of the destination (the bridge's fee schedule on the amount the
/// event names): straight to the receiver, or into the receiver contract
/// and delivered with the event's payload, which must run its program.
/// Returns what `USER` gained there of each of `watch`.
fn replay_bridged(
    state: &switchyard_engine::MarketState,
    b: &switchyard_engine::bundle::BundleTx,
    funds: Vec<(Address, Address, U256)>,
    delegations: Vec<(Address, Address)>,
    to: ChainId,
    watch: &[Address],
) -> Vec<U256> {
    use alloy_sol_types::{SolCall, SolEvent};
    use switchyard_engine::evm::{
        abi::{ReferenceBridge, ShortcutsReceiver},
        world::{ChainWorld, RELAYER},
    };
    let world = state.world.as_ref().expect("world");
    let src = world.chain(ChainId(1)).expect("chain 1");
    let dst = world.chain(to).expect("destination");
    let setup =
        SimSetup { funds, approvals: b.approvals.clone(), delegations, ..SimSetup::default() };
    let out = simulate(src, &b.tx, &setup).expect("the source transaction executes");
    let mut evm = dst.fork();
    let before: Vec<U256> = watch
        .iter()
        .map(|t| ChainWorld::balance_of(&mut evm, *t, USER).expect("balance"))
        .collect();
    let receiver_contract = dst.shortcuts.receiver.expect("receiver contract");
    let bridged = out.logs.iter().filter_map(|l| {
        ReferenceBridge::BridgeRequest::decode_log_data(&l.data).ok().map(|e| (l.address, e))
    });
    for (emitter, ev) in bridged {
        // The route of the contract that emitted it (a Stargate pool for
        // Stargate, whose token it names).
        let pools = state.catalog.layerzero_pools();
        let route = state
            .snapshot
            .bridges()
            .iter()
            .find(|r| {
                r.from_chain == ChainId(1)
                    && r.to_chain == to
                    && if &*r.name == "stargate" {
                        pools.iter().any(|p| p.pool == emitter && p.token == r.token_in)
                    } else {
                        r.contract == emitter && r.token_in == ev.token
                    }
            })
            .expect("a bridge route");
        let amount = route.amount_out(ev.amount).expect("amount");
        if ev.recipient == receiver_contract {
            dst.fund(&mut evm, route.token_out, receiver_contract, amount).expect("payout");
            let call = ShortcutsReceiver::deliverCall {
                token: route.token_out,
                amount,
                payload: ev.payload.clone(),
            };
            let done = evm
                .call(RELAYER, receiver_contract, call.abi_encode().into(), U256::ZERO)
                .expect("delivery");
            assert!(
                done.logs
                    .iter()
                    .any(|l| ShortcutsReceiver::DeliveryExecuted::decode_log_data(&l.data).is_ok()),
                "the callback ran"
            );
        } else {
            dst.fund(&mut evm, route.token_out, ev.recipient, amount).expect("payout");
        }
    }
    watch
        .iter()
        .zip(before)
        .map(|(t, b0)| ChainWorld::balance_of(&mut evm, *t, USER).expect("balance") - b0)
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bridge_actions_run_their_callbacks_on_the_destination() {
    let dir = temp_dir("bridge");
    let (engine, shutdown) =
        Engine::start(EngineConfig { data_dir: dir.clone(), ..EngineConfig::default() })
            .expect("engine starts");
    let state = engine.state();
    let one_weth = U256::from(10u128.pow(18));

    // WETH → USDC, CCTP to Base, deposit into the Base vault there.
    let callback = vec![
        enso(ActionKind::Balance { token: USDC_BASE, account: None, estimate: None }),
        Action {
            protocol: "morpho-vaults".into(),
            kind: ActionKind::Deposit {
                token_in: USDC_BASE,
                token_out: Some(VAULT_BASE),
                amount_in: Amount::Output { action: 0, index: 0 },
                primary: VAULT_BASE,
                receiver: None,
            },
        },
        enso(ActionKind::Slippage { bps: 50, amount_out: Amount::Output { action: 1, index: 0 } }),
    ];
    let actions = vec![
        route(WETH, USDC, Amount::Value(one_weth)),
        bridge("cctp", USDC, Amount::Output { action: 0, index: 0 }, CCTP, 8453, callback),
    ];
    let b = engine
        .bundle(request(RoutingStrategy::Router, actions))
        .await
        .unwrap_or_else(|e| panic!("cctp: {e:?}"));
    eprintln!("cctp + vault: gas {} out {:?} mins {:?}", b.gas, b.amounts_out, b.min_amounts_out);
    let got = replay_bridged(
        &state,
        &b,
        vec![(USER, WETH, one_weth)],
        Vec::new(),
        ChainId(8453),
        &[VAULT_BASE],
    );
    assert_eq!(Some(&got[0]), b.amounts_out.get(&VAULT_BASE));
    assert!(got[0] >= b.min_amounts_out[&VAULT_BASE] && !got[0].is_zero());

    // The client's documented shape: USDC → ETH, a fee, Stargate's native
    // pool to Base, and there ETH → USDC with a slippage check.
    let callback = vec![
        enso(ActionKind::Balance { token: NATIVE_TOKEN, account: None, estimate: None }),
        route(NATIVE_TOKEN, USDC_BASE, Amount::Output { action: 0, index: 0 }),
        enso(ActionKind::Slippage { bps: 50, amount_out: Amount::Output { action: 1, index: 0 } }),
    ];
    let usdc_in = U256::from(5_000_000_000u64);
    let actions = vec![
        route(USDC, NATIVE_TOKEN, Amount::Value(usdc_in)),
        enso(ActionKind::Fee {
            token: NATIVE_TOKEN,
            amount: Amount::Output { action: 0, index: 0 },
            bps: 25,
            receiver: FEE_TO,
        }),
        bridge(
            "stargate",
            NATIVE_TOKEN,
            Amount::Output { action: 1, index: 0 },
            STARGATE_NATIVE,
            8453,
            callback,
        ),
    ];
    let b = engine
        .bundle(request(RoutingStrategy::Router, actions))
        .await
        .unwrap_or_else(|e| panic!("stargate: {e:?}"));
    eprintln!("stargate + swap: gas {} out {:?}", b.gas, b.amounts_out);
    let got = replay_bridged(
        &state,
        &b,
        vec![(USER, USDC, usdc_in)],
        Vec::new(),
        ChainId(8453),
        &[USDC_BASE],
    );
    assert_eq!(Some(&got[0]), b.amounts_out.get(&USDC_BASE));

    // No callback: Relay pays the receiver directly.
    let usdc = U256::from(1_000_000_000u64);
    let actions = vec![bridge("relay", USDC, Amount::Value(usdc), RELAY, 42161, Vec::new())];
    for strategy in [RoutingStrategy::Router, RoutingStrategy::Delegate] {
        let b = engine
            .bundle(request(strategy, actions.clone()))
            .await
            .unwrap_or_else(|e| panic!("relay: {e:?}"));
        let delegations = match strategy {
            RoutingStrategy::Delegate => {
                let w = state.world.as_ref().expect("world").chain(ChainId(1)).expect("chain 1");
                vec![(USER, w.shortcuts.delegate.expect("delegate"))]
            }
            _ => Vec::new(),
        };
        assert!(b.amounts_out.get(&USDC_ARB).is_some_and(|a| *a < usdc && !a.is_zero()));
        let funds = vec![(USER, USDC, usdc)];
        let got = replay_bridged(&state, &b, funds, delegations, ChainId(42161), &[USDC_ARB]);
        assert_eq!(Some(&got[0]), b.amounts_out.get(&USDC_ARB), "{strategy}");
    }

    // A bridge contract that does not carry the token is refused, naming
    // the field; a callback may not spend what the bridge did not bring.
    let bad = vec![bridge("cctp", WETH, Amount::Value(one_weth), CCTP, 8453, Vec::new())];
    let e = engine.bundle(request(RoutingStrategy::Router, bad)).await.expect_err("refused");
    assert!(format!("{e:?}").contains("body[0].args.primaryAddress"), "{e:?}");
    let greedy = vec![bridge(
        "cctp",
        USDC,
        Amount::Value(usdc),
        CCTP,
        8453,
        vec![route(VAULT_BASE, USDC_BASE, Amount::Value(U256::from(1000u32)))],
    )];
    let e = engine.bundle(request(RoutingStrategy::Router, greedy)).await.expect_err("refused");
    assert!(format!("{e:?}").contains("body[0].args.callback"), "{e:?}");
    shutdown.stop();
    let _ = std::fs::remove_dir_all(&dir);
}

const AAVE_POOL: Address = address!("87870bca3f3fd6335c3f4ce8392d69350b4fa4e2");
const AUSDC: Address = address!("98c23e9d8f34fefb1b7bd6a91b7ff122f4e16f5c");
const WETH_DEBT: Address = address!("ea51d7853eefb32b6ee06b1c12e6dcca88be0ffe");
const CUSDC: Address = address!("39aa39c021dfbae8fac545936693ac917d5e7563");
const CDAI: Address = address!("5d3a536e4d6dbd6114cc1ead35777bab948e3643");

/// Borrowing against collateral supplied in the same bundle, from the
/// caller's own account: Aave (prices and loan to value from the world) and
/// Compound (the collateral market entered on its comptroller first).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bundles_borrow_against_what_they_supply() {
    let dir = temp_dir("borrow");
    let (engine, shutdown) =
        Engine::start(EngineConfig { data_dir: dir.clone(), ..EngineConfig::default() })
            .expect("engine starts");
    let state = engine.state();
    let world = state.world.as_ref().expect("world").chain(ChainId(1)).expect("chain 1").clone();
    let usdc = U256::from(10_000_000_000u64);
    let half_eth = U256::from(5u128 * 10u128.pow(17));
    let supply = |protocol: &str, primary: Address, token_out: Address| Action {
        protocol: protocol.into(),
        kind: ActionKind::Deposit {
            token_in: USDC,
            token_out: Some(token_out),
            amount_in: Amount::Value(usdc),
            primary,
            receiver: None,
        },
    };
    let borrow =
        |protocol: &str, primary: Address, token_out: Address, amount: U256, collateral| Action {
            protocol: protocol.into(),
            kind: ActionKind::Borrow {
                token_out,
                amount_out: Amount::Value(amount),
                primary,
                receiver: None,
                collateral,
            },
        };
    let dai = U256::from(5_000u64) * U256::from(10u64).pow(U256::from(18u8));
    for (name, actions, token, amount) in [
        (
            "aave",
            vec![
                supply("aave-v3", AAVE_POOL, AUSDC),
                borrow("aave-v3", AAVE_POOL, WETH, half_eth, Vec::new()),
            ],
            WETH,
            half_eth,
        ),
        (
            "compound",
            vec![
                supply("compound-v2", CUSDC, CUSDC),
                borrow("compound-v2", CDAI, DAI, dai, vec![CUSDC]),
            ],
            DAI,
            dai,
        ),
    ] {
        let b = engine
            .bundle(request(RoutingStrategy::Delegate, actions))
            .await
            .unwrap_or_else(|e| panic!("{name}: {e:?}"));
        let setup = SimSetup {
            funds: vec![(USER, USDC, usdc)],
            approvals: b.approvals.clone(),
            delegations: vec![(USER, world.shortcuts.delegate.expect("delegate"))],
            watch: vec![(USER, token)],
            ..SimSetup::default()
        };
        let mut evm = world.fork();
        switchyard_engine::simulate::prepare(&world, &mut evm, &setup).expect("setup");
        let out = switchyard_engine::simulate::run_prepared(&mut evm, &b.tx, &setup.watch)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(out.gains[0], Some(amount), "{name}: the borrowed amount arrives");
        // The debt is the account's.
        let debt = if name == "aave" {
            evm.view(
                WETH_DEBT,
                &switchyard_engine::evm::abi::ReferenceVariableDebtToken::balanceOfCall {
                    user: USER,
                },
            )
        } else {
            evm.view(
                CDAI,
                &switchyard_engine::evm::abi::ReferenceCToken::borrowBalanceStoredCall {
                    account: USER,
                },
            )
        }
        .expect("debt");
        assert_eq!(debt, amount, "{name}");
    }
    shutdown.stop();
    let _ = std::fs::remove_dir_all(&dir);
}
