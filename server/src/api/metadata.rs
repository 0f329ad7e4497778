//! Metadata endpoints: networks, aggregators, standards, actions, projects,
//! protocols.

use axum::{
    Json,
    extract::{RawQuery, State},
};
use switchyard_catalog::{Catalog, ChainId};

use super::{ApiPath, CHAIN_IDS, query};
use crate::{AppState, dto, error::ApiError};

fn network_ref(catalog: &Catalog, id: ChainId) -> dto::Network {
    dto::Network {
        id: id.0,
        name: catalog.network(id).map_or_else(|| id.to_string(), |n| n.name.clone()),
    }
}

fn protocol_model(catalog: &Catalog, p: &switchyard_catalog::Protocol) -> dto::ProtocolModel {
    dto::ProtocolModel {
        project: p.project.clone(),
        slug: p.slug.clone(),
        name: p.name.clone(),
        description: p.description.clone(),
        url: p.url.clone(),
        logos_uri: p.logos_uri.clone(),
        chains: p.chains.iter().map(|c| network_ref(catalog, *c)).collect(),
    }
}

/// `GET /api/v1/networks`: networks, optionally filtered by `name`
/// (case-insensitive substring) and `chainId`.
#[utoipa::path(get, path = "/api/v1/networks", tag = "metadata",
    params(
        ("name" = Option<String>, Query, description = "Name of the network (case-insensitive substring)"),
        ("chainId" = Option<u64>, Query, description = "Chain id", minimum = 1, maximum = 9223372036854775807i64),
    ),
    responses((status = 200, body = Vec<dto::ConnectedNetwork>), (status = 400, body = crate::error::ErrorBody)))]
pub async fn networks(
    State(s): State<AppState>,
    raw: RawQuery,
) -> Result<Json<Vec<dto::ConnectedNetwork>>, ApiError> {
    let q = query(&raw)?;
    let name = q.scalar("name")?.map(str::to_lowercase);
    let chain = q.u64_in("chainId", CHAIN_IDS)?;
    let state = s.engine.state();
    let out = state
        .catalog
        .networks()
        .iter()
        .filter(|n| chain.is_none_or(|c| n.id.0 == c))
        .filter(|n| name.as_deref().is_none_or(|f| n.name.to_lowercase().contains(f)))
        .map(|n| dto::ConnectedNetwork {
            id: n.id.0,
            name: n.name.clone(),
            // Live only where a node follows the chain; the demo market's
            // and a market file's chains are not connected to anything.
            is_connected: s.engine.follows(n.id),
        })
        .collect();
    Ok(Json(out))
}

/// `GET /api/v1/aggregators`: names of the liquidity sources that
/// `ignoreAggregators` can exclude, optionally for one `chainId`.
#[utoipa::path(get, path = "/api/v1/aggregators", tag = "metadata",
    params(("chainId" = Option<u64>, Query, description = "Only sources on this chain", minimum = 1, maximum = 9223372036854775807i64)),
    responses((status = 200, body = Vec<String>), (status = 400, body = crate::error::ErrorBody)))]
pub async fn aggregators(
    State(s): State<AppState>,
    raw: RawQuery,
) -> Result<Json<Vec<String>>, ApiError> {
    let q = query(&raw)?;
    let chain = q.u64_in("chainId", CHAIN_IDS)?.map(ChainId);
    let catalog = s.engine.catalog();
    let mut out: Vec<String> = Vec::new();
    for a in catalog.aggregators() {
        if chain.is_none_or(|c| a.chains.contains(&c)) && !out.contains(&a.name) {
            out.push(a.name.clone());
        }
    }
    Ok(Json(out))
}

/// A standard as advertised: only the actions this version answers with a
/// transaction ([`super::bundle::builds`]); `None` when there are none.
fn standard_dto(
    catalog: &Catalog,
    followed: &dyn Fn(switchyard_catalog::ChainId) -> bool,
    st: &switchyard_catalog::Standard,
) -> Option<dto::Standard> {
    let pref = |slug: &str| dto::ProtocolRef {
        slug: slug.to_owned(),
        url: catalog.protocol(slug).and_then(|p| p.url.clone()).unwrap_or_default(),
    };
    let actions: Vec<_> = st
        .actions
        .iter()
        .filter(|a| super::bundle::builds(&st.protocol, &a.action))
        .map(|a| dto::StandardAction {
            action: a.action.clone(),
            name: a.name.clone(),
            function_names: a.function_names.clone(),
            supported_chains: a
                .chains
                .iter()
                .filter(|c| {
                    super::bundle::builds_on(catalog, &st.protocol, &a.action, **c, followed(**c))
                })
                .map(|c| network_ref(catalog, *c))
                .collect(),
            inputs: a.inputs.clone(),
        })
        .filter(|a| !a.supported_chains.is_empty())
        .collect();
    (!actions.is_empty()).then(|| dto::Standard {
        protocol: pref(&st.protocol),
        forks: st.forks.iter().map(|f| pref(f)).collect(),
        actions,
    })
}

/// `GET /api/v1/standards`: every standard and the actions this version
/// builds.
#[utoipa::path(get, path = "/api/v1/standards", tag = "standards",
    responses((status = 200, body = Vec<dto::Standard>)))]
pub async fn standards(State(s): State<AppState>) -> Json<Vec<dto::Standard>> {
    let catalog = s.engine.catalog();
    let followed = |c| s.engine.follows(c);
    Json(
        catalog.standards().iter().filter_map(|st| standard_dto(&catalog, &followed, st)).collect(),
    )
}

/// `GET /api/v1/standards/{slug}`: the standard of a protocol (or of the
/// protocol it forks), as a one-element array as the TypeScript client
/// declares.
#[utoipa::path(get, path = "/api/v1/standards/{slug}", tag = "standards",
    params(("slug" = String, Path, description = "Protocol slug")),
    responses((status = 200, body = Vec<dto::Standard>), (status = 404, body = crate::error::ErrorBody)))]
pub async fn standard_by_slug(
    State(s): State<AppState>,
    ApiPath(slug): ApiPath<String>,
) -> Result<Json<Vec<dto::Standard>>, ApiError> {
    let catalog = s.engine.catalog();
    let st = catalog
        .standard(&slug)
        .ok_or_else(|| ApiError::not_found("slug", format!("no standard for protocol `{slug}`")))?;
    let followed = |c| s.engine.follows(c);
    let st = standard_dto(&catalog, &followed, st).ok_or_else(|| {
        ApiError::not_found(
            "slug",
            format!("no action of protocol `{slug}` is built by this version"),
        )
    })?;
    Ok(Json(vec![st]))
}

fn action_dto(a: &switchyard_catalog::ActionSpec) -> dto::Action {
    dto::Action {
        action: a.action.clone(),
        inputs: a
            .inputs
            .iter()
            .map(|(k, v)| {
                (
                    k.clone(),
                    dto::ActionInput {
                        kind: v.kind.clone(),
                        description: v.description.clone(),
                        optional: v.optional,
                    },
                )
            })
            .collect(),
    }
}

/// Whether `a` of `st` builds on one of the chains it lists
/// ([`super::bundle::builds_on`]).
fn builds_somewhere(
    catalog: &Catalog,
    followed: &dyn Fn(switchyard_catalog::ChainId) -> bool,
    st: &switchyard_catalog::Standard,
    a: &switchyard_catalog::StandardAction,
) -> bool {
    a.chains
        .iter()
        .any(|c| super::bundle::builds_on(catalog, &st.protocol, &a.action, *c, followed(*c)))
}

/// `GET /api/v1/actions`: every bundle action some standard builds here,
/// and its inputs.
#[utoipa::path(get, path = "/api/v1/actions", tag = "standards",
    responses((status = 200, body = Vec<dto::Action>)))]
pub async fn actions(State(s): State<AppState>) -> Json<Vec<dto::Action>> {
    let catalog = s.engine.catalog();
    let followed = |c| s.engine.follows(c);
    let built = |a: &&switchyard_catalog::ActionSpec| {
        catalog.standards().iter().any(|st| {
            st.actions
                .iter()
                .any(|x| x.action == a.action && builds_somewhere(&catalog, &followed, st, x))
        })
    };
    Json(catalog.actions().iter().filter(built).map(action_dto).collect())
}

/// `GET /api/v1/actions/{slug}`: the actions a protocol supports here.
#[utoipa::path(get, path = "/api/v1/actions/{slug}", tag = "standards",
    params(("slug" = String, Path, description = "Protocol slug")),
    responses((status = 200, body = Vec<dto::Action>), (status = 404, body = crate::error::ErrorBody)))]
pub async fn actions_by_slug(
    State(s): State<AppState>,
    ApiPath(slug): ApiPath<String>,
) -> Result<Json<Vec<dto::Action>>, ApiError> {
    let catalog = s.engine.catalog();
    let st = catalog
        .standard(&slug)
        .ok_or_else(|| ApiError::not_found("slug", format!("no standard for protocol `{slug}`")))?;
    let followed = |c| s.engine.follows(c);
    Ok(Json(
        st.actions
            .iter()
            .filter(|a| builds_somewhere(&catalog, &followed, st, a))
            .filter_map(|a| catalog.action(&a.action))
            .map(action_dto)
            .collect(),
    ))
}

/// `GET /api/v1/projects`: projects and their protocols.
#[utoipa::path(get, path = "/api/v1/projects", tag = "projects",
    responses((status = 200, body = Vec<dto::Project>)))]
pub async fn projects(State(s): State<AppState>) -> Json<Vec<dto::Project>> {
    Json(
        s.engine
            .catalog()
            .projects()
            .iter()
            .map(|p| dto::Project {
                id: p.id.clone(),
                chains: p.chains.iter().map(|c| c.0).collect(),
                protocols: p.protocols.clone(),
            })
            .collect(),
    )
}

/// `GET /api/v1/projects/{project}/protocols`.
#[utoipa::path(get, path = "/api/v1/projects/{project}/protocols", tag = "projects",
    params(("project" = String, Path, description = "Project id")),
    responses((status = 200, body = Vec<dto::ProtocolModel>), (status = 404, body = crate::error::ErrorBody)))]
pub async fn project_protocols(
    State(s): State<AppState>,
    ApiPath(project): ApiPath<String>,
) -> Result<Json<Vec<dto::ProtocolModel>>, ApiError> {
    let catalog = s.engine.catalog();
    let out: Vec<_> = catalog
        .protocols()
        .iter()
        .filter(|p| p.project == project)
        .map(|p| protocol_model(&catalog, p))
        .collect();
    if out.is_empty() {
        return Err(ApiError::not_found("project", format!("unknown project `{project}`")));
    }
    Ok(Json(out))
}

/// `GET /api/v1/protocols`: protocols, optionally by `chainId` and `slug`.
#[utoipa::path(get, path = "/api/v1/protocols", tag = "metadata",
    params(
        ("chainId" = Option<u64>, Query, description = "Only protocols on this chain", minimum = 1, maximum = 9223372036854775807i64),
        ("slug" = Option<String>, Query, description = "Only this protocol slug"),
    ),
    responses((status = 200, body = Vec<dto::ProtocolModel>), (status = 400, body = crate::error::ErrorBody)))]
pub async fn protocols(
    State(s): State<AppState>,
    raw: RawQuery,
) -> Result<Json<Vec<dto::ProtocolModel>>, ApiError> {
    let q = query(&raw)?;
    let chain = q.u64_in("chainId", CHAIN_IDS)?.map(ChainId);
    let slug = q.scalar("slug")?;
    let catalog = s.engine.catalog();
    Ok(Json(
        catalog
            .protocols()
            .iter()
            .filter(|p| chain.is_none_or(|c| p.chains.contains(&c)))
            .filter(|p| slug.is_none_or(|sl| p.slug == sl))
            .map(|p| protocol_model(&catalog, p))
            .collect(),
    ))
}
