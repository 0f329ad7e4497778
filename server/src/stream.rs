//! Quote streams: `GET /api/v1/shortcuts/quote/stream` answers
//! `text/event-stream`, one `quote` event at once and then one per market
//! change whose answer differs from the last one sent.
//!
//! - **Shared computation.** Subscriptions to the same normalized request
//!   share one task, which recomputes the quote when the engine's market
//!   changes and publishes it on a `watch` channel.
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

/// A computation shared by identical subscriptions.
#[derive(Debug)]
struct Shared {
    rx: watch::Receiver<Option<Arc<Update>>>,
}

/// Every live subscription, by normalized request, and the count per key.
#[derive(Debug, Default)]
pub struct StreamHub {
    shared: Mutex<HashMap<String, Weak<Shared>>>,
    per_key: Mutex<HashMap<i64, usize>>,
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

/// What a subscriber holds: the shared computation (kept alive while any
/// subscriber is) and its slot.
#[derive(Debug)]
pub struct Subscription {
    shared: Arc<Shared>,
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

    /// Joins the computation of `req` (starting it when none runs).
    /// `canonical` is the request's canonical query (its `quoteId`s name
    /// it).
    pub fn subscribe(
        &self,
        engine: &EngineHandle,
        req: QuoteRequest,
        canonical: String,
        slot: Slot,
    ) -> Subscription {
        let key = format!("{req:?}");
        let mut m = self.shared.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        m.retain(|_, w| w.strong_count() > 0);
        if let Some(shared) = m.get(&key).and_then(Weak::upgrade) {
            return Subscription { shared, _slot: slot };
        }
        let (tx, rx) = watch::channel(None);
        let shared = Arc::new(Shared { rx });
        m.insert(key, Arc::downgrade(&shared));
        tokio::spawn(compute(engine.clone(), req, canonical, tx));
        Subscription { shared, _slot: slot }
    }

    /// Subscriptions held now (all keys).
    pub fn open(&self) -> usize {
        self.per_key.lock().unwrap_or_else(std::sync::PoisonError::into_inner).values().sum()
    }
}

/// Recomputes `req` on every market change while anyone listens, and
/// publishes each answer that differs from the last.
async fn compute(
    engine: EngineHandle,
    req: QuoteRequest,
    canonical: String,
    tx: watch::Sender<Option<Arc<Update>>>,
) {
    let mut changes = engine.market_changes();
    let mut last_body: Option<String> = None;
    let mut since = Instant::now();
    loop {
        changes.borrow_and_update();
        let update = match engine.quote(req.clone()).await {
            Ok(q) => {
                let mut body =
                    crate::api::shortcuts::quote_response(&q, &canonical, Source::Quotes);
                let (block, id) = (body.block_number, std::mem::take(&mut body.quote_id));
                // What is compared: the answer without its block.
                body.block_number = 0;
                let same = serde_json::to_string(&body).unwrap_or_default();
                if last_body.as_deref() == Some(same.as_str()) {
                    None
                } else {
                    last_body = Some(same);
                    body.block_number = block;
                    body.quote_id.clone_from(&id);
                    let data = serde_json::to_string(&body).unwrap_or_default();
                    Some(Update::Quote { id, block, data, since })
                }
            }
            Err(e) => Some(Update::Failed(ApiError::from(e))),
        };
        let failed = matches!(update, Some(Update::Failed(_)));
        if let Some(u) = update {
            tx.send_replace(Some(Arc::new(u)));
        }
        if failed {
            return;
        }
        tokio::select! {
            () = tx.closed() => return,
            r = changes.changed() => if r.is_err() { return },
        }
        since = Instant::now();
    }
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
        let rx = sub.shared.rx.clone();
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
