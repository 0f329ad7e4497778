//! A plan re-executed step by step from its snapshot, with the pools' own
//! exact math: the plan is its own proof. Shared by the kernel's search
//! tests and the benchmarks crate's tests on synthetic markets (included
//! there by path).

use std::collections::{BTreeMap, BTreeSet};

use alloy_primitives::U256;
use switchyard_catalog::Address;
use switchyard_kernel::{MarketSnapshot, Plan, StepAction};

/// Re-executes a plan's steps from the snapshot, in order, and checks that
/// every amount in it is what the pool math gives: the plan is its own proof.
///
/// Routes from an intermediate token (a flow that splits and merges there)
/// must come after every route into it, and share exactly what arrived.
pub(crate) fn replay(s: &MarketSnapshot, plan: &Plan) {
    let mut states = BTreeMap::new();
    for leg in &plan.legs {
        // Per token: what arrived, and what the routes from it took.
        let mut arrived: BTreeMap<Address, (U256, U256)> =
            [(leg.token_in, (leg.amount_in, U256::ZERO))].into_iter().collect();
        let mut started = BTreeSet::new();
        for r in &leg.routes {
            let start = r.token_in().expect("steps");
            started.insert(start);
            let (_, taken) = arrived.get_mut(&start).expect("a route from what arrived");
            *taken += r.amount_in;
            let mut x = r.amount_in;
            for st in &r.steps {
                assert_eq!(st.amount_in, x);
                if st.action == StepAction::Bridge {
                    let b = &s.bridges()[st.pool];
                    assert_eq!((b.from_chain, b.to_chain), (st.chain, st.to_chain));
                    x = b.amount_out(x).expect("bridge");
                    assert_eq!(x, st.amount_out);
                    continue;
                }
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
            let end = r.token_out().expect("steps");
            assert!(!started.contains(&end), "every route into {end} comes before those from it");
            if end != leg.token_out {
                let later = leg.routes.iter().any(|q| q.token_in() == Some(end));
                assert!(later, "what reaches {end} goes on");
            }
            arrived.entry(end).or_default().0 += x;
        }
        for (t, (a, taken)) in &arrived {
            if *t == leg.token_out {
                assert_eq!(*a, leg.amount_out, "the output");
            } else {
                assert_eq!(a, taken, "everything at {t} goes on");
            }
        }
    }
}
