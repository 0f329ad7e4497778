//! Properties of the exact pool math over every pool of the demo market:
//! output is monotone in input, never reaches the pool's reserve, never beats
//! the spot price, and the shadow quote stays close to it for small trades.

use alloy_primitives::U256;
use proptest::prelude::*;
use switchyard_kernel::{
    PoolState, RangeHint,
    amm::{AmmError, Quick, uniswap_v2},
    pool::u256_to_f64,
};

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
            // A StableSwap deposit charges every other coin the imbalance
            // fee on its distance from `D1 · old / D0`, which grows with the
            // deposit: thousands of times the pool's own balance of the coin
            // in, that fee nears the other coins' whole balances, so the
            // mint falls and then the contract underflows (the kernel's
            // `InvalidState`). The contract does this too
            // (`exec/tests/differential_pools.rs` deposits up to 2^110 raw
            // units on the reference pools), so it is held monotone below.
            let outsized_join = match &pool.state {
                PoolState::Stableswap(st) if pool.lp_index() == Some(j) => st
                    .balances
                    .get(i)
                    .is_none_or(|bal| u256_to_f64(x) > 1e3 * u256_to_f64(*bal)),
                _ => false,
            };
            if let (Ok(b), false) = (&r2, outsized_join) {
                prop_assert!(b.amount_out >= a.amount_out, "not monotone");
            }
        }
        // Errors are typed. A trade that fails for liquidity while twice
        // its size succeeds was dust: it rounded to nothing (a V3 fee of
        // one wei takes a one-wei input whole), so either the input was a
        // couple of units or the double buys a couple of units.
        // A pair's burn is refused when either coin rounds to nothing, so
        // a zap out of its liquidity token is dust when the double burns
        // a couple of units of one coin; a Balancer join likewise below its
        // power's error bound.
        if let (Err(AmmError::InsufficientLiquidity), Ok(b)) = (&r1, &r2) {
            let burned_dust = match &pool.state {
                PoolState::UniswapV2Lp(p) if pool.lp_index() == Some(i) => {
                    let reserves = pool.state.v2_reserves().unwrap_or_default();
                    uniswap_v2::burn(x * U256::from(2u8), reserves, p.liquidity)
                        .is_ok_and(|burned| burned.amount.iter().any(|a| *a <= U256::from(2u8)))
                }
                // A zap into a pair's liquidity token sells part of the coin
                // for the other: a sale that buys nothing mints nothing,
                // while twice it buys a unit or two.
                PoolState::UniswapV2Lp(p) if pool.lp_index() == Some(j) => {
                    let reserves = pool.state.v2_reserves().unwrap_or_default();
                    uniswap_v2::zap_in(x * U256::from(2u8), i, reserves, p.fee_bps, p.liquidity)
                        .is_ok_and(|zap| zap.bought <= U256::from(2u8))
                }
                // A Balancer join's invariant ratio is a product of
                // `powDown`s, each less its error bound (about 1e-14,
                // relative): a join that grows the invariant by less mints
                // nothing, while twice it mints a sliver of the supply.
                PoolState::Weighted(w) if pool.lp_index() == Some(j) => w
                    .bpt_supply
                    .is_some_and(|supply| u256_to_f64(b.amount_out) <= u256_to_f64(supply) * 1e-13),
                // An exit into one coin likewise: the invariant's ratio
                // less its error bound leaves nothing of a sliver of BPT,
                // while twice it pays a sliver of the coin's balance.
                PoolState::Weighted(w) if pool.lp_index() == Some(i) => {
                    w.balances.get(j).is_some_and(|bal| {
                        u256_to_f64(b.amount_out) <= u256_to_f64(*bal) * 1e-13
                    })
                }
                _ => false,
            };
            prop_assert!(
                x <= U256::from(2u8) || b.amount_out <= U256::from(2u8) || burned_dust,
                "{x} failed but {} came out of twice it", b.amount_out
            );
        }
    }

    #[test]
    fn a_v3_range_hint_changes_no_shadow(
        pool_idx in 0usize..64, i in 0usize..2, exp in 0u32..30, mantissa in 1u64..1000, off in -2000i32..2000,
    ) {
        // The snapshot's V3 states carry their hint: the same bits with it,
        // without it, and with one computed for another tick, for trades
        // in range and across ticks.
        let s = snapshot();
        let v3: Vec<_> =
            s.pools().iter().filter(|p| matches!(p.state, PoolState::UniswapV3(_))).collect();
        prop_assume!(!v3.is_empty());
        let pool = v3[pool_idx % v3.len()];
        let amount = u256_to_f64(U256::from(mantissa) * U256::from(10u8).pow(U256::from(exp)));
        let with = |range: Option<RangeHint>| {
            let mut p = pool.clone();
            if let PoolState::UniswapV3(st) = &mut p.state {
                st.range = range.unwrap_or_else(|| RangeHint::of(st.tick + off, &st.ticks));
            }
            p.shadow_out(i, 1 - i, amount).to_bits()
        };
        let hinted = pool.shadow_out(i, 1 - i, amount).to_bits();
        prop_assert_eq!(with(Some(RangeHint::default())), hinted);
        prop_assert_eq!(with(None), hinted);
    }

    #[test]
    fn the_quick_shadow_is_the_pools_own(
        pool_idx in 0usize..256, i in 0usize..3, j in 0usize..3, exp in 0u32..30, mantissa in 1u64..1000,
    ) {
        // The pool table's one-line shadow answers bit for bit what the
        // pool answers, or leaves it to the pool: every embedded pool, in
        // range and across ticks, any direction (invalid ones too).
        let s = snapshot();
        let pools = s.pools();
        let k = pool_idx % pools.len();
        let amount = u256_to_f64(U256::from(mantissa) * U256::from(10u8).pow(U256::from(exp)));
        let own = pools[k].shadow_out(i, j, amount).to_bits();
        prop_assert_eq!(pools.shadow_out(k, i, j, amount).to_bits(), own);
        if let Some(quick) = Quick::of(&pools[k]).out(i, j, amount) {
            prop_assert_eq!(quick.to_bits(), own);
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

proptest! {
    #![proptest_config(ProptestConfig { cases: 600, ..ProptestConfig::default() })]

    /// A tokenized Curve pool's LP directions: one coin deposited and
    /// withdrawn again never returns more than went in, a withdrawal never
    /// burns past the supply or pays a coin's whole balance, and the
    /// shadow follows the exact mint (to 1e-6, or 1e-11 of the supply for
    /// a mint too small for the f64 invariant to resolve).
    #[test]
    fn curve_lp_round_trips_never_gain(
        b0 in 1u64..1_000_000_000, b1 in 1u64..1_000_000_000, dec1 in 6u8..=18,
        amp in 1u64..5_000, precise in any::<bool>(), supply_pct in 50u64..200,
        c in 0usize..2, exp in 0u32..8, mantissa in 1u64..1_000,
    ) {
        use alloy_primitives::Address;
        use switchyard_catalog::ChainId;
        use switchyard_kernel::{Pool, PoolTokens, StableswapState};
        let e = |n: u64, d: u8| U256::from(n) * U256::from(10u8).pow(U256::from(d));
        let balances = vec![e(b0, 18), e(b1, dec1)];
        let supply = e(b0 + b1, 18) * U256::from(supply_pct) / U256::from(100u8);
        let a_precision = if precise { 100u64 } else { 1 };
        let pool = Pool {
            chain: ChainId(1),
            address: Address::with_last_byte(0xee),
            protocol: "curve".into(),
            tokens: PoolTokens::new([
                (Address::with_last_byte(1), 18),
                (Address::with_last_byte(2), dec1),
                (Address::with_last_byte(3), 18),
            ]),
            state: PoolState::Stableswap(Box::new(StableswapState {
                balances: balances.clone(),
                amp: U256::from(amp * a_precision),
                fee: U256::from(4_000_000u64),
                admin_fee: U256::from(5_000_000_000u64),
                a_precision: U256::from(a_precision),
                lp_supply: Some(supply),
            })),
        };
        let dec = if c == 0 { 18 } else { dec1 };
        let x = U256::from(mantissa) * U256::from(10u8).pow(U256::from(exp + u32::from(dec) - 2));
        if let Ok(minted) = pool.swap_exact_in(c, 2, x) {
            prop_assert!(minted.amount_out > U256::ZERO);
            let shadow = pool.shadow_out(c, 2, u256_to_f64(x));
            let exact = u256_to_f64(minted.amount_out);
            // The f64 invariant converges to 1e-12 of D, so a small mint (a
            // difference of two solves) is known to about that much of the
            // supply.
            let slack = exact * 1e-6 + u256_to_f64(supply) * 1e-11 + 2.0;
            prop_assert!((shadow - exact).abs() <= slack, "shadow {shadow} exact {exact}");
            let after = switchyard_kernel::Pool { state: minted.next.clone(), ..pool.clone() };
            if let Ok(back) = after.swap_exact_in(2, c, minted.amount_out) {
                prop_assert!(back.amount_out <= x, "{} back for {x}", back.amount_out);
            }
        }
        let lp = supply / U256::from(2u8 + exp as u8);
        if let Ok(out) = pool.swap_exact_in(2, c, lp) {
            prop_assert!(out.amount_out > U256::ZERO && out.amount_out < balances[c]);
        }
        prop_assert!(pool.swap_exact_in(2, c, supply + U256::ONE).is_err());
    }
}
