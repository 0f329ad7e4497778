//! Bridge endpoints: LayerZero/Stargate pools, the CCIP router, the CCTP
//! TokenMessengerV2, and bridge transaction status.

use axum::{
    Json,
    extract::{RawQuery, State},
};
use switchyard_catalog::{Catalog, ChainId, LayerZeroPool};

use super::{ApiPath, known_chain, query};
use crate::{
    AppState,
    dto::{self, addr},
    error::ApiError,
    query::{Query, parse_address},
};

/// Bridges whose `/{bridge}/bridge/check` is served.
pub const CHECKABLE_BRIDGES: [&str; 5] = ["layerzero", "stargate", "ccip", "relay", "cctp"];

/// The asset a LayerZero pool carries, to pair pools across chains.
fn asset_key(catalog: &Catalog, p: &LayerZeroPool) -> Option<String> {
    catalog.token(p.chain_id, p.token).map(|t| t.symbol.to_uppercase())
}

/// `GET /api/v1/layerzero/pool` (also `/stargate/pool`): the Stargate pool of
/// a token and the matching pools on other chains. `pool` is null when the
/// token has no pool on the chain; `destinationData` is null when no
/// destination matches the filters.
#[utoipa::path(get, path = "/api/v1/layerzero/pool", tag = "layerzero",
    params(
        ("chainId" = u64, Query, description = "Source chain id", minimum = 1, maximum = 9223372036854775807i64),
        ("token" = String, Query, description = "Source token", pattern = "^0x[0-9a-fA-F]{40}$"),
        ("destinationChainId" = Option<u64>, Query, description = "Destination chain id", minimum = 1, maximum = 9223372036854775807i64),
        ("destinationToken" = Option<String>, Query, description = "Destination token", pattern = "^0x[0-9a-fA-F]{40}$"),
    ),
    responses((status = 200, body = Vec<dto::LzPool>), (status = 400, body = crate::error::ErrorBody), (status = 404, body = crate::error::ErrorBody)))]
pub async fn layerzero_pool(
    State(s): State<AppState>,
    raw: RawQuery,
) -> Result<Json<Vec<dto::LzPool>>, ApiError> {
    let q = query(&raw)?;
    let catalog = s.engine.catalog();
    let chain = known_chain(&catalog, "chainId", q.required("chainId")?)?.id;
    let token = parse_address("token", q.required("token")?)?;
    let dest_chain = q
        .scalar("destinationChainId")?
        .map(|v| known_chain(&catalog, "destinationChainId", v))
        .transpose()?
        .map(|n| n.id);
    let dest_token = q.address("destinationToken")?;
    let decimals = catalog.token(chain, token).map(|t| t.decimals);
    let Some(src) =
        catalog.layerzero_pools().iter().find(|p| p.chain_id == chain && p.token == token)
    else {
        return Ok(Json(vec![dto::LzPool {
            pool: None,
            chain_id: chain.0,
            destination_chain_id: dest_chain.map(|c| c.0),
            token: addr(token),
            decimals,
            destination_data: None,
        }]));
    };
    let key = asset_key(&catalog, src);
    let out: Vec<_> = catalog
        .layerzero_pools()
        .iter()
        .filter(|d| d.chain_id != chain && key.is_some() && asset_key(&catalog, d) == key)
        .filter(|d| dest_chain.is_none_or(|c| d.chain_id == c))
        .filter(|d| dest_token.is_none_or(|t| d.token == t))
        .map(|d| dto::LzPool {
            pool: Some(addr(src.pool)),
            chain_id: chain.0,
            destination_chain_id: Some(d.chain_id.0),
            token: addr(token),
            decimals: Some(src.decimals),
            destination_data: Some(dto::LzDestination {
                pool: addr(d.pool),
                token: addr(d.token),
                decimals: d.decimals,
            }),
        })
        .collect();
    if out.is_empty() {
        return Ok(Json(vec![dto::LzPool {
            pool: Some(addr(src.pool)),
            chain_id: chain.0,
            destination_chain_id: dest_chain.map(|c| c.0),
            token: addr(token),
            decimals: Some(src.decimals),
            destination_data: None,
        }]));
    }
    Ok(Json(out))
}

fn bridge_contract(catalog: &Catalog, bridge: &str, q: &Query) -> Result<String, ApiError> {
    let chain = known_chain(catalog, "chainId", q.required("chainId")?)?.id;
    catalog
        .bridge(bridge)
        .and_then(|b| b.contracts.get(&chain.0.to_string()))
        .map(|a| addr(*a))
        .ok_or_else(|| {
            ApiError::invalid("chainId", format!("chain {chain} is not supported by {bridge}"))
        })
}

/// `GET /api/v1/ccip/router`: the CCIP router of a chain; 400 when CCIP does
/// not serve it.
#[utoipa::path(get, path = "/api/v1/ccip/router", tag = "ccip",
    params(("chainId" = u64, Query, description = "Chain id", minimum = 1, maximum = 9223372036854775807i64)),
    responses((status = 200, body = dto::CcipRouter), (status = 400, body = crate::error::ErrorBody), (status = 404, body = crate::error::ErrorBody)))]
pub async fn ccip_router(
    State(s): State<AppState>,
    raw: RawQuery,
) -> Result<Json<dto::CcipRouter>, ApiError> {
    let q = query(&raw)?;
    Ok(Json(dto::CcipRouter { router: bridge_contract(&s.engine.catalog(), "ccip", &q)? }))
}

/// `GET /api/v1/cctp/bridge/tokenmessengerv2`: the TokenMessengerV2 of a
/// chain; 400 when CCTP does not serve it.
#[utoipa::path(get, path = "/api/v1/cctp/bridge/tokenmessengerv2", tag = "cctp",
    params(("chainId" = u64, Query, description = "Chain id", minimum = 1, maximum = 9223372036854775807i64)),
    responses((status = 200, body = dto::CctpTokenMessenger), (status = 400, body = crate::error::ErrorBody), (status = 404, body = crate::error::ErrorBody)))]
pub async fn cctp_token_messenger(
    State(s): State<AppState>,
    raw: RawQuery,
) -> Result<Json<dto::CctpTokenMessenger>, ApiError> {
    let q = query(&raw)?;
    Ok(Json(dto::CctpTokenMessenger { address: bridge_contract(&s.engine.catalog(), "cctp", &q)? }))
}

fn tx_hash(q: &Query) -> Result<(String, alloy_primitives::B256), ApiError> {
    let h = q.required("txHash")?;
    let ok = h.len() == 66
        && (h.starts_with("0x") || h.starts_with("0X"))
        && h[2..].bytes().all(|b| b.is_ascii_hexdigit());
    let word = h.get(2..).and_then(|x| alloy_primitives::hex::decode(x).ok());
    match word.filter(|w| ok && w.len() == 32) {
        Some(w) => Ok((h.to_lowercase(), alloy_primitives::B256::from_slice(&w))),
        None => Err(ApiError::invalid("txHash", "txHash must be 0x and 64 hex digits")),
    }
}

fn chain_of(catalog: &Catalog, q: &Query) -> Result<ChainId, ApiError> {
    Ok(known_chain(catalog, "chainId", q.required("chainId")?)?.id)
}

/// `GET /api/v1/{bridge}/bridge/check` for `layerzero`, `stargate`, `ccip`,
/// `relay` and `cctp`: the status of a bridge transaction.
///
/// CCTP's is read from the nodes this instance has (the feeds' and
/// `bridge_nodes`) and the configured attestation service: the burn in the
/// source receipt, its attestation, and its nonce on the destination
/// (`pending`, `inflight`, `delivered`, `failed`, or `unknown` with the
/// reason in `error`).
///
/// LayerZero's (`layerzero`, `stargate`: a Stargate taxi) is read from the
/// same nodes: the packet the source endpoint sent, then on the
/// destination's endpoint whether it is verified (`inflight`, LayerZero's
/// `CONFIRMING`) and received (`delivered`, with its transaction), and
/// when the taxi composes, whether the compose ran and what the shortcut on
/// arrival did (`ensoDestinationEvent`; a failed one is `success: false`,
/// the composer having sent what arrived to the receiver).
///
/// CCIP's and Relay's messages are not followed: their status is
/// `unknown`, with the reason.
#[utoipa::path(get, path = "/api/v1/{bridge}/bridge/check", tag = "layerzero",
    params(
        ("bridge" = String, Path, description = "layerzero, stargate, ccip, relay or cctp", pattern = "^(layerzero|stargate|ccip|relay|cctp)$"),
        ("chainId" = u64, Query, description = "Source chain id", minimum = 1, maximum = 9223372036854775807i64),
        ("txHash" = String, Query, description = "Source transaction hash", pattern = "^0x[0-9a-fA-F]{64}$"),
    ),
    responses((status = 200, body = dto::BridgeStatus), (status = 400, body = crate::error::ErrorBody), (status = 404, body = crate::error::ErrorBody)))]
pub async fn bridge_check(
    State(s): State<AppState>,
    ApiPath(bridge): ApiPath<String>,
    raw: RawQuery,
) -> Result<Json<dto::BridgeStatus>, ApiError> {
    if !CHECKABLE_BRIDGES.contains(&bridge.as_str()) {
        return Err(ApiError::no_such_path(&format!("/api/v1/{bridge}/bridge/check")));
    }
    let q = query(&raw)?;
    let catalog = s.engine.catalog();
    let chain = chain_of(&catalog, &q)?;
    let (hash, word) = tx_hash(&q)?;
    if bridge == "cctp" {
        return Ok(Json(cctp_status(hash, s.engine.cctp_status(chain, word).await)));
    }
    if bridge == "layerzero" || bridge == "stargate" {
        return Ok(Json(layerzero_status(hash, s.engine.layerzero_status(chain, word).await)));
    }
    let finality =
        (bridge == "ccip").then(|| catalog.bridge("ccip").map_or(0, |b| b.estimated_seconds));
    Ok(Json(dto::BridgeStatus {
        source_chain_id: chain.0,
        source_tx_hash: hash.clone(),
        status: "unknown",
        source_chain_id_finality: finality,
        destination_chain_id: None,
        destination_tx_hash: None,
        transfer_type: None,
        delay_reason: None,
        deposit_for_burn: None,
        deposit_for_burn_with_hook: None,
        enso_source_event: None,
        enso_destination_event: None,
        layer_zero_message: None,
        error: Some(format!(
            "{bridge} messages are not followed by this instance: transaction {hash} on chain {chain} cannot be traced"
        )),
    }))
}

fn hex32(w: alloy_primitives::B256) -> String {
    format!("{w:#x}")
}

/// The wire form of a CCTP transfer's status.
fn cctp_status(
    hash: String,
    t: switchyard_engine::bridge_status::CctpTransfer,
) -> dto::BridgeStatus {
    let params = t.burn.as_ref().map(|b| dto::DepositForBurn {
        amount: b.amount.to_string(),
        destination_domain: b.destination_domain,
        mint_recipient: hex32(b.mint_recipient.into_word()),
        burn_token: addr(b.burn_token),
        destination_caller: hex32(b.destination_caller),
        max_fee: b.max_fee.to_string(),
        min_finality_threshold: b.min_finality,
        hook_data: t.with_hook.then(|| format!("{}", b.hook_data)),
    });
    let (plain, hooked) = if t.with_hook { (None, params) } else { (params, None) };
    dto::BridgeStatus {
        source_chain_id: t.source_chain.0,
        source_tx_hash: hash,
        status: t.status.as_str(),
        source_chain_id_finality: None,
        destination_chain_id: t.destination_chain.map(|c| c.0),
        destination_tx_hash: t.destination_tx.map(hex32),
        transfer_type: t
            .executed
            .map(|(finality, _)| if finality <= 1000 { "fast" } else { "standard" }),
        delay_reason: t.delay_reason,
        deposit_for_burn: plain,
        deposit_for_burn_with_hook: hooked,
        enso_source_event: t.source_event.as_ref().map(|e| enso_event(e, true)),
        enso_destination_event: None,
        layer_zero_message: None,
        error: t.error,
    }
}

fn enso_event(
    e: &switchyard_engine::bridge_status::ShortcutEvent,
    success: bool,
) -> dto::EnsoEvent {
    dto::EnsoEvent {
        account_id: hex32(e.account_id),
        request_id: hex32(e.request_id),
        block_number: e.block_number,
        transaction_hash: hex32(e.transaction_hash),
        chain_id: e.chain.0,
        success,
        error: None,
    }
}

/// The wire form of a LayerZero message's status (a Stargate taxi, and
/// what its compose ran on arrival).
fn layerzero_status(
    hash: String,
    t: switchyard_engine::bridge_status::LzTransfer,
) -> dto::BridgeStatus {
    let message = t.packet.as_ref().map(|p| dto::LayerZeroMessage {
        src_eid: p.src_eid,
        dst_eid: p.dst_eid,
        src_chain_id: Some(t.source_chain.0),
        dst_chain_id: t.destination_chain.map(|c| c.0),
        status: t.message_status,
        src_tx_hash: hash.clone(),
        dst_tx_hash: t.destination_tx.map(|(h, _)| hex32(h)),
        src_block_number: t.source_block,
        dst_block_number: t.destination_tx.map(|(_, b)| b),
        sender: hex32(p.sender),
        receiver: addr(p.receiver),
    });
    dto::BridgeStatus {
        source_chain_id: t.source_chain.0,
        source_tx_hash: hash,
        status: t.status.as_str(),
        source_chain_id_finality: None,
        destination_chain_id: t.destination_chain.map(|c| c.0),
        destination_tx_hash: t.destination_tx.map(|(h, _)| hex32(h)),
        transfer_type: None,
        delay_reason: None,
        deposit_for_burn: None,
        deposit_for_burn_with_hook: None,
        enso_source_event: t.source_event.as_ref().map(|e| enso_event(e, true)),
        enso_destination_event: t.destination_event.as_ref().map(|(e, ok, error)| dto::EnsoEvent {
            error: error.as_ref().map(|b| format!("{b}")),
            ..enso_event(e, *ok)
        }),
        layer_zero_message: message,
        error: t.error,
    }
}

/// `GET /api/v1/cctp/bridge/claim`: the claim of a CCTP burn: once Circle
/// has attested its message, and while the destination's transmitter has
/// not used its nonce, `receiveMessage(message, attestation)` on the
/// destination chain, for anyone to send.
#[utoipa::path(get, path = "/api/v1/cctp/bridge/claim", tag = "cctp",
    params(
        ("chainId" = u64, Query, description = "Source chain id", minimum = 1, maximum = 9223372036854775807i64),
        ("txHash" = String, Query, description = "Source transaction hash", pattern = "^0x[0-9a-fA-F]{64}$"),
    ),
    responses((status = 200, body = dto::CctpClaim), (status = 400, body = crate::error::ErrorBody), (status = 404, body = crate::error::ErrorBody)))]
pub async fn cctp_claim(
    State(s): State<AppState>,
    raw: RawQuery,
) -> Result<Json<dto::CctpClaim>, ApiError> {
    let q = query(&raw)?;
    let catalog = s.engine.catalog();
    let chain = chain_of(&catalog, &q)?;
    let (_, word) = tx_hash(&q)?;
    if catalog.bridge("cctp").is_none_or(|b| !b.contracts.contains_key(&chain.0.to_string())) {
        return Err(ApiError::invalid(
            "chainId",
            format!("chain {chain} is not supported by cctp"),
        ));
    }
    Ok(Json(match s.engine.cctp_claim(chain, word).await {
        Ok(c) => dto::CctpClaim {
            claimable: true,
            destination_chain_id: Some(c.chain.0),
            tx: Some(dto::CctpClaimTransaction {
                to: addr(c.to),
                data: format!("{}", c.data),
                value: "0".into(),
                chain_id: c.chain.0,
            }),
            reason: None,
        },
        Err((to, reason)) => dto::CctpClaim {
            claimable: false,
            destination_chain_id: to.map(|c| c.0),
            tx: None,
            reason: Some(reason),
        },
    }))
}
