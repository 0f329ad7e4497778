// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity 0.8.37;

// A 512-bit `x * y / d`, rounded down, as a free function: it compiles into
// the contracts that import it and produces no artifact of its own.

/// @notice The quotient does not fit 256 bits, or `d` is zero.
error DivisionOverflow();

/// @notice `x * y / d` rounded down, with the product held in 512 bits: the
/// kernel's `full_math::mul_div`. Reverts with `DivisionOverflow` when `d` is
/// zero or the quotient does not fit 256 bits (where the kernel returns
/// `None`).
/// @dev The protocols these fixtures follow (Compound's `Exponential`, Lido's
/// `SafeMath`) compute `x * y` in 256 bits and revert when it overflows; the
/// two agree whenever the product fits, which covers every realistic amount
/// (an overflow needs `x * y >= 2^256`, about 1.16e77).
function mulDivDown(uint256 x, uint256 y, uint256 d) pure returns (uint256 q) {
    if (d == 0) revert DivisionOverflow();
    uint256 lo;
    uint256 hi;
    unchecked {
        // The product modulo 2^256 (`lo`) and modulo 2^256 - 1 (`mm`) give its
        // high word: `hi = mm - lo`, less one when that subtraction wraps.
        uint256 mm = mulmod(x, y, type(uint256).max);
        lo = x * y;
        hi = mm - lo - (mm < lo ? 1 : 0);
    }
    if (hi == 0) return lo / d;
    if (hi >= d) revert DivisionOverflow();
    // Restoring binary long division of the 512-bit (hi, lo) by d, one bit of
    // `lo` at a time. The remainder stays below d, so doubling it needs one
    // bit more than 256: `top` is that bit.
    uint256 r = hi;
    unchecked {
        for (uint256 i = 0; i < 256; ++i) {
            uint256 top = r >> 255;
            r = (r << 1) | (lo >> 255);
            lo <<= 1;
            q <<= 1;
            if (top == 1 || r >= d) {
                r -= d;
                q |= 1;
            }
        }
    }
}
