//! Route search on deterministic synthetic markets of 1k, 10k and 100k
//! pools (`switchyard_benches::synthetic_market`).
//!
//! Run with `cargo bench -p switchyard-benches --bench search`. It first
//! prints a table of p50/p99 latency per market size, query and trade size
//! for single-path and split search (single thread, 40 runs each, 15 at 100k),
//! the split/single output ratio and the snapshot's memory per pool (live
//! heap bytes the build leaves, counted by a wrapping global allocator);
//! then a table of the parallelism policy (rayon inside a request against
//! concurrent requests); then criterion measures applying a block of 1k pool
//! updates to a 100k-pool snapshot, and the 10k-pool search cases.

use std::{
    alloc::{GlobalAlloc, Layout, System},
    hint::black_box,
    sync::atomic::{AtomicUsize, Ordering},
    time::Instant,
};

use alloy_primitives::U128;
use criterion::Criterion;
use switchyard_benches::{CHAIN, Synthetic, amount_of, synthetic_market, to_f64, token};
use switchyard_catalog::{Market, PoolRecord};
use switchyard_kernel::{
    MarketSnapshot, PoolState, RouteRequest, SearchParams, SnapshotDelta, find_routes,
};

/// (name, token in, token out): hub→hub, tail→hub, tail→tail.
const QUERIES: [(&str, usize, usize); 3] =
    [("hub→hub", 0, 1), ("tail→hub", 7, 1), ("tail→tail", 17, 23)];
const TRADES_USD: [f64; 3] = [1e4, 1e6, 1e7];

/// The system allocator, counting live heap bytes: the snapshot's memory is
/// what its build leaves allocated (RSS would also count freed scratch).
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every call forwards to `System` with the caller's layout and
// pointer unchanged; the counter is only bookkeeping.
#[allow(unsafe_code)]
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        LIVE.fetch_add(layout.size(), Ordering::Relaxed);
        // SAFETY: forwarded as is.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        // SAFETY: forwarded as is.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        LIVE.fetch_add(new_size, Ordering::Relaxed);
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        // SAFETY: forwarded as is.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

fn live_bytes() -> usize {
    LIVE.load(Ordering::Relaxed)
}

fn request(s: &Synthetic, from: usize, to: usize, usd: f64) -> RouteRequest {
    RouteRequest {
        chain: CHAIN,
        destination_chain: None,
        inputs: vec![(token(from), amount_of(s, from, usd))],
        outputs: vec![token(to)],
    }
}

fn percentiles(mut v: Vec<f64>) -> (f64, f64) {
    v.sort_by(f64::total_cmp);
    let at = |q: f64| v[((v.len() as f64 - 1.0) * q).round() as usize];
    (at(0.5), at(0.99))
}

fn table() {
    println!(
        "| pools | query | trade | single p50 µs | single p99 µs | split p50 µs | split p99 µs | split/single out | quotes/s/core (split) |"
    );
    println!("|---:|---|---:|---:|---:|---:|---:|---:|---:|");
    let single = SearchParams { max_splits: 1, ..SearchParams::default() };
    let split = SearchParams::default();
    let pool1 = rayon::ThreadPoolBuilder::new().num_threads(1).build().expect("pool");
    for n in [1_000usize, 10_000, 100_000] {
        let s = synthetic_market(n, 42);
        let before = live_bytes();
        let snap = MarketSnapshot::build(&s.market, &s.catalog).expect("snapshot");
        let per_pool = (live_bytes().saturating_sub(before)) as f64 / n as f64;
        let runs = if n >= 100_000 { 15 } else { 40 };
        for (qname, from, to) in QUERIES {
            for usd in TRADES_USD {
                let req = request(&s, from, to, usd);
                let time = |p: &SearchParams| {
                    let mut lat = Vec::with_capacity(runs);
                    let mut out = None;
                    for _ in 0..runs {
                        let t = Instant::now();
                        let r = pool1.install(|| find_routes(&snap, &req, p));
                        lat.push(t.elapsed().as_secs_f64() * 1e6);
                        out = r.ok().map(|plan| plan.amounts_out[0]);
                    }
                    (percentiles(lat), out)
                };
                let ((s50, s99), s_out) = time(&single);
                let ((p50, p99), p_out) = time(&split);
                let ratio = match (s_out, p_out) {
                    (Some(a), Some(b)) if !a.is_zero() => format!("{:.4}", to_f64(b) / to_f64(a)),
                    _ => "no route".into(),
                };
                println!(
                    "| {n} | {qname} | ${usd:.0} | {s50:.0} | {s99:.0} | {p50:.0} | {p99:.0} | {ratio} | {:.0} |",
                    1e6 / p50
                );
            }
        }
        println!(
            "| {n} | snapshot memory | | {per_pool:.0} B/pool (live heap the build leaves) | | | | | |"
        );
        // The same market's Uniswap V2 pools alone: the per-kind figure the
        // memory target is stated in.
        let v2 = Market {
            pools: s
                .market
                .pools
                .iter()
                .filter(|p| matches!(p, PoolRecord::UniswapV2(_)))
                .cloned()
                .collect(),
            ..s.market.clone()
        };
        let before = live_bytes();
        let v2_snap = MarketSnapshot::build(&v2, &s.catalog).expect("snapshot");
        let per_v2 = (live_bytes().saturating_sub(before)) as f64 / v2.pools.len() as f64;
        drop(v2_snap);
        println!("| {n} | memory, V2 pools only | | {per_v2:.0} B/pool | | | | | |");
    }
}

/// Intra-request parallelism against request-level concurrency: 10k pools,
/// the nine queries, with the exact stage on rayon (32 candidates, batches
/// above 8 go parallel) or not (the default 8), on a rayon pool of 1 or 2
/// threads, measured one request at a time (latency) and with two callers
/// submitting back to back for 2 s (throughput under load).
fn parallel_policy() {
    let s = synthetic_market(10_000, 42);
    let snap = MarketSnapshot::build(&s.market, &s.catalog).expect("snapshot");
    let reqs: Vec<RouteRequest> = QUERIES
        .iter()
        .flat_map(|(_, from, to)| TRADES_USD.iter().map(|usd| request(&s, *from, *to, *usd)))
        .collect();
    println!();
    println!(
        "| exact stage | rayon threads | latency p50 µs (one at a time) | quotes/s, 2 concurrent callers |"
    );
    println!("|---|---:|---:|---:|");
    for (name, params) in [
        ("sequential (8 candidates)", SearchParams::default()),
        ("rayon (32 candidates)", SearchParams { max_candidates: 32, ..SearchParams::default() }),
    ] {
        for threads in [1, 2] {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().expect("pool");
            let mut lat = Vec::new();
            for _ in 0..10 {
                for r in &reqs {
                    let t = Instant::now();
                    let _ = black_box(pool.install(|| find_routes(&snap, r, &params)));
                    lat.push(t.elapsed().as_secs_f64() * 1e6);
                }
            }
            let (p50, _) = percentiles(lat);
            let done = AtomicUsize::new(0);
            let start = Instant::now();
            std::thread::scope(|sc| {
                for caller in 0..2 {
                    let (pool, snap, reqs, params, done) = (&pool, &snap, &reqs, &params, &done);
                    sc.spawn(move || {
                        let mut k = caller;
                        while start.elapsed().as_secs_f64() < 2.0 {
                            let r = &reqs[k % reqs.len()];
                            let _ = black_box(pool.install(|| find_routes(snap, r, params)));
                            done.fetch_add(1, Ordering::Relaxed);
                            k += 1;
                        }
                    });
                }
            });
            let qps = done.load(Ordering::Relaxed) as f64 / start.elapsed().as_secs_f64();
            println!("| {name} | {threads} | {p50:.0} | {qps:.0} |");
        }
    }
}

/// A block's worth of updates: new reserves for the first `n` V2 pools.
fn v2_delta(snap: &MarketSnapshot, n: usize) -> SnapshotDelta {
    let pools = snap
        .pools()
        .iter()
        .enumerate()
        .filter_map(|(k, p)| match &p.state {
            PoolState::UniswapV2 { reserves, fee_bps } => Some((
                k,
                PoolState::UniswapV2 {
                    reserves: [reserves[0] + U128::from(1u8), reserves[1] - U128::from(1u8)],
                    fee_bps: *fee_bps,
                },
            )),
            _ => None,
        })
        .take(n)
        .collect();
    SnapshotDelta { pools, ..SnapshotDelta::default() }
}

fn criterion_cases(c: &mut Criterion) {
    let big = synthetic_market(100_000, 42);
    let big_snap = MarketSnapshot::build(&big.market, &big.catalog).expect("snapshot");
    let delta = v2_delta(&big_snap, 1_000);
    c.bench_function("snapshot/apply/1k_updates_100k_pools", |b| {
        b.iter(|| big_snap.apply(black_box(&delta)).expect("applies"))
    });
    // Every price derived again (the engine does it after quotes already
    // see the block, on the rayon pool).
    let anchors = switchyard_kernel::usd_anchors(&big.catalog);
    let mut group = c.benchmark_group("prices");
    group.sample_size(10);
    group.bench_function("derive/100k_pools", |b| {
        b.iter(|| switchyard_kernel::derive_prices(black_box(&big_snap), &anchors))
    });
    group.finish();
    drop(big_snap);
    let s = synthetic_market(10_000, 42);
    let snap = MarketSnapshot::build(&s.market, &s.catalog).expect("snapshot");
    let params = SearchParams::default();
    for (qname, from, to) in QUERIES {
        let req = request(&s, from, to, 1e6);
        c.bench_function(&format!("search/10k_pools/{qname}/1M_usd"), |b| {
            b.iter(|| find_routes(black_box(&snap), &req, &params))
        });
    }
}

fn main() {
    table();
    parallel_policy();
    let mut c = Criterion::default()
        .configure_from_args()
        .measurement_time(std::time::Duration::from_secs(3));
    criterion_cases(&mut c);
    c.final_summary();
}
