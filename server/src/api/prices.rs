//! `/prices`: USD prices derived from the market snapshot.

use axum::{
    Json,
    extract::{RawQuery, State},
};
use switchyard_catalog::Address;
use switchyard_engine::{DEMO_CONFIDENCE, MarketState};

use super::{ApiPath, known_chain, query};
use crate::{
    AppState,
    dto::{self, addr},
    error::ApiError,
    query::parse_address,
};

/// Most addresses per `/prices/{chainId}` request.
pub const MAX_PRICE_ADDRESSES: usize = 100;

/// A token's price; on a chain of the embedded demo market its confidence
/// is scaled by [`DEMO_CONFIDENCE`], so a recorded price never claims a
/// live market.
fn price_of(
    s: &AppState,
    state: &MarketState,
    chain: switchyard_catalog::ChainId,
    token: Address,
) -> Option<dto::Price> {
    let t = state.catalog.token(chain, token)?;
    let p = state.prices.get(chain, token)?;
    let scale = if s.engine.is_demo(chain) { DEMO_CONFIDENCE } else { 1.0 };
    Some(dto::Price {
        price: p.usd,
        address: addr(token),
        decimals: t.decimals,
        symbol: t.symbol.clone(),
        name: t.name.clone(),
        timestamp: p.timestamp,
        chain_id: chain.0,
        confidence: p.confidence * scale,
    })
}

/// `GET /api/v1/prices/{chainId}/{address}`: the USD price of one token. 404
/// when the token is unknown or no liquid pool connects it to a USD anchor.
#[utoipa::path(get, path = "/api/v1/prices/{chainId}/{address}", tag = "metadata",
    params(
        ("chainId" = u64, Path, description = "Chain id", minimum = 1, maximum = 9223372036854775807i64),
        ("address" = String, Path, description = "Token address", pattern = "^0x[0-9a-fA-F]{40}$"),
    ),
    responses((status = 200, body = dto::Price), (status = 400, body = crate::error::ErrorBody), (status = 404, body = crate::error::ErrorBody)))]
pub async fn price(
    State(s): State<AppState>,
    ApiPath((chain, address)): ApiPath<(String, String)>,
) -> Result<Json<dto::Price>, ApiError> {
    let state = s.engine.latest();
    let chain = known_chain(&state.catalog, "chainId", &chain)?.id;
    let token = parse_address("address", &address)?;
    if state.catalog.token(chain, token).is_none() {
        return Err(ApiError::not_found(
            "address",
            format!("token {} is not known on chain {chain}", addr(token)),
        ));
    }
    price_of(&s, &state, chain, token).map(Json).ok_or_else(|| {
        ApiError::not_found("address", format!("no price for {} on chain {chain}", addr(token)))
    })
}

/// `GET /api/v1/prices/{chainId}?addresses=…`: prices of up to 100 tokens, in
/// request order, `null` for a token without a price.
#[utoipa::path(get, path = "/api/v1/prices/{chainId}", tag = "metadata",
    params(
        ("chainId" = u64, Path, description = "Chain id", minimum = 1, maximum = 9223372036854775807i64),
        ("addresses" = Vec<String>, Query, description = "Token addresses, 1 to 100", pattern = "^0x[0-9a-fA-F]{40}$"),
    ),
    responses((status = 200, body = Vec<Option<dto::Price>>), (status = 400, body = crate::error::ErrorBody), (status = 404, body = crate::error::ErrorBody)))]
pub async fn prices(
    State(s): State<AppState>,
    ApiPath(chain): ApiPath<String>,
    raw: RawQuery,
) -> Result<Json<Vec<Option<dto::Price>>>, ApiError> {
    let q = query(&raw)?;
    let state = s.engine.latest();
    let chain = known_chain(&state.catalog, "chainId", &chain)?.id;
    let addresses = q.addresses("addresses")?;
    if addresses.is_empty() {
        return Err(ApiError::missing("addresses"));
    }
    if addresses.len() > MAX_PRICE_ADDRESSES {
        return Err(ApiError::invalid(
            "addresses",
            format!("at most {MAX_PRICE_ADDRESSES} addresses per request"),
        ));
    }
    Ok(Json(addresses.iter().map(|a| price_of(&s, &state, chain, *a)).collect()))
}
