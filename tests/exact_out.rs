//! Exact output (issue 17, §3) over HTTP on the embedded market: a quote
//! for `amountOut` answers the least input found; a route for it is
//! executed in the EVM world before it is answered (the engine returns it
//! only when the receiver got exactly `amountOut` and the unspent input
//! went back), for single paths, splits and multi-hop paths, through the
//! router, the caller's delegated account, and with a fee.

mod common;

use alloy_primitives::U256;
use axum::{
    body::Body,
    http::{Request, header},
};
use http_body_util::BodyExt as _;
use serde_json::Value;
use tower::ServiceExt as _;

const USDC: &str = "0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48";
const WETH: &str = "0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2";
const DAI: &str = "0x6b175474e89094c44da98b954eedeac495271d0f";
const WBTC: &str = "0x2260fac5e5542a773aa44fbcfedf7c193bc2c599";
const SDAI: &str = "0x83f20f44975d03b1b09e64809b757c47f942beea";
const FROM: &str = "0xd8da6bf26964af9d7eed9e03e53415d37aa96045";
const FEES: &str = "0x1111111111111111111111111111111111111111";

async fn get(app: &axum::Router, path: &str, key: &str) -> (u16, Value) {
    common::get_json(app, path, key).await
}

fn wei(v: &Value) -> U256 {
    v.as_str().and_then(|s| s.parse().ok()).unwrap_or_else(|| panic!("not wei: {v}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_exact_output_is_quoted_and_executed_for_exactly_that_output() {
    let env = common::start("exact-out");
    let app = switchyard_server::app(env.state.clone());
    let key = &env.fast_key;
    let cases = [
        // One pool, a split over several, two hops, an 8-decimal output.
        (USDC, WETH, "1000000000000000000"),
        (USDC, WETH, "3000000000000000000000"),
        (DAI, WBTC, "20000000"),
        (WETH, USDC, "2500000000"),
        // An ERC-4626 vault both ways: mint exact shares, withdraw exact
        // assets.
        (DAI, SDAI, "1000000000000000000000"),
        (SDAI, DAI, "1000000000000000000000"),
    ];
    for (tin, tout, want) in cases {
        let want_wei: U256 = want.parse().expect("wei");
        let q = format!(
            "/api/v1/shortcuts/quote?chainId=1&tokenIn={tin}&tokenOut={tout}&amountOut={want}"
        );
        let (status, quote) = get(&app, &q, key).await;
        assert_eq!(status, 200, "{q}: {quote}");
        assert_eq!(quote["amountOut"], want, "{quote}");
        // Every hop names its liquidity sources: its own protocol, or for a
        // split every path's.
        for hop in quote["route"].as_array().expect("route") {
            let sources = hop["sources"].as_array().expect("sources");
            assert!(!sources.is_empty(), "{hop}");
            let paths = hop["internalRoutes"].as_array().cloned().unwrap_or_default();
            for seg in paths.iter().filter_map(Value::as_array).flatten() {
                assert!(sources.contains(&seg["protocol"]), "{hop}");
            }
        }
        let amount_in = wei(&quote["amountIn"]);
        // The same input, exact-in, buys about the output (the search is
        // the same), and the exact-output input is no waste.
        let forward = format!(
            "/api/v1/shortcuts/quote?chainId=1&tokenIn={tin}&tokenOut={tout}&amountIn={amount_in}"
        );
        let (status, fwd) = get(&app, &forward, key).await;
        assert_eq!(status, 200, "{fwd}");
        let got = wei(&fwd["amountOut"]);
        assert!(
            got >= want_wei * U256::from(995u32) / U256::from(1000u32),
            "{tin}→{tout}: {got} for {amount_in}"
        );
        // Replayed byte for byte by its quoteId.
        let id = quote["quoteId"].as_str().expect("quoteId");
        let (status, again) = get(&app, &format!("/api/v1/shortcuts/quote/{id}"), key).await;
        assert_eq!((status, &again), (200, &quote));

        for extra in [
            "&slippage=100",
            "&routingStrategy=delegate&slippage=30",
            &format!("&fee=25&feeReceiver={FEES}"),
        ] {
            let r = format!(
                "/api/v1/shortcuts/route?chainId=1&fromAddress={FROM}&tokenIn={tin}&tokenOut={tout}&amountOut={want}{extra}"
            );
            let (status, route) = get(&app, &r, key).await;
            assert_eq!(status, 200, "{r}: {route}");
            assert_eq!(route["amountOut"], want);
            assert_eq!(route["minAmountOut"], want, "the output is exact: {route}");
            let (ain, max) = (wei(&route["amountIn"]), wei(&route["maxAmountIn"]));
            let slip: u32 = if extra.contains("slippage=100") {
                100
            } else if extra.contains("slippage=30") {
                30
            } else {
                50
            };
            let expect_max = (ain * U256::from(10_000 + slip)).div_ceil(U256::from(10_000u32));
            assert_eq!(max, expect_max, "{route}");
            if extra.contains("fee=25") {
                // The fee comes on top of the same routed input, and is
                // the fee of the whole (to a wei of rounding).
                let fee = wei(&route["feeAmount"][0]);
                assert_eq!(ain - fee, amount_in, "{route}");
                let of_total = ain * U256::from(25u32) / U256::from(10_000u32);
                assert!(fee >= of_total && fee <= of_total + U256::ONE, "{fee} vs {of_total}");
            } else {
                assert_eq!(ain, amount_in, "route and quote agree on the input");
            }
            assert!(route["tx"]["data"].as_str().is_some_and(|d| d.len() > 10));
        }
    }
}

/// A Balancer weighted pool alone (Uniswap left out): the Vault's swap
/// given out, limited to `maxAmountIn`, executed before it is answered.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_exact_output_through_a_balancer_pool_is_the_vaults_given_out() {
    let env = common::start("exact-out-balancer");
    let app = switchyard_server::app(env.state.clone());
    let only_balancer = "&ignoreStandards=uniswap-v2&ignoreStandards=uniswap-v3";
    let want = "100000000000000000";
    let q = format!(
        "/api/v1/shortcuts/quote?chainId=1&tokenIn={WBTC}&tokenOut={WETH}&amountOut={want}{only_balancer}"
    );
    let (status, quote) = get(&app, &q, &env.fast_key).await;
    assert_eq!(status, 200, "{quote}");
    assert_eq!(quote["route"][0]["protocol"], "balancer-v2", "{quote}");
    let r = format!(
        "/api/v1/shortcuts/route?chainId=1&fromAddress={FROM}&tokenIn={WBTC}&tokenOut={WETH}&amountOut={want}{only_balancer}"
    );
    let (status, route) = get(&app, &r, &env.fast_key).await;
    assert_eq!(status, 200, "{route}");
    assert_eq!(route["amountOut"], want);
    assert_eq!(route["amountIn"], quote["amountIn"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn exact_output_requests_that_cannot_be_served_name_the_field() {
    let env = common::start("exact-out-bad");
    let app = switchyard_server::app(env.state.clone());
    let key = &env.fast_key;
    let base = "/api/v1/shortcuts/quote?chainId=1";
    let eth = "0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee";
    for (path, field) in [
        (format!("{base}&tokenIn={USDC}&tokenOut={WETH}&amountOut=1000&amountIn=5"), "amountOut"),
        (format!("{base}&tokenIn={USDC}&tokenIn={DAI}&tokenOut={WETH}&amountOut=1000"), "tokenIn"),
        (
            format!("{base}&tokenIn={USDC}&tokenOut={WETH}&tokenOut={DAI}&amountOut=1000"),
            "tokenOut",
        ),
        (format!("{base}&tokenIn={USDC}&tokenOut={WETH}&amountOut=0"), "amountOut"),
        (format!("{base}&tokenIn={USDC}&tokenOut={WETH}&amountOut=1.5"), "amountOut"),
        (
            format!("{base}&tokenIn={USDC}&tokenOut={WETH}&amountOut=1000&minAmountOut=1"),
            "minAmountOut",
        ),
        (format!("{base}&tokenIn={USDC}&tokenOut={eth}&amountOut=1000"), "amountOut"),
    ] {
        let (status, body) = get(&app, &path, key).await;
        assert_eq!(status, 400, "{path}: {body}");
        assert_eq!(body["field"], field, "{path}: {body}");
    }
    // More than the market holds: no route.
    let (status, body) = get(
        &app,
        &format!("{base}&tokenIn={USDC}&tokenOut={WETH}&amountOut=10000000000000000000000000"),
        key,
    )
    .await;
    assert_eq!(status, 422, "{body}");
    assert_eq!(body["code"], "NO_ROUTE");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_posted_quote_answers_as_the_get_form() {
    let env = common::start("exact-out-post");
    let app = switchyard_server::app(env.state.clone());
    let key = &env.fast_key;
    for (get_q, body) in [
        (
            format!(
                "/api/v1/shortcuts/quote?chainId=1&tokenIn={USDC}&tokenOut={WETH}&amountOut=1000000000000000000"
            ),
            format!(
                r#"{{"chainId":1,"tokenIn":"{USDC}","tokenOut":["{WETH}"],"amountOut":"1000000000000000000"}}"#
            ),
        ),
        (
            format!(
                "/api/v1/shortcuts/quote?chainId=1&tokenIn={USDC}&tokenOut={WETH}&amountIn=5000000000"
            ),
            format!(r#"{{"tokenIn":["{USDC}"],"tokenOut":"{WETH}","amountIn":5000000000}}"#),
        ),
    ] {
        let (status, by_get) = get(&app, &get_q, key).await;
        assert_eq!(status, 200, "{by_get}");
        let req = Request::post("/api/v1/shortcuts/quote")
            .header(header::AUTHORIZATION, format!("Bearer {key}"))
            .header(header::CONTENT_TYPE, "application/json")
            .body(Body::from(body))
            .expect("request");
        let res = app.clone().oneshot(req).await.expect("answer");
        assert_eq!(res.status().as_u16(), 200);
        let bytes = res.into_body().collect().await.expect("body").to_bytes();
        let by_post: Value = serde_json::from_slice(&bytes).expect("json");
        assert_eq!(by_post, by_get);
    }
}

/// The operator's own fee (`operator_fee_bps`, answered as
/// `ensoFeeAmount`): taken off each input beside the client's fee, on exact
/// inputs and exact outputs, and paid inside the executed route's program.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_operators_fee_is_taken_off_the_input_and_paid_in_the_program() {
    let operator: alloy_primitives::Address = FEES.parse().expect("address");
    let env = common::start_with(
        "operator-fee",
        switchyard_engine::EngineConfig {
            operator_fee: Some(switchyard_engine::OperatorFee { bps: 10, receiver: operator }),
            ..switchyard_engine::EngineConfig::default()
        },
    );
    let plain = common::start("operator-fee-none");
    let (app, plain_app) =
        (switchyard_server::app(env.state.clone()), switchyard_server::app(plain.state.clone()));
    let key = &env.fast_key;
    let q = |amount: &str| {
        format!(
            "/api/v1/shortcuts/quote?chainId=1&tokenIn={USDC}&tokenOut={WETH}&amountIn={amount}"
        )
    };
    let (status, with_fee) = get(&app, &q("5000000000"), key).await;
    assert_eq!(status, 200, "{with_fee}");
    assert_eq!(with_fee["ensoFeeAmount"], serde_json::json!(["5000000"]), "10 bps of 5,000 USDC");
    // What is routed is the input less the fee: the same as quoting that
    // on an instance without one.
    let (_, without) = get(&plain_app, &q("4995000000"), &plain.fast_key).await;
    assert_eq!(without["ensoFeeAmount"], serde_json::json!(["0"]));
    assert_eq!(with_fee["amountOut"], without["amountOut"]);

    // Both fees at once, on a route executed before it is answered.
    let r = format!(
        "/api/v1/shortcuts/route?chainId=1&fromAddress={FROM}&tokenIn={USDC}&tokenOut={WETH}&amountIn=5000000000&fee=20&feeReceiver={FROM}"
    );
    let (status, route) = get(&app, &r, key).await;
    assert_eq!(status, 200, "{route}");
    assert_eq!(route["feeAmount"], serde_json::json!(["10000000"]));
    assert_eq!(route["ensoFeeAmount"], serde_json::json!(["5000000"]));
    let data = route["tx"]["data"].as_str().expect("calldata").to_ascii_lowercase();
    assert!(data.contains(&FEES[2..]), "the program pays the operator's receiver");

    // An exact output: the input covers both fees and the routed part.
    let want = "1000000000000000000";
    let out = |a: &str| {
        format!(
            "/api/v1/shortcuts/quote?chainId=1&tokenIn={USDC}&tokenOut={WETH}&amountOut={want}{a}"
        )
    };
    let (status, exact) = get(&app, &out(""), key).await;
    assert_eq!(status, 200, "{exact}");
    let (_, bare) = get(&plain_app, &out(""), &plain.fast_key).await;
    let (total, routed) = (wei(&exact["amountIn"]), wei(&bare["amountIn"]));
    let fee = wei(&exact["ensoFeeAmount"][0]);
    assert_eq!(total - fee, routed, "{exact} vs {bare}");
    assert!(fee >= total * U256::from(10u32) / U256::from(10_000u32));
    let r = format!(
        "/api/v1/shortcuts/route?chainId=1&fromAddress={FROM}&tokenIn={USDC}&tokenOut={WETH}&amountOut={want}"
    );
    let (status, route) = get(&app, &r, key).await;
    assert_eq!(status, 200, "{route}");
    assert_eq!(route["amountOut"], want);
    assert_eq!(route["ensoFeeAmount"], exact["ensoFeeAmount"]);
}
