//! Executing a transaction before it is returned: a fork of the chain's
//! world with the sender's balances and approvals in place, the
//! transaction run, and the balances that matter measured before and
//! after.
//!
//! ```text
//! ChainWorld::fork ─▶ fund owners ─▶ approve spenders ─▶ (delegate the sender's account)
//!                  ─▶ read watched balances ─▶ run tx ─▶ read them again ─▶ SimOutcome
//! ```

use alloy_primitives::{Address, Bytes, Log, U256};
use alloy_sol_types::{SolCall, SolEvent, SolInterface};

use crate::{
    encode::{Approval, Runner, Tx, protocols::IERC20},
    evm::{
        EvmError, ForkEvm,
        abi::{
            EntryPoint, LegacyShortcutsDelegate, LegacyShortcutsRouter, ShortcutsExecutor,
            ShortcutsRouter,
        },
        world::ChainWorld,
    },
};

/// What to put in place before the transaction.
#[derive(Debug, Clone, Default)]
pub struct SimSetup {
    /// Balances to give: `(holder, token, amount)`.
    pub funds: Vec<(Address, Address, U256)>,
    /// Allowances to grant (sent by their owners first).
    pub approvals: Vec<Approval>,
    /// Accounts whose code becomes an EIP-7702 delegation:
    /// `(account, delegate)`.
    pub delegations: Vec<(Address, Address)>,
    /// Balances to measure: `(holder, token)`.
    pub watch: Vec<(Address, Address)>,
    /// Debts assumed to exist: `(variable debt token, borrower, amount)`.
    /// The embedded world has no borrowers; a repayment on someone's behalf
    /// is proven against a debt of the amount it repays.
    pub debts: Vec<(Address, Address, U256)>,
    /// Concentrated-liquidity positions the chain holds for their owners
    /// (read from its node), put in place first.
    pub positions: Vec<crate::evm::clmm::HeldPosition>,
    /// ERC-4337 accounts to deploy first, `(factory, owner, signer)`: the
    /// account a bundle's program runs in when it is executed directly by
    /// its owner (a user operation deploys it itself).
    pub accounts: Vec<(Address, Address, Address)>,
    /// ERC-4337 accounts the chain holds (read from its node), put in
    /// place first as it holds them.
    pub held_accounts: Vec<crate::account::HeldAccount>,
}

/// What the transaction did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SimOutcome {
    /// Gas the transaction used (intrinsic gas included).
    pub gas_used: u64,
    /// Logs, in order.
    pub logs: Vec<Log>,
    /// The transaction's return data.
    pub output: Bytes,
    /// Each watched balance before the transaction, in `watch` order.
    pub before: Vec<U256>,
    /// And after it.
    pub after: Vec<U256>,
    /// Gain of each watched balance, in `watch` order (`None` where it went
    /// down).
    pub gains: Vec<Option<U256>>,
}

/// Why a simulation failed.
#[derive(Debug, thiserror::Error)]
pub enum SimError {
    /// The transaction reverted or halted.
    #[error("transaction failed: {reason}")]
    Failed {
        /// A decoded reason.
        reason: String,
        /// The EVM's error.
        #[source]
        source: EvmError,
    },
    /// Setting up the fork failed (an approval, a balance read).
    #[error("simulation setup: {0}")]
    Setup(String),
    /// An input cannot be put in its owner's balance: more of the token
    /// than can exist (its supply would overflow). The request's amount is
    /// at fault, not the transaction.
    #[error("{amount} of {token} cannot be given to {holder}: {reason}")]
    Unfundable {
        /// Who would hold it.
        holder: Address,
        /// The token.
        token: Address,
        /// The amount asked for.
        amount: U256,
        /// The token's refusal.
        reason: String,
    },
}

impl SimError {
    /// The error for the caller: an unfundable amount is the request's
    /// fault (422); anything else is the engine's.
    pub fn into_engine(self) -> crate::ExecError {
        match self {
            Self::Unfundable { token, amount, .. } => {
                crate::ExecError::Unfundable { token, amount }
            }
            other => crate::ExecError::SimulationFailed(other.to_string()),
        }
    }
}

/// Runs `tx` in a fork of `world` after `setup`.
pub fn simulate(world: &ChainWorld, tx: &Tx, setup: &SimSetup) -> Result<SimOutcome, SimError> {
    let mut evm = world.fork();
    prepare(world, &mut evm, setup)?;
    run_prepared(&mut evm, tx, &setup.watch)
}

/// Funds, approvals and delegations of `setup`, in a fork.
pub fn prepare(world: &ChainWorld, evm: &mut ForkEvm, setup: &SimSetup) -> Result<(), SimError> {
    let setup_err =
        |what: String, e: EvmError| SimError::Setup(format!("{what}: {}", describe(&e)));
    for p in &setup.positions {
        world
            .add_clmm_position(evm, p)
            .map_err(|e| setup_err(format!("position {} of {}", p.token_id, p.manager), e))?;
    }
    for (holder, token, amount) in &setup.funds {
        world.fund(evm, *token, *holder, *amount).map_err(|e| SimError::Unfundable {
            holder: *holder,
            token: *token,
            amount: *amount,
            reason: describe(&e),
        })?;
    }
    for a in &setup.approvals {
        let call = IERC20::approveCall { spender: a.spender, amount: a.amount };
        evm.call(a.owner, a.token, call.abi_encode().into(), U256::ZERO)
            .map_err(|e| setup_err(format!("approving {} on {}", a.spender, a.token), e))?;
    }
    for (account, delegate) in &setup.delegations {
        evm.delegate_account(*account, *delegate);
    }
    if let Some(contracts) = world.shortcuts.accounts.as_ref() {
        for held in &setup.held_accounts {
            crate::account::place_held(evm, contracts, held);
        }
    }
    for (factory, owner, signer) in &setup.accounts {
        let call = crate::account::deploy_call(*owner, *signer);
        evm.call(*owner, *factory, call, U256::ZERO)
            .map_err(|e| setup_err(format!("deploying the account of {owner}"), e))?;
    }
    for (token, borrower, amount) in &setup.debts {
        world
            .add_debt(evm, *token, *borrower, *amount)
            .map_err(|e| setup_err(format!("a debt of {borrower} in {token}"), e))?;
    }
    Ok(())
}

/// Runs `tx` in a prepared fork, measuring `watch`.
pub fn run_prepared(
    evm: &mut ForkEvm,
    tx: &Tx,
    watch: &[(Address, Address)],
) -> Result<SimOutcome, SimError> {
    let read = |evm: &mut ForkEvm| -> Result<Vec<U256>, SimError> {
        watch
            .iter()
            .map(|(holder, token)| {
                ChainWorld::balance_of(evm, *token, *holder)
                    .map_err(|e| SimError::Setup(format!("balance of {holder}: {}", describe(&e))))
            })
            .collect()
    };
    let started = std::time::Instant::now();
    let before = read(evm)?;
    let out = evm.call(tx.from, tx.to, tx.data.clone(), tx.value);
    metrics::histogram!(crate::observe::SIMULATION_SECONDS).record(started.elapsed().as_secs_f64());
    let out = out.map_err(|source| SimError::Failed { reason: describe(&source), source })?;
    let after = read(evm)?;
    let gains = before.iter().zip(&after).map(|(b, a)| a.checked_sub(*b)).collect();
    Ok(SimOutcome {
        gas_used: out.gas_used,
        logs: out.logs,
        output: out.output,
        before,
        after,
        gains,
    })
}

/// A readable account of an EVM failure, decoding the shortcut contracts'
/// errors and the executor's wrapped callee reasons.
pub fn describe(e: &EvmError) -> String {
    let Some(data) = e.revert_data() else { return crate::evm::artifacts::error_chain(e) };
    decode_revert(data).unwrap_or_else(|| e.to_string())
}

/// The shortcut contracts' custom errors, by name and arguments. An
/// executor's `ExecutionFailed` shows the failed call's own reason decoded
/// too, when it is one of these (`requireAtLeast`'s `AmountBelowMinimum`,
/// say), after the hex the VM put in its message.
pub fn decode_revert(data: &Bytes) -> Option<String> {
    if let Ok(err) = ShortcutsExecutor::ShortcutsExecutorErrors::abi_decode(data) {
        if let ShortcutsExecutor::ShortcutsExecutorErrors::ExecutionFailed(f) = &err
            && let Some(inner) = f
                .message
                .strip_prefix("0x")
                .and_then(|h| alloy_primitives::hex::decode(h).ok())
                .and_then(|b| {
                    let b = Bytes::from(b);
                    decode_revert(&b).or_else(|| {
                        alloy_sol_types::GenericRevertReason::decode(&b).map(|r| r.to_string())
                    })
                })
        {
            return Some(format!(
                "ExecutionFailed {{ command_index: {}, target: {}, reason: {inner} }}",
                f.command_index, f.target
            ));
        }
        return Some(format!("{err:?}"));
    }
    if let Ok(err) = ShortcutsRouter::ShortcutsRouterErrors::abi_decode(data) {
        return Some(format!("{err:?}"));
    }
    if let Ok(err) = LegacyShortcutsRouter::LegacyShortcutsRouterErrors::abi_decode(data) {
        return Some(format!("{err:?}"));
    }
    if let Ok(err) = EntryPoint::EntryPointErrors::abi_decode(data) {
        return Some(format!("{err:?}"));
    }
    None
}

/// Whether `logs` hold `ShortcutExecuted` with `request_id` from `account`.
pub(crate) fn emitted(logs: &[Log], account: Address, request_id: alloy_primitives::B256) -> bool {
    logs.iter().any(|l| {
        l.address == account
            && ShortcutsExecutor::ShortcutExecuted::decode_log_data(&l.data)
                .is_ok_and(|e| e.requestId == request_id)
    })
}

/// Whether a simulated transaction ran `runner`'s shortcut with
/// `request_id`, by the event its deployed contract emits: none for the
/// legacy router's executor, `ShortcutExecuted(shortcutId)` for the legacy
/// delegate, `ShortcutExecuted(accountId, requestId)` for the others.
pub(crate) fn shortcut_ran(
    logs: &[Log],
    runner: Runner,
    request_id: alloy_primitives::B256,
) -> bool {
    match runner {
        Runner::LegacyRouter { .. } => true,
        Runner::LegacyDelegate { account } => logs.iter().any(|l| {
            l.address == account
                && LegacyShortcutsDelegate::ShortcutExecuted::decode_log_data(&l.data)
                    .is_ok_and(|e| e.shortcutId == request_id)
        }),
        _ => emitted(logs, runner.account(), request_id),
    }
}
