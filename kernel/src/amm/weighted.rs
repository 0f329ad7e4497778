//! Balancer V2 weighted pools, integer for integer: the 18-decimal
//! `FixedPoint` and `LogExpMath` of `@balancer-labs/v2-solidity-utils`, and
//! an exact-in swap as `BaseMinimalSwapInfoPool.onSwap` with
//! `WeightedMath._calcOutGivenIn` computes it.
//!
//! The swap, in the contract's order:
//!
//! 1. both balances are upscaled to 18 decimals (`_upscale`: `mulDown` by
//!    the scaling factor `10^(18 - decimals) * 1e18`, which is exact);
//! 2. the fee comes off the raw amount, rounding the fee up
//!    (`amount - amount.mulUp(swapFee)`), and the rest is upscaled;
//! 3. `_calcOutGivenIn`: `amountIn <= balanceIn.mulDown(0.3e18)`
//!    (`MAX_IN_RATIO`), `base = balanceIn.divUp(balanceIn + amountIn)`,
//!    `exponent = weightIn.divDown(weightOut)`,
//!    `out = balanceOut.mulDown(base.powUp(exponent).complement())`;
//! 4. the output is downscaled rounding down (`divDown` by the factor).
//!
//! `powUp` comes in two generations. [`pow_up`] is the current one
//! (solidity-utils 4.0.0): exponents of exactly 1, 2 and 4 (50/50 and 80/20
//! pools) are computed by `mulUp` squaring, anything else as
//! `LogExpMath.pow` plus a relative error bound of 1e-14 and one wei.
//! [`pow_up_v1`] is the `FixedPoint` the first 2021 deployments (the
//! original `WeightedPool` and `WeightedPool2Tokens` factories, what
//! Balancer's own SDK calls pool version 1) were compiled with: always the
//! `LogExpMath` path. The two differ by about 1e-14 relative on 50/50 and
//! 80/20 pools, so a pool's deployment decides which one is exact.
//!
//! Reverts map to [`AmmError`]: `MAX_IN_RATIO` to `InsufficientLiquidity`
//! (the pool is fine, the trade too large); every other revert (overflow,
//! division by zero, `LogExpMath`'s bounds) to `InvalidState`.
//!
//! `LogExpMath` is signed 256-bit arithmetic in Solidity 0.7, unchecked. On
//! every input its own bounds admit (`x < 2^255`,
//! `y < 2^254 / 1e20`, exponents in `[-41, 130]`) no intermediate
//! overflows, so checked [`I256`] operations give the same integers; they
//! only turn into `InvalidState` what would otherwise be a silent wrap. Its
//! divisions truncate toward zero, as [`I256`]'s do.

use alloy_primitives::{I256, U256, uint};

use super::AmmError;

type Result<T> = std::result::Result<T, AmmError>;

const INVALID: AmmError = AmmError::InvalidState;

/// 1.0 in 18-decimal fixed point.
pub const ONE: U256 = uint!(1_000_000_000_000_000_000_U256);
const TWO: U256 = uint!(2_000_000_000_000_000_000_U256);
const FOUR: U256 = uint!(4_000_000_000_000_000_000_U256);

/// `FixedPoint.MAX_POW_RELATIVE_ERROR`: 1e-14 in 18-decimal fixed point.
pub const MAX_POW_RELATIVE_ERROR: U256 = uint!(10_000_U256);

/// `WeightedMath._MAX_IN_RATIO`: a swap may bring in at most 30% of the
/// pool's balance of the input token.
pub const MAX_IN_RATIO: U256 = uint!(300_000_000_000_000_000_U256);

// ---------------------------------------------------------------------------
// FixedPoint
// ---------------------------------------------------------------------------

/// `FixedPoint.mulDown`: `a * b / 1e18`, reverting on overflow.
pub fn mul_down(a: U256, b: U256) -> Result<U256> {
    Ok(a.checked_mul(b).ok_or(INVALID)? / ONE)
}

/// `FixedPoint.mulUp`: `a * b / 1e18` rounded up, reverting on overflow.
pub fn mul_up(a: U256, b: U256) -> Result<U256> {
    let product = a.checked_mul(b).ok_or(INVALID)?;
    Ok(if product.is_zero() {
        U256::ZERO
    } else {
        (product - U256::from(1u8)) / ONE + U256::from(1u8)
    })
}

/// `FixedPoint.divDown`: `a * 1e18 / b`, reverting when `b` is zero or
/// `a * 1e18` overflows.
pub fn div_down(a: U256, b: U256) -> Result<U256> {
    if b.is_zero() {
        return Err(INVALID);
    }
    Ok(a.checked_mul(ONE).ok_or(INVALID)? / b)
}

/// `FixedPoint.divUp`: `a * 1e18 / b` rounded up, reverting when `b` is zero
/// or `a * 1e18` overflows.
pub fn div_up(a: U256, b: U256) -> Result<U256> {
    if b.is_zero() {
        return Err(INVALID);
    }
    let inflated = a.checked_mul(ONE).ok_or(INVALID)?;
    Ok(if inflated.is_zero() {
        U256::ZERO
    } else {
        (inflated - U256::from(1u8)) / b + U256::from(1u8)
    })
}

/// `FixedPoint.complement`: `1 - x`, or zero when `x >= 1`.
pub fn complement(x: U256) -> U256 {
    if x < ONE { ONE - x } else { U256::ZERO }
}

/// `LogExpMath.pow(x, y)` and its error bound, `raw.mulUp(1e-14) + 1`,
/// which `powUp` adds and `powDown` takes off.
fn pow_and_error(x: U256, y: U256) -> Result<(U256, U256)> {
    let raw = pow(x, y)?;
    let max_error =
        mul_up(raw, MAX_POW_RELATIVE_ERROR)?.checked_add(U256::from(1u8)).ok_or(INVALID)?;
    Ok((raw, max_error))
}

/// `LogExpMath.pow(x, y)` widened by its error bound, rounding up.
fn pow_up_general(x: U256, y: U256) -> Result<U256> {
    let (raw, max_error) = pow_and_error(x, y)?;
    raw.checked_add(max_error).ok_or(INVALID)
}

/// `FixedPoint.powUp` of solidity-utils 4.0.0: `x^y` rounded up, with the
/// exact shortcuts for `y` of 1, 2 and 4.
pub fn pow_up(x: U256, y: U256) -> Result<U256> {
    if y == ONE {
        Ok(x)
    } else if y == TWO {
        mul_up(x, x)
    } else if y == FOUR {
        let square = mul_up(x, x)?;
        mul_up(square, square)
    } else {
        pow_up_general(x, y)
    }
}

/// `FixedPoint.powUp` of the first (2021) V2 deployments: always through
/// `LogExpMath`, even for `y` of 1, 2 and 4.
pub fn pow_up_v1(x: U256, y: U256) -> Result<U256> {
    pow_up_general(x, y)
}

/// `LogExpMath.pow(x, y)` narrowed by its error bound, rounding down, or
/// zero when the bound is larger.
fn pow_down_general(x: U256, y: U256) -> Result<U256> {
    let (raw, max_error) = pow_and_error(x, y)?;
    Ok(raw.saturating_sub(max_error))
}

/// `FixedPoint.powDown` of solidity-utils 4.0.0: `x^y` rounded down, with
/// the exact shortcuts for `y` of 1, 2 and 4.
pub fn pow_down(x: U256, y: U256) -> Result<U256> {
    if y == ONE {
        Ok(x)
    } else if y == TWO {
        mul_down(x, x)
    } else if y == FOUR {
        let square = mul_down(x, x)?;
        mul_down(square, square)
    } else {
        pow_down_general(x, y)
    }
}

/// `FixedPoint.powDown` of the first (2021) V2 deployments: always through
/// `LogExpMath`.
pub fn pow_down_v1(x: U256, y: U256) -> Result<U256> {
    pow_down_general(x, y)
}

// ---------------------------------------------------------------------------
// LogExpMath
// ---------------------------------------------------------------------------

const fn s(x: U256) -> I256 {
    I256::from_raw(x)
}

const ONE_18: I256 = s(uint!(1_000_000_000_000_000_000_U256));
const ONE_20: I256 = s(uint!(100_000_000_000_000_000_000_U256));
const ONE_36: I256 = s(uint!(1_000_000_000_000_000_000_000_000_000_000_000_000_U256));
const HUNDRED: I256 = s(uint!(100_U256));

/// Largest argument of [`exp`]: 130.0.
const MAX_NATURAL_EXPONENT: I256 = s(uint!(130_000_000_000_000_000_000_U256));
/// Magnitude of the smallest argument of [`exp`]: -41.0.
const MIN_NATURAL_EXPONENT_ABS: I256 = s(uint!(41_000_000_000_000_000_000_U256));

/// `ln` uses the 36-decimal series strictly between 0.9 and 1.1.
const LN_36_LOWER_BOUND: I256 = s(uint!(900_000_000_000_000_000_U256));
const LN_36_UPPER_BOUND: I256 = s(uint!(1_100_000_000_000_000_000_U256));

/// `2^254 / 1e20`: exponents of [`pow`] stay below it, so `y * ln(x)` fits.
const MILD_EXPONENT_BOUND: U256 =
    uint!(289_480_223_093_290_488_558_927_462_521_719_769_633_174_961_664_101_410_098_U256);

/// `x0 = 2^7` (18 decimals) and `a0 = e^x0` (no decimals).
const X0: I256 = s(uint!(128_000_000_000_000_000_000_U256));
const A0: I256 =
    s(uint!(38_877_084_059_945_950_922_200_000_000_000_000_000_000_000_000_000_000_000_U256));
/// `x1 = 2^6` (18 decimals) and `a1 = e^x1` (no decimals).
const X1: I256 = s(uint!(64_000_000_000_000_000_000_U256));
const A1: I256 = s(uint!(6_235_149_080_811_616_882_910_000_000_U256));

/// `(x_n, a_n = e^(x_n))` for `x_n = 2^(7-n)`, n = 2..=11, both with 20
/// decimals. `exp` uses the first eight, `ln` all ten.
const TERMS_20: [(I256, I256); 10] = [
    (
        s(uint!(3_200_000_000_000_000_000_000_U256)),
        s(uint!(7_896_296_018_268_069_516_100_000_000_000_000_U256)),
    ),
    (
        s(uint!(1_600_000_000_000_000_000_000_U256)),
        s(uint!(888_611_052_050_787_263_676_000_000_U256)),
    ),
    (s(uint!(800_000_000_000_000_000_000_U256)), s(uint!(298_095_798_704_172_827_474_000_U256))),
    (s(uint!(400_000_000_000_000_000_000_U256)), s(uint!(5_459_815_003_314_423_907_810_U256))),
    (s(uint!(200_000_000_000_000_000_000_U256)), s(uint!(738_905_609_893_065_022_723_U256))),
    (s(uint!(100_000_000_000_000_000_000_U256)), s(uint!(271_828_182_845_904_523_536_U256))),
    (s(uint!(50_000_000_000_000_000_000_U256)), s(uint!(164_872_127_070_012_814_685_U256))),
    (s(uint!(25_000_000_000_000_000_000_U256)), s(uint!(128_402_541_668_774_148_407_U256))),
    (s(uint!(12_500_000_000_000_000_000_U256)), s(uint!(113_314_845_306_682_631_683_U256))),
    (s(uint!(6_250_000_000_000_000_000_U256)), s(uint!(106_449_445_891_785_942_956_U256))),
];

fn int(n: u64) -> I256 {
    s(U256::from(n))
}

fn add(a: I256, b: I256) -> Result<I256> {
    a.checked_add(b).ok_or(INVALID)
}

fn sub(a: I256, b: I256) -> Result<I256> {
    a.checked_sub(b).ok_or(INVALID)
}

fn mul(a: I256, b: I256) -> Result<I256> {
    a.checked_mul(b).ok_or(INVALID)
}

/// Solidity's `sdiv`: truncates toward zero.
fn div(a: I256, b: I256) -> Result<I256> {
    a.checked_div(b).ok_or(INVALID)
}

/// Solidity's `smod`: the sign of the dividend.
fn rem(a: I256, b: I256) -> Result<I256> {
    a.checked_rem(b).ok_or(INVALID)
}

fn neg(a: I256) -> Result<I256> {
    a.checked_neg().ok_or(INVALID)
}

/// `LogExpMath.pow(x, y)`: `x^y` for unsigned 18-decimal `x` and `y`, as
/// `exp(y * ln(x))`. `0^0` is 1; `0^y` is 0. Reverts (`InvalidState`) when
/// `x >= 2^255`, `y >= 2^254 / 1e20`, or `y * ln(x)` leaves `[-41, 130]`.
pub fn pow(x: U256, y: U256) -> Result<U256> {
    if y.is_zero() {
        return Ok(ONE);
    }
    // `ln_36(1)` is exactly zero and `exp(0)` exactly one, so one to any
    // power the bounds admit is one: the contract's result, without the
    // series (a one-coin join raises the other coins' ratio, 1, to their
    // weights).
    if x == ONE && y < MILD_EXPONENT_BOUND {
        return Ok(ONE);
    }
    pow_series(x, y)
}

/// `LogExpMath.pow` through `ln` and `exp`.
fn pow_series(x: U256, y: U256) -> Result<U256> {
    if x.is_zero() {
        return Ok(U256::ZERO);
    }
    if x.bit(255) {
        return Err(INVALID);
    }
    if y >= MILD_EXPONENT_BOUND {
        return Err(INVALID);
    }
    let (x, y) = (s(x), s(y));
    let log_x_times_y = if LN_36_LOWER_BOUND < x && x < LN_36_UPPER_BOUND {
        // 36 decimals times 18: two 18-decimal products, the integer part
        // and the fraction of ln_36(x), so that nothing overflows.
        let l = ln_36(x)?;
        add(mul(div(l, ONE_18)?, y)?, div(mul(rem(l, ONE_18)?, y)?, ONE_18)?)?
    } else {
        mul(ln_18(x)?, y)?
    };
    let log_x_times_y = div(log_x_times_y, ONE_18)?;
    if log_x_times_y < neg(MIN_NATURAL_EXPONENT_ABS)? || log_x_times_y > MAX_NATURAL_EXPONENT {
        return Err(INVALID);
    }
    Ok(exp(log_x_times_y)?.into_raw())
}

/// `LogExpMath.exp(x)`: `e^x` for signed 18-decimal `x` in `[-41, 130]`
/// (`InvalidState` outside).
pub fn exp(x: I256) -> Result<I256> {
    if x < neg(MIN_NATURAL_EXPONENT_ABS)? || x > MAX_NATURAL_EXPONENT {
        return Err(INVALID);
    }
    if x.is_negative() {
        // e^(-x) = 1 / e^x, in 18-decimal fixed point.
        return div(mul(ONE_18, ONE_18)?, exp(neg(x)?)?);
    }
    // x = k0*x0 + k1*x1 + (sum of smaller x_n) + remainder; a0 and a1 carry
    // no decimals and at most one of them applies.
    let (mut x, first_an) = if x >= X0 {
        (sub(x, X0)?, A0)
    } else if x >= X1 {
        (sub(x, X1)?, A1)
    } else {
        (x, int(1))
    };
    // From here on 20 decimals.
    x = mul(x, HUNDRED)?;
    let mut product = ONE_20;
    for (xn, an) in &TERMS_20[..8] {
        if x >= *xn {
            x = sub(x, *xn)?;
            product = div(mul(product, *an)?, ONE_20)?;
        }
    }
    // Taylor series of e^remainder, to the 12th term.
    let mut series = ONE_20;
    let mut term = x;
    series = add(series, term)?;
    for n in 2..=12u64 {
        term = div(div(mul(term, x)?, ONE_20)?, int(n))?;
        series = add(series, term)?;
    }
    div(mul(div(mul(product, series)?, ONE_20)?, first_an)?, HUNDRED)
}

/// `LogExpMath.ln(a)`: natural logarithm of a positive signed 18-decimal
/// `a` (`InvalidState` for `a <= 0`). Between 0.9 and 1.1 (exclusive) it
/// goes through the 36-decimal series and drops the extra 18 decimals.
pub fn ln(a: I256) -> Result<I256> {
    if a <= I256::ZERO {
        return Err(INVALID);
    }
    if LN_36_LOWER_BOUND < a && a < LN_36_UPPER_BOUND { div(ln_36(a)?, ONE_18) } else { ln_18(a) }
}

/// `LogExpMath._ln`: 18 decimals in and out, for any positive `a` (callers
/// check the sign; zero fails on the division).
fn ln_18(a: I256) -> Result<I256> {
    if a < ONE_18 {
        // ln(a) = -ln(1/a), and 1/a > 1.
        return neg(ln_18(div(mul(ONE_18, ONE_18)?, a)?)?);
    }
    let mut a = a;
    // ln(a) = sum of the x_n whose a_n divide a, plus ln(remainder).
    let mut sum = I256::ZERO;
    if a >= mul(A0, ONE_18)? {
        a = div(a, A0)?;
        sum = add(sum, X0)?;
    }
    if a >= mul(A1, ONE_18)? {
        a = div(a, A1)?;
        sum = add(sum, X1)?;
    }
    // From here on 20 decimals.
    sum = mul(sum, HUNDRED)?;
    a = mul(a, HUNDRED)?;
    for (xn, an) in &TERMS_20 {
        if a >= *an {
            a = div(mul(a, ONE_20)?, *an)?;
            sum = add(sum, *xn)?;
        }
    }
    // ln(a) = 2 * (z + z^3/3 + z^5/5 + ...) with z = (a - 1) / (a + 1), to
    // the z^11 term.
    let series = odd_series(a, ONE_20, &[3, 5, 7, 9, 11])?;
    div(add(sum, mul(series, int(2))?)?, HUNDRED)
}

/// `LogExpMath._ln_36`: ln of an 18-decimal `x` near 1, with 36 decimals.
fn ln_36(x: I256) -> Result<I256> {
    let x = mul(x, ONE_18)?;
    mul(odd_series(x, ONE_36, &[3, 5, 7, 9, 11, 13, 15])?, int(2))
}

/// `z + z^3/3 + z^5/5 + ...` with `z = (x - one) / (x + one)` in the fixed
/// point whose unit is `one`, one term per odd divisor.
fn odd_series(x: I256, one: I256, divisors: &[u64]) -> Result<I256> {
    let z = div(mul(sub(x, one)?, one)?, add(x, one)?)?;
    let z_squared = div(mul(z, z)?, one)?;
    let mut num = z;
    let mut series = num;
    for d in divisors {
        num = div(mul(num, z_squared)?, one)?;
        series = add(series, div(num, int(*d))?)?;
    }
    Ok(series)
}

// ---------------------------------------------------------------------------
// The pool
// ---------------------------------------------------------------------------

/// `_computeScalingFactor`: `10^(18 - decimals) * 1e18`. Tokens with more
/// than 18 decimals cannot join a pool (`InvalidState`).
pub fn scaling_factor(decimals: u8) -> Result<U256> {
    if decimals > 18 {
        return Err(INVALID);
    }
    Ok(U256::from(10u8).pow(U256::from(18 - decimals)) * ONE)
}

/// `WeightedMath._calcOutGivenIn` on upscaled (18-decimal) balances and
/// amount, with the current [`pow_up`].
pub fn calc_out_given_in(
    balance_in: U256,
    weight_in: U256,
    balance_out: U256,
    weight_out: U256,
    amount_in: U256,
) -> Result<U256> {
    calc_out_given_in_with(pow_up, balance_in, weight_in, balance_out, weight_out, amount_in)
}

fn calc_out_given_in_with(
    pow_up: fn(U256, U256) -> Result<U256>,
    balance_in: U256,
    weight_in: U256,
    balance_out: U256,
    weight_out: U256,
    amount_in: U256,
) -> Result<U256> {
    if amount_in > mul_down(balance_in, MAX_IN_RATIO)? {
        return Err(AmmError::InsufficientLiquidity);
    }
    let denominator = balance_in.checked_add(amount_in).ok_or(INVALID)?;
    let base = div_up(balance_in, denominator)?;
    let exponent = div_down(weight_in, weight_out)?;
    let power = pow_up(base, exponent)?;
    mul_down(balance_out, complement(power))
}

/// `WeightedMath._MAX_OUT_RATIO`: a swap may take out at most 30% of the
/// output balance.
pub const MAX_OUT_RATIO: U256 = uint!(300_000_000_000_000_000_U256);

/// `WeightedMath._calcInGivenOut` on upscaled balances and amount.
fn calc_in_given_out_with(
    pow_up: fn(U256, U256) -> Result<U256>,
    balance_in: U256,
    weight_in: U256,
    balance_out: U256,
    weight_out: U256,
    amount_out: U256,
) -> Result<U256> {
    if amount_out > mul_down(balance_out, MAX_OUT_RATIO)? {
        return Err(AmmError::InsufficientLiquidity);
    }
    let base = div_up(balance_out, balance_out.checked_sub(amount_out).ok_or(INVALID)?)?;
    let exponent = div_up(weight_out, weight_in)?;
    let power = pow_up(base, exponent)?;
    let ratio = power.checked_sub(ONE).ok_or(INVALID)?;
    mul_up(balance_in, ratio)
}

/// Exact input, raw units of the input token, that a weighted pool's
/// `onSwap` (`GIVEN_OUT`) asks for `amount_out` raw units of the output
/// token: the output upscaled, `_calcInGivenOut`, downscaled rounding up,
/// then the fee added (`divUp` by its complement).
#[allow(clippy::too_many_arguments, reason = "the contract's own parameter list")]
pub fn in_given_out(
    rule: PowRule,
    balance_in: U256,
    decimals_in: u8,
    weight_in: U256,
    balance_out: U256,
    decimals_out: u8,
    weight_out: U256,
    swap_fee: U256,
    amount_out: U256,
) -> Result<U256> {
    let factor_in = scaling_factor(decimals_in)?;
    let factor_out = scaling_factor(decimals_out)?;
    let balance_in = mul_down(balance_in, factor_in)?;
    let balance_out = mul_down(balance_out, factor_out)?;
    let amount_out = mul_down(amount_out, factor_out)?;
    let amount_in = calc_in_given_out_with(
        rule.pow_up(),
        balance_in,
        weight_in,
        balance_out,
        weight_out,
        amount_out,
    )?;
    let amount_in = div_up(amount_in, factor_in)?;
    div_up(amount_in, complement(swap_fee))
}

/// Which `FixedPoint.powUp` a pool's code computes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PowRule {
    /// The pools of the first 2021 deployments (pool type version 1): no
    /// shortcuts ([`pow_up_v1`]).
    First,
    /// Later versions: exponents 1, 2 and 4 by multiplication ([`pow_up`]).
    Current,
}

impl PowRule {
    fn pow_up(self) -> fn(U256, U256) -> Result<U256> {
        match self {
            Self::First => pow_up_v1,
            Self::Current => pow_up,
        }
    }

    fn pow_down(self) -> fn(U256, U256) -> Result<U256> {
        match self {
            Self::First => pow_down_v1,
            Self::Current => pow_down,
        }
    }
}

// ---------------------------------------------------------------------------
// Joins and exits
// ---------------------------------------------------------------------------

/// `WeightedMath._MIN_INVARIANT_RATIO`: an exit of one token may shrink
/// the invariant to no less than 70%.
pub const MIN_INVARIANT_RATIO: U256 = uint!(700_000_000_000_000_000_U256);

/// A weighted pool's coins as its joins and exits read them: balances
/// (raw), decimals and normalized weights, pool order, and its swap fee.
#[derive(Debug, Clone, Copy)]
pub struct Coins<'a> {
    /// Balances, raw units.
    pub balances: &'a [U256],
    /// Each coin's decimals.
    pub decimals: &'a [u8],
    /// Normalized weights, 18-decimal fixed point.
    pub weights: &'a [U256],
    /// Swap fee, 18-decimal fixed point.
    pub swap_fee: U256,
}

impl Coins<'_> {
    fn coin(&self, k: usize) -> Result<(U256, U256, U256)> {
        let balance = *self.balances.get(k).ok_or(INVALID)?;
        let factor = scaling_factor(*self.decimals.get(k).ok_or(INVALID)?)?;
        let weight = *self.weights.get(k).ok_or(INVALID)?;
        Ok((mul_down(balance, factor)?, factor, weight))
    }
}

/// BPT minted by a join of `EXACT_TOKENS_IN_FOR_BPT_OUT` (kind 1) with
/// `amounts_in` (raw, pool order) into a pool of `supply` BPT, as
/// `WeightedMath._calcBptOutGivenExactTokensIn` computes it on upscaled
/// balances and amounts. Each coin added past the invariant's growth pays
/// the swap fee on the excess (`taxable.mulUp(fee)` off it), and the
/// invariant ratio is the product of `(balance + net) / balance` to the
/// coin's weight, with `powDown` of `rule`. A coin that adds nothing still
/// takes its `powDown(1, w)`, one less its error bound, on both the 2021
/// and the 2023 (v3) pools: a single-coin join mints a little less than
/// its ratio alone would.
pub fn join_exact_tokens_in(
    rule: PowRule,
    coins: Coins<'_>,
    supply: U256,
    amounts_in: &[U256],
) -> Result<U256> {
    let n = coins.balances.len();
    if amounts_in.len() != n || coins.weights.len() != n {
        return Err(INVALID);
    }
    let mut upscaled = Vec::with_capacity(n);
    let mut ratio_with_fees = U256::ZERO;
    for (k, amount) in amounts_in.iter().enumerate() {
        let (balance, factor, weight) = coins.coin(k)?;
        let amount = mul_down(*amount, factor)?;
        let ratio = div_down(balance.checked_add(amount).ok_or(INVALID)?, balance)?;
        ratio_with_fees = ratio_with_fees.checked_add(mul_down(ratio, weight)?).ok_or(INVALID)?;
        upscaled.push((balance, weight, amount, ratio));
    }
    let pow_down = rule.pow_down();
    let mut invariant_ratio = ONE;
    for (balance, weight, amount, ratio) in upscaled {
        let net = if ratio > ratio_with_fees {
            let excess = ratio_with_fees.checked_sub(ONE).ok_or(INVALID)?;
            let non_taxable = mul_down(balance, excess)?;
            let taxable = amount.checked_sub(non_taxable).ok_or(INVALID)?;
            let fee = mul_up(taxable, coins.swap_fee)?;
            non_taxable + (taxable.checked_sub(fee).ok_or(INVALID)?)
        } else {
            amount
        };
        let balance_ratio = div_down(balance.checked_add(net).ok_or(INVALID)?, balance)?;
        invariant_ratio = mul_down(invariant_ratio, pow_down(balance_ratio, weight)?)?;
    }
    if invariant_ratio > ONE { mul_down(supply, invariant_ratio - ONE) } else { Ok(U256::ZERO) }
}

/// Every coin (raw, pool order) paid by an exit of
/// `EXACT_BPT_IN_FOR_TOKENS_OUT` (kind 1) burning `bpt_in` of `supply`:
/// `_calcTokensOutGivenExactBptIn`, each upscaled balance times
/// `bptIn.divDown(supply)` rounding down, downscaled rounding down. No fee.
pub fn exit_exact_bpt_in_for_tokens(
    coins: Coins<'_>,
    supply: U256,
    bpt_in: U256,
) -> Result<Vec<U256>> {
    if bpt_in > supply {
        return Err(AmmError::InsufficientLiquidity);
    }
    let ratio = div_down(bpt_in, supply)?;
    (0..coins.balances.len())
        .map(|k| {
            let (balance, factor, _) = coins.coin(k)?;
            div_down(mul_down(balance, ratio)?, factor)
        })
        .collect()
}

/// Coin `j` (raw) paid by an exit of `EXACT_BPT_IN_FOR_ONE_TOKEN_OUT`
/// (kind 0) burning `bpt_in` of `supply`, as
/// `WeightedMath._calcTokenOutGivenExactBptIn` computes it: the invariant
/// ratio `(supply - bptIn) / supply` rounded up (at least 70%, else
/// `InsufficientLiquidity`), the balance ratio its `powUp` to `1 / w`, the
/// swap fee off the part beyond the coin's weight, downscaled rounding
/// down.
pub fn exit_exact_bpt_in(
    rule: PowRule,
    coins: Coins<'_>,
    supply: U256,
    bpt_in: U256,
    j: usize,
) -> Result<U256> {
    let (balance, factor, weight) = coins.coin(j)?;
    let left = supply.checked_sub(bpt_in).ok_or(AmmError::InsufficientLiquidity)?;
    let invariant_ratio = div_up(left, supply)?;
    if invariant_ratio < MIN_INVARIANT_RATIO {
        return Err(AmmError::InsufficientLiquidity);
    }
    let balance_ratio = rule.pow_up()(invariant_ratio, div_down(ONE, weight)?)?;
    let without_fee = mul_down(balance, complement(balance_ratio))?;
    let taxable = mul_up(without_fee, complement(weight))?;
    let non_taxable = without_fee.checked_sub(taxable).ok_or(INVALID)?;
    // The 2021 pools take the fee off rounding it up; the 2023 pools keep
    // `taxable · (1 - fee)` rounding up, a unit more at most.
    let kept = match rule {
        PowRule::First => mul_down(taxable, complement(coins.swap_fee))?,
        PowRule::Current => mul_up(taxable, complement(coins.swap_fee))?,
    };
    div_down(non_taxable + kept, factor)
}

/// Exact output, raw units of the output token, of swapping `amount_in` raw
/// units of the input token into a weighted pool, as the pool's `onSwap`
/// (`GIVEN_IN`) computes it with the `powUp` of `rule`. Weights and
/// `swap_fee` are 18-decimal fixed point. Zero output is `Ok(0)`, as on
/// chain.
#[allow(clippy::too_many_arguments, reason = "the contract's own parameter list")]
pub fn out_given_in(
    rule: PowRule,
    balance_in: U256,
    decimals_in: u8,
    weight_in: U256,
    balance_out: U256,
    decimals_out: u8,
    weight_out: U256,
    swap_fee: U256,
    amount_in: U256,
) -> Result<U256> {
    on_swap_given_in(
        rule.pow_up(),
        [balance_in, weight_in, balance_out, weight_out],
        [decimals_in, decimals_out],
        swap_fee,
        amount_in,
    )
}

fn on_swap_given_in(
    pow_up: fn(U256, U256) -> Result<U256>,
    [balance_in, weight_in, balance_out, weight_out]: [U256; 4],
    [decimals_in, decimals_out]: [u8; 2],
    swap_fee: U256,
    amount_in: U256,
) -> Result<U256> {
    let factor_in = scaling_factor(decimals_in)?;
    let factor_out = scaling_factor(decimals_out)?;
    let balance_in = mul_down(balance_in, factor_in)?;
    let balance_out = mul_down(balance_out, factor_out)?;
    // The fee comes off before scaling, rounding the fee up.
    let fee = mul_up(amount_in, swap_fee)?;
    let amount_in = amount_in.checked_sub(fee).ok_or(INVALID)?;
    let amount_in = mul_down(amount_in, factor_in)?;
    let out =
        calc_out_given_in_with(pow_up, balance_in, weight_in, balance_out, weight_out, amount_in)?;
    div_down(out, factor_out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_to_any_power_is_one_through_the_series_too() {
        // Exponents from 0.000609 to 12.2, odd ones: the shortcut in `pow`
        // answers what the series computes.
        for k in 1..20_000u64 {
            let y = U256::from(k) * U256::from(7_919_000_000_000_000u64) / U256::from(13u8)
                + U256::from(k);
            assert_eq!(pow_series(ONE, y), Ok(ONE), "{y}");
            assert_eq!(pow(ONE, y), Ok(ONE), "{y}");
        }
    }

    fn e18(n: u64) -> U256 {
        U256::from(n) * ONE
    }

    #[test]
    fn signed_division_truncates_like_sdiv() {
        let (seven, two) = (int(7), int(2));
        assert_eq!(div(neg(seven).unwrap_or_default(), two), Ok(neg(int(3)).unwrap_or_default()));
        assert_eq!(rem(neg(seven).unwrap_or_default(), two), Ok(neg(int(1)).unwrap_or_default()));
    }

    #[test]
    fn exp_and_ln_of_one_and_e() {
        assert_eq!(exp(I256::ZERO), Ok(ONE_18));
        assert_eq!(ln(ONE_18), Ok(I256::ZERO));
        // e to 18 decimals is 2.718281828459045235; the series lands within
        // a few units of it.
        let e = exp(ONE_18).map(I256::into_raw).unwrap_or_default();
        let want = uint!(2_718_281_828_459_045_235_U256);
        assert!(e.abs_diff(want) < U256::from(10u8), "{e}");
    }

    #[test]
    fn exp_of_the_decomposition_points_is_their_constant() {
        // e^x0 and e^x1 are a0 and a1 exactly (the Taylor series of 0 is 1),
        // which pins the digit count of the two largest constants.
        assert_eq!(exp(X0), mul(A0, ONE_18));
        assert_eq!(exp(X1), mul(A1, ONE_18));
        assert_eq!(ln(mul(A0, ONE_18).unwrap_or_default()), Ok(X0));
    }

    #[test]
    fn pow_bounds_revert() {
        assert_eq!(pow(U256::ZERO, U256::ZERO), Ok(ONE));
        assert_eq!(pow(U256::ZERO, ONE), Ok(U256::ZERO));
        assert_eq!(pow(U256::from(1u8) << 255, ONE), Err(INVALID));
        assert_eq!(pow(TWO, MILD_EXPONENT_BOUND), Err(INVALID));
        // 1e-18 squared is below e^-41.
        assert_eq!(pow(U256::from(1u8), TWO), Err(INVALID));
    }

    #[test]
    fn fixed_point_rounding() {
        assert_eq!(mul_down(U256::from(3u8), ONE / U256::from(2u8)), Ok(U256::from(1u8)));
        assert_eq!(mul_up(U256::from(3u8), ONE / U256::from(2u8)), Ok(U256::from(2u8)));
        assert_eq!(div_down(U256::from(1u8), e18(3)), Ok(U256::ZERO));
        assert_eq!(div_up(U256::from(1u8), e18(3)), Ok(U256::from(1u8)));
        assert_eq!(div_up(U256::ZERO, U256::ZERO), Err(INVALID));
        assert_eq!(mul_down(U256::MAX, TWO), Err(INVALID));
        assert_eq!(complement(TWO), U256::ZERO);
    }

    #[test]
    fn balanced_pool_pays_about_the_spot_less_fee() {
        // 100 WETH / 300k USDC, 50/50, 0.3%: 1 WETH buys a bit under 2991.
        let out = out_given_in(
            PowRule::Current,
            e18(100),
            18,
            ONE / U256::from(2u8),
            U256::from(300_000_000_000u64),
            6,
            ONE / U256::from(2u8),
            uint!(3_000_000_000_000_000_U256),
            e18(1),
        )
        .unwrap_or_default();
        assert!(out > U256::from(2_950_000_000u64) && out < U256::from(2_991_000_000u64), "{out}");
    }

    #[test]
    fn max_in_ratio_is_a_liquidity_error() {
        let half = ONE / U256::from(2u8);
        let r = out_given_in(
            PowRule::Current,
            e18(100),
            18,
            half,
            e18(100),
            18,
            half,
            U256::ZERO,
            e18(31),
        );
        assert_eq!(r, Err(AmmError::InsufficientLiquidity));
    }
}
