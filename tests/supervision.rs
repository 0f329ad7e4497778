//! Kill each engine actor mid-load: every request either succeeds or fails
//! at once with a clear 503, none hangs, and the actor answers again within
//! 1 s (its supervisor restarts it in place).

mod common;

use std::{
    sync::{
        Arc,
        atomic::{AtomicBool, Ordering},
    },
    time::{Duration, Instant},
};

use alloy_primitives::{U256, address};
use axum::{body::Body, http::Request};
use switchyard_catalog::{ChainId, RoutingStrategy};
use switchyard_engine::{
    ACTOR_TIMEOUT, ActorName, EngineError, EngineHandle,
    bundle::{Action, ActionKind, Amount, BundleRequest, RouteArgs},
};
use tower::ServiceExt as _;

/// One operation that needs `which`, through the engine handle.
async fn touch(engine: &EngineHandle, which: ActorName) -> Result<(), EngineError> {
    match which {
        ActorName::KeyStore => engine.create_key(5.0, Some("probe".into())).await.map(drop),
        ActorName::VolumeRecorder => engine.volume(ChainId(1)).await.map(drop),
        ActorName::PriceCache => {
            let snapshot = (*engine.state().snapshot).clone();
            engine.publish_snapshot(snapshot).await
        }
        ActorName::EmbeddedFeed => engine.step_blocks(1).await.map(drop),
        ActorName::BundleCompiler => engine.bundle(bundle()).await.map(drop),
    }
}

/// One USDC → WETH route action, from an account that holds nothing (the
/// simulation funds it).
fn bundle() -> BundleRequest {
    let usdc = address!("a0b86991c6218b36c1d19d4a2e9eb0ce3606eb48");
    let weth = address!("c02aaa39b223fe8d0a0e5c4f27ead9083c756cc2");
    let from = address!("d8da6bf26964af9d7eed9e03e53415d37aa96045");
    BundleRequest::new(
        ChainId(1),
        from,
        RoutingStrategy::Router,
        "supervision",
        vec![Action {
            protocol: "enso".into(),
            kind: ActionKind::Route(RouteArgs {
                token_in: usdc,
                token_out: weth,
                amount_in: Amount::Value(U256::from(1_000_000_000u64)),
                slippage_bps: Some(100),
                min_amount_out: None,
                receiver: None,
                fee: None,
                ignore_aggregators: Vec::new(),
                ignore_standards: Vec::new(),
                destination_chain: None,
            }),
        }],
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_killed_actor_fails_fast_and_is_back_within_a_second() {
    let env = common::start("supervision");
    let app = switchyard_server::app(env.state.clone());
    let stop = Arc::new(AtomicBool::new(false));

    // Load over HTTP: volume reads need the recorder, key-authenticated
    // quotes need nothing but lock-free state. Every answer is a 200 or a
    // 503 naming the restarting part, and comes well within the timeout.
    let mut load = Vec::new();
    for path in [
        "/api/v1/volume/1",
        "/api/v1/shortcuts/quote?chainId=1&tokenIn=0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48&tokenOut=0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2&amountIn=1000000000",
    ] {
        let (app, stop, key) = (app.clone(), Arc::clone(&stop), env.fast_key.clone());
        load.push(tokio::spawn(async move {
            let mut answered = (0u32, 0u32);
            while !stop.load(Ordering::Relaxed) {
                let req = Request::get(path)
                    .header("authorization", format!("Bearer {key}"))
                    .body(Body::empty())
                    .expect("request");
                let t0 = Instant::now();
                let res = app.clone().oneshot(req).await.expect("infallible service");
                let took = t0.elapsed();
                let status = res.status().as_u16();
                let body = axum::body::to_bytes(res.into_body(), usize::MAX).await.expect("body");
                assert!(took < ACTOR_TIMEOUT, "{path} took {took:?}");
                match status {
                    200 => answered.0 += 1,
                    503 => {
                        let v: serde_json::Value = serde_json::from_slice(&body).expect("json");
                        assert_eq!(v["code"], "UNAVAILABLE", "{v}");
                        answered.1 += 1;
                    }
                    other => panic!("{path} -> {other}: {}", String::from_utf8_lossy(&body)),
                }
            }
            answered
        }));
    }

    let engine = env.engine().clone();
    for which in [
        ActorName::VolumeRecorder,
        ActorName::KeyStore,
        ActorName::PriceCache,
        ActorName::EmbeddedFeed,
        ActorName::BundleCompiler,
    ] {
        touch(&engine, which).await.unwrap_or_else(|e| panic!("{which:?} works before: {e:?}"));
        tokio::time::sleep(Duration::from_millis(200)).await;
        // The message that hits the panic is answered with an error at once.
        let t0 = Instant::now();
        let crashed = engine.crash_actor(which).await;
        assert!(matches!(crashed, Err(EngineError::Unavailable(_))), "{which:?}: {crashed:?}");
        assert!(t0.elapsed() < Duration::from_secs(1), "{which:?} failed slowly");
        // Back within 1 s of the crash.
        let back = loop {
            match touch(&engine, which).await {
                Ok(()) => break t0.elapsed(),
                Err(e) => {
                    assert!(t0.elapsed() < Duration::from_secs(1), "{which:?} not back: {e:?}");
                    tokio::time::sleep(Duration::from_millis(20)).await;
                }
            }
        };
        assert!(back < Duration::from_secs(1), "{which:?} back after {back:?}");
        // Keys work again end to end: a new key authenticates.
        if which == ActorName::KeyStore {
            let k = engine.create_key(3.0, None).await.expect("key store back");
            assert!(engine.authenticate(&k.key).is_ok());
        }
        assert!(engine.ready(), "{which:?}: the engine reports ready again");
    }
    // A crash loop is paced, never a spin: the third crash in a row waits.
    for _ in 0..3 {
        let _ = engine.crash_actor(ActorName::VolumeRecorder).await;
    }
    let t0 = Instant::now();
    engine.volume(ChainId(1)).await.expect("back after the backoff");
    assert!(t0.elapsed() >= Duration::from_millis(40), "restart was not paced");

    stop.store(true, Ordering::Relaxed);
    for l in load {
        let (ok, unavailable) = l.await.expect("load task");
        assert!(ok > 0, "the load made progress ({ok} ok, {unavailable} refused)");
    }
}
