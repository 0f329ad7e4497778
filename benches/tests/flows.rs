//! Large trades on synthetic markets of Uniswap V2 pairs and V3 pools,
//! where the optimal flow is executed as it is (split and merged at
//! intermediate tokens): every plan re-executes exactly from its snapshot,
//! each token's routes sharing exactly what arrived there, and no plan
//! delivers less than the best single path.

use switchyard_benches::{CHAIN, amount_of, synthetic_market, token};
use switchyard_catalog::market::PoolRecord;
use switchyard_kernel::{MarketSnapshot, RouteRequest, SearchParams, find_routes};

#[allow(dead_code, reason = "the kernel tests' shared module, included by path")]
#[path = "../../kernel/tests/common/replay.rs"]
mod replay;

#[test]
fn flows_split_between_their_ends_replay_exactly() {
    let mut flows = 0;
    for seed in [1u64, 2, 3] {
        let mut s = synthetic_market(1_000, seed);
        s.market.pools.retain(|p| matches!(p, PoolRecord::UniswapV2(_) | PoolRecord::UniswapV3(_)));
        let snap = MarketSnapshot::build(&s.market, &s.catalog).expect("snapshot");
        for (from, to) in [(0usize, 1usize), (7, 1), (17, 23), (40, 2)] {
            for usd in [1e6, 1e7] {
                let request = |amount| RouteRequest {
                    chain: CHAIN,
                    destination_chain: None,
                    inputs: vec![(token(from), amount)],
                    outputs: vec![token(to)],
                };
                let amount = amount_of(&s, from, usd);
                let Ok(plan) = find_routes(&snap, &request(amount), &SearchParams::default())
                else {
                    continue;
                };
                replay::replay(&snap, &plan);
                let single = SearchParams { max_splits: 1, ..SearchParams::default() };
                let one = find_routes(&snap, &request(amount), &single).expect("a single path");
                assert!(
                    plan.amounts_out[0] >= one.amounts_out[0],
                    "seed {seed} {from}→{to} ${usd}"
                );
                flows += plan.legs.iter().filter(|l| l.splits_between()).count();
            }
        }
    }
    assert!(flows > 0, "some large trade splits between its ends");
    eprintln!("{flows} flows");
}
