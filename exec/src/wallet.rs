//! The wallet endpoints' engine side: the approval a strategy needs (to its
//! router, or to the wallet factory that moves inputs into the caller's
//! wallet; never to an executor), with its
//! gas measured in the world, and balances read from chain state (the
//! world of the embedded snapshot; a later issue adds real nodes).

use alloy_primitives::{Address, Bytes, U256};
use switchyard_catalog::{ChainId, NATIVE_TOKEN, RoutingStrategy};

use crate::{
    ExecError, MarketState,
    encode::approve_calldata,
    evm::world::{ChainWorld, wallet_address},
    route::runner,
};

/// An approval transaction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApproveTx {
    /// The owner who sends it.
    pub from: Address,
    /// The token (the transaction's `to`).
    pub token: Address,
    /// Who may spend.
    pub spender: Address,
    /// Allowance, wei.
    pub amount: U256,
    /// `approve(spender, amount)`.
    pub data: Bytes,
    /// Gas it used in the world.
    pub gas: u64,
}

/// Why an approval is not built.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ApproveError {
    /// The native coin needs no approval.
    #[error("the native coin needs no approval")]
    Native,
    /// The zero address or a precompile, which no token is.
    #[error("{0} is the zero address or a precompile, not a token")]
    Reserved(Address),
    /// Delegate strategies spend the account's own tokens.
    #[error("{0} spends the account's own tokens: there is nothing to approve")]
    NoSpender(RoutingStrategy),
}

impl ApproveError {
    /// What the API answers.
    pub const fn code(&self) -> switchyard_catalog::ApiCode {
        match self {
            Self::Native | Self::Reserved(_) | Self::NoSpender(_) => {
                switchyard_catalog::ApiCode::InvalidParameter
            }
        }
    }
}

/// The approval `from` sends so that `strategy` can take `amount` of
/// `token`, any ERC-20 address on the chain (call it on the pool). Its gas
/// is measured on the token's code in the world; a token the world does
/// not hold (one no catalog lists) is measured on a plain ERC-20's
/// `approve` placed at its address.
pub fn approve_now(
    state: &MarketState,
    chain: ChainId,
    from: Address,
    token: Address,
    amount: U256,
    strategy: RoutingStrategy,
) -> Result<ApproveTx, ExecError> {
    if token == NATIVE_TOKEN {
        return Err(ExecError::Approve(ApproveError::Native));
    }
    if switchyard_catalog::is_reserved(token) {
        return Err(ExecError::Approve(ApproveError::Reserved(token)));
    }
    let world = state.world.as_ref().map_err(|e| ExecError::SimulatorUnavailable(e.clone()))?;
    let cw = world
        .chain(chain)
        .ok_or(ExecError::Route(switchyard_kernel::KernelError::UnknownChain(chain)))?;
    let r = runner(cw, strategy, chain, from)?;
    let Some(spender) = r.spender() else {
        return Err(ExecError::Approve(ApproveError::NoSpender(strategy)));
    };
    // A Compound III balance is approved all or nothing.
    let amount = if crate::route::is_comet(state, chain, token) && !amount.is_zero() {
        U256::MAX
    } else {
        amount
    };
    let data = approve_calldata(spender, amount);
    let mut evm = cw.fork();
    if evm.code(token).is_empty() {
        let plain = state
            .catalog
            .tokens_on(chain)
            .iter()
            .find(|t| cw.token_impl(t.address) == Some(crate::evm::world::TokenImpl::Erc20));
        if let Some(t) = plain {
            let code = evm.code(t.address);
            evm.set_code(token, revm::bytecode::Bytecode::new_raw(code));
        }
    }
    let out = evm
        .call(from, token, data.clone(), U256::ZERO)
        .map_err(|e| ExecError::SimulationFailed(crate::simulate::describe(&e)))?;
    Ok(ApproveTx { from, token, spender, amount, data, gas: out.gas_used })
}

/// One non-zero balance.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Balance {
    /// Chain.
    pub chain: ChainId,
    /// Token (`NATIVE_TOKEN` for the native coin).
    pub token: Address,
    /// Raw amount.
    pub amount: U256,
}

/// Whose balances: the EOA itself, or its `ensowallet-v2` wallet on each
/// chain (as the wallet factory derives it; the EOA where there is none).
pub fn holder(world: &ChainWorld, eoa: Address, use_eoa: bool) -> Address {
    match world.shortcuts.wallet_factory {
        Some((factory, implementation)) if !use_eoa => wallet_address(factory, implementation, eoa),
        _ => eoa,
    }
}

/// Every catalog token (and the native coin) `eoa` (or its wallet) holds
/// on each of `chains`, read in the world (call it on the pool).
pub fn balances_now(
    state: &MarketState,
    chains: &[ChainId],
    eoa: Address,
    use_eoa: bool,
) -> Result<Vec<Balance>, ExecError> {
    let world = state.world.as_ref().map_err(|e| ExecError::SimulatorUnavailable(e.clone()))?;
    let mut out = Vec::new();
    for &c in chains {
        let Some(cw) = world.chain(c) else { continue };
        let who = holder(cw, eoa, use_eoa);
        let mut evm = cw.fork();
        let tokens = std::iter::once(NATIVE_TOKEN).chain(
            state.catalog.tokens_on(c).iter().map(|t| t.address).filter(|t| *t != NATIVE_TOKEN),
        );
        for token in tokens {
            // A token whose contract cannot answer holds nothing readable.
            let amount = ChainWorld::balance_of(&mut evm, token, who).unwrap_or_default();
            if !amount.is_zero() {
                out.push(Balance { chain: c, token, amount });
            }
        }
    }
    Ok(out)
}
