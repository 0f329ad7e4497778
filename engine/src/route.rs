//! Executable routes: a quote turned into the transaction of the request's
//! routing strategy, executed in the chain's EVM world before it is
//! returned.
//!
//! ```text
//! RouteRequest ─▶ quote (fee off, kernel plan) ─▶ minimum per output (slippage wins)
//!   ─▶ runner of the strategy (router/executor, own account, wallet) ─▶ encode program + tx
//!   ─▶ simulate in a fork: sender funded, approvals granted ─▶ receiver's gain == amountOut?
//!   ─▶ RouteTx (measured gas)                 otherwise: internal error, logged, nothing returned
//! ```

use std::sync::Arc;

use alloy_primitives::{Address, B256, U256};
use alloy_sol_types::SolEvent;
use switchyard_catalog::{ChainId, NATIVE_TOKEN, RoutingStrategy};

use crate::{
    EngineError, MarketState,
    encode::{
        self, Approval, Runner, TokenAmount, Tx,
        route::{ProtocolBook, RouteSpec},
        tx::{TxSpec, approvals},
    },
    evm::{
        abi::ShortcutsExecutor,
        world::{ChainWorld, wallet_address},
    },
    quote::{Quote, QuoteRequest, on_pool, quote_now},
    simulate::{SimSetup, simulate},
};

/// A route request, already validated by the server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RouteRequest {
    /// The quote part: chains, inputs (full amounts), fee bps, outputs,
    /// filters.
    pub quote: QuoteRequest,
    /// Sender.
    pub from: Address,
    /// Routing strategy.
    pub strategy: RoutingStrategy,
    /// Receiver of the outputs (default: the sender; for `ensowallet-v2`,
    /// the wallet unless `to_eoa`).
    pub receiver: Option<Address>,
    /// Owner of the inputs when it is not the sender (`delegate`: the
    /// account pulls them with `transferFrom`).
    pub spender: Option<Address>,
    /// Receiver of what is left of inputs and intermediates in a shared
    /// executor.
    pub refund_receiver: Option<Address>,
    /// `ensowallet-v2`: send the outputs to the sender rather than keep them
    /// in the wallet (deprecated in the API, still honoured).
    pub to_eoa: bool,
    /// Fee receiver.
    pub fee_receiver: Option<Address>,
    /// Minimum per output (ignored when `slippage_given`).
    pub min_amount_out: Vec<U256>,
    /// Slippage, bps.
    pub slippage_bps: u32,
    /// Whether the slippage was given (it wins over `min_amount_out`).
    pub slippage_given: bool,
    /// Referral code (the request id's high half).
    pub referral_code: Option<String>,
    /// The API key's account id.
    pub account_id: String,
}

/// An executable route.
#[derive(Debug, Clone, PartialEq)]
pub struct RouteTx {
    /// The quote it executes.
    pub quote: Quote,
    /// Minimum per output, enforced on chain.
    pub min_amounts_out: Vec<U256>,
    /// The transaction.
    pub tx: Tx,
    /// Gas the transaction used in the simulation.
    pub gas: u64,
    /// Allowances the sender grants first.
    pub approvals: Vec<Approval>,
    /// The request id of the on-chain event.
    pub request_id: B256,
    /// Block of the state the route was simulated on.
    pub block_number: u64,
    /// Unix seconds after which the route should be fetched again.
    pub valid_until: u64,
}

/// How long a returned route stays valid, seconds.
pub const ROUTE_VALIDITY_SECS: u64 = 60;

/// The minimum of each output: `amount * (10_000 - slippage) / 10_000`
/// unless minimums were given without a slippage. A minimum above the
/// amount the route delivers is refused: the transaction could only revert.
pub fn min_amounts(
    amounts_out: &[U256],
    given: &[U256],
    slippage_bps: u32,
    slippage_given: bool,
) -> Result<Vec<U256>, EngineError> {
    let keep = U256::from(10_000u32.saturating_sub(slippage_bps));
    amounts_out
        .iter()
        .enumerate()
        .map(|(k, out)| {
            if slippage_given || given.is_empty() {
                return Ok(out
                    .checked_mul(keep)
                    .map_or(*out / U256::from(10_000u32) * keep, |p| p / U256::from(10_000u32)));
            }
            let min = given.get(k).copied().unwrap_or_default();
            if min > *out {
                return Err(EngineError::MinAmountOut { index: k, min, quoted: *out });
            }
            Ok(min)
        })
        .collect()
}

/// The strategy's runner on a chain.
pub fn runner(
    world: &ChainWorld,
    strategy: RoutingStrategy,
    chain: ChainId,
    from: Address,
) -> Result<Runner, EngineError> {
    let none = || EngineError::StrategyUnavailable { strategy, chain };
    let s = &world.shortcuts;
    Ok(match strategy {
        RoutingStrategy::Router => {
            let (router, executor) = s.router.ok_or_else(none)?;
            Runner::Router { router, executor }
        }
        RoutingStrategy::RouterLegacy => {
            let (router, executor) = s.legacy_router.ok_or_else(none)?;
            Runner::LegacyRouter { router, executor }
        }
        RoutingStrategy::Delegate | RoutingStrategy::Checkout => {
            s.delegate.ok_or_else(none)?;
            Runner::Delegate { account: from }
        }
        RoutingStrategy::DelegateLegacy => {
            s.legacy_delegate.ok_or_else(none)?;
            Runner::LegacyDelegate { account: from }
        }
        RoutingStrategy::EnsoWalletV2 => {
            let (factory, implementation) = s.wallet_factory.ok_or_else(none)?;
            Runner::Wallet { factory, wallet: wallet_address(factory, implementation, from) }
        }
    })
}

/// The code an account runs for a delegate strategy.
fn delegation(world: &ChainWorld, runner: Runner) -> Option<(Address, Address)> {
    match runner {
        Runner::Delegate { account } => world.shortcuts.delegate.map(|d| (account, d)),
        Runner::LegacyDelegate { account } => world.shortcuts.legacy_delegate.map(|d| (account, d)),
        _ => None,
    }
}

/// Weighted pool ids from the market records.
struct Book<'a>(&'a MarketState);

impl ProtocolBook for Book<'_> {
    fn pool_id(&self, chain: ChainId, pool: Address) -> Option<B256> {
        self.0.market.pools.iter().find_map(|r| match r {
            switchyard_catalog::PoolRecord::Weighted(w)
                if w.chain_id == chain && w.address == pool =>
            {
                w.pool_id
            }
            _ => None,
        })
    }
}

/// A fresh low half for a request id.
fn unique() -> Result<[u8; 16], EngineError> {
    let mut b = [0u8; 16];
    getrandom::fill(&mut b).map_err(|_| EngineError::Random)?;
    Ok(b)
}

/// Builds, simulates and checks the route (call it on the pool).
pub(crate) fn route_now(state: &MarketState, req: &RouteRequest) -> Result<RouteTx, EngineError> {
    let world = state.world.as_ref().map_err(|e| EngineError::SimulatorUnavailable(e.clone()))?;
    let chain = req.quote.chain;
    let cw = world
        .chain(chain)
        .ok_or(EngineError::Route(switchyard_kernel::KernelError::UnknownChain(chain)))?;
    let quote = quote_now(state, &req.quote)?;
    let plan = &quote.plan;
    if plan.chain != plan.destination_chain {
        return Err(EngineError::CrossChainRoute);
    }
    let runner = runner(cw, req.strategy, chain, req.from)?;
    let account = runner.account();
    let receiver = match (req.receiver, runner) {
        (Some(r), _) => r,
        (None, Runner::Wallet { wallet, .. }) if !req.to_eoa => wallet,
        (None, _) => req.from,
    };
    let owner = match runner {
        Runner::Delegate { .. } | Runner::LegacyDelegate { .. } => req.spender.unwrap_or(req.from),
        _ => req.from,
    };
    if owner != req.from && req.quote.inputs.iter().any(|(t, _)| *t == NATIVE_TOKEN) {
        return Err(EngineError::SpenderNative);
    }
    let mins =
        min_amounts(&plan.amounts_out, &req.min_amount_out, req.slippage_bps, req.slippage_given)?;
    let inputs: Vec<TokenAmount> = req
        .quote
        .inputs
        .iter()
        .map(|(token, amount)| TokenAmount { token: *token, amount: *amount })
        .collect();
    let outputs: Vec<TokenAmount> = req
        .quote
        .outputs
        .iter()
        .zip(&mins)
        .map(|(token, amount)| TokenAmount { token: *token, amount: *amount })
        .collect();
    let pull_from = match runner {
        Runner::Wallet { .. } => Some(req.from),
        Runner::Delegate { .. } | Runner::LegacyDelegate { .. } if owner != req.from => Some(owner),
        _ => None,
    };
    let checks_min = runner.checks_min(inputs.len(), outputs.len());
    let spec = RouteSpec {
        snapshot: &state.snapshot,
        plan,
        account,
        pull_from,
        inputs: &inputs,
        fees: &quote.fee_amounts,
        fee_receiver: req.fee_receiver,
        receiver,
        outputs: &req.quote.outputs,
        check_min: (!checks_min).then_some(mins.as_slice()),
        refund: req.refund_receiver.filter(|_| runner.is_shared()),
    };
    let program = encode::encode_plan(&spec, &Book(state)).map_err(EngineError::Encode)?;
    let request_id = encode::request_id(req.referral_code.as_deref(), unique()?);
    let tx = encode::transaction(
        runner,
        &program,
        &TxSpec {
            from: req.from,
            inputs: &inputs,
            outputs: &outputs,
            receiver,
            account_id: encode::account_id(&req.account_id),
            request_id,
        },
    );
    // The owner approves whoever pulls its inputs: the router, its own
    // wallet, or (delegate with a spender) the sender's account.
    let approvals = match runner {
        Runner::Delegate { account } | Runner::LegacyDelegate { account } if owner != req.from => {
            inputs
                .iter()
                .filter(|t| t.token != NATIVE_TOKEN)
                .map(|t| Approval { token: t.token, spender: account, amount: t.amount, owner })
                .collect()
        }
        _ => approvals(runner, owner, &inputs),
    };
    let mut setup = SimSetup {
        funds: inputs
            .iter()
            .map(|t| (if t.token == NATIVE_TOKEN { req.from } else { owner }, t.token, t.amount))
            .collect(),
        approvals: approvals.clone(),
        delegations: delegation(cw, runner).into_iter().collect(),
        watch: req.quote.outputs.iter().map(|t| (receiver, *t)).collect(),
    };
    setup.watch.dedup();
    let outcome = simulate(cw, &tx, &setup).map_err(|e| {
        tracing::error!(error = %e, chain = %chain, strategy = %req.strategy, "route transaction failed in simulation");
        EngineError::SimulationFailed(e.to_string())
    })?;
    for (k, (token, quoted)) in req.quote.outputs.iter().zip(&plan.amounts_out).enumerate() {
        // The receiver may also have paid some of this token as an input.
        let paid = inputs
            .iter()
            .filter(|t| {
                t.token == *token
                    && receiver == (if t.token == NATIVE_TOKEN { req.from } else { owner })
            })
            .fold(U256::ZERO, |a, t| a.saturating_add(t.amount));
        let got = setup.watch.iter().position(|w| w.1 == *token).and_then(|i| {
            let (b, a) = (outcome.before.get(i)?, outcome.after.get(i)?);
            a.checked_add(paid)?.checked_sub(*b)
        });
        if got != Some(*quoted) {
            tracing::error!(
                chain = %chain,
                output = k,
                token = %token,
                quoted = %quoted,
                simulated = ?got,
                "simulated output differs from the quote: not returning the transaction"
            );
            return Err(EngineError::SimulationMismatch { index: k });
        }
    }
    // The legacy router's ABI carries no ids: its executor emits zeros.
    let expected =
        if matches!(runner, Runner::LegacyRouter { .. }) { B256::ZERO } else { request_id };
    let emitted = outcome.logs.iter().any(|l| {
        l.address == account
            && ShortcutsExecutor::ShortcutExecuted::decode_log_data(&l.data)
                .is_ok_and(|e| e.requestId == expected)
    });
    if !emitted {
        tracing::error!(chain = %chain, "simulated transaction emitted no ShortcutExecuted");
        return Err(EngineError::SimulationMismatch { index: 0 });
    }
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let head = state.snapshot.head(chain).map_or(0, |h| h.timestamp);
    Ok(RouteTx {
        valid_until: now.max(head) + ROUTE_VALIDITY_SECS,
        block_number: quote.block_number,
        quote,
        min_amounts_out: mins,
        tx,
        gas: outcome.gas_used,
        approvals,
        request_id,
    })
}

pub(crate) async fn route(
    state: Arc<MarketState>,
    req: RouteRequest,
) -> Result<RouteTx, EngineError> {
    on_pool("route builder", move || route_now(&state, &req)).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slippage_wins_and_minimums_above_the_route_are_refused() {
        let out = [U256::from(10_000u32)];
        assert_eq!(min_amounts(&out, &[], 50, false).ok(), Some(vec![U256::from(9_950u32)]));
        assert_eq!(
            min_amounts(&out, &[U256::from(9_000u32)], 50, false).ok(),
            Some(vec![U256::from(9_000u32)])
        );
        assert_eq!(
            min_amounts(&out, &[U256::from(9_000u32)], 100, true).ok(),
            Some(vec![U256::from(9_900u32)])
        );
        assert!(matches!(
            min_amounts(&out, &[U256::from(10_001u32)], 50, false),
            Err(EngineError::MinAmountOut { index: 0, .. })
        ));
    }
}
