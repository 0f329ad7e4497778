//! What a 32-point ladder costs against one quote of its largest amount, on
//! the synthetic 10k-pool market of the search bench, single thread:
//!
//! ```sh
//! cargo run --release -p switchyard-benches --example ladder_cost
//! ```
//!
//! Per query (hub→hub, tail→hub, tail→tail) and largest trade ($1M, $10M):
//! the median time of `find_routes` at the largest amount, the median time
//! of `ladder` over 32 amounts spaced geometrically from a thousandth of it
//! up to it, their ratio, and how close each interior point comes to its
//! own full quote (the smallest of their ratios). Rounds alternate the two.
//! `LADDER_DIAG=1` prints every point's ratio to its own quote on stderr.

use std::time::Instant;

use alloy_primitives::U256;
use switchyard_benches::{CHAIN, QUERIES, amount_of, median, synthetic_market, to_f64, token};
use switchyard_kernel::{MarketSnapshot, RouteRequest, SearchParams, find_routes, ladder};

const POINTS: usize = 32;
const ROUNDS: usize = 15;

fn main() {
    let n = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(10_000usize);
    let s = synthetic_market(n, 42);
    let snap = MarketSnapshot::build(&s.market, &s.catalog).expect("snapshot");
    let params = SearchParams::default();
    let pool1 = rayon::ThreadPoolBuilder::new().num_threads(1).build().expect("pool");
    println!(
        "| pools | query | largest trade | quote p50 µs | {POINTS}-point ladder p50 µs | ladder ÷ quote | worst interior point ÷ its quote |"
    );
    println!("|---:|---|---:|---:|---:|---:|---:|");
    for (qname, from, to) in QUERIES {
        for usd in [1e6, 1e7] {
            let top = amount_of(&s, from, usd);
            let amounts: Vec<U256> = (0..POINTS)
                .map(|k| {
                    let f = 1e-3f64.powf(1.0 - k as f64 / (POINTS - 1) as f64);
                    let scaled = (f * 1e12) as u64;
                    top * U256::from(scaled) / U256::from(1_000_000_000_000u64)
                })
                .collect();
            let req = |a: U256| RouteRequest {
                chain: CHAIN,
                destination_chain: None,
                inputs: vec![(token(from), a)],
                outputs: vec![token(to)],
            };
            let (mut q, mut l) = (Vec::new(), Vec::new());
            let mut points = Vec::new();
            for _ in 0..ROUNDS {
                let t = Instant::now();
                let _ = pool1.install(|| find_routes(&snap, &req(top), &params));
                q.push(t.elapsed().as_secs_f64() * 1e6);
                let t = Instant::now();
                let r = pool1
                    .install(|| ladder(&snap, CHAIN, token(from), token(to), &amounts, &params));
                l.push(t.elapsed().as_secs_f64() * 1e6);
                points = r.unwrap_or_default();
            }
            let worst = points
                .iter()
                .zip(&amounts)
                .skip(1)
                .take(POINTS - 2)
                .filter_map(|(p, a)| {
                    let own = find_routes(&snap, &req(*a), &params).ok()?.amounts_out[0];
                    (!own.is_zero()).then(|| to_f64(p.leg.amount_out) / to_f64(own))
                })
                .fold(f64::INFINITY, f64::min);
            if std::env::var_os("LADDER_DIAG").is_some() {
                for (p, a) in points.iter().zip(&amounts) {
                    let own = find_routes(&snap, &req(*a), &params)
                        .ok()
                        .map(|pl| pl.amounts_out[0])
                        .unwrap_or_default();
                    eprintln!(
                        "{qname} {usd} amount {} routes {} ratio {:.5}",
                        to_f64(*a),
                        p.leg.routes.len(),
                        to_f64(p.leg.amount_out) / to_f64(own).max(1.0)
                    );
                }
            }
            let (qm, lm) = (median(q), median(l));
            println!(
                "| {n} | {qname} | ${usd:.0} | {qm:.0} | {lm:.0} | {:.2} | {} |",
                lm / qm,
                if worst.is_finite() { format!("{worst:.5}") } else { "no route".into() }
            );
        }
    }
}
