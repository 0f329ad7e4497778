//! Uniswap V2-style constant product, as `UniswapV2Library.getAmountOut`
//! with the pool's fee in bps (30 for Uniswap V2: `997/1000` and
//! `9970/10000` give the same floor).

use alloy_primitives::U256;

use super::AmmError;

/// The largest reserve a pair holds: it stores reserves as `uint112` and
/// reverts (`OVERFLOW`) on a balance past it.
pub const MAX_RESERVE: U256 = U256::from_limbs([u64::MAX, u64::MAX >> 16, 0, 0]);

/// Output for `amount_in` of the token whose reserve is `reserve_in`.
pub fn amount_out(
    amount_in: U256,
    reserve_in: U256,
    reserve_out: U256,
    fee_bps: u32,
) -> Result<U256, AmmError> {
    if fee_bps >= 10_000 {
        return Err(AmmError::InvalidState);
    }
    if reserve_in.is_zero() || reserve_out.is_zero() {
        return Err(AmmError::InsufficientLiquidity);
    }
    // A balance past `uint112` reverts: the pool cannot take this much.
    if reserve_in.checked_add(amount_in).is_none_or(|b| b > MAX_RESERVE) {
        return Err(AmmError::InsufficientLiquidity);
    }
    let with_fee =
        amount_in.checked_mul(U256::from(10_000 - fee_bps)).ok_or(AmmError::InvalidState)?;
    let numerator = with_fee.checked_mul(reserve_out).ok_or(AmmError::InvalidState)?;
    let denominator = reserve_in
        .checked_mul(U256::from(10_000u32))
        .and_then(|d| d.checked_add(with_fee))
        .ok_or(AmmError::InvalidState)?;
    let out = numerator / denominator;
    if out.is_zero() || out >= reserve_out {
        return Err(AmmError::InsufficientLiquidity);
    }
    Ok(out)
}

/// Input for exactly `amount_out` of the token whose reserve is
/// `reserve_out`, as `UniswapV2Library.getAmountIn` (what the router's
/// `swapTokensForExactTokens` pays): the floor of the exact ratio, plus
/// one.
pub fn amount_in(
    amount_out: U256,
    reserve_in: U256,
    reserve_out: U256,
    fee_bps: u32,
) -> Result<U256, AmmError> {
    if fee_bps >= 10_000 {
        return Err(AmmError::InvalidState);
    }
    if reserve_in.is_zero() || amount_out.is_zero() || amount_out >= reserve_out {
        return Err(AmmError::InsufficientLiquidity);
    }
    let numerator = reserve_in
        .checked_mul(amount_out)
        .and_then(|v| v.checked_mul(U256::from(10_000u32)))
        .ok_or(AmmError::InsufficientLiquidity)?;
    let denominator = (reserve_out - amount_out)
        .checked_mul(U256::from(10_000 - fee_bps))
        .ok_or(AmmError::InvalidState)?;
    let amount_in =
        (numerator / denominator).checked_add(U256::ONE).ok_or(AmmError::InvalidState)?;
    if reserve_in.checked_add(amount_in).is_none_or(|b| b > MAX_RESERVE) {
        return Err(AmmError::InsufficientLiquidity);
    }
    Ok(amount_in)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn golden_against_the_v2_router_formula() {
        // 1 WETH into 100 WETH / 300,000 USDC at 0.3%: the toolchain spike's
        // on-chain swap returned 2961474103.
        let out = amount_out(
            U256::from(10u64).pow(U256::from(18u64)),
            U256::from(100u64) * U256::from(10u64).pow(U256::from(18u64)),
            U256::from(300_000_000_000u64),
            30,
        );
        assert_eq!(out, Ok(U256::from(2_961_474_103u64)));
    }

    #[test]
    fn the_input_for_an_output_buys_at_least_it() {
        let (r_in, r_out) =
            (U256::from(10u64).pow(U256::from(20u8)), U256::from(300_000_000_000u64));
        let a = amount_in(U256::from(2_961_474_103u64), r_in, r_out, 30).expect("in");
        assert!(amount_out(a, r_in, r_out, 30).expect("out") >= U256::from(2_961_474_103u64));
        assert_eq!(amount_in(r_out, r_in, r_out, 30), Err(AmmError::InsufficientLiquidity));
    }

    #[test]
    fn empty_and_dust() {
        assert_eq!(
            amount_out(U256::from(1u8), U256::ZERO, U256::from(5u8), 30),
            Err(AmmError::InsufficientLiquidity)
        );
        assert_eq!(
            amount_out(U256::from(1u8), U256::from(1000u32), U256::from(1000u32), 30),
            Err(AmmError::InsufficientLiquidity)
        );
        assert_eq!(
            amount_out(U256::MAX, U256::from(1u8), U256::from(1u8), 30),
            Err(AmmError::InsufficientLiquidity)
        );
    }

    /// The pair's reserves are `uint112`: a trade that would take the input
    /// reserve past `2^112 - 1` reverts on chain, so it is refused here.
    #[test]
    fn max_reserve_is_uint112_max() {
        assert_eq!(MAX_RESERVE, (U256::ONE << 112) - U256::ONE);
    }

    #[test]
    fn input_reserve_stays_within_uint112() {
        let max = (U256::ONE << 112) - U256::ONE;
        let reserve = U256::from(10u64).pow(U256::from(24u64));
        assert!(amount_out(max - reserve, reserve, reserve, 30).is_ok());
        assert_eq!(
            amount_out(max - reserve + U256::ONE, reserve, reserve, 30),
            Err(AmmError::InsufficientLiquidity)
        );
    }
}
