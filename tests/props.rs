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
