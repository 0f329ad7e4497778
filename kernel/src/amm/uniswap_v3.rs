//! Uniswap V3 exact-input swaps, integer for integer as `UniswapV3Pool.swap`:
//! `TickMath.getSqrtRatioAtTick`, `SqrtPriceMath`, `SwapMath.computeSwapStep`
//! and the step loop, which stops at every bitmap word boundary as
//! `TickBitmap.nextInitializedTickWithinOneWord` does (each step rounds, so
//! the boundaries matter to the last wei). Protocol fees change no output and
//! are not modelled.

use alloy_primitives::{U160, U256, uint};

use super::{
    AmmError,
    full_math::{div_rounding_up, mul_div, mul_div_rounding_up},
};

/// Lowest tick.
pub const MIN_TICK: i32 = -887_272;
/// Highest tick.
pub const MAX_TICK: i32 = 887_272;
/// `getSqrtRatioAtTick(MIN_TICK)`.
pub const MIN_SQRT_RATIO: U256 = uint!(4295128739_U256);
/// `getSqrtRatioAtTick(MAX_TICK)`.
pub const MAX_SQRT_RATIO: U256 = uint!(1461446703485210103287273052203988822378723970342_U256);

const Q96: U256 = uint!(0x1000000000000000000000000_U256);

const MAGIC: [U256; 20] = [
    uint!(0xfffcb933bd6fad37aa2d162d1a594001_U256),
    uint!(0xfff97272373d413259a46990580e213a_U256),
    uint!(0xfff2e50f5f656932ef12357cf3c7fdcc_U256),
    uint!(0xffe5caca7e10e4e61c3624eaa0941cd0_U256),
    uint!(0xffcb9843d60f6159c9db58835c926644_U256),
    uint!(0xff973b41fa98c081472e6896dfb254c0_U256),
    uint!(0xff2ea16466c96a3843ec78b326b52861_U256),
    uint!(0xfe5dee046a99a2a811c461f1969c3053_U256),
    uint!(0xfcbe86c7900a88aedcffc83b479aa3a4_U256),
    uint!(0xf987a7253ac413176f2b074cf7815e54_U256),
    uint!(0xf3392b0822b70005940c7a398e4b70f3_U256),
    uint!(0xe7159475a2c29b7443b29c7fa6e889d9_U256),
    uint!(0xd097f3bdfd2022b8845ad8f792aa5825_U256),
    uint!(0xa9f746462d870fdf8a65dc1f90e061e5_U256),
    uint!(0x70d869a156d2a1b890bb3df62baf32f7_U256),
    uint!(0x31be135f97d08fd981231505542fcfa6_U256),
    uint!(0x9aa508b5b7a84e1c677de54f3e99bc9_U256),
    uint!(0x5d6af8dedb81196699c329225ee604_U256),
    uint!(0x2216e584f5fa1ea926041bedfe98_U256),
    uint!(0x48a170391f7dc42444e8fa2_U256),
];

/// `TickMath.getSqrtRatioAtTick`: `sqrt(1.0001^tick) * 2^96`, rounded up.
pub fn sqrt_ratio_at_tick(tick: i32) -> Result<U256, AmmError> {
    if !(MIN_TICK..=MAX_TICK).contains(&tick) {
        return Err(AmmError::InvalidState);
    }
    let abs = tick.unsigned_abs();
    let mut ratio = if abs & 1 != 0 { MAGIC[0] } else { U256::from(1u8) << 128 };
    for (bit, magic) in MAGIC.iter().enumerate().skip(1) {
        if abs & (1 << bit) != 0 {
            ratio = (ratio * *magic) >> 128;
        }
    }
    if tick > 0 {
        ratio = U256::MAX / ratio;
    }
    let rem = ratio & U256::from(u32::MAX);
    Ok((ratio >> 32) + U256::from(u8::from(!rem.is_zero())))
}

/// `TickMath.getTickAtSqrtRatio`: the greatest tick whose ratio is at most
/// `sqrt_price` (found by bisection over `sqrt_ratio_at_tick`, which is the
/// definition the contract's log2 approximation implements).
pub fn tick_at_sqrt_ratio(sqrt_price: U256) -> Result<i32, AmmError> {
    if sqrt_price < MIN_SQRT_RATIO || sqrt_price >= MAX_SQRT_RATIO {
        return Err(AmmError::InvalidState);
    }
    // An f64 estimate lands within a tick or two; two exact evaluations
    // confirm it, and the bisection below is only the fallback.
    let q = crate::pool::u256_to_f64(sqrt_price) / 2f64.powi(96);
    let guess = ((2.0 * q.ln()) / 1.0001f64.ln()).floor() as i32;
    for t in [guess, guess - 1, guess + 1, guess - 2, guess + 2] {
        if (MIN_TICK..MAX_TICK).contains(&t)
            && sqrt_ratio_at_tick(t)? <= sqrt_price
            && sqrt_ratio_at_tick(t + 1)? > sqrt_price
        {
            return Ok(t);
        }
    }
    let (mut lo, mut hi) = (MIN_TICK, MAX_TICK);
    while lo < hi {
        let mid = lo + (hi - lo + 1) / 2;
        if sqrt_ratio_at_tick(mid)? <= sqrt_price {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    Ok(lo)
}

fn to_u160(x: U256) -> Result<U256, AmmError> {
    if x > U256::from(U160::MAX) { Err(AmmError::InvalidState) } else { Ok(x) }
}

fn next_sqrt_from_amount0_rounding_up(
    sqrt_p: U256,
    liquidity: u128,
    amount: U256,
    add: bool,
) -> Result<U256, AmmError> {
    if amount.is_zero() {
        return Ok(sqrt_p);
    }
    let numerator1: U256 = U256::from(liquidity) << 96;
    let product = amount.checked_mul(sqrt_p);
    if add {
        if let Some(product) = product
            && let Some(denominator) = numerator1.checked_add(product)
        {
            return mul_div_rounding_up(numerator1, sqrt_p, denominator)
                .ok_or(AmmError::InvalidState);
        }
        let d = (numerator1 / sqrt_p).checked_add(amount).ok_or(AmmError::InvalidState)?;
        div_rounding_up(numerator1, d).ok_or(AmmError::InvalidState)
    } else {
        let product = product.ok_or(AmmError::InsufficientLiquidity)?;
        if numerator1 <= product {
            return Err(AmmError::InsufficientLiquidity);
        }
        to_u160(
            mul_div_rounding_up(numerator1, sqrt_p, numerator1 - product)
                .ok_or(AmmError::InvalidState)?,
        )
    }
}

fn next_sqrt_from_amount1_rounding_down(
    sqrt_p: U256,
    liquidity: u128,
    amount: U256,
    add: bool,
) -> Result<U256, AmmError> {
    let l = U256::from(liquidity);
    let fits160 = amount <= U256::from(U160::MAX);
    if add {
        let quotient = if fits160 {
            (amount << 96) / l
        } else {
            mul_div(amount, Q96, l).ok_or(AmmError::InvalidState)?
        };
        to_u160(sqrt_p.checked_add(quotient).ok_or(AmmError::InvalidState)?)
    } else {
        let quotient = if fits160 {
            div_rounding_up(amount << 96, l).ok_or(AmmError::InvalidState)?
        } else {
            mul_div_rounding_up(amount, Q96, l).ok_or(AmmError::InvalidState)?
        };
        if sqrt_p <= quotient {
            return Err(AmmError::InsufficientLiquidity);
        }
        Ok(sqrt_p - quotient)
    }
}

/// `SqrtPriceMath.getAmount0Delta` (unsigned form).
pub fn amount0_delta(a: U256, b: U256, liquidity: u128, round_up: bool) -> Result<U256, AmmError> {
    let (lo, hi) = if a > b { (b, a) } else { (a, b) };
    if lo.is_zero() {
        return Err(AmmError::InvalidState);
    }
    let numerator1: U256 = U256::from(liquidity) << 96;
    let numerator2 = hi - lo;
    let r = if round_up {
        mul_div_rounding_up(numerator1, numerator2, hi).and_then(|x| div_rounding_up(x, lo))
    } else {
        mul_div(numerator1, numerator2, hi).map(|x| x / lo)
    };
    r.ok_or(AmmError::InvalidState)
}

/// `SqrtPriceMath.getAmount1Delta` (unsigned form).
pub fn amount1_delta(a: U256, b: U256, liquidity: u128, round_up: bool) -> Result<U256, AmmError> {
    let (lo, hi) = if a > b { (b, a) } else { (a, b) };
    let l = U256::from(liquidity);
    let r = if round_up { mul_div_rounding_up(l, hi - lo, Q96) } else { mul_div(l, hi - lo, Q96) };
    r.ok_or(AmmError::InvalidState)
}

/// `LiquidityAmounts.getLiquidityForAmounts`: the most liquidity that
/// `amounts` (token0, token1) can back over `[sqrt_a, sqrt_b]` at the price
/// `sqrt_p`, as the periphery computes it before `mint` (each side's
/// `mulDiv` rounds down; a result past `uint128` reverts there, and is an
/// error here).
pub fn liquidity_for_amounts(
    sqrt_p: U256,
    sqrt_a: U256,
    sqrt_b: U256,
    amounts: [U256; 2],
) -> Result<u128, AmmError> {
    let (a, b) = if sqrt_a > sqrt_b { (sqrt_b, sqrt_a) } else { (sqrt_a, sqrt_b) };
    if a == b {
        return Err(AmmError::InvalidState);
    }
    let for0 = |lo: U256, hi: U256| -> Result<u128, AmmError> {
        let intermediate = mul_div(lo, hi, Q96).ok_or(AmmError::InvalidState)?;
        let l = mul_div(amounts[0], intermediate, hi - lo).ok_or(AmmError::InvalidState)?;
        u128::try_from(l).map_err(|_| AmmError::InvalidState)
    };
    let for1 = |lo: U256, hi: U256| -> Result<u128, AmmError> {
        let l = mul_div(amounts[1], Q96, hi - lo).ok_or(AmmError::InvalidState)?;
        u128::try_from(l).map_err(|_| AmmError::InvalidState)
    };
    if sqrt_p <= a {
        for0(a, b)
    } else if sqrt_p < b {
        Ok(for0(sqrt_p, b)?.min(for1(a, sqrt_p)?))
    } else {
        for1(a, b)
    }
}

/// What the pool's `mint` takes for `liquidity` over `[lower, upper)`
/// (token0, token1), whose sqrt ratios are `a` and `b`, rounded up as
/// `_modifyPosition` rounds a positive delta; which side it takes is
/// decided by the current `tick`, as there.
pub fn mint_amounts(
    sqrt_p: U256,
    tick: i32,
    ticks: (i32, i32),
    ratios: (U256, U256),
    liquidity: u128,
) -> Result<[U256; 2], AmmError> {
    position_amounts(sqrt_p, tick, ticks, ratios, liquidity, true)
}

/// What the pool's `burn` of `liquidity` over `[lower, upper)` owes the
/// position (token0, token1): `_modifyPosition` with a negative delta,
/// each side rounded down.
pub fn burn_amounts(
    sqrt_p: U256,
    tick: i32,
    ticks: (i32, i32),
    ratios: (U256, U256),
    liquidity: u128,
) -> Result<[U256; 2], AmmError> {
    position_amounts(sqrt_p, tick, ticks, ratios, liquidity, false)
}

fn position_amounts(
    sqrt_p: U256,
    tick: i32,
    (lower, upper): (i32, i32),
    (a, b): (U256, U256),
    liquidity: u128,
    up: bool,
) -> Result<[U256; 2], AmmError> {
    Ok(if tick < lower {
        [amount0_delta(a, b, liquidity, up)?, U256::ZERO]
    } else if tick < upper {
        [amount0_delta(sqrt_p, b, liquidity, up)?, amount1_delta(a, sqrt_p, liquidity, up)?]
    } else {
        [U256::ZERO, amount1_delta(a, b, liquidity, up)?]
    })
}

/// `Tick.tickSpacingToMaxLiquidityPerTick`: the most gross liquidity one
/// tick of a pool with this spacing may reference.
pub fn max_liquidity_per_tick(spacing: i32) -> u128 {
    if spacing <= 0 {
        return 0;
    }
    let min = (MIN_TICK / spacing) * spacing;
    let max = (MAX_TICK / spacing) * spacing;
    let ticks = u128::try_from((max - min) / spacing + 1).unwrap_or(u128::MAX);
    u128::MAX / ticks.max(1)
}

/// The fee `flash` charges on a loan of `amount` from a pool of fee `fee`
/// (hundredths of a bip): `FullMath.mulDivRoundingUp(amount, fee, 1e6)`.
pub fn flash_fee(amount: U256, fee: u32) -> Result<U256, AmmError> {
    mul_div_rounding_up(amount, U256::from(fee), U256::from(1_000_000u32))
        .ok_or(AmmError::InvalidState)
}

/// One step of `SwapMath.computeSwapStep` for an exact input.
/// Returns `(sqrt_next, amount_in, amount_out, fee_amount)`.
pub fn compute_swap_step_exact_in(
    sqrt_current: U256,
    sqrt_target: U256,
    liquidity: u128,
    amount_remaining: U256,
    fee_pips: u32,
) -> Result<(U256, U256, U256, U256), AmmError> {
    let zero_for_one = sqrt_current >= sqrt_target;
    let fee = U256::from(fee_pips);
    let million = U256::from(1_000_000u32);
    let remaining_less_fee =
        mul_div(amount_remaining, million - fee, million).ok_or(AmmError::InvalidState)?;
    let amount_in_to_target = if zero_for_one {
        amount0_delta(sqrt_target, sqrt_current, liquidity, true)?
    } else {
        amount1_delta(sqrt_current, sqrt_target, liquidity, true)?
    };
    let sqrt_next = if remaining_less_fee >= amount_in_to_target {
        sqrt_target
    } else if zero_for_one {
        next_sqrt_from_amount0_rounding_up(sqrt_current, liquidity, remaining_less_fee, true)?
    } else {
        next_sqrt_from_amount1_rounding_down(sqrt_current, liquidity, remaining_less_fee, true)?
    };
    let max = sqrt_next == sqrt_target;
    let (amount_in, amount_out) = if zero_for_one {
        (
            if max {
                amount_in_to_target
            } else {
                amount0_delta(sqrt_next, sqrt_current, liquidity, true)?
            },
            amount1_delta(sqrt_next, sqrt_current, liquidity, false)?,
        )
    } else {
        (
            if max {
                amount_in_to_target
            } else {
                amount1_delta(sqrt_current, sqrt_next, liquidity, true)?
            },
            amount0_delta(sqrt_current, sqrt_next, liquidity, false)?,
        )
    };
    let fee_amount = if !max {
        amount_remaining.checked_sub(amount_in).ok_or(AmmError::InvalidState)?
    } else {
        mul_div_rounding_up(amount_in, fee, million - fee).ok_or(AmmError::InvalidState)?
    };
    Ok((sqrt_next, amount_in, amount_out, fee_amount))
}

/// One step of `SwapMath.computeSwapStep` for an exact output
/// (`amount_remaining` is the output still wanted).
/// Returns `(sqrt_next, amount_in, amount_out, fee_amount)`.
pub fn compute_swap_step_exact_out(
    sqrt_current: U256,
    sqrt_target: U256,
    liquidity: u128,
    amount_remaining: U256,
    fee_pips: u32,
) -> Result<(U256, U256, U256, U256), AmmError> {
    let zero_for_one = sqrt_current >= sqrt_target;
    let fee = U256::from(fee_pips);
    let million = U256::from(1_000_000u32);
    let amount_out_to_target = if zero_for_one {
        amount1_delta(sqrt_target, sqrt_current, liquidity, false)?
    } else {
        amount0_delta(sqrt_current, sqrt_target, liquidity, false)?
    };
    let sqrt_next = if amount_remaining >= amount_out_to_target {
        sqrt_target
    } else if zero_for_one {
        // `getNextSqrtPriceFromOutput`: token1 leaves.
        next_sqrt_from_amount1_rounding_down(sqrt_current, liquidity, amount_remaining, false)?
    } else {
        next_sqrt_from_amount0_rounding_up(sqrt_current, liquidity, amount_remaining, false)?
    };
    let max = sqrt_next == sqrt_target;
    let (amount_in, amount_out) = if zero_for_one {
        (
            amount0_delta(sqrt_next, sqrt_current, liquidity, true)?,
            if max {
                amount_out_to_target
            } else {
                amount1_delta(sqrt_next, sqrt_current, liquidity, false)?
            },
        )
    } else {
        (
            amount1_delta(sqrt_current, sqrt_next, liquidity, true)?,
            if max {
                amount_out_to_target
            } else {
                amount0_delta(sqrt_current, sqrt_next, liquidity, false)?
            },
        )
    };
    // The output is capped at what is still wanted.
    let amount_out = amount_out.min(amount_remaining);
    let fee_amount =
        mul_div_rounding_up(amount_in, fee, million - fee).ok_or(AmmError::InvalidState)?;
    Ok((sqrt_next, amount_in, amount_out, fee_amount))
}

/// The mutable part of a V3 pool.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct V3Slot {
    /// Q64.96 sqrt price.
    pub sqrt_price_x96: U256,
    /// Current tick.
    pub tick: i32,
    /// Active liquidity.
    pub liquidity: u128,
}

/// Result of a swap.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct V3Swap {
    /// Input amount, fee included.
    pub amount_in: U256,
    /// Output amount.
    pub amount_out: U256,
    /// Pool slot after the swap.
    pub slot: V3Slot,
    /// Initialized ticks crossed (for gas).
    pub ticks_crossed: u32,
}

fn compress(tick: i32, spacing: i32) -> i32 {
    tick.div_euclid(spacing)
}

/// The next tick the swap loop stops at, and whether it is initialized, as
/// `nextInitializedTickWithinOneWord` over a sorted list of initialized ticks.
fn next_tick(ticks: &[(i32, i128)], tick: i32, spacing: i32, lte: bool) -> (i32, bool) {
    let compressed = compress(tick, spacing);
    if lte {
        let word_start = (compressed >> 8) << 8;
        // Largest initialized compressed tick in [word_start, compressed].
        let idx = ticks.partition_point(|(t, _)| compress(*t, spacing) <= compressed);
        match idx.checked_sub(1).map(|i| ticks[i].0) {
            Some(t) if compress(t, spacing) >= word_start => (t, true),
            _ => (word_start * spacing, false),
        }
    } else {
        let c0 = compressed + 1;
        let word_end = ((c0 >> 8) << 8) + 255;
        let idx = ticks.partition_point(|(t, _)| compress(*t, spacing) < c0);
        match ticks.get(idx).map(|(t, _)| *t) {
            Some(t) if compress(t, spacing) <= word_end => (t, true),
            _ => (word_end * spacing, false),
        }
    }
}

/// Exact-input swap through the pool (`zero_for_one`: token0 in). Fails with
/// `InsufficientLiquidity` when the price limit is reached before the input
/// is used up.
pub fn swap_exact_in(
    slot: V3Slot,
    ticks: &[(i32, i128)],
    spacing: i32,
    fee_pips: u32,
    zero_for_one: bool,
    amount_in: U256,
) -> Result<V3Swap, AmmError> {
    swap(slot, ticks, spacing, fee_pips, zero_for_one, true, amount_in)
}

/// Exact-output swap through the pool (`zero_for_one`: token0 in), as the
/// pool runs `swap` with a negative `amountSpecified`: the input it takes
/// for exactly `amount_out`. Fails with `InsufficientLiquidity` when the
/// price limit is reached first (the periphery then reverts, since it
/// requires the whole output).
pub fn swap_exact_out(
    slot: V3Slot,
    ticks: &[(i32, i128)],
    spacing: i32,
    fee_pips: u32,
    zero_for_one: bool,
    amount_out: U256,
) -> Result<V3Swap, AmmError> {
    swap(slot, ticks, spacing, fee_pips, zero_for_one, false, amount_out)
}

/// The pool's swap loop for `amount` in (`exact_in`) or out.
fn swap(
    slot: V3Slot,
    ticks: &[(i32, i128)],
    spacing: i32,
    fee_pips: u32,
    zero_for_one: bool,
    exact_in: bool,
    amount: U256,
) -> Result<V3Swap, AmmError> {
    if spacing <= 0 || fee_pips >= 1_000_000 {
        return Err(AmmError::InvalidState);
    }
    // `amountSpecified` is an `int256` (negated for an output): past its
    // range the call means something else, so such an amount cannot be
    // swapped.
    if amount.bit(255) {
        return Err(AmmError::InsufficientLiquidity);
    }
    let limit = if zero_for_one {
        MIN_SQRT_RATIO + U256::from(1u8)
    } else {
        MAX_SQRT_RATIO - U256::from(1u8)
    };
    if zero_for_one && slot.sqrt_price_x96 <= limit || !zero_for_one && slot.sqrt_price_x96 >= limit
    {
        return Err(AmmError::InsufficientLiquidity);
    }
    let mut s = slot;
    let mut remaining = amount;
    let (mut paid, mut out) = (U256::ZERO, U256::ZERO);
    let mut crossed = 0;
    // Bounded: each iteration ends the swap, reaches the next bitmap word or
    // crosses an initialized tick, so a walk over the whole range takes at
    // most one step per word plus one per initialized tick.
    let max_steps = 2 * (MAX_TICK as usize) / (spacing as usize * 256) + ticks.len() + 8;
    for _ in 0..max_steps {
        if remaining.is_zero() || s.sqrt_price_x96 == limit {
            break;
        }
        // With no liquidity and no initialized tick left in the direction of
        // the swap, nothing can ever fill the rest: the pool would stop at
        // the price limit with input left over. Say so now instead of
        // walking every remaining bitmap word to the limit.
        if s.liquidity == 0 {
            let any_ahead = if zero_for_one {
                ticks.first().is_some_and(|(t, _)| *t <= s.tick)
            } else {
                ticks.last().is_some_and(|(t, _)| *t > s.tick)
            };
            if !any_ahead {
                return Err(AmmError::InsufficientLiquidity);
            }
        }
        let (mut tick_next, initialized) = next_tick(ticks, s.tick, spacing, zero_for_one);
        tick_next = tick_next.clamp(MIN_TICK, MAX_TICK);
        let sqrt_next_tick = sqrt_ratio_at_tick(tick_next)?;
        let target =
            if zero_for_one { sqrt_next_tick.max(limit) } else { sqrt_next_tick.min(limit) };
        let start = s.sqrt_price_x96;
        let step = if exact_in { compute_swap_step_exact_in } else { compute_swap_step_exact_out };
        let (sqrt_after, step_in, step_out, fee) =
            step(start, target, s.liquidity, remaining, fee_pips)?;
        s.sqrt_price_x96 = sqrt_after;
        let step_paid = step_in.checked_add(fee).ok_or(AmmError::InvalidState)?;
        let used = if exact_in { step_paid } else { step_out };
        remaining = remaining.checked_sub(used).ok_or(AmmError::InvalidState)?;
        paid = paid.checked_add(step_paid).ok_or(AmmError::InvalidState)?;
        out = out.checked_add(step_out).ok_or(AmmError::InvalidState)?;
        if sqrt_after == sqrt_next_tick {
            if initialized {
                let net = ticks
                    .binary_search_by_key(&tick_next, |(t, _)| *t)
                    .map(|i| ticks[i].1)
                    .map_err(|_| AmmError::InvalidState)?;
                let net = if zero_for_one {
                    net.checked_neg().ok_or(AmmError::InvalidState)?
                } else {
                    net
                };
                s.liquidity = if net < 0 {
                    s.liquidity.checked_sub(net.unsigned_abs()).ok_or(AmmError::InvalidState)?
                } else {
                    s.liquidity.checked_add(net as u128).ok_or(AmmError::InvalidState)?
                };
                crossed += 1;
            }
            s.tick = if zero_for_one { tick_next - 1 } else { tick_next };
        } else if sqrt_after != start {
            s.tick = tick_at_sqrt_ratio(sqrt_after)?;
        }
    }
    if !remaining.is_zero() {
        return Err(AmmError::InsufficientLiquidity);
    }
    Ok(V3Swap { amount_in: paid, amount_out: out, slot: s, ticks_crossed: crossed })
}

/// A V3 pool's state as its own events move it, liquidity gross included
/// (a tick is initialized while positions reference it, whatever its net):
/// what a follower of the chain books, event by event, to hand the kernel
/// the pool's [`PoolState`](crate::PoolState).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ledger {
    /// Fee in hundredths of a bip.
    pub fee: u32,
    /// Tick spacing.
    pub tick_spacing: i32,
    /// Q64.96 sqrt price (0 until `Initialize`).
    pub sqrt_price_x96: U256,
    /// Current tick.
    pub tick: i32,
    /// Active liquidity.
    pub liquidity: u128,
    /// Initialized ticks: `(liquidityGross, liquidityNet)`.
    pub ticks: std::collections::BTreeMap<i32, (u128, i128)>,
}

impl Ledger {
    /// A pool created and not initialized yet.
    pub const fn new(fee: u32, tick_spacing: i32) -> Self {
        Self {
            fee,
            tick_spacing,
            sqrt_price_x96: U256::ZERO,
            tick: 0,
            liquidity: 0,
            ticks: std::collections::BTreeMap::new(),
        }
    }

    /// `Initialize(sqrtPriceX96, tick)`.
    pub fn initialize(&mut self, sqrt_price_x96: U256, tick: i32) {
        self.sqrt_price_x96 = sqrt_price_x96;
        self.tick = tick;
    }

    /// `Swap(…, sqrtPriceX96, liquidity, tick)`: where the swap left the
    /// price, the active liquidity and the tick.
    pub fn swap(&mut self, sqrt_price_x96: U256, liquidity: u128, tick: i32) {
        self.sqrt_price_x96 = sqrt_price_x96;
        self.liquidity = liquidity;
        self.tick = tick;
    }

    /// `Mint` (`add`) or `Burn` of `amount` over `[lower, upper)`, booked as
    /// the pool's `_modifyPosition` books it: both ticks' gross and net, a
    /// tick left with no gross uninitialized, and the active liquidity when
    /// the current tick is inside (inclusive below, exclusive above).
    pub fn modify_position(&mut self, lower: i32, upper: i32, amount: u128, add: bool) {
        if amount == 0 {
            return;
        }
        let signed = i128::try_from(amount).unwrap_or(i128::MAX);
        let ticks = &mut self.ticks;
        let mut book = |tick: i32, net: i128| {
            let e = ticks.entry(tick).or_insert((0, 0));
            e.0 = if add { e.0.saturating_add(amount) } else { e.0.saturating_sub(amount) };
            e.1 = if add { e.1.saturating_add(net) } else { e.1.saturating_sub(net) };
            if e.0 == 0 {
                ticks.remove(&tick);
            }
        };
        book(lower, signed);
        book(upper, -signed);
        if lower <= self.tick && self.tick < upper {
            self.liquidity = if add {
                self.liquidity.saturating_add(amount)
            } else {
                self.liquidity.saturating_sub(amount)
            };
        }
    }

    /// Whether it can be routed through: a price and an initialized tick.
    pub fn routable(&self) -> bool {
        !self.sqrt_price_x96.is_zero() && self.ticks.values().any(|(g, _)| *g > 0)
    }

    /// The pool's state for the kernel.
    pub fn state(&self) -> crate::PoolState {
        let ticks: crate::TickList =
            self.ticks.iter().map(|(i, (_, net))| (*i, *net)).collect::<Vec<_>>().into();
        crate::PoolState::UniswapV3(Box::new(crate::pool::V3State {
            sqrt_price_x96: self.sqrt_price_x96,
            liquidity: self.liquidity,
            tick: self.tick,
            fee: self.fee,
            tick_spacing: self.tick_spacing,
            range: crate::RangeHint::of(self.tick, &ticks),
            ticks,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_flash_fee_is_rounded_up() {
        let fee =
            |amount: u64, tier: u32| flash_fee(U256::from(amount), tier).map(|f| f.to::<u64>());
        assert_eq!(fee(1_000_000_000, 500), Ok(500_000));
        assert_eq!(fee(1_000_000_001, 500), Ok(500_001));
        assert_eq!(fee(1, 100), Ok(1), "a one-unit loan still pays a unit");
        assert_eq!(fee(0, 3000), Ok(0));
        assert_eq!(fee(999_999, 10_000), Ok(10_000));
        // FullMath's 512-bit product: no phantom overflow.
        assert_eq!(flash_fee(U256::MAX, 1_000_000), Ok(U256::MAX));
    }

    #[test]
    fn a_burned_position_is_owed_its_amounts_rounded_down_and_unbooks_its_ticks() {
        use crate::pool::{PoolState, test_v3_pool};
        let pool = test_v3_pool(
            vec![(-600, 2_000_000_000_000_000_000_000i128), (600, -2_000_000_000_000_000_000_000)],
            2_000_000_000_000_000_000_000,
            0,
        );
        let e18 = U256::from(10u128.pow(18));
        let m = pool.v3_mint(&pool.state, (-120, 60), [e18, e18]).expect("in range");
        // Burning it all back at the same price: each side owed at most
        // what was taken, at most a wei less (rounded down, not up).
        let all = pool.v3_burn(&m.next, (-120, 60), m.liquidity).expect("burn");
        for c in 0..2 {
            assert!(all.owed[c] <= m.taken[c] && m.taken[c] - all.owed[c] <= U256::from(1u8));
        }
        let PoolState::UniswapV3(after) = &all.next else { panic!("a V3 state") };
        assert_eq!(after.liquidity, 2_000_000_000_000_000_000_000);
        let nets: Vec<i128> = after.ticks.to_vec().iter().map(|t| t.1).collect();
        assert_eq!(nets, vec![2_000_000_000_000_000_000_000, 0, 0, -2_000_000_000_000_000_000_000]);
        // Half of it: the amounts SqrtPriceMath gives, rounded down.
        let half = m.liquidity / 2;
        let b = pool.v3_burn(&m.next, (-120, 60), half).expect("half");
        let (lo, hi) =
            (sqrt_ratio_at_tick(-120).expect("tick"), sqrt_ratio_at_tick(60).expect("tick"));
        assert_eq!(b.owed[0], amount0_delta(Q96, hi, half, false).expect("a0"));
        assert_eq!(b.owed[1], amount1_delta(lo, Q96, half, false).expect("a1"));
        // Out of range above the price: token0 only.
        let up = pool.v3_mint(&pool.state, (120, 600), [e18, e18]).expect("above");
        let out = pool.v3_burn(&up.next, (120, 600), up.liquidity).expect("burn above");
        assert!(out.owed[0] > U256::ZERO && out.owed[1].is_zero());
        // Refused: no liquidity, reversed ticks, more than is active.
        assert_eq!(
            pool.v3_burn(&m.next, (-120, 60), 0),
            Err(crate::amm::PositionError::NoLiquidity)
        );
        assert!(matches!(
            pool.v3_burn(&m.next, (60, -120), 1),
            Err(crate::amm::PositionError::Ticks { .. })
        ));
        assert!(pool.v3_burn(&pool.state, (-120, 60), u128::MAX / 2).is_err());
    }

    #[test]
    fn a_minted_position_takes_what_its_liquidity_needs_and_books_its_ticks() {
        use crate::pool::{PoolState, test_v3_pool};
        // 2e21 active between -600 and 600, the price at tick 0.
        let pool = test_v3_pool(
            vec![(-600, 2_000_000_000_000_000_000_000i128), (600, -2_000_000_000_000_000_000_000)],
            2_000_000_000_000_000_000_000,
            0,
        );
        let e18 = U256::from(10u128.pow(18));
        let desired = [e18, e18 * U256::from(3u8)];
        // Around the price: both coins are taken, neither past what was
        // offered.
        let m = pool.v3_mint(&pool.state, (-120, 60), desired).expect("in range");
        assert!(m.liquidity > 0);
        assert!(m.taken[0] <= desired[0] && m.taken[1] <= desired[1], "{:?}", m.taken);
        // Rounded up: one wei under the taken amount backs less liquidity.
        let a = sqrt_ratio_at_tick(-120).expect("tick");
        let b = sqrt_ratio_at_tick(60).expect("tick");
        let less = liquidity_for_amounts(Q96, a, b, [m.taken[0] - U256::from(1u8), desired[1]]);
        assert!(less.expect("liquidity") <= m.liquidity);
        let PoolState::UniswapV3(next) = &m.next else { panic!("a V3 state") };
        assert_eq!(next.liquidity, 2_000_000_000_000_000_000_000 + m.liquidity);
        let net = i128::try_from(m.liquidity).expect("fits");
        assert_eq!(
            next.ticks.to_vec(),
            vec![
                (-600, 2_000_000_000_000_000_000_000),
                (-120, net),
                (60, -net),
                (600, -2_000_000_000_000_000_000_000),
            ]
        );
        // Above the price: token0 only; below it: token1 only, and the
        // active liquidity is unchanged.
        let up = pool.v3_mint(&pool.state, (120, 600), desired).expect("above");
        assert!(up.taken[0] > U256::ZERO && up.taken[1].is_zero(), "{:?}", up.taken);
        let down = pool.v3_mint(&pool.state, (-600, -60), desired).expect("below");
        assert!(down.taken[0].is_zero() && down.taken[1] > U256::ZERO, "{:?}", down.taken);
        let PoolState::UniswapV3(d) = &down.next else { panic!("a V3 state") };
        assert_eq!(d.liquidity, 2_000_000_000_000_000_000_000);
        assert_eq!(
            d.ticks[0],
            (-600, 2_000_000_000_000_000_000_000 + i128::try_from(down.liquidity).expect("fits"))
        );
        // Refused: ticks off the spacing, reversed, out of range; nothing
        // of the limiting coin.
        for t in [(-100, 60), (60, -120), (MIN_TICK - 1, 60)] {
            assert!(matches!(
                pool.v3_mint(&pool.state, t, desired),
                Err(crate::amm::PositionError::Ticks { spacing: 60 })
            ));
        }
        assert_eq!(
            pool.v3_mint(&pool.state, (120, 600), [U256::ZERO, desired[1]]),
            Err(crate::amm::PositionError::NoLiquidity)
        );
    }

    #[test]
    fn tick_math_golden_values() {
        assert_eq!(sqrt_ratio_at_tick(0), Ok(Q96));
        assert_eq!(sqrt_ratio_at_tick(1), Ok(uint!(79232123823359799118286999568_U256)));
        assert_eq!(sqrt_ratio_at_tick(-1), Ok(uint!(79224201403219477170569942574_U256)));
        assert_eq!(sqrt_ratio_at_tick(MIN_TICK), Ok(MIN_SQRT_RATIO));
        assert_eq!(sqrt_ratio_at_tick(MAX_TICK), Ok(MAX_SQRT_RATIO));
        assert!(sqrt_ratio_at_tick(MAX_TICK + 1).is_err());
        for t in [MIN_TICK, -200_000, -1, 0, 1, 12_345, 200_000, MAX_TICK - 1] {
            assert_eq!(tick_at_sqrt_ratio(sqrt_ratio_at_tick(t).unwrap_or_default()), Ok(t));
            let r = sqrt_ratio_at_tick(t).unwrap_or_default();
            assert_eq!(tick_at_sqrt_ratio(r + U256::from(1u8)), Ok(t));
        }
    }

    #[test]
    fn swap_step_golden_from_the_v3_tests() {
        // SwapMath.spec.ts: "exact amount in that gets capped at price target
        // in one for zero": price 1 → target sqrt(101/100), liquidity 2e18,
        // amount 1e18, fee 600.
        let price = Q96;
        let target = uint!(79623317895830914510639640423_U256); // encodePriceSqrt(101, 100)
        let (next, amount_in, amount_out, fee) = compute_swap_step_exact_in(
            price,
            target,
            2_000_000_000_000_000_000,
            uint!(1000000000000000000_U256),
            600,
        )
        .unwrap_or_default();
        assert_eq!(amount_in, uint!(9975124224178055_U256));
        assert_eq!(fee, uint!(5988667735148_U256));
        assert_eq!(amount_out, uint!(9925619580021728_U256));
        assert_eq!(next, target);
    }

    /// A swap from near the top of the range to near the bottom at spacing
    /// 10 stops at ~693 word boundaries and crosses 35 initialized ticks:
    /// more steps than there are words. Golden values from the `@uniswap/v3-core` pool
    /// in revm (`exec/tests/differential.rs`,
    /// `uniswap_v3_swap_across_the_whole_tick_range`).
    #[test]
    fn a_swap_across_the_whole_range_is_not_cut_short() {
        let mut ticks: Vec<(i32, i128)> = Vec::new();
        for k in -6..=6 {
            ticks.extend([(120_000 * k, 1_000_000), (120_000 * k + 10, -1_000_000)]);
        }
        for k in 0..6 {
            let lower = -886_000 + 100 * k;
            ticks.extend([(lower, 1_000_000), (lower + 1000 + 10 * k, -1_000_000)]);
        }
        ticks.sort_unstable();
        let slot = V3Slot {
            sqrt_price_x96: uint!(1441706552580435738372324372445843561633831752204_U256),
            tick: 887_000,
            liquidity: 0,
        };
        let s = swap_exact_in(slot, &ticks, 10, 500, true, uint!(4613286479500496125034496_U256));
        assert_eq!(s.map(|s| s.amount_out), Ok(uint!(2157519364619087358_U256)));
        let end = s.map(|s| s.slot).unwrap_or(slot);
        assert_eq!(end.sqrt_price_x96, uint!(4646130526_U256));
        assert_eq!((end.tick, end.liquidity), (-885_701, 3_000_000));
        assert_eq!(s.map(|s| s.ticks_crossed), Ok(35));
    }

    #[test]
    fn word_boundaries_are_found() {
        let ticks = [(-600, 10i128), (600, -10i128)];
        assert_eq!(next_tick(&ticks, 0, 60, true), (0, false)); // word start of compressed 0
        assert_eq!(next_tick(&ticks, -1, 60, true), (-600, true));
        assert_eq!(next_tick(&ticks, 0, 60, false), (600, true));
        assert_eq!(next_tick(&ticks, 600, 60, false), (255 * 60, false));
    }

    #[test]
    fn positions_book_ticks_like_the_pool() {
        let mut v = Ledger::new(3000, 60);
        v.initialize(Q96, 0);
        v.modify_position(-60, 60, 100, true);
        v.modify_position(60, 120, 40, true);
        assert_eq!(v.liquidity, 100);
        assert_eq!(v.ticks.get(&60), Some(&(140, -60)));
        // The current tick is inclusive below, exclusive above.
        v.modify_position(0, 60, 5, true);
        assert_eq!(v.liquidity, 105);
        v.modify_position(-120, 0, 7, true);
        assert_eq!(v.liquidity, 105);
        v.modify_position(60, 120, 40, false);
        assert_eq!(v.ticks.get(&120), None, "an emptied tick is uninitialized");
        assert_eq!(v.ticks.get(&60), Some(&(105, -105)));
        assert!(v.routable());
        let crate::PoolState::UniswapV3(state) = v.state() else { panic!() };
        assert_eq!(state.liquidity, 105);
        assert_eq!(state.ticks.first().copied(), Some((-120, 7)));
    }
}
