//! The official TypeScript client (`@ensofinance/sdk` 2.5.0), pointed at a
//! running server with only `baseURL` changed, calls every metadata method
//! and gets the shapes it declares (`tests/sdk/check.mjs`).
//!
//! The test installs the client itself (`npm ci` in `tests/sdk`). It needs
//! `node` and `npm` on the PATH; set `SWITCHYARD_SKIP_NODE_TESTS=1` to skip
//! it explicitly on a machine without them.

mod common;

use std::{path::Path, process::Command};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn official_client_reads_every_metadata_endpoint() {
    if common::skip_node_tests() {
        return;
    }
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("sdk");
    let install_dir = dir.clone();
    tokio::task::spawn_blocking(move || {
        common::npm_ci(&install_dir, "node_modules/@ensofinance/sdk/package.json")
    })
    .await
    .expect("npm task");

    let env = common::start("sdk");
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind loopback");
    let addr = listener.local_addr().expect("local addr");
    let app = switchyard_server::app(env.state.clone());
    let server = tokio::spawn(async move { axum::serve(listener, app).await });

    let base = format!("http://{addr}/api/v1");
    let key = env.fast_key.clone();
    let out = tokio::task::spawn_blocking(move || {
        Command::new("node").arg("check.mjs").arg(base).arg(key).current_dir(&dir).output()
    })
    .await
    .expect("node task")
    .expect("node runs");
    server.abort();
    let stdout = String::from_utf8_lossy(&out.stdout);
    eprintln!("{stdout}");
    assert!(
        out.status.success(),
        "client checks failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains(" passed, 0 failed"), "{stdout}");
}
