//! Random pool states and amounts through the exact pool math of every kind
//! with free parameters (constant product, concentrated liquidity,
//! StableSwap, Balancer weighted, ERC-4626): it never panics, the output
//! stays below what the pool holds, and the f64 shadow quote agrees with the
//! exact one within a stated bound:
//!
//! - constant product: 1e-9 relative plus one unit;
//! - concentrated liquidity (the shadow walks the same ticks): 1e-6
//!   relative plus 16 units, plus what `2·steps + 2` units of input buy at
//!   the rate the trade executed: the fee is taken off the input in whole
//!   units, and each step of the exact loop (one per bitmap word crossed)
//!   rounds its input and its fee up, which matters with dust liquidity at
//!   extreme prices;
//! - StableSwap's LP directions (a one-coin `add_liquidity` and
//!   `remove_liquidity_one_coin` of a tokenized pool): minted and paid
//!   amounts are positive, a withdrawal pays less than the coin's balance
//!   and burns no more than the supply, and a deposit withdrawn again
//!   never returns more than went in;
//! - weighted: 1e-6 relative plus 1e-13 of the output balance plus 16
//!   units (`powUp` widens the power by 1e-14, which moves the output by up
//!   to 1e-14 of the balance whatever the trade size), plus what two units of
//!   input buy (the fee is rounded up in whole units).

#![no_main]

use alloy_primitives::{Address, U256};
use libfuzzer_sys::fuzz_target;
use switchyard_catalog::{ChainId, market::VaultRule};
use switchyard_kernel::{
    Pool, PoolState, PoolTokens, RangeHint, StableswapState, TickList, V3State, VaultState,
    WeightedState,
    amm::{uniswap_v3::tick_at_sqrt_ratio, weighted::PowRule},
    pool::u256_to_f64,
};

fn u(bytes: &[u8]) -> U256 {
    let mut b = [0u8; 32];
    let n = bytes.len().min(32);
    b[32 - n..].copy_from_slice(&bytes[..n]);
    U256::from_be_bytes(b)
}

fn close(shadow: f64, exact: U256, rel: f64, abs: f64) {
    let exact = u256_to_f64(exact);
    assert!((shadow - exact).abs() <= exact * rel + abs, "shadow {shadow} exact {exact}");
}

fuzz_target!(|data: &[u8]| {
    if data.len() < 48 {
        return;
    }
    let kind = data[0] % 6;
    if kind == 5 {
        curve_lp(data);
        return;
    }
    let amount = u(&data[1..13]);
    let e18 = U256::from(1_000_000_000_000_000_000u64);
    let state = match kind {
        // 13 bytes: within the pair's `uint112`.
        0 => {
            let reserves = [u(&data[13..26]), u(&data[26..39])];
            let Some(s) = PoolState::uniswap_v2(reserves, u32::from(data[39])) else { return };
            s
        }
        1 => {
            // Liquidity in three ranges around the price, from the input; the
            // current tick is the price's, as in a real pool.
            let l = |k: usize| i128::from(u16::from_be_bytes([data[40 + k], data[41 + k]])) << 50;
            let sqrt_price_x96 = u(&data[13..33]);
            let Ok(tick) = tick_at_sqrt_ratio(sqrt_price_x96) else { return };
            let ticks = TickList::from(vec![
                (-887_220, 1i128 << 40),
                (-6_000, l(0)),
                (6_000, -l(0)),
                (60_000, l(2)),
                (120_000, -l(2)),
                (887_220, -(1i128 << 40)),
            ]);
            PoolState::UniswapV3(Box::new(V3State {
                sqrt_price_x96,
                liquidity: u128::from_be_bytes({
                    let mut b = [0u8; 16];
                    b[10..].copy_from_slice(&data[33..39]);
                    b
                }),
                tick,
                fee: [100, 500, 3000, 10_000][usize::from(data[47] % 4)],
                tick_spacing: 60,
                range: RangeHint::of(tick, &ticks),
                ticks,
            }))
        }
        2 => PoolState::Stableswap(Box::new(StableswapState {
            balances: vec![u(&data[13..26]), u(&data[26..39])],
            amp: U256::from(u16::from_be_bytes([data[39], data[40]])),
            fee: U256::from(u32::from_be_bytes([0, data[41], data[42], data[43]])),
            admin_fee: U256::from(5_000_000_000u64),
            a_precision: U256::from([1u8, 100][usize::from(data[44] % 2)]),
            lp_supply: None,
        })),
        3 => {
            // Weights from 1% to 99%, summing to 1e18.
            let w0 = e18 / U256::from(100u8) * U256::from(1 + data[39] % 99);
            PoolState::Weighted(Box::new(WeightedState {
                balances: vec![u(&data[13..26]), u(&data[26..39])],
                weights: vec![w0, e18 - w0],
                swap_fee: e18 / U256::from(1_000_000u32)
                    * U256::from(1 + u32::from(data[40]) * 100),
                pow_rule: if data[41] % 2 == 0 { PowRule::First } else { PowRule::Current },
                bpt_supply: None,
            }))
        }
        _ => PoolState::Erc4626(Box::new(VaultState {
            total_assets: u(&data[13..26]),
            total_supply: u(&data[26..39]),
            rule: if data[39] % 2 == 0 {
                VaultRule::Solmate
            } else {
                VaultRule::OpenZeppelin { decimals_offset: data[40] % 19 }
            },
        })),
    };
    let pool = Pool {
        chain: ChainId(1),
        address: Address::ZERO,
        protocol: "fuzz".into(),
        tokens: PoolTokens::new([
            (Address::with_last_byte(1), 18),
            (Address::with_last_byte(2), 18),
        ]),
        state,
    };
    // What `n` units of input buy at the rate the trade executed (the
    // better of the two quotes' rates: on a 2-unit trade the exact one may
    // have spent a single unit).
    let units =
        |n: f64, out: U256, shadow: f64| n * u256_to_f64(out).max(shadow) / u256_to_f64(amount);
    for (i, j) in [(0, 1), (1, 0)] {
        let shadow = pool.shadow_out(i, j, u256_to_f64(amount));
        let Ok(s) = pool.swap_exact_in(i, j, amount) else { continue };
        match &pool.state {
            PoolState::UniswapV2 { reserves, .. } => {
                assert!(s.amount_out < U256::from(reserves[j]));
                close(shadow, s.amount_out, 1e-9, 1.0);
            }
            PoolState::UniswapV3(v3) => {
                // The state's range hint changes no shadow: the same bits
                // priced from the tick list alone.
                let mut plain = pool.clone();
                if let PoolState::UniswapV3(p) = &mut plain.state {
                    p.range = RangeHint::default();
                }
                assert_eq!(plain.shadow_out(i, j, u256_to_f64(amount)).to_bits(), shadow.to_bits());
                // The exact loop stops at every bitmap word (256 spacings) and
                // rounds the input of each step, and its fee, up by a unit.
                let PoolState::UniswapV3(after) = &s.next else { continue };
                let steps = f64::from(
                    (after.tick - v3.tick).unsigned_abs() / (v3.tick_spacing as u32 * 256) + 2,
                );
                close(
                    shadow,
                    s.amount_out,
                    1e-6,
                    16.0 + units(2.0 * steps + 2.0, s.amount_out, shadow),
                );
            }
            PoolState::Stableswap(st) => assert!(s.amount_out < st.balances[j]),
            PoolState::Weighted(w) => {
                let balances = &w.balances;
                assert!(s.amount_out < balances[j]);
                let abs =
                    u256_to_f64(balances[j]) * 1e-13 + 16.0 + units(2.0, s.amount_out, shadow);
                close(shadow, s.amount_out, 1e-6, abs);
            }
            _ => {}
        }
    }
});

/// A tokenized two-coin StableSwap pool (the LP token third): one coin in
/// for LP tokens and LP tokens out into one coin.
fn curve_lp(data: &[u8]) {
    let amount = u(&data[1..13]);
    let balances = vec![u(&data[13..26]), u(&data[26..39])];
    let supply = u(&data[39..47]) * U256::from(1_000_000_000u64);
    let pool = Pool {
        chain: ChainId(1),
        address: Address::ZERO,
        protocol: "fuzz".into(),
        tokens: PoolTokens::new([
            (Address::with_last_byte(1), 18),
            (Address::with_last_byte(2), 6 + data[47] % 13),
            (Address::with_last_byte(3), 18),
        ]),
        state: PoolState::Stableswap(Box::new(StableswapState {
            balances: balances.clone(),
            amp: U256::from(1 + u32::from(data[47])) * U256::from(100u8),
            fee: U256::from(4_000_000u64),
            admin_fee: U256::from(5_000_000_000u64),
            a_precision: U256::from(100u8),
            lp_supply: Some(supply),
        })),
    };
    assert_eq!(pool.lp_index(), Some(2));
    for c in 0..2 {
        let _ = pool.shadow_out(c, 2, u256_to_f64(amount));
        let _ = pool.shadow_out(2, c, u256_to_f64(amount));
        let _ = pool.spot_rate(c, 2);
        if let Ok(out) = pool.swap_exact_in(2, c, amount) {
            assert!(out.amount_out > U256::ZERO && out.amount_out < balances[c]);
            assert!(amount <= supply);
        }
        if let Ok(minted) = pool.swap_exact_in(c, 2, amount) {
            assert!(minted.amount_out > U256::ZERO);
            let after = Pool { state: minted.next.clone(), ..pool.clone() };
            if let Ok(back) = after.swap_exact_in(2, c, minted.amount_out) {
                assert!(back.amount_out <= amount, "{} back for {amount}", back.amount_out);
            }
        }
    }
}
