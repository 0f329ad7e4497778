//! The OpenAPI 3.1 document, generated from the handlers (utoipa), served at
//! `/api/v1/openapi.json`, with a vendored Swagger UI at `/docs` that works
//! offline.

use axum::Router;
use utoipa::{
    Modify, OpenApi,
    openapi::security::{ApiKey, ApiKeyValue, HttpAuthScheme, HttpBuilder, SecurityScheme},
};
use utoipa_swagger_ui::SwaggerUi;

use crate::{AppState, api, dto, error::ErrorBody};

struct Security;

impl Modify for Security {
    fn modify(&self, doc: &mut utoipa::openapi::OpenApi) {
        let components = doc.components.get_or_insert_with(Default::default);
        components.add_security_scheme(
            "bearer",
            SecurityScheme::Http(HttpBuilder::new().scheme(HttpAuthScheme::Bearer).build()),
        );
        components.add_security_scheme(
            "apikey",
            SecurityScheme::ApiKey(ApiKey::Query(ApiKeyValue::new("apikey"))),
        );
    }
}

/// The API document.
#[derive(OpenApi)]
#[openapi(
    info(
        title = "Switchyard",
        description = "Self-hosted token routing and DeFi shortcuts, speaking the Enso /api/v1 dialect. \
Every /api/v1 endpoint needs an API key: `Authorization: Bearer <key>` or `?apikey=<key>`. \
Errors share one body: {statusCode, error, message, code, field}. \
Array query parameters accept repeated keys, `key[]=`, `key[0]=`, a single value or a comma list.",
    ),
    paths(
        api::metadata::networks,
        api::metadata::aggregators,
        api::metadata::standards,
        api::metadata::standard_by_slug,
        api::metadata::actions,
        api::metadata::actions_by_slug,
        api::metadata::projects,
        api::metadata::project_protocols,
        api::metadata::protocols,
        api::tokens::tokens,
        api::tokens::nontokenized,
        api::prices::price,
        api::prices::prices,
        api::account::account_id,
        api::account::volume,
        api::bridges::layerzero_pool,
        api::bridges::ccip_router,
        api::bridges::cctp_token_messenger,
        api::bridges::cctp_claim,
        api::bridges::bridge_check,
        api::shortcuts::quote,
        api::shortcuts::route_get,
        api::shortcuts::route_post,
        api::shortcuts::route_nontokenized,
        api::shortcuts::bundle,
        api::shortcuts::ipor,
        api::shortcuts::approve,
        api::shortcuts::balances,
        api::ops::health,
        api::ops::ready,
        api::ops::metrics,
    ),
    components(schemas(ErrorBody, dto::PositionModel, dto::TokenModel, dto::PaginationMeta)),
    modifiers(&Security),
    security(("bearer" = []), ("apikey" = [])),
)]
pub struct ApiDoc;

/// `/api/v1/openapi.json` and `/docs`.
pub fn routes() -> Router<AppState> {
    Router::new().merge(SwaggerUi::new("/docs").url("/api/v1/openapi.json", ApiDoc::openapi()))
}
