//! Shortcut and wallet endpoints. Quoting, routing, bundles, approvals and
//! balances arrive with the routing kernel and the execution layer; until
//! then each answers 501 with the standard error body, after the same
//! authentication, rate limit and body checks as every other endpoint. None
//! of them returns an amount it has not computed.

use axum::{body::Body, extract::State};

use crate::{AppState, error::ApiError};

/// Checks that a POST body is one well-formed JSON document within the size
/// limit (simd-json), so malformed bodies are 400 and oversized ones 413
/// already.
async fn check_json_body(s: &AppState, body: Body) -> Result<(), ApiError> {
    let limit = s.settings.body_limit_bytes;
    let bytes =
        axum::body::to_bytes(body, limit).await.map_err(|_| ApiError::payload_too_large(limit))?;
    let mut buf = bytes.to_vec();
    simd_json::to_borrowed_value(&mut buf)
        .map(|_| ())
        .map_err(|e| ApiError::invalid("body", format!("body is not valid json: {e}")))
}

/// `GET /api/v1/shortcuts/quote` (501 until the routing kernel lands).
#[utoipa::path(get, path = "/api/v1/shortcuts/quote", tag = "shortcuts",
    responses((status = 501, body = crate::error::ErrorBody)))]
pub async fn quote() -> ApiError {
    ApiError::not_implemented("GET /shortcuts/quote")
}

/// `GET /api/v1/shortcuts/route` (501 until the execution layer lands).
#[utoipa::path(get, path = "/api/v1/shortcuts/route", tag = "shortcuts",
    responses((status = 501, body = crate::error::ErrorBody)))]
pub async fn route_get() -> ApiError {
    ApiError::not_implemented("GET /shortcuts/route")
}

/// `POST /api/v1/shortcuts/route` (501 until the execution layer lands).
#[utoipa::path(post, path = "/api/v1/shortcuts/route", tag = "shortcuts",
    request_body(content = String, content_type = "application/json"),
    responses((status = 400, body = crate::error::ErrorBody), (status = 413, body = crate::error::ErrorBody), (status = 501, body = crate::error::ErrorBody)))]
pub async fn route_post(State(s): State<AppState>, body: Body) -> ApiError {
    check_json_body(&s, body)
        .await
        .err()
        .unwrap_or_else(|| ApiError::not_implemented("POST /shortcuts/route"))
}

/// `GET /api/v1/shortcuts/route/nontokenized` (501 until the execution layer lands).
#[utoipa::path(get, path = "/api/v1/shortcuts/route/nontokenized", tag = "shortcuts",
    responses((status = 501, body = crate::error::ErrorBody)))]
pub async fn route_nontokenized() -> ApiError {
    ApiError::not_implemented("GET /shortcuts/route/nontokenized")
}

/// `POST /api/v1/shortcuts/bundle` (501 until the execution layer lands).
#[utoipa::path(post, path = "/api/v1/shortcuts/bundle", tag = "shortcuts",
    request_body(content = String, content_type = "application/json"),
    responses((status = 400, body = crate::error::ErrorBody), (status = 413, body = crate::error::ErrorBody), (status = 501, body = crate::error::ErrorBody)))]
pub async fn bundle(State(s): State<AppState>, body: Body) -> ApiError {
    check_json_body(&s, body)
        .await
        .err()
        .unwrap_or_else(|| ApiError::not_implemented("POST /shortcuts/bundle"))
}

/// `POST /api/v1/shortcuts/static/ipor` (501 until the execution layer lands).
#[utoipa::path(post, path = "/api/v1/shortcuts/static/ipor", tag = "shortcuts",
    request_body(content = String, content_type = "application/json"),
    responses((status = 400, body = crate::error::ErrorBody), (status = 413, body = crate::error::ErrorBody), (status = 501, body = crate::error::ErrorBody)))]
pub async fn ipor(State(s): State<AppState>, body: Body) -> ApiError {
    check_json_body(&s, body)
        .await
        .err()
        .unwrap_or_else(|| ApiError::not_implemented("POST /shortcuts/static/ipor"))
}

/// `GET /api/v1/wallet/approve` (501 until the execution layer lands).
#[utoipa::path(get, path = "/api/v1/wallet/approve", tag = "wallet",
    responses((status = 501, body = crate::error::ErrorBody)))]
pub async fn approve() -> ApiError {
    ApiError::not_implemented("GET /wallet/approve")
}

/// `GET /api/v1/wallet/balances` (501 until the execution layer lands).
#[utoipa::path(get, path = "/api/v1/wallet/balances", tag = "wallet",
    responses((status = 501, body = crate::error::ErrorBody)))]
pub async fn balances() -> ApiError {
    ApiError::not_implemented("GET /wallet/balances")
}
