//! Following the chain: what one new block costs, and whether quotes notice.
//!
//! - `feed/replay_block`: one recorded block of the embedded stream through
//!   the exact pool math, applied to the snapshot copy-on-write;
//!   This is all a quote waits for: the engine stores the new snapshot
//!   for quotes at once;
//! - `feed/derive_prices`: every price derived again (next, on the rayon
//!   pool, then stored for quotes too);
//! - `feed/publish_state`: what publishing that snapshot costs before
//!   routes see it: prices re-derived and the EVM world rebuilt (routes are
//!   proven against the very state they were quoted on);
//! - `feed/publish_block`: what the engine does for that block: the chains
//!   whose pools did not move keep their world at the new head, only the
//!   traded chain's world is rebuilt;
//! - `feed/publish_one_chain`: the same when the block moved one chain
//!   only (a node feed's block): the other chains' worlds are shared with
//!   the previous state, only Ethereum's (the largest) is rebuilt;
//! - `feed/quote_idle` and `feed/quote_during_publish`: one quote, alone
//!   and while another thread rebuilds and swaps in states back to back
//!   (readers take no lock; on two cores the publisher has one to itself).
//!
//! The 1k-updates-on-100k-pools apply is `search`'s
//! `snapshot/apply/1k_updates_100k_pools`.
//!
//! Run with `cargo bench -p switchyard-benches --bench feed`.

use std::{
    hint::black_box,
    sync::{
        Arc,
        atomic::{AtomicBool, Ordering},
    },
};

use alloy_primitives::{U256, address};
use arc_swap::ArcSwap;
use criterion::{Criterion, criterion_group, criterion_main};
use switchyard_catalog::{ChainId, loaders};
use switchyard_engine::{
    BLOCK_SECONDS, Engine, EngineConfig, QuoteRequest, StateInputs, build_state, build_state_after,
    evm::NpmArtifacts, quote::quote_now,
};

fn feed(c: &mut Criterion) {
    let dir = std::env::temp_dir().join(format!("switchyard-bench-feed-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let (engine, _shutdown) =
        Engine::start(EngineConfig { data_dir: dir.clone(), ..EngineConfig::default() })
            .expect("engine");
    let state = engine.state();
    let stream = loaders::embedded_blocks().expect("stream");
    let block = &stream.blocks[0];
    let snapshot = Arc::clone(&state.snapshot);

    let mut group = c.benchmark_group("feed");
    group.bench_function("replay_block", |b| {
        b.iter(|| {
            let (delta, _) = snapshot.replay_block(black_box(block), BLOCK_SECONDS);
            snapshot.apply(&delta).expect("applies")
        })
    });
    let inputs = StateInputs {
        catalog: Arc::clone(&state.catalog),
        market: Arc::clone(&state.market),
        npm: NpmArtifacts::load(&NpmArtifacts::default_dir())
            .map(Arc::new)
            .map_err(|e| e.to_string()),
    };
    let (delta, _) = snapshot.replay_block(block, BLOCK_SECONDS);
    let next = Arc::new(snapshot.apply(&delta).expect("applies"));
    // The prices, derived again after quotes already see the block.
    let anchors = switchyard_kernel::usd_anchors(&state.catalog);
    group.bench_function("derive_prices", |b| {
        b.iter(|| switchyard_kernel::derive_prices(black_box(&next), &anchors))
    });
    group.sample_size(10);
    group.bench_function("publish_state", |b| {
        b.iter(|| build_state(black_box(&inputs), Arc::clone(&next)))
    });
    let chains_moved = {
        let pools = snapshot.pools();
        let mut c: Vec<_> = delta.pools.iter().map(|(k, _)| pools[*k].chain).collect();
        c.dedup();
        c.len()
    };
    eprintln!(
        "publish_block: {} pool updates on {chains_moved} chain(s), 12 heads moved",
        delta.pools.len()
    );
    group.bench_function("publish_block", |b| {
        b.iter(|| build_state_after(black_box(&inputs), Arc::clone(&next), Some(&state)))
    });
    // The first recorded block with a trade on Ethereum, replayed there only.
    let eth_block = stream
        .blocks
        .iter()
        .find(|b| b.iter().any(|t| t.chain_id == ChainId(1)))
        .expect("a block trades on chain 1");
    let (mut one, _) = snapshot.replay_block(eth_block, BLOCK_SECONDS);
    let all = one.pools.len();
    let pools = snapshot.pools();
    one.pools.retain(|(k, _)| pools[*k].chain == ChainId(1));
    one.heads.retain(|(c, _)| *c == ChainId(1));
    eprintln!("publish_one_chain: {} of {all} pool updates", one.pools.len());
    let next_one = Arc::new(snapshot.apply(&one).expect("applies"));
    group.bench_function("publish_one_chain", |b| {
        b.iter(|| build_state_after(black_box(&inputs), Arc::clone(&next_one), Some(&state)))
    });
    group.sample_size(100);

    let req = QuoteRequest::one(
        ChainId(1),
        address!("a0b86991c6218b36c1d19d4a2e9eb0ce3606eb48"),
        U256::from(5_000_000_000u64),
        address!("c02aaa39b223fe8d0a0e5c4f27ead9083c756cc2"),
    );
    let live = Arc::new(ArcSwap::new(Arc::clone(&state)));
    group.bench_function("quote_idle", |b| {
        b.iter(|| quote_now(&live.load_full(), black_box(&req)).expect("quote"))
    });
    let stop = Arc::new(AtomicBool::new(false));
    let publisher = {
        let (live, stop, inputs, next) =
            (Arc::clone(&live), Arc::clone(&stop), inputs.clone(), Arc::clone(&next));
        std::thread::spawn(move || {
            let mut published = 0u64;
            while !stop.load(Ordering::Relaxed) {
                live.store(Arc::new(build_state(&inputs, Arc::clone(&next))));
                published += 1;
            }
            published
        })
    };
    group.bench_function("quote_during_publish", |b| {
        b.iter(|| quote_now(&live.load_full(), black_box(&req)).expect("quote"))
    });
    stop.store(true, Ordering::Relaxed);
    let published = publisher.join().expect("publisher");
    eprintln!("states published during quote_during_publish: {published}");
    group.finish();
    let _ = std::fs::remove_dir_all(&dir);
}

criterion_group!(benches, feed);
criterion_main!(benches);
