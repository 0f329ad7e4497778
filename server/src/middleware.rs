//! Cross-cutting layers: request ids, tracing, panics, timeouts, metrics,
//! authentication and rate limits.

use std::{
    sync::{
        Arc,
        atomic::{AtomicU64, Ordering},
    },
    time::Instant,
};

use axum::{
    Router,
    extract::{MatchedPath, Request, State},
    http::{HeaderName, HeaderValue, Response, header},
    middleware::{self, Next},
    response::IntoResponse,
};
use switchyard_engine::{EngineError, KeyRecord};
use tower_http::{
    catch_panic::CatchPanicLayer,
    request_id::{MakeRequestId, PropagateRequestIdLayer, RequestId, SetRequestIdLayer},
    trace::TraceLayer,
};

use crate::{
    AppState,
    error::{ApiError, ErrorCode, FailureCause},
};

static X_REQUEST_ID: HeaderName = HeaderName::from_static("x-request-id");

/// Request ids: a per-process random prefix and a counter, cheap and unique.
#[derive(Debug, Clone)]
struct SeqId {
    prefix: Arc<str>,
    next: Arc<AtomicU64>,
}

impl SeqId {
    fn new() -> Self {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos() ^ (d.as_secs() as u32));
        Self {
            prefix: format!("{:08x}{:04x}", nanos, std::process::id() & 0xffff).into(),
            next: Arc::default(),
        }
    }
}

impl MakeRequestId for SeqId {
    fn make_request_id<B>(&mut self, _: &axum::http::Request<B>) -> Option<RequestId> {
        let n = self.next.fetch_add(1, Ordering::Relaxed);
        HeaderValue::from_str(&format!("{}-{n:x}", self.prefix)).ok().map(RequestId::new)
    }
}

fn panic_response(_: Box<dyn std::any::Any + Send + 'static>) -> Response<axum::body::Body> {
    tracing::error!("handler panicked");
    ApiError::internal().into_response()
}

/// Times out, records metrics.
async fn observe(
    State(state): State<AppState>,
    req: Request,
    next: Next,
) -> axum::response::Response {
    let started = Instant::now();
    let route = req
        .extensions()
        .get::<MatchedPath>()
        .map_or_else(|| "unmatched".to_owned(), |p| p.as_str().to_owned());
    let method = req.method().clone();
    let res = match tokio::time::timeout(state.settings.request_timeout, next.run(req)).await {
        Ok(res) => res,
        Err(_) => ApiError::timeout().into_response(),
    };
    let code = res.extensions().get::<ErrorCode>().map(|c| c.0);
    state.metrics.record(&route, &method, res.status().as_u16(), code, started.elapsed());
    // The one place errors are logged: a failure the service owes, with
    // the cause its error left in the response.
    if res.status().is_server_error() {
        let cause = res.extensions().get::<FailureCause>().map_or("", |c| c.0.as_str());
        let status = res.status().as_u16();
        if res.status() == axum::http::StatusCode::SERVICE_UNAVAILABLE {
            tracing::warn!(%route, %method, status, cause, "request not served");
        } else {
            tracing::error!(%route, %method, status, cause, "request failed");
        }
    }
    res
}

/// Finds the presented key: `Authorization: Bearer …`, else `?apikey=`.
fn presented_key(req: &Request) -> Option<String> {
    if let Some(v) = req.headers().get(header::AUTHORIZATION).and_then(|v| v.to_str().ok()) {
        let v = v.trim();
        if v.len() > 7 && v[..7].eq_ignore_ascii_case("bearer ") {
            return Some(v[7..].trim().to_owned());
        }
    }
    let q = req.uri().query()?;
    let parsed = crate::query::Query::parse(q).ok()?;
    parsed.scalar("apikey").ok().flatten().map(str::to_owned)
}

/// The authenticated key of a request, for handlers.
#[derive(Debug, Clone)]
pub struct AuthedKey(pub Arc<KeyRecord>);

fn rate_headers(res: &mut axum::response::Response, d: &switchyard_engine::RateDecision) {
    let h = res.headers_mut();
    h.insert("ratelimit-limit", HeaderValue::from(d.limit));
    h.insert("ratelimit-remaining", HeaderValue::from(d.remaining));
    let reset = d.reset.as_secs() + u64::from(d.reset.subsec_nanos() > 0);
    h.insert("ratelimit-reset", HeaderValue::from(reset));
}

/// Authenticates and rate-limits an `/api/v1` request.
pub(crate) async fn auth(
    State(state): State<AppState>,
    mut req: Request,
    next: Next,
) -> axum::response::Response {
    let Some(key) = presented_key(&req) else { return ApiError::unauthenticated().into_response() };
    let rec = match state.engine.authenticate(&key) {
        Ok(r) => r,
        Err(e) => return ApiError::from(e).into_response(),
    };
    let decision = match state.engine.admit(&rec).await {
        Ok(d) => d,
        Err(e) => return ApiError::from(e).into_response(),
    };
    if let Some(retry_after) = decision.retry_after {
        let mut res = ApiError::from(EngineError::RateLimited { retry_after }).into_response();
        rate_headers(&mut res, &decision);
        return res;
    }
    req.extensions_mut().insert(AuthedKey(rec));
    let mut res = next.run(req).await;
    rate_headers(&mut res, &decision);
    res
}

async fn not_found(req: Request) -> ApiError {
    ApiError::no_such_path(req.uri().path())
}

async fn method_not_allowed() -> ApiError {
    ApiError::method_not_allowed()
}

/// Wraps the routes with the cross-cutting layers.
pub(crate) fn wrap(routes: Router, state: AppState) -> Router {
    routes
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
        .layer(middleware::from_fn_with_state(state, observe))
        .layer(CatchPanicLayer::custom(panic_response))
        .layer(PropagateRequestIdLayer::new(X_REQUEST_ID.clone()))
        .layer(TraceLayer::new_for_http().make_span_with(|req: &axum::http::Request<_>| {
            let id = req.headers().get(&X_REQUEST_ID).and_then(|v| v.to_str().ok()).unwrap_or("");
            tracing::info_span!("request", method = %req.method(), path = %req.uri().path(), request_id = %id)
        }))
        .layer(SetRequestIdLayer::new(X_REQUEST_ID.clone(), SeqId::new()))
        .layer(cors())
}

/// Browsers may call the API from any origin, as the TypeScript client does
/// from a web page: a preflight is answered before any route or key check,
/// and every answer carries the CORS headers (keys travel in the
/// `Authorization` header, never in cookies, so any origin is safe).
fn cors() -> tower_http::cors::CorsLayer {
    use axum::http::{HeaderName, Method, header};
    tower_http::cors::CorsLayer::new()
        .allow_origin(tower_http::cors::Any)
        .allow_methods([Method::GET, Method::POST, Method::OPTIONS])
        .allow_headers([header::AUTHORIZATION, header::CONTENT_TYPE, X_REQUEST_ID.clone()])
        .expose_headers([
            X_REQUEST_ID.clone(),
            HeaderName::from_static("ratelimit-limit"),
            HeaderName::from_static("ratelimit-remaining"),
            HeaderName::from_static("ratelimit-reset"),
            header::RETRY_AFTER,
        ])
        .max_age(std::time::Duration::from_secs(600))
}
