//! `/tokens` and `/nontokenized`: filtered, paginated catalog views.

use std::collections::BTreeSet;

use axum::{
    Json,
    extract::{RawQuery, State},
};
use switchyard_catalog::{Address, Catalog, ChainId, Token, TokenKind};

use super::{CHAIN_IDS, Window, query};
use crate::{
    AppState,
    dto::{self, addr},
    error::ApiError,
    query::Query,
};

fn token_model(t: &Token, meta: bool) -> dto::TokenModel {
    dto::TokenModel {
        address: addr(t.address),
        chain_id: t.chain_id.0,
        kind: t.kind.as_str(),
        decimals: t.decimals,
        symbol: meta.then(|| t.symbol.clone()),
        name: meta.then(|| t.name.clone()),
        logos_uri: meta.then(|| t.logos_uri.clone()),
    }
}

fn underlying(
    catalog: &Catalog,
    chain: ChainId,
    list: &[Address],
    meta: bool,
) -> Vec<dto::TokenModel> {
    list.iter().filter_map(|a| catalog.token(chain, *a)).map(|u| token_model(u, meta)).collect()
}

fn set_of(list: &[Address]) -> BTreeSet<Address> {
    list.iter().copied().collect()
}

/// The token filters of `GET /tokens`.
struct TokenFilter {
    project: Option<String>,
    protocol_slug: Option<String>,
    underlying: Vec<Address>,
    underlying_exact: Option<BTreeSet<Address>>,
    primary: Vec<Address>,
    address: Vec<Address>,
    names: Vec<String>,
    symbols: Vec<String>,
    chain: Option<ChainId>,
    kind: Option<TokenKind>,
    multi_token: Option<bool>,
    apy: (Option<f64>, Option<f64>),
    tvl: (Option<f64>, Option<f64>),
}

impl TokenFilter {
    fn parse(q: &Query) -> Result<Self, ApiError> {
        let exact = q.addresses("underlyingTokensExact")?;
        Ok(Self {
            project: q.scalar("project")?.map(str::to_owned),
            protocol_slug: q.scalar("protocolSlug")?.map(str::to_owned),
            underlying: q.addresses("underlyingTokens")?,
            underlying_exact: (!exact.is_empty()).then(|| set_of(&exact)),
            primary: q.addresses("primaryAddress")?,
            address: q.addresses("address")?,
            names: q.list("name").iter().map(|s| s.to_lowercase()).collect(),
            symbols: q.list("symbol").iter().map(|s| s.to_lowercase()).collect(),
            chain: q.u64_in("chainId", CHAIN_IDS)?.map(ChainId),
            kind: match q.scalar("type")? {
                None => None,
                Some("base") => Some(TokenKind::Base),
                Some("defi") => Some(TokenKind::Defi),
                Some(_) => return Err(ApiError::invalid("type", "type must be one of defi, base")),
            },
            multi_token: match q.scalar("liquidityType")? {
                None => None,
                Some("SingleToken") => Some(false),
                Some("MultiToken") => Some(true),
                Some(_) => {
                    return Err(ApiError::invalid(
                        "liquidityType",
                        "liquidityType must be one of SingleToken, MultiToken",
                    ));
                }
            },
            apy: (q.f64("apyFrom")?, q.f64("apyTo")?),
            tvl: (q.f64("tvlFrom")?, q.f64("tvlTo")?),
        })
    }

    fn in_range(v: Option<f64>, (from, to): (Option<f64>, Option<f64>)) -> bool {
        if from.is_none() && to.is_none() {
            return true;
        }
        v.is_some_and(|v| from.is_none_or(|f| v >= f) && to.is_none_or(|t| v <= t))
    }

    fn matches(&self, t: &Token) -> bool {
        self.chain.is_none_or(|c| t.chain_id == c)
            && self.kind.is_none_or(|k| t.kind == k)
            && self.project.as_deref().is_none_or(|p| t.project.as_deref() == Some(p))
            && self.protocol_slug.as_deref().is_none_or(|p| t.protocol_slug.as_deref() == Some(p))
            && (self.address.is_empty() || self.address.contains(&t.address))
            && (self.primary.is_empty()
                || t.primary_address.is_some_and(|p| self.primary.contains(&p)))
            && self.underlying.iter().all(|u| t.underlying_tokens.contains(u))
            && self.underlying_exact.as_ref().is_none_or(|e| *e == set_of(&t.underlying_tokens))
            && (self.names.is_empty() || self.names.contains(&t.name.to_lowercase()))
            && (self.symbols.is_empty() || self.symbols.contains(&t.symbol.to_lowercase()))
            && self
                .multi_token
                .is_none_or(|m| t.kind == TokenKind::Defi && (t.underlying_tokens.len() > 1) == m)
            && Self::in_range(t.apy, self.apy)
            && Self::in_range(t.tvl, self.tvl)
    }
}

/// `GET /api/v1/tokens`: tokens with their DeFi details, filtered and
/// paginated. `meta.total` counts matching tokens; `cursor` is the offset of
/// the next page's first token (and wins over `page` when both are sent).
#[utoipa::path(get, path = "/api/v1/tokens", tag = "metadata",
    params(
        ("project" = Option<String>, Query, description = "Project of the DeFi token"),
        ("protocolSlug" = Option<String>, Query, description = "Protocol slug of the DeFi token"),
        ("underlyingTokens" = Option<Vec<String>>, Query, description = "Tokens that must all be underlying tokens", pattern = "^0x[0-9a-fA-F]{40}$"),
        ("underlyingTokensExact" = Option<Vec<String>>, Query, description = "The exact set of underlying tokens", pattern = "^0x[0-9a-fA-F]{40}$"),
        ("primaryAddress" = Option<Vec<String>>, Query, description = "Contracts a deposit calls", pattern = "^0x[0-9a-fA-F]{40}$"),
        ("address" = Option<Vec<String>>, Query, description = "Token addresses", pattern = "^0x[0-9a-fA-F]{40}$"),
        ("name" = Option<Vec<String>>, Query, description = "Names (case-insensitive)"),
        ("symbol" = Option<Vec<String>>, Query, description = "Symbols (case-insensitive)"),
        ("chainId" = Option<u64>, Query, description = "Chain id", minimum = 1, maximum = 9223372036854775807i64),
        ("type" = Option<String>, Query, description = "defi or base", pattern = "^(defi|base)$"),
        ("liquidityType" = Option<String>, Query, description = "SingleToken or MultiToken (DeFi tokens by number of underlying tokens)", pattern = "^(SingleToken|MultiToken)$"),
        ("page" = Option<u64>, Query, description = "Page, from 1", minimum = 1, maximum = 4294967295u64),
        ("pageSize" = Option<u64>, Query, description = "Items per page, 1 to 1000 (default 1000)", minimum = 1, maximum = 1000),
        ("cursor" = Option<u64>, Query, description = "Offset of the first item; wins over page", minimum = 0, maximum = 4294967295u64),
        ("includeMetadata" = Option<bool>, Query, description = "Include symbol, name and logos (default false)"),
        ("includeUnderlying" = Option<bool>, Query, description = "Include underlying tokens (default true)"),
        ("apyFrom" = Option<f64>, Query, description = "Minimum APY, percent"),
        ("apyTo" = Option<f64>, Query, description = "Maximum APY, percent"),
        ("tvlFrom" = Option<f64>, Query, description = "Minimum TVL, USD"),
        ("tvlTo" = Option<f64>, Query, description = "Maximum TVL, USD"),
    ),
    responses((status = 200, body = dto::TokenPage), (status = 400, body = crate::error::ErrorBody)))]
pub async fn tokens(
    State(s): State<AppState>,
    raw: RawQuery,
) -> Result<Json<dto::TokenPage>, ApiError> {
    let q = query(&raw)?;
    let filter = TokenFilter::parse(&q)?;
    let window = Window::from_query(&q)?;
    let meta = q.bool("includeMetadata")?.unwrap_or(false);
    let with_underlying = q.bool("includeUnderlying")?.unwrap_or(true);
    let catalog = s.engine.catalog();
    let tokens = match filter.chain {
        Some(c) => catalog.tokens_on(c),
        None => catalog.tokens(),
    };
    let matching: Vec<&Token> = tokens.iter().filter(|t| filter.matches(t)).collect();
    let data = window
        .slice(&matching)
        .iter()
        .map(|t| {
            let defi = t.kind == TokenKind::Defi;
            dto::PositionModel {
                token: token_model(t, meta),
                underlying_tokens: (with_underlying && defi)
                    .then(|| underlying(&catalog, t.chain_id, &t.underlying_tokens, meta)),
                project: t.project.clone(),
                protocol: t.protocol_slug.clone(),
                protocol_slug: t.protocol_slug.clone(),
                apy: t.apy,
                apy_base: t.apy_base,
                apy_reward: t.apy_reward,
                borrow_apy_base: t.borrow_apy_base,
                borrow_apy_reward: t.borrow_apy_reward,
                tvl: t.tvl,
                primary_address: t.primary_address.map(addr),
                source: t.source.clone().unwrap_or_else(|| "catalog".to_owned()),
            }
        })
        .collect();
    Ok(Json(dto::TokenPage { meta: window.meta(matching.len()), data }))
}

/// `GET /api/v1/nontokenized`: non-tokenized positions, filtered and
/// paginated like `/tokens`.
#[utoipa::path(get, path = "/api/v1/nontokenized", tag = "metadata",
    params(
        ("project" = Option<String>, Query, description = "Project"),
        ("protocolSlug" = Option<String>, Query, description = "Protocol slug"),
        ("chainId" = Option<u64>, Query, description = "Chain id", minimum = 1, maximum = 9223372036854775807i64),
        ("positionId" = Option<Vec<String>>, Query, description = "Position ids"),
        ("address" = Option<Vec<String>>, Query, description = "Position addresses", pattern = "^0x[0-9a-fA-F]{40}$"),
        ("primaryAddress" = Option<Vec<String>>, Query, description = "Contracts to call", pattern = "^0x[0-9a-fA-F]{40}$"),
        ("underlyingTokens" = Option<Vec<String>>, Query, description = "Tokens that must all be underlying tokens", pattern = "^0x[0-9a-fA-F]{40}$"),
        ("underlyingTokensExact" = Option<Vec<String>>, Query, description = "The exact set of underlying tokens", pattern = "^0x[0-9a-fA-F]{40}$"),
        ("page" = Option<u64>, Query, description = "Page, from 1", minimum = 1, maximum = 4294967295u64),
        ("pageSize" = Option<u64>, Query, description = "Items per page, 1 to 1000 (default 1000)", minimum = 1, maximum = 1000),
        ("cursor" = Option<u64>, Query, description = "Offset of the first item; wins over page", minimum = 0, maximum = 4294967295u64),
    ),
    responses((status = 200, body = dto::NonTokenizedPage), (status = 400, body = crate::error::ErrorBody)))]
pub async fn nontokenized(
    State(s): State<AppState>,
    raw: RawQuery,
) -> Result<Json<dto::NonTokenizedPage>, ApiError> {
    let q = query(&raw)?;
    let project = q.scalar("project")?;
    let slug = q.scalar("protocolSlug")?;
    let chain = q.u64_in("chainId", CHAIN_IDS)?.map(ChainId);
    let ids = q.list("positionId");
    let address = q.addresses("address")?;
    let primary = q.addresses("primaryAddress")?;
    let underlying_all = q.addresses("underlyingTokens")?;
    let exact = q.addresses("underlyingTokensExact")?;
    let window = Window::from_query(&q)?;
    let catalog = s.engine.catalog();
    let matching: Vec<_> = catalog
        .positions()
        .iter()
        .filter(|p| chain.is_none_or(|c| p.chain_id == c))
        .filter(|p| project.is_none_or(|x| p.project == x))
        .filter(|p| slug.is_none_or(|x| p.protocol == x))
        .filter(|p| ids.is_empty() || ids.contains(&p.position_id.as_str()))
        .filter(|p| address.is_empty() || address.contains(&p.address))
        .filter(|p| primary.is_empty() || primary.contains(&p.primary_address))
        .filter(|p| underlying_all.iter().all(|u| p.underlying_tokens.contains(u)))
        .filter(|p| exact.is_empty() || set_of(&exact) == set_of(&p.underlying_tokens))
        .collect();
    let data = window
        .slice(&matching)
        .iter()
        .map(|p| dto::NonTokenizedModel {
            chain_id: p.chain_id.0,
            project: p.project.clone(),
            protocol: p.protocol.clone(),
            address: addr(p.address),
            position_id: p.position_id.clone(),
            primary_address: addr(p.primary_address),
            name: p.name.clone(),
            logos_uri: p.logos_uri.clone(),
            underlying_tokens: underlying(&catalog, p.chain_id, &p.underlying_tokens, true),
        })
        .collect();
    Ok(Json(dto::NonTokenizedPage { meta: window.meta(matching.len()), data }))
}
