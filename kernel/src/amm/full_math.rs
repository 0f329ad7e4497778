//! 512-bit intermediate multiply-divide, as Uniswap's `FullMath` and the
//! `mulDiv` of every fixed-point library: `a * b / d` without overflow of the
//! product, rounding down or up. `None` when `d` is zero or the result does
//! not fit 256 bits (where the contracts revert).

use alloy_primitives::{U256, U512};

fn wide(a: U256, b: U256) -> U512 {
    a.widening_mul(b)
}

fn narrow(x: U512) -> Option<U256> {
    let limbs = x.as_limbs();
    if limbs[4..].iter().any(|l| *l != 0) {
        return None;
    }
    Some(U256::from_limbs([limbs[0], limbs[1], limbs[2], limbs[3]]))
}

/// `floor(a * b / d)`.
pub fn mul_div(a: U256, b: U256, d: U256) -> Option<U256> {
    if d.is_zero() {
        return None;
    }
    narrow(wide(a, b) / U512::from(d))
}

/// `ceil(a * b / d)`.
pub fn mul_div_rounding_up(a: U256, b: U256, d: U256) -> Option<U256> {
    if d.is_zero() {
        return None;
    }
    let p = wide(a, b);
    let dd = U512::from(d);
    let q = narrow(p / dd)?;
    if (p % dd).is_zero() { Some(q) } else { q.checked_add(U256::from(1u8)) }
}

/// `ceil(a / d)` (`UnsafeMath.divRoundingUp`, with a zero check).
pub fn div_rounding_up(a: U256, d: U256) -> Option<U256> {
    if d.is_zero() {
        return None;
    }
    let q = a / d;
    Some(if (a % d).is_zero() { q } else { q + U256::from(1u8) })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn handles_products_beyond_256_bits() {
        let a = U256::MAX;
        assert_eq!(mul_div(a, a, a), Some(a));
        assert_eq!(mul_div(a, U256::from(2u8), U256::from(4u8)), Some(a / U256::from(2u8)));
        assert_eq!(mul_div(a, U256::from(2u8), U256::from(1u8)), None);
        assert_eq!(mul_div(U256::from(1u8), U256::from(1u8), U256::ZERO), None);
    }

    #[test]
    fn rounding_up() {
        assert_eq!(
            mul_div_rounding_up(U256::from(5u8), U256::from(3u8), U256::from(2u8)),
            Some(U256::from(8u8))
        );
        assert_eq!(
            mul_div_rounding_up(U256::from(4u8), U256::from(3u8), U256::from(2u8)),
            Some(U256::from(6u8))
        );
        assert_eq!(
            mul_div_rounding_up(U256::MAX, U256::from(1u8), U256::from(1u8)),
            Some(U256::MAX)
        );
        assert_eq!(div_rounding_up(U256::from(7u8), U256::from(2u8)), Some(U256::from(4u8)));
    }
}
