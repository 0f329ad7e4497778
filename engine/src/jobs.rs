//! The transaction layer's work, run off the async runtime: each request's
//! synchronous `*_now` function from `switchyard-exec` on the rayon pool,
//! under `catch_unwind` and a timeout; and the balances of a chain followed
//! through its node, which are the node's to answer.

use std::{panic::AssertUnwindSafe, sync::Arc};

use alloy_primitives::{Address, U256};
use switchyard_catalog::{ChainId, NATIVE_TOKEN};
use switchyard_exec::{
    MarketState,
    ipor::{IporRequest, IporTx, ipor_now},
    nontokenized::{NontokenizedRequest, NontokenizedTx, nontokenized_now},
    quote::{Quote, QuoteRequest, quote_now},
    route::{RouteRequest, RouteTx, route_now},
    wallet::{Balance, holder},
};

use crate::{ACTOR_TIMEOUT, EngineError};

/// Runs `f` on the rayon pool under `catch_unwind`, waiting at most
/// [`ACTOR_TIMEOUT`]: CPU work never runs on the async runtime, and a panic
/// is an error for this request only.
pub(crate) async fn on_pool<T: Send + 'static>(
    what: &'static str,
    f: impl FnOnce() -> Result<T, EngineError> + Send + 'static,
) -> Result<T, EngineError> {
    let (tx, rx) = tokio::sync::oneshot::channel();
    rayon::spawn(move || {
        let r = std::panic::catch_unwind(AssertUnwindSafe(f));
        let _ = tx.send(r);
    });
    match tokio::time::timeout(ACTOR_TIMEOUT, rx).await {
        Ok(Ok(Ok(r))) => r,
        Ok(Ok(Err(_))) => {
            tracing::error!(what, "panicked");
            Err(EngineError::SearchPanicked)
        }
        Ok(Err(_)) | Err(_) => Err(EngineError::Unavailable(what)),
    }
}

pub(crate) async fn quote(
    state: Arc<MarketState>,
    req: QuoteRequest,
) -> Result<Quote, EngineError> {
    on_pool("route search", move || Ok(quote_now(&state, &req)?)).await
}

/// Quotes every request on the one `state`, in parallel on the rayon pool.
/// Each answers alone: a failure or a panic in one is that one's error.
pub(crate) async fn quote_batch(
    state: Arc<MarketState>,
    reqs: Vec<QuoteRequest>,
) -> Result<Vec<Result<Quote, EngineError>>, EngineError> {
    use rayon::prelude::*;
    on_pool("batch route search", move || {
        Ok(reqs
            .par_iter()
            .map(|r| match std::panic::catch_unwind(AssertUnwindSafe(|| quote_now(&state, r))) {
                Ok(q) => q.map_err(EngineError::from),
                Err(_) => {
                    tracing::error!("route search panicked on one quote of a batch");
                    Err(EngineError::SearchPanicked)
                }
            })
            .collect())
    })
    .await
}

pub(crate) async fn ladder(
    state: Arc<MarketState>,
    req: switchyard_exec::quote::LadderRequest,
) -> Result<switchyard_exec::quote::Ladder, EngineError> {
    on_pool("ladder search", move || Ok(switchyard_exec::quote::ladder_now(&state, &req)?)).await
}

pub(crate) async fn route(
    state: Arc<MarketState>,
    req: RouteRequest,
) -> Result<RouteTx, EngineError> {
    on_pool("route builder", move || Ok(route_now(&state, &req)?)).await
}

pub(crate) async fn ipor(state: Arc<MarketState>, req: IporRequest) -> Result<IporTx, EngineError> {
    on_pool("IPOR shortcut builder", move || Ok(ipor_now(&state, &req)?)).await
}

pub(crate) async fn nontokenized(
    state: Arc<MarketState>,
    req: NontokenizedRequest,
) -> Result<NontokenizedTx, EngineError> {
    on_pool("position route builder", move || Ok(nontokenized_now(&state, &req)?)).await
}

/// The balances of `eoa` (or its wallet) on a chain followed through its
/// node: the node's own at its latest block (`eth_getBalance`, and one
/// batch of `balanceOf` calls). A node that does not answer is
/// [`switchyard_exec::ExecError::StaleMarket`].
pub(crate) async fn node_balances(
    state: &MarketState,
    chain: ChainId,
    node: &crate::rpc::RpcClient,
    eoa: Address,
    use_eoa: bool,
) -> Result<Vec<Balance>, EngineError> {
    let who = match state.world.as_ref().ok().and_then(|w| w.chain(chain)) {
        Some(cw) => holder(cw, eoa, use_eoa),
        None => eoa,
    };
    let down = |e: crate::rpc::RpcError| {
        tracing::warn!(%chain, error = %crate::error_chain(&e), "balances: the node does not answer");
        EngineError::Exec(switchyard_exec::ExecError::StaleMarket { chain })
    };
    let native: U256 =
        node.call("eth_getBalance", serde_json::json!([who, "latest"])).await.map_err(down)?;
    let tokens: Vec<Address> = state
        .catalog
        .tokens_on(chain)
        .iter()
        .map(|t| t.address)
        .filter(|t| *t != NATIVE_TOKEN)
        .collect();
    let data = alloy_primitives::Bytes::from(alloy_sol_types::SolCall::abi_encode(
        &switchyard_exec::evm::abi::TestERC20::balanceOfCall { who },
    ));
    let calls =
        tokens.iter().map(|t| serde_json::json!([{"to": t, "data": data}, "latest"])).collect();
    let answers =
        node.batch_each::<alloy_primitives::Bytes>("eth_call", calls).await.map_err(down)?;
    let mut out = Vec::new();
    if !native.is_zero() {
        out.push(Balance { chain, token: NATIVE_TOKEN, amount: native });
    }
    for (token, answer) in tokens.into_iter().zip(answers) {
        // A token with no contract on the node (or one that reverts) holds
        // nothing readable.
        let amount = answer
            .ok()
            .and_then(|b| <U256 as alloy_sol_types::SolValue>::abi_decode(&b).ok())
            .unwrap_or_default();
        if !amount.is_zero() {
            out.push(Balance { chain, token, amount });
        }
    }
    Ok(out)
}
