//! What an exact-output quote costs against an exact-input one, on the
//! synthetic market of the search bench (10k pools unless an argument says
//! otherwise), single thread:
//!
//! ```sh
//! cargo run --release -p switchyard-benches --example exact_out_cost [pools]
//! ```
//!
//! Per query (hub→hub, tail→hub, tail→tail) and trade ($10k, $1M): the
//! median time of `find_routes` for the trade's input (Uniswap V2/V3 pools
//! only, as exact outputs route), the median time of `find_routes_exact_out`
//! for that quote's output, without a hint and with a price hint (the
//! input the USD prices give, 2% off, as exec's quote computes one), their
//! ratios to the exact-in time, and the exact-output input over the
//! exact-in one (at most 1: the output costs no more than the search paid
//! for it). Rounds alternate, medians of 15.

use std::time::Instant;

use alloy_primitives::U256;
use switchyard_benches::{CHAIN, QUERIES, amount_of, median, synthetic_market, to_f64, token};
use switchyard_kernel::{
    ExactOutRequest, MarketSnapshot, PoolKinds, RouteRequest, SearchParams, find_routes,
    find_routes_exact_out,
};

const ROUNDS: usize = 15;

fn main() {
    let n = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(10_000usize);
    let s = synthetic_market(n, 42);
    let snap = MarketSnapshot::build(&s.market, &s.catalog).expect("snapshot");
    let params = SearchParams { kinds: PoolKinds::Uniswap, ..SearchParams::default() };
    let pool1 = rayon::ThreadPoolBuilder::new().num_threads(1).build().expect("pool");
    println!(
        "| pools | query | trade | exact in p50 µs | exact out p50 µs (÷ in) | with a price hint p50 µs (÷ in) | input out ÷ in |"
    );
    println!("|---:|---|---:|---:|---:|---:|---:|");
    for (qname, from, to) in QUERIES {
        for usd in [1e4, 1e6] {
            let x = amount_of(&s, from, usd);
            let req = RouteRequest {
                chain: CHAIN,
                destination_chain: None,
                inputs: vec![(token(from), x)],
                outputs: vec![token(to)],
            };
            let Ok(fwd) = find_routes(&snap, &req, &params) else {
                println!("| {n} | {qname} | ${usd} | no route | | | |");
                continue;
            };
            let want = fwd.amounts_out[0];
            let exact = |hint_in| ExactOutRequest {
                chain: CHAIN,
                token_in: token(from),
                token_out: token(to),
                amount_out: want,
                hint_in,
            };
            let hint = x * U256::from(98u32) / U256::from(100u32);
            let (mut a, mut b, mut c) = (Vec::new(), Vec::new(), Vec::new());
            let mut input = U256::ZERO;
            for _ in 0..ROUNDS {
                let t = Instant::now();
                let _ = pool1.install(|| find_routes(&snap, &req, &params));
                a.push(t.elapsed().as_secs_f64() * 1e6);
                let t = Instant::now();
                let r = pool1.install(|| find_routes_exact_out(&snap, &exact(None), &params));
                b.push(t.elapsed().as_secs_f64() * 1e6);
                let t = Instant::now();
                let _ = pool1.install(|| find_routes_exact_out(&snap, &exact(Some(hint)), &params));
                c.push(t.elapsed().as_secs_f64() * 1e6);
                input = r.map(|p| p.legs[0].amount_in).unwrap_or_default();
            }
            let (a, b, c) = (median(a), median(b), median(c));
            println!(
                "| {n} | {qname} | ${usd} | {a:.0} | {b:.0} ({:.1}×) | {c:.0} ({:.1}×) | {:.5} |",
                b / a,
                c / a,
                to_f64(input) / to_f64(x)
            );
        }
    }
}
