//! The OpenAPI 3.1 document, generated from the handlers (utoipa), served at
//! `/api/v1/openapi.json`, with a vendored Swagger UI at `/docs` that works
//! offline.

use axum::Router;
use utoipa::{
    Modify, OpenApi,
    openapi::{
        ContentBuilder, Ref, RefOr, ResponseBuilder,
        security::{ApiKey, ApiKeyValue, HttpAuthScheme, HttpBuilder, SecurityScheme},
    },
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

/// Answers every `/api/v1` operation can give besides its own: 401 (key),
/// 429 (rate limit), 503 (timeout or an engine service restarting).
struct CommonResponses;

impl Modify for CommonResponses {
    fn modify(&self, doc: &mut utoipa::openapi::OpenApi) {
        let error = |description: &str| {
            RefOr::T(
                ResponseBuilder::new()
                    .description(description)
                    .content(
                        "application/json",
                        ContentBuilder::new()
                            .schema(Some(Ref::from_schema_name("ErrorBody")))
                            .build(),
                    )
                    .build(),
            )
        };
        for (path, item) in doc.paths.paths.iter_mut() {
            if !path.starts_with("/api/v1/") {
                continue;
            }
            for op in [&mut item.get, &mut item.post].into_iter().flatten() {
                let r = &mut op.responses.responses;
                r.entry("401".into())
                    .or_insert_with(|| error("missing, unknown or revoked api key"));
                r.entry("429".into()).or_insert_with(|| {
                    error("rate limited; see Retry-After and RateLimit-* headers")
                });
                r.entry("503".into())
                    .or_insert_with(|| error("timed out, or an engine service is restarting"));
            }
        }
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
Array query parameters accept repeated keys, `key[]=`, `key[0]=`, a single value or a comma list. \
Addresses are 0x and 40 hex digits; a mixed-case address must be a valid EIP-55 checksum. \
Amounts are decimal integers in wei within uint256. \
Every transaction returned (route, bundle, non-tokenized route, IPOR shortcut, approval) was executed \
against the state it was quoted on and delivered exactly the amounts answered; `gas` is the gas it used. \
A 501 names the part of a request this version does not build; a 400 names bad input.",
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
        api::shortcuts::quote_batch,
        api::shortcuts::quote_replay,
        api::shortcuts::quote_post,
        api::shortcuts::quote_stream,
        api::shortcuts::ws,
        api::shortcuts::quote_ladder,
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
        api::ops::status_page,
        api::ops::status_json,
    ),
    components(schemas(ErrorBody, dto::PositionModel, dto::TokenModel, dto::PaginationMeta,
        dto::RouteShortcutVariableInputs, dto::QuoteBody, dto::BundleAction, dto::IporShortcutInput, dto::AddressText,
        dto::WeiText, dto::QuoteResponse, dto::Hop, dto::RouteSegment, dto::BridgeLatencyEstimate, dto::UserOperation)),
    modifiers(&Security, &CommonResponses),
    security(("bearer" = []), ("apikey" = [])),
)]
pub struct ApiDoc;

/// `/api/v1/openapi.json` and `/docs`.
pub fn routes() -> Router<AppState> {
    Router::new().merge(SwaggerUi::new("/docs").url("/api/v1/openapi.json", ApiDoc::openapi()))
}
