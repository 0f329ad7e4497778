//! The embedded feed replays the recorded block stream: after `n` blocks
//! the published snapshot is exactly the recorded trades applied by the
//! exact pool math, every head moved `n` blocks, quotes through a traded
//! pool change, and routes still execute, proven against the rebuilt world.

use std::path::PathBuf;

use alloy_primitives::{Address, U256, address};
use switchyard_catalog::{ChainId, loaders};
use switchyard_engine::{
    BLOCK_SECONDS, Engine, EngineConfig, FeedState, QuoteRequest, RouteRequest,
};

const USER: Address = address!("d8da6bf26964af9d7eed9e03e53415d37aa96045");

fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("switchyard-feed-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

const ACCOUNT: &str = "0f8fad5b-d9cb-469f-a165-70867728950e";

fn quote_req(chain: ChainId, token_in: Address, amount: U256, token_out: Address) -> QuoteRequest {
    QuoteRequest::one(chain, token_in, amount, token_out)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn replayed_blocks_move_the_market_exactly_and_routes_still_prove() {
    let dir = temp_dir("replay");
    let (engine, shutdown) =
        Engine::start(EngineConfig { data_dir: dir.clone(), ..EngineConfig::default() })
            .expect("engine starts");
    let start = engine.state().snapshot.clone();
    let stream = loaders::embedded_blocks().expect("the recorded stream parses");
    assert!(stream.blocks.len() >= 100, "a stream worth watching");

    // The trade of the first block whose pool we will quote through.
    let t = stream.blocks[0][0].clone();
    let probe = quote_req(t.chain_id, t.token_in, t.amount_in / U256::from(100u8), t.token_out);
    let before = engine.quote(probe.clone()).await.expect("quote before").plan.amounts_out[0];

    const N: usize = 5;
    assert_eq!(engine.step_blocks(N).await.expect("feed steps"), N);

    // Exactly the recorded trades, by the exact math, and every head N
    // blocks on.
    let mut expected = (*start).clone();
    for block in &stream.blocks[..N] {
        let (delta, applied) = expected.replay_block(block, BLOCK_SECONDS);
        assert_eq!(applied, block.len(), "every recorded trade lands");
        expected = expected.apply(&delta).expect("delta applies");
    }
    let now = engine.state();
    // Once a publication is done, quotes and transactions see one state:
    // the newest snapshot is the proven one, with its own world.
    let latest = engine.latest();
    assert!(std::sync::Arc::ptr_eq(&latest.snapshot, &now.snapshot));
    assert!(matches!((&latest.world, &now.world), (Ok(a), Ok(b)) if std::sync::Arc::ptr_eq(a, b)));
    for (k, (a, b)) in now.snapshot.pools().iter().zip(expected.pools()).enumerate() {
        assert_eq!(a.state, b.state, "pool {k} ({})", a.address);
    }
    let moved = now.snapshot.pools().iter().zip(start.pools()).filter(|(a, b)| a.state != b.state);
    assert!(moved.count() >= N, "the trades moved pools");
    for (chain, head) in now.snapshot.heads() {
        let h0 = start.head(*chain).expect("same chains");
        assert_eq!(head.block_number, h0.block_number + N as u64, "chain {chain}");
        assert_eq!(head.timestamp, h0.timestamp + N as u64 * BLOCK_SECONDS, "chain {chain}");
    }
    let feeds = engine.feeds();
    assert!(feeds.iter().all(|f| f.state == FeedState::Ready), "{feeds:?}");
    let head1 = feeds.iter().find(|f| f.chain == ChainId(1)).expect("chain 1").head_block;
    assert_eq!(head1, start.head(ChainId(1)).expect("head").block_number + N as u64);

    // The quote through the traded pool follows the new state.
    let after = engine.quote(probe).await.expect("quote after").plan.amounts_out[0];
    assert_ne!(before, after, "the traded pool's price moved");

    // Routes are proven against the rebuilt world of the new block.
    let usdc = address!("a0b86991c6218b36c1d19d4a2e9eb0ce3606eb48");
    let weth = address!("c02aaa39b223fe8d0a0e5c4f27ead9083c756cc2");
    let r = engine
        .route(RouteRequest::router(
            quote_req(ChainId(1), usdc, U256::from(5_000_000_000u64), weth),
            USER,
            ACCOUNT,
        ))
        .await
        .expect("a route on the new block executes");
    assert_eq!(r.quote.block_number, head1);

    // A chain whose pools the blocks did not touch keeps its world, moved
    // to the new head; a route there executes at that block.
    let now = engine.state();
    let idle = now
        .snapshot
        .heads()
        .keys()
        .copied()
        .find(|c| {
            let on = |s: &switchyard_kernel::MarketSnapshot| {
                s.pools()
                    .iter()
                    .filter(|p| p.chain == *c)
                    .map(|p| p.state.clone())
                    .collect::<Vec<_>>()
            };
            *c != ChainId(1) && on(&now.snapshot) == on(&start)
        })
        .expect("a chain the first blocks did not trade on");
    let world = now.world.as_ref().expect("world");
    let head = now.snapshot.head(idle).expect("head");
    assert_eq!(world.chain(idle).expect("chain world").block().number, head.block_number);
    // One whole token through a constant-product or concentrated pool there.
    let pool = now
        .snapshot
        .pools()
        .iter()
        .find(|p| {
            p.chain == idle
                && matches!(
                    p.state,
                    switchyard_kernel::PoolState::UniswapV2 { .. }
                        | switchyard_kernel::PoolState::UniswapV3 { .. }
                )
        })
        .expect("a swap pool on the idle chain");
    let one = U256::from(10u64).pow(U256::from(pool.decimals()[0]));
    let r = engine
        .route(RouteRequest::router(
            quote_req(idle, pool.tokens[0], one, pool.tokens[1]),
            USER,
            ACCOUNT,
        ))
        .await
        .unwrap_or_else(|e| panic!("a route on chain {idle} at the new head: {e:?}"));
    assert_eq!(r.quote.block_number, head.block_number);

    // The end of the stream: the feed says so and the market stays.
    let left = stream.blocks.len() - N;
    assert_eq!(engine.step_blocks(left + 10).await.expect("to the end"), left);
    assert_eq!(engine.step_blocks(1).await.expect("past the end"), 0);
    assert!(engine.feeds().iter().all(|f| f.state == FeedState::Ended));
    shutdown.stop();
    let _ = std::fs::remove_dir_all(&dir);
}
