//! Property: no query string, however malformed, gets a 5xx (501 from the
//! endpoints not served yet aside), and every error has the standard body.

mod common;

use axum::{body::Body, http::Request};
use proptest::prelude::*;
use tower::ServiceExt as _;

const PATHS: &[&str] = &[
    "/api/v1/tokens",
    "/api/v1/nontokenized",
    "/api/v1/networks",
    "/api/v1/aggregators",
    "/api/v1/protocols",
    "/api/v1/prices/1",
    "/api/v1/prices/1/0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2",
    "/api/v1/layerzero/pool",
    "/api/v1/ccip/router",
    "/api/v1/cctp/bridge/tokenmessengerv2",
    "/api/v1/cctp/bridge/claim",
    "/api/v1/relay/bridge/check",
    "/api/v1/volume/1",
    "/api/v1/standards/uniswap-v2",
    "/api/v1/shortcuts/quote",
];

const KEYS: &[&str] = &[
    "chainId",
    "address",
    "address[]",
    "address[0]",
    "address[9999]",
    "page",
    "pageSize",
    "cursor",
    "type",
    "liquidityType",
    "apyFrom",
    "tvlTo",
    "includeMetadata",
    "includeUnderlying",
    "underlyingTokens",
    "underlyingTokensExact",
    "primaryAddress",
    "name",
    "symbol",
    "addresses",
    "addresses[]",
    "token",
    "destinationChainId",
    "destinationToken",
    "txHash",
    "positionId",
    "slug",
    "apikey",
    "%5B%5D",
    "a[b]",
    "",
];

fn value() -> impl Strategy<Value = String> {
    prop_oneof![
        "[0-9a-fA-Fx%+,\\[\\]=&.\\-]{0,50}",
        "0x[0-9a-fA-F]{38,42}",
        "-?[0-9]{1,30}(\\.[0-9]{0,5})?",
        "\\PC{0,20}",
        Just("0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48".to_owned()),
        Just("%ff%00%".to_owned()),
    ]
}

fn query() -> impl Strategy<Value = String> {
    prop_oneof![
        // Structured: known keys, wild values.
        prop::collection::vec((prop::sample::select(KEYS), value()), 0..8).prop_map(|pairs| {
            pairs.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join("&")
        }),
        // Unstructured bytes that are legal in a URI query.
        "[a-zA-Z0-9%&=\\[\\]+,.\\-_~!$'()*;:@/?]{0,200}",
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn no_query_string_yields_a_server_error(path_idx in 0..PATHS.len(), q in query()) {
        let (rt, env, app) = &*ENV;
        {
            let uri = format!("{}?{}", PATHS[path_idx], q);
            // Strings the URI parser itself rejects never reach the server.
            let Ok(req) = Request::get(&uri)
                .header("authorization", format!("Bearer {}", env.fast_key))
                .body(Body::empty()) else { return Ok(()) };
            let res = rt.block_on(app.clone().oneshot(req)).expect("infallible service");
            let status = res.status().as_u16();
            let body = rt.block_on(axum::body::to_bytes(res.into_body(), usize::MAX)).expect("body");
            prop_assert!(status < 500 || status == 501, "{uri} -> {status}: {}", String::from_utf8_lossy(&body));
            if status >= 400 {
                let v: serde_json::Value = serde_json::from_slice(&body).expect("error bodies are json");
                prop_assert_eq!(v["statusCode"].as_u64(), Some(u64::from(status)));
                prop_assert!(v["message"].is_string());
            }
        }
    }
}

/// One engine for every case; statics are never dropped, so the engine
/// thread simply ends with the process.
static ENV: std::sync::LazyLock<(tokio::runtime::Runtime, common::TestEnv, axum::Router)> =
    std::sync::LazyLock::new(|| {
        let rt =
            tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
        let env = common::start("props");
        let app = switchyard_server::app(env.state.clone());
        (rt, env, app)
    });

/// Tokens of the embedded market, by chain: ordinary ERC-20s, the native
/// coin, and the receipts whose balances round (stETH, wstETH, aTokens).
const CHAIN_TOKENS: &[(u64, &[&str])] = &[
    (
        1,
        &[
            "0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee",
            "0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2",
            "0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48",
            "0xdac17f958d2ee523a2206206994597c13d831ec7",
            "0x6b175474e89094c44da98b954eedeac495271d0f",
            "0x2260fac5e5542a773aa44fbcfedf7c193bc2c599",
            "0xae7ab96520de3a18e5e111b5eaab095312d7fe84",
            "0x7f39c581f595b53c5cb19bd0b3f8da6c935e2ca0",
            "0x4d5f47fa6a74757f35c14fd3a6ef8e3c9bc514e8",
            "0x98c23e9d8f34fefb1b7bd6a91b7ff122f4e16f5c",
            "0x83f20f44975d03b1b09e64809b757c47f942beea",
            "0x39aa39c021dfbae8fac545936693ac917d5e7563",
            "0xba100000625a3754423978a60c9317c58a424e3d",
        ],
    ),
    (
        42161,
        &[
            "0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee",
            "0x82af49447d8a07e3bd95bd0d56f35241523fbab1",
            "0xaf88d065e77c8cc2239327c5edb3a432268e5831",
            "0xfd086bc7cd5c481dcc9c85ebe478a1c0b69fcbb9",
            "0x724dc807b04555b71ed48a6896b6f41593b8c637",
        ],
    ),
    (
        8453,
        &[
            "0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee",
            "0x4200000000000000000000000000000000000006",
            "0x833589fcd6edb6e08f4c7c32d4f71b54bda02913",
            "0x50c5725949a6f0c72e6c4a641f24049a917db0cb",
        ],
    ),
];

const AMOUNTS: &[&str] = &[
    "1",
    "999",
    "1000000",
    "1000000000000000000",
    "1000000000000000000000",
    "10000000000000000000000000",
    "340282366920938463463374607431768211456",
    "115792089237316195423570985008687907853269984665640564039457584007913129639935",
];

const STRATEGIES: &[&str] =
    &["router", "delegate", "router-legacy", "delegate-legacy", "ensowallet-v2"];

fn route_query() -> impl Strategy<Value = String> {
    let pick = |n: usize| 0..n;
    (
        (pick(CHAIN_TOKENS.len()), pick(CHAIN_TOKENS.len()), any::<bool>()),
        (pick(64), pick(64), pick(AMOUNTS.len()), pick(STRATEGIES.len())),
        proptest::option::of(prop_oneof![Just("0"), Just("30"), Just("10000")]),
        proptest::option::of(prop_oneof![Just("1"), Just("100"), Just("500")]),
        proptest::option::of(pick(AMOUNTS.len())),
        (any::<bool>(), any::<bool>(), any::<bool>()),
    )
        .prop_map(|((c, d, cross), (ti, to, a, s), slippage, fee, min, (recv, refund, spender))| {
            let (chain, ins) = CHAIN_TOKENS[c];
            let (dest, outs) = if cross { CHAIN_TOKENS[d] } else { CHAIN_TOKENS[c] };
            let mut q = format!(
                "chainId={chain}&fromAddress=0xd8da6bf26964af9d7eed9e03e53415d37aa96045&tokenIn={}&tokenOut={}&amountIn={}&routingStrategy={}",
                ins[ti % ins.len()],
                outs[to % outs.len()],
                AMOUNTS[a],
                STRATEGIES[s]
            );
            if cross && dest != chain {
                q += &format!("&destinationChainId={dest}");
            }
            if let Some(bps) = slippage {
                q += &format!("&slippage={bps}");
            }
            if let Some(bps) = fee {
                q += &format!("&fee={bps}&feeReceiver=0x1111111111111111111111111111111111111111");
            }
            if let Some(m) = min {
                q += &format!("&minAmountOut={}", AMOUNTS[m]);
            }
            if recv || (cross && dest != chain) {
                q += "&receiver=0x2222222222222222222222222222222222222222";
            }
            if refund {
                q += "&refundReceiver=0x3333333333333333333333333333333333333333";
            }
            if spender && fee.is_none() {
                q += "&spender=0x4444444444444444444444444444444444444444";
            }
            q
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// Well-formed route requests, with amounts up to 2^256 - 1 and the
    /// tokens whose balances round: every answer is a transaction the
    /// server executed or a 4xx, never a server error (an amount that
    /// cannot exist, a bridge's limit, a rounding the kernel missed).
    #[test]
    fn no_route_request_yields_a_server_error(q in route_query()) {
        let (rt, env, app) = &*ENV;
        let uri = format!("/api/v1/shortcuts/route?{q}");
        let req = Request::get(&uri)
            .header("authorization", format!("Bearer {}", env.fast_key))
            .body(Body::empty())
            .expect("a valid uri");
        let res = rt.block_on(app.clone().oneshot(req)).expect("infallible service");
        let status = res.status().as_u16();
        let body = rt.block_on(axum::body::to_bytes(res.into_body(), usize::MAX)).expect("body");
        prop_assert!(status < 500, "{uri} -> {status}: {}", String::from_utf8_lossy(&body));
        let v: serde_json::Value = serde_json::from_slice(&body).expect("json bodies");
        if status == 200 {
            let amount =
                |p: &str| v[p].as_str().and_then(|s| s.parse::<alloy_primitives::U256>().ok());
            prop_assert!(amount("amountOut").is_some(), "{uri}: {v}");
            prop_assert!(amount("minAmountOut") <= amount("amountOut"), "{uri}: {v}");
        } else {
            prop_assert_eq!(v["statusCode"].as_u64(), Some(u64::from(status)));
        }
    }
}
