//! Quote streams: `GET /api/v1/shortcuts/quote/stream` answers
//! `text/event-stream`, one `quote` event at once and then one per market
//! change whose answer differs from the last one sent.
//!
//! - **Shared computation.** Subscriptions to the same normalized request
//!   share one entry and its `watch` channel. On every market change one
//!   task recomputes every live entry on one market state, each quote its
//!   own job on the rayon pool, and publishes each answer that differs as
//!   soon as it is computed; a new entry's first answer is computed at
//!   once.
//! - **Slow consumers.** A subscriber reads the channel's latest value
//!   only: one that falls behind skips the intermediate quotes, never
//!   delays the others, and holds one value, whatever its pace.
//! - **Cost.** Each pushed update costs its key one request against its
//!   rate; an update the rate refuses is skipped (a comment says so) and
//!   the next change tries again. Each key may hold
//!   `stream_subscriptions_per_key` streams at once.
//! - **End.** An error computing the quote is sent as `event: error` with
//!   the standard error body, and the stream ends. A comment heartbeat goes
//!   out every 15 s.

use std::{
    collections::HashMap,
    convert::Infallible,
    sync::{Arc, Mutex, Weak},
    time::{Duration, Instant},
};

use axum::response::sse::{Event, KeepAlive};
use switchyard_engine::{EngineHandle, KeyRecord, QuoteRequest};
use tokio::sync::watch;

use crate::{error::ApiError, quote_id::Source};

/// Histogram: seconds from a market change's announcement to one
/// subscriber's event for it handed to its connection.
pub const PUSH_SECONDS: &str = "switchyard_stream_push_seconds";

/// Heartbeat interval.
pub const HEARTBEAT: Duration = Duration::from_secs(15);

/// One computed answer of a shared subscription.
#[derive(Debug)]
pub enum Update {
    /// A quote: its event data (the quote JSON with `blockNumber` and
    /// `quoteId`) and id.
    Quote {
        /// `quoteId`.
        id: String,
        /// Its block.
        block: u64,
        /// The event's JSON.
        data: String,
        /// When the market change it answers was announced.
        since: Instant,
    },
    /// The quote failed: the error that ends the stream.
    Failed(ApiError),
}

/// A computation shared by identical subscriptions: the request, and the
/// channel its answers go out on.
#[derive(Debug)]
struct Entry {
    req: QuoteRequest,
    canonical: String,
    tx: watch::Sender<Option<Arc<Update>>>,
    /// The block and body (without its block and id) of the last answer
    /// sent: an answer is sent when it differs, and never for an older
    /// block than the last.
    last: Mutex<(u64, Option<String>)>,
}

/// Every live computation, by normalized request, the count per key, and
/// whether the loop that recomputes them runs.
#[derive(Debug, Default)]
pub struct StreamHub {
    entries: Mutex<HashMap<String, Arc<Entry>>>,
    per_key: Mutex<HashMap<i64, usize>>,
    running: std::sync::atomic::AtomicBool,
}

/// A subscription's place in its key's count, given back when dropped.
#[derive(Debug)]
pub struct Slot {
    hub: Arc<StreamHub>,
    key: i64,
}

impl Drop for Slot {
    fn drop(&mut self) {
        let mut m = self.hub.per_key.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(n) = m.get_mut(&self.key) {
            *n = n.saturating_sub(1);
            if *n == 0 {
                m.remove(&self.key);
            }
        }
    }
}

/// What a subscriber holds: its receiver of the shared computation's
/// answers (the computation lives while any receiver does) and its slot.
#[derive(Debug)]
pub struct Subscription {
    rx: watch::Receiver<Option<Arc<Update>>>,
    _slot: Slot,
}

impl StreamHub {
    /// Takes one of `key`'s `limit` subscriptions, or refuses.
    pub fn reserve(self: &Arc<Self>, key: &KeyRecord, limit: usize) -> Result<Slot, ApiError> {
        let mut m = self.per_key.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let n = m.entry(key.id).or_default();
        if *n >= limit {
            return Err(ApiError::too_many_subscriptions(limit));
        }
        *n += 1;
        Ok(Slot { hub: Arc::clone(self), key: key.id })
    }

    /// Joins the computation of `req` (starting it when none runs, with
    /// its first answer computed at once). `canonical` is the request's
    /// canonical query (its `quoteId`s name it).
    pub fn subscribe(
        self: &Arc<Self>,
        engine: &EngineHandle,
        req: QuoteRequest,
        canonical: String,
        slot: Slot,
    ) -> Subscription {
        let key = format!("{req:?}");
        let mut m = self.entries.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        m.retain(|_, e| e.tx.receiver_count() > 0);
        if let Some(e) = m.get(&key) {
            return Subscription { rx: e.tx.subscribe(), _slot: slot };
        }
        let (tx, rx) = watch::channel(None);
        let entry = Arc::new(Entry { req, canonical, tx, last: Mutex::new((0, None)) });
        m.insert(key, Arc::clone(&entry));
        drop(m);
        let engine_first = engine.clone();
        tokio::spawn(async move {
            let since = Instant::now();
            let answer = engine_first.quote(entry.req.clone()).await;
            publish(&entry, answer, since);
        });
        if !self.running.swap(true, std::sync::atomic::Ordering::AcqRel) {
            tokio::spawn(recompute(Arc::downgrade(self), engine.clone()));
        }
        Subscription { rx, _slot: slot }
    }

    /// Subscriptions held now (all keys).
    pub fn open(&self) -> usize {
        self.per_key.lock().unwrap_or_else(std::sync::PoisonError::into_inner).values().sum()
    }
}

/// On every market change, every live computation: one market state, each
/// quote its own rayon job, each answer that differs from its last
/// published sent as it comes. Runs while the hub exists.
async fn recompute(hub: Weak<StreamHub>, engine: EngineHandle) {
    let mut changes = engine.market_changes();
    loop {
        if changes.changed().await.is_err() {
            return;
        }
        let since = Instant::now();
        let Some(hub) = hub.upgrade() else { return };
        let live: Vec<Arc<Entry>> = {
            let mut m = hub.entries.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            m.retain(|_, e| e.tx.receiver_count() > 0);
            m.values().cloned().collect()
        };
        drop(hub);
        if live.is_empty() {
            continue;
        }
        // One state for all, each quote its own job: an answer goes out as
        // soon as it is computed.
        let jobs = engine.quote_each(live.iter().map(|e| e.req.clone()).collect());
        let mut pending: futures_util::stream::FuturesUnordered<_> = live
            .into_iter()
            .zip(jobs)
            .map(|(entry, job)| async move { (entry, job.await) })
            .collect();
        while let Some((entry, answer)) = futures_util::StreamExt::next(&mut pending).await {
            publish(&entry, answer, since);
        }
    }
}

/// Sends `answer` to an entry's subscribers when it differs from the last
/// one sent and is not older; an error ends the computation.
fn publish(
    entry: &Entry,
    answer: Result<switchyard_engine::Quote, switchyard_engine::EngineError>,
    since: Instant,
) {
    let q = match answer {
        Ok(q) => q,
        Err(e) => {
            entry.tx.send_replace(Some(Arc::new(Update::Failed(ApiError::from(e)))));
            return;
        }
    };
    let mut body = crate::api::shortcuts::quote_response(&q, &entry.canonical, Source::Quotes);
    let (block, id) = (body.block_number, std::mem::take(&mut body.quote_id));
    // What is compared: the answer without its block and id.
    body.block_number = 0;
    let same = serde_json::to_string(&body).unwrap_or_default();
    let mut last = entry.last.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    if block < last.0 || last.1.as_deref() == Some(same.as_str()) {
        return;
    }
    *last = (block, Some(same));
    drop(last);
    body.block_number = block;
    body.quote_id.clone_from(&id);
    let data = serde_json::to_string(&body).unwrap_or_default();
    entry.tx.send_replace(Some(Arc::new(Update::Quote { id, block, data, since })));
}

/// What a subscriber is sent next.
#[derive(Debug)]
pub enum Pushed {
    /// A quote: its `quoteId`, block and JSON (with `blockNumber` and
    /// `quoteId`).
    Quote {
        /// `quoteId`.
        id: String,
        /// Its block.
        block: u64,
        /// The quote JSON.
        data: String,
    },
    /// The error body that ends the subscription.
    Error(String),
    /// An update the key's rate refused: skipped.
    Skipped,
}

/// One subscriber's view of a shared computation: the current answer at
/// once, then each new one, charged to its key.
#[derive(Debug)]
pub struct Follower {
    engine: EngineHandle,
    key: Arc<KeyRecord>,
    rx: watch::Receiver<Option<Arc<Update>>>,
    _sub: Subscription,
    first: bool,
    done: bool,
}

impl Follower {
    /// Follows `sub` for `key`.
    pub fn new(engine: EngineHandle, key: Arc<KeyRecord>, sub: Subscription) -> Self {
        let rx = sub.rx.clone();
        Self { engine, key, rx, _sub: sub, first: true, done: false }
    }

    /// The next thing to send; `None` once the subscription has ended.
    pub async fn next(&mut self) -> Option<Pushed> {
        if self.done {
            return None;
        }
        loop {
            // The first is the current answer (waiting for it if the
            // shared computation has none yet); then each new one.
            let ready = if self.first {
                self.rx.wait_for(Option::is_some).await.is_ok()
            } else {
                self.rx.changed().await.is_ok()
            };
            if !ready {
                return None;
            }
            let first = std::mem::replace(&mut self.first, false);
            let Some(update) = self.rx.borrow_and_update().clone() else { continue };
            match &*update {
                Update::Failed(e) => {
                    self.done = true;
                    return Some(Pushed::Error(
                        serde_json::to_string(&e.body()).unwrap_or_default(),
                    ));
                }
                Update::Quote { id, block, data, since } => {
                    // The first is the subscription's own request.
                    if !first {
                        let admitted = self.engine.admit(&self.key).await;
                        if !matches!(&admitted, Ok(d) if d.retry_after.is_none()) {
                            return Some(Pushed::Skipped);
                        }
                        metrics::histogram!(PUSH_SECONDS).record(since.elapsed().as_secs_f64());
                    }
                    return Some(Pushed::Quote {
                        id: id.clone(),
                        block: *block,
                        data: data.clone(),
                    });
                }
            }
        }
    }
}

/// The server-sent events of one subscriber.
pub fn events(
    engine: EngineHandle,
    key: Arc<KeyRecord>,
    sub: Subscription,
) -> impl futures_util::Stream<Item = Result<Event, Infallible>> {
    futures_util::stream::unfold(Follower::new(engine, key, sub), |mut f| async move {
        let ev = match f.next().await? {
            Pushed::Quote { id, data, .. } => Event::default().event("quote").id(id).data(data),
            Pushed::Error(body) => Event::default().event("error").data(body),
            Pushed::Skipped => Event::default().comment("rate limited: update skipped"),
        };
        Some((Ok(ev), f))
    })
}

/// The heartbeat: a comment every [`HEARTBEAT`].
pub fn heartbeat() -> KeepAlive {
    KeepAlive::new().interval(HEARTBEAT).text("heartbeat")
}
