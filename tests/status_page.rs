//! The operator's `/status` page in a real browser: Debian's Chromium,
//! headless, driven by `puppeteer-core` (`tests/browser/status.mjs`). The
//! page renders every chain, and its charts and tables update as quotes,
//! routes and errors flow; it loads nothing from outside the server and
//! shows no key or account id.
//!
//! `scripts/setup.sh --tests` installs Chromium; the test installs
//! `puppeteer-core` itself (`npm ci` in `tests/browser`). Set
//! `SWITCHYARD_SKIP_NODE_TESTS=1` to skip it explicitly on a machine without
//! node, npm and Chromium.

mod common;

use std::{path::Path, process::Command};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn status_page_renders_and_updates_in_chromium() {
    if common::skip_node_tests() {
        return;
    }
    let chromium = std::env::var("CHROMIUM").unwrap_or_else(|_| "/usr/bin/chromium".to_owned());
    assert!(
        Path::new(&chromium).is_file(),
        "{chromium} is missing: scripts/setup.sh --tests installs Debian's chromium"
    );
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("browser");
    let install_dir = dir.clone();
    tokio::task::spawn_blocking(move || {
        common::npm_ci(&install_dir, "node_modules/puppeteer-core/package.json")
    })
    .await
    .expect("npm task");

    let env = common::start("status-page");
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind loopback");
    let addr = listener.local_addr().expect("local addr");
    let app = switchyard_server::app(env.state.clone());
    let server = tokio::spawn(async move { axum::serve(listener, app).await });

    let base = format!("http://{addr}");
    let (key, account) = (env.fast_key.clone(), env.account_id.clone());
    let out = tokio::task::spawn_blocking(move || {
        Command::new("node")
            .arg("status.mjs")
            .arg(base)
            .arg(key)
            .arg(account)
            .env("CHROMIUM", chromium)
            .current_dir(&dir)
            .output()
    })
    .await
    .expect("node task")
    .expect("node runs");
    server.abort();
    let stdout = String::from_utf8_lossy(&out.stdout);
    eprintln!("{stdout}");
    assert!(
        out.status.success(),
        "status page checks failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains(" passed, 0 failed"), "{stdout}");
}
