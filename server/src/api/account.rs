//! `/account/accountId` and `/volume/{chainId}`.

use axum::{Extension, Json, extract::State};

use super::{ApiPath, known_chain};
use crate::{AppState, dto, error::ApiError, middleware::AuthedKey};

/// `GET /api/v1/account/accountId`: the account id of the calling key, as a
/// bare JSON string. It is the `accountId` of the on-chain
/// `ShortcutExecuted` event.
#[utoipa::path(get, path = "/api/v1/account/accountId", tag = "metadata",
    responses((status = 200, body = String, content_type = "application/json", description = "the account id as a bare JSON string")))]
pub async fn account_id(Extension(key): Extension<AuthedKey>) -> Json<String> {
    Json(key.0.account_id.clone())
}

/// `GET /api/v1/volume/{chainId}`: USD volume and transaction count of what
/// this instance has routed on the chain (persisted across restarts).
#[utoipa::path(get, path = "/api/v1/volume/{chainId}", tag = "metadata",
    params(("chainId" = u64, Path, description = "Chain id", minimum = 1, maximum = 9223372036854775807i64)),
    responses((status = 200, body = dto::Volume), (status = 400, body = crate::error::ErrorBody), (status = 404, body = crate::error::ErrorBody)))]
pub async fn volume(
    State(s): State<AppState>,
    ApiPath(chain): ApiPath<String>,
) -> Result<Json<dto::Volume>, ApiError> {
    let chain = known_chain(&s.engine.catalog(), "chainId", &chain)?.id;
    let v = s.engine.volume(chain).await?;
    Ok(Json(dto::Volume {
        chain_id: chain.0,
        total_volume_usd: v.total_usd,
        transaction_count: v.transactions,
    }))
}
