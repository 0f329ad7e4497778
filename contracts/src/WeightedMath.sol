// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity 0.8.37;

/// A swap brings in more than 30% of the pool's balance of the input token.
error MaxInRatio();
/// A fixed-point division by zero.
error ZeroDivision();
/// `pow` of a base at or above 2^255.
error XOutOfBounds();
/// `pow` of an exponent at or above 2^254 / 1e20.
error YOutOfBounds();
/// `pow` whose `y * ln(x)` is outside [-41, 130].
error ProductOutOfBounds();
/// `exp` of an argument outside [-41, 130].
error InvalidExponent();
/// `ln` of a non-positive argument.
error OutOfBounds();
/// A token with more than 18 decimals.
error DecimalsTooLarge();
/// A pow rule other than `POW_RULE_FIRST` (0) and `POW_RULE_CURRENT` (1).
error UnknownPowRule();

/// @title Balancer V2 weighted-pool math, 18-decimal fixed point.
/// @notice Written from the published formulas as Switchyard's kernel
/// computes them (`kernel/src/amm/weighted.rs`), integer for integer:
///
/// - `mulDown(a, b) = a * b / 1e18`, `mulUp` the same rounded up
///   (`(a * b - 1) / 1e18 + 1`, 0 for a zero product); `divDown(a, b) =
///   a * 1e18 / b`, `divUp` rounded up (`(a * 1e18 - 1) / b + 1`, 0 for
///   `a = 0`), both reverting on `b = 0`; `complement(x) = 1 - x`, floored
///   at 0. Products overflow-checked.
/// - `pow(x, y) = exp(y * ln(x))` in signed 18-decimal fixed point: `ln` by
///   dividing out the constants `a_n = e^(x_n)` for `x_n = 2^(7-n)` and the
///   series `2 * (z + z^3/3 + ... + z^11/11)`, `z = (a - 1)/(a + 1)`, at 20
///   decimals; between 0.9 and 1.1 a 36-decimal series to `z^15/15`.
///   `exp` by multiplying the `a_n` of the `x_n` it contains and the Taylor
///   series of the rest to the 12th term, at 20 decimals. Signed divisions
///   truncate toward zero. Checked arithmetic: what the kernel reports as
///   an overflow reverts.
/// - `powUp` is `pow` widened by its error bound,
///   `raw + (mulUp(raw, 1e-14) + 1)`. The current rule (pools after the
///   first 2021 deployments) computes exponents of exactly 1, 2 and 4 by
///   `mulUp` squaring instead; the first rule always goes through `pow`.
/// - `calcOutGivenIn`: `amountIn <= mulDown(balanceIn, 0.3)`, then
///   `balanceOut * complement(powUp(divUp(balanceIn, balanceIn + amountIn),
///   divDown(weightIn, weightOut)))`, rounding down.
/// - `outGivenIn` on raw amounts: balances upscaled by `mulDown` with
///   `10^(18 - decimals) * 1e18` (exact), the fee taken off the raw amount
///   in rounding the fee up (`amountIn - mulUp(amountIn, fee)`), the rest
///   upscaled, and the output downscaled with `divDown` (rounding down).
library WeightedMath {
    uint256 internal constant ONE = 1e18;
    uint256 internal constant MAX_IN_RATIO = 0.3e18;
    uint256 internal constant MAX_POW_RELATIVE_ERROR = 10000;

    /// The `powUp` of the first (2021) deployments: no shortcuts.
    uint8 internal constant POW_RULE_FIRST = 0;
    /// The later `powUp`: exponents 1, 2 and 4 by multiplication.
    uint8 internal constant POW_RULE_CURRENT = 1;

    int256 private constant ONE_18 = 1e18;
    int256 private constant ONE_20 = 1e20;
    int256 private constant ONE_36 = 1e36;

    int256 private constant MAX_NATURAL_EXPONENT = 130e18;
    int256 private constant MIN_NATURAL_EXPONENT = -41e18;
    int256 private constant LN_36_LOWER_BOUND = 0.9e18;
    int256 private constant LN_36_UPPER_BOUND = 1.1e18;
    uint256 private constant MILD_EXPONENT_BOUND = 2 ** 254 / uint256(ONE_20);

    // x0 = 2^7 and x1 = 2^6 with 18 decimals; a0 = e^x0 and a1 = e^x1 with
    // none.
    int256 private constant X0 = 128e18;
    int256 private constant A0 = 38877084059945950922200000000000000000000000000000000000;
    int256 private constant X1 = 64e18;
    int256 private constant A1 = 6235149080811616882910000000;
    // x_n = 2^(7-n) and a_n = e^(x_n), n = 2..11, both with 20 decimals.
    int256 private constant X2 = 32e20;
    int256 private constant A2 = 7896296018268069516100000000000000;
    int256 private constant X3 = 16e20;
    int256 private constant A3 = 888611052050787263676000000;
    int256 private constant X4 = 8e20;
    int256 private constant A4 = 298095798704172827474000;
    int256 private constant X5 = 4e20;
    int256 private constant A5 = 5459815003314423907810;
    int256 private constant X6 = 2e20;
    int256 private constant A6 = 738905609893065022723;
    int256 private constant X7 = 1e20;
    int256 private constant A7 = 271828182845904523536;
    int256 private constant X8 = 0.5e20;
    int256 private constant A8 = 164872127070012814685;
    int256 private constant X9 = 0.25e20;
    int256 private constant A9 = 128402541668774148407;
    int256 private constant X10 = 0.125e20;
    int256 private constant A10 = 113314845306682631683;
    int256 private constant X11 = 0.0625e20;
    int256 private constant A11 = 106449445891785942956;

    // ---- fixed point ----

    function mulDown(uint256 a, uint256 b) internal pure returns (uint256) {
        return a * b / ONE;
    }

    function mulUp(uint256 a, uint256 b) internal pure returns (uint256) {
        uint256 product = a * b;
        return product == 0 ? 0 : (product - 1) / ONE + 1;
    }

    function divDown(uint256 a, uint256 b) internal pure returns (uint256) {
        if (b == 0) revert ZeroDivision();
        return a * ONE / b;
    }

    function divUp(uint256 a, uint256 b) internal pure returns (uint256) {
        if (b == 0) revert ZeroDivision();
        uint256 inflated = a * ONE;
        return inflated == 0 ? 0 : (inflated - 1) / b + 1;
    }

    function complement(uint256 x) internal pure returns (uint256) {
        return x < ONE ? ONE - x : 0;
    }

    /// `pow(x, y)` plus its error bound: an upper bound of `x^y`.
    function powUpGeneral(uint256 x, uint256 y) internal pure returns (uint256) {
        uint256 raw = pow(x, y);
        return raw + (mulUp(raw, MAX_POW_RELATIVE_ERROR) + 1);
    }

    /// `powUp` of the current rule: exact squaring for exponents 1, 2, 4.
    function powUpCurrent(uint256 x, uint256 y) internal pure returns (uint256) {
        if (y == ONE) return x;
        if (y == 2 * ONE) return mulUp(x, x);
        if (y == 4 * ONE) {
            uint256 square = mulUp(x, x);
            return mulUp(square, square);
        }
        return powUpGeneral(x, y);
    }

    function powUp(uint8 rule, uint256 x, uint256 y) internal pure returns (uint256) {
        if (rule == POW_RULE_CURRENT) return powUpCurrent(x, y);
        if (rule == POW_RULE_FIRST) return powUpGeneral(x, y);
        revert UnknownPowRule();
    }

    // ---- logarithm and exponential ----

    /// `x^y` for unsigned 18-decimal `x` and `y`: 1 for `y = 0`, 0 for
    /// `x = 0`, otherwise `exp(y * ln(x))`.
    function pow(uint256 x, uint256 y) internal pure returns (uint256) {
        if (y == 0) return ONE;
        if (x == 0) return 0;
        if (x >> 255 != 0) revert XOutOfBounds();
        if (y >= MILD_EXPONENT_BOUND) revert YOutOfBounds();
        int256 xs = int256(x);
        int256 ys = int256(y);
        int256 logTimesY;
        if (LN_36_LOWER_BOUND < xs && xs < LN_36_UPPER_BOUND) {
            // 36 decimals times 18: the integer part and the fraction of
            // ln_36(x) separately, so that the product fits.
            int256 l = _ln36(xs);
            logTimesY = (l / ONE_18) * ys + ((l % ONE_18) * ys) / ONE_18;
        } else {
            logTimesY = _ln(xs) * ys;
        }
        logTimesY /= ONE_18;
        if (logTimesY < MIN_NATURAL_EXPONENT || logTimesY > MAX_NATURAL_EXPONENT) revert ProductOutOfBounds();
        return uint256(exp(logTimesY));
    }

    /// `e^x` for signed 18-decimal `x` in [-41, 130].
    function exp(int256 x) internal pure returns (int256) {
        if (x < MIN_NATURAL_EXPONENT || x > MAX_NATURAL_EXPONENT) revert InvalidExponent();
        if (x < 0) {
            // e^x = 1 / e^-x.
            return (ONE_18 * ONE_18) / exp(-x);
        }
        // At most one of the two largest steps applies; its a_n has no
        // decimals.
        int256 firstAn = 1;
        if (x >= X0) {
            x -= X0;
            firstAn = A0;
        } else if (x >= X1) {
            x -= X1;
            firstAn = A1;
        }
        // 20 decimals from here on.
        x *= 100;
        int256 product = ONE_20;
        if (x >= X2) {
            x -= X2;
            product = (product * A2) / ONE_20;
        }
        if (x >= X3) {
            x -= X3;
            product = (product * A3) / ONE_20;
        }
        if (x >= X4) {
            x -= X4;
            product = (product * A4) / ONE_20;
        }
        if (x >= X5) {
            x -= X5;
            product = (product * A5) / ONE_20;
        }
        if (x >= X6) {
            x -= X6;
            product = (product * A6) / ONE_20;
        }
        if (x >= X7) {
            x -= X7;
            product = (product * A7) / ONE_20;
        }
        if (x >= X8) {
            x -= X8;
            product = (product * A8) / ONE_20;
        }
        if (x >= X9) {
            x -= X9;
            product = (product * A9) / ONE_20;
        }
        // The rest: 1 + x + x^2/2! + ... + x^12/12!, each term from the last.
        int256 series = ONE_20 + x;
        int256 term = x;
        for (int256 n = 2; n <= 12; ++n) {
            term = ((term * x) / ONE_20) / n;
            series += term;
        }
        return (((product * series) / ONE_20) * firstAn) / 100;
    }

    /// Natural logarithm of a positive signed 18-decimal `a`.
    function ln(int256 a) internal pure returns (int256) {
        if (a <= 0) revert OutOfBounds();
        if (LN_36_LOWER_BOUND < a && a < LN_36_UPPER_BOUND) return _ln36(a) / ONE_18;
        return _ln(a);
    }

    /// ln with 18 decimals in and out, for any positive `a`.
    function _ln(int256 a) private pure returns (int256) {
        if (a < ONE_18) {
            // ln(a) = -ln(1/a).
            return -_ln((ONE_18 * ONE_18) / a);
        }
        int256 sum = 0;
        if (a >= A0 * ONE_18) {
            a /= A0;
            sum += X0;
        }
        if (a >= A1 * ONE_18) {
            a /= A1;
            sum += X1;
        }
        // 20 decimals from here on.
        sum *= 100;
        a *= 100;
        if (a >= A2) {
            a = (a * ONE_20) / A2;
            sum += X2;
        }
        if (a >= A3) {
            a = (a * ONE_20) / A3;
            sum += X3;
        }
        if (a >= A4) {
            a = (a * ONE_20) / A4;
            sum += X4;
        }
        if (a >= A5) {
            a = (a * ONE_20) / A5;
            sum += X5;
        }
        if (a >= A6) {
            a = (a * ONE_20) / A6;
            sum += X6;
        }
        if (a >= A7) {
            a = (a * ONE_20) / A7;
            sum += X7;
        }
        if (a >= A8) {
            a = (a * ONE_20) / A8;
            sum += X8;
        }
        if (a >= A9) {
            a = (a * ONE_20) / A9;
            sum += X9;
        }
        if (a >= A10) {
            a = (a * ONE_20) / A10;
            sum += X10;
        }
        if (a >= A11) {
            a = (a * ONE_20) / A11;
            sum += X11;
        }
        int256 series = _oddSeries(a, ONE_20, 11);
        return (sum + series * 2) / 100;
    }

    /// ln of an 18-decimal `x` near 1, with 36 decimals.
    function _ln36(int256 x) private pure returns (int256) {
        return _oddSeries(x * ONE_18, ONE_36, 15) * 2;
    }

    /// `z + z^3/3 + z^5/5 + ... + z^last/last`, `z = (x - one) / (x + one)`,
    /// in the fixed point whose unit is `one`.
    function _oddSeries(int256 x, int256 one, int256 last) private pure returns (int256) {
        int256 z = ((x - one) * one) / (x + one);
        int256 zSquared = (z * z) / one;
        int256 num = z;
        int256 series = num;
        for (int256 d = 3; d <= last; d += 2) {
            num = (num * zSquared) / one;
            series += num / d;
        }
        return series;
    }

    // ---- the swap ----

    /// `10^(18 - decimals) * 1e18`.
    function scalingFactor(uint8 decimals) internal pure returns (uint256) {
        if (decimals > 18) revert DecimalsTooLarge();
        return 10 ** (18 - uint256(decimals)) * ONE;
    }

    /// Output of a swap on 18-decimal balances and amount (fee already off).
    function calcOutGivenIn(
        uint8 rule,
        uint256 balanceIn,
        uint256 weightIn,
        uint256 balanceOut,
        uint256 weightOut,
        uint256 amountIn
    ) internal pure returns (uint256) {
        if (amountIn > mulDown(balanceIn, MAX_IN_RATIO)) revert MaxInRatio();
        uint256 base = divUp(balanceIn, balanceIn + amountIn);
        uint256 exponent = divDown(weightIn, weightOut);
        uint256 power = powUp(rule, base, exponent);
        return mulDown(balanceOut, complement(power));
    }

    /// Output, raw units of the output token, of `amountIn` raw units of the
    /// input token, fee included.
    function outGivenIn(
        uint8 rule,
        uint256 balanceIn,
        uint8 decimalsIn,
        uint256 weightIn,
        uint256 balanceOut,
        uint8 decimalsOut,
        uint256 weightOut,
        uint256 swapFee,
        uint256 amountIn
    ) internal pure returns (uint256) {
        uint256 factorIn = scalingFactor(decimalsIn);
        uint256 factorOut = scalingFactor(decimalsOut);
        balanceIn = mulDown(balanceIn, factorIn);
        balanceOut = mulDown(balanceOut, factorOut);
        // The fee comes off the raw amount, rounded up, before scaling.
        amountIn = mulDown(amountIn - mulUp(amountIn, swapFee), factorIn);
        uint256 out = calcOutGivenIn(rule, balanceIn, weightIn, balanceOut, weightOut, amountIn);
        return divDown(out, factorOut);
    }
}

/// @title The weighted math, callable: for replaying golden vectors against
/// the library's bytecode.
contract WeightedMathProbe {
    function mulDown(uint256 a, uint256 b) external pure returns (uint256) {
        return WeightedMath.mulDown(a, b);
    }

    function mulUp(uint256 a, uint256 b) external pure returns (uint256) {
        return WeightedMath.mulUp(a, b);
    }

    function divDown(uint256 a, uint256 b) external pure returns (uint256) {
        return WeightedMath.divDown(a, b);
    }

    function divUp(uint256 a, uint256 b) external pure returns (uint256) {
        return WeightedMath.divUp(a, b);
    }

    function complement(uint256 x) external pure returns (uint256) {
        return WeightedMath.complement(x);
    }

    function pow(uint256 x, uint256 y) external pure returns (uint256) {
        return WeightedMath.pow(x, y);
    }

    function powUp(uint8 rule, uint256 x, uint256 y) external pure returns (uint256) {
        return WeightedMath.powUp(rule, x, y);
    }

    function exp(int256 x) external pure returns (int256) {
        return WeightedMath.exp(x);
    }

    function ln(int256 a) external pure returns (int256) {
        return WeightedMath.ln(a);
    }

    function calcOutGivenIn(
        uint8 rule,
        uint256 balanceIn,
        uint256 weightIn,
        uint256 balanceOut,
        uint256 weightOut,
        uint256 amountIn
    ) external pure returns (uint256) {
        return WeightedMath.calcOutGivenIn(rule, balanceIn, weightIn, balanceOut, weightOut, amountIn);
    }

    function outGivenIn(
        uint8 rule,
        uint256 balanceIn,
        uint8 decimalsIn,
        uint256 weightIn,
        uint256 balanceOut,
        uint8 decimalsOut,
        uint256 weightOut,
        uint256 swapFee,
        uint256 amountIn
    ) external pure returns (uint256) {
        return WeightedMath.outGivenIn(
            rule, balanceIn, decimalsIn, weightIn, balanceOut, decimalsOut, weightOut, swapFee, amountIn
        );
    }
}
