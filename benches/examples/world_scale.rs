//! How long the EVM world of a synthetic market takes to build, and how
//! much memory it holds: `cargo run --release -p switchyard-benches
//! --example world_scale -- 10000` (pools; default 10,000). Prints the
//! snapshot's and the world's build time and the resident memory each
//! added (Linux `/proc/self/statm`).

use std::time::Instant;

// The server's allocator, so resident memory is what the server would hold.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use switchyard_benches::synthetic_market;
use switchyard_engine::evm::{NpmArtifacts, world::World};
use switchyard_kernel::{MarketSnapshot, PoolState, SnapshotDelta, derive_prices, usd_anchors};

/// Resident memory, MiB.
fn rss_mib() -> f64 {
    let statm = std::fs::read_to_string("/proc/self/statm").unwrap_or_default();
    let pages: f64 = statm.split_whitespace().nth(1).and_then(|p| p.parse().ok()).unwrap_or(0.0);
    pages * 4096.0 / (1024.0 * 1024.0)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let n: usize = std::env::args().nth(1).map_or(Ok(10_000), |a| a.parse())?;
    let npm = NpmArtifacts::load(&NpmArtifacts::default_dir())?;
    let s = synthetic_market(n, 7);
    let base = rss_mib();
    let t = Instant::now();
    let snapshot = MarketSnapshot::build(&s.market, &s.catalog)?;
    let prices = derive_prices(&snapshot, &usd_anchors(&s.catalog));
    let snap_time = t.elapsed();
    let snap_rss = rss_mib();
    let t = Instant::now();
    let world = World::build(&s.catalog, &s.market, &snapshot, &prices, &npm)?;
    let world_time = t.elapsed();
    let world_rss = rss_mib();
    let unbuilt = world.unbuilt().count();
    if let Some(cw) = world.chain(switchyard_benches::CHAIN) {
        let (accounts, slots, code, (lazy, _)) = cw.footprint();
        println!(
            "chain {}: {accounts} placed accounts, {slots} storage slots, {:.1} MiB of distinct \
             code; {lazy} pools derived on touch",
            switchyard_benches::CHAIN,
            code as f64 / (1024.0 * 1024.0)
        );
    }
    if std::env::var_os("WORLD_SCALE_WHY").is_some() {
        for u in world.unbuilt().take(5) {
            eprintln!("unbuilt: {u:?}");
        }
    }
    println!(
        "pools {n}: snapshot {snap_time:.2?} (+{:.0} MiB), world {world_time:.2?} (+{:.0} MiB, \
         {:.1} KiB per pool), {unbuilt} unbuilt",
        snap_rss - base,
        world_rss - snap_rss,
        (world_rss - snap_rss) * 1024.0 / n as f64,
    );
    // A block that moves 1,000 Uniswap pools (every tenth pair's reserves
    // up 1%): the world of the next state, reusing this one.
    let mut delta = SnapshotDelta::default();
    for (k, p) in snapshot.pools().iter().enumerate() {
        if delta.pools.len() == 1_000 {
            break;
        }
        if let PoolState::UniswapV2 { reserves, fee_bps } = &p.state
            && k % 10 == 0
        {
            let up = |r: alloy_primitives::U128| r + r / alloy_primitives::U128::from(100u8);
            delta.pools.push((
                k,
                PoolState::UniswapV2 {
                    reserves: [up(reserves[0]), reserves[1]],
                    fee_bps: *fee_bps,
                },
            ));
        }
    }
    let moved = delta.pools.len();
    let next = snapshot.apply(&delta)?;
    let t = Instant::now();
    let again = World::build_reusing(
        &s.catalog,
        &s.market,
        &next,
        &prices,
        &npm,
        Some((&snapshot, &world)),
    )?;
    println!(
        "a block moving {moved} pairs: the next world in {:.2?} (chain {}: {})",
        t.elapsed(),
        switchyard_benches::CHAIN,
        if again.chain(switchyard_benches::CHAIN).is_some() { "built" } else { "missing" }
    );
    Ok(())
}
