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
    ([(header::CONTENT_TYPE, "text/plain; version=0.0.4")], s.metrics.render(&s.engine))
}
