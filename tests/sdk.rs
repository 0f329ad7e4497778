//! The official TypeScript client (`@ensofinance/sdk` 2.5.0), pointed at a
//! running server with only `baseURL` changed, calls every metadata method
//! and gets the shapes it declares (`tests/sdk/check.mjs`).
//!
//! The test installs the client itself (`npm ci` in `tests/sdk`). It needs
//! `node` and `npm` on the PATH; set `SWITCHYARD_SKIP_NODE_TESTS=1` to skip
//! it explicitly on a machine without them.

mod common;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn official_client_reads_every_metadata_endpoint() {
    let Some(dir) = common::node_package("sdk", "node_modules/@ensofinance/sdk/package.json").await
    else {
        return;
    };

    let env = common::start("sdk");
    let (addr, server) = common::serve(&env.state).await;

    let base = format!("http://{addr}/api/v1");
    let key = env.fast_key.clone();
    common::node_checks(dir, "check.mjs", vec![base, key], Vec::new()).await;
    server.abort();
}
