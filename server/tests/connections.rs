//! The accept loop's limits (issue 16, items 2 and 3), on a real socket:
//! a connection that never finishes its headers is closed after the header
//! timeout, an idle kept-alive one too, one connection over the cap is
//! closed at once, and shutdown closes idle and incomplete connections at
//! once while in-flight requests finish within a bounded drain.

use std::time::{Duration, Instant};

use axum::{Router, routing::get};
use switchyard_server::listener::{ConnectionLimits, serve};
use tokio::{
    io::{AsyncReadExt, AsyncWriteExt},
    net::{TcpListener, TcpStream},
    sync::oneshot,
};

fn router() -> Router {
    Router::new()
        .route("/ok", get(|| async { "ok" }))
        .route(
            "/slow",
            get(|| async {
                tokio::time::sleep(Duration::from_millis(300)).await;
                "slow"
            }),
        )
        .route(
            "/stuck",
            get(|| async {
                tokio::time::sleep(Duration::from_secs(60)).await;
                "stuck"
            }),
        )
}

/// A server with `limits`; the sender stops it, the handle ends when it
/// has drained.
async fn start(
    limits: ConnectionLimits,
) -> (std::net::SocketAddr, oneshot::Sender<()>, tokio::task::JoinHandle<()>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("addr");
    let (tx, rx) = oneshot::channel::<()>();
    let handle = tokio::spawn(serve(listener, router(), limits, async move {
        let _ = rx.await;
    }));
    (addr, tx, handle)
}

fn limits(max: usize, header_ms: u64, drain_ms: u64) -> ConnectionLimits {
    ConnectionLimits {
        max_connections: max,
        header_timeout: Duration::from_millis(header_ms),
        shutdown_drain: Duration::from_millis(drain_ms),
    }
}

/// Reads until the server closes the connection (or `within` passes:
/// `None`); the bytes read.
async fn until_closed(s: &mut TcpStream, within: Duration) -> Option<Vec<u8>> {
    let mut all = Vec::new();
    let mut buf = [0u8; 4096];
    let deadline = Instant::now() + within;
    loop {
        let left = deadline.checked_duration_since(Instant::now())?;
        match tokio::time::timeout(left, s.read(&mut buf)).await {
            Err(_) => return None,
            Ok(Ok(0) | Err(_)) => return Some(all),
            Ok(Ok(n)) => all.extend_from_slice(&buf[..n]),
        }
    }
}

async fn partial(addr: std::net::SocketAddr) -> TcpStream {
    let mut s = TcpStream::connect(addr).await.expect("connect");
    s.write_all(b"GET /ok HTTP/1.1\r\nHost: x\r\n").await.expect("write");
    s
}

async fn request(s: &mut TcpStream, path: &str) {
    let req = format!("GET {path} HTTP/1.1\r\nHost: x\r\n\r\n");
    s.write_all(req.as_bytes()).await.expect("write");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_connection_that_never_finishes_its_headers_is_closed() {
    let (addr, _stop, _h) = start(limits(8, 400, 1_000)).await;
    let t = Instant::now();
    let mut s = partial(addr).await;
    let got = until_closed(&mut s, Duration::from_secs(5)).await;
    assert!(got.is_some(), "still open after 5 s");
    let took = t.elapsed();
    assert!(took >= Duration::from_millis(350), "closed before the timeout: {took:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_idle_kept_alive_connection_is_closed_after_the_same_time() {
    let (addr, _stop, _h) = start(limits(8, 400, 1_000)).await;
    let mut s = TcpStream::connect(addr).await.expect("connect");
    request(&mut s, "/ok").await;
    let got = until_closed(&mut s, Duration::from_secs(5)).await.expect("closed");
    let text = String::from_utf8_lossy(&got);
    assert!(text.starts_with("HTTP/1.1 200") && text.ends_with("ok"), "{text}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_connection_over_the_cap_is_closed_at_once() {
    let (addr, _stop, _h) = start(limits(2, 30_000, 1_000)).await;
    let (a, _b) = (partial(addr).await, partial(addr).await);
    // Let the server accept both before the third comes.
    tokio::time::sleep(Duration::from_millis(100)).await;
    let mut third = TcpStream::connect(addr).await.expect("connect");
    let got = until_closed(&mut third, Duration::from_millis(1_000)).await;
    assert_eq!(got.as_deref(), Some(&b""[..]), "the third connection was served or held");
    // A slot freed is a connection served.
    drop(a);
    tokio::time::sleep(Duration::from_millis(100)).await;
    let mut again = TcpStream::connect(addr).await.expect("connect");
    again.write_all(b"GET /ok HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").await.expect("w");
    let got = until_closed(&mut again, Duration::from_secs(5)).await.expect("answered");
    assert!(String::from_utf8_lossy(&got).starts_with("HTTP/1.1 200"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shutdown_closes_waiting_connections_at_once_and_lets_requests_finish() {
    let (addr, stop, handle) = start(limits(8, 30_000, 5_000)).await;
    let mut waiting = partial(addr).await;
    let mut idle = TcpStream::connect(addr).await.expect("connect");
    request(&mut idle, "/ok").await;
    let mut buf = [0u8; 1024];
    let n = idle.read(&mut buf).await.expect("answer");
    assert!(String::from_utf8_lossy(&buf[..n]).starts_with("HTTP/1.1 200"));
    let mut busy = TcpStream::connect(addr).await.expect("connect");
    request(&mut busy, "/slow").await;
    tokio::time::sleep(Duration::from_millis(50)).await;
    let t = Instant::now();
    stop.send(()).expect("stop");
    // The waiting and the idle connection close at once, not after the
    // 30 s header timeout.
    assert!(until_closed(&mut waiting, Duration::from_millis(500)).await.is_some());
    assert!(until_closed(&mut idle, Duration::from_millis(500)).await.is_some());
    // The request in flight is answered, then its connection closes.
    let got = until_closed(&mut busy, Duration::from_secs(3)).await.expect("answered");
    let text = String::from_utf8_lossy(&got);
    assert!(text.starts_with("HTTP/1.1 200") && text.ends_with("slow"), "{text}");
    tokio::time::timeout(Duration::from_secs(2), handle).await.expect("drained").expect("ok");
    assert!(t.elapsed() < Duration::from_secs(2), "{:?}", t.elapsed());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_drain_is_bounded() {
    let (addr, stop, handle) = start(limits(8, 30_000, 300)).await;
    let mut stuck = TcpStream::connect(addr).await.expect("connect");
    request(&mut stuck, "/stuck").await;
    tokio::time::sleep(Duration::from_millis(50)).await;
    let t = Instant::now();
    stop.send(()).expect("stop");
    tokio::time::timeout(Duration::from_secs(3), handle).await.expect("returned").expect("ok");
    let took = t.elapsed();
    assert!(took >= Duration::from_millis(250) && took < Duration::from_secs(2), "{took:?}");
}
