//! Quote streams (`GET /api/v1/shortcuts/quote/stream`), read as a client
//! reads server-sent events: the first event at once, then one per block
//! whose answer differs (the embedded feed stepped block by block), none
//! for a block that leaves the answer as it was, identical subscriptions
//! sharing one computation, the per-key cap, and bad input refused before
//! any stream starts.

mod common;

use std::time::Duration;

use axum::{
    body::Body,
    http::{Request, header},
};
use http_body_util::BodyExt as _;
use serde_json::Value;
use tower::ServiceExt as _;

const QUOTE: &str = "/api/v1/shortcuts/quote/stream?chainId=1&tokenIn=0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48&tokenOut=0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2&amountIn=5000000000";

/// A server-sent event.
#[derive(Debug, Default)]
struct SseEvent {
    event: String,
    id: String,
    data: String,
}

/// Reads a response body as server-sent events.
struct SseClient {
    body: Body,
    buf: String,
}

impl SseClient {
    /// The next event (comments skipped), or `None` when `within` passes
    /// or the stream ends.
    async fn next(&mut self, within: Duration) -> Option<SseEvent> {
        let deadline = tokio::time::Instant::now() + within;
        loop {
            if let Some(end) = self.buf.find("\n\n") {
                let block: String = self.buf.drain(..end + 2).collect();
                let mut ev = SseEvent::default();
                for line in block.lines() {
                    if let Some(v) = line.strip_prefix("event:") {
                        ev.event = v.trim().to_owned();
                    } else if let Some(v) = line.strip_prefix("id:") {
                        ev.id = v.trim().to_owned();
                    } else if let Some(v) = line.strip_prefix("data:") {
                        ev.data.push_str(v.trim_start());
                    }
                }
                if ev.event.is_empty() && ev.data.is_empty() {
                    continue;
                }
                return Some(ev);
            }
            let frame = tokio::time::timeout_at(deadline, self.body.frame()).await.ok()??.ok()?;
            if let Ok(data) = frame.into_data() {
                self.buf.push_str(&String::from_utf8_lossy(&data));
            }
        }
    }
}

async fn open(app: &axum::Router, path: &str, key: &str) -> (u16, SseClient) {
    let req = Request::get(path)
        .header(header::AUTHORIZATION, format!("Bearer {key}"))
        .body(Body::empty())
        .expect("request");
    let res = app.clone().oneshot(req).await.expect("answer");
    let status = res.status().as_u16();
    if status == 200 {
        let h = res.headers();
        assert_eq!(
            h.get(header::CONTENT_TYPE).and_then(|v| v.to_str().ok()),
            Some("text/event-stream")
        );
        assert_eq!(h.get(header::CACHE_CONTROL).and_then(|v| v.to_str().ok()), Some("no-cache"));
    }
    (status, SseClient { body: res.into_body(), buf: String::new() })
}

async fn get(app: &axum::Router, path: &str, key: &str) -> Value {
    common::get_json(app, path, key).await.1
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stream_pushes_one_event_per_changed_block() {
    let env = common::start("stream");
    let app = switchyard_server::app(env.state.clone());
    let (status, mut a) = open(&app, QUOTE, &env.fast_key).await;
    assert_eq!(status, 200);
    let first = a.next(Duration::from_secs(10)).await.expect("the first event at once");
    assert_eq!(first.event, "quote");
    let q: Value = serde_json::from_str(&first.data).expect("json");
    assert_eq!(q["quoteId"].as_str(), Some(first.id.as_str()));
    let single = get(&app, &QUOTE.replace("/quote/stream?", "/quote?"), &env.fast_key).await;
    assert_eq!(q["amountOut"], single["amountOut"]);
    assert_eq!(q["blockNumber"], single["blockNumber"]);
    // A second, identical subscription shares the computation and gets the
    // current answer at once.
    let (_, mut b) = open(&app, QUOTE, &env.fast_key).await;
    let b_first = b.next(Duration::from_secs(10)).await.expect("b's first event");
    assert_eq!(b_first.data, first.data);

    // Block by block: an event exactly when the answer changed.
    let mut last = single;
    let (mut changed, mut unchanged) = (0, 0);
    for _ in 0..12 {
        assert_eq!(env.engine().step_blocks(1).await.expect("a block"), 1);
        let now = get(&app, &QUOTE.replace("/quote/stream?", "/quote?"), &env.fast_key).await;
        let moved = now["amountOut"] != last["amountOut"]
            || now["route"] != last["route"]
            || now["priceImpact"] != last["priceImpact"]
            || now["gas"] != last["gas"];
        if moved {
            changed += 1;
            let ev = a.next(Duration::from_secs(10)).await.expect("an event for a changed block");
            let v: Value = serde_json::from_str(&ev.data).expect("json");
            assert_eq!(v["amountOut"], now["amountOut"], "{v}");
            assert_eq!(v["blockNumber"], now["blockNumber"]);
            assert!(ev.id.contains(&format!("-{}-", now["blockNumber"])), "{}", ev.id);
        } else {
            unchanged += 1;
            assert!(
                a.next(Duration::from_millis(300)).await.is_none(),
                "an event for a block that left the answer as it was"
            );
        }
        last = now;
    }
    assert!(changed > 0, "no block moved the quote: the test proves nothing");
    eprintln!("{changed} blocks changed the answer, {unchanged} did not");
    drop((a, b));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_requests_are_refused_before_streaming_and_keys_are_capped() {
    let env = common::start("stream-limits");
    let app = switchyard_server::app(env.state.clone());
    let (status, bad) =
        open(&app, &QUOTE.replace("amountIn=5000000000", "amountIn=1.5"), &env.fast_key).await;
    assert_eq!(status, 400);
    let body = bad.body.collect().await.expect("body").to_bytes();
    assert!(String::from_utf8_lossy(&body).contains("amountIn"));
    let (status, _) = open(&app, QUOTE, "sy_nope").await;
    assert_eq!(status, 401);

    // A key of its own, capped at the default 100 streams.
    let key = env.engine().create_key(1_000.0, None).await.expect("key").key;
    let mut held = Vec::new();
    for _ in 0..100 {
        let (status, s) = open(&app, QUOTE, &key).await;
        assert_eq!(status, 200);
        held.push(s);
    }
    let (status, _) = open(&app, QUOTE, &key).await;
    assert_eq!(status, 429, "the 101st stream of one key");
    assert_eq!(env.state.streams.open(), 100);
    // Closing one frees its place.
    drop(held.pop());
    tokio::time::sleep(Duration::from_millis(50)).await;
    let (status, mut again) = open(&app, QUOTE, &key).await;
    assert_eq!(status, 200);
    assert!(again.next(Duration::from_secs(10)).await.is_some_and(|e| e.event == "quote"));
}

/// The same subscriptions over a WebSocket (`tokio-tungstenite` as the
/// client): quotes pushed per changed block, errors per message, and
/// unsubscribing stops them.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn websocket_subscriptions_push_quotes_and_answer_errors() {
    use futures_util::{SinkExt as _, StreamExt as _};
    use tokio_tungstenite::tungstenite::{Message, client::IntoClientRequest as _};

    let env = common::start("ws");
    let (addr, server) = common::serve(&env.state).await;

    let url = format!("ws://{addr}/api/v1/ws");
    let unauthenticated = tokio_tungstenite::connect_async(url.as_str()).await;
    assert!(unauthenticated.is_err(), "an upgrade without a key");
    let mut req = url.as_str().into_client_request().expect("request");
    req.headers_mut()
        .insert(header::AUTHORIZATION, format!("Bearer {}", env.fast_key).parse().expect("header"));
    let (ws, _) = tokio_tungstenite::connect_async(req).await.expect("upgrade");
    let (mut tx, mut rx) = ws.split();
    let mut next = async move || -> Option<Value> {
        loop {
            match tokio::time::timeout(Duration::from_millis(1500), rx.next()).await.ok()?? {
                Ok(Message::Text(t)) => return serde_json::from_str(&t).ok(),
                Ok(_) => continue,
                Err(_) => return None,
            }
        }
    };
    let quote = serde_json::json!({
        "chainId": 1,
        "tokenIn": "0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48",
        "tokenOut": "0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2",
        "amountIn": "5000000000"
    });
    let send = |v: Value| Message::Text(v.to_string().into());
    tx.send(send(serde_json::json!({"op": "subscribe", "id": "a", "quote": quote})))
        .await
        .expect("send");
    let first = next().await.expect("the first quote");
    let app = switchyard_server::app(env.state.clone());
    let single = get(&app, &QUOTE.replace("/quote/stream?", "/quote?"), &env.fast_key).await;
    assert_eq!(first["id"], "a");
    assert_eq!(first["quote"]["amountOut"], single["amountOut"], "{first}");
    assert_eq!(first["blockNumber"], single["blockNumber"]);
    assert_eq!(first["quoteId"], first["quote"]["quoteId"]);

    // Errors name the message's id and field.
    let bad = serde_json::json!({"op": "subscribe", "id": "b", "quote": {"chainId": 1, "tokenIn": "0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48", "tokenOut": "0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2", "amountIn": "1.5"}});
    tx.send(send(bad)).await.expect("send");
    let e = next().await.expect("an error");
    assert_eq!(e["id"], "b");
    assert_eq!(e["error"]["statusCode"], 400);
    assert!(e["error"]["field"].as_str().is_some_and(|f| f.starts_with("quote.amountIn")), "{e}");
    tx.send(Message::Text("{\"op\":\"subscribe\"}".into())).await.expect("send");
    let e = next().await.expect("an error");
    assert_eq!((e["id"].clone(), e["error"]["field"].clone()), (Value::Null, Value::from("id")));
    tx.send(send(serde_json::json!({"op": "unsubscribe", "id": "zz"}))).await.expect("send");
    assert_eq!(next().await.expect("an error")["error"]["statusCode"], 404);
    tx.send(send(serde_json::json!({"op": "subscribe", "id": "a", "quote": quote})))
        .await
        .expect("send");
    assert_eq!(next().await.expect("an error")["error"]["field"], "id", "a second `a`");

    // Blocks: a message for `a` when its answer changes.
    let mut pushed = 0;
    for _ in 0..12 {
        env.engine().step_blocks(1).await.expect("a block");
        let now = get(&app, &QUOTE.replace("/quote/stream?", "/quote?"), &env.fast_key).await;
        if now["amountOut"] != single["amountOut"] && pushed == 0 {
            let m = next().await.expect("a pushed quote");
            assert_eq!(
                (m["id"].clone(), m["blockNumber"].clone()),
                (Value::from("a"), now["blockNumber"].clone())
            );
            pushed += 1;
            break;
        }
    }
    assert_eq!(pushed, 1, "no block changed the quote");
    // Unsubscribed: nothing more.
    tx.send(send(serde_json::json!({"op": "unsubscribe", "id": "a"}))).await.expect("send");
    tokio::time::sleep(Duration::from_millis(100)).await;
    for _ in 0..6 {
        env.engine().step_blocks(1).await.expect("a block");
    }
    assert!(next().await.is_none(), "a message after unsubscribing");
    server.abort();
}

/// Accept-loop limits whose shutdown drain (20 s) is far longer than a
/// test waits: a shutdown that ends in time did not wait for the drain.
fn drained_slowly(max_connections: usize) -> switchyard_server::listener::ConnectionLimits {
    switchyard_server::listener::ConnectionLimits {
        max_connections,
        header_timeout: Duration::from_secs(5),
        shutdown_drain: Duration::from_secs(20),
    }
}

/// A WebSocket through the binary's own accept loop: the upgrade goes
/// through, the upgraded connection keeps its place under the connection
/// cap until it closes, and a stopping server sends it a close frame
/// (1001, going away) instead of holding its drain.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_websocket_holds_its_place_under_the_cap_and_is_closed_at_shutdown() {
    use futures_util::{SinkExt as _, StreamExt as _};
    use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
    use tokio_tungstenite::tungstenite::{
        Message, client::IntoClientRequest as _, protocol::frame::coding::CloseCode,
    };

    let env = common::start("ws-listener");
    let (addr, stop, handle) = common::serve_with(&env.state, drained_slowly(1)).await;
    let connect = async || {
        // The connection before may still hold the only place for a
        // moment after the client sees it closed: refused handshakes are
        // tried again, for up to 2 s.
        let mut ws = None;
        for _ in 0..40 {
            let mut req = format!("ws://{addr}/api/v1/ws").into_client_request().expect("request");
            req.headers_mut().insert(
                header::AUTHORIZATION,
                format!("Bearer {}", env.fast_key).parse().expect("header"),
            );
            if let Ok((w, _)) = tokio_tungstenite::connect_async(req).await {
                ws = Some(w);
                break;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        let mut ws = ws.expect("upgraded within 2 s");
        let sub = serde_json::json!({"op": "subscribe", "id": "a", "quote": {
            "chainId": 1,
            "tokenIn": "0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48",
            "tokenOut": "0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2",
            "amountIn": "5000000000"
        }});
        ws.send(Message::Text(sub.to_string().into())).await.expect("subscribe");
        let first = tokio::time::timeout(Duration::from_secs(5), ws.next())
            .await
            .expect("the first quote in time")
            .expect("a message")
            .expect("a frame");
        let first: Value = serde_json::from_str(first.to_text().expect("text")).expect("json");
        assert_eq!(first["id"], "a", "{first}");
        assert!(first["quote"]["amountOut"].as_str().is_some(), "{first}");
        ws
    };
    // The only place is the WebSocket's: one more connection is closed at
    // once, unanswered.
    let mut ws = connect().await;
    let health = async || {
        let mut s = tokio::net::TcpStream::connect(addr).await.expect("connect");
        s.write_all(b"GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            .await
            .expect("write");
        let mut out = Vec::new();
        let _ = tokio::time::timeout(Duration::from_secs(3), s.read_to_end(&mut out)).await;
        String::from_utf8_lossy(&out).into_owned()
    };
    assert_eq!(health().await, "", "a connection over the cap is answered");
    // Closed by the client: the place is free again.
    ws.close(None).await.expect("close");
    drop(ws);
    let mut answered = String::new();
    for _ in 0..40 {
        answered = health().await;
        if !answered.is_empty() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(answered.starts_with("HTTP/1.1 200"), "after the WebSocket closed: {answered:?}");

    // Stopping: the session is closed with 1001 at once, and the drain
    // does not wait for it.
    let mut ws = connect().await;
    let t = std::time::Instant::now();
    stop.send(()).expect("the server runs");
    let close = loop {
        match tokio::time::timeout(Duration::from_secs(5), ws.next()).await {
            Ok(Some(Ok(Message::Close(frame)))) => break frame,
            Ok(Some(Ok(_))) => continue,
            other => panic!("no close frame: {other:?}"),
        }
    };
    assert_eq!(close.map(|f| f.code), Some(CloseCode::Away));
    tokio::time::timeout(Duration::from_secs(5), handle)
        .await
        .expect("the server drains without waiting for the WebSocket")
        .expect("the accept loop ends");
    assert!(t.elapsed() < Duration::from_secs(5), "{:?}", t.elapsed());
}

/// A quote stream through the binary's own accept loop ends when the
/// server stops, so the shutdown's drain does not wait for it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stream_ends_when_the_server_stops() {
    use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};

    let env = common::start("sse-listener");
    let (addr, stop, handle) = common::serve_with(&env.state, drained_slowly(8)).await;
    let mut s = tokio::net::TcpStream::connect(addr).await.expect("connect");
    let req = format!(
        "GET {QUOTE} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {}\r\n\r\n",
        env.fast_key
    );
    s.write_all(req.as_bytes()).await.expect("write");
    let mut seen = Vec::new();
    let mut buf = [0u8; 8192];
    while !String::from_utf8_lossy(&seen).contains("event: quote") {
        let n = tokio::time::timeout(Duration::from_secs(5), s.read(&mut buf))
            .await
            .expect("the first event in time")
            .expect("read");
        assert!(n > 0, "closed before the first event: {}", String::from_utf8_lossy(&seen));
        seen.extend_from_slice(&buf[..n]);
    }
    let t = std::time::Instant::now();
    stop.send(()).expect("the server runs");
    // The stream's body ends (chunked encoding's last chunk) and the
    // connection closes.
    let mut rest = Vec::new();
    tokio::time::timeout(Duration::from_secs(5), s.read_to_end(&mut rest))
        .await
        .expect("the stream ends at shutdown")
        .expect("read");
    assert!(String::from_utf8_lossy(&rest).ends_with("0\r\n\r\n"), "{:?}", rest);
    tokio::time::timeout(Duration::from_secs(5), handle)
        .await
        .expect("the server drains without waiting for the stream")
        .expect("the accept loop ends");
    assert!(t.elapsed() < Duration::from_secs(5), "{:?}", t.elapsed());
}
