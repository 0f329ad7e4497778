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

use std::path::Path;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn status_page_renders_and_updates_in_chromium() {
    let Some(dir) =
        common::node_package("browser", "node_modules/puppeteer-core/package.json").await
    else {
        return;
    };
    let chromium = std::env::var("CHROMIUM").unwrap_or_else(|_| "/usr/bin/chromium".to_owned());
    assert!(
        Path::new(&chromium).is_file(),
        "{chromium} is missing: scripts/setup.sh --tests installs Debian's chromium"
    );

    let env = common::start("status-page");
    let (addr, server) = common::serve(&env.state).await;

    let base = format!("http://{addr}");
    let (key, account) = (env.fast_key.clone(), env.account_id.clone());
    common::node_checks(
        dir,
        "status.mjs",
        vec![base, key, account],
        vec![("CHROMIUM".to_owned(), chromium)],
    )
    .await;
    server.abort();
}
