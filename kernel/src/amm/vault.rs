//! Share-based conversions: ERC-4626 vaults (`convertToShares` /
//! `convertToAssets` rounding down: solmate's `mulDivDown`, or OpenZeppelin's
//! `mulDiv` over virtual shares and assets), lending receipts
//! (Aave aTokens through the ray index, Compound cTokens through
//! `exchangeRateStored`), liquid staking (Lido shares) and native wrapping.

use alloy_primitives::{U256, uint};
use switchyard_catalog::market::{LendingModel, VaultRule};

use super::{AmmError, full_math::mul_div};

const RAY: U256 = uint!(1000000000000000000000000000_U256);
const WAD: U256 = uint!(1000000000000000000_U256);

fn nonzero(x: U256) -> Result<U256, AmmError> {
    if x.is_zero() { Err(AmmError::InsufficientLiquidity) } else { Ok(x) }
}

/// OpenZeppelin's virtual shares and asset: `(supply + 10^offset, total + 1)`.
fn virtual_totals(
    decimals_offset: u8,
    total_assets: U256,
    total_supply: U256,
) -> Result<(U256, U256), AmmError> {
    let shares = U256::from(10u8)
        .checked_pow(U256::from(decimals_offset))
        .and_then(|v| total_supply.checked_add(v))
        .ok_or(AmmError::InvalidState)?;
    let assets = total_assets.checked_add(U256::ONE).ok_or(AmmError::InvalidState)?;
    Ok((shares, assets))
}

/// ERC-4626 `previewDeposit`: shares for `assets`. An OpenZeppelin vault
/// mints zero shares without reverting; a route never deposits for none,
/// so zero is an error under both rules.
pub fn vault_deposit(
    rule: VaultRule,
    assets: U256,
    total_assets: U256,
    total_supply: U256,
) -> Result<U256, AmmError> {
    match rule {
        VaultRule::Solmate => {
            if total_supply.is_zero() {
                return nonzero(assets);
            }
            nonzero(
                mul_div(assets, total_supply, nonzero(total_assets)?)
                    .ok_or(AmmError::InvalidState)?,
            )
        }
        VaultRule::OpenZeppelin { decimals_offset } => {
            let (shares, all) = virtual_totals(decimals_offset, total_assets, total_supply)?;
            nonzero(mul_div(assets, shares, all).ok_or(AmmError::InvalidState)?)
        }
    }
}

/// ERC-4626 `previewRedeem`: assets for `shares`.
pub fn vault_redeem(
    rule: VaultRule,
    shares: U256,
    total_assets: U256,
    total_supply: U256,
) -> Result<U256, AmmError> {
    let out = match rule {
        VaultRule::Solmate => {
            mul_div(shares, total_assets, nonzero(total_supply)?).ok_or(AmmError::InvalidState)?
        }
        VaultRule::OpenZeppelin { decimals_offset } => {
            if shares > total_supply {
                return Err(AmmError::InsufficientLiquidity);
            }
            let (all_shares, all) = virtual_totals(decimals_offset, total_assets, total_supply)?;
            mul_div(shares, all, all_shares).ok_or(AmmError::InvalidState)?
        }
    };
    if out > total_assets {
        return Err(AmmError::InsufficientLiquidity);
    }
    nonzero(out)
}

/// ERC-4626 `previewMint`: assets a deposit of exactly `shares` takes
/// (rounding up).
pub fn vault_mint(
    rule: VaultRule,
    shares: U256,
    total_assets: U256,
    total_supply: U256,
) -> Result<U256, AmmError> {
    let assets = match rule {
        VaultRule::Solmate if total_supply.is_zero() => shares,
        VaultRule::Solmate => mul_div_up(shares, total_assets, total_supply)?,
        VaultRule::OpenZeppelin { decimals_offset } => {
            let (all_shares, all) = virtual_totals(decimals_offset, total_assets, total_supply)?;
            mul_div_up(shares, all, all_shares)?
        }
    };
    nonzero(assets)
}

/// ERC-4626 `previewWithdraw`: shares burnt for exactly `assets` (rounding
/// up).
pub fn vault_withdraw(
    rule: VaultRule,
    assets: U256,
    total_assets: U256,
    total_supply: U256,
) -> Result<U256, AmmError> {
    if assets > total_assets {
        return Err(AmmError::InsufficientLiquidity);
    }
    let shares = match rule {
        VaultRule::Solmate if total_supply.is_zero() => assets,
        VaultRule::Solmate => mul_div_up(assets, total_supply, nonzero(total_assets)?)?,
        VaultRule::OpenZeppelin { decimals_offset } => {
            let (all_shares, all) = virtual_totals(decimals_offset, total_assets, total_supply)?;
            mul_div_up(assets, all_shares, all)?
        }
    };
    if shares > total_supply {
        return Err(AmmError::InsufficientLiquidity);
    }
    nonzero(shares)
}

fn mul_div_up(a: U256, b: U256, d: U256) -> Result<U256, AmmError> {
    super::full_math::mul_div_rounding_up(a, b, d).ok_or(AmmError::InvalidState)
}

/// Aave's `rayMul`: `(a·b + RAY/2) / RAY`.
pub fn ray_mul(a: U256, b: U256) -> Result<U256, AmmError> {
    a.checked_mul(b)
        .and_then(|p| p.checked_add(RAY / U256::from(2u8)))
        .map(|p| p / RAY)
        .ok_or(AmmError::InvalidState)
}

/// Aave's `rayDiv`: `(a·RAY + b/2) / b`.
pub fn ray_div(a: U256, b: U256) -> Result<U256, AmmError> {
    let b = nonzero(b).map_err(|_| AmmError::InvalidState)?;
    a.checked_mul(RAY)
        .and_then(|p| p.checked_add(b / U256::from(2u8)))
        .map(|p| p / b)
        .ok_or(AmmError::InvalidState)
}

/// Supplying `amount` of the asset: receipt tokens received. Aave mints
/// `rayDiv(amount, index)` scaled units (at most 2^128 − 1) whose balance
/// reads back as `rayMul(scaled, index)` (at most 2^128 − 1 too: the aToken
/// transfers only amounts that fit 128 bits); Compound mints `amount * 1e18
/// / rate`; Comet credits the principal of `amount` (rounded down), which
/// reads back through the index (rounded down again), for an account that
/// held none.
pub fn lending_supply(model: LendingModel, rate: U256, amount: U256) -> Result<U256, AmmError> {
    match model {
        LendingModel::Aave => {
            let scaled = ray_div(amount, rate)?;
            // The aToken keeps a holder's scaled balance in 128 bits
            // (`toUint128`): a supply past that reverts. And it casts every
            // amount it transfers to 128 bits: a receipt past that could
            // never leave the account it was minted to.
            let out = ray_mul(scaled, rate)?;
            if scaled > U256::from(u128::MAX) || out > U256::from(u128::MAX) {
                return Err(AmmError::InvalidState);
            }
            nonzero(out)
        }
        LendingModel::Compound => {
            nonzero(mul_div(amount, WAD, nonzero(rate)?).ok_or(AmmError::InvalidState)?)
        }
        LendingModel::Comet => nonzero(comet_read(rate, comet_principal(rate, amount)?)?),
    }
}

/// Comet's base index scale.
const COMET_INDEX_SCALE: U256 = uint!(1000000000000000_U256);

/// Comet's `principalValueSupply`: the principal a supplied balance of
/// `present` stands for at the supply `index`, rounded down, refused past
/// `int104` (where the market reverts).
pub fn comet_principal(index: U256, present: U256) -> Result<U256, AmmError> {
    let p = mul_div(present, COMET_INDEX_SCALE, nonzero(index)?).ok_or(AmmError::InvalidState)?;
    if p > (U256::from(1u8) << 103usize) - U256::from(1u8) {
        return Err(AmmError::InvalidState);
    }
    Ok(p)
}

/// Comet's `presentValueSupply`: the balance `principal` reads as at the
/// supply `index`, rounded down.
pub fn comet_read(index: U256, principal: U256) -> Result<U256, AmmError> {
    mul_div(principal, index, COMET_INDEX_SCALE).ok_or(AmmError::InvalidState)
}

/// Withdrawing with `receipt` tokens: asset received, within the market's
/// available liquidity. Aave withdraws the amount 1:1, and refuses an amount
/// that burns no scaled unit (`rayDiv(receipt, index) == 0`, dust at an
/// index above 2 ray); Compound redeems `receipt * rate / 1e18`.
pub fn lending_withdraw(
    model: LendingModel,
    rate: U256,
    available: U256,
    receipt: U256,
) -> Result<U256, AmmError> {
    let out = match model {
        LendingModel::Aave => {
            // Receipts arrive by transfer, which the aToken casts to 128
            // bits.
            if receipt > U256::from(u128::MAX) {
                return Err(AmmError::InvalidState);
            }
            nonzero(ray_div(receipt, rate)?)?;
            receipt
        }
        LendingModel::Compound => mul_div(receipt, rate, WAD).ok_or(AmmError::InvalidState)?,
        // `withdraw(asset, receipt)` of a balance that reads `receipt`:
        // exactly that much of the base.
        LendingModel::Comet => receipt,
    };
    if out > available {
        return Err(AmmError::InsufficientLiquidity);
    }
    nonzero(out)
}

/// Liquid staking deposit: the shares minted, Lido's
/// `getSharesByPooledEth` at the totals before the deposit; for a rebasing
/// receipt, the balance a depositor with no shares before reads back.
///
/// Lido's `submit` adds the deposit and the new shares to the totals before
/// any balance is read, so that balance is `getPooledEthByShares` at the
/// totals after it: `shares * (P + amount) / (S + shares)`, which can be
/// more than `shares * P / S`.
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
    let pooled_after = total_pooled.checked_add(amount).ok_or(AmmError::InvalidState)?;
    let shares_after = total_shares.checked_add(shares).ok_or(AmmError::InvalidState)?;
    nonzero(mul_div(shares, pooled_after, nonzero(shares_after)?).ok_or(AmmError::InvalidState)?)
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
        let s = VaultRule::Solmate;
        let (assets, supply) = (U256::from(1_150u32), U256::from(1_000u32));
        assert_eq!(vault_deposit(s, U256::from(100u32), assets, supply), Ok(U256::from(86u32))); // 86.95
        assert_eq!(vault_redeem(s, U256::from(86u32), assets, supply), Ok(U256::from(98u32))); // 98.9
        assert_eq!(
            vault_deposit(s, U256::from(5u32), U256::ZERO, U256::ZERO),
            Ok(U256::from(5u32))
        );
        assert_eq!(
            vault_redeem(s, U256::from(5u32), U256::ZERO, U256::ZERO),
            Err(AmmError::InsufficientLiquidity)
        );
    }

    /// OpenZeppelin's virtual shares and asset, with the numbers its own
    /// tests and the 5.7.0 bytecode give: supply 1000, total 1333, offset 0.
    #[test]
    fn openzeppelin_rounding_counts_the_virtual_share_and_asset() {
        let oz = |decimals_offset| VaultRule::OpenZeppelin { decimals_offset };
        let (assets, supply) = (U256::from(1_333u32), U256::from(1_000u32));
        // 10 * 1001 / 1334 = 7.5; 10 * 1334 / 1001 = 13.3.
        assert_eq!(vault_deposit(oz(0), U256::from(10u32), assets, supply), Ok(U256::from(7u32)));
        assert_eq!(vault_redeem(oz(0), U256::from(10u32), assets, supply), Ok(U256::from(13u32)));
        // An empty vault with offset 12: a micro-unit of the asset is 10^12
        // shares, and they redeem to the same unit.
        let e12 = U256::from(10u64).pow(U256::from(12u8));
        assert_eq!(vault_deposit(oz(12), U256::ONE, U256::ZERO, U256::ZERO), Ok(e12));
        assert_eq!(vault_redeem(oz(12), e12, U256::ONE, e12), Ok(U256::ONE));
        // More shares than exist cannot be redeemed.
        assert_eq!(
            vault_redeem(oz(0), U256::from(1_001u32), assets, supply),
            Err(AmmError::InsufficientLiquidity)
        );
    }

    #[test]
    fn comet_credits_principal_rounded_down_and_reads_it_back_rounded_down() {
        let index = U256::from(1_071_234_567_890_123u64);
        // 1_000_000 * 1e15 / index = 933_502.9… → 933_502 principal, which
        // reads 933_502 * index / 1e15 = 999_999.9… → 999_999.
        assert_eq!(comet_principal(index, U256::from(1_000_000u32)), Ok(U256::from(933_502u32)));
        assert_eq!(
            lending_supply(LendingModel::Comet, index, U256::from(1_000_000u32)),
            Ok(U256::from(999_999u32))
        );
        // At the starting index a supply reads back whole.
        let one = U256::from(1_000_000_000_000_000u64);
        assert_eq!(lending_supply(LendingModel::Comet, one, U256::from(7u8)), Ok(U256::from(7u8)));
        // Nothing credited, and past int104: refused, as the market reverts.
        assert!(lending_supply(LendingModel::Comet, index, U256::ONE).is_err());
        assert!(lending_supply(LendingModel::Comet, one, U256::from(1u8) << 103usize).is_err());
        // A withdrawal of what a balance reads is paid whole, within cash.
        let cash = U256::from(10u8);
        assert_eq!(
            lending_withdraw(LendingModel::Comet, index, cash, U256::from(9u8)),
            Ok(U256::from(9u8))
        );
        assert!(lending_withdraw(LendingModel::Comet, index, cash, U256::from(11u8)).is_err());
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

    /// The aToken burns `rayDiv(amount, index)` scaled units and refuses to
    /// burn none: at an index of 3 ray, 1 wei is (1e27 + 1.5e27) / 3e27 = 0
    /// units, 2 wei is 1.
    #[test]
    fn aave_withdrawal_burning_no_scaled_unit_is_refused() {
        let index = RAY * U256::from(3u8);
        let available = U256::from(1_000u32);
        assert_eq!(
            lending_withdraw(LendingModel::Aave, index, available, U256::ONE),
            Err(AmmError::InsufficientLiquidity)
        );
        assert_eq!(
            lending_withdraw(LendingModel::Aave, index, available, U256::from(2u8)),
            Ok(U256::from(2u8))
        );
        // Up to 2 ray, one wei always burns a unit.
        assert_eq!(
            lending_withdraw(LendingModel::Aave, RAY * U256::from(2u8), available, U256::ONE),
            Ok(U256::ONE)
        );
    }

    #[test]
    fn lido_shares_round_down() {
        let (pooled, shares) = (U256::from(12u8), U256::from(10u8));
        assert_eq!(stake(U256::from(7u8), pooled, shares, false), Ok(U256::from(5u8))); // 5.83
        // 5 shares, read at the totals after the deposit: 5 * 19 / 15 = 6.33.
        assert_eq!(stake(U256::from(7u8), pooled, shares, true), Ok(U256::from(6u8)));
        assert_eq!(unstake_wrapped(U256::from(5u8), pooled, shares), Ok(U256::from(6u8)));
    }

    /// A stETH deposit reads back at the totals after it: `submit` adds the
    /// ETH and the shares first. At the totals before it, the balance would
    /// be 1 wei less in both cases (3 for 4; ...546 for ...547).
    #[test]
    fn rebasing_stake_reads_back_at_the_totals_after_the_deposit() {
        // P = 3, S = 1: 5 wei mints 1 share, worth 8 / 2 = 4 after.
        assert_eq!(stake(U256::from(5u8), U256::from(3u8), U256::ONE, false), Ok(U256::ONE));
        assert_eq!(stake(U256::from(5u8), U256::from(3u8), U256::ONE, true), Ok(U256::from(4u8)));
        // Mainnet-sized totals at a ratio of about 1.2.
        let pooled = uint!(9612345678901234567890123_U256);
        let total = uint!(8010001234567890123456789_U256);
        let x = uint!(657464206757531086548_U256);
        assert_eq!(stake(x, pooled, total, false), Ok(uint!(547867220315572352018_U256)));
        assert_eq!(stake(x, pooled, total, true), Ok(uint!(657464206757531086547_U256)));
    }
}
