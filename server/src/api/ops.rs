//! Operational endpoints: `/health`, `/ready`, `/metrics`. They need no key.

use axum::{
    Json,
    extract::State,
    http::{StatusCode, header},
    response::IntoResponse,
};

use crate::{AppState, dto};

/// `GET /health`: the process is up.
#[utoipa::path(get, path = "/health", tag = "operations", security(()), responses((status = 200, body = dto::Health)))]
pub async fn health() -> Json<dto::Health> {
    Json(dto::Health { status: "ok" })
}

/// `GET /ready`: the engine's actors run and every feed's status; 503 when
/// not ready: an actor is down, a feed is still indexing, or no feed serves
/// (every one stale). Readiness is about serving: a demo replay that ran
/// out of recorded blocks or a market file (`ended`, shown in the body)
/// serves, as does a `delayed` node. A stale feed alone does not fail
/// readiness (every replica shares the node); requests that need its pools
/// get 503 `STALE_MARKET`.
#[utoipa::path(get, path = "/ready", tag = "operations", security(()),
    responses((status = 200, body = dto::Ready), (status = 503, body = dto::Ready)))]
pub async fn ready(State(s): State<AppState>) -> impl IntoResponse {
    let feeds: Vec<_> = s
        .engine
        .feeds()
        .into_iter()
        .map(|f| dto::FeedStatus {
            chain_id: f.chain.0,
            source: f.source.to_string(),
            status: f.state.as_str(),
            head_block: f.head_block,
            lag_blocks: f.lag_blocks,
            progress: f.progress.map(|p| dto::IndexProgress {
                phase: p.phase,
                done: p.done,
                total: p.total,
            }),
        })
        .collect();
    let serving = |status: &str| matches!(status, "ready" | "ended" | "delayed");
    let ok = s.engine.ready()
        && feeds.iter().all(|f| f.status != "indexing")
        && feeds.iter().any(|f| serving(f.status));
    let status = if ok { StatusCode::OK } else { StatusCode::SERVICE_UNAVAILABLE };
    (status, Json(dto::Ready { status: if ok { "ready" } else { "not_ready" }, feeds }))
}

/// `GET /metrics`: Prometheus text format.
#[utoipa::path(get, path = "/metrics", tag = "operations", security(()), responses((status = 200, body = String, content_type = "text/plain")))]
pub async fn metrics(State(s): State<AppState>) -> impl IntoResponse {
    metrics::gauge!("switchyard_stream_subscriptions").set(s.streams.open() as f64);
    ([(header::CONTENT_TYPE, "text/plain; version=0.0.4")], s.metrics.render(&s.engine))
}

/// `GET /status.json`: what the status page draws. Per chain: the head,
/// the lag, each source's state, pools and tokens; the last minutes of
/// requests per route template; the last errors by code. No key, no
/// account and no client address is in it.
#[utoipa::path(get, path = "/status.json", tag = "operations", security(()), responses((status = 200, body = dto::Status)))]
pub async fn status_json(State(s): State<AppState>) -> Json<dto::Status> {
    let now = std::time::Instant::now();
    let counts = crate::metrics::chain_counts(&s.engine);
    let state = s.engine.state();
    let mut chains: std::collections::BTreeMap<u64, dto::ChainStatus> = counts
        .iter()
        .map(|(chain, c)| {
            let name = state
                .catalog
                .network(switchyard_catalog::ChainId(*chain))
                .map_or_else(String::new, |n| n.name.clone());
            let chain_status = dto::ChainStatus {
                chain_id: *chain,
                name,
                pools: c.pools,
                tokens: c.tokens,
                ..dto::ChainStatus::default()
            };
            (*chain, chain_status)
        })
        .collect();
    for f in s.engine.feeds() {
        let c = chains.entry(f.chain.0).or_insert_with(|| dto::ChainStatus {
            chain_id: f.chain.0,
            ..dto::ChainStatus::default()
        });
        c.head_block = c.head_block.max(f.head_block);
        c.lag_blocks = c.lag_blocks.max(f.lag_blocks);
        c.lag_seconds = c.lag_seconds.max(f.lag_seconds);
        c.sources.push(dto::SourceStatus {
            source: f.source.to_string(),
            status: f.state.as_str(),
            head_block: f.head_block,
            lag_blocks: f.lag_blocks,
        });
    }
    Json(dto::Status {
        version: env!("CARGO_PKG_VERSION"),
        uptime_seconds: s.metrics.board.uptime(now),
        chains: chains.into_values().collect(),
        window: s.metrics.board.window(now),
    })
}

/// `GET /status`: the operator's live status page, one self-contained
/// HTML document (no CDN, works offline) that polls `/status.json`.
#[utoipa::path(get, path = "/status", tag = "operations", security(()), responses((status = 200, body = String, content_type = "text/html")))]
pub async fn status_page() -> impl IntoResponse {
    (
        [(header::CONTENT_TYPE, "text/html; charset=utf-8"), (header::CACHE_CONTROL, "no-cache")],
        include_str!("status.html"),
    )
}
