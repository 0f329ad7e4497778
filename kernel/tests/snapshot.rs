//! Applying state deltas to a snapshot: copy on write, validated, and the
//! quote follows the new state while readers of the old snapshot keep theirs.

use alloy_primitives::{U128, U256};
use switchyard_catalog::ChainId;
use switchyard_kernel::{
    ChainHead, KernelError, MarketSnapshot, PoolState, SearchParams, SnapshotDelta, StableswapState,
};

const USDC: &str = "0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48";
const WETH: &str = "0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2";

mod common;

use common::{a, snapshot};

fn usdc_to_weth(s: &MarketSnapshot) -> U256 {
    let params = SearchParams { max_splits: 1, ..SearchParams::default() };
    common::route(s, USDC, U256::from(3_000_000_000u64), WETH, None, &params)
        .expect("route")
        .amounts_out[0]
}

/// Every pool on chain 1 that trades USDC against WETH, with its index.
fn usdc_weth_pools(s: &MarketSnapshot) -> Vec<usize> {
    s.pools()
        .iter()
        .enumerate()
        .filter(|(_, p)| {
            p.chain == ChainId(1) && p.index_of(a(USDC)).is_some() && p.index_of(a(WETH)).is_some()
        })
        .map(|(k, _)| k)
        .collect()
}

#[test]
fn a_delta_moves_the_quote_and_leaves_the_old_snapshot_alone() {
    let s = snapshot();
    let before = usdc_to_weth(&s);
    // Halve WETH in every USDC/WETH V2 pool: WETH gets dearer.
    let mut delta = SnapshotDelta::default();
    for k in usdc_weth_pools(&s) {
        // A pair whose liquidity token is listed keeps its supply.
        let state = &s.pools()[k].state;
        if let Some(mut r) = state.v2_reserves() {
            let w = s.pools()[k].index_of(a(WETH)).expect("weth");
            r[w] /= U256::from(2u8);
            delta.pools.push((k, state.v2_with(r, None).expect("within uint112")));
        }
    }
    assert!(!delta.pools.is_empty(), "the demo market has a USDC/WETH V2 pool");
    let head = ChainHead { block_number: 99, timestamp: 1, gas_price_wei: U256::from(1u8) };
    delta.heads.push((ChainId(1), head));
    let next = s.apply(&delta).expect("applies");
    assert!(usdc_to_weth(&next) <= before);
    assert_eq!(usdc_to_weth(&s), before, "the old snapshot is untouched");
    assert_eq!(next.head(ChainId(1)), Some(&head));
    for (k, state) in &delta.pools {
        assert_eq!(&next.pools()[*k].state, state);
        assert_ne!(&s.pools()[*k].state, state);
    }
    // Pools the delta does not name keep their state; those in a chunk it
    // does not touch are shared, not copied.
    let untouched: Vec<usize> =
        (0..s.pools().len()).filter(|k| delta.pools.iter().all(|(d, _)| d != k)).collect();
    assert!(untouched.iter().all(|k| s.pools()[*k] == next.pools()[*k]));
    let chunk = |k: usize| k / switchyard_kernel::pools::CHUNK;
    let far = untouched.iter().find(|k| delta.pools.iter().all(|(d, _)| chunk(*d) != chunk(**k)));
    assert!(next.pools().shares(s.pools(), *far.expect("a chunk the delta leaves alone")));
    for (k, _) in &delta.pools {
        assert!(!next.pools().shares(s.pools(), *k));
    }
}

#[test]
fn a_delta_that_does_not_fit_is_refused_whole() {
    let s = snapshot();
    let v2 = s
        .pools()
        .iter()
        .position(|p| matches!(p.state, PoolState::UniswapV2 { .. }))
        .expect("a V2 pool");
    let stable = s
        .pools()
        .iter()
        .position(|p| matches!(p.state, PoolState::Stableswap { .. }))
        .expect("a stableswap pool");
    let fine = (v2, PoolState::UniswapV2 { reserves: [U128::from(1u8); 2], fee_bps: 30 });
    // Another kind for the pool.
    let wrong_kind = SnapshotDelta {
        pools: vec![fine.clone(), (stable, PoolState::Wrap)],
        ..SnapshotDelta::default()
    };
    assert_eq!(s.apply(&wrong_kind).err(), Some(KernelError::BadDelta { pool: stable }));
    // The same kind with another number of coins.
    let PoolState::Stableswap(three) = s.pools()[stable].state.clone() else { unreachable!() };
    let one_coin = StableswapState { balances: vec![U256::from(1u8)], ..*three };
    let wrong_shape = SnapshotDelta {
        pools: vec![(stable, PoolState::Stableswap(Box::new(one_coin)))],
        ..SnapshotDelta::default()
    };
    assert_eq!(s.apply(&wrong_shape).err(), Some(KernelError::BadDelta { pool: stable }));
    // A pool that does not exist.
    let missing = SnapshotDelta {
        pools: vec![(s.pools().len(), fine.1.clone())],
        ..SnapshotDelta::default()
    };
    assert!(matches!(s.apply(&missing), Err(KernelError::BadDelta { .. })));
    // And a delta that fits applies.
    assert!(s.apply(&SnapshotDelta { pools: vec![fine], ..SnapshotDelta::default() }).is_ok());
}
