//! Exact output: the input a pool takes for a given output.
//!
//! Where the contracts have an exact-output function, it is mirrored to the
//! wei: Uniswap V2's `getAmountIn` (the router's `swapTokensForExactTokens`),
//! Uniswap V3's swap with a negative `amountSpecified` (the router's
//! `exactOutput`), Balancer V2's `onSwap` given out, ERC-4626's
//! `previewMint` / `previewWithdraw`. Those deliver exactly the output.
//!
//! The others (Curve's `exchange`, lending receipts, staking, wrapping)
//! only trade an exact input: their input is the least one whose exact-in
//! output reaches the one wanted, found by bisection over the exact-in math
//! itself, so they deliver at least the output (a few wei more at most).

use alloy_primitives::U256;

use super::{
    AmmError, Swap, add, sub, uniswap_v2, uniswap_v3,
    vault::{vault_mint, vault_withdraw},
    weighted,
};
use crate::pool::{Pool, PoolState, VaultState};

/// An exact-output trade through one pool.
#[derive(Debug, Clone, PartialEq)]
pub struct SwapIn {
    /// Input taken, raw units of the input token.
    pub amount_in: U256,
    /// Output delivered: the one asked for, or (kinds without an
    /// exact-output function) the least exact-in output reaching it.
    pub amount_out: U256,
    /// Gas estimate of the step.
    pub gas: u64,
    /// The pool's state after the trade.
    pub next: PoolState,
}

/// Whether a pool of this kind delivers exactly the output asked for.
pub const fn exact_output_native(state: &PoolState) -> bool {
    matches!(
        state,
        PoolState::UniswapV2 { .. }
            | PoolState::UniswapV2Lp(_)
            | PoolState::UniswapV3(_)
            | PoolState::Weighted(_)
            | PoolState::Erc4626(_)
            | PoolState::Wrap
    )
}

impl Pool {
    /// The input of token `i` for exactly `amount_out` of token `j`.
    pub fn swap_exact_out(&self, i: usize, j: usize, amount_out: U256) -> Result<SwapIn, AmmError> {
        self.swap_exact_out_from(&self.state, i, j, amount_out)
    }

    /// [`Self::swap_exact_out`] from another state of this pool.
    pub fn swap_exact_out_from(
        &self,
        state: &PoolState,
        i: usize,
        j: usize,
        amount_out: U256,
    ) -> Result<SwapIn, AmmError> {
        self.check_trade(i, j, amount_out)?;
        let base = state.base_gas();
        let done = |amount_in, gas, next| Ok(SwapIn { amount_in, amount_out, gas, next });
        match state {
            PoolState::UniswapV2 { reserves, fee_bps } => {
                let (a, next) = v2_swap_out(state, reserves, *fee_bps, i, j, amount_out)?;
                done(a, base, next)
            }
            // A swap between the coins of a pair whose liquidity token is
            // listed; the zaps have no exact-output form.
            PoolState::UniswapV2Lp(p) if i < 2 && j < 2 => {
                let (a, next) = v2_swap_out(state, &p.reserves, p.fee_bps, i, j, amount_out)?;
                done(a, base, next)
            }
            PoolState::UniswapV3(v3) => {
                let (fee, spacing) = (v3.fee, v3.tick_spacing);
                let s = uniswap_v3::swap_exact_out(
                    super::v3_slot(v3),
                    &v3.ticks,
                    spacing,
                    fee,
                    i == 0,
                    amount_out,
                )?;
                if s.amount_out != amount_out || s.amount_in.is_zero() {
                    return Err(AmmError::InsufficientLiquidity);
                }
                let gas = base + super::gas::UNISWAP_V3_PER_TICK * u64::from(s.ticks_crossed);
                done(s.amount_in, gas, super::v3_after(v3, s.slot))
            }
            PoolState::Weighted(w) => {
                let [(bi, di, wi), (bo, d_out, wo)] = self.weighted_sides(w, i, j)?;
                let a = weighted::in_given_out(
                    w.pow_rule, bi, di, wi, bo, d_out, wo, w.swap_fee, amount_out,
                )?;
                done(a, base, super::weighted_after(w, i, j, a, amount_out)?)
            }
            PoolState::Erc4626(v) => {
                let VaultState { total_assets, total_supply, rule } = &**v;
                let (a, ta, ts) = if i == 0 {
                    // `mint(shares)`: the assets it takes.
                    let a = vault_mint(*rule, amount_out, *total_assets, *total_supply)?;
                    (a, add(*total_assets, a)?, add(*total_supply, amount_out)?)
                } else {
                    // `withdraw(assets)`: the shares it burns.
                    let s = vault_withdraw(*rule, amount_out, *total_assets, *total_supply)?;
                    (s, sub(*total_assets, amount_out)?, sub(*total_supply, s)?)
                };
                let next = PoolState::Erc4626(Box::new(VaultState {
                    total_assets: ta,
                    total_supply: ts,
                    rule: *rule,
                }));
                done(a, base, next)
            }
            PoolState::Wrap => done(amount_out, base, PoolState::Wrap),
            PoolState::Stableswap(_)
            | PoolState::UniswapV2Lp(_)
            | PoolState::Lending(_)
            | PoolState::LiquidStaking(_) => {
                let swap = |x: U256| self.swap_exact_in_from(state, i, j, x);
                let (a, s) = least_input(amount_out, swap)?;
                Ok(SwapIn { amount_in: a, amount_out: s.amount_out, gas: s.gas, next: s.next })
            }
        }
    }
}

/// The input for exactly `amount_out` of coin `j` from a pair in `state`
/// (its reserves and fee `reserves`, `fee_bps`), and the state after.
fn v2_swap_out(
    state: &PoolState,
    reserves: &[alloy_primitives::U128; 2],
    fee_bps: u32,
    i: usize,
    j: usize,
    amount_out: U256,
) -> Result<(U256, PoolState), AmmError> {
    let r = [U256::from(reserves[0]), U256::from(reserves[1])];
    let a = uniswap_v2::amount_in(amount_out, r[i], r[j], fee_bps)?;
    Ok((a, super::v2_after(state, r, i, j, a, amount_out)?))
}

/// The least input whose exact-in trade pays at least `want`, and that
/// trade. `swap` must be monotonic in its input (every pool is).
fn least_input(
    want: U256,
    swap: impl Fn(U256) -> Result<Swap, AmmError>,
) -> Result<(U256, Swap), AmmError> {
    let pays = |x: U256| -> Result<Option<Swap>, AmmError> {
        match swap(x) {
            Ok(s) if s.amount_out >= want => Ok(Some(s)),
            Ok(_) | Err(AmmError::InsufficientLiquidity) => Ok(None),
            Err(e) => Err(e),
        }
    };
    // A first guess at the trade's rate, then a bracket around it that
    // widens until it holds the answer.
    let probe = swap(want).ok().map(|s| s.amount_out).filter(|o| !o.is_zero());
    let guess = match probe {
        Some(o) => super::full_math::mul_div(want, want, o).ok_or(AmmError::InvalidState)?,
        None => want,
    };
    let mut step: U256 = (guess >> 10usize).max(U256::from(16u8));
    let two = U256::from(2u8);
    // Up from the guess until an input pays; the last one that did not is
    // the lower end.
    let mut lo = None;
    let mut hi = guess;
    let mut best = loop {
        if let Some(s) = pays(hi)? {
            break s;
        }
        if hi == U256::MAX {
            return Err(AmmError::InsufficientLiquidity);
        }
        lo = Some(hi);
        hi = hi.saturating_add(step);
        step = step.saturating_mul(two);
    };
    // The guess paid: down from it until one does not (zero never pays).
    let mut lo = match lo {
        Some(lo) => lo,
        None => loop {
            let below = hi.saturating_sub(step);
            match pays(below)? {
                Some(s) if !below.is_zero() => {
                    hi = below;
                    best = s;
                    step = step.saturating_mul(two);
                }
                _ => break below,
            }
        },
    };
    // `lo` does not pay, `hi` does.
    while hi - lo > U256::ONE {
        let mid = lo + ((hi - lo) >> 1);
        match pays(mid)? {
            Some(s) => {
                hi = mid;
                best = s;
            }
            None => lo = mid,
        }
    }
    Ok((hi, best))
}

#[cfg(test)]
mod tests {
    use alloy_primitives::U128;

    use super::*;
    use crate::pool::{StableswapState, test_pool};

    fn u(x: u128) -> U256 {
        U256::from(x)
    }

    #[test]
    fn a_v2_exact_output_pays_for_itself_and_no_less() {
        let pool = test_pool(
            PoolState::UniswapV2 {
                reserves: [U128::from(10u128.pow(22)), U128::from(3 * 10u128.pow(13))],
                fee_bps: 30,
            },
            vec![18, 6],
        );
        for want in [1u128, 1_000, 123_456_789, 2_000_000_000_000] {
            let s = pool.swap_exact_out(0, 1, u(want)).expect("exact out");
            assert_eq!(s.amount_out, u(want));
            let back = pool.swap_exact_in(0, 1, s.amount_in).expect("exact in");
            assert!(back.amount_out >= u(want), "{want}");
        }
    }

    #[test]
    fn a_stableswap_exact_output_is_the_least_input_that_reaches_it() {
        let pool = test_pool(
            PoolState::Stableswap(Box::new(StableswapState {
                balances: vec![u(50_000_000 * 10u128.pow(18)), u(48_000_000 * 10u128.pow(6))],
                amp: u(2000 * 100),
                fee: u(4_000_000),
                admin_fee: u(5_000_000_000),
                a_precision: u(100),
                lp_supply: None,
            })),
            vec![18, 6],
        );
        for want in [1u128, 999_999, 1_000_000 * 10u128.pow(6), 20_000_000 * 10u128.pow(6)] {
            let s = pool.swap_exact_out(0, 1, u(want)).expect("exact out");
            assert!(s.amount_out >= u(want));
            let less = pool.swap_exact_in(0, 1, s.amount_in - U256::ONE);
            assert!(less.is_err() || less.is_ok_and(|l| l.amount_out < u(want)), "{want}");
        }
        assert!(pool.swap_exact_out(0, 1, u(48_000_000 * 10u128.pow(6))).is_err());
    }
}
