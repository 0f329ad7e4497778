//! End to end: the API's transactions, taken from its JSON answers, executed
//! again in an EVM world this test builds itself from the embedded catalog
//! and market (not the server's).
//!
//! For every route class the embedded catalog supports (single hop,
//! multi-hop, split, several inputs, several outputs, each position kind,
//! each routing strategy, the native coin in and out, a fee, a referral
//! code, a refund receiver, the source leg of a cross-chain route):
//!
//! - the approvals come from `GET /wallet/approve`, are sent as they are,
//!   and never name an executor;
//! - the transaction executes, and the receiver gains exactly `amountOut`
//!   (at least `minAmountOut`);
//! - `ShortcutExecuted(accountId, requestId)` carries the key's account and
//!   the referral code;
//! - a shared executor is left holding nothing.
//!
//! A price that moves between the quote and the execution makes the
//! minimum fail on chain, with the router's decoded `AmountTooLow`.

mod common;

use std::{collections::BTreeSet, sync::Arc};

use alloy_primitives::{Address, B256, Bytes, U256, address, hex};
use alloy_sol_types::{SolCall, SolEvent};
use axum::{
    Router,
    body::Body,
    http::{Request, StatusCode, header},
};
use serde_json::Value;
use switchyard_catalog::{ChainId, NATIVE_TOKEN, loaders};
use switchyard_engine::evm::{
    ForkEvm, NpmArtifacts,
    abi::ShortcutsExecutor,
    world::{ChainWorld, World, legacy_executor},
};
use switchyard_kernel::{MarketSnapshot, derive_prices, usd_anchors};
use tower::ServiceExt;

const USDC: Address = address!("a0b86991c6218b36c1d19d4a2e9eb0ce3606eb48");
const WETH: Address = address!("c02aaa39b223fe8d0a0e5c4f27ead9083c756cc2");
const DAI: Address = address!("6b175474e89094c44da98b954eedeac495271d0f");
const USDT: Address = address!("dac17f958d2ee523a2206206994597c13d831ec7");
const WBTC: Address = address!("2260fac5e5542a773aa44fbcfedf7c193bc2c599");
const SDAI: Address = address!("83f20f44975d03b1b09e64809b757c47f942beea");
const AUSDC: Address = address!("98c23e9d8f34fefb1b7bd6a91b7ff122f4e16f5c");
const CUSDC: Address = address!("39aa39c021dfbae8fac545936693ac917d5e7563");
const STETH: Address = address!("ae7ab96520de3a18e5e111b5eaab095312d7fe84");
const WSTETH: Address = address!("7f39c581f595b53c5cb19bd0b3f8da6c935e2ca0");
const STEAKUSDC: Address = address!("beef01735c132ada46aa9aa4c54623caa92a64cb");
const USER: Address = address!("d8da6bf26964af9d7eed9e03e53415d37aa96045");
const OTHER: Address = address!("00000000000000000000000000000000000b0b01");
const FEE_TO: Address = address!("00000000000000000000000000000000000fee01");
const REFUND_TO: Address = address!("00000000000000000000000000000000000ef00d");
const NATIVE: Address = NATIVE_TOKEN;

/// The world this test executes in, built here from the embedded data.
fn own_world() -> World {
    let catalog = loaders::load_catalog(&[] as &[&str]).expect("catalog");
    let market = loaders::load_market(None, &catalog).expect("market");
    let snapshot = MarketSnapshot::build(&market, &catalog).expect("snapshot");
    let prices = derive_prices(&snapshot, &usd_anchors(&catalog));
    let npm = NpmArtifacts::load(&NpmArtifacts::default_dir())
        .expect("the Uniswap bytecode (scripts/setup.sh installs it)");
    World::build(&catalog, &market, &snapshot, &prices, &npm).expect("world")
}

struct Api {
    app: Router,
    key: String,
}

impl Api {
    /// The app of `env`, with its fast key.
    fn of(env: &common::TestEnv) -> Self {
        Self { app: switchyard_server::app(env.state.clone()), key: env.fast_key.clone() }
    }

    async fn get(&self, path: &str) -> (StatusCode, Value) {
        let req = Request::get(path)
            .header(header::AUTHORIZATION, format!("Bearer {}", self.key))
            .body(Body::empty())
            .expect("request");
        self.send(req).await
    }

    async fn post(&self, path: &str, body: &Value) -> (StatusCode, Value) {
        let req = Request::post(path)
            .header(header::AUTHORIZATION, format!("Bearer {}", self.key))
            .header(header::CONTENT_TYPE, "application/json")
            .body(Body::from(body.to_string()))
            .expect("request");
        self.send(req).await
    }

    async fn send(&self, req: Request<Body>) -> (StatusCode, Value) {
        let res = self.app.clone().oneshot(req).await.expect("service");
        let status = res.status();
        let bytes = axum::body::to_bytes(res.into_body(), 1 << 24).await.expect("body");
        (status, serde_json::from_slice(&bytes).unwrap_or(Value::Null))
    }
}

fn addr(v: &Value) -> Address {
    v.as_str().and_then(|s| s.parse().ok()).unwrap_or_else(|| panic!("an address: {v}"))
}

fn wei(v: &Value) -> U256 {
    v.as_str().and_then(|s| s.parse().ok()).unwrap_or_else(|| panic!("a wei amount: {v}"))
}

/// `amountOut` / `minAmountOut`: one string or one per output.
fn amounts(v: &Value) -> Vec<U256> {
    match v {
        Value::Array(items) => items.iter().map(wei).collect(),
        other => vec![wei(other)],
    }
}

fn bytes(v: &Value) -> Bytes {
    v.as_str().and_then(|s| hex::decode(s).ok()).map(Bytes::from).expect("hex data")
}

/// One route request and what to check about its answer.
struct Case {
    name: &'static str,
    strategy: &'static str,
    inputs: Vec<(Address, u128)>,
    outputs: Vec<Address>,
    /// Extra query parameters.
    extra: String,
    /// Who receives the outputs.
    receiver: Address,
}

fn case(
    name: &'static str,
    strategy: &'static str,
    inputs: Vec<(Address, u128)>,
    outputs: Vec<Address>,
) -> Case {
    Case { name, strategy, inputs, outputs, extra: String::new(), receiver: USER }
}

impl Case {
    fn path(&self) -> String {
        let mut p = format!(
            "/api/v1/shortcuts/route?chainId=1&fromAddress={USER:#x}&routingStrategy={}&referralCode=e2e-{}",
            self.strategy,
            self.strategy.len()
        );
        for (t, a) in &self.inputs {
            p.push_str(&format!("&tokenIn={t:#x}&amountIn={a}"));
        }
        for t in &self.outputs {
            p.push_str(&format!("&tokenOut={t:#x}"));
        }
        p + &self.extra
    }

    fn referral(&self) -> String {
        format!("e2e-{}", self.strategy.len())
    }
}

/// The executors of the world: never approved.
fn executors(w: &ChainWorld) -> Vec<Address> {
    let mut out = Vec::new();
    if let Some((_, e)) = w.shortcuts.router {
        out.push(e);
    }
    if let Some((r, e)) = w.shortcuts.legacy_router {
        out.push(e);
        out.push(legacy_executor(r));
    }
    out
}

/// Funds the sender, sends the approvals `/wallet/approve` gives, and
/// delegates the sender's account for the delegate strategies.
async fn prepare(api: &Api, w: &ChainWorld, evm: &mut ForkEvm, c: &Case) {
    for (t, a) in &c.inputs {
        w.fund(evm, *t, USER, U256::from(*a)).expect("fund");
        let delegated = c.strategy.starts_with("delegate");
        if *t == NATIVE || delegated {
            continue;
        }
        let (status, body) = api
            .get(&format!(
                "/api/v1/wallet/approve?chainId=1&fromAddress={USER:#x}&tokenAddress={t:#x}&amount={a}&routingStrategy={}",
                c.strategy
            ))
            .await;
        assert_eq!(status, StatusCode::OK, "{}: approve {body}", c.name);
        let spender = addr(&body["spender"]);
        assert!(!executors(w).contains(&spender), "{}: an approval names an executor", c.name);
        let tx = &body["tx"];
        assert_eq!(addr(&tx["to"]), *t);
        evm.call(USER, *t, bytes(&tx["data"]), U256::ZERO).expect("the approval executes");
    }
    if c.strategy == "delegate" {
        evm.delegate_account(USER, w.shortcuts.delegate.expect("delegate code"));
    }
    if c.strategy == "delegate-legacy" {
        evm.delegate_account(USER, w.shortcuts.legacy_delegate.expect("legacy delegate code"));
    }
}

fn balance(evm: &mut ForkEvm, token: Address, who: Address) -> U256 {
    ChainWorld::balance_of(evm, token, who).expect("balance")
}

/// The account id of the test key as the event carries it.
fn account_word(account: &str) -> B256 {
    switchyard_engine::encode::account_id(account)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_route_class_executes_as_answered() {
    let env = common::start("e2e");
    let api = Api::of(&env);
    let world = Arc::new(own_world());
    let w = world.chain(ChainId(1)).expect("chain 1");

    let mut cases = vec![
        case("single hop", "router", vec![(USDC, 5_000_000_000)], vec![WETH]),
        case("multi-hop", "router", vec![(WBTC, 10_000_000)], vec![DAI]),
        case("split", "router", vec![(WETH, 300_000_000_000_000_000_000)], vec![USDC]),
        case(
            "several inputs",
            "router",
            vec![(USDC, 1_000_000_000), (DAI, 1_000_000_000_000_000_000_000)],
            vec![WETH],
        ),
        case(
            "several outputs",
            "router",
            vec![(USDC, 1_000_000_000), (WETH, 1_000_000_000_000_000_000)],
            vec![WETH, USDC],
        ),
        case("stableswap", "router", vec![(DAI, 10_000_000_000_000_000_000_000)], vec![USDT]),
        case("ERC-4626 deposit", "router", vec![(DAI, 1_000_000_000_000_000_000_000)], vec![SDAI]),
        case("ERC-4626 redeem", "router", vec![(SDAI, 1_000_000_000_000_000_000_000)], vec![DAI]),
        case("vault by a curator", "router", vec![(USDC, 1_000_000_000)], vec![STEAKUSDC]),
        case("Aave supply", "router", vec![(USDC, 1_000_000_000)], vec![AUSDC]),
        case("Aave withdraw", "router", vec![(AUSDC, 1_000_000_000)], vec![USDC]),
        case("Compound mint", "router", vec![(USDC, 1_000_000_000)], vec![CUSDC]),
        case("Compound redeem", "router", vec![(CUSDC, 40_000_000_000)], vec![USDC]),
        case("Lido stake", "router", vec![(NATIVE, 10_000_000_000_000_000_000)], vec![STETH]),
        case("wstETH", "router", vec![(NATIVE, 10_000_000_000_000_000_000)], vec![WSTETH]),
        case("native in", "router", vec![(NATIVE, 1_000_000_000_000_000_000)], vec![USDC]),
        case("native out", "router", vec![(USDC, 1_000_000_000)], vec![NATIVE]),
        case("delegate", "delegate", vec![(USDC, 5_000_000_000)], vec![WETH]),
        case("delegate, native", "delegate", vec![(NATIVE, 1_000_000_000_000_000_000)], vec![DAI]),
        case("legacy router", "router-legacy", vec![(USDC, 5_000_000_000)], vec![WETH]),
        case(
            "legacy delegate",
            "delegate-legacy",
            vec![(WETH, 1_000_000_000_000_000_000)],
            vec![USDC],
        ),
    ];
    let mut weighted = case("weighted pool", "router", vec![(WBTC, 100_000_000)], vec![WETH]);
    weighted.extra = "&ignoreStandards=uniswap-v2&ignoreStandards=uniswap-v3".into();
    cases.push(weighted);
    let mut fee = case("fee", "router", vec![(USDC, 2_000_000_000)], vec![WETH]);
    fee.extra = format!("&fee=25&feeReceiver={FEE_TO:#x}");
    cases.push(fee);
    let mut other = case(
        "receiver and refund receiver",
        "router",
        vec![(WETH, 2_000_000_000_000_000_000)],
        vec![USDC],
    );
    other.extra = format!("&receiver={OTHER:#x}&refundReceiver={REFUND_TO:#x}");
    other.receiver = OTHER;
    cases.push(other);
    let mut wallet = case(
        "ensowallet-v2, to the sender",
        "ensowallet-v2",
        vec![(USDC, 1_000_000_000)],
        vec![WETH],
    );
    wallet.extra = "&toEoa=true".into();
    cases.push(wallet);
    let mut min = case("explicit minimum", "router", vec![(USDC, 1_000_000_000)], vec![DAI]);
    min.extra = "&minAmountOut=900000000000000000000".into();
    cases.push(min);

    let mut protocols = BTreeSet::new();
    for c in &cases {
        let (status, body) = api.get(&c.path()).await;
        assert_eq!(status, StatusCode::OK, "{}: {body}", c.name);
        for hop in body["route"].as_array().expect("route") {
            protocols.insert(hop["protocol"].as_str().unwrap_or_default().to_owned());
            for path in hop["internalRoutes"].as_array().into_iter().flatten() {
                for seg in path.as_array().into_iter().flatten() {
                    protocols.insert(seg["protocol"].as_str().unwrap_or_default().to_owned());
                }
            }
        }
        let out = amounts(&body["amountOut"]);
        let mins = amounts(&body["minAmountOut"]);
        let tx = &body["tx"];
        let mut evm = w.fork();
        prepare(&api, w, &mut evm, c).await;
        let before: Vec<U256> =
            c.outputs.iter().map(|t| balance(&mut evm, *t, c.receiver)).collect();
        let fee_before = balance(&mut evm, c.inputs[0].0, FEE_TO);
        let result = evm
            .call(addr(&tx["from"]), addr(&tx["to"]), bytes(&tx["data"]), wei(&tx["value"]))
            .unwrap_or_else(|e| panic!("{}: the transaction reverts: {e}", c.name));
        for (k, t) in c.outputs.iter().enumerate() {
            // What the receiver paid of the same token as an input counts back.
            let paid = c
                .inputs
                .iter()
                .filter(|(i, _)| i == t && c.receiver == USER)
                .fold(U256::ZERO, |a, (_, x)| a + U256::from(*x));
            let gained = balance(&mut evm, *t, c.receiver) + paid - before[k];
            assert_eq!(gained, out[k], "{}: output {k} is exactly amountOut", c.name);
            assert!(gained >= mins[k], "{}: at least minAmountOut", c.name);
        }
        if c.extra.contains("fee=") {
            let fee = wei(&body["feeAmount"][0]);
            assert!(!fee.is_zero());
            assert_eq!(balance(&mut evm, c.inputs[0].0, FEE_TO) - fee_before, fee, "{}", c.name);
        }
        // The event: the key's account, the referral code in the high half
        // of the request id. The deployed legacy executor emits none; the
        // legacy delegate its own `ShortcutExecuted(shortcutId)`.
        let current = result
            .logs
            .iter()
            .find_map(|l| ShortcutsExecutor::ShortcutExecuted::decode_log_data(&l.data).ok());
        let legacy = result.logs.iter().find_map(|l| {
            switchyard_engine::evm::abi::LegacyShortcutsDelegate::ShortcutExecuted::decode_log_data(
                &l.data,
            )
            .ok()
        });
        let referral = c.referral();
        match c.strategy {
            "router-legacy" => assert!(current.is_none() && legacy.is_none(), "{}", c.name),
            "delegate-legacy" => {
                let ev = legacy.unwrap_or_else(|| panic!("{}: no ShortcutExecuted", c.name));
                assert_eq!(&ev.shortcutId[..referral.len()], referral.as_bytes(), "{}", c.name);
            }
            _ => {
                let ev = current.unwrap_or_else(|| panic!("{}: no ShortcutExecuted", c.name));
                assert_eq!(ev.accountId, account_word(&env.account_id), "{}", c.name);
                assert_eq!(&ev.requestId[..referral.len()], referral.as_bytes(), "{}", c.name);
            }
        }
        // A shared executor keeps nothing.
        if c.strategy.starts_with("router") {
            for e in executors(w) {
                for t in c.inputs.iter().map(|i| i.0).chain(c.outputs.iter().copied()) {
                    assert!(balance(&mut evm, t, e).is_zero(), "{}: executor holds {t}", c.name);
                }
            }
        }
    }
    for p in [
        "uniswap-v2",
        "uniswap-v3",
        "curve",
        "balancer-v2",
        "spark-savings",
        "morpho-vaults",
        "aave-v3",
        "compound-v2",
        "lido",
        "wrapped-native",
    ] {
        assert!(protocols.contains(p), "no route went through {p}: {protocols:?}");
    }
}

/// A cross-chain route through CCTP, executed as answered on both chains
/// of this test's own world: the approvals and the transaction on
/// Ethereum, then the burn message it emitted, attested and received on
/// Base by a relayer; the receiver gains exactly `amountOut` there. The
/// answer names the crossing (a `bridge` hop from chain 1 to 8453,
/// `bridgingEstimates`). A route with a swap on arrival goes by a Stargate
/// taxi composed through Enso's composer, executed the same way.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cross_chain_routes_execute_on_both_chains() {
    use switchyard_engine::evm::cctp;
    const USDC_BASE: Address = address!("833589fcd6edb6e08f4c7c32d4f71b54bda02913");
    let env = common::start("e2e-cross");
    let api = Api::of(&env);
    let world = own_world();
    let (w1, base) =
        (world.chain(ChainId(1)).expect("1"), world.chain(ChainId(8453)).expect("8453"));
    for (strategy, tin, amount) in [
        ("router", USDC, 1_000_000_000u128),
        ("router", WETH, 1_000_000_000_000_000_000),
        ("delegate", USDC, 2_000_000_000),
    ] {
        let c = Case {
            name: "cross-chain",
            strategy,
            inputs: vec![(tin, amount)],
            outputs: vec![USDC_BASE],
            extra: format!("&destinationChainId=8453&receiver={OTHER:#x}"),
            receiver: OTHER,
        };
        let (status, body) = api.get(&c.path()).await;
        assert_eq!(status, StatusCode::OK, "{strategy} {tin}: {body}");
        let quoted = wei(&body["amountOut"]);
        let crossing = body["route"]
            .as_array()
            .expect("route")
            .iter()
            .find(|h| h["action"] == "bridge")
            .expect("a bridge hop");
        assert_eq!(crossing["protocol"], "cctp");
        assert_eq!(
            (crossing["sourceChainId"].as_u64(), crossing["destinationChainId"].as_u64()),
            (Some(1), Some(8453))
        );
        assert_eq!(body["bridgingEstimates"][0]["bridge"], "cctp", "{body}");
        let mut evm = w1.fork();
        prepare(&api, w1, &mut evm, &c).await;
        let tx = &body["tx"];
        let out = evm
            .call(addr(&tx["from"]), addr(&tx["to"]), bytes(&tx["data"]), wei(&tx["value"]))
            .unwrap_or_else(|e| panic!("{strategy} {tin}: {e:?}"));
        // Circle's MessageTransmitterV2, the same on every chain.
        let transmitter = address!("81d40f21f12a8f0e3252bccb954d722d4c464b64");
        let sent = cctp::messages_sent(&out.logs, transmitter);
        let [message] = sent.as_slice() else { panic!("{} messages", sent.len()) };
        let burn = cctp::BurnMessage::decode(message).expect("a burn message");
        assert_eq!((burn.mint_recipient, burn.amount), (OTHER, quoted));
        let attested = burn.attested(B256::repeat_byte(9));
        let receive = cctp::receive_calldata(&attested).expect("signs");
        let mut dest = base.fork();
        let before = balance(&mut dest, USDC_BASE, OTHER);
        dest.call(
            address!("00000000000000000000000000000000000b0b00"),
            transmitter,
            receive,
            U256::ZERO,
        )
        .expect("received on Base");
        assert_eq!(balance(&mut dest, USDC_BASE, OTHER) - before, quoted, "{strategy} {tin}");
    }
    // More on arrival goes by a Stargate taxi composed through Enso's
    // composer: USDC to WETH on Arbitrum, executed as answered (LayerZero's
    // fee the transaction's value), the packet verified, received and
    // composed on Arbitrum's world, where the receiver gains exactly
    // `amountOut`.
    const WETH_ARB: Address = address!("82af49447d8a07e3bd95bd0d56f35241523fbab1");
    let c = Case {
        name: "cross-chain swap on arrival",
        strategy: "router",
        inputs: vec![(USDC, 1_000_000_000)],
        outputs: vec![WETH_ARB],
        extra: format!("&destinationChainId=42161&receiver={OTHER:#x}"),
        receiver: OTHER,
    };
    let (status, body) = api.get(&c.path()).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["bridgingEstimates"][0]["bridge"], "stargate", "{body}");
    let quoted = wei(&body["amountOut"]);
    let tx = &body["tx"];
    let (from, value) = (addr(&tx["from"]), wei(&tx["value"]));
    assert!(!value.is_zero(), "LayerZero's fee rides with the transaction: {body}");
    let mut evm = w1.fork();
    prepare(&api, w1, &mut evm, &c).await;
    evm.set_balance(from, value);
    let out = evm
        .call(from, addr(&tx["to"]), bytes(&tx["data"]), value)
        .unwrap_or_else(|e| panic!("the taxi is sent: {e:?}"));
    let catalog = loaders::load_catalog(&[] as &[&str]).expect("catalog");
    let delivered = switchyard_engine::bridge::deliver_layerzero(
        &world,
        &catalog,
        ChainId(1),
        &out.logs,
        &[vec![(OTHER, WETH_ARB)]],
    )
    .expect("composed on Arbitrum");
    let [d] = delivered.as_slice() else { panic!("{} taxis", delivered.len()) };
    assert_eq!((d.to_chain, d.gains.clone()), (ChainId(42161), vec![quoted]));
}

/// A price that moves between the quote and the execution: the route's
/// minimum fails on chain, and the revert decodes to the router's
/// `AmountTooLow` (a delegate's program to its failed minimum guard, the
/// checked `MathHelpers.sub(amount, minimum)`).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_moved_price_reverts_on_the_minimum() {
    let env = common::start("e2e-moved");
    let api = Api::of(&env);
    let world = own_world();
    let w = world.chain(ChainId(1)).expect("chain 1");
    for (strategy, expected) in [("router", "AmountTooLow"), ("delegate", "ExecutionFailed")] {
        let c = case("victim", strategy, vec![(USDC, 10_000_000_000)], vec![WETH]);
        let (status, body) = api.get(&c.path()).await;
        assert_eq!(status, StatusCode::OK, "{body}");
        let mut evm = w.fork();
        prepare(&api, w, &mut evm, &c).await;
        // Someone else buys a lot of WETH first, through the same pools.
        let whale = case("whale", "router", vec![(USDC, 20_000_000_000_000)], vec![WETH]);
        let (status, front) = api
            .get(
                &whale
                    .path()
                    .replace(&format!("fromAddress={USER:#x}"), &format!("fromAddress={OTHER:#x}")),
            )
            .await;
        assert_eq!(status, StatusCode::OK, "{front}");
        w.fund(&mut evm, USDC, OTHER, U256::from(20_000_000_000_000u128)).expect("fund");
        let approve =
            switchyard_engine::encode::approve_calldata(addr(&front["tx"]["to"]), U256::MAX);
        evm.call(OTHER, USDC, approve, U256::ZERO).expect("approval");
        let ftx = &front["tx"];
        evm.call(OTHER, addr(&ftx["to"]), bytes(&ftx["data"]), U256::ZERO)
            .expect("the whale trades");
        let tx = &body["tx"];
        let err = evm
            .call(USER, addr(&tx["to"]), bytes(&tx["data"]), wei(&tx["value"]))
            .expect_err("the minimum is not met");
        let data = err.revert_data().expect("revert data").clone();
        let decoded = switchyard_engine::simulate::decode_revert(&data).unwrap_or_default();
        assert!(decoded.contains(expected), "{strategy}: {decoded}");
        if strategy == "delegate" {
            // The program's own guard: the checked subtraction on Enso's
            // MathHelpers, whose panic the VM reports as "Unknown".
            // MathHelpers on chain 1 (catalog/data/deployments.json).
            assert!(decoded.contains("0xc02bcd14bad74ad54453cd34a1029cbacc6923fb"), "{decoded}");
        }
    }
}

/// A bundle's `route` action: `amount` of USDC to DAI.
fn route_usdc_to_dai(amount: U256) -> Value {
    serde_json::json!({"protocol": "enso", "action": "route", "args": {"tokenIn": format!("{USDC:#x}"), "tokenOut": format!("{DAI:#x}"), "amountIn": amount.to_string()}})
}

/// A bundle through the API: its approvals (never to an executor) and its
/// transaction, executed here, give the receiver exactly `amountsOut`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bundles_execute_as_answered() {
    let env = common::start("e2e-bundle");
    let api = Api::of(&env);
    let world = own_world();
    let w = world.chain(ChainId(1)).expect("chain 1");
    let usdc_in = U256::from(3_000_000_000u64);
    let body = serde_json::json!([
        route_usdc_to_dai(usdc_in),
        {"protocol": "erc4626", "action": "deposit", "args": {"tokenIn": format!("{DAI:#x}"), "tokenOut": format!("{SDAI:#x}"), "amountIn": {"useOutputOfCallAt": 0}, "primaryAddress": format!("{SDAI:#x}")}},
        {"protocol": "enso", "action": "slippage", "args": {"amountOut": {"useOutputOfCallAt": 1}, "bps": "50"}}
    ]);
    for strategy in ["router", "delegate", "ensowallet-v2"] {
        let (status, r) = api
            .post(
                &format!("/api/v1/shortcuts/bundle?chainId=1&fromAddress={USER:#x}&routingStrategy={strategy}&receiver={OTHER:#x}&referralCode=bundle-e2e"),
                &body,
            )
            .await;
        assert_eq!(status, StatusCode::OK, "{strategy}: {r}");
        let mut evm = w.fork();
        w.fund(&mut evm, USDC, USER, usdc_in).expect("fund");
        for a in r["approvals"].as_array().expect("approvals") {
            let data = bytes(&a["data"]);
            let spender = Address::from_slice(&data[16..36]);
            assert!(!executors(w).contains(&spender), "{strategy}: an approval names an executor");
            evm.call(addr(&a["from"]), addr(&a["to"]), data, U256::ZERO).expect("approval");
        }
        if strategy == "delegate" {
            evm.delegate_account(USER, w.shortcuts.delegate.expect("delegate code"));
        }
        let before = balance(&mut evm, SDAI, OTHER);
        let tx = &r["tx"];
        let result = evm
            .call(addr(&tx["from"]), addr(&tx["to"]), bytes(&tx["data"]), wei(&tx["value"]))
            .unwrap_or_else(|e| panic!("{strategy}: the bundle reverts: {e}"));
        let gained = balance(&mut evm, SDAI, OTHER) - before;
        assert_eq!(gained, wei(&r["amountsOut"][format!("{SDAI:#x}")]), "{strategy}");
        assert!(gained >= wei(&r["minAmountsOut"][format!("{SDAI:#x}")]), "{strategy}");
        let ev = result
            .logs
            .iter()
            .find_map(|l| ShortcutsExecutor::ShortcutExecuted::decode_log_data(&l.data).ok())
            .expect("ShortcutExecuted");
        assert_eq!(ev.accountId, account_word(&env.account_id));
        assert_eq!(&ev.requestId[..10], b"bundle-e2e");
    }
}

/// `ensofee` in a bundle: the operator's own fee, taken off an action's
/// output and paid to this instance's receiver inside the executed
/// program; an instance without a receiver refuses it, naming the action.
/// `paymasterfee` pays the same receiver back for the gas of the user
/// operation its backend submits (`ensowallet-v2` with
/// `executionMode=backend` only).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ensofee_pays_the_operators_receiver_inside_the_bundle() {
    let usdc_in = U256::from(3_000_000_000u64);
    const OPERATOR: Address = address!("00000000000000000000000000000000000fee01");
    let env = common::start_with(
        "e2e-ensofee",
        switchyard_engine::EngineConfig {
            operator_fee: Some(switchyard_engine::OperatorFee { bps: 10, receiver: OPERATOR }),
            ..switchyard_engine::EngineConfig::default()
        },
    );
    let api = Api::of(&env);
    let world = own_world();
    let w = world.chain(ChainId(1)).expect("chain 1");
    let body = serde_json::json!([
        route_usdc_to_dai(usdc_in),
        {"protocol": "enso", "action": "ensofee", "args": {"token": format!("{DAI:#x}"), "amount": {"useOutputOfCallAt": 0}, "bps": "25"}},
        {"protocol": "enso", "action": "slippage", "args": {"amountOut": {"useOutputOfCallAt": 1}, "bps": "50"}}
    ]);
    let path = format!(
        "/api/v1/shortcuts/bundle?chainId=1&fromAddress={USER:#x}&routingStrategy=router&receiver={OTHER:#x}"
    );
    let (status, r) = api.post(&path, &body).await;
    assert_eq!(status, StatusCode::OK, "{r}");
    let mut evm = w.fork();
    w.fund(&mut evm, USDC, USER, usdc_in).expect("fund");
    for a in r["approvals"].as_array().expect("approvals") {
        evm.call(addr(&a["from"]), addr(&a["to"]), bytes(&a["data"]), U256::ZERO)
            .expect("approval");
    }
    let (other, operator) = (balance(&mut evm, DAI, OTHER), balance(&mut evm, DAI, OPERATOR));
    let tx = &r["tx"];
    evm.call(addr(&tx["from"]), addr(&tx["to"]), bytes(&tx["data"]), wei(&tx["value"]))
        .unwrap_or_else(|e| panic!("the bundle reverts: {e}"));
    let (to_other, fee) =
        (balance(&mut evm, DAI, OTHER) - other, balance(&mut evm, DAI, OPERATOR) - operator);
    assert_eq!(to_other, wei(&r["amountsOut"][format!("{DAI:#x}")]), "{r}");
    assert!(fee > U256::ZERO, "the operator is paid");
    assert_eq!(
        fee,
        (to_other + fee) * U256::from(25u8) / U256::from(10_000u16),
        "25 bps of the route's DAI"
    );

    // `paymasterfee`: when this instance's backend submits the user
    // operation (`ensowallet-v2`, `executionMode=backend`; its fees are
    // zero), the gas comes back to the operator in a token, paid inside
    // the program; not otherwise. Signed here by the sender and run
    // through the EntryPoint's `handleOps`.
    let key = k256::ecdsa::SigningKey::from_slice(&[0x5a; 32]).expect("key");
    let point = key.verifying_key().to_encoded_point(false);
    let owner = Address::from_slice(&alloy_primitives::keccak256(&point.as_bytes()[1..])[12..]);
    let one_dai = U256::from(10u64).pow(U256::from(18u64));
    let paid = serde_json::json!([
        route_usdc_to_dai(usdc_in),
        {"protocol": "enso", "action": "paymasterfee", "args": {"token": format!("{DAI:#x}"), "amount": one_dai.to_string()}}
    ]);
    let (status, e) = api.post(&path, &paid).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{e}");
    assert_eq!(e["field"], "body[1].action", "{e}");
    let backend = format!(
        "/api/v1/shortcuts/bundle?chainId=1&fromAddress={owner:#x}&routingStrategy=ensowallet-v2&executionMode=backend&receiver={OTHER:#x}"
    );
    let (status, r) = api.post(&backend, &paid).await;
    assert_eq!(status, StatusCode::OK, "{r}");
    assert_eq!(r["feeAmount"][format!("{DAI:#x}")], one_dai.to_string(), "answered as a fee: {r}");
    let mut evm = w.fork();
    w.fund(&mut evm, USDC, owner, usdc_in).expect("fund");
    for a in r["approvals"].as_array().expect("approvals") {
        evm.call(addr(&a["from"]), addr(&a["to"]), bytes(&a["data"]), U256::ZERO)
            .expect("approval");
    }
    let entry_point = addr(&r["tx"]["to"]);
    let mut handle = switchyard_engine::evm::abi::EntryPoint::handleOpsCall::abi_decode(&bytes(
        &r["tx"]["data"],
    ))
    .expect("handleOps");
    let hash = evm
        .view(
            entry_point,
            &switchyard_engine::evm::abi::EntryPoint::getUserOpHashCall {
                userOp: handle.ops[0].clone(),
            },
        )
        .expect("getUserOpHash");
    let mut message = b"\x19Ethereum Signed Message:\n32".to_vec();
    message.extend_from_slice(hash.as_slice());
    let digest = alloy_primitives::keccak256(&message);
    let (sig, recid) = key.sign_prehash_recoverable(digest.as_slice()).expect("signs");
    let mut signature = sig.to_bytes().to_vec();
    signature.push(27 + recid.to_byte());
    handle.ops[0].signature = signature.into();
    let (other, operator) = (balance(&mut evm, DAI, OTHER), balance(&mut evm, DAI, OPERATOR));
    let bundler = address!("00000000000000000000000000000000000b0b1e");
    evm.call(bundler, entry_point, handle.abi_encode().into(), U256::ZERO)
        .unwrap_or_else(|e| panic!("handleOps reverts: {e}"));
    assert_eq!(balance(&mut evm, DAI, OPERATOR) - operator, one_dai, "the gas paid back");
    assert_eq!(
        balance(&mut evm, DAI, OTHER) - other,
        wei(&r["amountsOut"][format!("{DAI:#x}")]),
        "the rest to the receiver: {r}"
    );

    // Without a configured receiver: refused, naming the action.
    let plain = common::start("e2e-ensofee-none");
    let api = Api::of(&plain);
    let (status, e) = api.post(&path, &body).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{e}");
    assert_eq!(e["field"], "body[1].action", "{e}");
    let (status, e) = api.post(&backend, &paid).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{e}");
    assert_eq!(e["field"], "body[1].action", "{e}");
}
