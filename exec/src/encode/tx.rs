//! The transaction that starts a program, per routing strategy, and the
//! approvals it needs first.
//!
//! | strategy | `tx.to` | calldata | program runs as | approvals |
//! |---|---|---|---|---|
//! | `router` | router | `safeRouteSingle`/`safeRouteMulti` (`routeSingle`/`routeMulti` without a same-chain output) wrapping `executeShortcut` | executor | inputs → router |
//! | `router-legacy` | legacy router | `safeRouteSingle` (one in, one out) or `routeSingle`/`routeMulti` | its executor | inputs → legacy router |
//! | `delegate` | the caller's own account | `executeShortcut(accountId, requestId, …)` | the account (EIP-7702) | none |
//! | `delegate-legacy` | the caller's own account | `executeShortcut(shortcutId, …)` | the account | none |
//! | `ensowallet-v2` | wallet factory | `deployAndExecute(tokensIn, executeShortcut(…), [], false)` | the caller's wallet | inputs → the factory, which moves them into the wallet |
//! | `ensowallet-v2`, `executionMode=backend` | the caller's ERC-4337 account (`crate::account` wraps it in a user operation for the EntryPoint) | `safeExecute(tokenIn, amountIn, executeShortcut(…))` | the account | inputs → the account, which pulls them |
//!
//! Approvals never name an executor: a shared executor runs anyone's
//! program, so an allowance to it could be spent by anyone.

use alloy_primitives::{Address, B256, Bytes, U256};
use alloy_sol_types::{SolCall, SolValue};
use switchyard_catalog::NATIVE_TOKEN;

use super::{
    TokenAmount,
    protocols::{ILegacyShortcuts, IShortcuts},
    weiroll::Program,
};
use crate::evm::abi::{
    LegacyShortcutsRouter, ReceiverAccount, ShortcutsRouter,
    ShortcutsRouter::{Token, TokenType},
    WalletFactory,
};

/// A transaction to send.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tx {
    /// Sender.
    pub from: Address,
    /// Recipient contract.
    pub to: Address,
    /// Calldata.
    pub data: Bytes,
    /// Wei sent.
    pub value: U256,
}

/// An allowance the sender must grant before the transaction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Approval {
    /// Token.
    pub token: Address,
    /// Who may spend it (a router or the wallet factory, never an
    /// executor).
    pub spender: Address,
    /// Amount, wei.
    pub amount: U256,
    /// Whose tokens (the sender, or the spender of a delegate route).
    pub owner: Address,
    /// Whether `token` is an ERC-721 and `amount` the id of the one token
    /// allowed (the same `approve(spender, id)` call).
    pub nft: bool,
}

/// Who runs a program and how the transaction reaches it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Runner {
    /// The shared router and its executor.
    Router {
        /// Router.
        router: Address,
        /// Executor.
        executor: Address,
    },
    /// The legacy router and its executor.
    LegacyRouter {
        /// Router.
        router: Address,
        /// Executor.
        executor: Address,
    },
    /// The caller's own account, delegated to the shortcuts code.
    Delegate {
        /// The account (the caller).
        account: Address,
    },
    /// The caller's own account, delegated to the legacy shortcuts code.
    LegacyDelegate {
        /// The account.
        account: Address,
    },
    /// The caller's wallet, created by the factory on first use.
    Wallet {
        /// Factory.
        factory: Address,
        /// The caller's wallet.
        wallet: Address,
    },
    /// The caller's ERC-4337 account (Enso's `EnsoReceiver`), run by the
    /// EntryPoint for a backend; it pulls the inputs itself.
    Account {
        /// The account.
        account: Address,
        /// The EntryPoint that calls it.
        entry_point: Address,
        /// Its owner (the sender).
        owner: Address,
        /// Who signs its operations: the owner, or the operator's backend
        /// signer the account was deployed for (`delegateDeploy`).
        signer: Address,
    },
}

impl Runner {
    /// The address the program runs as.
    pub const fn account(self) -> Address {
        match self {
            Self::Router { executor, .. } | Self::LegacyRouter { executor, .. } => executor,
            Self::Delegate { account } | Self::LegacyDelegate { account } => account,
            Self::Wallet { wallet, .. } => wallet,
            Self::Account { account, .. } => account,
        }
    }

    /// Whether the account is shared by every caller (an executor).
    pub const fn is_shared(self) -> bool {
        matches!(self, Self::Router { .. } | Self::LegacyRouter { .. })
    }

    /// Whether the entry point checks the outputs' minimums itself, given
    /// the numbers of inputs and outputs (the safe router forms).
    pub const fn checks_min(self, n_in: usize, n_out: usize) -> bool {
        match self {
            Self::Router { .. } => n_out > 0,
            Self::LegacyRouter { .. } => n_in == 1 && n_out == 1,
            _ => false,
        }
    }

    /// Who the caller approves to pull its inputs, if anyone.
    pub const fn spender(self) -> Option<Address> {
        match self {
            Self::Router { router, .. } | Self::LegacyRouter { router, .. } => Some(router),
            Self::Wallet { factory, .. } => Some(factory),
            Self::Account { account, .. } => Some(account),
            Self::Delegate { .. } | Self::LegacyDelegate { .. } => None,
        }
    }
}

/// What the transaction carries besides the program.
#[derive(Debug, Clone)]
pub struct TxSpec<'a> {
    /// Sender.
    pub from: Address,
    /// Inputs (full amounts) the entry point takes from the sender.
    pub inputs: &'a [TokenAmount],
    /// ERC-721 tokens (contract, id) the entry point takes from the
    /// sender too (a position a bundle redeems).
    pub nfts: &'a [(Address, U256)],
    /// Outputs with their minimums, when they arrive on this chain.
    pub outputs: &'a [TokenAmount],
    /// Receiver the safe forms measure.
    pub receiver: Address,
    /// `accountId` of the event.
    pub account_id: B256,
    /// `requestId` of the event.
    pub request_id: B256,
}

fn nft_token(&(token, id): &(Address, U256)) -> Token {
    Token { tokenType: TokenType::ERC721, data: (token, id).abi_encode_params().into() }
}

fn router_token(t: &TokenAmount) -> Token {
    if t.token == NATIVE_TOKEN {
        Token { tokenType: TokenType::Native, data: t.amount.abi_encode().into() }
    } else {
        Token { tokenType: TokenType::ERC20, data: (t.token, t.amount).abi_encode_params().into() }
    }
}

/// The transaction starting `program` through `runner`.
pub fn transaction(runner: Runner, program: &Program, spec: &TxSpec<'_>) -> Tx {
    let value = spec
        .inputs
        .iter()
        .filter(|t| t.token == NATIVE_TOKEN)
        .fold(U256::ZERO, |a, t| a.saturating_add(t.amount));
    let commands = program.commands.clone();
    let state = program.state.clone();
    let shortcut = || {
        Bytes::from(
            IShortcuts::executeShortcutCall {
                accountId: spec.account_id,
                requestId: spec.request_id,
                commands: commands.clone(),
                state: state.clone(),
            }
            .abi_encode(),
        )
    };
    let (to, data) = match runner {
        Runner::Router { router, .. } => {
            let ins: Vec<Token> = spec
                .inputs
                .iter()
                .map(router_token)
                .chain(spec.nfts.iter().map(nft_token))
                .collect();
            let outs: Vec<Token> = spec.outputs.iter().map(router_token).collect();
            let data = shortcut();
            let call = match (ins.as_slice(), outs.as_slice()) {
                ([i], []) => {
                    ShortcutsRouter::routeSingleCall { tokenIn: i.clone(), data }.abi_encode()
                }
                (_, []) => ShortcutsRouter::routeMultiCall { tokensIn: ins, data }.abi_encode(),
                ([i], [o]) => ShortcutsRouter::safeRouteSingleCall {
                    tokenIn: i.clone(),
                    tokenOut: o.clone(),
                    receiver: spec.receiver,
                    data,
                }
                .abi_encode(),
                _ => ShortcutsRouter::safeRouteMultiCall {
                    tokensIn: ins,
                    tokensOut: outs,
                    receiver: spec.receiver,
                    data,
                }
                .abi_encode(),
            };
            (router, call)
        }
        Runner::LegacyRouter { router, .. } => {
            let call = match (spec.inputs, spec.outputs) {
                ([i], [o]) => LegacyShortcutsRouter::safeRouteSingleCall {
                    tokenIn: i.token,
                    tokenOut: o.token,
                    amountIn: i.amount,
                    minAmountOut: o.amount,
                    receiver: spec.receiver,
                    commands,
                    state,
                }
                .abi_encode(),
                ([i], _) => LegacyShortcutsRouter::routeSingleCall {
                    tokenIn: i.token,
                    amountIn: i.amount,
                    commands,
                    state,
                }
                .abi_encode(),
                _ => LegacyShortcutsRouter::routeMultiCall {
                    tokensIn: spec
                        .inputs
                        .iter()
                        .map(|t| LegacyShortcutsRouter::TokenAmount {
                            token: t.token,
                            amount: t.amount,
                        })
                        .collect(),
                    commands,
                    state,
                }
                .abi_encode(),
            };
            (router, call)
        }
        Runner::Delegate { account } => (account, shortcut().to_vec()),
        Runner::LegacyDelegate { account } => (
            account,
            ILegacyShortcuts::executeShortcutCall { shortcutId: spec.request_id, commands, state }
                .abi_encode(),
        ),
        Runner::Account { account, .. } => (account, safe_execute(spec.inputs, shortcut())),
        Runner::Wallet { factory, .. } => (
            factory,
            WalletFactory::deployAndExecuteCall {
                tokensIn: spec
                    .inputs
                    .iter()
                    .map(router_token)
                    .chain(spec.nfts.iter().map(nft_token))
                    .collect(),
                data: shortcut(),
                executors: Vec::new(),
                revokeExecutorsAfterExecution: false,
            }
            .abi_encode(),
        ),
    };
    Tx { from: spec.from, to, data: data.into(), value }
}

/// The account's call that runs `shortcut`: `safeExecute(token, amount,
/// shortcut)`, which on failure sends `amount` of `token` (the first input)
/// back to the owner instead of reverting.
fn safe_execute(inputs: &[TokenAmount], shortcut: Bytes) -> Vec<u8> {
    let (token, amount) =
        inputs.first().map_or((NATIVE_TOKEN, U256::ZERO), |t| (t.token, t.amount));
    ReceiverAccount::safeExecuteCall { token, amount, data: shortcut }.abi_encode()
}

/// The approvals the sender (or `owner`, the delegate's spender) grants
/// before `runner`'s transaction: one per non-native input.
pub fn approvals(runner: Runner, owner: Address, inputs: &[TokenAmount]) -> Vec<Approval> {
    let Some(spender) = runner.spender() else { return Vec::new() };
    inputs
        .iter()
        .filter(|t| t.token != NATIVE_TOKEN)
        .map(|t| Approval { token: t.token, spender, amount: t.amount, owner, nft: false })
        .collect()
}

/// The program's final state from the transaction's return data (each
/// entry point passes the executor's `bytes[]` back, the router inside a
/// `bytes`), for reading what each step produced.
pub fn final_state(runner: Runner, output: &[u8]) -> Option<Vec<Bytes>> {
    match runner {
        Runner::Router { .. } => {
            let inner = <Bytes as alloy_sol_types::SolValue>::abi_decode(output).ok()?;
            <Vec<Bytes> as alloy_sol_types::SolValue>::abi_decode(&inner).ok()
        }
        Runner::LegacyRouter { .. } | Runner::Delegate { .. } | Runner::LegacyDelegate { .. } => {
            <Vec<Bytes> as alloy_sol_types::SolValue>::abi_decode(output).ok()
        }
        // The owner's direct `executeShortcut` (a user operation's
        // simulation answers the EntryPoint's result instead).
        Runner::Account { .. } => {
            <Vec<Bytes> as alloy_sol_types::SolValue>::abi_decode(output).ok()
        }
        Runner::Wallet { .. } => {
            let inner = WalletFactory::deployAndExecuteCall::abi_decode_returns(output).ok()?;
            <Vec<Bytes> as alloy_sol_types::SolValue>::abi_decode(&inner.response).ok()
        }
    }
}
