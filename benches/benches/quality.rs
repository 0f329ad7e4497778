//! Route quality: the router's output divided by the convex optimum
//! (`switchyard_benches::optimum`, Clarabel) on the same pools.
//!
//! Run with `cargo bench -p switchyard-benches --bench quality`. For the
//! queries of the `search` benchmark (hub→hub, tail→hub, tail→tail) and
//! trades of $10k, $1M and $10M it builds instances of at most 200 pools
//! from synthetic markets of 1k and 10k pools (seed 42), twice: of Uniswap
//! V2 pairs only, and of V2 pairs and V3 pools (the markets' V3 pools have
//! 30 initialized ticks; the optimum takes each tick range as a pool, which
//! is exact, see `switchyard_benches::optimum`). An instance takes the pools
//! within two hops of the query tokens (a V3 pool's depth is its active
//! range's virtual reserves): up to a quarter
//! of it from each query token's own pools (deepest first), the rest either
//! deepest first (caps of 200, 100 and 50) or as one of eight deterministic
//! random samples (cap 200); 16 instances per query and trade size. On each
//! instance it runs `find_routes` with the default
//! parameters (split) and with one path, and prints the median, 5th
//! percentile and minimum of `amountOut / optimum`, by trade size and then
//! by query and trade size.
//!
//! Outputs are gross (no gas cost). The ratio's denominator is the
//! optimum's dual bound, so it is never flattered by solver error (at most
//! the reported gap, about `1e-6` at $10k and `1e-8` above). The router's
//! paths have at most `max_hops` (4) pools (`max_optimal_hops`, 8, on its
//! optimal stage) and it expands at most `max_pools_per_token` pools per
//! token; the optimum has neither limit, so a ratio below 1 also measures
//! those limits, not only the splitting. The
//! "optimum out/in value" column puts each row in context: where it is far
//! below 1 the trade dwarfs the pools of its token and the optimum drains
//! them through long paths.
//!
//! A diagnostics table follows: the router with wider limits; a greedy lower
//! bound (the input in 500 chunks, each down the best path of at most two
//! pools), which shows how much of the optimum short paths already reach and
//! that the optimum is made of plain trades (the greedy never exceeds it);
//! Clarabel's gap and how many solves it finished at reduced accuracy.

use std::{collections::BTreeSet, time::Instant};

use alloy_primitives::{Address, U256};
use switchyard_benches::{
    CHAIN, Rng, Synthetic, amount_of,
    optimum::{CpPool, convex_optimum, usd_million_units},
    synthetic_market, to_f64, token,
};
use switchyard_catalog::market::{Market, PoolRecord, UniswapV2Record, UniswapV3Record};
use switchyard_kernel::{MarketSnapshot, RouteRequest, SearchParams, find_routes};

/// (name, token in, token out), as in the `search` benchmark.
const QUERIES: [(&str, usize, usize); 3] =
    [("hub→hub", 0, 1), ("tail→hub", 7, 1), ("tail→tail", 17, 23)];
const TRADES_USD: [f64; 3] = [1e4, 1e6, 1e7];
const MARKETS: [usize; 2] = [1_000, 10_000];
const SEED: u64 = 42;
/// Most pools in one instance.
const MAX_POOLS: usize = 200;
/// Sampled instances per market and query.
const SAMPLES: u64 = 8;

/// Router settings compared.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// `SearchParams::default()`: the candidates' split over up to 16
    /// paths, the optimal stage's over up to 32.
    Split,
    /// One path (`max_splits: 1`).
    Single,
    /// A diagnostic: the default search with wider limits (32 pools per
    /// token, 128 candidates, 16 splits in 100 chunks), to tell the cost of
    /// the limits from the cost of the method.
    Wide,
}

/// The router's output for `amount` of `from` into `to`, raw units, or
/// `None` when it finds no route. The only place requests and parameters
/// are built: a change to the kernel's API is adapted here.
fn route(
    snap: &MarketSnapshot,
    from: Address,
    to: Address,
    amount: U256,
    mode: Mode,
) -> Option<U256> {
    let request = RouteRequest {
        chain: CHAIN,
        destination_chain: None,
        inputs: vec![(from, amount)],
        outputs: vec![to],
    };
    // Gross output: `gas_cost_in_out` stays empty.
    let params = match mode {
        Mode::Split => SearchParams::default(),
        Mode::Single => SearchParams { max_splits: 1, ..SearchParams::default() },
        Mode::Wide => SearchParams {
            max_pools_per_token: 32,
            max_candidates: 128,
            max_splits: 16,
            split_chunks: 100,
            ..SearchParams::default()
        },
    };
    find_routes(snap, &request, &params).ok().map(|plan| plan.amounts_out[0])
}

/// The synthetic index of a token address (the inverse of `token`).
fn index_of(address: Address) -> usize {
    let b = address.as_slice();
    let mut i = [0u8; 8];
    i.copy_from_slice(&b[12..20]);
    u64::from_be_bytes(i) as usize
}

/// A V2 record as the optimum's pool.
fn cp_pool(p: &UniswapV2Record) -> CpPool {
    CpPool::constant_product(
        [index_of(p.token0), index_of(p.token1)],
        [to_f64(p.reserve0), to_f64(p.reserve1)],
        1.0 - f64::from(p.fee_bps) / 10_000.0,
    )
}

/// A V3 record as the optimum's pools: one per initialized tick range with
/// liquidity (see `switchyard_benches::optimum`), sqrt prices in raw units.
fn tick_ranges(p: &UniswapV3Record) -> Vec<CpPool> {
    let tokens = [index_of(p.token0), index_of(p.token1)];
    let gamma = 1.0 - f64::from(p.fee) / 1e6;
    let s = to_f64(p.sqrt_price_x96) / 2f64.powi(96);
    let sqrt_at = |t: i32| 1.0001f64.powf(f64::from(t) / 2.0);
    let mut out = Vec::new();
    let mut l: i128 = 0;
    for w in p.ticks.windows(2) {
        l += w[0].liquidity_net;
        if l > 0 {
            out.push(CpPool::tick_range(
                tokens,
                l as f64,
                sqrt_at(w[0].index),
                sqrt_at(w[1].index),
                s,
                gamma,
            ));
        }
    }
    out
}

/// A pool record as the optimum's pools (V2 and V3; none for other kinds).
fn cp_pools(p: &PoolRecord) -> Vec<CpPool> {
    match p {
        PoolRecord::UniswapV2(r) => vec![cp_pool(r)],
        PoolRecord::UniswapV3(r) => tick_ranges(r),
        _ => Vec::new(),
    }
}

/// A lower bound on the optimum from paths well within the router's hop
/// limit: the input in 500 equal chunks, each sent down whichever path of at
/// most two pools gives the most for it on the reserves the earlier chunks
/// left (`f64` pool math). Returns the output, raw units, or `None` without
/// such a path.
fn greedy_two_hops(pools: &[CpPool], from: usize, to: usize, amount: f64) -> Option<f64> {
    const CHUNKS: usize = 500;
    // Paths as (pool, side tendered) steps.
    let side = |p: &CpPool, t: usize| p.tokens.iter().position(|x| *x == t);
    let mut paths: Vec<Vec<(usize, usize)>> = Vec::new();
    for (i, p) in pools.iter().enumerate() {
        let Some(s) = side(p, from) else { continue };
        let mid = p.tokens[1 - s];
        if mid == to {
            paths.push(vec![(i, s)]);
            continue;
        }
        for (j, q) in pools.iter().enumerate() {
            if let Some(t) = side(q, mid)
                && q.tokens[1 - t] == to
            {
                paths.push(vec![(i, s), (j, t)]);
            }
        }
    }
    let mut state = pools.to_vec();
    let chunk = amount / CHUNKS as f64;
    let run = |state: &[CpPool], path: &[(usize, usize)]| {
        path.iter().fold(chunk, |x, (i, s)| state[*i].amount_out(*s, x))
    };
    let mut total = 0.0;
    for _ in 0..CHUNKS {
        let best = paths.iter().map(|p| (run(&state, p), p)).max_by(|a, b| a.0.total_cmp(&b.0));
        let (_, path) = best?;
        let mut x = chunk;
        for (i, s) in path {
            let out = state[*i].amount_out(*s, x);
            state[*i].reserves[*s] += x;
            state[*i].reserves[1 - *s] -= out;
            x = out;
        }
        total += x;
    }
    Some(total)
}

/// One instance: a name and its pools (indexes into the market's pools).
struct Instance {
    name: String,
    pools: Vec<usize>,
}

/// Which pools an instance draws from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kinds {
    /// Uniswap V2 pairs only.
    V2,
    /// Uniswap V2 pairs and V3 pools.
    V2V3,
}

/// A pool an instance may hold: its two tokens and its depth in dollars
/// (V3: the active range's virtual reserves).
struct Candidate {
    ends: [usize; 2],
    usd: f64,
}

fn candidate(p: &PoolRecord, units: &[f64], kinds: Kinds) -> Option<Candidate> {
    match p {
        PoolRecord::UniswapV2(r) => {
            let ends = [index_of(r.token0), index_of(r.token1)];
            let usd = to_f64(r.reserve0) / units[ends[0]] + to_f64(r.reserve1) / units[ends[1]];
            Some(Candidate { ends, usd })
        }
        PoolRecord::UniswapV3(r) if kinds == Kinds::V2V3 => {
            let ends = [index_of(r.token0), index_of(r.token1)];
            let s = to_f64(r.sqrt_price_x96) / 2f64.powi(96);
            let l = r.liquidity as f64;
            let usd = l / s / units[ends[0]] + l * s / units[ends[1]];
            Some(Candidate { ends, usd })
        }
        _ => None,
    }
}

/// The instances of one market and query (see the module docs); identical
/// pool sets are kept once.
fn instances(s: &Synthetic, units: &[f64], from: usize, to: usize, kinds: Kinds) -> Vec<Instance> {
    let v2: Vec<(usize, Candidate)> = s
        .market
        .pools
        .iter()
        .enumerate()
        .filter_map(|(i, p)| Some((i, candidate(p, units, kinds)?)))
        .collect();
    let ends = |r: &Candidate| r.ends;
    // Tokens one hop from the query tokens, then the pools touching them.
    let mut near: BTreeSet<usize> = [from, to].into();
    for (_, r) in &v2 {
        let t = ends(r);
        if t.contains(&from) || t.contains(&to) {
            near.extend(t);
        }
    }
    let usd = |r: &Candidate| r.usd;
    let mut hood: Vec<(usize, Candidate)> =
        v2.into_iter().filter(|(_, r)| ends(r).iter().any(|t| near.contains(t))).collect();
    // Deepest first, ties by pool index.
    hood.sort_by(|a, b| usd(&b.1).total_cmp(&usd(&a.1)).then(a.0.cmp(&b.0)));
    let n = s.market.pools.len();
    let mut out: Vec<Instance> = Vec::new();
    let mut add = |name: String, mut pools: Vec<usize>| {
        pools.sort_unstable();
        if !out.iter().any(|i| i.pools == pools) {
            out.push(Instance { name, pools });
        }
    };
    // The pools of each query token, and the others, deepest first.
    let touches = |r: &Candidate, t: usize| ends(r).contains(&t);
    let own = |t: usize| -> Vec<usize> {
        hood.iter().filter(|(_, r)| touches(r, t)).map(|(i, _)| *i).collect()
    };
    let (own_in, own_out) = (own(from), own(to));
    let rest: Vec<usize> = hood
        .iter()
        .filter(|(_, r)| !touches(r, from) && !touches(r, to))
        .map(|(i, _)| *i)
        .collect();
    // At most a quarter of an instance from each query token's own pools
    // (deepest first), so a hub's many pools cannot crowd out a tail's.
    let base = |cap: usize| -> Vec<usize> {
        let mut pools: Vec<usize> = own_in.iter().take(cap / 4).copied().collect();
        for i in own_out.iter().take(cap / 4) {
            if !pools.contains(i) {
                pools.push(*i);
            }
        }
        pools
    };
    for cap in [MAX_POOLS, MAX_POOLS / 2, MAX_POOLS / 4] {
        let mut pools = base(cap);
        let room = cap - pools.len();
        pools.extend(rest.iter().take(room));
        add(format!("{n}/{kinds:?}/deepest {cap}"), pools);
    }
    // Samples: the same own pools, the rest at random.
    for k in 1..=SAMPLES {
        let mut pools = base(MAX_POOLS);
        let mut rest = rest.clone();
        // Fisher–Yates with a fixed seed per sample.
        let mut rng = Rng::new(SEED * 1_000 + k);
        for j in (1..rest.len()).rev() {
            rest.swap(j, (rng.next_u64() % (j as u64 + 1)) as usize);
        }
        let room = MAX_POOLS - pools.len();
        pools.extend(rest.into_iter().take(room));
        add(format!("{n}/{kinds:?}/sample {k}"), pools);
    }
    out
}

/// One measured case: ratios to the optimum.
struct Case {
    kinds: Kinds,
    query: &'static str,
    usd: f64,
    split: f64,
    single: f64,
    wide: f64,
    /// `None` when the instance has no path of at most two pools.
    greedy: Option<f64>,
    seconds: f64,
    pools_used: usize,
    relative_gap: f64,
    reduced_accuracy: bool,
    /// The optimum's output value over the input value (USD).
    efficiency: f64,
}

/// Nearest-rank quantile of a sorted slice.
fn quantile(sorted: &[f64], q: f64) -> f64 {
    sorted[((sorted.len() as f64 - 1.0) * q).round() as usize]
}

/// "median | p5 | min" of one ratio over `cases`.
fn stats(cases: &[&Case], f: fn(&Case) -> f64) -> String {
    stats_of(cases.iter().map(|c| f(c)).collect())
}

fn stats_of(mut v: Vec<f64>) -> String {
    if v.is_empty() {
        return "– | – | –".into();
    }
    v.sort_by(f64::total_cmp);
    format!("{:.5} | {:.5} | {:.5}", quantile(&v, 0.5), quantile(&v, 0.05), v[0])
}

fn mean(cases: &[&Case], f: fn(&Case) -> f64) -> f64 {
    cases.iter().map(|c| f(c)).sum::<f64>() / cases.len() as f64
}

/// The requested columns: instances, split and single-path ratios, solve
/// time and problem size.
fn summary(cases: &[&Case]) -> String {
    format!(
        "{} | {:.3} | {} | {} | {:.1} | {:.0}",
        cases.len(),
        {
            let mut v: Vec<f64> = cases.iter().map(|c| c.efficiency).collect();
            v.sort_by(f64::total_cmp);
            quantile(&v, 0.5)
        },
        stats(cases, |c| c.split),
        stats(cases, |c| c.single),
        mean(cases, |c| c.seconds) * 1e3,
        mean(cases, |c| c.pools_used as f64),
    )
}

/// The diagnostic columns: wider router limits, the two-hop greedy check and
/// the solver's accuracy.
fn diagnostics(cases: &[&Case]) -> String {
    format!(
        "{} | {} | {} | {:.1e} | {}",
        stats(cases, |c| c.wide),
        cases.iter().filter(|c| c.greedy.is_some()).count(),
        stats_of(cases.iter().filter_map(|c| c.greedy).collect()),
        cases.iter().map(|c| c.relative_gap).fold(0.0, f64::max),
        cases.iter().filter(|c| c.reduced_accuracy).count(),
    )
}

fn main() {
    let started = Instant::now();
    let mut cases = Vec::new();
    let mut unreachable = 0usize;
    let mut notes = Vec::new();
    for n in MARKETS {
        let s = synthetic_market(n, SEED);
        let units = usd_million_units(&s);
        for (kinds, (query, from, to)) in
            [Kinds::V2, Kinds::V2V3].into_iter().flat_map(|k| QUERIES.map(|q| (k, q)))
        {
            for inst in instances(&s, &units, from, to, kinds) {
                let records: Vec<PoolRecord> =
                    inst.pools.iter().map(|i| s.market.pools[*i].clone()).collect();
                let cp: Vec<CpPool> = records.iter().flat_map(cp_pools).collect();
                let market = Market {
                    description: inst.name.clone(),
                    chains: s.market.chains.clone(),
                    pools: records,
                    dual_vaults: Vec::new(),
                    lender_holdings: Vec::new(),
                };
                let snap = MarketSnapshot::build(&market, &s.catalog).expect("snapshot");
                for usd in TRADES_USD {
                    let case = format!("{} {query} ${usd}", inst.name);
                    let amount = amount_of(&s, from, usd);
                    let best = match convex_optimum(&cp, from, to, to_f64(amount), &units) {
                        Ok(b) if b.pools_used == 0 => {
                            unreachable += 1;
                            continue;
                        }
                        Ok(b) => b,
                        Err(e) => {
                            notes.push(format!("{case}: no optimum: {e}"));
                            continue;
                        }
                    };
                    let mut ratio = |mode| match route(&snap, token(from), token(to), amount, mode)
                    {
                        Some(out) => to_f64(out) / best.upper_bound,
                        None => {
                            notes.push(format!("{case}: no route ({mode:?}), counted as 0"));
                            0.0
                        }
                    };
                    let (split, single, wide) =
                        (ratio(Mode::Split), ratio(Mode::Single), ratio(Mode::Wide));
                    let greedy = greedy_two_hops(&cp, from, to, to_f64(amount))
                        .map(|g| g / best.upper_bound);
                    let top = split.max(single).max(wide).max(greedy.unwrap_or(0.0));
                    if top > 1.0 + 1e-7 {
                        notes.push(format!("{case}: a ratio above 1: {top:.8}"));
                    }
                    cases.push(Case {
                        kinds,
                        query,
                        usd,
                        split,
                        single,
                        wide,
                        greedy,
                        seconds: best.seconds,
                        pools_used: best.pools_used,
                        relative_gap: best.relative_gap,
                        reduced_accuracy: best.reduced_accuracy,
                        efficiency: best.upper_bound / units[to] / (usd / 1e6),
                    });
                }
            }
        }
    }
    let header = "instances | optimum out/in value (median) | split median | split p5 | split min | single median | single p5 | single min | Clarabel ms (mean) | pools solved (mean)";
    let rule = "---:|---:|---:|---:|---:|---:|---:|---:|---:|---:";
    for (kinds, what) in [
        (Kinds::V2, "V2 instances"),
        (Kinds::V2V3, "V2 and V3 instances (a V3 pool: one optimum pool per tick range)"),
    ] {
        let by_trade = |usd: f64| {
            cases.iter().filter(|c| c.usd == usd && c.kinds == kinds).collect::<Vec<_>>()
        };
        println!(
            "\nRoute quality: amountOut / convex optimum, {what} of at most {MAX_POOLS} pools \
             from synthetic markets of {MARKETS:?} pools (seed {SEED}); gross output\n"
        );
        println!("| trade | {header} |\n|---:|{rule}|");
        for usd in TRADES_USD {
            println!("| ${usd:.0} | {} |", summary(&by_trade(usd)));
        }
        println!("\n| query | trade | {header} |\n|---|---:|{rule}|");
        for (query, _, _) in QUERIES {
            for usd in TRADES_USD {
                let c: Vec<&Case> =
                    by_trade(usd).into_iter().filter(|c| c.query == query).collect();
                if !c.is_empty() {
                    println!("| {query} | ${usd:.0} | {} |", summary(&c));
                }
            }
        }
    }
    println!(
        "\nDiagnostics. wide: the router with 32 pools per token, 128 candidates, 16 splits; \
         greedy: 500 chunks over paths of at most 2 pools, on instances that have one; \
         gap: Clarabel's relative duality gap; reduced: solves accepted at reduced accuracy.\n"
    );
    println!(
        "| pools | query | trade | wide median | wide p5 | wide min | with a 2-pool path | greedy median | greedy p5 | greedy min | max gap | reduced |\n\
         |---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
    );
    for kinds in [Kinds::V2, Kinds::V2V3] {
        for (query, _, _) in QUERIES {
            for usd in TRADES_USD {
                let c: Vec<&Case> = cases
                    .iter()
                    .filter(|c| c.usd == usd && c.kinds == kinds && c.query == query)
                    .collect();
                if !c.is_empty() {
                    println!("| {kinds:?} | {query} | ${usd:.0} | {} |", diagnostics(&c));
                }
            }
        }
    }
    println!("\ncases skipped (output unreachable in the instance): {unreachable}");
    for note in &notes {
        println!("{note}");
    }
    println!("total time {:.1} s", started.elapsed().as_secs_f64());
}
