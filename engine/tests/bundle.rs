//! Bundles through the engine handle: compiled, executed before they are
//! returned, and executed again here in a fresh fork.

use std::path::PathBuf;

use alloy_primitives::{Address, U256, address};
use switchyard_catalog::{ApiCode, ChainId, NATIVE_TOKEN, RoutingStrategy};
use switchyard_engine::{
    Engine, EngineConfig,
    bundle::{Action, ActionKind, Amount, BundleRequest, BundleTx, RouteArgs},
    evm::world::ChainWorld,
    simulate::{SimOutcome, SimSetup, simulate},
};

const USDC: Address = address!("a0b86991c6218b36c1d19d4a2e9eb0ce3606eb48");
const WETH: Address = address!("c02aaa39b223fe8d0a0e5c4f27ead9083c756cc2");
const DAI: Address = address!("6b175474e89094c44da98b954eedeac495271d0f");
const SDAI: Address = address!("83f20f44975d03b1b09e64809b757c47f942beea");
const USER: Address = address!("d8da6bf26964af9d7eed9e03e53415d37aa96045");
const V2_ROUTER: Address = address!("7a250d5630b4cf539739df2c5dacb4c659f2488d");
/// Uniswap V2 USDC/WETH, whose own token the embedded market lists.
const USDC_WETH_V2: Address = address!("b4e16d0168e52d35cacd2c6185b44281ec28c9dc");
const WBTC: Address = address!("2260fac5e5542a773aa44fbcfedf7c193bc2c599");

fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("switchyard-bundle-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

/// An engine on the embedded data, its state, chain 1's world and the
/// router's executor.
struct Chain1 {
    dir: PathBuf,
    engine: switchyard_engine::EngineHandle,
    shutdown: switchyard_engine::Shutdown,
    state: std::sync::Arc<switchyard_engine::MarketState>,
    world: std::sync::Arc<ChainWorld>,
    executor: Address,
}

fn chain1(name: &str) -> Chain1 {
    let dir = temp_dir(name);
    let (engine, shutdown) =
        Engine::start(EngineConfig { data_dir: dir.clone(), ..EngineConfig::default() })
            .expect("engine starts");
    let state = engine.state();
    let world = state.world.as_ref().expect("world").chain(ChainId(1)).expect("chain 1").clone();
    let (_, executor) = world.shortcuts.router.expect("router");
    Chain1 { dir, engine, shutdown, state, world, executor }
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
        destination_chain: None,
    }))
}

/// A swap of `weth` on Uniswap V2 into USDC, a route of that into DAI, an
/// ERC-4626 deposit of that into sDAI.
fn weth_to_sdai(weth: U256) -> Vec<Action> {
    vec![
        Action {
            protocol: "uniswap-v2".into(),
            kind: ActionKind::Swap {
                token_in: WETH,
                token_out: USDC,
                amount_in: Amount::Value(weth),
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
    ]
}

/// Executes `b` again in a fresh fork of `world`: `USER` holds `funds`
/// (and, for the delegate strategy, is delegated to the deployed
/// delegate), and `watch` is the account and token whose gain is read.
fn replay(
    world: &ChainWorld,
    strategy: RoutingStrategy,
    b: &BundleTx,
    (token, amount): (Address, U256),
    watch: (Address, Address),
) -> SimOutcome {
    let setup = SimSetup {
        funds: vec![(USER, token, amount)],
        approvals: b.approvals.clone(),
        delegations: match strategy {
            RoutingStrategy::Delegate => vec![(USER, world.shortcuts.delegate.expect("delegate"))],
            _ => Vec::new(),
        },
        watch: vec![watch],
        ..SimSetup::default()
    };
    simulate(world, &b.tx, &setup).expect("executes again")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bundles_execute_for_every_strategy() {
    let dir = temp_dir("strategies");
    let (engine, shutdown) =
        Engine::start(EngineConfig { data_dir: dir.clone(), ..EngineConfig::default() })
            .expect("engine starts");
    let state = engine.state();
    let world = state.world.as_ref().expect("world").chain(ChainId(1)).expect("chain 1").clone();
    let mut actions = weth_to_sdai(U256::from(10u128.pow(18)));
    actions.push(enso(ActionKind::Slippage {
        bps: 50,
        amount_out: Amount::Output { action: 2, index: 0 },
    }));
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
        // The minimums answered are the outputs' only: USDC and DAI are
        // checked on the way and spent.
        assert_eq!(b.min_amounts_out.keys().collect::<Vec<_>>(), vec![&SDAI], "{strategy}");
        // Executed again in a fresh fork: the same gain of sDAI.
        let beneficiary = match strategy {
            RoutingStrategy::EnsoWalletV2 => {
                let (f, i) = world.shortcuts.wallet_factory.expect("factory");
                switchyard_engine::evm::world::wallet_address(f, i, USER)
            }
            _ => USER,
        };
        let funds = (WETH, U256::from(10u128.pow(18)));
        let out = replay(&world, strategy, &b, funds, (beneficiary, SDAI));
        assert_eq!(out.gains[0], b.amounts_out.get(&SDAI).copied(), "{strategy}");
    }
    let _ = NATIVE_TOKEN;
    shutdown.stop();
    let _ = std::fs::remove_dir_all(&dir);
}

/// A route action beyond the market's depth: its plan is the optimal flow,
/// split and merged at intermediate tokens, and each token's routes share
/// at run time what the earlier ones delivered there (the action's input
/// is a slot, not a constant). The bundle executes again in a fresh fork
/// with the same gains, and the next action spends exactly that output.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_route_split_between_its_ends_runs_in_a_bundle() {
    let dir = temp_dir("flow");
    let (engine, shutdown) =
        Engine::start(EngineConfig { data_dir: dir.clone(), ..EngineConfig::default() })
            .expect("engine starts");
    let state = engine.state();
    let world = state.world.as_ref().expect("world").chain(ChainId(1)).expect("chain 1").clone();
    let amount = U256::from(500_000_000_000u64);
    let actions = vec![
        route(WBTC, USDC, Amount::Value(amount)),
        route(USDC, DAI, Amount::Output { action: 0, index: 0 }),
    ];
    for strategy in [RoutingStrategy::Router, RoutingStrategy::Delegate] {
        let b = engine
            .bundle(request(strategy, actions.clone()))
            .await
            .unwrap_or_else(|e| panic!("{strategy}: {e:?}"));
        assert!(
            b.plans[0].legs.iter().any(|l| l.splits_between()),
            "{strategy}: 5,000 WBTC into USDC splits at intermediate tokens"
        );
        // What the second route spends is what the first delivered.
        assert_eq!(b.plans[1].legs[0].amount_in, b.plans[0].amounts_out[0], "{strategy}");
        let out = replay(&world, strategy, &b, (WBTC, amount), (USER, DAI));
        assert_eq!(out.gains[0], b.amounts_out.get(&DAI).copied(), "{strategy}");
    }
    shutdown.stop();
    let _ = std::fs::remove_dir_all(&dir);
}

const USDC_BASE: Address = address!("833589fcd6edb6e08f4c7c32d4f71b54bda02913");
const CCTP: Address = address!("28b5a0e9c621a5badaa536219b3a228c8168cf5d");

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
            callback_value: U256::ZERO,
        },
    }
}

/// WETH swapped to USDC on Ethereum and bridged through CCTP to Base: the
/// bundle is proven on both chains (the burn on Ethereum, the attested
/// message received on Base), and what it answers is what Base mints.
/// Replayed here: the transaction on a fresh fork of Ethereum, its message
/// attested and received on a fresh fork of Base by anyone, once only.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bundles_bridge_usdc_through_cctp_to_another_chain() {
    use alloy_sol_types::SolCall;
    use switchyard_engine::evm::{abi::CctpMessageTransmitterV2 as Mt, cctp};
    let c = chain1("bridge");
    let base = c.state.world.as_ref().expect("world").chain(ChainId(8453)).expect("base").clone();
    let one_weth = U256::from(10u128.pow(18));
    let actions = vec![
        route(WETH, USDC, Amount::Value(one_weth)),
        bridge("cctp", USDC, Amount::Output { action: 0, index: 0 }, CCTP, 8453, Vec::new()),
    ];
    let b = c.engine.bundle(request(RoutingStrategy::Router, actions)).await.expect("bridges");
    let minted = b.amounts_out[&USDC_BASE];
    assert!(minted > U256::from(1_000_000_000u64), "{minted}");
    // Nothing stays on Ethereum: the USDC bought is burned whole.
    assert!(!b.amounts_out.contains_key(&USDC), "{:?}", b.amounts_out);
    let crossing = b.plans.last().expect("the crossing's plan");
    assert_eq!((crossing.chain, crossing.destination_chain), (ChainId(1), ChainId(8453)));
    assert_eq!(crossing.amounts_out, vec![minted]);
    assert_eq!(crossing.bridging.len(), 1);
    assert_eq!(crossing.bridging[0].bridge, "cctp");
    // Approvals go to the router, never to the executor or the messenger.
    assert!(b.approvals.iter().all(|a| a.spender == b.tx.to), "{:?}", b.approvals);

    let out = replay(&c.world, RoutingStrategy::Router, &b, (WETH, one_weth), (USER, USDC));
    let transmitter = cctp::setup(&c.state.catalog).expect("cctp").1.message_transmitter;
    let sent = cctp::messages_sent(&out.logs, transmitter);
    let [message] = sent.as_slice() else { panic!("{} messages", sent.len()) };
    let burn = cctp::BurnMessage::decode(message).expect("a burn message");
    assert_eq!((burn.source_domain, burn.destination_domain), (0, 6));
    assert_eq!((burn.burn_token, burn.mint_recipient, burn.amount), (USDC, USER, minted));
    assert_eq!(burn.max_fee, U256::ZERO);
    assert_eq!(burn.min_finality, cctp::FINALIZED);
    assert_eq!(burn.recipient, CCTP);
    let attested = burn.attested(alloy_primitives::B256::repeat_byte(7));
    let receive = |data: alloy_primitives::Bytes| switchyard_engine::encode::Tx {
        from: address!("00000000000000000000000000000000000a11ce"),
        to: transmitter,
        data,
        value: U256::ZERO,
    };
    let setup = SimSetup { watch: vec![(USER, USDC_BASE)], ..SimSetup::default() };
    let tx = receive(cctp::receive_calldata(&attested).expect("signs"));
    let mut fork = base.fork();
    let got = switchyard_engine::simulate::run_prepared(&mut fork, &tx, &setup.watch)
        .expect("received on Base");
    assert_eq!(got.gains, vec![Some(minted)]);
    let again = switchyard_engine::simulate::run_prepared(&mut fork, &tx, &setup.watch)
        .expect_err("a message is received once");
    assert!(again.to_string().contains("Nonce already used"), "{again}");
    // The message as emitted (its nonce empty) is never receivable, and a
    // fee above the burn's most fee is refused, as on chain.
    let raw = Mt::receiveMessageCall {
        message: message.clone(),
        attestation: cctp::attest(message).expect("signs"),
    };
    let refused = simulate(&base, &receive(raw.abi_encode().into()), &setup).expect_err("refused");
    assert!(refused.to_string().contains("Nonce already used"), "{refused}");
    let mut charged = attested.to_vec();
    charged[148 + 164 + 31] = 1;
    let charged = alloy_primitives::Bytes::from(charged);
    let data = cctp::receive_calldata(&charged).expect("signs");
    let refused = simulate(&base, &receive(data), &setup).expect_err("refused");
    assert!(refused.to_string().contains("Fee exceeds max fee"), "{refused}");
    // A signature of anything else is not an attestation of this message.
    let forged = cctp::attest(message).expect("signs");
    let call = Mt::receiveMessageCall { message: attested.clone(), attestation: forged };
    let refused = simulate(&base, &receive(call.abi_encode().into()), &setup).expect_err("refused");
    assert!(refused.to_string().contains("not attester"), "{refused}");

    // A route action across chains: bought here, burned to the receiver,
    // minted on Base; the same amounts as the two actions above.
    let across = |token_out: Address, to: u64| {
        let mut a = route(WETH, token_out, Amount::Value(one_weth));
        if let ActionKind::Route(args) = &mut a.kind {
            args.destination_chain = Some(ChainId(to));
            args.receiver = Some(USER);
        }
        a
    };
    let r = c
        .engine
        .bundle(request(RoutingStrategy::Router, vec![across(USDC_BASE, 8453)]))
        .await
        .expect("a route across chains");
    assert_eq!(r.amounts_out, b.amounts_out);
    assert_eq!(
        r.min_amounts_out.get(&USDC_BASE),
        Some(&(minted * U256::from(9_900) / U256::from(10_000)))
    );
    assert!(r.plans.iter().any(|p| p.destination_chain == ChainId(8453)), "{:?}", r.plans);
    // USDC to USDC across chains: nothing to run before the burn.
    let mut usdc_across = route(USDC, USDC_BASE, Amount::Value(minted));
    if let ActionKind::Route(args) = &mut usdc_across.kind {
        args.destination_chain = Some(ChainId(8453));
    }
    let r = c
        .engine
        .bundle(request(RoutingStrategy::Router, vec![usdc_across]))
        .await
        .expect("USDC across chains");
    assert_eq!(r.amounts_out.get(&USDC_BASE), Some(&minted));
    // A swap on arrival needs a receiver Enso has not deployed for CCTP:
    // it crosses by a Stargate taxi instead (see
    // route_actions_cross_by_a_stargate_taxi_and_swap_on_arrival).
    const WETH_ARB: Address = address!("82af49447d8a07e3bd95bd0d56f35241523fbab1");
    let r = c
        .engine
        .bundle(request(RoutingStrategy::Router, vec![across(WETH_ARB, 42161)]))
        .await
        .expect("a swap on arrival");
    assert!(
        r.plans.iter().flat_map(|p| &p.bridging).any(|b| b.bridge == "stargate"),
        "{:?}",
        r.plans
    );

    // A callback needs a receiver Enso has not deployed for CCTP: refused
    // with the reason, and no transaction.
    let callback =
        vec![enso(ActionKind::Balance { token: USDC_BASE, account: None, estimate: None })];
    let actions = vec![bridge("cctp", USDC, Amount::Value(minted), CCTP, 8453, callback)];
    match c.engine.bundle(request(RoutingStrategy::Router, actions)).await {
        Err(switchyard_engine::EngineError::Exec(switchyard_engine::ExecError::Bundle(e))) => {
            assert_eq!(e.code, switchyard_catalog::ApiCode::BridgeUnavailable, "{e:?}");
            assert_eq!(e.at, "body[0].args.callback");
        }
        other => panic!("a CCTP callback was built: {other:?}"),
    }
    // More than one message may burn is refused by the messenger's minter.
    let too_much = U256::from(10_000_000_000_001u64);
    let actions = vec![bridge("cctp", USDC, Amount::Value(too_much), CCTP, 8453, Vec::new())];
    match c.engine.bundle(request(RoutingStrategy::Router, actions)).await {
        Err(switchyard_engine::EngineError::Exec(switchyard_engine::ExecError::Bundle(e))) => {
            assert!(e.message.contains("Burn amount exceeds per tx limit"), "{e:?}");
        }
        other => panic!("a burn above the limit was built: {other:?}"),
    }
    c.shutdown.stop();
    let _ = std::fs::remove_dir_all(&c.dir);
}

/// WETH swapped to USDT on Ethereum and bridged through Stargate's
/// published USDT pool to Arbitrum: LayerZero's fee rides with the
/// transaction, the pool holds the destination to the bundle's slippage
/// off what the swap predicts, and what the bundle answers is what
/// Arbitrum's pool pays. Replayed here on fresh forks of both chains.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bundles_bridge_through_a_stargate_taxi() {
    use switchyard_engine::{bridge::deliver_layerzero, evm::layerzero};
    const USDT_ARB: Address = address!("fd086bc7cd5c481dcc9c85ebe478a1c0b69fcbb9");
    const USDT_POOL: Address = address!("933597a323eb81cae705c5bc29985172fd5a3973");
    let c = chain1("stargate");
    let one_weth = U256::from(10u128.pow(18));
    let actions = vec![
        route(WETH, USDT, Amount::Value(one_weth)),
        bridge(
            "stargate",
            USDT,
            Amount::Output { action: 0, index: 0 },
            USDT_POOL,
            42161,
            Vec::new(),
        ),
    ];
    let b = c.engine.bundle(request(RoutingStrategy::Router, actions)).await.expect("bridges");
    let paid = b.amounts_out[&USDT_ARB];
    assert!(paid > U256::from(1_000_000_000u64), "{paid}");
    assert!(!b.amounts_out.contains_key(&USDT), "{:?}", b.amounts_out);
    let crossing = b.plans.last().expect("the crossing's plan");
    assert_eq!(crossing.bridging[0].bridge, "stargate");
    assert_eq!(crossing.amounts_out, vec![paid]);
    let lz = layerzero::setup(&c.state.catalog).expect("LayerZero").1;
    let fee = U256::from(lz.message_fee(ChainId(1)).expect("a fee"));
    assert_eq!(b.tx.value, fee, "LayerZero's fee rides with the transaction");
    assert!(b.approvals.iter().all(|a| a.spender == b.tx.to), "{:?}", b.approvals);

    let w1 = c.world.clone();
    let setup = SimSetup {
        funds: vec![(USER, WETH, one_weth), (USER, NATIVE_TOKEN, fee)],
        approvals: b.approvals.clone(),
        ..SimSetup::default()
    };
    let out = simulate(&w1, &b.tx, &setup).expect("the source side runs");
    let world = c.state.world.as_ref().expect("world");
    let delivered = deliver_layerzero(world, &c.state.catalog, ChainId(1), &out.logs, &[])
        .expect("paid out on Arbitrum");
    let [d] = delivered.as_slice() else { panic!("{} taxis", delivered.len()) };
    assert_eq!((d.to_chain, d.token, d.receiver, d.amount), (ChainId(42161), USDT_ARB, USER, paid));

    // An amount known only when the bundle runs (a balance without an
    // estimate): the taxi's minimum is computed then, off what is sent,
    // and the taxi crosses under it.
    let actions = vec![
        route(WETH, USDT, Amount::Value(one_weth)),
        enso(ActionKind::Balance { token: USDT, account: None, estimate: None }),
        bridge(
            "stargate",
            USDT,
            Amount::Output { action: 1, index: 0 },
            USDT_POOL,
            42161,
            Vec::new(),
        ),
    ];
    let b = c.engine.bundle(request(RoutingStrategy::Router, actions)).await.expect("bridges");
    let out = simulate(&w1, &b.tx, &setup).expect("the source side runs");
    let delivered = deliver_layerzero(world, &c.state.catalog, ChainId(1), &out.logs, &[])
        .expect("paid out on Arbitrum");
    assert_eq!(delivered[0].amount, b.amounts_out[&USDT_ARB]);
    let sent = out
        .logs
        .iter()
        .find_map(|l| {
            use alloy_sol_types::SolEvent;
            switchyard_engine::evm::abi::StargatePool::OFTSent::decode_log(l).ok().map(|e| e.data)
        })
        .expect("sent");
    assert_eq!(sent.amountReceivedLD, delivered[0].amount, "6 decimals on both sides");
    // The minimum binds: with the pool's fee raised to 1% after the answer
    // (above the fee and slippage the minimum allows), the taxi reverts.
    let usdt_pool = switchyard_engine::evm::layerzero::pools_on(&c.state.catalog, ChainId(1))
        .find(|p| p.pool == USDT_POOL)
        .expect("the USDT pool");
    let mut evm = w1.fork();
    let raise = switchyard_engine::evm::abi::StargateFeeLib::setFeeConfigCall {
        dstEid: layerzero::eid_of(&c.state.catalog, ChainId(42161)).expect("Arbitrum's eid"),
        zone1UpperBound: 0,
        zone2UpperBound: 0,
        zone1FeeMillionth: alloy_primitives::aliases::U24::ZERO,
        zone2FeeMillionth: alloy_primitives::aliases::U24::ZERO,
        zone3FeeMillionth: alloy_primitives::aliases::U24::from(10_000u32),
        rewardMillionth: alloy_primitives::aliases::U24::ZERO,
    };
    {
        use alloy_sol_types::SolCall;
        evm.call(
            switchyard_engine::evm::world::DEPLOYER,
            usdt_pool.fee_lib.expect("its fee library"),
            raise.abi_encode().into(),
            U256::ZERO,
        )
        .expect("the fee raised");
    }
    switchyard_engine::simulate::prepare(&w1, &mut evm, &setup).expect("setup");
    let refused = switchyard_engine::simulate::run_prepared(&mut evm, &b.tx, &setup.watch);
    assert!(
        refused.is_err(),
        "a 1% fee crossed under the minimum: {:?}",
        refused.map(|o| o.gas_used)
    );
    c.shutdown.stop();
    let _ = std::fs::remove_dir_all(&c.dir);
}

/// A Stargate bridge action with a callback on arrival: USDC taxied to
/// Arbitrum, where the callback (a balance of what arrived, then a route
/// of it to WETH) runs in the destination router's executor, passed what
/// arrived by Enso's composer. The callback is proven on Arbitrum's world
/// as its own bundle, and again after the source side runs: what the
/// bundle answers is WETH on Arbitrum, to the wei. Replayed here on fresh
/// forks. A callback that does not start with the balance of what arrives
/// is refused naming it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bundles_run_a_callback_on_arrival_through_the_composer() {
    use switchyard_engine::bridge::deliver_layerzero;
    const USDC_ARB: Address = address!("af88d065e77c8cc2239327c5edb3a432268e5831");
    const WETH_ARB: Address = address!("82af49447d8a07e3bd95bd0d56f35241523fbab1");
    const USDC_POOL: Address = address!("c026395860db2d07ee33e05fe50ed7bd583189c7");
    let c = chain1("callback");
    let amount = U256::from(3_000_000_000u64);
    let callback = vec![
        enso(ActionKind::Balance { token: USDC_ARB, account: None, estimate: None }),
        route(USDC_ARB, WETH_ARB, Amount::Output { action: 0, index: 0 }),
    ];
    let actions = vec![bridge("stargate", USDC, Amount::Value(amount), USDC_POOL, 42161, callback)];
    let b = c.engine.bundle(request(RoutingStrategy::Router, actions)).await.expect("bridges");
    let weth = b.amounts_out[&WETH_ARB];
    assert!(weth > U256::from(10u128.pow(17)), "{:?}", b.amounts_out);
    assert!(!b.amounts_out.contains_key(&USDC_ARB), "{:?}", b.amounts_out);
    assert!(b.plans.iter().any(|p| p.chain == ChainId(42161)), "the callback's plan");

    let fee = b.tx.value;
    let setup = SimSetup {
        funds: vec![(USER, USDC, amount), (USER, NATIVE_TOKEN, fee)],
        approvals: b.approvals.clone(),
        ..SimSetup::default()
    };
    let out = simulate(&c.world, &b.tx, &setup).expect("the source side runs");
    let world = c.state.world.as_ref().expect("world");
    let delivered = deliver_layerzero(
        world,
        &c.state.catalog,
        ChainId(1),
        &out.logs,
        &[vec![(USER, WETH_ARB)]],
    )
    .expect("composed on Arbitrum");
    let [d] = delivered.as_slice() else { panic!("{} taxis", delivered.len()) };
    assert_eq!(d.gains, vec![weth]);

    // With a native value beside what arrives: LayerZero's executor
    // brings it to the composer, which passes both to the router, and the
    // callback spends it (here wrapped into the same WETH). The source pays
    // for it with the message, a quarter over.
    let drop = U256::from(2u128 * 10u128.pow(16));
    let with_value = |callback: Vec<Action>, to: u64, pool: Address| {
        let mut action = bridge("stargate", USDC, Amount::Value(amount), pool, to, callback);
        if let ActionKind::Bridge { callback_value, .. } = &mut action.kind {
            *callback_value = drop;
        }
        vec![action]
    };
    let callback = vec![
        enso(ActionKind::Balance { token: USDC_ARB, account: None, estimate: None }),
        route(USDC_ARB, WETH_ARB, Amount::Output { action: 0, index: 0 }),
        route(NATIVE_TOKEN, WETH_ARB, Amount::Value(drop)),
    ];
    let v = c
        .engine
        .bundle(request(RoutingStrategy::Router, with_value(callback.clone(), 42161, USDC_POOL)))
        .await
        .expect("bridges with a callback value");
    assert_eq!(v.tx.value, fee + drop + drop / U256::from(4u8), "the drop paid with the fee");
    let weth_v = v.amounts_out[&WETH_ARB];
    assert_eq!(weth_v, weth + drop, "the value wrapped beside the swap");
    let setup = SimSetup {
        funds: vec![(USER, USDC, amount), (USER, NATIVE_TOKEN, v.tx.value)],
        approvals: v.approvals.clone(),
        ..SimSetup::default()
    };
    let out = simulate(&c.world, &v.tx, &setup).expect("the source side runs");
    let delivered = deliver_layerzero(
        world,
        &c.state.catalog,
        ChainId(1),
        &out.logs,
        &[vec![(USER, WETH_ARB)]],
    )
    .expect("composed on Arbitrum with the value");
    assert_eq!(delivered[0].gains, vec![weth_v]);
    // A value without a callback, across native coins (Ethereum to BNB
    // Chain), and through CCTP (no receiver runs a callback) is refused,
    // naming callbackValue.
    const USDC_BSC: Address = address!("8ac76a51cc950d9822d68b83fe1ad97b32cd580d");
    let bsc_callback = vec![
        enso(ActionKind::Balance { token: USDC_BSC, account: None, estimate: None }),
        route(
            NATIVE_TOKEN,
            address!("bb4cdb9cbd36b01bd1cbaebf2de08d9173bc095c"),
            Amount::Value(drop),
        ),
    ];
    let mut cctp = bridge("cctp", USDC, Amount::Value(amount), CCTP, 8453, Vec::new());
    if let ActionKind::Bridge { callback_value, .. } = &mut cctp.kind {
        *callback_value = drop;
    }
    for (name, actions, code) in [
        ("no callback", with_value(Vec::new(), 42161, USDC_POOL), ApiCode::InvalidParameter),
        ("BNB", with_value(bsc_callback, 56, USDC_POOL), ApiCode::BridgeUnavailable),
        ("cctp", vec![cctp], ApiCode::BridgeUnavailable),
    ] {
        match c.engine.bundle(request(RoutingStrategy::Router, actions)).await {
            Err(switchyard_engine::EngineError::Exec(switchyard_engine::ExecError::Bundle(e))) => {
                assert_eq!(e.at, "body[0].args.callbackValue", "{name}: {e:?}");
                assert_eq!(e.code, code, "{name}: {e:?}");
            }
            other => panic!("{name}: built: {other:?}"),
        }
    }

    // A callback must start with the balance of what arrives.
    let callback = vec![route(USDC_ARB, WETH_ARB, Amount::Value(U256::from(1_000_000u64)))];
    let actions = vec![bridge("stargate", USDC, Amount::Value(amount), USDC_POOL, 42161, callback)];
    match c.engine.bundle(request(RoutingStrategy::Router, actions)).await {
        Err(switchyard_engine::EngineError::Exec(switchyard_engine::ExecError::Bundle(e))) => {
            assert_eq!(e.at, "body[0].args.callback[0]", "{e:?}");
        }
        other => panic!("a callback without its balance was built: {other:?}"),
    }
    c.shutdown.stop();
    let _ = std::fs::remove_dir_all(&c.dir);
}

/// Route actions to another chain that need more on arrival than CCTP
/// runs: the search again through one Stargate pool, the taxi sent from
/// the bundle, and the swap on arrival composed through Enso's composer.
/// USDC for Arbitrum's WETH, WETH for Arbitrum's WETH (through the native
/// pools), and a route whose amount an earlier swap leaves: each delivers
/// on Arbitrum what the bundle answers, to the wei, on fresh forks.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn route_actions_cross_by_a_stargate_taxi_and_swap_on_arrival() {
    use switchyard_engine::bridge::deliver_layerzero;
    const WETH_ARB: Address = address!("82af49447d8a07e3bd95bd0d56f35241523fbab1");
    let c = chain1("route-taxi");
    let across = |token_in, amount_in| {
        let mut a = route(token_in, WETH_ARB, amount_in);
        if let ActionKind::Route(r) = &mut a.kind {
            r.destination_chain = Some(ChainId(42161));
        }
        a
    };
    let usdc = U256::from(5_000_000_000u64);
    let one_weth = U256::from(10u128.pow(18));
    for (name, actions, funds) in [
        ("usdc", vec![across(USDC, Amount::Value(usdc))], (USDC, usdc)),
        ("weth", vec![across(WETH, Amount::Value(one_weth))], (WETH, one_weth)),
        (
            "after a swap",
            vec![
                route(WETH, DAI, Amount::Value(one_weth)),
                across(DAI, Amount::Output { action: 0, index: 0 }),
            ],
            (WETH, one_weth),
        ),
        (
            "of a balance known when it runs",
            vec![
                route(WETH, DAI, Amount::Value(one_weth)),
                enso(ActionKind::Balance { token: DAI, account: None, estimate: None }),
                across(DAI, Amount::Output { action: 1, index: 0 }),
            ],
            (WETH, one_weth),
        ),
    ] {
        let b = c
            .engine
            .bundle(request(RoutingStrategy::Router, actions))
            .await
            .unwrap_or_else(|e| panic!("{name}: {e:?}"));
        let weth = b.amounts_out[&WETH_ARB];
        assert!(weth > U256::from(10u128.pow(17)), "{name}: {:?}", b.amounts_out);
        assert_eq!(b.amounts_out.len(), 1, "{name}: only Arbitrum's WETH: {:?}", b.amounts_out);
        assert!(b.min_amounts_out[&WETH_ARB] < weth, "{name}: {:?}", b.min_amounts_out);
        assert!(b.plans.iter().any(|p| p.chain == ChainId(42161)), "{name}: the arrival's plan");
        let setup = SimSetup {
            funds: vec![(USER, funds.0, funds.1), (USER, NATIVE_TOKEN, b.tx.value)],
            approvals: b.approvals.clone(),
            ..SimSetup::default()
        };
        let out = simulate(&c.world, &b.tx, &setup).unwrap_or_else(|e| panic!("{name}: {e}"));
        let world = c.state.world.as_ref().expect("world");
        let delivered = deliver_layerzero(
            world,
            &c.state.catalog,
            ChainId(1),
            &out.logs,
            &[vec![(USER, WETH_ARB)]],
        )
        .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(delivered[0].gains, vec![weth], "{name}");
    }
    c.shutdown.stop();
    let _ = std::fs::remove_dir_all(&c.dir);
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
            switchyard_engine::evm::world::ChainWorld::balance_of(&mut evm, WETH_DEBT, USER)
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

const THREE_CRV: Address = address!("6c3f90f043a72fa612cbac8115ee7e52bde6e490");
const GAUGE_3POOL: Address = address!("bfcf63294ad7105dea65aa58f8ae5be2d9d0952a");
const COMET_USDC: Address = address!("c3d688b66703497daa19211eedff47f25384cdc3");

fn gauge(kind: ActionKind) -> Action {
    Action { protocol: "curve-gauge".into(), kind }
}

/// Staking LP tokens in a Curve gauge and withdrawing them: the gauge
/// tokens are minted and burned 1:1, through the router's shared executor
/// (the gauge tokens leave it as an output) and from the caller's own
/// account (a stake held before the bundle). A Compound V3 market has no
/// contract in this world: withdrawing from it is refused naming the field.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bundles_stake_in_and_withdraw_from_a_gauge() {
    let dir = temp_dir("gauge");
    let (engine, shutdown) =
        Engine::start(EngineConfig { data_dir: dir.clone(), ..EngineConfig::default() })
            .expect("engine starts");
    let state = engine.state();
    let world = state.world.as_ref().expect("world").chain(ChainId(1)).expect("chain 1").clone();
    let staked = U256::from(3u128 * 10u128.pow(21));
    let back = U256::from(10u128.pow(21));

    // Router: stake 3,000 3Crv, take 1,000 back out.
    let actions = vec![
        gauge(ActionKind::Deposit {
            token_in: THREE_CRV,
            token_out: Some(GAUGE_3POOL),
            amount_in: Amount::Value(staked),
            primary: GAUGE_3POOL,
            receiver: None,
        }),
        gauge(ActionKind::Withdraw {
            token_out: THREE_CRV,
            amount_out: Amount::Value(back),
            primary: GAUGE_3POOL,
            receiver: None,
        }),
    ];
    let b = engine.bundle(request(RoutingStrategy::Router, actions)).await.expect("router bundle");
    assert_eq!(b.amounts_out.get(&GAUGE_3POOL), Some(&(staked - back)), "{:?}", b.amounts_out);
    // 3Crv is an input that partly comes back: no output of it.
    assert_eq!(b.amounts_out.get(&THREE_CRV), None, "{:?}", b.amounts_out);
    let setup = SimSetup {
        funds: vec![(USER, THREE_CRV, staked)],
        approvals: b.approvals.clone(),
        watch: vec![(USER, GAUGE_3POOL), (USER, THREE_CRV)],
        ..SimSetup::default()
    };
    // Approvals go to the router, never to its executor.
    let (router, _) = world.shortcuts.router.expect("router");
    assert!(b.approvals.iter().all(|a| a.spender == router), "{:?}", b.approvals);
    let out = simulate(&world, &b.tx, &setup).expect("executes again");
    assert_eq!(out.after[0], staked - back, "the stake left is the user's");
    assert_eq!(out.before[1] - out.after[1], staked - back, "3Crv spent net of what came back");

    // Delegate: withdraw all of a stake held before the bundle.
    let withdraw = vec![gauge(ActionKind::Withdraw {
        token_out: THREE_CRV,
        amount_out: Amount::Value(back),
        primary: GAUGE_3POOL,
        receiver: None,
    })];
    let b = engine.bundle(request(RoutingStrategy::Delegate, withdraw)).await.expect("delegate");
    assert_eq!(b.amounts_out.get(&THREE_CRV), Some(&back), "{:?}", b.amounts_out);
    let setup = SimSetup {
        funds: vec![(USER, GAUGE_3POOL, back)],
        approvals: b.approvals.clone(),
        delegations: vec![(USER, world.shortcuts.delegate.expect("delegate"))],
        watch: vec![(USER, THREE_CRV), (USER, GAUGE_3POOL)],
        ..SimSetup::default()
    };
    let out = simulate(&world, &b.tx, &setup).expect("executes again");
    assert_eq!(out.gains[0], Some(back), "the LP tokens come back 1:1");
    assert_eq!(out.after[1], U256::ZERO, "the stake is gone");

    // The wrong token, and more than a Compound III market holds.
    let wrong = vec![gauge(ActionKind::Withdraw {
        token_out: USDC,
        amount_out: Amount::Value(back),
        primary: GAUGE_3POOL,
        receiver: None,
    })];
    let e = engine.bundle(request(RoutingStrategy::Delegate, wrong)).await.expect_err("USDC");
    assert!(format!("{e:?}").contains("tokenOut"), "{e:?}");
    let comet = vec![Action {
        protocol: "compound-v3".into(),
        kind: ActionKind::Withdraw {
            token_out: USDC,
            amount_out: Amount::Value(back),
            primary: COMET_USDC,
            receiver: None,
        },
    }];
    let e = engine.bundle(request(RoutingStrategy::Delegate, comet)).await.expect_err("comet");
    assert!(format!("{e:?}").contains("amountOut"), "{e:?}");
    shutdown.stop();
    let _ = std::fs::remove_dir_all(&dir);
}

const THREE_POOL: Address = address!("bebc44782c7db0a1a60cb6fe97d0b483032ff1c7");
const STETH_POOL: Address = address!("dc24316b9ae028f1497c275eb9192a3ea0f67022");
const STE_CRV: Address = address!("06325440d014e39736583c165c2963ba99faf14e");
const STETH: Address = address!("ae7ab96520de3a18e5e111b5eaab095312d7fe84");
const USDT: Address = address!("dac17f958d2ee523a2206206994597c13d831ec7");

fn curve(kind: ActionKind) -> Action {
    Action { protocol: "curve".into(), kind }
}

/// Curve LP zaps in bundles: DAI deposited into the 3pool (`add_liquidity`
/// of one coin) and the 3Crv it mints staked in the gauge, through the
/// router; 3Crv redeemed into USDC (`remove_liquidity_one_coin`) from the
/// caller's own account, the pool named by its LP token. Both execute
/// again and deliver exactly what the bundle answered.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bundles_zap_into_and_out_of_a_curve_pool() {
    let dir = temp_dir("curve");
    let (engine, shutdown) =
        Engine::start(EngineConfig { data_dir: dir.clone(), ..EngineConfig::default() })
            .expect("engine starts");
    let state = engine.state();
    let world = state.world.as_ref().expect("world").chain(ChainId(1)).expect("chain 1").clone();
    let dai = U256::from(10u128.pow(22));
    let actions = vec![
        curve(ActionKind::Deposit {
            token_in: DAI,
            token_out: Some(THREE_CRV),
            amount_in: Amount::Value(dai),
            primary: THREE_POOL,
            receiver: None,
        }),
        gauge(ActionKind::Deposit {
            token_in: THREE_CRV,
            token_out: Some(GAUGE_3POOL),
            amount_in: Amount::Output { action: 0, index: 0 },
            primary: GAUGE_3POOL,
            receiver: None,
        }),
    ];
    let b = engine.bundle(request(RoutingStrategy::Router, actions)).await.expect("deposit");
    let staked = *b.amounts_out.get(&GAUGE_3POOL).expect("a stake");
    // About 10,000 DAI at the pool's virtual price (~1.07), less the fee.
    assert!(staked > U256::from(9_200u128 * 10u128.pow(18)), "{staked}");
    assert!(staked < U256::from(9_400u128 * 10u128.pow(18)), "{staked}");
    let (router, _) = world.shortcuts.router.expect("router");
    assert!(b.approvals.iter().all(|a| a.spender == router), "{:?}", b.approvals);
    let setup = SimSetup {
        funds: vec![(USER, DAI, dai)],
        approvals: b.approvals.clone(),
        watch: vec![(USER, GAUGE_3POOL), (USER, DAI)],
        ..SimSetup::default()
    };
    let out = simulate(&world, &b.tx, &setup).expect("executes again");
    assert_eq!(out.gains[0], Some(staked), "the stake is exactly the 3Crv minted");
    assert_eq!(out.before[1] - out.after[1], dai);

    // Delegate: 3Crv out into USDC, the pool named by its LP token.
    let lp = U256::from(2_500u128 * 10u128.pow(18));
    let redeem = vec![curve(ActionKind::Redeem {
        token_in: Some(THREE_CRV),
        token_out: USDC,
        amount_in: Amount::Value(lp),
        primary: THREE_CRV,
        receiver: None,
    })];
    let b = engine.bundle(request(RoutingStrategy::Delegate, redeem)).await.expect("redeem");
    let usdc = *b.amounts_out.get(&USDC).expect("USDC out");
    assert!(usdc > U256::from(2_600_000_000u64) && usdc < U256::from(2_800_000_000u64), "{usdc}");
    let setup = SimSetup {
        funds: vec![(USER, THREE_CRV, lp)],
        approvals: b.approvals.clone(),
        delegations: vec![(USER, world.shortcuts.delegate.expect("delegate"))],
        watch: vec![(USER, USDC), (USER, THREE_CRV)],
        ..SimSetup::default()
    };
    let out = simulate(&world, &b.tx, &setup).expect("executes again");
    assert_eq!(out.gains[0], Some(usdc), "exactly the USDC answered");
    assert_eq!(out.after[1], U256::ZERO, "every 3Crv burnt");

    // Router: DAI and USDC in together, then the 3Crv minted out again
    // into every coin in proportion.
    let usdc = U256::from(4_000_000_000u64);
    let actions = vec![
        Action {
            protocol: "curve".into(),
            kind: ActionKind::MultiDeposit {
                tokens_in: vec![USDC, DAI],
                amounts_in: vec![Amount::Value(usdc), Amount::Value(dai)],
                token_out: Some(THREE_CRV),
                primary: THREE_POOL,
                receiver: None,
            },
        },
        Action {
            protocol: "curve".into(),
            kind: ActionKind::MultiRedeem {
                token_in: Some(THREE_CRV),
                tokens_out: vec![USDT, DAI, USDC],
                amount_in: Amount::Output { action: 0, index: 0 },
                primary: THREE_CRV,
                receiver: None,
            },
        },
    ];
    let b = engine.bundle(request(RoutingStrategy::Router, actions)).await.expect("multi");
    let got = |t: Address| b.amounts_out.get(&t).copied().unwrap_or_default();
    let setup = SimSetup {
        funds: vec![(USER, DAI, dai), (USER, USDC, usdc)],
        approvals: b.approvals.clone(),
        watch: vec![(USER, USDT), (USER, DAI), (USER, USDC), (USER, THREE_CRV)],
        ..SimSetup::default()
    };
    let out = simulate(&world, &b.tx, &setup).expect("executes again");
    // Outputs are net of what the bundle took: USDT all of it, USDC what
    // came back beyond the 4,000 put in, DAI (less back than put in) none.
    assert_eq!(out.gains[0], Some(got(USDT)));
    assert_eq!(out.after[2] - usdc, got(USDC), "{:?}", b.amounts_out);
    assert_eq!(b.amounts_out.get(&DAI), None, "{:?}", b.amounts_out);
    assert_eq!(out.after[3], U256::ZERO, "no 3Crv left");
    // 14,000 in, about 14,000 back across the three coins (the pool's
    // mix): the DAI and USDC the pool was short of earn a little more than
    // the imbalance fee costs.
    let back = out.after[1] / U256::from(10u64.pow(12)) + out.after[2] + out.after[0];
    assert!(back > U256::from(13_990_000_000u64) && back < U256::from(14_010_000_000u64), "{back}");

    // The native coin and stETH into steCRV together.
    let eth = U256::from(2u128 * 10u128.pow(18));
    let actions = vec![Action {
        protocol: "curve".into(),
        kind: ActionKind::MultiDeposit {
            tokens_in: vec![NATIVE_TOKEN, STETH],
            amounts_in: vec![Amount::Value(eth), Amount::Value(eth)],
            token_out: None,
            primary: STETH_POOL,
            receiver: None,
        },
    }];
    let b = engine.bundle(request(RoutingStrategy::Router, actions)).await.expect("steCRV");
    let minted = *b.amounts_out.get(&STE_CRV).expect("steCRV out");
    assert_eq!(b.tx.value, eth, "the native coin is the transaction's value");
    let setup = SimSetup {
        funds: vec![(USER, NATIVE_TOKEN, eth + U256::from(10u128.pow(18))), (USER, STETH, eth)],
        approvals: b.approvals.clone(),
        watch: vec![(USER, STE_CRV)],
        ..SimSetup::default()
    };
    let out = simulate(&world, &b.tx, &setup).expect("executes again");
    assert_eq!(out.gains[0], Some(minted));

    // And out again into both, the native coin and stETH (a rebasing share
    // token, measured as it arrives).
    let actions = vec![Action {
        protocol: "curve".into(),
        kind: ActionKind::MultiRedeem {
            token_in: Some(STE_CRV),
            tokens_out: vec![STETH, NATIVE_TOKEN],
            amount_in: Amount::Value(minted),
            primary: STETH_POOL,
            receiver: None,
        },
    }];
    let b = engine.bundle(request(RoutingStrategy::Router, actions)).await.expect("out of steCRV");
    let (steth, native) = (b.amounts_out[&STETH], b.amounts_out[&NATIVE_TOKEN]);
    assert!(steth + native > eth * U256::from(2u8) * U256::from(99u8) / U256::from(100u8));
    let setup = SimSetup {
        funds: vec![(USER, STE_CRV, minted)],
        approvals: b.approvals.clone(),
        watch: vec![(USER, NATIVE_TOKEN), (USER, STE_CRV)],
        ..SimSetup::default()
    };
    let out = simulate(&world, &b.tx, &setup).expect("executes again");
    assert_eq!(out.after[1], U256::ZERO, "every steCRV burnt");

    // remove_liquidity pays every coin: naming two of three is refused.
    let partial = vec![Action {
        protocol: "curve".into(),
        kind: ActionKind::MultiRedeem {
            token_in: None,
            tokens_out: vec![DAI, USDC],
            amount_in: Amount::Value(lp),
            primary: THREE_POOL,
            receiver: None,
        },
    }];
    let e = engine.bundle(request(RoutingStrategy::Router, partial)).await.expect_err("partial");
    assert!(format!("{e:?}").contains("tokenOut"), "{e:?}");

    // A coin the pool does not hold, and a redeem that names no coin of it.
    let wrong = vec![curve(ActionKind::Deposit {
        token_in: WETH,
        token_out: None,
        amount_in: Amount::Value(dai),
        primary: THREE_POOL,
        receiver: None,
    })];
    let e = engine.bundle(request(RoutingStrategy::Router, wrong)).await.expect_err("WETH");
    assert!(format!("{e:?}").contains("primaryAddress"), "{e:?}");
    shutdown.stop();
    let _ = std::fs::remove_dir_all(&dir);
}

alloy_sol_types::sol! {
    /// Permit2's signed types, as a wallet signs them (EIP-712).
    struct TokenPermissions { address token; uint256 amount; }
    struct PermitTransferFrom { TokenPermissions permitted; address spender; uint256 nonce; uint256 deadline; }
    struct PermitBatchTransferFrom { TokenPermissions[] permitted; address spender; uint256 nonce; uint256 deadline; }
}

/// A 65-byte `r‖s‖v` signature by `key` of Permit2's EIP-712 hash of
/// `permit` (single or batch) on chain 1.
fn sign_permit(key: &k256::ecdsa::SigningKey, permit: &impl alloy_sol_types::SolStruct) -> Vec<u8> {
    let domain = alloy_sol_types::eip712_domain! {
        name: "Permit2",
        chain_id: 1,
        verifying_contract: switchyard_engine::evm::world::PERMIT2,
    };
    let hash = permit.eip712_signing_hash(&domain);
    let (sig, recid) = key.sign_prehash_recoverable(hash.as_slice()).expect("signs");
    let mut out = sig.to_bytes().to_vec();
    out.push(27 + recid.to_byte());
    out
}

fn address_of(key: &k256::ecdsa::SigningKey) -> Address {
    let point = key.verifying_key().to_encoded_point(false);
    Address::from_slice(&alloy_primitives::keccak256(&point.as_bytes()[1..])[12..])
}

/// A permit signed by another account moves its tokens into the caller's
/// account through Permit2 (a reference with its signature-transfer
/// interface at its address), and a route spends them. A signature by
/// anyone else is refused when the bundle is executed before answering;
/// on the shared executor a permit is refused outright.
/// Uniswap V2 positions through Router02, named by the router as Enso
/// names them: one coin in (part sold, then `addLiquidity`), both coins in
/// (`addLiquidity`, the router taking one whole and the other at the
/// reserves' ratio), and out into both. Whatever the router leaves goes
/// back: the shared executor ends holding nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bundles_zap_into_and_out_of_a_uniswap_v2_pair() {
    let Chain1 { dir, engine, shutdown, world, executor, .. } = chain1("v2-lp");
    let v2 = |kind| Action { protocol: "uniswap-v2".into(), kind };
    let (usdc, weth) = (U256::from(1_000_000_000u64), U256::from(4u128 * 10u128.pow(17)));
    let actions = vec![
        v2(ActionKind::Deposit {
            token_in: USDC,
            token_out: Some(USDC_WETH_V2),
            amount_in: Amount::Value(usdc),
            primary: V2_ROUTER,
            receiver: None,
        }),
        v2(ActionKind::MultiDeposit {
            tokens_in: vec![WETH, USDC],
            amounts_in: vec![Amount::Value(weth), Amount::Value(usdc)],
            token_out: Some(USDC_WETH_V2),
            primary: V2_ROUTER,
            receiver: None,
        }),
    ];
    let b = engine.bundle(request(RoutingStrategy::Router, actions)).await.expect("deposits");
    let minted = *b.amounts_out.get(&USDC_WETH_V2).expect("the pair's token");
    let setup = SimSetup {
        funds: vec![(USER, USDC, usdc + usdc), (USER, WETH, weth)],
        approvals: b.approvals.clone(),
        watch: vec![
            (USER, USDC_WETH_V2),
            (USER, WETH),
            (executor, USDC),
            (executor, WETH),
            (executor, USDC_WETH_V2),
        ],
        ..SimSetup::default()
    };
    let out = simulate(&world, &b.tx, &setup).expect("executes again");
    assert_eq!(out.gains[0], Some(minted), "exactly the liquidity answered");
    // About $3,000 in: the one-coin zap of 1,000 USDC (8.93e12 alone),
    // then 1,000 USDC with about 0.333 WETH, twice that.
    assert!(minted > U256::from(26_700_000_000_000u64), "{minted}");
    assert!(minted < U256::from(26_900_000_000_000u64), "{minted}");
    // The router took all the USDC and about 0.333 WETH; the rest of the
    // 0.4 WETH came back.
    let spent = out.before[1] - out.after[1];
    assert!(
        spent > U256::from(33u128 * 10u128.pow(16))
            && spent < weth / U256::from(100u8) * U256::from(84u8),
        "{spent}"
    );
    for k in 2..5 {
        assert_eq!(out.after[k], U256::ZERO, "the executor keeps nothing: {:?}", setup.watch[k]);
    }

    // Delegate: the pair's token out into both coins.
    let lp = U256::from(100_000_000_000_000u64);
    let actions = vec![v2(ActionKind::MultiRedeem {
        token_in: Some(USDC_WETH_V2),
        tokens_out: vec![USDC, WETH],
        amount_in: Amount::Value(lp),
        primary: USDC_WETH_V2,
        receiver: None,
    })];
    let b = engine.bundle(request(RoutingStrategy::Delegate, actions)).await.expect("redeem");
    let setup = SimSetup {
        funds: vec![(USER, USDC_WETH_V2, lp)],
        approvals: b.approvals.clone(),
        delegations: vec![(USER, world.shortcuts.delegate.expect("delegate"))],
        watch: vec![(USER, USDC), (USER, WETH), (USER, USDC_WETH_V2)],
        ..SimSetup::default()
    };
    let out = simulate(&world, &b.tx, &setup).expect("executes again");
    assert_eq!(out.gains[0], b.amounts_out.get(&USDC).copied());
    assert_eq!(out.gains[1], b.amounts_out.get(&WETH).copied());
    assert_eq!(out.after[2], U256::ZERO, "every LP token burnt");
    shutdown.stop();
    let _ = std::fs::remove_dir_all(&dir);
}

const BALANCER_VAULT: Address = address!("ba12222222228d8ba445958a75a0704d566bf2c8");
/// Balancer's 50/50 WBTC/WETH weighted pool, its own BPT.
const B_WBTC_WETH: Address = address!("a6f548df93de924d73be7d25dc02554c6bd66db5");

/// Balancer joins and exits in bundles: a `deposit` of one coin named by
/// the Vault (the pool as `tokenOut`), a `multideposit` of both coins
/// named by the pool, then (delegate) a `redeem` into one coin and a
/// `multiredeem` into both; every amount exact on the published pool and
/// Vault, the executor left with nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bundles_join_and_exit_a_balancer_pool() {
    let Chain1 { dir, engine, shutdown, world, executor, .. } = chain1("balancer-lp");
    let bal = |kind| Action { protocol: "balancer-v2".into(), kind };
    let (wbtc, weth) = (U256::from(10_000_000u64), U256::from(3u128 * 10u128.pow(18)));
    let actions = vec![
        bal(ActionKind::Deposit {
            token_in: WBTC,
            token_out: Some(B_WBTC_WETH),
            amount_in: Amount::Value(wbtc),
            primary: BALANCER_VAULT,
            receiver: None,
        }),
        bal(ActionKind::MultiDeposit {
            tokens_in: vec![WETH, WBTC],
            amounts_in: vec![Amount::Value(weth), Amount::Value(wbtc)],
            token_out: None,
            primary: B_WBTC_WETH,
            receiver: None,
        }),
    ];
    let b = engine.bundle(request(RoutingStrategy::Router, actions)).await.expect("joins");
    let minted = *b.amounts_out.get(&B_WBTC_WETH).expect("the pool's BPT");
    let setup = SimSetup {
        funds: vec![(USER, WBTC, wbtc + wbtc), (USER, WETH, weth)],
        approvals: b.approvals.clone(),
        watch: vec![
            (USER, B_WBTC_WETH),
            (executor, WBTC),
            (executor, WETH),
            (executor, B_WBTC_WETH),
        ],
        ..SimSetup::default()
    };
    let out = simulate(&world, &b.tx, &setup).expect("executes again");
    assert_eq!(out.gains[0], Some(minted), "exactly the BPT answered");
    // Into a pool of 25.26 WBTC, 800 WETH and 284.33 BPT: 0.1 WBTC alone
    // (0.40% of one half: about 0.56 BPT), then 3 WETH with 0.1 WBTC
    // (0.375% and 0.40%: about 1.10 BPT).
    assert!(minted > U256::from(1_650_000_000_000_000_000u128), "{minted}");
    assert!(minted < U256::from(1_665_000_000_000_000_000u128), "{minted}");
    for k in 1..4 {
        assert_eq!(out.after[k], U256::ZERO, "the executor keeps nothing: {:?}", setup.watch[k]);
    }

    // Delegate: BPT out into WETH alone, then into both coins.
    let bpt = U256::from(10u128.pow(18));
    let actions = vec![
        bal(ActionKind::Redeem {
            token_in: Some(B_WBTC_WETH),
            token_out: WETH,
            amount_in: Amount::Value(bpt),
            primary: BALANCER_VAULT,
            receiver: None,
        }),
        bal(ActionKind::MultiRedeem {
            token_in: None,
            tokens_out: vec![WETH, WBTC],
            amount_in: Amount::Value(bpt),
            primary: B_WBTC_WETH,
            receiver: None,
        }),
    ];
    let b = engine.bundle(request(RoutingStrategy::Delegate, actions)).await.expect("exits");
    let setup = SimSetup {
        funds: vec![(USER, B_WBTC_WETH, bpt + bpt)],
        approvals: b.approvals.clone(),
        delegations: vec![(USER, world.shortcuts.delegate.expect("delegate"))],
        watch: vec![(USER, WETH), (USER, WBTC), (USER, B_WBTC_WETH)],
        ..SimSetup::default()
    };
    let out = simulate(&world, &b.tx, &setup).expect("executes again");
    assert_eq!(out.gains[0], b.amounts_out.get(&WETH).copied());
    assert_eq!(out.gains[1], b.amounts_out.get(&WBTC).copied());
    assert_eq!(out.after[2], U256::ZERO, "every BPT burnt");
    // One BPT of 284.33 is about 5.6 WETH alone (a single-coin exit of a
    // 50/50 pool, less the fee), and 2.81 WETH with 0.0888 WBTC in
    // proportion.
    let weth_out = b.amounts_out.get(&WETH).copied().unwrap_or_default();
    assert!(weth_out > U256::from(8_300_000_000_000_000_000u128), "{weth_out}");
    assert!(weth_out < U256::from(8_500_000_000_000_000_000u128), "{weth_out}");
    shutdown.stop();
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bundles_pull_tokens_with_a_permit2_signature() {
    let dir = temp_dir("permit2");
    let (engine, shutdown) =
        Engine::start(EngineConfig { data_dir: dir.clone(), ..EngineConfig::default() })
            .expect("engine starts");
    let state = engine.state();
    let world = state.world.as_ref().expect("world").chain(ChainId(1)).expect("chain 1").clone();
    let owner_key = k256::ecdsa::SigningKey::from_slice(&[0x11; 32]).expect("key");
    let owner = address_of(&owner_key);
    let amount = U256::from(1_000_000_000u64);
    let (nonce, deadline) = (U256::from(7u8), U256::from(u64::MAX));
    let permit = PermitTransferFrom {
        permitted: TokenPermissions { token: USDC, amount },
        spender: USER,
        nonce,
        deadline,
    };
    let actions = |signature: Vec<u8>| {
        vec![
            Action {
                protocol: "erc20".into(),
                kind: ActionKind::PermitTransferFrom {
                    permitted: vec![(USDC, amount)],
                    sender: owner,
                    receiver: USER,
                    nonce,
                    deadline,
                    signature: signature.into(),
                },
            },
            route(USDC, WETH, Amount::Output { action: 0, index: 0 }),
        ]
    };
    let b = engine
        .bundle(request(RoutingStrategy::Delegate, actions(sign_permit(&owner_key, &permit))))
        .await
        .expect("a permit signed by the owner");
    let weth = *b.amounts_out.get(&WETH).expect("WETH out");
    // The owner approves Permit2, never the account or an executor.
    assert!(
        b.approvals.iter().any(|a| a.owner == owner
            && a.token == USDC
            && a.spender == switchyard_engine::evm::world::PERMIT2),
        "{:?}",
        b.approvals
    );
    let setup = SimSetup {
        funds: vec![(owner, USDC, amount)],
        approvals: b.approvals.clone(),
        delegations: vec![(USER, world.shortcuts.delegate.expect("delegate"))],
        watch: vec![(USER, WETH), (owner, USDC)],
        ..SimSetup::default()
    };
    let out = simulate(&world, &b.tx, &setup).expect("executes again");
    assert_eq!(out.gains[0], Some(weth), "the route delivers what was quoted");
    assert_eq!(out.after[1], U256::ZERO, "the owner's USDC moved");

    // Signed by someone else: the execution before answering fails.
    let other = k256::ecdsa::SigningKey::from_slice(&[0x22; 32]).expect("key");
    let e = engine
        .bundle(request(RoutingStrategy::Delegate, actions(sign_permit(&other, &permit))))
        .await
        .expect_err("another signer");
    eprintln!("another signer: {e:?}");
    // Through the shared executor, a permit could be replayed by anyone.
    let e = engine
        .bundle(request(RoutingStrategy::Router, actions(sign_permit(&owner_key, &permit))))
        .await
        .expect_err("router");
    assert!(format!("{e:?}").contains("sender"), "{e:?}");

    // A batch permit: USDC and WETH under one signature, both into the
    // account and on to a route each; Permit2's batch overload moves
    // exactly what was signed.
    let weth_amount = U256::from(10u128.pow(18));
    let batch = PermitBatchTransferFrom {
        permitted: vec![
            TokenPermissions { token: USDC, amount },
            TokenPermissions { token: WETH, amount: weth_amount },
        ],
        spender: USER,
        nonce: U256::from(8u8),
        deadline,
    };
    let batch_actions = |signature: Vec<u8>| {
        vec![
            Action {
                protocol: "erc20".into(),
                kind: ActionKind::PermitTransferFrom {
                    permitted: vec![(USDC, amount), (WETH, weth_amount)],
                    sender: owner,
                    receiver: USER,
                    nonce: U256::from(8u8),
                    deadline,
                    signature: signature.into(),
                },
            },
            route(USDC, DAI, Amount::Output { action: 0, index: 0 }),
            route(WETH, DAI, Amount::Output { action: 0, index: 1 }),
        ]
    };
    let b = engine
        .bundle(request(RoutingStrategy::Delegate, batch_actions(sign_permit(&owner_key, &batch))))
        .await
        .expect("a batch permit");
    let dai = *b.amounts_out.get(&DAI).expect("DAI out");
    for token in [USDC, WETH] {
        assert!(
            b.approvals.iter().any(|a| a.owner == owner
                && a.token == token
                && a.spender == switchyard_engine::evm::world::PERMIT2),
            "{token}: {:?}",
            b.approvals
        );
    }
    let setup = SimSetup {
        funds: vec![(owner, USDC, amount), (owner, WETH, weth_amount)],
        approvals: b.approvals.clone(),
        delegations: vec![(USER, world.shortcuts.delegate.expect("delegate"))],
        watch: vec![(USER, DAI), (owner, USDC), (owner, WETH)],
        ..SimSetup::default()
    };
    let out = simulate(&world, &b.tx, &setup).expect("executes again");
    assert_eq!(out.gains[0], Some(dai), "both routes deliver what was quoted");
    assert_eq!((out.after[1], out.after[2]), (U256::ZERO, U256::ZERO), "both coins moved");
    // The single-token signature does not sign a batch: Permit2 reverts
    // (the executor reports which command, not the inner custom error).
    let e = engine
        .bundle(request(RoutingStrategy::Delegate, batch_actions(sign_permit(&owner_key, &permit))))
        .await
        .expect_err("the wrong struct signed");
    assert!(
        format!("{e:?}").contains("target: 0x000000000022d473030f116ddee9f6b43ac78ba3"),
        "{e:?}"
    );
    shutdown.stop();
    let _ = std::fs::remove_dir_all(&dir);
}

/// Uniswap V3's `NonfungiblePositionManager` (published bytecode).
const V3_POSITIONS: Address = address!("c36442b4a4522e871399cd717abdd847ab11fe88");
/// Uniswap V3 USDC/WETH 0.05% (USDC is token0), current tick 196256 in
/// the embedded market.
const USDC_WETH_V3: Address = address!("88e6a0c2ddd26feeb64f039a2c41296fcb3f5640");

/// Concentrated-liquidity positions through Uniswap V3's published
/// `NonfungiblePositionManager`, minted straight to the user: one around
/// the current price (both coins, one of them limiting), one wholly above
/// it (USDC only), then a route through the same pool, priced on the
/// liquidity the first position added. What each pool took, the
/// positions, and the route's output are held to execution to the wei;
/// what the pool did not take comes back, and the executor keeps nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bundles_mint_uniswap_v3_positions_through_the_position_manager() {
    let Chain1 { dir, engine, shutdown, world, executor, .. } = chain1("v3-positions");
    let clmm = |tokens: [Address; 2], amounts: [U256; 2], ticks| Action {
        protocol: "uniswap-v3".into(),
        kind: ActionKind::DepositClmm {
            tokens_in: tokens.to_vec(),
            amounts_in: amounts.map(Amount::Value).to_vec(),
            token_out: V3_POSITIONS,
            ticks,
            fee: Some(500),
            tick_spacing: None,
            receiver: None,
        },
    };
    let (usdc, weth) = (U256::from(1_000_000_000u64), U256::from(4u128 * 10u128.pow(17)));
    let above = U256::from(500_000_000u64);
    let swap = U256::from(100_000_000u64);
    let actions = vec![
        clmm([WETH, USDC], [weth, usdc], (196_000, 196_500)),
        clmm([USDC, WETH], [above, U256::ZERO], (197_000, 198_000)),
        route(USDC, WETH, Amount::Value(swap)),
    ];
    let b = engine.bundle(request(RoutingStrategy::Router, actions)).await.expect("positions");
    assert_eq!(b.amounts_out.get(&V3_POSITIONS), Some(&U256::from(2)), "{:?}", b.amounts_out);
    let setup = SimSetup {
        funds: vec![(USER, USDC, usdc + above + swap), (USER, WETH, weth)],
        approvals: b.approvals.clone(),
        watch: vec![
            (USER, V3_POSITIONS),
            (USER, WETH),
            (USER, USDC),
            (USDC_WETH_V3, USDC),
            (USDC_WETH_V3, WETH),
            (executor, USDC),
            (executor, WETH),
        ],
        ..SimSetup::default()
    };
    let out = simulate(&world, &b.tx, &setup).expect("executes again");
    assert_eq!(out.gains[0], Some(U256::from(2)), "two positions, owned by the user");
    // The pool took the whole of the position above the price in USDC,
    // and of the one around it as much as the limiting coin allows; the
    // route's USDC went in too.
    let took_usdc = out.after[3] - out.before[3];
    assert!(took_usdc > above + swap && took_usdc <= usdc + above + swap, "{took_usdc}");
    let spent_weth = out.before[1] - out.after[1];
    assert!(spent_weth > U256::ZERO && spent_weth <= weth, "{spent_weth}");
    assert_eq!(out.after[5], U256::ZERO, "the executor keeps no USDC");
    assert_eq!(out.after[6], U256::ZERO, "the executor keeps no WETH");

    // Ticks off the pool's spacing, a range the wrong way round, a fee tier
    // the market has no pool at: refused, naming the field.
    for (ticks, fee, field) in [
        ((196_001, 196_500), Some(500), "ticks"),
        ((196_500, 196_000), Some(500), "ticks"),
        ((196_000, 196_500), Some(10_000), "poolFee"),
    ] {
        let mut a = clmm([WETH, USDC], [weth, usdc], ticks);
        if let ActionKind::DepositClmm { fee: f, .. } = &mut a.kind {
            *f = fee;
        }
        let e = engine.bundle(request(RoutingStrategy::Router, vec![a])).await.expect_err(field);
        assert!(format!("{e:?}").contains(field), "{field}: {e:?}");
    }
    shutdown.stop();
    let _ = std::fs::remove_dir_all(&dir);
}

/// A position of `USER` in the USDC/WETH 0.05% pool, as a node would
/// report it, and the bundle action redeeming `liquidity` of it.
fn held_position(liquidity: u128) -> switchyard_engine::evm::clmm::HeldPosition {
    switchyard_engine::evm::clmm::HeldPosition {
        manager: V3_POSITIONS,
        token_id: U256::from(987_654u64),
        owner: USER,
        tokens: [USDC, WETH],
        fee: 500,
        ticks: (195_000, 197_500),
        liquidity,
    }
}

fn redeem_clmm(liquidity: u128, tokens_out: [Address; 2], receiver: Option<Address>) -> Action {
    Action {
        protocol: "uniswap-v3".into(),
        kind: ActionKind::RedeemClmm {
            manager: V3_POSITIONS,
            token_id: U256::from(987_654u64),
            liquidity: Amount::Value(U256::from(liquidity)),
            tokens_out: tokens_out.to_vec(),
            receiver,
        },
    }
}

/// `redeemclmm`: part of a user's position (read from the chain, put in
/// place in the world through the manager's own `mint`) comes out through
/// `decreaseLiquidity` and `collect`, to the wei the kernel's burn math
/// says, for the router (the position token taken in and handed back) and
/// the delegate; the pool is locked after, so a route in the same bundle
/// goes around it; a position the node did not report, someone else's, or
/// more liquidity than it holds is refused naming the field.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bundles_redeem_part_of_a_uniswap_v3_position() {
    use switchyard_engine::{
        bundle::PositionRead,
        evm::abi::UniswapV3PositionManager as Npm,
        simulate::{prepare, run_prepared},
    };
    let Chain1 { dir, engine, shutdown, state, world, executor } = chain1("v3-redeem");
    let total: u128 = 10u128.pow(15);
    let held = held_position(total);
    let read =
        vec![PositionRead { manager: V3_POSITIONS, token_id: held.token_id, read: Ok(held) }];
    let pool = state
        .snapshot
        .pools()
        .iter()
        .find(|p| p.address == USDC_WETH_V3)
        .expect("the USDC/WETH 0.05% pool");
    let burn = pool.v3_burn(&pool.state, held.ticks, total / 2).expect("burn math");
    assert!(burn.owed.iter().all(|x| !x.is_zero()), "the range holds the price: {:?}", burn.owed);
    for strategy in [RoutingStrategy::Router, RoutingStrategy::Delegate] {
        let swap = U256::from(50_000_000u64);
        let actions = vec![
            redeem_clmm(total / 2, [WETH, USDC], None),
            route(USDC, WETH, Amount::Value(swap)),
        ];
        let req = BundleRequest { positions: read.clone(), ..request(strategy, actions) };
        let b = engine.bundle(req).await.unwrap_or_else(|e| panic!("{strategy:?}: {e:?}"));
        if strategy == RoutingStrategy::Router {
            // The position token is approved to the router, never the
            // executor: ERC-721 `approve(router, id)`.
            let router = world.shortcuts.router.expect("router").0;
            assert!(
                b.approvals.iter().any(|a| a.token == V3_POSITIONS
                    && a.spender == router
                    && a.amount == held.token_id
                    && a.nft),
                "{:?}",
                b.approvals
            );
            assert_eq!(b.tx.to, router);
        }
        let setup = SimSetup {
            funds: vec![(USER, USDC, swap)],
            approvals: b.approvals.clone(),
            delegations: match strategy {
                RoutingStrategy::Delegate => {
                    vec![(USER, world.shortcuts.delegate.expect("delegate"))]
                }
                _ => Vec::new(),
            },
            watch: vec![(USER, USDC), (USER, WETH), (USER, V3_POSITIONS), (executor, WETH)],
            positions: vec![held],
            ..SimSetup::default()
        };
        let mut evm = world.fork();
        prepare(&world, &mut evm, &setup).expect("the position in place");
        let out = run_prepared(&mut evm, &b.tx, &setup.watch).expect("executes again");
        // USDC: what the burn owed, less what the route spent; WETH: what it
        // owed, plus what the route bought.
        let usdc_now = out.after[0];
        assert_eq!(usdc_now, out.before[0] + burn.owed[0] - swap, "{strategy:?}");
        let bought = out.gains[1].expect("WETH gained") - burn.owed[1];
        assert!(bought > U256::ZERO, "{strategy:?}: the route bought WETH");
        assert_eq!(b.amounts_out.get(&WETH), Some(&(burn.owed[1] + bought)), "{strategy:?}");
        assert_eq!(
            out.after[2],
            U256::from(1),
            "{strategy:?}: the position is back with its owner"
        );
        assert_eq!(out.after[3], U256::ZERO, "{strategy:?}: the executor keeps nothing");
        let left = evm.view(V3_POSITIONS, &Npm::positionsCall { tokenId: held.token_id });
        let left = left.expect("positions");
        assert_eq!(left.liquidity, total - total / 2, "{strategy:?}: half is left");
        assert_eq!((left.tokensOwed0, left.tokensOwed1), (0, 0), "{strategy:?}: collected whole");
    }

    // Through the sender's Enso wallet: the factory takes the position
    // token in (approved to the factory), the wallet redeems it and keeps
    // the coins, and hands the token back.
    let req = BundleRequest {
        positions: read.clone(),
        ..request(RoutingStrategy::EnsoWalletV2, vec![redeem_clmm(total / 2, [USDC, WETH], None)])
    };
    let b = engine.bundle(req).await.expect("through the wallet");
    let wallet = switchyard_engine::wallet::holder(&world, USER, false);
    let factory = world.shortcuts.wallet_factory.expect("wallet factory").0;
    assert!(
        b.approvals.iter().any(|a| a.token == V3_POSITIONS && a.spender == factory && a.nft),
        "{:?}",
        b.approvals
    );
    let setup = SimSetup {
        approvals: b.approvals.clone(),
        watch: vec![(wallet, USDC), (wallet, WETH), (USER, V3_POSITIONS)],
        positions: vec![held],
        ..SimSetup::default()
    };
    let out = simulate(&world, &b.tx, &setup).expect("executes again");
    assert_eq!(out.gains[..2], [Some(burn.owed[0]), Some(burn.owed[1])]);
    assert_eq!(out.after[2], U256::from(1), "the position is back with its owner");

    // A delegated account spending its spender's position: the token is
    // pulled in (`transferFrom`, approved to the account), redeemed, and
    // handed back to its owner; the coins stay with the account.
    let account = Address::repeat_byte(0xac);
    let req = BundleRequest {
        positions: read.clone(),
        from: account,
        spender: Some(USER),
        ..request(RoutingStrategy::Delegate, vec![redeem_clmm(total / 4, [USDC, WETH], None)])
    };
    let b = engine.bundle(req).await.expect("a spender's position");
    assert!(
        b.approvals
            .iter()
            .any(|a| a.token == V3_POSITIONS && a.spender == account && a.owner == USER && a.nft),
        "{:?}",
        b.approvals
    );
    let quarter = pool.v3_burn(&pool.state, held.ticks, total / 4).expect("burn math");
    let setup = SimSetup {
        approvals: b.approvals.clone(),
        delegations: vec![(account, world.shortcuts.delegate.expect("delegate"))],
        watch: vec![(account, USDC), (account, WETH), (USER, V3_POSITIONS)],
        positions: vec![held],
        ..SimSetup::default()
    };
    let out = simulate(&world, &b.tx, &setup).expect("executes again");
    assert_eq!(out.gains[..2], [Some(quarter.owed[0]), Some(quarter.owed[1])]);
    assert_eq!(out.after[2], U256::from(1), "the position is back with its owner");

    // To a receiver: both coins go to it, to the wei.
    let bob = Address::repeat_byte(0xb0);
    let req = BundleRequest {
        positions: read.clone(),
        ..request(RoutingStrategy::Router, vec![redeem_clmm(total, [USDC, WETH], Some(bob))])
    };
    let b = engine.bundle(req).await.expect("to a receiver");
    let whole = pool.v3_burn(&pool.state, held.ticks, total).expect("burn math");
    let setup = SimSetup {
        approvals: b.approvals.clone(),
        watch: vec![(bob, USDC), (bob, WETH), (USER, V3_POSITIONS)],
        positions: vec![held],
        ..SimSetup::default()
    };
    let out = simulate(&world, &b.tx, &setup).expect("executes again");
    assert_eq!(out.gains[..2], [Some(whole.owed[0]), Some(whole.owed[1])]);
    assert_eq!(out.after[2], U256::from(1), "the emptied position is back with its owner");

    // Refused, naming the field: no node reported the position; it is
    // someone else's; more liquidity than it holds; a token of another pool;
    // the same position twice.
    let other = Address::repeat_byte(0x42);
    let cases = [
        (Vec::new(), redeem_clmm(1_000, [USDC, WETH], None), "tokenId"),
        (
            vec![PositionRead {
                read: Ok(switchyard_engine::evm::clmm::HeldPosition { owner: other, ..held }),
                ..read[0].clone()
            }],
            redeem_clmm(1_000, [USDC, WETH], None),
            "tokenId",
        ),
        (read.clone(), redeem_clmm(total + 1, [USDC, WETH], None), "liquidity"),
        (read.clone(), redeem_clmm(1_000, [USDC, DAI], None), "tokenOut"),
    ];
    let cases = cases.into_iter().map(|(p, a, f)| (p, vec![a], f)).chain([(
        read.clone(),
        vec![redeem_clmm(1_000, [USDC, WETH], None), redeem_clmm(1_000, [USDC, WETH], None)],
        "body[1].args.tokenId",
    )]);
    for (positions, actions, field) in cases {
        let req = BundleRequest { positions, ..request(RoutingStrategy::Router, actions) };
        let e = engine.bundle(req).await.expect_err(field);
        assert!(format!("{e:?}").contains(field), "{field}: {e:?}");
    }
    shutdown.stop();
    let _ = std::fs::remove_dir_all(&dir);
}

/// Enso's flash-loan router adapter on Ethereum.
const FLASHLOAN_ADAPTER: Address = address!("66a6da113aee7cc1682e41599ffc2d2f492fab88");

/// A flash loan of `amount` USDC from `protocol`'s lender (`primary`, when
/// named), `brought` USDC besides, `callback` run with it, the USDC left
/// after staying in the account.
fn usdc_loan(
    protocol: &str,
    primary: Option<Address>,
    (amount, brought): (U256, U256),
    callback: Vec<Action>,
) -> Action {
    Action {
        protocol: protocol.into(),
        kind: ActionKind::Flashloan {
            loans: vec![(USDC, amount)],
            tokens_in: vec![USDC],
            amounts_in: vec![Amount::Value(brought)],
            tokens_out: vec![USDC],
            primary,
            receiver: None,
            callback,
        },
    }
}

/// `amount` of USDC sold for WETH and the WETH sold back, the second route
/// spending the first's output by the callback's own index.
fn usdc_round_trip(amount: U256) -> Vec<Action> {
    vec![
        route(USDC, WETH, Amount::Value(amount)),
        route(WETH, USDC, Amount::Output { action: 0, index: 0 }),
    ]
}

/// Funding with `brought` USDC, `b`'s approvals, and watching the user's
/// USDC, the adapter's USDC, the executor's USDC and WETH, then `lender`'s
/// balances.
fn loan_setup(
    b: &BundleTx,
    brought: U256,
    executor: Address,
    lender: &[(Address, Address)],
) -> SimSetup {
    let mut watch =
        vec![(USER, USDC), (FLASHLOAN_ADAPTER, USDC), (executor, USDC), (executor, WETH)];
    watch.extend_from_slice(lender);
    SimSetup {
        funds: vec![(USER, USDC, brought)],
        approvals: b.approvals.clone(),
        watch,
        ..SimSetup::default()
    }
}

/// The error of a bundle of `loan` alone, refused before answering.
async fn refused_loan(
    engine: &switchyard_engine::EngineHandle,
    strategy: RoutingStrategy,
    loan: Action,
) -> String {
    let e = engine.bundle(request(strategy, vec![loan])).await.expect_err("refused");
    format!("{e:?}")
}

/// Uniswap V3's factory on Ethereum, which Enso's adapter trusts.
const V3_FACTORY: Address = address!("1f98431c8ad98523631ae4a59f267346ea31f984");

/// A flash loan from a Uniswap V3 pool through Enso's router adapter:
/// 1,000.000001 USDC borrowed from the USDC/WETH 0.05% pool, sold for WETH
/// and back elsewhere (the lending pool is locked until paid, so the
/// routes avoid it), the loan and the pool's fee, rounded up, paid back
/// from that and the 50 USDC the caller brings. The pool gains exactly
/// the fee and no WETH; the adapter and the executor keep nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bundles_borrow_a_flash_loan_from_a_uniswap_v3_pool() {
    let Chain1 { dir, engine, shutdown, world, executor, .. } = chain1("v3-flash");
    let (loan, brought) = (U256::from(1_000_000_001u64), U256::from(50_000_000u64));
    let loan_of = |primary: Option<Address>, amount: U256, callback: Vec<Action>| {
        usdc_loan("uniswap-v3", primary, (amount, brought), callback)
    };
    let round_trip = usdc_round_trip(loan);
    let b = engine
        .bundle(request(
            RoutingStrategy::Router,
            vec![loan_of(Some(USDC_WETH_V3), loan, round_trip.clone())],
        ))
        .await
        .expect("a flash loan");
    let setup = loan_setup(&b, brought, executor, &[(USDC_WETH_V3, USDC), (USDC_WETH_V3, WETH)]);
    let out = simulate(&world, &b.tx, &setup).expect("executes again");
    // 0.05% of 1,000,000,001 units is 500,000.0005: rounded up.
    let fee = U256::from(500_001u64);
    assert_eq!(out.after[4] - out.before[4], fee, "the pool gains its fee, rounded up");
    assert_eq!(out.after[5], out.before[5], "no route went through the locked pool");
    let back = out.after[0];
    assert!(back > U256::from(40_000_000u64) && back < brought, "{back}");
    for k in 1..4 {
        assert_eq!(out.after[k], U256::ZERO, "{:?} keeps nothing", setup.watch[k]);
    }
    // Naming the factory leaves the pool to the search: the pool holding
    // the most USDC (the USDC/USDT 0.01% one), which executes too.
    let by_factory = loan_of(Some(V3_FACTORY), loan, round_trip.clone());
    let b = engine
        .bundle(request(RoutingStrategy::Router, vec![by_factory]))
        .await
        .expect("the factory named");
    simulate(&world, &b.tx, &setup).expect("executes");
    // That pool with its feed stale: the search leaves it out, and naming
    // it is refused by name.
    let usdc_usdt = address!("3416cf6c708da44db2624d63ea0aaef7113527c6");
    let state = engine.state();
    let k = state
        .snapshot
        .pools()
        .iter()
        .position(|p| p.address == usdc_usdt && &*p.protocol == "uniswap-v3")
        .expect("the USDC/USDT pool");
    let mut stale = (*state).clone();
    stale.stale.insert(u32::try_from(k).expect("index"));
    let templates =
        switchyard_engine::bundle::Templates::new(std::sync::Arc::clone(&stale.catalog));
    let compile = |primary: Address| {
        let req = request(
            RoutingStrategy::Router,
            vec![loan_of(Some(primary), loan, round_trip.clone())],
        );
        switchyard_engine::bundle::compile_and_prove(&stale, &templates, &req)
    };
    let b = compile(V3_FACTORY).expect("another pool lends");
    let watched = SimSetup { watch: vec![(usdc_usdt, USDC)], ..setup.clone() };
    let out = simulate(&world, &b.tx, &watched).expect("executes");
    assert_eq!(out.after[0], out.before[0], "the stale pool lent");
    match compile(usdc_usdt) {
        Err(switchyard_engine::ExecError::Bundle(e)) => {
            assert!(
                e.at.ends_with("primaryAddress") && e.message.contains("no EVM fixture"),
                "{e:?}"
            );
        }
        other => panic!("the stale pool was named and lent: {:?}", other.map(|b| b.amounts_out)),
    }

    let refused = async |loan: Action| refused_loan(&engine, RoutingStrategy::Router, loan).await;
    // Short by the fee: says what is owed.
    let kept = vec![route(USDC, WETH, Amount::Value(loan))];
    let e = refused(loan_of(Some(USDC_WETH_V3), loan, kept)).await;
    assert!(e.contains("1000500002 of 0xa0b8"), "{e}");
    // Not a pool; more than the pool holds; a position in the lending pool
    // from the loan's own program (the pool is locked): named.
    let e = refused(loan_of(Some(WETH), loan, round_trip.clone())).await;
    assert!(e.contains("primaryAddress"), "{e}");
    let huge = loan_of(Some(USDC_WETH_V3), U256::from(10u128.pow(30)), round_trip);
    assert!(refused(huge).await.contains("flashloanAmount"));
    let into_lender = vec![Action {
        protocol: "uniswap-v3".into(),
        kind: ActionKind::DepositClmm {
            tokens_in: vec![USDC, WETH],
            amounts_in: vec![Amount::Value(loan), Amount::Value(U256::ZERO)],
            token_out: V3_POSITIONS,
            ticks: (197_000, 198_000),
            fee: Some(500),
            tick_spacing: None,
            receiver: None,
        },
    }];
    let e = refused(loan_of(Some(USDC_WETH_V3), loan, into_lender)).await;
    assert!(e.contains("locked"), "{e}");

    // Both coins at once: 1,000 USDC and 0.5 WETH, the pool's fee on each
    // brought by the caller and paid back with the loans; the pool gains
    // exactly the two fees.
    let weth_loan = U256::from(5u128 * 10u128.pow(17));
    let (usdc_fee, weth_fee) = (U256::from(500_000u64), U256::from(250_000_000_000_000u64));
    let both = Action {
        protocol: "uniswap-v3".into(),
        kind: ActionKind::Flashloan {
            loans: vec![(USDC, U256::from(1_000_000_000u64)), (WETH, weth_loan)],
            tokens_in: vec![USDC, WETH],
            amounts_in: vec![Amount::Value(usdc_fee), Amount::Value(weth_fee)],
            tokens_out: vec![USDC, WETH],
            primary: Some(USDC_WETH_V3),
            receiver: None,
            callback: vec![enso(ActionKind::Balance {
                token: WETH,
                account: None,
                estimate: None,
            })],
        },
    };
    let b = engine
        .bundle(request(RoutingStrategy::Router, vec![both.clone()]))
        .await
        .expect("both coins");
    let setup = SimSetup {
        funds: vec![(USER, USDC, usdc_fee), (USER, WETH, weth_fee)],
        approvals: b.approvals.clone(),
        watch: vec![(USDC_WETH_V3, USDC), (USDC_WETH_V3, WETH), (executor, USDC), (executor, WETH)],
        ..SimSetup::default()
    };
    let out = simulate(&world, &b.tx, &setup).expect("executes again");
    assert_eq!(out.after[0] - out.before[0], usdc_fee, "the USDC fee");
    assert_eq!(out.after[1] - out.before[1], weth_fee, "the WETH fee");
    assert_eq!((out.after[2], out.after[3]), (U256::ZERO, U256::ZERO));
    // A coin the pool does not hold, and two tokens from Aave: named.
    let mut stray = both.clone();
    if let ActionKind::Flashloan { loans, .. } = &mut stray.kind {
        loans[1].0 = address!("dac17f958d2ee523a2206206994597c13d831ec7");
    }
    assert!(refused(stray).await.contains("primaryAddress"));
    let mut from_aave = both;
    from_aave.protocol = "aave-v3".into();
    if let ActionKind::Flashloan { primary, .. } = &mut from_aave.kind {
        *primary = None;
    }
    let e = refused(from_aave).await;
    assert!(e.contains("flashloanToken") && e.contains("one token"), "{e}");
    shutdown.stop();
    let _ = std::fs::remove_dir_all(&dir);
}
/// A flash loan from Aave V3 through Enso's router adapter: 1,000 USDC
/// borrowed, sold for WETH and the WETH sold back in the loan's own
/// program (its second route spends the first's output by the callback's
/// own index), the loan and Aave's 0.05% premium paid back from that and
/// the 50 USDC the caller brings, and the rest handed to the caller. The
/// adapter and the executor keep nothing; Aave's reserve gains exactly
/// the premium.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bundles_borrow_a_flash_loan_from_aave_through_the_router_adapter() {
    let Chain1 { dir, engine, shutdown, state, world, executor } = chain1("flashloan");
    let (loan, brought) = (U256::from(1_000_000_000u64), U256::from(50_000_000u64));
    // `amount` of USDC borrowed, `brought` besides, `callback` run with it.
    let loan_of = |amount: U256, brought: U256, callback: Vec<Action>| {
        usdc_loan("aave-v3", None, (amount, brought), callback)
    };
    let flashloan = |callback| loan_of(loan, brought, callback);
    let round_trip = usdc_round_trip(loan);
    let b = engine
        .bundle(request(RoutingStrategy::Router, vec![flashloan(round_trip.clone())]))
        .await
        .expect("a flash loan");
    let a_usdc = state
        .snapshot
        .pools()
        .iter()
        .find(|p| {
            p.address == AAVE_POOL
                && p.tokens[0] == USDC
                && matches!(p.state, switchyard_kernel::PoolState::Lending(_))
        })
        .map(|p| p.tokens[1])
        .expect("Aave's USDC reserve");
    let setup = loan_setup(&b, brought, executor, &[(a_usdc, USDC)]);
    let out = simulate(&world, &b.tx, &setup).expect("executes again");
    let premium = U256::from(500_000u64); // 0.05% of 1,000 USDC
    assert_eq!(out.after[4] - out.before[4], premium, "Aave's reserve gains the premium");
    // Two 0.05% pools both ways on $1,000, and the premium: the caller
    // gets back most of the 50 USDC.
    let back = out.after[0];
    assert!(back > U256::from(45_000_000u64) && back < brought, "{back}");
    assert_eq!(b.amounts_out.get(&USDC), None, "the caller gets back less than it brought");
    for k in 1..4 {
        assert_eq!(out.after[k], U256::ZERO, "{:?} keeps nothing", setup.watch[k]);
    }

    // Refused before answering: what each error says.
    let refused = async |strategy, loan: Action| refused_loan(&engine, strategy, loan).await;
    // A program that keeps the loan's WETH, and one that cannot pay the
    // premium: each says what is owed.
    let kept = vec![route(USDC, WETH, Amount::Value(loan))];
    let e = refused(RoutingStrategy::Router, flashloan(kept)).await;
    assert!(e.contains("1000500000 of 0xa0b8"), "{e}");
    let short = loan_of(loan, U256::from(1u8), round_trip.clone());
    let e = refused(RoutingStrategy::Router, short).await;
    assert!(e.contains("body[0]") && e.contains("1000500000 of 0xa0b8"), "{e}");
    // A callback calling what no outer program may: refused, naming it.
    let stray = vec![enso(ActionKind::Call {
        address: address!("000000000000000000000000000000000000dead"),
        method: "ping".into(),
        abi: "function ping()".into(),
        args: Vec::new(),
        value: None,
    })];
    let e = refused(RoutingStrategy::Router, flashloan(stray)).await;
    assert!(e.contains("body[0].args.callback[0]"), "{e}");
    // A loan past what Aave holds, and one run by a delegate: named.
    let huge = loan_of(U256::from(10u128.pow(30)), brought, round_trip.clone());
    let e = refused(RoutingStrategy::Router, huge).await;
    assert!(e.contains("flashloanAmount"), "{e}");
    let e = refused(RoutingStrategy::Delegate, flashloan(round_trip)).await;
    assert!(e.contains("routingStrategy=router"), "{e}");
    shutdown.stop();
    let _ = std::fs::remove_dir_all(&dir);
}

/// Morpho Blue on Ethereum (its published source, compiled as deployed).
const MORPHO: Address = address!("bbbbbbbbbb9cc5e90e3b3af64bdaf62c37eeffcb");

/// A flash loan from Morpho Blue through Enso's router adapter: 1,000 USDC
/// borrowed for no fee, sold for WETH and back, paid back from that and the
/// 50 USDC brought. Morpho Blue ends holding exactly what it held, the
/// adapter and the executor nothing; the caller gets back all but the two
/// pools' fees and slippage. A loan past what it holds, and two tokens at
/// once, are refused naming the field.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bundles_borrow_a_flash_loan_from_morpho_blue() {
    let Chain1 { dir, engine, shutdown, world, executor, .. } = chain1("morpho-flash");
    let (loan, brought) = (U256::from(1_000_000_000u64), U256::from(50_000_000u64));
    let flashloan = |amount, callback| usdc_loan("morpho-blue", None, (amount, brought), callback);
    let b = engine
        .bundle(request(RoutingStrategy::Router, vec![flashloan(loan, usdc_round_trip(loan))]))
        .await
        .expect("a flash loan from Morpho Blue");
    let setup = loan_setup(&b, brought, executor, &[(MORPHO, USDC)]);
    let out = simulate(&world, &b.tx, &setup).expect("executes again");
    assert_eq!(out.after[4], out.before[4], "Morpho Blue is paid back exactly, for no fee");
    assert!(!out.before[4].is_zero(), "Morpho Blue holds USDC to lend");
    use alloy_sol_types::SolEvent;
    let lent = out.logs.iter().any(|l| {
        l.address == MORPHO
            && switchyard_engine::evm::abi::MorphoBlue::FlashLoan::decode_log_data(&l.data)
                .is_ok_and(|e| e.caller == FLASHLOAN_ADAPTER && e.token == USDC && e.assets == loan)
    });
    assert!(lent, "Morpho Blue's FlashLoan to the adapter");
    let back = out.after[0];
    assert!(back > U256::from(45_000_000u64) && back < brought, "{back}");
    for k in 1..4 {
        assert_eq!(out.after[k], U256::ZERO, "{:?} keeps nothing", setup.watch[k]);
    }
    let refused = async |loan: Action| refused_loan(&engine, RoutingStrategy::Router, loan).await;
    let e = refused(flashloan(out.before[4] + U256::ONE, usdc_round_trip(loan))).await;
    assert!(e.contains("flashloanAmount") && e.contains("Morpho Blue"), "{e}");
    let mut two = flashloan(loan, usdc_round_trip(loan));
    if let ActionKind::Flashloan { loans, .. } = &mut two.kind {
        loans.push((WETH, U256::from(10u128.pow(18))));
    }
    let e = refused(two).await;
    assert!(e.contains("flashloanToken"), "{e}");
    shutdown.stop();
    let _ = std::fs::remove_dir_all(&dir);
}

/// `ensowallet-v2` with `executionMode=backend`: the bundle (swap, route,
/// ERC-4626 deposit, slippage) runs in the sender's ERC-4337 account. Its
/// predictions are checked on the owner's direct run; it is answered as a
/// user operation proven through the EntryPoint to deliver the same. Signed
/// by the sender here, `handleOps` runs it on the EntryPoint's published
/// code in a fresh fork: the account (deployed by the operation) keeps the
/// sDAI answered.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_backend_bundle_is_a_user_operation() {
    use alloy_sol_types::SolCall;
    use switchyard_engine::evm::abi::{AccountFactory, EntryPoint};
    let c = chain1("user-op");
    let accounts = c.world.shortcuts.accounts.clone().expect("accounts on chain 1");
    let key = k256::ecdsa::SigningKey::from_slice(&[0x55; 32]).expect("key");
    let owner = address_of(&key);
    let one = U256::from(10u128.pow(18));
    let actions = weth_to_sdai(one);
    let req = BundleRequest {
        from: owner,
        backend: true,
        ..request(RoutingStrategy::EnsoWalletV2, actions)
    };
    let b = c.engine.bundle(req).await.unwrap_or_else(|e| panic!("{e:?}"));
    let op = b.user_op.clone().expect("a user operation");
    let mut fork = c.world.fork();
    let account = fork
        .view(accounts.factory, &AccountFactory::getAddressCall { account: owner })
        .expect("getAddress");
    assert_eq!(op.sender, account);
    assert_eq!(b.tx.to, accounts.entry_point);
    assert_eq!(
        EntryPoint::handleOpsCall::abi_decode(&b.tx.data).expect("handleOps").ops,
        vec![op.packed()]
    );
    assert_eq!(b.approvals.len(), 1);
    assert_eq!((b.approvals[0].token, b.approvals[0].spender), (WETH, account));
    let sdai = b.amounts_out.get(&SDAI).copied().expect("sDAI out");

    let hash = fork
        .view(accounts.entry_point, &EntryPoint::getUserOpHashCall { userOp: op.packed() })
        .expect("getUserOpHash");
    let mut message = b"\x19Ethereum Signed Message:\n32".to_vec();
    message.extend_from_slice(hash.as_slice());
    let digest = alloy_primitives::keccak256(&message);
    let (sig, recid) = key.sign_prehash_recoverable(digest.as_slice()).expect("signs");
    let mut signature = sig.to_bytes().to_vec();
    signature.push(27 + recid.to_byte());
    let mut signed = op;
    signed.signature = signature.into();
    let bundler = address!("00000000000000000000000000000000000b0b1e");
    let setup = SimSetup {
        funds: vec![(owner, WETH, one)],
        approvals: b.approvals,
        watch: vec![(account, SDAI)],
        ..SimSetup::default()
    };
    let tx = signed.handle_ops(accounts.entry_point, bundler, bundler);
    let out = simulate(&c.world, &tx, &setup).expect("handleOps runs the signed operation");
    assert_eq!(out.gains[0], Some(sdai), "the account keeps the sDAI answered");
    c.shutdown.stop();
    let _ = std::fs::remove_dir_all(&c.dir);
}
