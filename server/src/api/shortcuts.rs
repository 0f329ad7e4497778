//! Shortcut and wallet endpoints. Every request is parsed and validated in
//! full (`requests.rs`), so bad input is a 400 naming the field. Quotes
//! (same-chain and cross-chain) come from the routing kernel; routing,
//! bundles, approvals and balances arrive with the execution layer, and until
//! then a valid request answers 501 with the standard error body. None of
//! them returns an amount it has not computed.

use alloy_primitives::U256;
use axum::{
    Extension, Json,
    body::Body,
    extract::{RawQuery, State},
};
use switchyard_catalog::{Catalog, RoutingStrategy};
use switchyard_engine::{
    At, EngineError, QuoteRequest, RouteRequest, bundle::BundleRequest,
    nontokenized::NontokenizedRequest,
};
use switchyard_kernel::Plan;

use super::{
    query,
    requests::{self, RouteKind},
};
use crate::{
    AppState,
    dto::{self, addr},
    error::ApiError,
    middleware::AuthedKey,
    query::Query,
    quote_id::{self, QuoteId, Source},
};

/// Reads a body within the size limit (413 beyond it).
async fn read_body(s: &AppState, body: Body) -> Result<Vec<u8>, ApiError> {
    let limit = s.settings.body_limit_bytes;
    let bytes =
        axum::body::to_bytes(body, limit).await.map_err(|_| ApiError::payload_too_large(limit))?;
    Ok(bytes.to_vec())
}

/// Parses a JSON body with simd-json (in place).
fn parse_json(buf: &mut [u8]) -> Result<simd_json::BorrowedValue<'_>, ApiError> {
    simd_json::to_borrowed_value(buf)
        .map_err(|e| ApiError::invalid("body", format!("body is not valid json: {e}")))
}

/// `GET /api/v1/shortcuts/quote`: the best route by exact pool math
/// (multi-hop, split, several inputs), net of gas. `fee` bps is taken off each
/// input first and reported in `feeAmount`. With `destinationChainId`, the
/// route is source-chain steps, one bridge, destination-chain steps, and
/// `bridgingEstimates` gives the bridge's latency. No route: 422 `NO_ROUTE`.
#[utoipa::path(get, path = "/api/v1/shortcuts/quote", tag = "shortcuts",
    params(
        ("chainId" = Option<u64>, Query, description = "Chain the transaction executes on (default 1)", minimum = 1, maximum = 9223372036854775807i64),
        ("fromAddress" = Option<String>, Query, description = "Sender", pattern = "^0x[0-9a-fA-F]{40}$"),
        ("routingStrategy" = Option<String>, Query, description = "Routing strategy (default router)", pattern = "^(ensowallet-v2|ensowallet|servicewallet|servicewallet-v2|router|delegate|router-legacy|delegate-legacy)$"),
        ("executionMode" = Option<String>, Query, description = "user (default) or backend: with ensowallet-v2, the route runs in the sender's ERC-4337 account and the answer carries its unsigned userOp, which tx (EntryPoint handleOps) submits", pattern = "^(user|backend)$"),
        ("toEoa" = Option<bool>, Query, description = "Deprecated: send the output to the EOA"),
        ("receiver" = Option<String>, Query, description = "Receiver of tokenOut; required with destinationChainId", pattern = "^0x[0-9a-fA-F]{40}$"),
        ("spender" = Option<String>, Query, description = "Spender of tokenIn", pattern = "^0x[0-9a-fA-F]{40}$"),
        ("refundReceiver" = Option<String>, Query, description = "Receiver of dust", pattern = "^0x[0-9a-fA-F]{40}$"),
        ("amountIn" = Option<Vec<String>>, Query, description = "Amounts in wei, one per tokenIn (required unless amountOut is given)", pattern = "^[0-9]{1,78}$"),
        ("amountOut" = Option<String>, Query, description = "Exact output wanted, wei, instead of amountIn (one tokenIn, one tokenOut): the answer's amountIn is the least input found, each path one exact-output call (a Uniswap V2/V3 router, a Balancer pool given out, an ERC-4626 mint or withdraw); slippage applies to the input", pattern = "^[0-9]{1,78}$"),
        ("minAmountOut" = Option<Vec<String>>, Query, description = "Minimum amounts out in wei, one per tokenOut; slippage wins when both are given", pattern = "^[0-9]{1,78}$"),
        ("slippage" = Option<String>, Query, description = "Slippage in bps, 0 to 10000 (default 50)", pattern = "^[0-9]{1,5}$"),
        ("fee" = Option<Vec<String>>, Query, description = "Fee in bps per amountIn, 0 to 100", pattern = "^[0-9]{1,3}$"),
        ("feeReceiver" = Option<String>, Query, description = "Fee receiver; required with fee", pattern = "^0x[0-9a-fA-F]{40}$"),
        ("ignoreAggregators" = Option<Vec<String>>, Query, description = "Liquidity sources to exclude"),
        ("ignoreStandards" = Option<Vec<String>>, Query, description = "Standards to exclude"),
        ("ignoreBridges" = Option<Vec<String>>, Query, description = "Bridges to exclude"),
        ("referralCode" = Option<String>, Query, description = "Referral code, at most 16 characters", max_length = 16),
        ("tokenIn" = Vec<String>, Query, description = "Input tokens (0xeeee…eeee for the native coin)", pattern = "^0x[0-9a-fA-F]{40}$"),
        ("tokenOut" = Vec<String>, Query, description = "Output tokens", pattern = "^0x[0-9a-fA-F]{40}$"),
        ("destinationChainId" = Option<u64>, Query, description = "Destination chain of a cross-chain route", minimum = 1, maximum = 9223372036854775807i64),
        ("atBlock" = Option<u64>, Query, description = "Answer on this block of chainId (one of the last replay_blocks held; 410 SNAPSHOT_EXPIRED before them)", minimum = 0),
    ),
    responses((status = 200, body = dto::QuoteResponse), (status = 400, body = crate::error::ErrorBody), (status = 404, body = crate::error::ErrorBody), (status = 410, body = crate::error::ErrorBody), (status = 422, body = crate::error::ErrorBody)))]
pub async fn quote(
    State(s): State<AppState>,
    raw: RawQuery,
) -> Result<Json<dto::QuoteResponse>, ApiError> {
    quote_answer(&s, &query(&raw)?).await
}

/// `POST /api/v1/shortcuts/quote`: the parameters of the GET form in a
/// JSON object (scalars are accepted where arrays are declared, numbers as
/// strings), the same answer.
#[utoipa::path(post, path = "/api/v1/shortcuts/quote", tag = "shortcuts",
    request_body(content = dto::QuoteBody, content_type = "application/json"),
    responses((status = 200, body = dto::QuoteResponse), (status = 400, body = crate::error::ErrorBody), (status = 404, body = crate::error::ErrorBody), (status = 410, body = crate::error::ErrorBody), (status = 413, body = crate::error::ErrorBody), (status = 422, body = crate::error::ErrorBody)))]
pub async fn quote_post(
    State(s): State<AppState>,
    body: Body,
) -> Result<Json<dto::QuoteResponse>, ApiError> {
    let mut buf = read_body(&s, body).await?;
    let value = parse_json(&mut buf)?;
    quote_answer(&s, &Query::from_json_object(&value)?).await
}

/// A quote request's answer, `atBlock` honoured.
async fn quote_answer(s: &AppState, q: &Query) -> Result<Json<dto::QuoteResponse>, ApiError> {
    let req = requests::parse_route(q, &s.engine.catalog(), RouteKind::Quote)?;
    check_tokens(&s.engine.catalog(), &req)?;
    let at = match q.scalar("atBlock")? {
        None => At::Latest,
        Some(v) => At::Block(crate::query::parse_u64_in("atBlock", v, &(0..=u64::MAX))?),
    };
    let quote =
        s.engine.quote_at(quote_request(&req), &at).await.map_err(|e| in_field(e, "atBlock"))?;
    Ok(Json(quote_response(&quote, &quote_id::canonical(&req), Source::Quotes)))
}

/// A replay error blamed on `field` (the block or id that named a state
/// not held); any other error as it is.
fn in_field(e: EngineError, field: &'static str) -> ApiError {
    match e {
        EngineError::Replay(_) => ApiError::from(e).field(field),
        e => e.into(),
    }
}

/// `GET /api/v1/shortcuts/quote/{quoteId}`: the quote a `quoteId` names,
/// computed again on the very state it names: the same bytes, while its
/// block is among the last `replay_blocks` held (410 `SNAPSHOT_EXPIRED`
/// after). A route's `quoteId` answers its quote on the state its
/// transaction was executed on.
#[utoipa::path(get, path = "/api/v1/shortcuts/quote/{quoteId}", tag = "shortcuts",
    params(("quoteId" = String, Path, description = "The quoteId of a quote or route answer")),
    responses((status = 200, body = dto::QuoteResponse), (status = 404, body = crate::error::ErrorBody), (status = 410, body = crate::error::ErrorBody), (status = 422, body = crate::error::ErrorBody)))]
pub async fn quote_replay(
    State(s): State<AppState>,
    super::ApiPath(id): super::ApiPath<String>,
) -> Result<Json<dto::QuoteResponse>, ApiError> {
    let qid = QuoteId::decode(&id)?;
    let catalog = s.engine.catalog();
    let unknown = |_| ApiError::not_found("quoteId", "no quote has this quoteId");
    let q = Query::parse(&qid.query).map_err(unknown)?;
    let req = requests::parse_route(&q, &catalog, RouteKind::Quote).map_err(unknown)?;
    check_tokens(&catalog, &req).map_err(unknown)?;
    let canonical = quote_id::canonical(&req);
    if canonical != qid.query || qid.views.first().map(|v| v.chain) != Some(req.chain_id) {
        return Err(ApiError::not_found("quoteId", "no quote has this quoteId"));
    }
    let at = At::Views(qid.views);
    let quote = match qid.source {
        Source::Quotes => s.engine.quote_at(quote_request(&req), &at).await,
        Source::Proven => s.engine.proven_quote_at(quote_request(&req), &at).await,
    }
    .map_err(|e| in_field(e, "quoteId"))?;
    Ok(Json(quote_response(&quote, &canonical, qid.source)))
}

/// The first amount, as the wire writes amounts.
fn first_string(v: &[U256]) -> String {
    v.first().copied().unwrap_or_default().to_string()
}

/// The wire form of a quote of the request whose canonical query is
/// `canonical`, computed on `source`'s state.
pub(crate) fn quote_response(
    quote: &switchyard_engine::Quote,
    canonical: &str,
    source: Source,
) -> dto::QuoteResponse {
    let quote_id = QuoteId { source, views: quote.views.clone(), query: canonical.to_owned() };
    dto::QuoteResponse {
        amount_in: quote.exact_out.then(|| first_string(&quote.amounts_in)),
        amount_out: one_or_many(&quote.plan.amounts_out),
        price_impact: quote.price_impact_bps,
        route: hops(&quote.plan),
        fee_amount: quote.fee_amounts.iter().map(ToString::to_string).collect(),
        enso_fee_amount: quote.operator_fee_amounts.iter().map(ToString::to_string).collect(),
        gas: quote.plan.gas.to_string(),
        block_number: quote.block_number,
        quote_id: quote_id.encode(),
        bridging_estimates: bridging_estimates(&quote.plan),
    }
}

/// `GET /api/v1/shortcuts/quote/stream`: the parameters of `GET
/// /shortcuts/quote`, answered as server-sent events. A `quote` event at
/// once (`id` its `quoteId`, data the quote JSON with `blockNumber` and
/// `quoteId`), then one per market change whose answer differs from the
/// last one sent; a comment heartbeat every 15 s; an error computing it is
/// `event: error` with the standard error body, and ends the stream.
/// Identical subscriptions share one computation; each pushed update costs
/// the key one request (one the rate refuses is skipped); a key holds at
/// most `stream_subscriptions_per_key` streams (429 beyond).
#[utoipa::path(get, path = "/api/v1/shortcuts/quote/stream", tag = "shortcuts",
    params(
        ("chainId" = Option<u64>, Query, description = "Chain (default 1)", minimum = 1, maximum = 9223372036854775807i64),
        ("tokenIn" = Vec<String>, Query, description = "Input tokens", pattern = "^0x[0-9a-fA-F]{40}$"),
        ("tokenOut" = Vec<String>, Query, description = "Output tokens", pattern = "^0x[0-9a-fA-F]{40}$"),
        ("amountIn" = Vec<String>, Query, description = "Amounts in wei, one per tokenIn", pattern = "^[0-9]{1,78}$"),
    ),
    responses((status = 200, body = String, content_type = "text/event-stream"), (status = 400, body = crate::error::ErrorBody), (status = 404, body = crate::error::ErrorBody), (status = 429, body = crate::error::ErrorBody)))]
pub async fn quote_stream(
    State(s): State<AppState>,
    Extension(key): Extension<AuthedKey>,
    stop: Option<Extension<crate::listener::Stopping>>,
    raw: RawQuery,
) -> Result<impl axum::response::IntoResponse, ApiError> {
    let q = query(&raw)?;
    let catalog = s.engine.catalog();
    let req = requests::parse_route(&q, &catalog, RouteKind::Quote)?;
    check_tokens(&catalog, &req)?;
    let slot = s.streams.reserve(&key.0, s.settings.stream_subscriptions_per_key)?;
    let sub = s.streams.subscribe(&s.engine, quote_request(&req), quote_id::canonical(&req), slot);
    let frames = crate::stream::frames(s.engine, key.0, sub, stop.map(|s| s.0));
    Ok((
        [
            (axum::http::header::CONTENT_TYPE, "text/event-stream"),
            (axum::http::header::CACHE_CONTROL, "no-cache"),
        ],
        axum::body::Body::from_stream(frames),
    ))
}

/// `GET /api/v1/ws`: quote subscriptions over a WebSocket (see
/// `crate::ws` for the messages). Authenticated as REST is.
#[utoipa::path(get, path = "/api/v1/ws", tag = "shortcuts",
    responses((status = 101, description = "Switching to the WebSocket protocol"), (status = 400, body = crate::error::ErrorBody), (status = 401, body = crate::error::ErrorBody)))]
pub async fn ws(
    State(s): State<AppState>,
    Extension(key): Extension<AuthedKey>,
    held: Option<Extension<crate::listener::Upgraded>>,
    upgrade: Result<
        axum::extract::ws::WebSocketUpgrade,
        axum::extract::ws::rejection::WebSocketUpgradeRejection,
    >,
) -> Result<axum::response::Response, ApiError> {
    // A request that is not a WebSocket handshake gets the standard error
    // body, naming the header at fault (axum's own rejection is plain text).
    let upgrade = upgrade.map_err(|r| {
        use axum::extract::ws::rejection::WebSocketUpgradeRejection as R;
        let field = match r {
            R::MethodNotGet(_) => "method",
            R::InvalidConnectionHeader(_) => "connection",
            R::InvalidUpgradeHeader(_) => "upgrade",
            R::InvalidWebSocketVersionHeader(_) => "sec-websocket-version",
            R::WebSocketKeyHeaderMissing(_) => "sec-websocket-key",
            _ => "upgrade",
        };
        ApiError::invalid(field, format!("not a WebSocket handshake: {}", r.body_text()))
    })?;
    Ok(upgrade
        .max_message_size(crate::ws::MAX_MESSAGE)
        .on_upgrade(move |socket| crate::ws::session(socket, s, key.0, held.map(|h| h.0))))
}

/// Most quotes in one batch.
pub const BATCH_MAX: usize = 1000;

/// `POST /api/v1/shortcuts/quote/batch`: up to 1,000 quotes in one request,
/// each item the parameters of `GET /shortcuts/quote` as a JSON object.
/// Every quote of a chain is answered on one snapshot (its block is in
/// `blockNumbers`), in parallel; each item answers alone, with the status
/// and body its own `GET` would have had (a bad item's error names
/// `quotes[i].<field>`). The batch costs its key one request per quote,
/// admitted whole or not at all.
#[utoipa::path(post, path = "/api/v1/shortcuts/quote/batch", tag = "shortcuts",
    request_body = dto::QuoteBatchRequest,
    responses((status = 200, body = dto::QuoteBatchResponse), (status = 400, body = crate::error::ErrorBody), (status = 429, body = crate::error::ErrorBody)))]
pub async fn quote_batch(
    State(s): State<AppState>,
    Extension(key): Extension<AuthedKey>,
    body: Body,
) -> Result<Json<dto::QuoteBatchResponse>, ApiError> {
    use simd_json::{BorrowedValue as V, prelude::ValueObjectAccess};
    let mut buf = read_body(&s, body).await?;
    let value = parse_json(&mut buf)?;
    if !matches!(value, V::Object(_)) {
        return Err(ApiError::invalid("body", "the body is an object with a `quotes` array"));
    }
    let items = match value.get("quotes") {
        Some(V::Array(items)) => items,
        Some(_) => return Err(ApiError::invalid("quotes", "quotes is an array of quote requests")),
        None => return Err(ApiError::missing("quotes")),
    };
    if items.is_empty() || items.len() > BATCH_MAX {
        return Err(ApiError::invalid(
            "quotes",
            format!("a batch holds 1 to {BATCH_MAX} quotes, not {}", items.len()),
        ));
    }
    // The request was admitted as one; the rest of the batch is charged
    // now, all or nothing.
    let n = u32::try_from(items.len()).unwrap_or(u32::MAX);
    let burst = switchyard_engine::rate_limit::burst(key.0.rate_per_s);
    if n > burst {
        return Err(ApiError::invalid(
            "quotes",
            format!("a batch of {n} costs {n} requests, more than this key's burst of {burst}"),
        ));
    }
    if n > 1 {
        let d = s.engine.admit_n(&key.0, n - 1).await?;
        if let Some(retry_after) = d.retry_after {
            return Err(switchyard_engine::EngineError::RateLimited { retry_after }.into());
        }
    }
    // An item that is not even an object is a malformed body, not a bad
    // quote: the whole batch is refused, naming it.
    if let Some(i) = items.iter().position(|item| !matches!(item, V::Object(_))) {
        return Err(ApiError::invalid(
            format!("quotes[{i}]"),
            "each quote is an object of quote parameters",
        ));
    }
    let catalog = s.engine.catalog();
    let mut reqs = Vec::with_capacity(items.len());
    let mut canon = Vec::with_capacity(items.len());
    let mut slots: Vec<Result<usize, ApiError>> = Vec::with_capacity(items.len());
    for item in items.iter() {
        let parsed = Query::from_json_object(item).and_then(|q| {
            let req = requests::parse_route(&q, &catalog, RouteKind::Quote)?;
            check_tokens(&catalog, &req)?;
            Ok((quote_request(&req), quote_id::canonical(&req)))
        });
        match parsed {
            Ok((r, c)) => {
                slots.push(Ok(reqs.len()));
                reqs.push(r);
                canon.push(c);
            }
            Err(e) => slots.push(Err(e)),
        }
    }
    let batch = s.engine.quote_batch(reqs).await?;
    let mut answers: Vec<Option<Result<switchyard_engine::Quote, ApiError>>> =
        batch.results.into_iter().map(|r| Some(r.map_err(ApiError::from))).collect();
    let results = slots
        .into_iter()
        .enumerate()
        .map(|(i, slot)| {
            let answer = slot.and_then(|k| {
                let q = answers
                    .get_mut(k)
                    .and_then(Option::take)
                    .unwrap_or_else(|| Err(ApiError::internal()))?;
                Ok(quote_response(&q, canon.get(k).map_or("", String::as_str), Source::Quotes))
            });
            match answer {
                Ok(q) => dto::QuoteBatchItem {
                    status: 200,
                    body: dto::QuoteBatchBody::Quote(Box::new(q)),
                },
                Err(e) => {
                    let e = e.in_item(&format!("quotes[{i}]"));
                    if e.status().is_server_error() {
                        // The batch answers 200: its failed items are logged
                        // here, as the middleware logs a failed request.
                        tracing::error!(
                            item = i,
                            status = e.status().as_u16(),
                            cause = e.cause.as_deref().unwrap_or(""),
                            "batch quote failed"
                        );
                    }
                    dto::QuoteBatchItem {
                        status: e.status().as_u16(),
                        body: dto::QuoteBatchBody::Error(e.body()),
                    }
                }
            }
        })
        .collect();
    Ok(Json(dto::QuoteBatchResponse {
        block_numbers: batch.blocks.into_iter().map(|(c, b)| (c.0.to_string(), b)).collect(),
        results,
    }))
}

/// Most amounts in one ladder.
pub const LADDER_MAX: usize = 64;

/// `POST /api/v1/shortcuts/quote/ladder`: one pair quoted at up to 64
/// increasing amounts on one snapshot, the search shared across the points
/// (the largest and smallest amount are searched in full and equal their
/// own quotes; every point between is allocated over the paths those found,
/// and quoted exactly). Each point gives its route and the marginal price
/// (tokenOut per tokenIn, in whole tokens, of the next small part).
#[utoipa::path(post, path = "/api/v1/shortcuts/quote/ladder", tag = "shortcuts",
    request_body = dto::LadderRequest,
    responses((status = 200, body = dto::LadderResponse), (status = 400, body = crate::error::ErrorBody), (status = 404, body = crate::error::ErrorBody), (status = 422, body = crate::error::ErrorBody)))]
pub async fn quote_ladder(
    State(s): State<AppState>,
    body: Body,
) -> Result<Json<dto::LadderResponse>, ApiError> {
    let mut buf = read_body(&s, body).await?;
    let value = parse_json(&mut buf)?;
    if !matches!(value, simd_json::BorrowedValue::Object(_)) {
        return Err(ApiError::invalid("body", "the body is an object of ladder parameters"));
    }
    let q = Query::from_json_object(&value)?;
    let catalog = s.engine.catalog();
    let chain = match q.scalar("chainId")? {
        Some(v) => super::known_chain(&catalog, "chainId", v)?.id,
        None => switchyard_catalog::ChainId(1),
    };
    let token = |field: &'static str| -> Result<switchyard_catalog::Token, ApiError> {
        let a = crate::query::parse_address(field, q.required(field)?)?;
        known_token(&catalog, chain, field, a).cloned()
    };
    let (token_in, token_out) = (token("tokenIn")?, token("tokenOut")?);
    if token_in.address == token_out.address {
        return Err(ApiError::invalid("tokenOut", "tokenOut is the same token as tokenIn"));
    }
    let raw = q.list("amountsIn");
    if raw.is_empty() {
        return Err(ApiError::missing("amountsIn"));
    }
    if raw.len() > LADDER_MAX {
        return Err(ApiError::invalid(
            "amountsIn",
            format!("a ladder holds 1 to {LADDER_MAX} amounts, not {}", raw.len()),
        ));
    }
    let mut amounts: Vec<U256> = Vec::with_capacity(raw.len());
    for (i, v) in raw.iter().enumerate() {
        let a = crate::query::parse_wei(format!("amountsIn[{i}]"), v)?;
        if a.is_zero() || amounts.last().is_some_and(|prev| a <= *prev) {
            return Err(ApiError::invalid(
                format!("amountsIn[{i}]"),
                "amountsIn must be positive and strictly increasing",
            ));
        }
        amounts.push(a);
    }
    let ladder = s
        .engine
        .ladder(switchyard_engine::quote::LadderRequest {
            chain,
            token_in: token_in.address,
            token_out: token_out.address,
            amounts,
        })
        .await?;
    let scale = 10f64.powi(i32::from(token_in.decimals) - i32::from(token_out.decimals));
    let points = ladder
        .points
        .into_iter()
        .map(|p| {
            let plan = Plan {
                chain,
                destination_chain: chain,
                bridging: Vec::new(),
                amounts_out: vec![p.leg.amount_out],
                gas: p.gas,
                legs: vec![p.leg],
            };
            dto::LadderPoint {
                amount_in: plan.legs[0].amount_in.to_string(),
                amount_out: plan.legs[0].amount_out.to_string(),
                marginal_price: p.marginal * scale,
                gas: plan.gas.to_string(),
                route: hops(&plan),
            }
        })
        .collect();
    Ok(Json(dto::LadderResponse { block_number: ladder.block_number, points }))
}

/// The wire form of a plan's bridge crossings.
pub fn bridging_estimates(plan: &Plan) -> Vec<dto::BridgeLatencyEstimate> {
    plan.bridging
        .iter()
        .map(|b| {
            let sent = b.send_confirmations;
            let note = match sent {
                None => Some(format!(
                    "the catalog records no confirmation count for {} on chain {}: estimatedSeconds is the bridge's typical latency",
                    b.bridge, b.from_chain.0
                )),
                Some(c) if c.counted_on != b.from_chain => Some(format!(
                    "confirmations are blocks of chain {}, where chain {}'s batches finalize",
                    c.counted_on.0, b.from_chain.0
                )),
                Some(_) => None,
            };
            dto::BridgeLatencyEstimate {
                from_chain_id: b.from_chain.0,
                to_chain_id: b.to_chain.0,
                token: addr(b.token),
                estimated_seconds: b.estimated_seconds,
                bridge: b.bridge.clone(),
                send_confirmations: sent.map(|c| c.blocks),
                receive_confirmations: 1,
                send_block_time_seconds: sent.map_or(b.block_ms[0], |c| c.block_ms) as f64
                    / 1000.0,
                receive_block_time_seconds: b.block_ms[1] as f64 / 1000.0,
                source: "catalog",
                note,
            }
        })
        .collect()
}

/// The wire route of a plan: one hop per step, and a `split` hop with
/// `internalRoutes` where an input is split over several paths.
pub fn hops(plan: &Plan) -> Vec<dto::Hop> {
    let amounts = |i: U256, o: U256| {
        std::collections::BTreeMap::from([
            ("amountIn", i.to_string()),
            ("amountOut", o.to_string()),
        ])
    };
    let mut out = Vec::new();
    for leg in &plan.legs {
        if let [route] = leg.routes.as_slice() {
            for st in &route.steps {
                out.push(dto::Hop {
                    token_in: vec![addr(st.token_in)],
                    token_out: vec![addr(st.token_out)],
                    protocol: st.protocol.to_string(),
                    action: st.action.as_str(),
                    primary: addr(st.address),
                    chain_id: st.chain.0,
                    source_chain_id: (st.chain != st.to_chain).then_some(st.chain.0),
                    destination_chain_id: (st.chain != st.to_chain).then_some(st.to_chain.0),
                    pool_addresses: vec![addr(st.address)],
                    internal_routes: Vec::new(),
                    sources: vec![st.protocol.to_string()],
                    position_out: None,
                    args: amounts(st.amount_in, st.amount_out),
                });
            }
            continue;
        }
        let mut pools: Vec<String> = Vec::new();
        let mut sources: Vec<String> = Vec::new();
        for st in leg.routes.iter().flat_map(|r| &r.steps) {
            let a = addr(st.address);
            if !pools.contains(&a) {
                pools.push(a);
            }
            if !sources.iter().any(|s| **s == *st.protocol) {
                sources.push(st.protocol.to_string());
            }
        }
        out.push(dto::Hop {
            token_in: vec![addr(leg.token_in)],
            token_out: vec![addr(leg.token_out)],
            protocol: "enso".to_owned(),
            action: "split",
            primary: pools.first().cloned().unwrap_or_default(),
            chain_id: plan.chain.0,
            source_chain_id: (plan.chain != plan.destination_chain).then_some(plan.chain.0),
            destination_chain_id: (plan.chain != plan.destination_chain)
                .then_some(plan.destination_chain.0),
            pool_addresses: pools,
            sources,
            position_out: None,
            internal_routes: leg
                .routes
                .iter()
                .map(|r| {
                    r.steps
                        .iter()
                        .map(|st| dto::RouteSegment {
                            action: st.action.as_str(),
                            protocol: st.protocol.to_string(),
                            primary: addr(st.address),
                            token_in: vec![addr(st.token_in)],
                            token_out: vec![addr(st.token_out)],
                        })
                        .collect()
                })
                .collect(),
            args: amounts(leg.amount_in, leg.amount_out),
        });
    }
    out
}

/// `GET /api/v1/shortcuts/route`: the best route as a transaction of the
/// requested routing strategy, executed against the snapshot before it is
/// returned: `amountOut` is what the receiver got in that execution, `gas`
/// what it used, and `minAmountOut` is enforced on chain. Cross-chain
/// routes are quoted (`/shortcuts/quote`) but not yet built: 501.
#[utoipa::path(get, path = "/api/v1/shortcuts/route", tag = "shortcuts",
    params(
        ("chainId" = Option<u64>, Query, description = "Chain the transaction executes on (default 1)", minimum = 1, maximum = 9223372036854775807i64),
        ("fromAddress" = String, Query, description = "Sender", pattern = "^0x[0-9a-fA-F]{40}$"),
        ("routingStrategy" = Option<String>, Query, description = "Routing strategy (default router)", pattern = "^(ensowallet-v2|ensowallet|servicewallet|servicewallet-v2|router|delegate|router-legacy|delegate-legacy)$"),
        ("executionMode" = Option<String>, Query, description = "user (default) or backend: with ensowallet-v2, the route runs in the sender's ERC-4337 account and the answer carries its unsigned userOp, which tx (EntryPoint handleOps) submits", pattern = "^(user|backend)$"),
        ("toEoa" = Option<bool>, Query, description = "Deprecated: send the output to the EOA"),
        ("receiver" = Option<String>, Query, description = "Receiver of tokenOut; required with destinationChainId", pattern = "^0x[0-9a-fA-F]{40}$"),
        ("spender" = Option<String>, Query, description = "Spender of tokenIn", pattern = "^0x[0-9a-fA-F]{40}$"),
        ("refundReceiver" = Option<String>, Query, description = "Receiver of dust", pattern = "^0x[0-9a-fA-F]{40}$"),
        ("amountIn" = Option<Vec<String>>, Query, description = "Amounts in wei, one per tokenIn (required unless amountOut is given)", pattern = "^[0-9]{1,78}$"),
        ("amountOut" = Option<String>, Query, description = "Exact output wanted, wei, instead of amountIn (one tokenIn, one tokenOut): the answer's amountIn is the least input found, each path one exact-output call (a Uniswap V2/V3 router, a Balancer pool given out, an ERC-4626 mint or withdraw); slippage applies to the input", pattern = "^[0-9]{1,78}$"),
        ("minAmountOut" = Option<Vec<String>>, Query, description = "Minimum amounts out in wei, one per tokenOut; slippage wins when both are given", pattern = "^[0-9]{1,78}$"),
        ("slippage" = Option<String>, Query, description = "Slippage in bps, 0 to 10000 (default 50)", pattern = "^[0-9]{1,5}$"),
        ("fee" = Option<Vec<String>>, Query, description = "Fee in bps per amountIn, 0 to 100", pattern = "^[0-9]{1,3}$"),
        ("feeReceiver" = Option<String>, Query, description = "Fee receiver; required with fee", pattern = "^0x[0-9a-fA-F]{40}$"),
        ("ignoreAggregators" = Option<Vec<String>>, Query, description = "Liquidity sources to exclude"),
        ("ignoreStandards" = Option<Vec<String>>, Query, description = "Standards to exclude"),
        ("ignoreBridges" = Option<Vec<String>>, Query, description = "Bridges to exclude"),
        ("referralCode" = Option<String>, Query, description = "Referral code, at most 16 characters", max_length = 16),
        ("tokenIn" = Vec<String>, Query, description = "Input tokens (0xeeee…eeee for the native coin)", pattern = "^0x[0-9a-fA-F]{40}$"),
        ("tokenOut" = Vec<String>, Query, description = "Output tokens", pattern = "^0x[0-9a-fA-F]{40}$"),
        ("destinationChainId" = Option<u64>, Query, description = "Destination chain of a cross-chain route", minimum = 1, maximum = 9223372036854775807i64),
    ),
    responses((status = 200, body = dto::RouteResponse), (status = 400, body = crate::error::ErrorBody), (status = 404, body = crate::error::ErrorBody), (status = 422, body = crate::error::ErrorBody), (status = 501, body = crate::error::ErrorBody), (status = 503, body = crate::error::ErrorBody)))]
pub async fn route_get(
    State(s): State<AppState>,
    Extension(key): Extension<AuthedKey>,
    raw: RawQuery,
) -> Result<Json<dto::RouteResponse>, ApiError> {
    let q = query(&raw)?;
    let req = requests::parse_route(&q, &s.engine.catalog(), RouteKind::Route)?;
    route_response(&s, &key, req).await
}

/// `POST /api/v1/shortcuts/route`: the same parameters as the GET form in a
/// JSON object (scalars are accepted where arrays are declared, numbers as
/// strings), the same answer.
#[utoipa::path(post, path = "/api/v1/shortcuts/route", tag = "shortcuts",
    request_body(content = dto::RouteShortcutVariableInputs, content_type = "application/json"),
    responses((status = 200, body = dto::RouteResponse), (status = 400, body = crate::error::ErrorBody), (status = 404, body = crate::error::ErrorBody), (status = 413, body = crate::error::ErrorBody), (status = 422, body = crate::error::ErrorBody), (status = 501, body = crate::error::ErrorBody), (status = 503, body = crate::error::ErrorBody)))]
pub async fn route_post(
    State(s): State<AppState>,
    Extension(key): Extension<AuthedKey>,
    body: Body,
) -> Result<Json<dto::RouteResponse>, ApiError> {
    let mut buf = read_body(&s, body).await?;
    let value = parse_json(&mut buf)?;
    let req = requests::parse_route(
        &Query::from_json_object(&value)?,
        &s.engine.catalog(),
        RouteKind::Route,
    )?;
    route_response(&s, &key, req).await
}

/// Tokens known on their chains, and one output or one per input.
/// The catalog's token at `address` on `chain`, or a 404 naming `field`.
fn known_token(
    catalog: &Catalog,
    chain: switchyard_catalog::ChainId,
    field: impl Into<std::borrow::Cow<'static, str>>,
    address: alloy_primitives::Address,
) -> Result<&switchyard_catalog::Token, ApiError> {
    catalog.token(chain, address).ok_or_else(|| {
        ApiError::not_found(field, format!("token {address:#x} is not known on chain {chain}"))
    })
}

pub(crate) fn check_tokens(
    catalog: &Catalog,
    req: &requests::RouteRequest,
) -> Result<(), ApiError> {
    let chain = req.chain_id;
    let out_chain = req.destination_chain_id.unwrap_or(chain);
    for (field, list, chain) in
        [("tokenIn", &req.token_in, chain), ("tokenOut", &req.token_out, out_chain)]
    {
        for (k, t) in list.iter().enumerate() {
            known_token(catalog, chain, format!("{field}[{k}]"), *t)?;
        }
    }
    if req.token_out.len() != 1 && req.token_out.len() != req.token_in.len() {
        return Err(ApiError::invalid(
            "tokenOut",
            "tokenOut must be one token, or one per tokenIn",
        ));
    }
    Ok(())
}

/// The engine's quote request of a parsed route or quote request.
pub(crate) fn quote_request(req: &requests::RouteRequest) -> QuoteRequest {
    QuoteRequest {
        chain: req.chain_id,
        destination_chain: req.destination_chain_id.filter(|d| *d != req.chain_id),
        // An exact output's input amount is the answer: not read.
        inputs: match req.amount_out {
            Some(_) => req.token_in.iter().map(|t| (*t, U256::ZERO)).collect(),
            None => req.token_in.iter().copied().zip(req.amount_in.iter().copied()).collect(),
        },
        amount_out: req.amount_out,
        // The engine sets the operator's fee from its configuration.
        operator_fee_bps: 0,
        fee_bps: req.fee_bps.clone(),
        inputs_transferred: !matches!(
            req.routing_strategy,
            RoutingStrategy::Delegate | RoutingStrategy::DelegateLegacy
        ) || req.spender.is_some_and(|sp| Some(sp) != req.from_address),
        // As the route's parties have it: the receiver is the account
        // running the program (a delegated sender, a wallet keeping what
        // it bought) or someone it sends to.
        outputs_transferred: match req.routing_strategy {
            RoutingStrategy::Delegate | RoutingStrategy::DelegateLegacy => {
                req.receiver.is_some_and(|r| Some(r) != req.from_address)
            }
            RoutingStrategy::EnsoWalletV2 => req.receiver.is_some() || req.to_eoa == Some(true),
            _ => true,
        },
        outputs: req.token_out.clone(),
        ignore_aggregators: req.ignore_aggregators.clone(),
        ignore_standards: req.ignore_standards.clone(),
        ignore_bridges: req.ignore_bridges.clone(),
    }
}

fn one_or_many(amounts: &[U256]) -> dto::OneOrMany {
    match amounts {
        [one] => dto::OneOrMany::One(one.to_string()),
        _ => dto::OneOrMany::Many(amounts.iter().map(ToString::to_string).collect()),
    }
}

/// The wire form of a transaction.
pub fn transaction(tx: &switchyard_engine::encode::Tx) -> dto::Transaction {
    dto::Transaction {
        data: format!("{}", tx.data),
        to: addr(tx.to),
        from: addr(tx.from),
        value: tx.value.to_string(),
    }
}

async fn route_response(
    s: &AppState,
    key: &AuthedKey,
    req: requests::RouteRequest,
) -> Result<Json<dto::RouteResponse>, ApiError> {
    check_tokens(&s.engine.catalog(), &req)?;
    let from = req.from_address.ok_or_else(|| ApiError::missing("fromAddress"))?;
    let backend = req.execution_mode == requests::ExecutionMode::Backend;
    let delegate =
        matches!(req.routing_strategy, RoutingStrategy::Delegate | RoutingStrategy::DelegateLegacy)
            || (backend && req.routing_strategy == RoutingStrategy::EnsoWalletV2);
    if let Some(spender) = req.spender.filter(|sp| *sp != from && !delegate) {
        return Err(ApiError::invalid(
            "spender",
            format!(
                "spender {spender:#x} differs from fromAddress: only the delegate strategies (and an ERC-4337 account, ensowallet-v2 with executionMode=backend) take inputs from another owner"
            ),
        ));
    }
    let r = s
        .engine
        .route(RouteRequest {
            quote: quote_request(&req),
            from,
            strategy: req.routing_strategy,
            receiver: req.receiver,
            spender: req.spender,
            refund_receiver: req.refund_receiver,
            to_eoa: req.to_eoa.unwrap_or(false),
            fee_receiver: req.fee_receiver,
            operator_fee_receiver: None,
            min_amount_out: req.min_amount_out.clone(),
            slippage_bps: req.slippage_bps,
            slippage_given: req.slippage_given,
            referral_code: req.referral_code.clone(),
            account_id: key.0.account_id.clone(),
            backend,
            // The engine sets the operator's signer from its configuration.
            backend_signer: None,
            account_read: None,
        })
        .await?;
    Ok(Json(dto::RouteResponse {
        gas: r.gas.to_string(),
        amount_in: r.quote.exact_out.then(|| first_string(&r.quote.amounts_in)),
        max_amount_in: r.quote.exact_out.then(|| first_string(&r.max_amounts_in)),
        amount_out: one_or_many(&r.quote.plan.amounts_out),
        min_amount_out: one_or_many(&r.min_amounts_out),
        price_impact: r.quote.price_impact_bps,
        fee_amount: r.quote.fee_amounts.iter().map(ToString::to_string).collect(),
        enso_fee_amount: r.quote.operator_fee_amounts.iter().map(ToString::to_string).collect(),
        created_at: r.block_number,
        block_number: r.block_number,
        valid_until: r.valid_until,
        quote_id: QuoteId {
            source: Source::Proven,
            views: r.quote.views.clone(),
            query: quote_id::canonical(&req),
        }
        .encode(),
        tx: transaction(&r.tx),
        route: hops(&r.quote.plan),
        bridging_estimates: bridging_estimates(&r.quote.plan),
        user_op: r.user_op.as_ref().map(user_operation),
        user_op_hash: r.user_op.as_ref().map(|op| format!("{}", op.hash)),
    }))
}

/// The wire form of a user operation.
fn user_operation(op: &switchyard_engine::account::UserOp) -> dto::UserOperation {
    let hex = |v: u128| format!("{v:#x}");
    dto::UserOperation {
        sender: addr(op.sender),
        nonce: format!("{:#x}", op.nonce),
        factory: op.factory.map(addr),
        factory_data: op.factory.map(|_| format!("{}", op.factory_data)),
        call_data: format!("{}", op.call_data),
        call_gas_limit: hex(op.call_gas_limit),
        verification_gas_limit: hex(op.verification_gas_limit),
        pre_verification_gas: format!("{:#x}", op.pre_verification_gas),
        max_fee_per_gas: hex(op.max_fee_per_gas),
        max_priority_fee_per_gas: hex(op.max_priority_fee_per_gas),
        signature: format!("{}", op.signature),
    }
}

/// `GET /api/v1/shortcuts/route/nontokenized`: the inputs routed to the
/// position's underlying token in the account that runs the program (the
/// router's executor by default, as Enso's; the caller's own account with a
/// delegate strategy), then into the position on `receiver`'s behalf (an Aave debt repaid, a Curve gauge stake). The
/// transaction is executed against the snapshot first, and the position
/// must move by exactly `amountDeposited`.
#[utoipa::path(get, path = "/api/v1/shortcuts/route/nontokenized", tag = "shortcuts",
    params(
        ("chainId" = Option<u64>, Query, description = "Chain (default 1)", minimum = 1, maximum = 9223372036854775807i64),
        ("fromAddress" = String, Query, description = "Sender", pattern = "^0x[0-9a-fA-F]{40}$"),
        ("routingStrategy" = Option<String>, Query, description = "router (default), delegate, delegate-legacy or checkout", pattern = "^(router|delegate|delegate-legacy|checkout)$"),
        ("tokenIn" = Vec<String>, Query, description = "Input tokens", pattern = "^0x[0-9a-fA-F]{40}$"),
        ("amountIn" = Vec<String>, Query, description = "Amounts in wei, one per tokenIn", pattern = "^[0-9]{1,78}$"),
        ("positionOut" = String, Query, description = "Position id (or address) of a non-tokenized position"),
        ("receiver" = String, Query, description = "Owner of the position", pattern = "^0x[0-9a-fA-F]{40}$"),
        ("slippage" = Option<String>, Query, description = "Slippage in bps, 0 to 10000 (default 50)", pattern = "^[0-9]{1,5}$"),
        ("fee" = Option<Vec<String>>, Query, description = "Fee in bps per amountIn, 0 to 100", pattern = "^[0-9]{1,3}$"),
        ("feeReceiver" = Option<String>, Query, description = "Fee receiver; required with fee", pattern = "^0x[0-9a-fA-F]{40}$"),
        ("spender" = Option<String>, Query, description = "Spender of tokenIn", pattern = "^0x[0-9a-fA-F]{40}$"),
        ("refundReceiver" = Option<String>, Query, description = "Receiver of dust", pattern = "^0x[0-9a-fA-F]{40}$"),
        ("referralCode" = Option<String>, Query, description = "Referral code, at most 16 characters", max_length = 16),
        ("destinationChainId" = Option<u64>, Query, description = "Destination chain", minimum = 1, maximum = 9223372036854775807i64),
        ("ignoreAggregators" = Option<Vec<String>>, Query, description = "Liquidity sources to exclude"),
        ("ignoreStandards" = Option<Vec<String>>, Query, description = "Standards to exclude"),
        ("ignoreBridges" = Option<Vec<String>>, Query, description = "Bridges to exclude"),
    ),
    responses((status = 200, body = dto::NontokenizedResponse), (status = 400, body = crate::error::ErrorBody), (status = 404, body = crate::error::ErrorBody), (status = 422, body = crate::error::ErrorBody), (status = 501, body = crate::error::ErrorBody), (status = 503, body = crate::error::ErrorBody)))]
pub async fn route_nontokenized(
    State(s): State<AppState>,
    Extension(key): Extension<AuthedKey>,
    raw: RawQuery,
) -> Result<Json<dto::NontokenizedResponse>, ApiError> {
    let q = query(&raw)?;
    let catalog = s.engine.catalog();
    let req = requests::parse_nontokenized(&q, &catalog)?;
    let route = &req.route;
    check_tokens(&catalog, route)?;
    let from = route.from_address.ok_or_else(|| ApiError::missing("fromAddress"))?;
    let r = s
        .engine
        .nontokenized(NontokenizedRequest {
            route: RouteRequest {
                quote: quote_request(route),
                from,
                strategy: route.routing_strategy,
                receiver: route.receiver,
                spender: route.spender,
                refund_receiver: route.refund_receiver,
                to_eoa: false,
                fee_receiver: route.fee_receiver,
                operator_fee_receiver: None,
                min_amount_out: Vec::new(),
                slippage_bps: route.slippage_bps,
                slippage_given: route.slippage_given,
                referral_code: route.referral_code.clone(),
                account_id: key.0.account_id.clone(),
                backend: false,
                backend_signer: None,
                account_read: None,
            },
            position: req.position,
        })
        .await?;
    let q = &r.route.quote;
    // The route to the underlying, then the deposit into the position.
    let mut route = hops(&q.plan);
    if let Some(p) = catalog.positions().iter().find(|p| {
        p.chain_id == req.route.destination_chain_id.unwrap_or(req.route.chain_id)
            && p.position_id == req.position_id
    }) {
        let underlying: Vec<String> = p.underlying_tokens.iter().map(|t| addr(*t)).collect();
        route.push(dto::Hop {
            token_in: underlying,
            token_out: Vec::new(),
            protocol: p.protocol.clone(),
            action: "deposit",
            primary: addr(p.primary_address),
            chain_id: p.chain_id.0,
            source_chain_id: None,
            destination_chain_id: None,
            pool_addresses: vec![addr(p.address)],
            internal_routes: Vec::new(),
            sources: vec![p.protocol.clone()],
            position_out: Some(vec![p.position_id.clone()]),
            args: std::collections::BTreeMap::from([("amountIn", r.amount_deposited.to_string())]),
        });
    }
    Ok(Json(dto::NontokenizedResponse {
        created_at: r.route.block_number,
        gas: r.route.gas.to_string(),
        amount_deposited: r.amount_deposited.to_string(),
        price_impact: q.price_impact_bps,
        tx: transaction(&r.route.tx),
        route,
        fee_amount: q.fee_amounts.iter().map(ToString::to_string).collect(),
        enso_fee_amount: q.operator_fee_amounts.iter().map(ToString::to_string).collect(),
        valid_until: r.route.valid_until,
    }))
}

/// `POST /api/v1/shortcuts/bundle`: the actions are checked against the
/// catalog's standards and `useOutputOfCallAt` must name an earlier action;
/// 501 until the execution layer lands.
#[utoipa::path(post, path = "/api/v1/shortcuts/bundle", tag = "shortcuts",
    params(
        ("chainId" = Option<u64>, Query, description = "Chain (default 1)", minimum = 1, maximum = 9223372036854775807i64),
        ("fromAddress" = String, Query, description = "Sender", pattern = "^0x[0-9a-fA-F]{40}$"),
        ("routingStrategy" = Option<String>, Query, description = "Routing strategy (default router)", pattern = "^(ensowallet-v2|ensowallet|servicewallet|servicewallet-v2|router|delegate|router-legacy|delegate-legacy)$"),
        ("executionMode" = Option<String>, Query, description = "user (default) or backend: with ensowallet-v2, the route runs in the sender's ERC-4337 account and the answer carries its unsigned userOp, which tx (EntryPoint handleOps) submits", pattern = "^(user|backend)$"),
        ("receiver" = Option<String>, Query, description = "Receiver", pattern = "^0x[0-9a-fA-F]{40}$"),
        ("spender" = Option<String>, Query, description = "Spender", pattern = "^0x[0-9a-fA-F]{40}$"),
        ("refundReceiver" = Option<String>, Query, description = "Receiver of dust", pattern = "^0x[0-9a-fA-F]{40}$"),
        ("ignoreAggregators" = Option<Vec<String>>, Query, description = "Liquidity sources to exclude"),
        ("skipQuote" = Option<bool>, Query, description = "Skip quoting: no gas or amountsOut in the answer"),
        ("referralCode" = Option<String>, Query, description = "Referral code, at most 16 characters", max_length = 16),
    ),
    request_body(content = Vec<dto::BundleAction>, content_type = "application/json"),
    responses((status = 200, body = dto::BundleResponse), (status = 400, body = crate::error::ErrorBody), (status = 404, body = crate::error::ErrorBody), (status = 413, body = crate::error::ErrorBody), (status = 422, body = crate::error::ErrorBody), (status = 501, body = crate::error::ErrorBody), (status = 503, body = crate::error::ErrorBody)))]
pub async fn bundle(
    State(s): State<AppState>,
    Extension(key): Extension<AuthedKey>,
    raw: RawQuery,
    body: Body,
) -> Result<Json<dto::BundleResponse>, ApiError> {
    let q = query(&raw)?;
    let mut buf = read_body(&s, body).await?;
    let value = parse_json(&mut buf)?;
    let catalog = s.engine.catalog();
    let req = requests::parse_bundle(&q, &value, &catalog)?;
    let instance = super::bundle::Instance {
        operator_fee_receiver: s.engine.operator_fee().map(|f| f.receiver),
        backend: req.execution_mode == requests::ExecutionMode::Backend
            && req.routing_strategy == RoutingStrategy::EnsoWalletV2,
    };
    let actions = super::bundle::parse_actions(&value, "body", instance)?;
    let echo = serde_json::to_value(&value)
        .map_err(|_| ApiError::invalid("body", "body is not valid json"))?;
    let skip_quote = req.skip_quote;
    let b = s
        .engine
        .bundle(BundleRequest {
            chain: req.chain_id,
            from: req.from_address,
            strategy: req.routing_strategy,
            receiver: req.receiver,
            spender: req.spender,
            refund_receiver: req.refund_receiver,
            ignore_aggregators: req.ignore_aggregators,
            skip_quote,
            referral_code: req.referral_code,
            account_id: key.0.account_id.clone(),
            actions,
            // Read by the engine from the chain's node.
            positions: Vec::new(),
            backend: req.execution_mode == requests::ExecutionMode::Backend,
            backend_signer: None,
            account_read: None,
            arriving: Vec::new(),
        })
        .await?;
    let by_token = |m: &std::collections::BTreeMap<alloy_primitives::Address, U256>| {
        m.iter().map(|(t, a)| (addr(*t), a.to_string())).collect()
    };
    let route = b.plans.iter().flat_map(hops).collect();
    let bridging_estimates = b.plans.iter().flat_map(bridging_estimates).collect();
    Ok(Json(dto::BundleResponse {
        bundle: echo,
        gas: (!skip_quote).then(|| b.gas.to_string()),
        amounts_out: (!skip_quote).then(|| by_token(&b.amounts_out)),
        min_amounts_out: by_token(&b.min_amounts_out),
        fee_amount: by_token(&b.fee_amounts),
        route,
        bridging_estimates,
        created_at: b.block_number,
        valid_until: b.valid_until,
        tx: transaction(&b.tx),
        approvals: b
            .approvals
            .iter()
            .map(|a| dto::BundleApproval {
                to: addr(a.token),
                from: addr(a.owner),
                data: format!(
                    "{}",
                    switchyard_engine::encode::approve_calldata(a.spender, a.amount)
                ),
                description: if a.nft {
                    format!("approve {:#x} to take token {} of {:#x}", a.spender, a.amount, a.token)
                } else {
                    format!("approve {:#x} to spend {} of {:#x}", a.spender, a.amount, a.token)
                },
            })
            .collect(),
        user_op: b.user_op.as_ref().map(user_operation),
        user_op_hash: b.user_op.as_ref().map(|op| format!("{}", op.hash)),
    }))
}

/// `POST /api/v1/shortcuts/static/ipor`: `percentageForTokenB` of `amountIn`
/// buys `tokenBToBuy` (the kernel's route, `slippage` default 300 bps), the
/// rest (wrapped, for the native coin) and what was bought go into the
/// market's two-token vault of the pair for `fromAddress`. Through the
/// shared router unless `isRouter` is false (then from the sender's own
/// account). The transaction is executed against the snapshot first: its
/// logs are returned, and the shares it mints must be the vault's
/// `previewDeposit` of the two amounts. `simulationURL` is always empty.
#[utoipa::path(post, path = "/api/v1/shortcuts/static/ipor", tag = "shortcuts",
    params(
        ("chainId" = Option<u64>, Query, description = "Chain (default 1)", minimum = 1, maximum = 9223372036854775807i64),
        ("fromAddress" = String, Query, description = "Sender", pattern = "^0x[0-9a-fA-F]{40}$"),
    ),
    request_body(content = dto::IporShortcutInput, content_type = "application/json"),
    responses((status = 200, body = dto::IporResponse), (status = 400, body = crate::error::ErrorBody), (status = 404, body = crate::error::ErrorBody), (status = 413, body = crate::error::ErrorBody), (status = 422, body = crate::error::ErrorBody), (status = 503, body = crate::error::ErrorBody)))]
pub async fn ipor(
    State(s): State<AppState>,
    Extension(key): Extension<AuthedKey>,
    raw: RawQuery,
    body: Body,
) -> Result<Json<dto::IporResponse>, ApiError> {
    let q = query(&raw)?;
    let mut buf = read_body(&s, body).await?;
    let value = parse_json(&mut buf)?;
    let catalog = s.engine.catalog();
    let req = requests::parse_ipor(&q, &Query::from_json_object(&value)?, &catalog)?;
    for (field, token) in [("tokenIn", req.token_in), ("tokenBToBuy", req.token_b)] {
        if catalog.token(req.chain_id, token).is_none() {
            return Err(ApiError::not_found(
                field,
                format!("token {token:#x} is not known on chain {}", req.chain_id),
            ));
        }
    }
    let r = s
        .engine
        .ipor(switchyard_engine::ipor::IporRequest {
            chain: req.chain_id,
            from: req.from_address,
            is_router: req.is_router,
            token_in: req.token_in,
            amount_in: req.amount_in,
            token_b: req.token_b,
            percentage_b_bps: req.percentage_for_token_b_bps,
            slippage_bps: req.slippage_bps,
            account_id: key.0.account_id.clone(),
            referral_code: None,
        })
        .await?;
    Ok(Json(dto::IporResponse {
        created_at: r.block_number,
        tx: transaction(&r.tx),
        logs: r
            .logs
            .iter()
            .map(|l| {
                let (topics, data, address) = switchyard_engine::ipor::log_parts(l);
                dto::IporLog { topics, data: data.to_string(), address: addr(address) }
            })
            .collect(),
        simulation_url: String::new(),
    }))
}

/// `GET /api/v1/wallet/approve`: the `approve` transaction for the
/// strategy's spender (its router, or the caller's own `ensowallet-v2`
/// wallet; never an executor), with its gas measured in the EVM world.
#[utoipa::path(get, path = "/api/v1/wallet/approve", tag = "wallet",
    params(
        ("chainId" = Option<u64>, Query, description = "Chain (default 1)", minimum = 1, maximum = 9223372036854775807i64),
        ("fromAddress" = String, Query, description = "Token owner", pattern = "^0x[0-9a-fA-F]{40}$"),
        ("tokenAddress" = String, Query, description = "Token to approve", pattern = "^0x[0-9a-fA-F]{40}$"),
        ("amount" = String, Query, description = "Allowance in wei", pattern = "^[0-9]{1,78}$"),
        ("routingStrategy" = Option<String>, Query, description = "Routing strategy (default router). The spender is its router, or for ensowallet-v2 the caller's wallet; the delegate strategies need no approval (400)", pattern = "^(ensowallet-v2|ensowallet|servicewallet|servicewallet-v2|router|delegate|router-legacy|delegate-legacy)$"),
    ),
    responses((status = 200, body = dto::ApproveResponse), (status = 400, body = crate::error::ErrorBody), (status = 404, body = crate::error::ErrorBody), (status = 503, body = crate::error::ErrorBody)))]
pub async fn approve(
    State(s): State<AppState>,
    raw: RawQuery,
) -> Result<Json<dto::ApproveResponse>, ApiError> {
    let q = query(&raw)?;
    let req = requests::parse_approve(&q, &s.engine.catalog())?;
    let a = s
        .engine
        .approve(req.chain_id, req.from_address, req.token, req.amount, req.routing_strategy)
        .await?;
    Ok(Json(dto::ApproveResponse {
        tx: dto::WalletTransaction {
            data: format!("{}", a.data),
            to: addr(a.token),
            from: addr(a.from),
            value: "0".to_owned(),
        },
        gas: a.gas.to_string(),
        token: addr(a.token),
        amount: a.amount.to_string(),
        spender: addr(a.spender),
    }))
}

/// `GET /api/v1/wallet/balances`: every catalog token (and the native coin)
/// the EOA, or the wallet the factory derives for it (`useEoa=false`),
/// holds in chain state: on the embedded demo market, the simulated world.
#[utoipa::path(get, path = "/api/v1/wallet/balances", tag = "wallet",
    params(
        ("chainId" = Option<String>, Query, description = "Chain id or `all` (default 1)", pattern = "^([1-9][0-9]{0,17}|all)$"),
        ("eoaAddress" = String, Query, description = "The EOA", pattern = "^0x[0-9a-fA-F]{40}$"),
        ("useEoa" = bool, Query, description = "Balances of the EOA itself rather than its smart wallet"),
    ),
    responses((status = 200, body = Vec<dto::WalletBalance>), (status = 400, body = crate::error::ErrorBody), (status = 404, body = crate::error::ErrorBody), (status = 503, body = crate::error::ErrorBody)))]
pub async fn balances(
    State(s): State<AppState>,
    raw: RawQuery,
) -> Result<Json<Vec<dto::WalletBalance>>, ApiError> {
    let q = query(&raw)?;
    let req = requests::parse_balances(&q, &s.engine.catalog())?;
    let found = s.engine.balances(req.chain_id, req.eoa_address, req.use_eoa).await?;
    let state = s.engine.state();
    Ok(Json(
        found
            .iter()
            .map(|b| {
                let t = state.catalog.token(b.chain, b.token);
                let native = state.catalog.network(b.chain).map(|n| &n.native_currency);
                let (decimals, name, symbol) = match (t, native) {
                    (Some(t), _) => (t.decimals, Some(t.name.clone()), Some(t.symbol.clone())),
                    (None, Some(n)) => (n.decimals, Some(n.name.clone()), Some(n.symbol.clone())),
                    (None, None) => (18, None, None),
                };
                dto::WalletBalance {
                    token: addr(b.token),
                    amount: b.amount.to_string(),
                    chain_id: b.chain.0,
                    decimals,
                    price: state.prices.get(b.chain, b.token).map(|p| p.usd.to_string()),
                    name,
                    symbol,
                    logo_uri: t.and_then(|t| t.logos_uri.first().cloned()),
                }
            })
            .collect(),
    ))
}
