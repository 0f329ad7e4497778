//! One single-path quote repeated warm: the p50 of 20,000 `find_routes`
//! calls (tail→tail, $1M, the `search` bench's 100k-pool market, one
//! rayon thread). The `search` bench's table times each cell 15 times,
//! cold between cells; this is the figure to compare two builds by.
//!
//! ```sh
//! cargo run --release -p switchyard-benches --example warm_single_path
//! ```

use std::time::Instant;

use switchyard_benches::{CHAIN, amount_of, synthetic_market, token};
use switchyard_kernel::{MarketSnapshot, RouteRequest, SearchParams, find_routes};

fn main() {
    let s = synthetic_market(100_000, 42);
    let snap = MarketSnapshot::build(&s.market, &s.catalog).expect("snapshot");
    let single = SearchParams { max_splits: 1, ..SearchParams::default() };
    let req = RouteRequest {
        chain: CHAIN,
        destination_chain: None,
        inputs: vec![(token(17), amount_of(&s, 17, 1e6))],
        outputs: vec![token(23)],
    };
    let pool = rayon::ThreadPoolBuilder::new().num_threads(1).build().expect("pool");
    let mut lat = Vec::with_capacity(20_000);
    for _ in 0..20_000 {
        let t = Instant::now();
        let _ = pool.install(|| find_routes(&snap, &req, &single));
        lat.push(t.elapsed().as_secs_f64() * 1e6);
    }
    lat.sort_by(f64::total_cmp);
    println!("single path, 100k pools, tail→tail $1M: p50 {:.1} µs", lat[lat.len() / 2]);
}
