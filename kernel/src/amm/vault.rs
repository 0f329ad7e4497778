//! Share-based conversions: ERC-4626 vaults (`convertToShares` /
//! `convertToAssets` rounding down, solmate's `mulDivDown`), lending receipts
//! (Aave aTokens through the ray index, Compound cTokens through
//! `exchangeRateStored`), liquid staking (Lido shares) and native wrapping.

use alloy_primitives::{U256, uint};
use switchyard_catalog::market::LendingModel;

use super::{AmmError, full_math::mul_div};

const RAY: U256 = uint!(1000000000000000000000000000_U256);
const WAD: U256 = uint!(1000000000000000000_U256);

fn nonzero(x: U256) -> Result<U256, AmmError> {
    if x.is_zero() { Err(AmmError::InsufficientLiquidity) } else { Ok(x) }
}

/// ERC-4626 `previewDeposit`: shares for `assets`.
pub fn vault_deposit(
    assets: U256,
    total_assets: U256,
    total_supply: U256,
) -> Result<U256, AmmError> {
    if total_supply.is_zero() {
        return nonzero(assets);
    }
    nonzero(mul_div(assets, total_supply, nonzero(total_assets)?).ok_or(AmmError::InvalidState)?)
}

/// ERC-4626 `previewRedeem`: assets for `shares`.
pub fn vault_redeem(
    shares: U256,
    total_assets: U256,
    total_supply: U256,
) -> Result<U256, AmmError> {
    let out =
        mul_div(shares, total_assets, nonzero(total_supply)?).ok_or(AmmError::InvalidState)?;
    if out > total_assets {
        return Err(AmmError::InsufficientLiquidity);
    }
    nonzero(out)
}

fn ray_mul(a: U256, b: U256) -> Result<U256, AmmError> {
    a.checked_mul(b)
        .and_then(|p| p.checked_add(RAY / U256::from(2u8)))
        .map(|p| p / RAY)
        .ok_or(AmmError::InvalidState)
}

fn ray_div(a: U256, b: U256) -> Result<U256, AmmError> {
    let b = nonzero(b).map_err(|_| AmmError::InvalidState)?;
    a.checked_mul(RAY)
        .and_then(|p| p.checked_add(b / U256::from(2u8)))
        .map(|p| p / b)
        .ok_or(AmmError::InvalidState)
}

/// Supplying `amount` of the asset: receipt tokens received. Aave mints
/// `rayDiv(amount, index)` scaled units whose balance reads back as
/// `rayMul(scaled, index)`; Compound mints `amount * 1e18 / rate`.
pub fn lending_supply(model: LendingModel, rate: U256, amount: U256) -> Result<U256, AmmError> {
    match model {
        LendingModel::Aave => nonzero(ray_mul(ray_div(amount, rate)?, rate)?),
        LendingModel::Compound => {
            nonzero(mul_div(amount, WAD, nonzero(rate)?).ok_or(AmmError::InvalidState)?)
        }
    }
}

/// Withdrawing with `receipt` tokens: asset received, within the market's
/// available liquidity. Aave withdraws the amount 1:1; Compound redeems
/// `receipt * rate / 1e18`.
pub fn lending_withdraw(
    model: LendingModel,
    rate: U256,
    available: U256,
    receipt: U256,
) -> Result<U256, AmmError> {
    let out = match model {
        LendingModel::Aave => receipt,
        LendingModel::Compound => mul_div(receipt, rate, WAD).ok_or(AmmError::InvalidState)?,
    };
    if out > available {
        return Err(AmmError::InsufficientLiquidity);
    }
    nonzero(out)
}

/// Liquid staking deposit: Lido's `getSharesByPooledEth`, and for a rebasing
/// receipt the balance that reads back, `getPooledEthByShares`.
pub fn stake(
    amount: U256,
    total_pooled: U256,
    total_shares: U256,
    rebasing: bool,
) -> Result<U256, AmmError> {
    let shares =
        mul_div(amount, total_shares, nonzero(total_pooled)?).ok_or(AmmError::InvalidState)?;
    if !rebasing {
        return nonzero(shares);
    }
    nonzero(mul_div(shares, total_pooled, nonzero(total_shares)?).ok_or(AmmError::InvalidState)?)
}

/// Unwrapping a non-rebasing staking receipt (wstETH → stETH):
/// `getPooledEthByShares`.
pub fn unstake_wrapped(
    shares: U256,
    total_pooled: U256,
    total_shares: U256,
) -> Result<U256, AmmError> {
    nonzero(mul_div(shares, total_pooled, nonzero(total_shares)?).ok_or(AmmError::InvalidState)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vault_rounding_is_down_both_ways() {
        let (assets, supply) = (U256::from(1_150u32), U256::from(1_000u32));
        assert_eq!(vault_deposit(U256::from(100u32), assets, supply), Ok(U256::from(86u32))); // 86.95
        assert_eq!(vault_redeem(U256::from(86u32), assets, supply), Ok(U256::from(98u32))); // 98.9
        assert_eq!(vault_deposit(U256::from(5u32), U256::ZERO, U256::ZERO), Ok(U256::from(5u32)));
        assert_eq!(
            vault_redeem(U256::from(5u32), U256::ZERO, U256::ZERO),
            Err(AmmError::InsufficientLiquidity)
        );
    }

    #[test]
    fn aave_and_compound_receipts() {
        let index = RAY + RAY / U256::from(10u8); // 1.1
        // 1_000_000 / 1.1 = 909090.909 → 909091 scaled → 1_000_000.1 → 1_000_000.
        assert_eq!(
            lending_supply(LendingModel::Aave, index, U256::from(1_000_000u32)),
            Ok(U256::from(1_000_000u32))
        );
        let rate = U256::from(230_000_000_000_000u64); // 0.00023 * 1e18 (a cUSDC-like rate)
        assert_eq!(
            lending_supply(LendingModel::Compound, rate, U256::from(1_000_000u32)),
            Ok(U256::from(4_347_826_086u64))
        );
        assert_eq!(
            lending_withdraw(
                LendingModel::Compound,
                rate,
                U256::from(10_000_000u32),
                U256::from(4_347_826_086u64)
            ),
            Ok(U256::from(999_999u32))
        );
        assert_eq!(
            lending_withdraw(LendingModel::Aave, index, U256::from(10u8), U256::from(11u8)),
            Err(AmmError::InsufficientLiquidity)
        );
    }

    #[test]
    fn lido_shares_round_down() {
        let (pooled, shares) = (U256::from(12u8), U256::from(10u8));
        assert_eq!(stake(U256::from(7u8), pooled, shares, false), Ok(U256::from(5u8))); // 5.83
        assert_eq!(stake(U256::from(7u8), pooled, shares, true), Ok(U256::from(6u8))); // 5 shares → 6
        assert_eq!(unstake_wrapped(U256::from(5u8), pooled, shares), Ok(U256::from(6u8)));
    }
}
