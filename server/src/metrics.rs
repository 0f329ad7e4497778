//! Metrics through the `metrics` facade, rendered by its Prometheus
//! recorder at `/metrics`.
//!
//! The recorder is process-wide: the engine and the transaction layer
//! record their search, simulation and publication times through the same
//! facade. Every histogram is a Prometheus histogram with the buckets of
//! [`BUCKETS`], so p50 and p99 can be read with `histogram_quantile`.
//!
//! Label cardinality is bounded whatever clients send: requests are
//! labelled by route template (`unmatched` for any path no route has) and
//! by method, where a method outside the standard ones is `OTHER`; feed
//! series by (chain, source), which the configuration fixes.

use std::{
    collections::BTreeMap,
    sync::OnceLock,
    time::{Duration, Instant},
};

use axum::http::Method;
use metrics_exporter_prometheus::{PrometheusBuilder, PrometheusHandle};
use switchyard_engine::{EngineHandle, FeedState, PUBLICATION_SECONDS, observe};

use crate::status::StatusBoard;

/// Counter: requests by route template, method and status.
pub const HTTP_REQUESTS: &str = "switchyard_http_requests_total";
/// Histogram: seconds to answer, by route template and method.
pub const HTTP_DURATION: &str = "switchyard_http_request_duration_seconds";
/// Counter: requests refused by a rate limit.
pub const RATE_LIMITED: &str = "switchyard_rate_limited_total";
/// Gauge: connections open now.
pub const OPEN_CONNECTIONS: &str = "switchyard_open_connections";
/// Counter: connections closed at once because the server held its
/// maximum.
pub const CONNECTIONS_REFUSED: &str = "switchyard_connections_refused_total";

/// Histogram buckets, in seconds: 50 µs to 30 s.
pub const BUCKETS: [f64; 18] = [
    0.000_05, 0.000_1, 0.000_25, 0.000_5, 0.001, 0.002_5, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5,
    1.0, 2.5, 5.0, 10.0, 30.0,
];

/// Buckets of [`crate::stream::PUSH_SECONDS`] and
/// [`crate::stream::ROUND_SECONDS`]: 0.5 ms to 1 s.
pub const PUSH_BUCKETS: [f64; 16] = [
    0.000_5, 0.001, 0.002, 0.003, 0.004, 0.005, 0.007_5, 0.01, 0.015, 0.02, 0.03, 0.05, 0.1, 0.25,
    0.5, 1.0,
];

/// How often histogram samples are folded into their buckets when nobody
/// scrapes (the recorder keeps raw samples until then).
const UPKEEP: Duration = Duration::from_secs(5);

/// The process's recorder, installed by the first [`Metrics`].
fn recorder() -> &'static PrometheusHandle {
    static HANDLE: OnceLock<PrometheusHandle> = OnceLock::new();
    HANDLE.get_or_init(|| {
        let builder = PrometheusBuilder::new();
        let builder = match builder.set_buckets(&BUCKETS) {
            Ok(b) => b,
            // Only an empty bucket list is refused.
            Err(_) => PrometheusBuilder::new(),
        };
        // Stream pushes are judged in milliseconds: finer buckets.
        let builder = [crate::stream::PUSH_SECONDS, crate::stream::ROUND_SECONDS].into_iter().fold(
            builder,
            |b, name| {
                b.set_buckets_for_metric(
                    metrics_exporter_prometheus::Matcher::Full(name.to_owned()),
                    &PUSH_BUCKETS,
                )
                .unwrap_or_else(|_| PrometheusBuilder::new())
            },
        );
        let recorder = builder.build_recorder();
        let handle = recorder.handle();
        if metrics::set_global_recorder(recorder).is_err() {
            tracing::warn!("a metrics recorder was already installed: /metrics shows only its own");
        }
        describe();
        let upkeep = handle.clone();
        #[allow(clippy::disallowed_methods, reason = "its own thread, not async code")]
        let spawned = std::thread::Builder::new().name("metrics-upkeep".into()).spawn(move || {
            loop {
                std::thread::sleep(UPKEEP);
                upkeep.run_upkeep();
            }
        });
        if let Err(e) = spawned {
            tracing::warn!(error = %e, "metrics upkeep thread not started: histograms fold at scrape time only");
        }
        handle
    })
}

fn describe() {
    use metrics::{Unit, describe_counter, describe_gauge, describe_histogram};
    describe_counter!(HTTP_REQUESTS, "HTTP requests by route template, method and status.");
    describe_histogram!(
        HTTP_DURATION,
        Unit::Seconds,
        "Time to answer an HTTP request, by route template and method."
    );
    describe_counter!(RATE_LIMITED, "Requests refused by a key's rate limit (429).");
    describe_gauge!(OPEN_CONNECTIONS, "Client connections open now.");
    describe_counter!(
        CONNECTIONS_REFUSED,
        "Connections closed at once because the server held max_connections."
    );
    describe_histogram!(
        observe::SEARCH_SECONDS,
        Unit::Seconds,
        "Time of one route search in the kernel, by use (quote or bundle)."
    );
    describe_histogram!(
        observe::SIMULATION_SECONDS,
        Unit::Seconds,
        "Time to execute one transaction in a fork of the EVM world."
    );
    describe_histogram!(
        PUBLICATION_SECONDS,
        Unit::Seconds,
        "Time from a feed's read of its node to publication: stage quotes (quotes read it) or proven (transactions are built on it)."
    );
    describe_histogram!(
        crate::stream::PUSH_SECONDS,
        Unit::Seconds,
        "Time from a market change to one quote stream's event for it handed to its connection."
    );
    describe_histogram!(
        crate::stream::ROUND_SECONDS,
        Unit::Seconds,
        "Time from a market change to the last quote stream event for it handed to its connection (streams that took it before the next change)."
    );
    describe_gauge!("switchyard_stream_subscriptions", "Quote streams open.");
    describe_gauge!("switchyard_feed_up", "Feed status: 1 when ready, 0 otherwise.");
    describe_gauge!("switchyard_feed_head_block", "Head block of the published market state.");
    describe_gauge!("switchyard_feed_lag_blocks", "Blocks the published state is behind the node.");
    describe_gauge!(
        "switchyard_feed_lag_seconds",
        Unit::Seconds,
        "Seconds since the published state fell behind the node's head (0 when it is not)."
    );
    describe_gauge!("switchyard_pools", "Pools in the published market state, by chain.");
    describe_gauge!("switchyard_tokens", "Tokens known, by chain (catalog and discovered).");
    describe_gauge!("switchyard_priced_tokens", "Tokens with a derived USD price.");
}

/// The server's metrics: the Prometheus recorder and the status page's
/// recent-window board.
#[derive(Debug)]
pub struct Metrics {
    handle: &'static PrometheusHandle,
    /// The last minutes of requests, for `/status`.
    pub board: StatusBoard,
}

impl Default for Metrics {
    fn default() -> Self {
        Self { handle: recorder(), board: StatusBoard::default() }
    }
}

/// A request's method as a label: one of the standard methods, else
/// `OTHER` (a client may send any token as a method).
fn method_label(m: &Method) -> &'static str {
    match *m {
        Method::GET => "GET",
        Method::POST => "POST",
        Method::PUT => "PUT",
        Method::DELETE => "DELETE",
        Method::HEAD => "HEAD",
        Method::OPTIONS => "OPTIONS",
        Method::PATCH => "PATCH",
        Method::CONNECT => "CONNECT",
        Method::TRACE => "TRACE",
        _ => "OTHER",
    }
}

impl Metrics {
    /// Records one answered request. `route` is its template (bounded);
    /// `code` the wire code of an error answer.
    pub fn record(
        &self,
        route: &str,
        method: &Method,
        status: u16,
        code: Option<&'static str>,
        elapsed: Duration,
    ) {
        let method = method_label(method);
        metrics::counter!(HTTP_REQUESTS, "route" => route.to_owned(), "method" => method, "status" => status.to_string())
            .increment(1);
        metrics::histogram!(HTTP_DURATION, "route" => route.to_owned(), "method" => method)
            .record(elapsed.as_secs_f64());
        if status == 429 {
            metrics::counter!(RATE_LIMITED).increment(1);
        }
        self.board.record(route, status, code, elapsed, Instant::now());
    }

    /// Renders every metric, the engine's feed and market gauges set first.
    pub fn render(&self, engine: &EngineHandle) -> String {
        for f in engine.feeds() {
            let labels = [("chain", f.chain.to_string()), ("source", f.source.to_string())];
            let up = [
                ("chain", f.chain.to_string()),
                ("source", f.source.to_string()),
                ("status", f.state.as_str().to_owned()),
            ];
            metrics::gauge!("switchyard_feed_up", &up)
                .set(f64::from(u8::from(f.state == FeedState::Ready)));
            metrics::gauge!("switchyard_feed_head_block", &labels).set(f.head_block as f64);
            metrics::gauge!("switchyard_feed_lag_blocks", &labels).set(f.lag_blocks as f64);
            metrics::gauge!("switchyard_feed_lag_seconds", &labels).set(f.lag_seconds);
        }
        for (chain, c) in chain_counts(engine) {
            metrics::gauge!("switchyard_pools", "chain" => chain.to_string()).set(c.pools as f64);
            metrics::gauge!("switchyard_tokens", "chain" => chain.to_string()).set(c.tokens as f64);
        }
        metrics::gauge!("switchyard_priced_tokens").set(engine.state().prices.len() as f64);
        self.handle.render()
    }
}

/// Pools and tokens of one chain.
#[derive(Debug, Clone, Copy, Default)]
pub struct ChainCounts {
    /// Pools in the published snapshot.
    pub pools: usize,
    /// Tokens known (catalog and discovered).
    pub tokens: usize,
}

/// Pools and tokens per chain of the published state.
pub fn chain_counts(engine: &EngineHandle) -> BTreeMap<u64, ChainCounts> {
    let state = engine.state();
    let mut out: BTreeMap<u64, ChainCounts> = BTreeMap::new();
    for chain in state.snapshot.heads().keys() {
        out.entry(chain.0).or_default().tokens = state.catalog.tokens_on(*chain).len();
    }
    for p in state.snapshot.pools().iter() {
        out.entry(p.chain.0).or_default().pools += 1;
    }
    out
}
