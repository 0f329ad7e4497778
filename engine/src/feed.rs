//! The embedded feed: replays the recorded block stream of the demo market
//! (`catalog/data/blocks.json`), so a fresh `serve` shows a market that
//! moves block by block, deterministically.
//!
//! Each block's trades go through the kernel's exact pool math
//! ([`MarketSnapshot::replay_block`]); the resulting snapshot is published
//! through the [`PriceCacheActor`], which re-derives prices and rebuilds the
//! EVM world before swapping the whole state in, so a route is always
//! proven against the very state it was quoted on. With an interval the
//! feed steps on its own; without one, callers step it
//! ([`crate::EngineHandle::step_blocks`]: tests, benchmarks).
//!
//! When the stream runs out the feed is `Ended`: the market stays at its
//! last state.

use std::{
    sync::{
        Arc,
        atomic::{AtomicBool, Ordering},
    },
    time::Duration,
};

use actix::prelude::*;
use switchyard_catalog::market::BlockStream;
use switchyard_kernel::MarketSnapshot;

use crate::{
    EngineError,
    market::{PriceCacheActor, PublishSnapshot},
    supervise::{Backoff, guarded},
};

/// Seconds between recorded blocks (Ethereum's slot time).
pub const BLOCK_SECONDS: u64 = 12;

/// The embedded feed's actor.
pub(crate) struct EmbeddedFeed {
    stream: Arc<BlockStream>,
    /// Index of the next block to replay.
    next: usize,
    /// The last snapshot this feed produced (publication is asynchronous,
    /// so the next block builds on this, not on what readers see yet).
    current: Arc<MarketSnapshot>,
    interval: Option<Duration>,
    publisher: Addr<PriceCacheActor>,
    ended: Arc<AtomicBool>,
    backoff: Backoff,
    pause: Duration,
}

impl EmbeddedFeed {
    pub(crate) fn new(
        stream: Arc<BlockStream>,
        start: Arc<MarketSnapshot>,
        interval: Option<Duration>,
        publisher: Addr<PriceCacheActor>,
        ended: Arc<AtomicBool>,
    ) -> Self {
        ended.store(stream.blocks.is_empty(), Ordering::Relaxed);
        Self {
            stream,
            next: 0,
            current: start,
            interval,
            publisher,
            ended,
            backoff: Backoff::default(),
            pause: Duration::ZERO,
        }
    }

    /// Replays up to `n` blocks onto `current`; returns how many.
    fn advance(&mut self, n: usize) -> Result<usize, EngineError> {
        let mut stepped = 0;
        while stepped < n {
            let Some(trades) = self.stream.blocks.get(self.next) else {
                self.ended.store(true, Ordering::Relaxed);
                break;
            };
            let (delta, applied) = self.current.replay_block(trades, BLOCK_SECONDS);
            self.current = Arc::new(self.current.apply(&delta)?);
            self.next += 1;
            stepped += 1;
            tracing::debug!(block = self.next, trades = applied, "embedded feed: block replayed");
        }
        if self.next >= self.stream.blocks.len() {
            self.ended.store(true, Ordering::Relaxed);
        }
        Ok(stepped)
    }
}

impl Actor for EmbeddedFeed {
    type Context = Context<Self>;

    fn started(&mut self, ctx: &mut Self::Context) {
        Backoff::hold(self.pause, self, ctx);
        if let Some(every) = self.interval {
            ctx.run_interval(every, |act, ctx| {
                let stepped = guarded(ctx, "embedded feed", || act.advance(1));
                match stepped {
                    Ok(0) => {}
                    Ok(_) => {
                        let head = act.current.heads().values().next().map(|h| h.block_number);
                        tracing::info!(head = ?head, "embedded feed: new block");
                        act.publisher.do_send(PublishSnapshot(Arc::clone(&act.current)));
                    }
                    Err(e) => tracing::error!(error = %e, "embedded feed: block not applied"),
                }
            });
        }
    }
}

impl Supervised for EmbeddedFeed {
    fn restarting(&mut self, _: &mut Self::Context) {
        self.pause = self.backoff.restarted();
    }
}

/// Replays the next `n` blocks and publishes the result; answers how many
/// were replayed once readers see them (0 when the stream has ended).
#[derive(Message)]
#[rtype(result = "Result<usize, EngineError>")]
pub(crate) struct StepBlocks(pub(crate) usize);

impl Handler<StepBlocks> for EmbeddedFeed {
    type Result = ResponseFuture<Result<usize, EngineError>>;

    fn handle(&mut self, msg: StepBlocks, ctx: &mut Self::Context) -> Self::Result {
        let stepped = guarded(ctx, "embedded feed", || self.advance(msg.0));
        let publish = PublishSnapshot(Arc::clone(&self.current));
        let publisher = self.publisher.clone();
        Box::pin(async move {
            let n = stepped?;
            if n > 0 {
                publisher
                    .send(publish)
                    .await
                    .map_err(|_| EngineError::Unavailable("price cache"))?;
            }
            Ok(n)
        })
    }
}

#[cfg(feature = "fault-injection")]
impl Handler<crate::supervise::Crash> for EmbeddedFeed {
    type Result = Result<(), EngineError>;

    fn handle(&mut self, _: crate::supervise::Crash, ctx: &mut Self::Context) -> Self::Result {
        guarded(ctx, "embedded feed", || panic!("injected fault"))
    }
}
