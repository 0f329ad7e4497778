//! Shared test setup: an engine on the embedded data in a temporary data
//! directory, with known keys.

#![allow(dead_code, unreachable_pub)]

use std::path::PathBuf;

use switchyard_engine::{Engine, EngineConfig, EngineHandle, KeyStore, Shutdown};
use switchyard_server::{AppState, ServerSettings};

/// A running engine plus the keys the tests use.
pub struct TestEnv {
    pub state: AppState,
    pub fast_key: String,
    pub slow_key: String,
    pub revoked_key: String,
    pub account_id: String,
    pub data_dir: PathBuf,
    _shutdown: Shutdown,
}

impl Drop for TestEnv {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.data_dir);
    }
}

/// A fresh data directory under the system temp dir.
pub fn temp_dir(name: &str) -> PathBuf {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    let d = std::env::temp_dir().join(format!("switchyard-{name}-{}-{nanos}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

/// Starts an engine on the embedded catalog and market.
pub fn start(name: &str) -> TestEnv {
    let data_dir = temp_dir(name);
    let store = KeyStore::open(&data_dir).expect("open key store");
    let fast = store.create(1_000_000.0, Some("tests")).expect("create key");
    let slow = store.create(1.0, Some("slow")).expect("create key");
    let revoked = store.create(1_000_000.0, Some("revoked")).expect("create key");
    assert!(store.revoke(&revoked.record.id.to_string()).expect("revoke"));
    drop(store);
    let (engine, shutdown) =
        Engine::start(EngineConfig { data_dir: data_dir.clone(), ..EngineConfig::default() })
            .expect("engine starts on the embedded data");
    TestEnv {
        state: AppState::new(
            engine,
            ServerSettings { body_limit_bytes: 64 * 1024, ..ServerSettings::default() },
        ),
        fast_key: fast.key,
        slow_key: slow.key,
        revoked_key: revoked.key,
        account_id: fast.record.account_id,
        data_dir,
        _shutdown: shutdown,
    }
}

impl TestEnv {
    pub fn engine(&self) -> &EngineHandle {
        &self.state.engine
    }
}
