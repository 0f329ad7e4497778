//! Quote streams under load (`scripts/stream-bench.sh` starts the server):
//! N server-sent-event subscribers over D distinct quotes on a running
//! server whose embedded feed moves, for S seconds.
//!
//! ```text
//! stream_fanout --addr 127.0.0.1:18095 --key sy_… --pid 1234 \
//!   [--subscribers 1000] [--distinct 100] [--seconds 30] [--stall 0|1] \
//!   [--ws 0|CONNECTIONS]
//! ```
//!
//! With `--ws N`, the subscribers are subscriptions over N WebSocket
//! connections of `/api/v1/ws` (subscriber k on connection k mod N), where
//! one connection carries many subscriptions and a block's messages share
//! its writes; without it, each subscriber is its own server-sent-event
//! connection.
//!
//! Printed:
//! - the server's RSS before and after the subscribers connected, per
//!   subscriber, and what the second half of them added, per subscriber
//!   (once every distinct quote is computed: the idle subscriber's own
//!   cost, without the computations' one-time allocations);
//! - from the server's `switchyard_stream_push_seconds` histogram (the
//!   time from a market change to each subscriber's event handed to its
//!   connection), the p50 and p99 of the window, as bucket bounds and
//!   interpolated inside their bucket; and
//!   from `switchyard_stream_round_seconds` (a market change to the last
//!   subscriber's event for it), the same per block;
//! - per block, the spread between the first and the last subscriber
//!   receiving its events (client side), p50 and p99 over the blocks;
//! - with `--stall 1`, one more subscriber that never reads its stream
//!   (with `--ws`, one more connection with one subscription, never read).

use std::{
    collections::BTreeMap,
    sync::{Arc, Mutex},
    time::{Duration, Instant},
};

use http_body_util::{BodyExt, Empty};
use hyper::{Request, body::Bytes, client::conn::http1};
use hyper_util::rt::TokioIo;
use tokio::net::TcpStream;

#[derive(Default, Clone, Copy)]
struct Arrivals {
    first: Option<Instant>,
    last: Option<Instant>,
    events: u64,
}

fn amount(k: usize, distinct: usize) -> u64 {
    1_000_000_000u64 + (k % distinct) as u64 * 7_919_000
}

fn path(k: usize, distinct: usize) -> String {
    let amount = amount(k, distinct);
    format!(
        "/api/v1/shortcuts/quote/stream?chainId=1&tokenIn=0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48&tokenOut=0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2&amountIn={amount}"
    )
}

async fn get(addr: &str, path: &str, key: &str) -> hyper::Response<hyper::body::Incoming> {
    let stream = TcpStream::connect(addr).await.expect("connect");
    let (mut send, conn) = http1::handshake(TokioIo::new(stream)).await.expect("handshake");
    tokio::spawn(conn);
    let req = Request::get(path)
        .header("host", addr)
        .header("authorization", format!("Bearer {key}"))
        .body(Empty::<Bytes>::new())
        .expect("request");
    send.send_request(req).await.expect("answer")
}

type Ws = tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<TcpStream>>;

/// A WebSocket connection to `/api/v1/ws`, subscribed to subscribers
/// `ks`' quotes (ids `s<k>`).
async fn ws_subscribed(addr: &str, key: &str, ks: &[usize], distinct: usize) -> Ws {
    use futures_util::SinkExt as _;
    use tokio_tungstenite::tungstenite::{Message, client::IntoClientRequest as _};
    let mut req = format!("ws://{addr}/api/v1/ws").into_client_request().expect("request");
    req.headers_mut().insert("authorization", format!("Bearer {key}").parse().expect("header"));
    let (mut ws, _) = tokio_tungstenite::connect_async(req).await.expect("upgrade");
    for &k in ks {
        let sub = serde_json::json!({"op": "subscribe", "id": format!("s{k}"), "quote": {
            "chainId": 1,
            "tokenIn": "0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48",
            "tokenOut": "0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2",
            "amountIn": amount(k, distinct).to_string(),
        }});
        ws.send(Message::Text(sub.to_string().into())).await.expect("subscribe");
    }
    ws
}

/// Counts an event of `block` arriving now.
fn arrived(blocks: &Mutex<BTreeMap<u64, Arrivals>>, block: u64) {
    let now = Instant::now();
    let mut m = blocks.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    let a = m.entry(block).or_default();
    a.first = Some(a.first.map_or(now, |f| f.min(now)));
    a.last = Some(a.last.map_or(now, |l| l.max(now)));
    a.events += 1;
}

fn rss_kib(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("VmRSS:"))?
                .split_whitespace()
                .next()?
                .parse()
                .ok()
        })
        .unwrap_or(0)
}

/// `(upper bound, cumulative count)` of one of the server's histograms'
/// buckets.
async fn buckets(addr: &str, name: &str) -> Vec<(f64, u64)> {
    let prefix = format!("{name}_bucket{{le=\"");
    let res = get(addr, "/metrics", "").await;
    let text = res.into_body().collect().await.map(|b| b.to_bytes()).unwrap_or_default();
    String::from_utf8_lossy(&text)
        .lines()
        .filter_map(|l| {
            let rest = l.strip_prefix(prefix.as_str())?;
            let (le, n) = rest.split_once("\"} ")?;
            let le = if le == "+Inf" { f64::INFINITY } else { le.parse().ok()? };
            Some((le, n.trim().parse().ok()?))
        })
        .collect()
}

/// The bucket bound under which a share `q` of the window's pushes fell.
/// Also the quantile interpolated linearly inside its bucket (as
/// Prometheus's `histogram_quantile` does), and the window's count.
fn quantile(before: &[(f64, u64)], after: &[(f64, u64)], q: f64) -> (f64, f64, u64) {
    let delta: Vec<(f64, u64)> = after
        .iter()
        .map(|(le, n)| {
            let b = before.iter().find(|(l, _)| l == le).map_or(0, |(_, m)| *m);
            (*le, n.saturating_sub(b))
        })
        .collect();
    let total = delta.last().map_or(0, |(_, n)| *n);
    let rank = (q * total as f64).ceil() as u64;
    let Some(k) = delta.iter().position(|(_, n)| *n >= rank.max(1)) else {
        return (f64::NAN, f64::NAN, total);
    };
    let (le, n) = delta[k];
    let (lo, below) = if k == 0 { (0.0, 0) } else { delta[k - 1] };
    let share = (q * total as f64 - below as f64) / (n - below).max(1) as f64;
    let at = if le.is_finite() { lo + (le - lo) * share.clamp(0.0, 1.0) } else { lo };
    (le, at, total)
}

fn pct(mut v: Vec<f64>, q: f64) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    v.sort_by(f64::total_cmp);
    v[((v.len() - 1) as f64 * q).round() as usize]
}

/// Subscribes `subscribers` over `conns` WebSocket connections and reads
/// them: each subscription's first message counts it connected, every
/// later one an arrival of its block.
async fn follow_ws(
    addr: &str,
    key: &str,
    subscribers: usize,
    distinct: usize,
    conns: usize,
    blocks: &Arc<Mutex<BTreeMap<u64, Arrivals>>>,
    connected: &Arc<std::sync::atomic::AtomicUsize>,
) {
    use futures_util::StreamExt as _;
    use tokio_tungstenite::tungstenite::Message;
    for c in 0..conns {
        let ks: Vec<usize> = (c..subscribers).step_by(conns).collect();
        let mut ws = ws_subscribed(addr, key, &ks, distinct).await;
        let (blocks, connected) = (Arc::clone(blocks), Arc::clone(connected));
        tokio::spawn(async move {
            let mut seen = std::collections::HashSet::new();
            while let Some(Ok(m)) = ws.next().await {
                let Message::Text(t) = m else { continue };
                let Ok(v) = serde_json::from_str::<serde_json::Value>(&t) else { continue };
                let (Some(id), Some(block)) = (v["id"].as_str(), v["blockNumber"].as_u64()) else {
                    panic!("not a quote: {t}");
                };
                if seen.insert(id.to_string()) {
                    connected.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                } else {
                    arrived(&blocks, block);
                }
            }
        });
    }
}

#[tokio::main(flavor = "multi_thread", worker_threads = 1)]
async fn main() {
    let mut args = std::env::args().skip(1);
    let (mut addr, mut key, mut pid) = (String::new(), String::new(), 0u32);
    let (mut subscribers, mut distinct, mut seconds, mut stall) = (1000usize, 100usize, 30u64, 0u8);
    let mut ws = 0usize;
    while let (Some(flag), Some(v)) = (args.next(), args.next()) {
        match flag.as_str() {
            "--addr" => addr = v,
            "--key" => key = v,
            "--pid" => pid = v.parse().expect("--pid"),
            "--subscribers" => subscribers = v.parse().expect("--subscribers"),
            "--distinct" => distinct = v.parse().expect("--distinct"),
            "--seconds" => seconds = v.parse().expect("--seconds"),
            "--stall" => stall = v.parse().expect("--stall"),
            "--ws" => ws = v.parse().expect("--ws"),
            _ => panic!("unknown flag {flag}"),
        }
    }
    let blocks: Arc<Mutex<BTreeMap<u64, Arrivals>>> = Arc::default();
    let connected = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let rss_before = rss_kib(pid);
    // A stalled consumer: subscribes and never reads its body.
    let _stalled =
        if stall > 0 && ws == 0 { Some(get(&addr, &path(0, distinct), &key).await) } else { None };
    let _stalled_ws = if stall > 0 && ws > 0 {
        Some(ws_subscribed(&addr, &key, &[0], distinct).await)
    } else {
        None
    };
    if ws > 0 {
        follow_ws(&addr, &key, subscribers, distinct, ws, &blocks, &connected).await;
    }
    let half = if ws > 0 { 0 } else { subscribers / 2 };
    // With `--ws` every subscriber is in the "second half".
    let mut rss_half = rss_before;
    for k in (0..subscribers).filter(|_| ws == 0) {
        if k == half {
            // Every distinct quote has its computation by now: what the
            // second half adds is the subscribers alone.
            while connected.load(std::sync::atomic::Ordering::Relaxed) < half {
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
            rss_half = rss_kib(pid);
        }
        let res = get(&addr, &path(k, distinct), &key).await;
        assert_eq!(res.status(), 200, "subscriber {k}");
        let (blocks, connected) = (Arc::clone(&blocks), Arc::clone(&connected));
        tokio::spawn(async move {
            let mut body = res.into_body();
            let mut buf = String::new();
            let mut counted = false;
            while let Some(Ok(frame)) = body.frame().await {
                let Ok(data) = frame.into_data() else { continue };
                buf.push_str(&String::from_utf8_lossy(&data));
                while let Some(end) = buf.find("\n\n") {
                    let ev: String = buf.drain(..end + 2).collect();
                    let Some(id) = ev.lines().find_map(|l| l.strip_prefix("id:")) else { continue };
                    let block = id.trim().split('-').nth(1).and_then(|b| b.parse().ok());
                    if !counted {
                        counted = true;
                        connected.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        continue;
                    }
                    if let Some(b) = block {
                        arrived(&blocks, b);
                    }
                }
            }
        });
    }
    while connected.load(std::sync::atomic::Ordering::Relaxed) < subscribers {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    tokio::time::sleep(Duration::from_millis(200)).await;
    let rss_after = rss_kib(pid);
    blocks.lock().unwrap_or_else(std::sync::PoisonError::into_inner).clear();
    const PUSH: &str = "switchyard_stream_push_seconds";
    const ROUND: &str = "switchyard_stream_round_seconds";
    let (before, rounds_before) = (buckets(&addr, PUSH).await, buckets(&addr, ROUND).await);
    tokio::time::sleep(Duration::from_secs(seconds)).await;
    let (after, rounds_after) = (buckets(&addr, PUSH).await, buckets(&addr, ROUND).await);
    let m = blocks.lock().unwrap_or_else(std::sync::PoisonError::into_inner).clone();
    let spreads: Vec<f64> =
        m.values().filter_map(|a| Some((a.last? - a.first?).as_secs_f64() * 1e3)).collect();
    let events: u64 = m.values().map(|a| a.events).sum();
    let (p50, p50i, n) = quantile(&before, &after, 0.5);
    let (p99, p99i, _) = quantile(&before, &after, 0.99);
    let (r50, r50i, rounds) = quantile(&rounds_before, &rounds_after, 0.5);
    let (r99, r99i, _) = quantile(&rounds_before, &rounds_after, 0.99);
    println!(
        "{subscribers} subscribers{} over {distinct} quotes{}: RSS {:.1} → {:.1} MiB ({:.1} KiB per subscriber; the second half {:.1} KiB each); {} blocks with events, {events} events in {seconds} s; server push p50 ≤ {:.1} ms (≈ {:.1}), p99 ≤ {:.1} ms (≈ {:.1}) ({n} pushes); to a block's last push p50 ≤ {:.1} ms (≈ {:.1}), p99 ≤ {:.1} ms (≈ {:.1}) ({rounds} blocks); first-to-last subscriber per block p50 {:.1} ms, p99 {:.1} ms",
        if ws > 0 { format!(" (WebSocket, {ws} connections)") } else { String::new() },
        if stall > 0 { ", one stalled consumer" } else { "" },
        rss_before as f64 / 1024.0,
        rss_after as f64 / 1024.0,
        (rss_after.saturating_sub(rss_before)) as f64 / subscribers as f64,
        (rss_after.saturating_sub(rss_half)) as f64 / (subscribers - half).max(1) as f64,
        m.len(),
        p50 * 1e3,
        p50i * 1e3,
        p99 * 1e3,
        p99i * 1e3,
        r50 * 1e3,
        r50i * 1e3,
        r99 * 1e3,
        r99i * 1e3,
        pct(spreads.clone(), 0.5),
        pct(spreads, 0.99),
    );
}
