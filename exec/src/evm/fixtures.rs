//! State the world writes into the reference contracts' storage: what the
//! deployed contracts hold because of their history (a Curve pool's
//! balances, Lido's totals, a gauge's pending rewards, an oracle's prices),
//! which the reference contracts, like the deployed ones, have no function
//! to set. Each write goes to the slot solc's storage layout gives (the
//! committed artifact's) and is read back through the contract's own getter
//! where it has one.

use alloy_primitives::{Address, U256, keccak256};
use alloy_sol_types::sol;
use revm::database_interface::DatabaseRef;

use super::{Artifact, Evm, EvmError, world::mapping_slot};

sol! {
    function balances(uint256 i) external view returns (uint256);
    function getTotalPooledEther() external view returns (uint256);
    function getTotalShares() external view returns (uint256);
    function claimable_reward(address user, address token) external view returns (uint256);
    function priceBInA() external view returns (uint256);
    function getUnderlyingPrice(address cToken) external view returns (uint256);
}

fn slot(artifact: Artifact, variable: &'static str) -> Result<U256, EvmError> {
    artifact.storage_slot(variable).map(U256::from).ok_or(EvmError::Layout(variable))
}

/// A read-back that differs from the write: the layout is not the one
/// assumed.
fn same(read: U256, wrote: U256, what: &'static str) -> Result<(), EvmError> {
    if read == wrote { Ok(()) } else { Err(EvmError::Layout(what)) }
}

/// A Curve pool's internal balances (raw units, pool order), one per coin.
pub fn stableswap_balances<E>(
    evm: &mut Evm<E>,
    pool: Address,
    balances_: &[U256],
) -> Result<(), EvmError>
where
    E: DatabaseRef<Error = std::convert::Infallible> + std::fmt::Debug,
{
    let array = slot(Artifact::ReferenceStableSwap, "balances")?;
    let coins = evm.storage(pool, array);
    if coins != U256::from(balances_.len()) {
        return Err(EvmError::Parameter(format!(
            "{} balances for a pool of {coins} coins",
            balances_.len()
        )));
    }
    let first = U256::from_be_bytes(keccak256(array.to_be_bytes::<32>()).0);
    for (k, b) in balances_.iter().enumerate() {
        evm.set_storage(pool, first + U256::from(k), *b);
        let read = evm.view(pool, &balancesCall { i: U256::from(k) })?;
        same(read, *b, "ReferenceStableSwap.balances")?;
    }
    Ok(())
}

/// Lido's totals, every share held by `holder`.
pub fn steth_totals<E>(
    evm: &mut Evm<E>,
    steth: Address,
    pooled: U256,
    shares: U256,
    holder: Address,
) -> Result<(), EvmError>
where
    E: DatabaseRef<Error = std::convert::Infallible> + std::fmt::Debug,
{
    let a = Artifact::ReferenceStETH;
    evm.set_storage(steth, slot(a, "_totalPooledEther")?, pooled);
    evm.set_storage(steth, slot(a, "_totalShares")?, shares);
    let held = mapping_slot(holder, a.storage_slot("_shares").ok_or(EvmError::Layout("_shares"))?);
    evm.set_storage(steth, held, shares);
    same(
        evm.view(steth, &getTotalPooledEtherCall {})?,
        pooled,
        "ReferenceStETH._totalPooledEther",
    )?;
    same(evm.view(steth, &getTotalSharesCall {})?, shares, "ReferenceStETH._totalShares")
}

/// A gauge's pending reward for `user`, in its reward token.
pub fn gauge_claimable<E>(
    evm: &mut Evm<E>,
    gauge: Address,
    reward: Address,
    user: Address,
    amount: U256,
) -> Result<(), EvmError>
where
    E: DatabaseRef<Error = std::convert::Infallible> + std::fmt::Debug,
{
    let a = Artifact::ReferenceCurveGauge;
    let at =
        mapping_slot(user, a.storage_slot("_claimable").ok_or(EvmError::Layout("_claimable"))?);
    evm.set_storage(gauge, at, amount);
    let read = evm.view(gauge, &claimable_rewardCall { user, token: reward })?;
    same(read, amount, "ReferenceCurveGauge._claimable")
}

/// A two-token vault's price of one whole B in A (1e18 fixed point).
pub fn dual_vault_price<E>(evm: &mut Evm<E>, vault: Address, price: U256) -> Result<(), EvmError>
where
    E: DatabaseRef<Error = std::convert::Infallible> + std::fmt::Debug,
{
    evm.set_storage(vault, slot(Artifact::ReferenceDualVault, "priceBInA")?, price);
    same(evm.view(vault, &priceBInACall {})?, price, "ReferenceDualVault.priceBInA")
}

/// A Compound oracle's price of `c_token`'s underlying (0 unsets it).
pub fn compound_price<E>(
    evm: &mut Evm<E>,
    oracle: Address,
    c_token: Address,
    price: U256,
) -> Result<(), EvmError>
where
    E: DatabaseRef<Error = std::convert::Infallible> + std::fmt::Debug,
{
    let a = Artifact::ReferencePriceOracle;
    let at = mapping_slot(c_token, a.storage_slot("_prices").ok_or(EvmError::Layout("_prices"))?);
    evm.set_storage(oracle, at, price);
    let read = evm.view(oracle, &getUnderlyingPriceCall { cToken: c_token })?;
    same(read, price, "ReferencePriceOracle._prices")
}
