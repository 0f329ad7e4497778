//! The quote mix of `scripts/quote-mix.sh` (USDC→WETH, WETH→DAI and four
//! tail pairs, at $10k, $1M and $10M) run in process on a market that
//! `make_market` wrote: each query's median `find_routes` time and output,
//! and the sum of the medians. What the HTTP figures of the mix are made
//! of, without the server, for a profiler or an instruction count:
//!
//!   cargo build --profile profiling -p switchyard-benches --example prof_mix
//!   target/profiling/examples/prof_mix /tmp/synth10000 [repeats=20] [only query k]
//!   valgrind --tool=callgrind --collect-atstart=no \
//!     --toggle-collect='switchyard_kernel::search::find_routes*' \
//!     target/profiling/examples/prof_mix /tmp/synth10000 2
//!
//! Over HTTP each request finds the caches cold: the client's think time
//! and the other programs on a shared machine leave little of the last
//! request's working set in them, and a search then runs 2–4 times slower
//! than back to back. `EVICT_MB=64` runs a 64 MB sweep through the caches
//! before each run (this machine's last level is 32 MB) and `PAUSE_MS=50`
//! idles before each run instead; both give the cold figure. The outputs
//! let two builds be compared for the same plans.
use std::{path::PathBuf, time::Instant};

use alloy_primitives::U256;
use switchyard_catalog::{
    Address, ChainId,
    loaders::{load_catalog, load_market},
};
use switchyard_kernel::{MarketSnapshot, RouteRequest, SearchParams, find_routes};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let dir = PathBuf::from(args.get(1).ok_or("usage: prof_mix DIR [repeats] [query]")?);
    let reps: usize = args.get(2).and_then(|a| a.parse().ok()).unwrap_or(20);
    let only: Option<usize> = args.get(3).and_then(|a| a.parse().ok());
    let catalog = load_catalog(&[dir.join("synthetic-tokens.json")])?;
    let market = load_market(Some(&dir.join("synthetic-market.json")), &catalog)?;
    let snap = MarketSnapshot::build(&market, &catalog)?;
    let tails: Vec<Address> = catalog
        .tokens()
        .iter()
        .filter(|t| t.symbol.starts_with("SYN"))
        .map(|t| (t.symbol[3..].parse::<usize>().unwrap_or(usize::MAX), t.address))
        .collect::<std::collections::BTreeMap<_, _>>()
        .into_values()
        .collect();
    let hub = |s: &str| -> Result<(Address, u8, f64), Box<dyn std::error::Error>> {
        Ok(match s {
            "USDC" => ("0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48".parse()?, 6, 1.0),
            "WETH" => ("0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2".parse()?, 18, 3000.0),
            _ => ("0x6b175474e89094c44da98b954eedeac495271d0f".parse()?, 18, 1.0),
        })
    };
    let tail = |i: usize| -> Result<(Address, u8, f64), Box<dyn std::error::Error>> {
        Ok((*tails.get(i).ok_or("too few tail tokens")?, 18, 1.0))
    };
    let pairs = [
        (hub("USDC")?, hub("WETH")?),
        (hub("WETH")?, hub("DAI")?),
        (tail(7)?, hub("USDC")?),
        (tail(3)?, hub("WETH")?),
        (tail(17)?, tail(23)?),
        (tail(40)?, tail(2)?),
    ];
    let params = SearchParams::default();
    // `PAUSE_MS`: idle this long before each run (a client's think time).
    let pause: u64 = std::env::var("PAUSE_MS").ok().and_then(|v| v.parse().ok()).unwrap_or(0);
    let evict: usize = std::env::var("EVICT_MB").ok().and_then(|v| v.parse().ok()).unwrap_or(0);
    let mut total = 0.0;
    let mut k = 0;
    for (a, b) in pairs {
        for usd in [1e4, 1e6, 1e7] {
            k += 1;
            if only.is_some_and(|o| o != k - 1) {
                continue;
            }
            // The script's amounts: the float `usd / price * 10^decimals`.
            let amount = U256::from(usd / a.2 * 10f64.powi(i32::from(a.1)));
            let req = RouteRequest {
                chain: ChainId(1),
                destination_chain: None,
                inputs: vec![(a.0, amount)],
                outputs: vec![b.0],
            };
            let mut lat = Vec::with_capacity(reps);
            let mut out = None;
            for _ in 0..reps.max(1) {
                if pause > 0 {
                    // A synchronous example: no runtime to block.
                    #[allow(clippy::disallowed_methods)]
                    std::thread::sleep(std::time::Duration::from_millis(pause));
                }
                if evict > 0 {
                    // Another program's working set through the caches.
                    let mut junk = vec![0u8; evict << 20];
                    for (i, b) in junk.iter_mut().enumerate().step_by(64) {
                        *b = i as u8;
                    }
                    std::hint::black_box(&junk);
                }
                let t = Instant::now();
                let plan = find_routes(&snap, &req, &params);
                lat.push(t.elapsed().as_secs_f64() * 1e6);
                out = Some(plan.map(|p| {
                    (p.amounts_out[0], p.legs.iter().map(|l| l.routes.len()).sum::<usize>())
                }));
            }
            lat.sort_by(f64::total_cmp);
            let p50 = lat[lat.len() / 2];
            total += p50;
            match out {
                Some(Ok((o, routes))) => {
                    println!("{:2} ${usd:>10} {p50:>9.0} us  routes {routes:>2}  out {o}", k - 1)
                }
                Some(Err(e)) => println!("{:2} ${usd:>10} {p50:>9.0} us  {e}", k - 1),
                None => {}
            }
        }
    }
    println!("sum of medians {total:.0} us");
    Ok(())
}
