//! Metadata path benchmarks: query parsing, snapshot build, price derivation,
//! and whole requests through the router (no socket).
//!
//! Run with `cargo bench -p switchyard-benches --bench metadata`.

use std::hint::black_box;

use axum::{body::Body, http::Request};
use criterion::{Criterion, criterion_group, criterion_main};
use switchyard_catalog::loaders;
use switchyard_engine::{Engine, EngineConfig, KeyStore};
use switchyard_kernel::{MarketSnapshot, derive_prices, usd_anchors};
use switchyard_server::{AppState, ServerSettings, app, query::Query};
use tower::ServiceExt as _;

fn kernel(c: &mut Criterion) {
    let catalog = loaders::embedded_catalog().expect("catalog");
    let market = loaders::embedded_market(&catalog).expect("market");
    let snapshot = MarketSnapshot::build(&market, &catalog).expect("snapshot");
    let anchors = usd_anchors(&catalog);
    c.bench_function("snapshot/build/demo_market", |b| {
        b.iter(|| MarketSnapshot::build(black_box(&market), &catalog).expect("snapshot"))
    });
    c.bench_function("prices/derive/demo_market", |b| {
        b.iter(|| derive_prices(black_box(&snapshot), &anchors))
    });
}

fn query(c: &mut Criterion) {
    let q = "chainId=1&type=defi&underlyingTokens[]=0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48\
             &underlyingTokens[]=0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2&page=1&pageSize=100\
             &includeMetadata=true&symbol=USDC%2CWETH";
    c.bench_function("query/parse/tokens_sdk_style", |b| {
        b.iter(|| Query::parse(black_box(q)).expect("parses"))
    });
}

fn http(c: &mut Criterion) {
    let dir = std::env::temp_dir().join(format!("switchyard-bench-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let key = KeyStore::open(&dir).expect("store").create(1e12, None).expect("key").key;
    let (engine, _shutdown) =
        Engine::start(EngineConfig { data_dir: dir.clone(), ..EngineConfig::default() })
            .expect("engine");
    let router = app(AppState::new(engine, ServerSettings::default()));
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
    let auth = format!("Bearer {key}");
    for (name, path) in [
        ("http/health", "/health"),
        ("http/networks", "/api/v1/networks"),
        (
            "http/tokens/chain1_defi_metadata",
            "/api/v1/tokens?chainId=1&type=defi&includeMetadata=true",
        ),
        ("http/tokens/all", "/api/v1/tokens"),
        (
            "http/prices/3_tokens",
            "/api/v1/prices/1?addresses=0x2260fac5e5542a773aa44fbcfedf7c193bc2c599,0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2,0x7f39c581f595b53c5cb19bd0b3f8da6c935e2ca0",
        ),
    ] {
        c.bench_function(name, |b| {
            b.iter(|| {
                let req = Request::get(path)
                    .header("authorization", &auth)
                    .body(Body::empty())
                    .expect("request");
                rt.block_on(async {
                    let res = router.clone().oneshot(req).await.expect("infallible");
                    assert!(res.status().is_success());
                    axum::body::to_bytes(res.into_body(), usize::MAX).await.expect("body")
                })
            })
        });
    }
    let _ = std::fs::remove_dir_all(&dir);
}

criterion_group!(benches, kernel, query, http);
criterion_main!(benches);
