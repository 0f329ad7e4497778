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
//! - **Frames.** An answer's event is rendered once, when it is published;
//!   every subscriber hands the same bytes to its connection.

use std::{
    collections::HashMap,
    convert::Infallible,
    pin::Pin,
    sync::{
        Arc, Mutex, Weak,
        atomic::{AtomicU64, Ordering},
    },
    task::{Context, Poll},
    time::{Duration, Instant},
};

use axum::body::Bytes;
use futures_util::Stream;
use switchyard_engine::{EngineHandle, KeyRecord, QuoteRequest};
use tokio::sync::watch;

use crate::{error::ApiError, quote_id::Source};

/// Histogram: seconds from a market change's announcement to one
/// subscriber's event for it handed to its connection.
pub const PUSH_SECONDS: &str = "switchyard_stream_push_seconds";

/// Histogram: seconds from a market change's announcement to the last
/// event for it handed to a subscriber's connection (of the subscribers
/// that took it before the next change: one that stalls takes none).
pub const ROUND_SECONDS: &str = "switchyard_stream_round_seconds";

/// Heartbeat interval.
pub const HEARTBEAT: Duration = Duration::from_secs(15);

/// The heartbeat's frame: a comment.
const HEARTBEAT_FRAME: &[u8] = b":heartbeat\n\n";

/// The frame of an update the key's rate refused.
const SKIPPED_FRAME: &[u8] = b":rate limited: update skipped\n\n";

/// One market change's recomputation: when it was announced, and when the
/// last subscriber so far was handed its event.
#[derive(Debug)]
struct Round {
    since: Instant,
    /// Nanoseconds from `since` to the latest push.
    last: AtomicU64,
}

impl Round {
    fn pushed(&self) {
        let ns = u64::try_from(self.since.elapsed().as_nanos()).unwrap_or(u64::MAX);
        self.last.fetch_max(ns, Ordering::Relaxed);
    }

    /// Records the round, once its pushes are over (when the next change
    /// comes); a round that pushed nothing is not one.
    fn record(&self) {
        let ns = self.last.load(Ordering::Relaxed);
        if ns > 0 {
            metrics::histogram!(ROUND_SECONDS).record(Duration::from_nanos(ns).as_secs_f64());
        }
    }
}

/// A quote answer, as every subscriber of its computation is sent it.
#[derive(Debug)]
pub struct QuoteUpdate {
    /// `quoteId`.
    pub id: String,
    /// Its block.
    pub block: u64,
    /// The quote JSON, with `blockNumber` and `quoteId`.
    pub data: String,
    /// The server-sent event: `event: quote`, `id`, `data`.
    frame: Bytes,
    /// When the market change it answers was announced.
    since: Instant,
    /// The recomputation it came from (none for a first answer).
    round: Option<Arc<Round>>,
}

/// One computed answer of a shared subscription.
#[derive(Debug)]
pub enum Update {
    /// A quote.
    Quote(Arc<QuoteUpdate>),
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
            publish(&entry, answer, since, None);
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
    let mut previous: Option<Arc<Round>> = None;
    loop {
        if changes.changed().await.is_err() {
            return;
        }
        let since = Instant::now();
        if let Some(r) = previous.take() {
            r.record();
        }
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
        let round = Arc::new(Round { since, last: AtomicU64::new(0) });
        previous = Some(Arc::clone(&round));
        // One state for all, each quote its own job: an answer goes out as
        // soon as it is computed.
        let jobs = engine.quote_each(live.iter().map(|e| e.req.clone()).collect());
        let mut pending: futures_util::stream::FuturesUnordered<_> = live
            .into_iter()
            .zip(jobs)
            .map(|(entry, job)| async move { (entry, job.await) })
            .collect();
        while let Some((entry, answer)) = futures_util::StreamExt::next(&mut pending).await {
            publish(&entry, answer, since, Some(&round));
        }
    }
}

/// Sends `answer` to an entry's subscribers when it differs from the last
/// one sent and is not older; an error ends the computation.
fn publish(
    entry: &Entry,
    answer: Result<switchyard_engine::Quote, switchyard_engine::EngineError>,
    since: Instant,
    round: Option<&Arc<Round>>,
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
    // Neither the compact JSON nor the id holds a line break: each is one
    // field line.
    let frame = Bytes::from(format!("event: quote\nid: {id}\ndata: {data}\n\n"));
    let update = QuoteUpdate { id, block, data, frame, since, round: round.cloned() };
    entry.tx.send_replace(Some(Arc::new(Update::Quote(Arc::new(update)))));
}

/// What a subscriber is sent next.
#[derive(Debug)]
pub enum Pushed {
    /// A quote.
    Quote(Arc<QuoteUpdate>),
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
                Update::Quote(q) => {
                    // The first is the subscription's own request.
                    if !first {
                        let admitted = self.engine.admit(&self.key).await;
                        if !matches!(&admitted, Ok(d) if d.retry_after.is_none()) {
                            return Some(Pushed::Skipped);
                        }
                        metrics::histogram!(PUSH_SECONDS).record(q.since.elapsed().as_secs_f64());
                        if let Some(r) = &q.round {
                            r.pushed();
                        }
                    }
                    return Some(Pushed::Quote(Arc::clone(q)));
                }
            }
        }
    }
}

/// The server-sent event frames of one subscriber: its events, and a
/// heartbeat comment every [`HEARTBEAT`]; the stream ends after an error
/// event, or when the server stops (`stop`, from the accept loop; a
/// client's `EventSource` reconnects, to another replica if there is one).
pub fn frames(
    engine: EngineHandle,
    key: Arc<KeyRecord>,
    sub: Subscription,
    stop: Option<crate::listener::Stopping>,
) -> impl Stream<Item = Result<Bytes, Infallible>> + Send + 'static {
    let events =
        futures_util::stream::unfold(Follower::new(engine, key, sub), |mut f| async move {
            let frame = match f.next().await? {
                Pushed::Quote(q) => q.frame.clone(),
                Pushed::Error(body) => Bytes::from(format!("event: error\ndata: {body}\n\n")),
                Pushed::Skipped => Bytes::from_static(SKIPPED_FRAME),
            };
            Some((frame, f))
        });
    with_heartbeat(events, stop)
}

/// `events`, with a heartbeat every [`HEARTBEAT`] from now, until `stop`.
fn with_heartbeat<S: Stream<Item = Bytes>>(
    events: S,
    stop: Option<crate::listener::Stopping>,
) -> Frames<S> {
    let start = tokio::time::Instant::now() + HEARTBEAT;
    let mut beat = tokio::time::interval_at(start, HEARTBEAT);
    beat.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let stop = stop.map(|s| Box::pin(s.wait()) as Pin<Box<dyn Future<Output = ()> + Send>>);
    Frames { events: Box::pin(events), beat, stop }
}

/// Events, with a heartbeat between them on a fixed interval (not reset by
/// each event: a subscriber's timer is touched every 15 s, not every
/// block), ending when the server stops.
struct Frames<S> {
    events: Pin<Box<S>>,
    beat: tokio::time::Interval,
    stop: Option<Pin<Box<dyn Future<Output = ()> + Send>>>,
}

impl<S: Stream<Item = Bytes>> Stream for Frames<S> {
    type Item = Result<Bytes, Infallible>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = self.get_mut();
        if this.stop.as_mut().is_some_and(|s| s.as_mut().poll(cx).is_ready()) {
            return Poll::Ready(None);
        }
        if let Poll::Ready(frame) = this.events.as_mut().poll_next(cx) {
            return Poll::Ready(frame.map(Ok));
        }
        match this.beat.poll_tick(cx) {
            Poll::Ready(_) => Poll::Ready(Some(Ok(Bytes::from_static(HEARTBEAT_FRAME)))),
            Poll::Pending => Poll::Pending,
        }
    }
}

#[cfg(test)]
mod tests {
    use futures_util::StreamExt as _;

    use super::*;

    #[tokio::test(start_paused = true)]
    async fn heartbeats_keep_their_interval_and_end_with_the_events() {
        let (tx, rx) = tokio::sync::mpsc::unbounded_channel::<Bytes>();
        let events =
            futures_util::stream::unfold(
                rx,
                |mut rx| async move { rx.recv().await.map(|b| (b, rx)) },
            );
        let start = tokio::time::Instant::now();
        let mut frames = std::pin::pin!(with_heartbeat(events, None));
        tokio::time::advance(Duration::from_secs(10)).await;
        tx.send(Bytes::from_static(b"event: quote\n\n")).expect("open");
        let first = frames.next().await.expect("a frame").expect("infallible");
        assert_eq!(&first[..], b"event: quote\n\n");
        // 15 s from the start, not from the event.
        let beat = frames.next().await.expect("a frame").expect("infallible");
        assert_eq!(&beat[..], HEARTBEAT_FRAME);
        assert_eq!(start.elapsed(), HEARTBEAT);
        let beat = frames.next().await.expect("a frame").expect("infallible");
        assert_eq!(&beat[..], HEARTBEAT_FRAME);
        assert_eq!(start.elapsed(), 2 * HEARTBEAT);
        drop(tx);
        assert!(frames.next().await.is_none(), "the stream ends with its events");
    }
}
