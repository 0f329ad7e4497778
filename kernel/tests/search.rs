//! Route search over the embedded demo market.

use std::collections::BTreeSet;

use alloy_primitives::U256;
use switchyard_catalog::{Address, ChainId, NATIVE_TOKEN, loaders};
use switchyard_kernel::{
    KernelError, MarketSnapshot, Plan, RouteRequest, SearchParams, find_routes,
};

const USDC: &str = "0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48";
const WETH: &str = "0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2";
const WBTC: &str = "0x2260fac5e5542a773aa44fbcfedf7c193bc2c599";
const SDAI: &str = "0x83f20f44975d03b1b09e64809b757c47f942beea";
const WSTETH: &str = "0x7f39c581f595b53c5cb19bd0b3f8da6c935e2ca0";

fn a(s: &str) -> Address {
    s.parse().expect("address")
}

fn snapshot() -> MarketSnapshot {
    let c = loaders::embedded_catalog().expect("catalog");
    let m = loaders::embedded_market(&c).expect("market");
    MarketSnapshot::build(&m, &c).expect("snapshot")
}

fn e(n: u64, dec: u32) -> U256 {
    U256::from(n) * U256::from(10u8).pow(U256::from(dec))
}

fn quote(
    s: &MarketSnapshot,
    from: &str,
    amount: U256,
    to: &str,
    params: &SearchParams,
) -> Result<Plan, KernelError> {
    find_routes(
        s,
        &RouteRequest { chain: ChainId(1), inputs: vec![(a(from), amount)], outputs: vec![a(to)] },
        params,
    )
}

/// Re-executes a plan's steps from the snapshot, in order, and checks that
/// every amount in it is what the pool math gives: the plan is its own proof.
fn replay(s: &MarketSnapshot, plan: &Plan) {
    let mut states = std::collections::BTreeMap::new();
    for leg in &plan.legs {
        let mut total_in = U256::ZERO;
        for r in &leg.routes {
            total_in += r.amount_in;
            let mut x = r.amount_in;
            for st in &r.steps {
                assert_eq!(st.amount_in, x);
                let pool = &s.pools()[st.pool];
                let i = pool.index_of(st.token_in).expect("token in");
                let j = pool.index_of(st.token_out).expect("token out");
                let sw = pool
                    .swap_exact_in_from(states.get(&st.pool).unwrap_or(&pool.state), i, j, x)
                    .expect("swap");
                assert_eq!(sw.amount_out, st.amount_out);
                states.insert(st.pool, sw.next);
                x = sw.amount_out;
            }
            assert_eq!(r.amount_out, x);
        }
        assert_eq!(total_in, leg.amount_in);
    }
}

#[test]
fn usdc_to_weth_is_about_spot_and_replays_exactly() {
    let s = snapshot();
    let plan = quote(&s, USDC, e(3_000, 6), WETH, &SearchParams::default()).expect("route");
    replay(&s, &plan);
    let out = plan.amounts_out[0];
    // 3000 USDC at ETH ≈ 3000: a little under 1 WETH after fees.
    assert!(out > e(99, 16) && out < e(1, 18), "{out}");
    assert!(plan.gas > 100_000);
}

#[test]
fn a_large_trade_splits_and_beats_the_best_single_path() {
    let s = snapshot();
    let amount = e(30_000_000, 6);
    let single =
        quote(&s, USDC, amount, WETH, &SearchParams { max_splits: 1, ..SearchParams::default() })
            .expect("route");
    let split = quote(&s, USDC, amount, WETH, &SearchParams::default()).expect("route");
    replay(&s, &split);
    assert!(split.amounts_out[0] >= single.amounts_out[0]);
    assert!(split.legs[0].routes.len() > 1, "a $30M trade should use several pools");
}

#[test]
fn multi_hop_into_a_vault() {
    let s = snapshot();
    let plan = quote(&s, WBTC, e(1, 8), SDAI, &SearchParams::default()).expect("route");
    replay(&s, &plan);
    let steps = &plan.legs[0].routes[0].steps;
    assert!(steps.len() >= 2);
    assert_eq!(steps.last().map(|s| s.action.as_str()), Some("deposit"));
    // 1 BTC ≈ $95k ≈ 82.6k sDAI at 1.15 DAI per share.
    let out = plan.amounts_out[0];
    assert!(out > e(78_000, 18) && out < e(84_000, 18), "{out}");
}

#[test]
fn native_eth_to_wsteth_through_staking() {
    let s = snapshot();
    let plan = quote(
        &s,
        "0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee",
        e(10, 18),
        WSTETH,
        &SearchParams::default(),
    )
    .expect("route");
    replay(&s, &plan);
    let out = plan.amounts_out[0];
    // wstETH ≈ 1.2 ETH.
    assert!(out > e(8, 18) && out < e(85, 17), "{out}");
}

#[test]
fn multi_input_into_one_output_chains_state() {
    let s = snapshot();
    let req = RouteRequest {
        chain: ChainId(1),
        inputs: vec![(a(USDC), e(1_000_000, 6)), (a(WBTC), e(10, 8))],
        outputs: vec![a(WETH)],
    };
    let plan = find_routes(&s, &req, &SearchParams::default()).expect("route");
    replay(&s, &plan);
    assert_eq!(plan.legs.len(), 2);
    assert_eq!(plan.amounts_out[0], plan.legs[0].amount_out + plan.legs[1].amount_out);
}

#[test]
fn same_plan_whatever_the_thread_count() {
    let s = snapshot();
    let params = SearchParams { max_candidates: 64, ..SearchParams::default() };
    let run = |threads| {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().expect("pool");
        pool.install(|| quote(&s, WBTC, e(500, 8), SDAI, &params).expect("route"))
    };
    assert_eq!(run(1), run(4));
}

#[test]
fn filters_and_no_route() {
    let s = snapshot();
    let params = SearchParams {
        excluded_protocols: BTreeSet::from([
            "uniswap-v2".to_owned(),
            "uniswap-v3".to_owned(),
            "curve".to_owned(),
        ]),
        ..SearchParams::default()
    };
    match quote(&s, USDC, e(1_000, 6), WETH, &params) {
        Ok(plan) => assert!(
            plan.legs[0]
                .routes
                .iter()
                .flat_map(|r| &r.steps)
                .all(|st| !params.excluded_protocols.contains(&st.protocol))
        ),
        Err(e) => assert!(matches!(e, KernelError::NoRoute { .. })),
    }
    let nowhere = quote(
        &s,
        USDC,
        e(1, 6),
        "0x0000000000000000000000000000000000000001",
        &SearchParams::default(),
    );
    assert!(matches!(nowhere, Err(KernelError::NoRoute { .. })));
    assert!(matches!(
        quote(&s, USDC, e(1, 6), USDC, &SearchParams::default()),
        Err(KernelError::SameToken)
    ));
    let _ = NATIVE_TOKEN;
}
