//! The program guard: before a transaction is simulated (and so before it
//! is answered), every command of its program is checked against the chain
//! as deployed.
//!
//! - The target is never the account the program runs as (the executor,
//!   the wallet, the delegated account): the deployed executors are bare
//!   VMs with nothing to call on themselves.
//! - The target is a contract the catalog or the market lists on the chain
//!   (a token, a pool, a position, a periphery or helper deployment).
//! - The world holds a contract there, and the command's selector is one of
//!   that contract's functions: the ABI of the published artifact or of the
//!   reference contract that mirrors the deployed one.
//!
//! A plain transfer of the native coin (a raw call with empty calldata) is
//! not a contract call and is only checked for the first rule.
//!
//! The transaction around the program is checked too ([`check_entry`]): it
//! goes to the strategy's deployed entry point (the router, the legacy
//! router, the wallet factory, or the sender's own delegated account), and
//! no approval names an executor.

use std::collections::HashSet;

use alloy_primitives::Address;
use switchyard_catalog::{Catalog, ChainId, Market};

use super::{
    Approval, Runner, Tx,
    weiroll::{Program, WeirollError},
};
use crate::evm::world::ChainWorld;

/// A command the guard refuses.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GuardError {
    /// The program cannot be read.
    #[error("the program cannot be read")]
    Malformed(#[from] WeirollError),
    /// A command calls the program's own account.
    #[error("command {index} calls the program's own account {target}")]
    OwnAccount {
        /// Command index.
        index: usize,
        /// Target.
        target: Address,
    },
    /// A command calls an address the catalog does not list on the chain.
    #[error("command {index} calls {target}, which is not listed as deployed on chain {chain}")]
    NotListed {
        /// Command index.
        index: usize,
        /// Target.
        target: Address,
        /// Chain.
        chain: ChainId,
    },
    /// The transaction goes somewhere other than the strategy's entry point.
    #[error("the transaction goes to {to}, not to the strategy's entry point {entry}")]
    WrongEntry {
        /// Where it goes.
        to: Address,
        /// Where it should.
        entry: Address,
    },
    /// An approval lets an executor spend: anyone's program could.
    #[error("an approval of {token} names the executor {spender}")]
    ApprovesExecutor {
        /// The token.
        token: Address,
        /// The executor.
        spender: Address,
    },
    /// A command calls a function the contract there does not have.
    #[error(
        "command {index} calls 0x{selector} on {target} ({contract}), which has no such function"
    )]
    UnknownFunction {
        /// Command index.
        index: usize,
        /// Target.
        target: Address,
        /// The selector, hex.
        selector: String,
        /// What is deployed there (`nothing` when nothing is).
        contract: &'static str,
    },
}

impl GuardError {
    /// The index of the command refused, when one command is.
    pub const fn command(&self) -> Option<usize> {
        match self {
            Self::OwnAccount { index, .. }
            | Self::NotListed { index, .. }
            | Self::UnknownFunction { index, .. } => Some(*index),
            Self::Malformed(_) | Self::WrongEntry { .. } | Self::ApprovesExecutor { .. } => None,
        }
    }
}

/// Every address listed on `chain`: the catalog's tokens, deployments and
/// positions, and the market's pools, the contracts they name (tokens, a
/// Compound market's comptroller) and its two-token vaults. The world keeps
/// the set ([`ChainWorld::is_listed`]), so a check is one hash lookup.
pub fn listed_on(catalog: &Catalog, market: &Market, chain: ChainId) -> HashSet<Address> {
    let mut out: HashSet<Address> = catalog.tokens_on(chain).iter().map(|t| t.address).collect();
    out.extend(catalog.deployments_on(chain).map(|d| d.address));
    for p in catalog.positions().iter().filter(|p| p.chain_id == chain) {
        out.extend([p.address, p.primary_address]);
    }
    for r in market.pools.iter().filter(|r| r.common().chain_id == chain) {
        out.extend(r.contracts());
    }
    out.extend(market.dual_vaults.iter().filter(|v| v.chain_id == chain).map(|v| v.address));
    let key = chain.0.to_string();
    out.extend(catalog.bridges().iter().filter_map(|b| b.contracts.get(&key).copied()));
    out.extend(catalog.layerzero_pools().iter().filter(|p| p.chain_id == chain).map(|p| p.pool));
    out
}

/// Checks every command of `program`, run as `account` on `world`'s chain.
pub fn check(world: &ChainWorld, account: Address, program: &Program) -> Result<(), GuardError> {
    for c in program.targets()? {
        let (index, target) = (c.index, c.target);
        if target == account {
            return Err(GuardError::OwnAccount { index, target });
        }
        let Some(selector) = c.selector else { continue };
        if !world.is_listed(target) {
            return Err(GuardError::NotListed { index, target, chain: world.chain });
        }
        let unknown = |contract| GuardError::UnknownFunction {
            index,
            target,
            selector: alloy_primitives::hex::encode(selector),
            contract,
        };
        let (artifact, functions) = world.contract_at(target).ok_or_else(|| unknown("nothing"))?;
        if !functions.contains(&selector) {
            return Err(unknown(artifact.name()));
        }
    }
    Ok(())
}

/// Checks the transaction that starts a program: its `to` is `runner`'s
/// entry point, and no approval lets an executor of `world` spend.
pub fn check_entry(
    world: &ChainWorld,
    runner: Runner,
    tx: &Tx,
    approvals: &[Approval],
) -> Result<(), GuardError> {
    let entry = match runner {
        Runner::Router { router, .. } | Runner::LegacyRouter { router, .. } => router,
        Runner::Wallet { factory, .. } => factory,
        Runner::Delegate { account }
        | Runner::LegacyDelegate { account }
        | Runner::Account { account, .. } => account,
    };
    if tx.to != entry {
        return Err(GuardError::WrongEntry { to: tx.to, entry });
    }
    let shortcuts = &world.shortcuts;
    let executors = [shortcuts.router, shortcuts.legacy_router].into_iter().flatten().map(|r| r.1);
    let executors: Vec<Address> = executors.collect();
    match approvals.iter().find(|a| executors.contains(&a.spender)) {
        Some(a) => Err(GuardError::ApprovesExecutor { token: a.token, spender: a.spender }),
        None => Ok(()),
    }
}
