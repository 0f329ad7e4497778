//! The engine through its handle: keys made by another process apply while
//! it runs, volume survives a restart, published snapshots re-derive prices.

use std::{
    path::{Path, PathBuf},
    time::Duration,
};

use switchyard_catalog::{ChainId, NATIVE_TOKEN};
use switchyard_engine::{Engine, EngineConfig, EngineError, KeyStore};
use switchyard_kernel::MarketSnapshot;

fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("switchyard-engine-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

fn config(dir: &Path) -> EngineConfig {
    EngineConfig { data_dir: dir.to_path_buf(), ..EngineConfig::default() }
}

async fn eventually<F: Fn() -> bool>(what: &str, f: F) {
    for _ in 0..100 {
        if f() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("{what} did not happen within 2 s");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn first_start_creates_one_documentation_key() {
    let dir = temp_dir("doc-key");
    let (engine, shutdown) = Engine::start(config(&dir)).expect("engine starts");
    let k = engine
        .ensure_documentation_key()
        .await
        .expect("store works")
        .expect("created on an empty store");
    assert_eq!(k.record.rate_per_s, 1.0);
    assert!(engine.authenticate(&k.key).is_ok());
    assert!(engine.ensure_documentation_key().await.expect("store works").is_none());
    // 1 request per second: the second one at once is refused.
    let rec = engine.authenticate(&k.key).expect("valid");
    assert!(engine.admit(&rec).await.expect("local limiter").retry_after.is_none());
    assert!(engine.admit(&rec).await.expect("local limiter").retry_after.is_some());
    shutdown.stop();
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn keys_changed_by_another_process_apply_without_restart() {
    let dir = temp_dir("cli-keys");
    let (engine, shutdown) = Engine::start(config(&dir)).expect("engine starts");
    // What `switchyard keys create` does: its own connection to the same file.
    let cli = KeyStore::open(&dir).expect("open");
    let k = cli.create(5.0, Some("bot")).expect("create");
    eventually("a new key is accepted", || engine.authenticate(&k.key).is_ok()).await;
    assert!(cli.revoke(&k.record.prefix).expect("revoke"));
    eventually("a revoked key is refused", || {
        matches!(engine.authenticate(&k.key), Err(EngineError::Revoked))
    })
    .await;
    // And a key made through the handle is usable at once.
    let k2 = engine.create_key(3.0, None).await.expect("create through the engine");
    assert_eq!(engine.authenticate(&k2.key).expect("valid").account_id, k2.record.account_id);
    shutdown.stop();
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn volume_is_persisted_across_restarts() {
    let dir = temp_dir("volume");
    {
        let (engine, shutdown) = Engine::start(config(&dir)).expect("engine starts");
        engine.record_volume(ChainId(1), 1500.5);
        engine.record_volume(ChainId(1), 499.5);
        engine.record_volume(ChainId(10), 7.0);
        shutdown.stop();
    }
    let (engine, shutdown) = Engine::start(config(&dir)).expect("engine restarts");
    let v = engine.volume(ChainId(1)).await.expect("volume");
    assert_eq!((v.total_usd, v.transactions), (2000.0, 2));
    let v = engine.volume(ChainId(8453)).await.expect("volume");
    assert_eq!((v.total_usd, v.transactions), (0.0, 0));
    shutdown.stop();
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn publishing_a_snapshot_rederives_prices() {
    let dir = temp_dir("publish");
    let (engine, shutdown) = Engine::start(config(&dir)).expect("engine starts");
    let before = engine.state();
    assert!(before.prices.get(ChainId(1), NATIVE_TOKEN).is_some());
    assert!(!engine.feeds().is_empty() && engine.ready());
    engine.publish_snapshot(MarketSnapshot::default()).await.expect("publish");
    let after = engine.state();
    assert!(after.prices.is_empty(), "an empty market prices nothing");
    assert!(engine.feeds().is_empty());
    // Readers that loaded the old state keep a consistent view.
    assert!(before.prices.get(ChainId(1), NATIVE_TOKEN).is_some());
    shutdown.stop();
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_bad_market_file_is_a_typed_error() {
    let dir = temp_dir("bad-market");
    std::fs::create_dir_all(&dir).expect("dir");
    let market = dir.join("market.json");
    std::fs::write(&market, r#"{"pools":[{"kind":"uniswapV2"}]}"#).expect("write");
    let err = Engine::start(EngineConfig {
        data_dir: dir.clone(),
        market_file: Some(market),
        ..EngineConfig::default()
    })
    .expect_err("must not start");
    assert!(matches!(err, EngineError::Catalog(_)), "{err:?}");
    let _ = std::fs::remove_dir_all(&dir);
}
