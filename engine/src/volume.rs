//! Routed volume per chain, persisted in the engine database (SQLite, or
//! the PostgreSQL every replica shares: there the totals add up across
//! replicas).
//!
//! Recording is off the request path: a route sends its volume without
//! waiting, the recorder adds it up in memory and writes the totals in one
//! transaction per second (and before it answers a read, and when it
//! stops), so no request waits for the database's sync to disk.

use std::{collections::BTreeMap, time::Duration};

use actix::prelude::*;
use switchyard_catalog::ChainId;

use crate::{
    EngineError,
    keys::{Database, KeyStore},
    supervise::{Backoff, guarded},
};

/// What this instance has routed on one chain.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct VolumeStats {
    /// Chain.
    pub chain: ChainId,
    /// Total USD value of routed inputs.
    pub total_usd: f64,
    /// Number of transactions built.
    pub transactions: u64,
}

/// How often recorded volume is written to the database.
const FLUSH_EVERY: Duration = Duration::from_secs(1);

/// Records and serves [`VolumeStats`].
pub(crate) struct VolumeRecorder {
    db: Database,
    store: Option<KeyStore>,
    /// Recorded and not yet written: per chain, USD and transactions.
    /// Kept across a restart (the actor is restarted in place).
    pending: BTreeMap<i64, (f64, i64)>,
    backoff: Backoff,
    pause: Duration,
}

impl VolumeRecorder {
    pub(crate) fn new(db: Database) -> Self {
        Self {
            db,
            store: None,
            pending: BTreeMap::new(),
            backoff: Backoff::default(),
            pause: Duration::ZERO,
        }
    }

    /// Writes what is pending in one transaction; on failure it stays
    /// pending for the next flush.
    fn flush(&mut self) -> Result<(), EngineError> {
        if self.pending.is_empty() {
            return Ok(());
        }
        let pending = std::mem::take(&mut self.pending);
        let written = self.store().and_then(|s| s.add_volume(&pending));
        if written.is_err() {
            // Reconnect on the next flush.
            self.store = None;
            for (chain, (usd, n)) in pending {
                let e = self.pending.entry(chain).or_default();
                e.0 += usd;
                e.1 += n;
            }
        }
        written
    }

    fn store(&mut self) -> Result<&KeyStore, EngineError> {
        if self.store.is_none() {
            self.store = Some(KeyStore::connect(&self.db)?);
        }
        self.store.as_ref().ok_or(EngineError::Unavailable("volume recorder"))
    }
}

impl Actor for VolumeRecorder {
    type Context = Context<Self>;

    fn started(&mut self, ctx: &mut Self::Context) {
        Backoff::hold(self.pause, self, ctx);
        ctx.run_interval(FLUSH_EVERY, |act, _| {
            if let Err(e) = act.flush() {
                tracing::warn!(error = %crate::error_chain(&e), "routed volume not written yet; retrying");
            }
        });
    }

    fn stopping(&mut self, _: &mut Self::Context) -> Running {
        if let Err(e) = self.flush() {
            tracing::error!(error = %crate::error_chain(&e), "routed volume lost on stop");
        }
        Running::Stop
    }
}

impl Supervised for VolumeRecorder {
    fn restarting(&mut self, _: &mut Self::Context) {
        self.store = None;
        self.pause = self.backoff.restarted();
    }
}

#[cfg(feature = "fault-injection")]
impl Handler<crate::supervise::Crash> for VolumeRecorder {
    type Result = Result<(), EngineError>;

    fn handle(&mut self, _: crate::supervise::Crash, ctx: &mut Self::Context) -> Self::Result {
        guarded(ctx, "volume recorder", || panic!("injected fault"))
    }
}

/// Adds one routed transaction (sent without waiting for an answer).
#[derive(Message)]
#[rtype(result = "()")]
pub(crate) struct RecordVolume {
    pub(crate) chain: ChainId,
    pub(crate) usd: f64,
}

impl Handler<RecordVolume> for VolumeRecorder {
    type Result = ();

    fn handle(&mut self, msg: RecordVolume, ctx: &mut Self::Context) {
        let _ = guarded(ctx, "volume recorder", || {
            let chain = i64::try_from(msg.chain.0).unwrap_or(i64::MAX);
            let usd = if msg.usd.is_finite() && msg.usd > 0.0 { msg.usd } else { 0.0 };
            let e = self.pending.entry(chain).or_default();
            e.0 += usd;
            e.1 += 1;
            Ok(())
        });
    }
}

/// Reads the stats of a chain.
#[derive(Message)]
#[rtype(result = "Result<VolumeStats, EngineError>")]
pub(crate) struct GetVolume(pub(crate) ChainId);

impl Handler<GetVolume> for VolumeRecorder {
    type Result = Result<VolumeStats, EngineError>;

    fn handle(&mut self, msg: GetVolume, ctx: &mut Self::Context) -> Self::Result {
        guarded(ctx, "volume recorder", || {
            self.flush()?;
            let chain = i64::try_from(msg.0.0).unwrap_or(i64::MAX);
            let read = self.store().and_then(|s| s.volume(chain));
            if read.is_err() {
                self.store = None;
            }
            let (total_usd, n) = read?;
            Ok(VolumeStats { chain: msg.0, total_usd, transactions: u64::try_from(n).unwrap_or(0) })
        })
    }
}
