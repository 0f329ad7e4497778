//! The `search` benchmark's nine queries (hub→hub, tail→hub, tail→tail at
//! $10k, $1M and $10M) on one synthetic market, each repeated, with each
//! one's median time and output: a small target for a profiler or for
//! counting instructions, where the benchmark's tables take minutes.
//!
//!   cargo build --profile profiling -p switchyard-benches --example prof_search
//!   target/profiling/examples/prof_search [pools=10000] [repeats=20] [only this trade in USD]
//!   valgrind --tool=callgrind --collect-atstart=no \
//!     --toggle-collect='switchyard_kernel::search::find_routes*' \
//!     target/profiling/examples/prof_search 10000 2
//!
//! The outputs let two builds be compared for the same plans.
use std::time::Instant;
use switchyard_benches::{CHAIN, amount_of, synthetic_market, token};
use switchyard_kernel::{MarketSnapshot, RouteRequest, SearchParams, find_routes};
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let n: usize = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(10_000);
    let reps: usize = args.get(2).and_then(|a| a.parse().ok()).unwrap_or(20);
    let only: Option<f64> = args.get(3).and_then(|a| a.parse().ok());
    let s = synthetic_market(n, 42);
    let snap = MarketSnapshot::build(&s.market, &s.catalog).expect("snapshot");
    let params = SearchParams::default();
    let mut total = 0.0;
    for (q, from, to) in [("hub", 0usize, 1usize), ("tailhub", 7, 1), ("tailtail", 17, 23)] {
        for usd in [1e4, 1e6, 1e7] {
            if only.is_some_and(|o| o != usd) {
                continue;
            }
            let req = RouteRequest {
                chain: CHAIN,
                destination_chain: None,
                inputs: vec![(token(from), amount_of(&s, from, usd))],
                outputs: vec![token(to)],
            };
            let mut lat = Vec::new();
            let mut out = None;
            for _ in 0..reps {
                let t = Instant::now();
                out = find_routes(&snap, &req, &params).ok().map(|p| p.amounts_out[0]);
                lat.push(t.elapsed().as_secs_f64() * 1e6);
            }
            lat.sort_by(f64::total_cmp);
            total += lat[reps / 2];
            println!("{q} {usd:e} p50 {:.0} out {:?}", lat[reps / 2], out);
        }
    }
    println!("sum of p50 {total:.0}");
}
