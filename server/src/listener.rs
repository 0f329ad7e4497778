//! The accept loop: connections that cannot starve the server.
//!
//! `axum::serve` gives hyper no timer, so a connection that sends part of
//! its headers is held forever, every connection is accepted, and its
//! graceful shutdown waits for a connection that never finishes a request
//! (issue 16: 6,000 such connections held 460 MB, and one kept SIGTERM from
//! finishing). Here:
//!
//! - a connection has `header_timeout` to send a request's headers; a
//!   kept-alive connection waiting for its next request is under the same
//!   clock, so it is also the idle timeout;
//! - at most `max_connections` are open; one more is closed at once;
//! - on shutdown the listener closes, every connection with no request in
//!   flight (idle, or still sending headers) is closed at once, and the
//!   others finish their responses (keep-alive off) within
//!   `shutdown_drain`, after which the rest are closed.
//!
//! A connection upgraded to a WebSocket leaves hyper, but not the cap: the
//! request carries an [`Upgraded`] that the session holds until it ends,
//! with it the connection's place, and through it the session learns of
//! shutdown. Every request carries [`Stopping`], which ends the responses
//! that would not end by themselves (quote streams) when the server stops.

use std::{
    future::Future,
    pin::Pin,
    sync::{
        Arc,
        atomic::{AtomicUsize, Ordering},
    },
    task::{Context, Poll},
    time::Duration,
};

use axum::{Router, body::Body, extract::Request};
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::{net::TcpListener, sync::Semaphore};

/// How the server holds its connections.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ConnectionLimits {
    /// Open connections at most.
    pub max_connections: usize,
    /// Time a connection has to send a request's headers, and to start its
    /// next request when kept alive.
    pub header_timeout: Duration,
    /// Time in-flight requests get to finish once shutdown begins.
    pub shutdown_drain: Duration,
}

impl Default for ConnectionLimits {
    fn default() -> Self {
        Self {
            max_connections: crate::config::DEFAULT_MAX_CONNECTIONS,
            header_timeout: Duration::from_millis(crate::config::DEFAULT_HEADER_TIMEOUT_MS),
            shutdown_drain: Duration::from_millis(crate::config::DEFAULT_SHUTDOWN_DRAIN_MS),
        }
    }
}

/// Serves `router` on `listener` until `shutdown` completes, then drains
/// (see the module docs). Returns when every connection is closed or the
/// drain is over.
pub async fn serve(
    listener: TcpListener,
    router: Router,
    limits: ConnectionLimits,
    shutdown: impl Future<Output = ()>,
) {
    let max = limits.max_connections.clamp(1, Semaphore::MAX_PERMITS);
    let open = Arc::new(Semaphore::new(max));
    let (stop_tx, stop_rx) = tokio::sync::watch::channel(false);
    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(TokioTimer::new()).header_read_timeout(limits.header_timeout).keep_alive(true);
    let mut shutdown = std::pin::pin!(shutdown);
    loop {
        let (stream, _) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(c) => c,
                Err(e) => {
                    // Out of descriptors, most likely: wait rather than spin.
                    tracing::warn!(error = %e, "accept failed");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        let Ok(permit) = Arc::clone(&open).try_acquire_owned() else {
            tracing::warn!(max, "connection closed at once: the server holds its maximum");
            metrics::counter!(crate::metrics::CONNECTIONS_REFUSED).increment(1);
            drop(stream);
            continue;
        };
        let permit = Arc::new(Open::new(permit));
        let _ = stream.set_nodelay(true);
        let active = Arc::new(AtomicUsize::new(0));
        let service = {
            let (router, active) = (router.clone(), Arc::clone(&active));
            let upgraded = Upgraded { _open: Arc::clone(&permit), stop: Stopping(stop_rx.clone()) };
            hyper::service::service_fn(move |mut req: Request<hyper::body::Incoming>| {
                let (router, active) = (router.clone(), Arc::clone(&active));
                req.extensions_mut().insert(upgraded.stop.clone());
                if req.headers().contains_key(axum::http::header::UPGRADE) {
                    req.extensions_mut().insert(upgraded.clone());
                }
                async move {
                    let guard = InFlight::new(active);
                    let response = tower::ServiceExt::oneshot(router, req.map(Body::new)).await;
                    // In flight until the body is sent: the guard rides it.
                    response.map(|r| r.map(|b| Body::new(Guarded { inner: b, _guard: guard })))
                }
            })
        };
        let conn = http.serve_connection(TokioIo::new(stream), service).with_upgrades();
        let mut stop = stop_rx.clone();
        tokio::spawn(async move {
            let _permit = permit;
            let mut conn = std::pin::pin!(conn);
            let stopped = async move {
                let _ = stop.wait_for(|s| *s).await;
            };
            tokio::select! {
                r = conn.as_mut() => {
                    if let Err(e) = r {
                        tracing::debug!(error = %e, "connection ended with an error");
                    }
                }
                () = stopped => {
                    if active.load(Ordering::Acquire) == 0 {
                        // Idle, or still sending its headers: closed now.
                        return;
                    }
                    conn.as_mut().graceful_shutdown();
                    let _ = conn.await;
                }
            }
        });
    }
    drop(listener);
    let _ = stop_tx.send(true);
    // Every connection gives its permit back when it closes.
    let all = u32::try_from(max).unwrap_or(u32::MAX);
    if tokio::time::timeout(limits.shutdown_drain, open.acquire_many(all)).await.is_err() {
        tracing::warn!(
            open = max - open.available_permits(),
            "shutdown: requests still in flight after the drain are cut"
        );
    }
}

/// An open connection: its place under the cap, counted in the
/// open-connections gauge until it closes.
struct Open {
    _permit: tokio::sync::OwnedSemaphorePermit,
}

impl Open {
    fn new(permit: tokio::sync::OwnedSemaphorePermit) -> Self {
        metrics::gauge!(crate::metrics::OPEN_CONNECTIONS).increment(1.0);
        Self { _permit: permit }
    }
}

impl Drop for Open {
    fn drop(&mut self) {
        metrics::gauge!(crate::metrics::OPEN_CONNECTIONS).decrement(1.0);
    }
}

/// What a request asking to upgrade its connection carries (as a request
/// extension): the connection's place under the cap, held by whoever takes
/// the upgraded connection until it closes, and the server's stop signal.
#[derive(Clone)]
pub struct Upgraded {
    _open: Arc<Open>,
    stop: Stopping,
}

impl Upgraded {
    /// The server's stop signal.
    pub fn stop(&self) -> Stopping {
        self.stop.clone()
    }
}

/// The server's stop signal, on every request (as an extension): a
/// response that would never end by itself (a quote stream) ends with it,
/// and the shutdown's drain does not wait for it.
#[derive(Clone, Debug)]
pub struct Stopping(tokio::sync::watch::Receiver<bool>);

impl Stopping {
    /// Resolves once the server is shutting down.
    pub async fn wait(mut self) {
        let _ = self.0.wait_for(|s| *s).await;
    }
}

impl std::fmt::Debug for Upgraded {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Upgraded").finish_non_exhaustive()
    }
}

/// One request in flight on a connection, until its response body is
/// sent (or dropped).
struct InFlight(Arc<AtomicUsize>);

impl InFlight {
    fn new(count: Arc<AtomicUsize>) -> Self {
        count.fetch_add(1, Ordering::AcqRel);
        Self(count)
    }
}

impl Drop for InFlight {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

/// A response body that keeps its request counted in flight.
struct Guarded {
    inner: Body,
    _guard: InFlight,
}

impl http_body::Body for Guarded {
    type Data = axum::body::Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<http_body::Frame<Self::Data>, Self::Error>>> {
        Pin::new(&mut self.inner).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.inner.size_hint()
    }
}
