//! The `/api/v1` routes, one module per section of the spec, plus the
//! operational endpoints (`/health`, `/ready`, `/metrics`, `/docs`).

pub mod account;
pub mod bridges;
pub mod bundle;
pub mod metadata;
pub mod ops;
pub mod prices;
pub mod requests;
pub mod shortcuts;
pub mod tokens;

use axum::{
    Router,
    extract::{FromRequestParts, RawQuery},
    http::request::Parts,
    middleware,
    routing::{get, post},
};
use serde::de::DeserializeOwned;
use switchyard_catalog::{Catalog, ChainId, Network};

use crate::{AppState, error::ApiError, query::Query};

/// Parses the raw query string of a request.
pub(crate) fn query(raw: &RawQuery) -> Result<Query, ApiError> {
    Query::parse(raw.0.as_deref().unwrap_or(""))
}

/// A path extractor whose rejection is the standard JSON error.
#[derive(Debug)]
pub struct ApiPath<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned + Send> FromRequestParts<S> for ApiPath<T> {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        axum::extract::Path::<T>::from_request_parts(parts, state).await.map(|p| Self(p.0)).map_err(
            |e| ApiError::invalid("path", format!("invalid path parameter: {}", e.body_text())),
        )
    }
}

/// Accepted chain ids: positive and within a signed 64-bit integer, as the
/// OpenAPI document states.
pub const CHAIN_IDS: std::ops::RangeInclusive<u64> = 1..=i64::MAX as u64;

/// Parses a chain id and requires it to be a network of the catalog.
pub(crate) fn known_chain<'c>(
    catalog: &'c Catalog,
    field: &'static str,
    v: &str,
) -> Result<&'c Network, ApiError> {
    let id = crate::query::parse_u64_in(field, v, &CHAIN_IDS)?;
    catalog
        .network(ChainId(id))
        .ok_or_else(|| ApiError::not_found(field, format!("chain {id} is not supported")))
}

/// A page window over `total` items: from `page`/`cursor`/`pageSize`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Window {
    pub(crate) offset: usize,
    pub(crate) size: usize,
}

/// Most items per page, and the default page size.
pub const MAX_PAGE_SIZE: u64 = 1000;

impl Window {
    /// Reads `page`, `cursor` and `pageSize`. `cursor` (an item offset) wins
    /// over `page` when both are given.
    pub(crate) fn from_query(q: &Query) -> Result<Self, ApiError> {
        let size = q.u64_in("pageSize", 1..=MAX_PAGE_SIZE)?.unwrap_or(MAX_PAGE_SIZE);
        let cursor = q.u64_in("cursor", 0..=u64::from(u32::MAX))?;
        let page = q.u64_in("page", 1..=u64::from(u32::MAX))?;
        let offset = match (cursor, page) {
            (Some(c), _) => c,
            (None, Some(p)) => (p - 1).saturating_mul(size),
            (None, None) => 0,
        };
        Ok(Self { offset: usize::try_from(offset).unwrap_or(usize::MAX), size: size as usize })
    }

    /// The pagination envelope for `total` matching items.
    pub(crate) fn meta(&self, total: usize) -> crate::dto::PaginationMeta {
        let size = self.size as u64;
        let total = total as u64;
        let last_page = total.div_ceil(size).max(1);
        let current_page = self.offset as u64 / size + 1;
        let end = (self.offset as u64).saturating_add(size);
        crate::dto::PaginationMeta {
            total,
            last_page,
            current_page,
            per_page: size,
            prev: (current_page > 1).then(|| (current_page - 1).min(last_page)),
            next: (end < total).then_some(current_page + 1),
            cursor: (end < total).then_some(end),
        }
    }

    /// The items of the window.
    pub(crate) fn slice<'a, T>(&self, items: &'a [T]) -> &'a [T] {
        let start = self.offset.min(items.len());
        let end = start.saturating_add(self.size).min(items.len());
        &items[start..end]
    }
}

/// Every route.
pub fn router(state: AppState) -> Router {
    let v1 = Router::new()
        .route("/networks", get(metadata::networks))
        .route("/aggregators", get(metadata::aggregators))
        .route("/standards", get(metadata::standards))
        .route("/standards/{slug}", get(metadata::standard_by_slug))
        .route("/actions", get(metadata::actions))
        .route("/actions/{slug}", get(metadata::actions_by_slug))
        .route("/projects", get(metadata::projects))
        .route("/projects/{project}/protocols", get(metadata::project_protocols))
        .route("/protocols", get(metadata::protocols))
        .route("/tokens", get(tokens::tokens))
        .route("/nontokenized", get(tokens::nontokenized))
        .route("/prices/{chain_id}", get(prices::prices))
        .route("/prices/{chain_id}/{address}", get(prices::price))
        .route("/account/accountId", get(account::account_id))
        .route("/volume/{chain_id}", get(account::volume))
        .route("/layerzero/pool", get(bridges::layerzero_pool))
        .route("/stargate/pool", get(bridges::layerzero_pool))
        .route("/ccip/router", get(bridges::ccip_router))
        .route("/cctp/bridge/tokenmessengerv2", get(bridges::cctp_token_messenger))
        .route("/cctp/bridge/claim", get(bridges::cctp_claim))
        .route("/{bridge}/bridge/check", get(bridges::bridge_check))
        .route("/shortcuts/quote", get(shortcuts::quote).post(shortcuts::quote_post))
        .route("/shortcuts/quote/batch", post(shortcuts::quote_batch))
        .route("/shortcuts/quote/{quote_id}", get(shortcuts::quote_replay))
        .route("/shortcuts/quote/stream", get(shortcuts::quote_stream))
        .route("/ws", get(shortcuts::ws))
        .route("/shortcuts/quote/ladder", post(shortcuts::quote_ladder))
        .route("/shortcuts/route", get(shortcuts::route_get).post(shortcuts::route_post))
        .route("/shortcuts/route/nontokenized", get(shortcuts::route_nontokenized))
        .route("/shortcuts/bundle", post(shortcuts::bundle))
        .route("/shortcuts/static/ipor", post(shortcuts::ipor))
        .route("/wallet/approve", get(shortcuts::approve))
        .route("/wallet/balances", get(shortcuts::balances))
        .route_layer(middleware::from_fn_with_state(state.clone(), crate::middleware::auth));
    Router::new()
        .nest("/api/v1", v1)
        .route("/health", get(ops::health))
        .route("/ready", get(ops::ready))
        .route("/metrics", get(ops::metrics))
        .route("/status", get(ops::status_page))
        .route("/status.json", get(ops::status_json))
        .merge(crate::openapi::routes())
        .with_state(state)
}
