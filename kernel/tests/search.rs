//! Route search over the embedded demo market.

use std::collections::BTreeSet;

use alloy_primitives::U256;
use switchyard_catalog::{Address, ChainId, NATIVE_TOKEN, loaders};
use switchyard_kernel::{
    KernelError, LadderPoint, MarketSnapshot, Plan, RouteRequest, SearchParams, StepAction,
    find_routes, ladder,
};

const USDC: &str = "0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48";
const WETH: &str = "0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2";
const WBTC: &str = "0x2260fac5e5542a773aa44fbcfedf7c193bc2c599";
const SDAI: &str = "0x83f20f44975d03b1b09e64809b757c47f942beea";
const WSTETH: &str = "0x7f39c581f595b53c5cb19bd0b3f8da6c935e2ca0";

mod common;

use common::{a, e, replay::replay, snapshot};

fn quote(
    s: &MarketSnapshot,
    from: &str,
    amount: U256,
    to: &str,
    params: &SearchParams,
) -> Result<Plan, KernelError> {
    common::route(s, from, amount, to, None, params)
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

/// Trades far beyond the market's depth, where the optimal stage drains
/// pools (V3 ones to their last tick) over long paths: the plan spends the
/// whole input, replays exactly (a flow split between the ends shares at
/// each token exactly what arrived there), does no worse than the best
/// single path, and keeps within the limits on paths and pools per path.
#[test]
fn trades_that_drain_the_market_spend_their_whole_input_and_replay() {
    let s = snapshot();
    let mut flows = 0;
    for (from, amount, to) in
        [(USDC, e(300_000_000, 6), WETH), (WETH, e(150_000, 18), USDC), (WBTC, e(5_000, 8), USDC)]
    {
        let params = SearchParams::default();
        let plan = quote(&s, from, amount, to, &params).expect("route");
        replay(&s, &plan);
        let single =
            quote(&s, from, amount, to, &SearchParams { max_splits: 1, ..SearchParams::default() })
                .expect("route");
        assert!(plan.amounts_out[0] >= single.amounts_out[0], "{from} → {to}");
        let leg = &plan.legs[0];
        let from_input = leg.routes.iter().filter(|r| r.token_in() == Some(leg.token_in));
        assert_eq!(from_input.map(|r| r.amount_in).sum::<U256>(), amount);
        assert!(leg.routes.len() <= params.max_splits.max(params.max_optimal_paths));
        let hops = params.max_hops.max(params.max_optimal_hops);
        assert!(leg.routes.iter().all(|r| r.steps.len() <= hops), "{from} → {to}");
        if leg.splits_between() {
            flows += 1;
            // Each pool once: what a pool could not take went to another
            // route of its token, not down the same pool again.
            let pools: BTreeSet<usize> =
                leg.routes.iter().flat_map(|r| &r.steps).map(|st| st.pool).collect();
            assert_eq!(pools.len(), leg.routes.iter().map(|r| r.steps.len()).sum::<usize>());
        }
    }
    // 5,000 WBTC into USDC drains the embedded market through its middle
    // tokens: the flow splits and merges there.
    assert!(flows > 0, "some drained trade splits between its ends");
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
        destination_chain: None,
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
                .all(|st| !params.excluded_protocols.contains(&*st.protocol))
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

const BASE: ChainId = ChainId(8453);
const BASE_WETH: &str = "0x4200000000000000000000000000000000000006";

fn cross_chain(
    s: &MarketSnapshot,
    from: &str,
    amount: U256,
    to: &str,
    params: &SearchParams,
) -> Result<Plan, KernelError> {
    common::route(s, from, amount, to, Some(BASE), params)
}

#[test]
fn cross_chain_route_swaps_bridges_once_and_swaps_on_arrival() {
    let s = snapshot();
    // WBTC on Ethereum into WETH on Base: no bridge carries WBTC, so the
    // route must swap first, bridge, and (for USDC) swap again on Base.
    let plan = cross_chain(&s, WBTC, e(1, 8), BASE_WETH, &SearchParams::default())
        .expect("cross-chain route");
    replay(&s, &plan);
    assert_eq!((plan.chain, plan.destination_chain), (ChainId(1), BASE));
    for r in &plan.legs[0].routes {
        let bridges: Vec<_> = r.steps.iter().filter(|st| st.action == StepAction::Bridge).collect();
        assert_eq!(bridges.len(), 1, "one bridge per path");
        let at = r.steps.iter().position(|st| st.action == StepAction::Bridge).expect("bridge");
        assert!(r.steps[..at].iter().all(|st| st.chain == ChainId(1) && st.to_chain == ChainId(1)));
        assert!(r.steps[at + 1..].iter().all(|st| st.chain == BASE && st.to_chain == BASE));
        assert_eq!(r.steps.last().map(|st| st.token_out), Some(a(BASE_WETH)));
    }
    assert!(!plan.bridging.is_empty());
    assert!(plan.bridging.iter().all(|b| b.from_chain == ChainId(1) && b.to_chain == BASE));
    // 1 WBTC ≈ $95k ≈ 30 WETH, less fees and slippage.
    let out = plan.amounts_out[0];
    assert!(out > e(25, 18) && out < e(35, 18), "{out}");
}

#[test]
fn ignored_bridges_are_not_used() {
    let s = snapshot();
    let first =
        cross_chain(&s, USDC, e(10_000, 6), BASE_WETH, &SearchParams::default()).expect("route");
    let used: BTreeSet<String> = first.bridging.iter().map(|b| b.bridge.clone()).collect();
    let params = SearchParams { excluded_bridges: used.clone(), ..SearchParams::default() };
    match cross_chain(&s, USDC, e(10_000, 6), BASE_WETH, &params) {
        Ok(plan) => {
            replay(&s, &plan);
            assert!(plan.bridging.iter().all(|b| !used.contains(&b.bridge)), "{used:?}");
        }
        Err(err) => assert!(matches!(err, KernelError::NoRoute { .. })),
    }
    let none = SearchParams {
        excluded_bridges: ["cctp", "stargate", "ccip", "relay"].map(str::to_owned).into(),
        ..SearchParams::default()
    };
    assert!(matches!(
        cross_chain(&s, USDC, e(10_000, 6), BASE_WETH, &none),
        Err(KernelError::NoRoute { .. })
    ));
}

#[test]
fn same_chain_routes_never_bridge() {
    let s = snapshot();
    let plan = quote(&s, WBTC, e(1, 8), USDC, &SearchParams::default()).expect("route");
    assert!(plan.bridging.is_empty());
    assert!(plan.legs[0].routes.iter().flat_map(|r| &r.steps).all(|st| st.chain == ChainId(1)));
}

#[test]
fn a_broken_pool_is_quarantined_and_the_search_goes_on() {
    let c = loaders::embedded_catalog().expect("catalog");
    let mut m = loaders::embedded_market(&c).expect("market");
    // Break Curve's 3pool: A_PRECISION 0 makes its exact math report an
    // inconsistent state (the shadow still ranks it).
    let three_pool: Address = a("0xbebc44782c7db0a1a60cb6fe97d0b483032ff1c7");
    for p in &mut m.pools {
        if let switchyard_catalog::PoolRecord::Stableswap(r) = p
            && r.address == three_pool
        {
            r.a_precision = Some(0);
        }
    }
    let s = MarketSnapshot::build(&m, &c).expect("snapshot");
    const USDT: &str = "0xdac17f958d2ee523a2206206994597c13d831ec7";
    let plan = quote(&s, USDC, e(100_000, 6), USDT, &SearchParams::default()).expect("route");
    replay(&s, &plan);
    assert!(plan.legs[0].routes.iter().flat_map(|r| &r.steps).all(|st| st.address != three_pool));
}

/// A ladder point on Ethereum as a one-leg plan, to replay.
fn plan_of(p: &LadderPoint) -> Plan {
    Plan {
        chain: ChainId(1),
        destination_chain: ChainId(1),
        bridging: Vec::new(),
        amounts_out: vec![p.leg.amount_out],
        gas: p.gas,
        legs: vec![p.leg.clone()],
    }
}

/// A ladder's every point is exact (it replays step by step), its two ends
/// are the quotes of their amounts, and a split appears where the amount
/// calls for one.
#[test]
fn every_ladder_point_replays_exactly_and_its_ends_are_quotes() {
    let s = snapshot();
    let params = SearchParams::default();
    let amounts: Vec<U256> = (0..24u32)
        .map(|k| e(1_000, 6) * U256::from(3u32).pow(U256::from(k / 2)) * U256::from(k % 2 + 1))
        .collect();
    let (from, to) = (a(USDC), a(WETH));
    let points = ladder(&s, ChainId(1), from, to, &amounts, &params).expect("ladder");
    assert_eq!(points.len(), amounts.len());
    for (k, (p, amount)) in points.iter().zip(&amounts).enumerate() {
        assert_eq!(p.leg.amount_in, *amount);
        replay(&s, &plan_of(p));
        assert!(p.marginal > 0.0);
        if k == 0 || k + 1 == amounts.len() {
            let q = quote(&s, USDC, *amount, WETH, &params).expect("quote");
            assert_eq!(q.amounts_out[0], p.leg.amount_out, "point {k} is its quote");
        }
        if k > 0 {
            assert!(p.leg.amount_out > points[k - 1].leg.amount_out, "point {k} rises");
        }
    }
    assert!(points.last().is_some_and(|p| p.leg.routes.len() > 1), "the largest point splits");
    assert!(matches!(
        ladder(&s, ChainId(1), from, to, &[], &params),
        Err(KernelError::EmptyRequest)
    ));
}

/// A ladder whose largest amount drains the market: its last point is the
/// optimal flow split between the ends, and every point below it is exact,
/// above the one before, and within 3% of its own quote (the points
/// between are allocated over whole paths: the same search's at the
/// largest amount without such flows, and the smallest amount's).
#[test]
fn a_ladder_up_to_a_flow_keeps_every_point() {
    let s = snapshot();
    let params = SearchParams::default();
    let amounts: Vec<U256> =
        [1u64, 10, 100, 500, 1_000, 2_000, 3_500, 5_000].into_iter().map(|btc| e(btc, 8)).collect();
    let points = ladder(&s, ChainId(1), a(WBTC), a(USDC), &amounts, &params).expect("every point");
    assert_eq!(points.len(), amounts.len());
    for (k, p) in points.iter().enumerate() {
        replay(&s, &plan_of(p));
        if k > 0 {
            assert!(p.leg.amount_out > points[k - 1].leg.amount_out, "point {k} rises");
        }
        let q = quote(&s, WBTC, p.leg.amount_in, USDC, &params).expect("quote").amounts_out[0];
        // `-- --nocapture` prints each point against its own quote (ppm).
        eprintln!(
            "point {k}: {} ppm of its quote",
            p.leg.amount_out * U256::from(1_000_000u32) / q
        );
        assert!(p.leg.amount_out * U256::from(100u32) >= q * U256::from(97u32), "point {k}");
    }
    assert!(points.last().is_some_and(|p| p.leg.splits_between()), "5,000 WBTC is a flow");
}

/// Re-checks an exact-output plan backwards: every step takes what the
/// pool's exact-output math asks for the step after it, on the states the
/// earlier paths leave.
fn replay_exact_out(s: &MarketSnapshot, plan: &Plan) {
    let mut states = std::collections::BTreeMap::new();
    let leg = &plan.legs[0];
    let mut total_in = U256::ZERO;
    for r in &leg.routes {
        total_in += r.amount_in;
        let mut need = r.steps.last().expect("a step").amount_out;
        let mut next = Vec::new();
        for st in r.steps.iter().rev() {
            let pool = &s.pools()[st.pool];
            let i = pool.index_of(st.token_in).expect("token in");
            let j = pool.index_of(st.token_out).expect("token out");
            let sw = pool
                .swap_exact_out_from(states.get(&st.pool).unwrap_or(&pool.state), i, j, need)
                .expect("exact out");
            assert_eq!((sw.amount_in, sw.amount_out), (st.amount_in, st.amount_out));
            next.push((st.pool, sw.next));
            need = sw.amount_in;
        }
        states.extend(next);
        assert_eq!(r.amount_in, need);
    }
    assert_eq!(total_in, leg.amount_in);
}

fn exact_out(
    s: &MarketSnapshot,
    from: &str,
    to: &str,
    want: U256,
    params: &SearchParams,
) -> Result<Plan, KernelError> {
    switchyard_kernel::find_routes_exact_out(
        s,
        &switchyard_kernel::ExactOutRequest {
            chain: ChainId(1),
            token_in: a(from),
            token_out: a(to),
            amount_out: want,
            hint_in: None,
        },
        params,
    )
}

#[test]
fn an_exact_output_is_the_least_input_the_search_finds() {
    let s = snapshot();
    let uniswap =
        SearchParams { kinds: switchyard_kernel::PoolKinds::Uniswap, ..SearchParams::default() };
    for (from, to, want) in [
        (USDC, WETH, e(1, 18)),
        (WETH, USDC, e(2_500, 6)),
        (USDC, WBTC, e(3, 8)),
        // Large: split over several pools.
        (USDC, WETH, e(3_000, 18)),
    ] {
        for params in [&SearchParams::default(), &uniswap] {
            let plan = exact_out(&s, from, to, want, params).expect("exact out");
            replay_exact_out(&s, &plan);
            let got = plan.amounts_out[0];
            assert!(got >= want, "{from}→{to}: {got} < {want}");
            if params.kinds == switchyard_kernel::PoolKinds::Uniswap {
                assert_eq!(got, want, "Uniswap pools deliver exactly the output");
                assert!(
                    plan.legs[0]
                        .routes
                        .iter()
                        .flat_map(|r| &r.steps)
                        .all(
                            |st| st.protocol.starts_with("uniswap") || st.protocol.contains("swap")
                        )
                );
            }
            // The exact-in search gets about the same for that input, and
            // half a percent less input falls short.
            let input = plan.legs[0].amount_in;
            let forward = quote(&s, from, input, to, params).expect("exact in").amounts_out[0];
            assert!(
                forward <= want + want / U256::from(200u32),
                "{from}→{to}: {forward} for {input}, {want} asked"
            );
            let less = quote(&s, from, input - input / U256::from(200u32), to, params)
                .map(|p| p.amounts_out[0])
                .unwrap_or_default();
            assert!(less < want, "{from}→{to}: {less} from 0.5% less than {input}");
        }
    }
    let large = exact_out(&s, USDC, WETH, e(8_000, 18), &SearchParams::default()).expect("large");
    assert!(large.legs[0].routes.len() > 1, "8,000 WETH should come from several pools");
    assert!(matches!(
        exact_out(&s, USDC, WETH, e(100_000_000, 18), &SearchParams::default()),
        Err(KernelError::NoRoute { .. })
    ));
}
