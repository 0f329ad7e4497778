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
    start_with(name, EngineConfig::default())
}

/// [`start`], with `config` (its data directory replaced by a fresh one).
pub fn start_with(name: &str, config: EngineConfig) -> TestEnv {
    let data_dir = temp_dir(name);
    let store = KeyStore::open(&data_dir).expect("open key store");
    let fast = store.create(1_000_000.0, Some("tests")).expect("create key");
    let slow = store.create(1.0, Some("slow")).expect("create key");
    let revoked = store.create(1_000_000.0, Some("revoked")).expect("create key");
    assert!(store.revoke(&revoked.record.id.to_string()).expect("revoke"));
    drop(store);
    let (engine, shutdown) = Engine::start(EngineConfig { data_dir: data_dir.clone(), ..config })
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

/// Whether the tests that need node, npm (and Chromium) are skipped on
/// purpose (`SWITCHYARD_SKIP_NODE_TESTS`); says so when they are.
pub fn skip_node_tests() -> bool {
    let skip = std::env::var_os("SWITCHYARD_SKIP_NODE_TESTS").is_some();
    if skip {
        eprintln!("skipped: SWITCHYARD_SKIP_NODE_TESTS is set");
    }
    skip
}

/// `npm ci` in `dir`, unless `installed` (a path under `dir`) is there.
pub fn npm_ci(dir: &std::path::Path, installed: &str) {
    if dir.join(installed).is_file() {
        return;
    }
    let out = std::process::Command::new("npm")
        .args(["ci", "--no-audit", "--no-fund", "--loglevel=error"])
        .current_dir(dir)
        .output()
        .expect("npm runs (install node and npm, or set SWITCHYARD_SKIP_NODE_TESTS=1)");
    assert!(out.status.success(), "npm ci failed:\n{}", String::from_utf8_lossy(&out.stderr));
}

/// The app over `state` served on a free loopback port (a real socket, for
/// clients outside the process or upgrades) through the binary's own
/// accept loop; abort the handle to stop it.
pub async fn serve(state: &AppState) -> (std::net::SocketAddr, tokio::task::JoinHandle<()>) {
    serve_until(state, Default::default(), std::future::pending()).await
}

/// [`serve`] with `limits`: the sender starts the accept loop's shutdown,
/// and the handle ends when it has drained.
pub async fn serve_with(
    state: &AppState,
    limits: switchyard_server::listener::ConnectionLimits,
) -> (std::net::SocketAddr, tokio::sync::oneshot::Sender<()>, tokio::task::JoinHandle<()>) {
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let (addr, handle) = serve_until(state, limits, async {
        let _ = stopped.await;
    })
    .await;
    (addr, stop, handle)
}

async fn serve_until(
    state: &AppState,
    limits: switchyard_server::listener::ConnectionLimits,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> (std::net::SocketAddr, tokio::task::JoinHandle<()>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind loopback");
    let addr = listener.local_addr().expect("local addr");
    let app = switchyard_server::app(state.clone());
    (addr, tokio::spawn(switchyard_server::listener::serve(listener, app, limits, shutdown)))
}

/// The node package under `tests/<name>`, installed (`npm ci` unless
/// `installed` is there), or `None` when node tests are skipped on
/// purpose.
pub async fn node_package(name: &str, installed: &'static str) -> Option<PathBuf> {
    if skip_node_tests() {
        return None;
    }
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(name);
    let install_dir = dir.clone();
    tokio::task::spawn_blocking(move || npm_ci(&install_dir, installed)).await.expect("npm task");
    Some(dir)
}

/// Runs `node <script> <args…>` in `dir` (with `envs`), prints its output,
/// and fails unless it exits 0 and reports ` passed, 0 failed`.
pub async fn node_checks(
    dir: PathBuf,
    script: &str,
    args: Vec<String>,
    envs: Vec<(String, String)>,
) {
    let script = script.to_owned();
    let out = tokio::task::spawn_blocking(move || {
        std::process::Command::new("node")
            .arg(&script)
            .args(&args)
            .envs(envs)
            .current_dir(&dir)
            .output()
    })
    .await
    .expect("node task")
    .expect("node runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    eprintln!("{stdout}");
    assert!(
        out.status.success(),
        "node checks failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains(" passed, 0 failed"), "{stdout}");
}

/// `GET path` through the router with `key` as a bearer token: the status
/// and the body as JSON (`Null` when it is not).
pub async fn get_json(app: &axum::Router, path: &str, key: &str) -> (u16, serde_json::Value) {
    use http_body_util::BodyExt as _;
    use tower::ServiceExt as _;
    let req = axum::http::Request::get(path)
        .header(axum::http::header::AUTHORIZATION, format!("Bearer {key}"))
        .body(axum::body::Body::empty())
        .expect("request");
    let res = app.clone().oneshot(req).await.expect("answer");
    let status = res.status().as_u16();
    let bytes = res.into_body().collect().await.expect("body").to_bytes();
    (status, serde_json::from_slice(&bytes).unwrap_or(serde_json::Value::Null))
}
