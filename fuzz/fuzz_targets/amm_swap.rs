//! Random pool states and amounts through the exact pool math: it never
//! panics, output stays below the reserve, and for constant-product pools
//! the f64 shadow quote agrees with the exact one within 1e-9 relative plus
//! one unit.

#![no_main]

use alloy_primitives::{Address, U256};
use libfuzzer_sys::fuzz_target;
use switchyard_catalog::ChainId;
use switchyard_kernel::{Pool, PoolState, pool::u256_to_f64};

fn u(bytes: &[u8]) -> U256 {
    let mut b = [0u8; 32];
    let n = bytes.len().min(32);
    b[32 - n..].copy_from_slice(&bytes[..n]);
    U256::from_be_bytes(b)
}

fuzz_target!(|data: &[u8]| {
    if data.len() < 40 {
        return;
    }
    let kind = data[0] % 3;
    let amount = u(&data[1..13]);
    let state = match kind {
        0 => PoolState::UniswapV2 { reserves: [u(&data[13..26]), u(&data[26..39])], fee_bps: u32::from(data[39]) },
        1 => PoolState::UniswapV3 {
            sqrt_price_x96: u(&data[13..33]),
            liquidity: u128::from_be_bytes({
                let mut b = [0u8; 16];
                b[10..].copy_from_slice(&data[33..39]);
                b
            }),
            tick: i32::from(i16::from_be_bytes([data[39], data[0]])) * 10,
            fee: 3000,
            tick_spacing: 60,
            ticks: std::sync::Arc::from(vec![(-887_220, 1i128 << 40), (887_220, -(1i128 << 40))]),
        },
        _ => PoolState::Erc4626 { total_assets: u(&data[13..26]), total_supply: u(&data[26..39]) },
    };
    let pool = Pool {
        chain: ChainId(1),
        address: Address::ZERO,
        protocol: "fuzz".into(),
        tokens: vec![Address::with_last_byte(1), Address::with_last_byte(2)],
        decimals: vec![18, 18],
        state,
    };
    for (i, j) in [(0, 1), (1, 0)] {
        let Ok(s) = pool.swap_exact_in(i, j, amount) else { continue };
        if let PoolState::UniswapV2 { reserves, .. } = &pool.state {
            assert!(s.amount_out < reserves[j]);
            let shadow = pool.shadow_out(i, j, u256_to_f64(amount));
            let exact = u256_to_f64(s.amount_out);
            assert!((shadow - exact).abs() <= exact * 1e-9 + 1.0, "shadow {shadow} exact {exact}");
        }
    }
});
