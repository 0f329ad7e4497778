//! Properties of the exact pool math over every pool of the demo market:
//! output is monotone in input, never reaches the pool's reserve, never beats
//! the spot price, and the shadow quote stays close to it for small trades.

use alloy_primitives::U256;
use proptest::prelude::*;
use switchyard_kernel::{PoolState, amm::AmmError, pool::u256_to_f64};

mod common;

use common::snapshot;

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn exact_math_is_monotone_bounded_and_never_beats_spot(
        pool_idx in 0usize..64, i in 0usize..4, j in 0usize..4, exp in 0u32..30, mantissa in 1u64..1000,
    ) {
        let s = snapshot();
        let pools = s.pools();
        let pool = &pools[pool_idx % pools.len()];
        let n = pool.tokens.len();
        let (i, j) = (i % n, j % n);
        prop_assume!(i != j);
        let x = U256::from(mantissa) * U256::from(10u8).pow(U256::from(exp));
        let r1 = pool.swap_exact_in(i, j, x);
        let r2 = pool.swap_exact_in(i, j, x * U256::from(2u8));
        if let Ok(a) = &r1 {
            // Never beats the marginal price (plus rounding slack of 1 unit).
            if let Some(spot) = pool.spot_rate(i, j) {
                let bound = u256_to_f64(x) * spot * (1.0 + 1e-9) + 1.0;
                prop_assert!(u256_to_f64(a.amount_out) <= bound, "{} > {}", a.amount_out, bound);
            }
            if let PoolState::UniswapV2 { reserves, .. } = &pool.state {
                prop_assert!(a.amount_out < U256::from(reserves[j]));
            }
            if let Ok(b) = &r2 {
                prop_assert!(b.amount_out >= a.amount_out, "not monotone");
            }
        }
        // Errors are typed. A trade that fails for liquidity while twice
        // its size succeeds was dust: it rounded to nothing (a V3 fee of
        // one wei takes a one-wei input whole), so either the input was a
        // couple of units or the double buys a couple of units.
        if let (Err(AmmError::InsufficientLiquidity), Ok(b)) = (&r1, &r2) {
            prop_assert!(
                x <= U256::from(2u8) || b.amount_out <= U256::from(2u8),
                "{x} failed but {} came out of twice it", b.amount_out
            );
        }
    }

    #[test]
    fn shadow_tracks_exact_for_small_trades(pool_idx in 0usize..64, i in 0usize..2, frac in 1u32..100) {
        let s = snapshot();
        let pools = s.pools();
        let pool = &pools[pool_idx % pools.len()];
        let j = 1 - i;
        prop_assume!(pool.tokens.len() == 2 || matches!(pool.state, PoolState::UniswapV2 { .. } | PoolState::UniswapV3 { .. }));
        // A trade of frac/1e6 of the pool's depth.
        let x = pool.depth(i) * f64::from(frac) / 1e6;
        prop_assume!(x > 1e6 && x < 1e30);
        let amount = U256::from(x as u128);
        if let Ok(exact) = pool.swap_exact_in(i, j, amount) {
            let shadow = pool.shadow_out(i, j, u256_to_f64(amount));
            let e = u256_to_f64(exact.amount_out);
            prop_assert!((shadow - e).abs() <= e * 1e-3 + 2.0, "shadow {shadow} vs exact {e}");
        }
    }
}
