//! Replay (issue 17, §4), on the real binary: every quote and route answer
//! carries a `quoteId`; `GET /api/v1/shortcuts/quote/{quoteId}` answers the
//! same bytes again, on the same server after newer blocks, and on another
//! server running with another number of rayon threads; `atBlock` answers
//! at a held block; a block out of the ring is 410 `SNAPSHOT_EXPIRED`.

mod common;

use common::{Proc, create_key, free_port, request, temp_dir, wait_for};
use serde_json::Value;

const USDC: &str = "0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48";
const WETH: &str = "0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2";
const DAI: &str = "0x6b175474e89094c44da98b954eedeac495271d0f";
const FROM: &str = "0xd8da6bf26964af9d7eed9e03e53415d37aa96045";

/// A server on the embedded market: a block every `block_ms` (0: still),
/// `threads` rayon threads, `replay` blocks held.
fn serve(name: &str, block_ms: &str, threads: &str, replay: &str) -> (Proc, String, String) {
    let dir = temp_dir(name);
    let key = create_key(&dir, "100000");
    let addr = format!("127.0.0.1:{}", free_port());
    let proc = common::serve_ready(
        &addr,
        &dir,
        &[
            ("SWITCHYARD_EMBEDDED_BLOCK_MS", block_ms),
            ("SWITCHYARD_REPLAY_BLOCKS", replay),
            ("RAYON_NUM_THREADS", threads),
        ],
    );
    (proc, addr, key)
}

fn quote_paths() -> Vec<String> {
    let q = |extra: &str| format!("/api/v1/shortcuts/quote?chainId=1{extra}");
    vec![
        q(&format!("&tokenIn={USDC}&tokenOut={WETH}&amountIn=5000000000")),
        // Large: split over several pools.
        q(&format!("&tokenIn={USDC}&tokenOut={WETH}&amountIn=20000000000000")),
        q(&format!(
            "&tokenIn={DAI}&tokenOut={WETH}&amountIn=3000000000000000000000&fee=5&feeReceiver={FROM}&slippage=30"
        )),
        q(&format!(
            "&tokenIn={USDC}&tokenIn={DAI}&amountIn=1000000000&amountIn=2000000000000000000000&tokenOut={WETH}&fromAddress={FROM}&routingStrategy=delegate"
        )),
    ]
}

fn get(addr: &str, path: &str, key: &str) -> (u16, String) {
    let a = request(addr, "GET", path, key, "").expect("an answer");
    (a.status, a.body)
}

fn json(body: &str) -> Value {
    serde_json::from_str(body).unwrap_or(Value::Null)
}

fn replay_path(id: &str) -> String {
    format!("/api/v1/shortcuts/quote/{id}")
}

#[test]
fn a_quote_id_replays_the_same_bytes_across_servers_and_thread_counts() {
    let (_a, a, ka) = serve("replay-a", "0", "1", "64");
    let (_b, b, kb) = serve("replay-b", "0", "4", "64");
    for path in quote_paths() {
        let (status, body) = get(&a, &path, &ka);
        assert_eq!(status, 200, "{path}: {body}");
        let id = json(&body)["quoteId"].as_str().expect("a quoteId").to_owned();
        let block = json(&body)["blockNumber"].as_u64().expect("block");
        assert!(id.starts_with(&format!("1-{block}-")), "{id}");
        // Again on the same server, twice, and on the other one.
        for (addr, key) in [(&a, &ka), (&a, &ka), (&b, &kb)] {
            let (status, again) = get(addr, &replay_path(&id), key);
            assert_eq!(status, 200, "{again}");
            assert_eq!(again, body, "replayed bytes differ");
        }
        // The other server's own answer is the same bytes too.
        assert_eq!(get(&b, &path, &kb), (200, body.clone()));
        // atBlock names the block.
        assert_eq!(get(&a, &format!("{path}&atBlock={block}"), &ka), (200, body));
    }

    // A route's quoteId replays its quote: the same amounts and route.
    let route = format!(
        "/api/v1/shortcuts/route?chainId=1&fromAddress={FROM}&tokenIn={USDC}&tokenOut={WETH}&amountIn=5000000000"
    );
    let (status, body) = get(&a, &route, &ka);
    assert_eq!(status, 200, "{body}");
    let r = json(&body);
    let id = r["quoteId"].as_str().expect("a route's quoteId");
    let (status, q) = get(&b, &replay_path(id), &kb);
    assert_eq!(status, 200, "{q}");
    let q = json(&q);
    assert_eq!(q["amountOut"], r["amountOut"]);
    assert_eq!(q["route"], r["route"]);
    assert_eq!(q["blockNumber"], r["blockNumber"]);
    assert_eq!(q["quoteId"], r["quoteId"]);

    // Batch items carry replayable ids too.
    let item = format!(
        r#"{{"chainId":1,"tokenIn":"{USDC}","tokenOut":"{WETH}","amountIn":"5000000000"}}"#
    );
    let batch = request(
        &a,
        "POST",
        "/api/v1/shortcuts/quote/batch",
        &ka,
        &format!(r#"{{"quotes":[{item}]}}"#),
    )
    .expect("batch");
    assert_eq!(batch.status, 200, "{}", batch.body);
    let bq = &json(&batch.body)["results"][0]["body"];
    let (status, replayed) = get(&a, &replay_path(bq["quoteId"].as_str().expect("id")), &ka);
    assert_eq!(status, 200);
    assert_eq!(&json(&replayed), bq);

    // Bad ids are 404s naming quoteId; a block ahead of the head is a 400
    // naming atBlock.
    for bad in ["nope", "1-2-3-AAAA", "1-0-0-cXxjaGFpbklkPTE"] {
        let (status, body) = get(&a, &replay_path(bad), &ka);
        assert_eq!(status, 404, "{bad}: {body}");
        assert_eq!(json(&body)["field"], "quoteId", "{body}");
    }
    let ahead = format!("{}&atBlock=999999999999", quote_paths()[0]);
    let (status, body) = get(&a, &ahead, &ka);
    assert_eq!((status, json(&body)["field"].clone()), (400, Value::from("atBlock")), "{body}");
    let (status, body) = get(&a, &format!("{}&atBlock=x", quote_paths()[0]), &ka);
    assert_eq!((status, json(&body)["field"].clone()), (400, Value::from("atBlock")), "{body}");
}

#[test]
fn newer_blocks_leave_a_held_quote_as_it_was_until_it_leaves_the_ring() {
    // A block every 150 ms; 6 blocks held.
    let (_s, addr, key) = serve("replay-ring", "150", "2", "6");
    let path = &quote_paths()[1];
    let (status, body) = get(&addr, path, &key);
    assert_eq!(status, 200, "{body}");
    let id = json(&body)["quoteId"].as_str().expect("id").to_owned();
    let block = json(&body)["blockNumber"].as_u64().expect("block");
    let head = || json(&get(&addr, path, &key).1)["blockNumber"].as_u64().unwrap_or(0);
    wait_for("two newer blocks", 30, || head() >= block + 2);
    let (status, again) = get(&addr, &replay_path(&id), &key);
    assert_eq!(status, 200, "{again}");
    assert_eq!(again, body, "a newer block changed a held quote");
    let (status, at) = get(&addr, &format!("{path}&atBlock={block}"), &key);
    assert_eq!(status, 200, "{at}");
    assert_eq!(json(&at)["blockNumber"].as_u64(), Some(block));
    assert_eq!(json(&at)["amountOut"], json(&body)["amountOut"]);

    wait_for("the block to leave the ring", 60, || head() >= block + 7);
    let (status, gone) = get(&addr, &replay_path(&id), &key);
    assert_eq!(status, 410, "{gone}");
    let gone = json(&gone);
    assert_eq!(gone["code"], "SNAPSHOT_EXPIRED", "{gone}");
    assert_eq!(gone["field"], "quoteId", "{gone}");
    let (status, gone) = get(&addr, &format!("{path}&atBlock={block}"), &key);
    assert_eq!(status, 410, "{gone}");
    assert_eq!(json(&gone)["field"], "atBlock");
}
