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
use switchyard_catalog::{ChainId, market::BlockStream};
use switchyard_kernel::MarketSnapshot;

use crate::{
    EngineError,
    market::{ApplyStates, PriceCacheActor},
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
    /// Chains another feed (a node) owns: their recorded trades and heads
    /// are not replayed.
    skip: std::collections::BTreeSet<ChainId>,
    /// What the replayed blocks changed since the last publication.
    pending: ApplyStates,
}

impl EmbeddedFeed {
    pub(crate) fn new(
        stream: Arc<BlockStream>,
        start: Arc<MarketSnapshot>,
        interval: Option<Duration>,
        publisher: Addr<PriceCacheActor>,
        ended: Arc<AtomicBool>,
        skip: std::collections::BTreeSet<ChainId>,
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
            skip,
            pending: ApplyStates { heads: Vec::new(), pools: Vec::new() },
        }
    }

    /// What to publish: the changes since the last publication, by
    /// address (the publisher's snapshot also holds other feeds' pools).
    fn take_pending(&mut self) -> ApplyStates {
        std::mem::replace(&mut self.pending, ApplyStates { heads: Vec::new(), pools: Vec::new() })
    }

    /// Replays up to `n` blocks onto `current`; returns how many.
    fn advance(&mut self, n: usize) -> Result<usize, EngineError> {
        let mut stepped = 0;
        while stepped < n {
            let Some(trades) = self.stream.blocks.get(self.next) else {
                self.ended.store(true, Ordering::Relaxed);
                break;
            };
            let (mut delta, applied) = self.current.replay_block(trades, BLOCK_SECONDS);
            let pools = self.current.pools();
            delta
                .pools
                .retain(|(k, _)| pools.get(*k).is_some_and(|p| !self.skip.contains(&p.chain)));
            delta.heads.retain(|(c, _)| !self.skip.contains(c));
            for (k, state) in &delta.pools {
                if let Some(p) = pools.get(*k) {
                    self.pending.pools.push((p.chain, p.address, state.clone()));
                }
            }
            self.pending.heads.retain(|(c, _)| delta.heads.iter().all(|(d, _)| d != c));
            self.pending.heads.extend(delta.heads.iter().copied());
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
                        let changes = act.take_pending();
                        act.publisher.do_send(changes);
                    }
                    Err(e) => tracing::error!(error = %crate::error_chain(&e), "embedded feed: block not applied"),
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
        let publish = self.take_pending();
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
