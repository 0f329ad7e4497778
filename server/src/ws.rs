//! Quote subscriptions over a WebSocket (`GET /api/v1/ws`), on the same
//! shared computations as the server-sent events of [`crate::stream`].
//!
//! Client messages:
//! - `{"op":"subscribe","id":"<client id>","quote":{<quote parameters>}}`
//! - `{"op":"unsubscribe","id":"<client id>"}`
//!
//! Server messages:
//! - `{"id","blockNumber","quoteId","quote":{…}}` at once, then on every
//!   market change that changes the answer;
//! - `{"id","error":{<standard error body>}}` for a bad message (`id` null
//!   when it had none), a refused subscription, or an error that ends one.
//!
//! Each connection writes through one bounded queue: a slow reader holds
//! up only its own subscriptions, each of which keeps only its latest
//! answer. The messages queued when the writer wakes are flushed together,
//! so the subscriptions of one connection moved by one block cost one
//! write.

use std::{collections::HashMap, sync::Arc};

use axum::extract::ws::{CloseFrame, Message, WebSocket, close_code};
use futures_util::{SinkExt as _, StreamExt as _};
use serde_json::{Value, json};
use switchyard_engine::KeyRecord;
use tokio::{sync::mpsc, task::JoinHandle};

use crate::{
    AppState,
    api::{requests, shortcuts},
    error::ApiError,
    listener::Upgraded,
    query::Query,
    stream::{Follower, Pushed},
};

/// Largest client message, bytes.
pub const MAX_MESSAGE: usize = 64 * 1024;
/// Longest client id.
const MAX_ID: usize = 128;
/// Messages queued for the socket before subscriptions wait.
const QUEUE: usize = 64;
/// How long a stopping server gives a session's queued messages and close
/// frame to go out.
const CLOSE_WAIT: std::time::Duration = std::time::Duration::from_secs(1);

/// Serves one connection until the client closes it, or the server stops
/// (`held`, from the accept loop: the session is then sent a close frame,
/// 1001 "going away").
pub async fn session(
    socket: WebSocket,
    state: AppState,
    key: Arc<KeyRecord>,
    held: Option<Upgraded>,
) {
    let (mut sink, mut incoming) = socket.split();
    let (tx, mut rx) = mpsc::channel::<Message>(QUEUE);
    let writer = tokio::spawn(async move {
        // What is queued when the writer wakes goes out in one write: a
        // block that moves a hundred of the connection's subscriptions
        // costs one send, not a hundred (a loopback send costs about 10 µs
        // of CPU on the benchmark machine, BENCHMARKS.md).
        while let Some(m) = rx.recv().await {
            if sink.feed(m).await.is_err() {
                return;
            }
            // The other subscriptions the same publication woke run first
            // and queue theirs.
            tokio::task::yield_now().await;
            while let Ok(m) = rx.try_recv() {
                if sink.feed(m).await.is_err() {
                    return;
                }
            }
            if sink.flush().await.is_err() {
                return;
            }
        }
    });
    let mut subs: HashMap<String, JoinHandle<()>> = HashMap::new();
    // `held` keeps the connection's place until the session returns.
    let stop = held.as_ref().map(Upgraded::stop);
    let mut stopping = std::pin::pin!(async move {
        match stop {
            Some(s) => s.wait().await,
            None => std::future::pending().await,
        }
    });
    let mut stopped = false;
    loop {
        let msg = tokio::select! {
            m = incoming.next() => match m {
                Some(Ok(m)) => m,
                _ => break,
            },
            () = &mut stopping => {
                stopped = true;
                break;
            }
        };
        let text = match msg {
            Message::Text(t) => t.to_string(),
            Message::Close(_) => break,
            _ => continue,
        };
        subs.retain(|_, h| !h.is_finished());
        if let Err((id, e)) = handle(&state, &key, &text, &mut subs, &tx) {
            let body = serde_json::to_value(e.body()).unwrap_or(Value::Null);
            let m = json!({ "id": id, "error": body }).to_string();
            if tx.send(Message::Text(m.into())).await.is_err() {
                break;
            }
        }
    }
    for (_, h) in subs {
        h.abort();
    }
    if stopped {
        // Queued behind what is already in flight; the writer ends once
        // the queue is drained.
        let close = CloseFrame { code: close_code::AWAY, reason: "server shutting down".into() };
        let _ = tx.send(Message::Close(Some(close))).await;
        drop(tx);
        let mut writer = writer;
        if tokio::time::timeout(CLOSE_WAIT, &mut writer).await.is_err() {
            writer.abort();
        }
    } else {
        writer.abort();
    }
    drop(held);
}

/// One client message.
fn handle(
    state: &AppState,
    key: &Arc<KeyRecord>,
    text: &str,
    subs: &mut HashMap<String, JoinHandle<()>>,
    tx: &mpsc::Sender<Message>,
) -> Result<(), (Option<String>, ApiError)> {
    let mut buf = text.as_bytes().to_vec();
    let value = simd_json::to_borrowed_value(&mut buf).map_err(|e| {
        (None, ApiError::invalid("body", format!("message is not valid json: {e}")))
    })?;
    use simd_json::{BorrowedValue as V, prelude::ValueObjectAccess};
    let id = match value.get("id") {
        Some(V::String(s)) if !s.is_empty() && s.len() <= MAX_ID => s.to_string(),
        _ => {
            return Err((
                None,
                ApiError::invalid("id", format!("id is a string of 1 to {MAX_ID} characters")),
            ));
        }
    };
    let fail = |e: ApiError| (Some(id.clone()), e);
    match value.get("op") {
        Some(V::String(op)) if op == "unsubscribe" => {
            match subs.remove(&id) {
                Some(h) => h.abort(),
                None => {
                    return Err(fail(ApiError::not_found("id", format!("no subscription {id}"))));
                }
            }
            Ok(())
        }
        Some(V::String(op)) if op == "subscribe" => {
            if subs.contains_key(&id) {
                return Err(fail(ApiError::invalid("id", format!("subscription {id} exists"))));
            }
            let quote = match value.get("quote") {
                Some(q @ V::Object(_)) => q,
                Some(_) => {
                    return Err(fail(ApiError::invalid(
                        "quote",
                        "quote is an object of quote parameters",
                    )));
                }
                None => return Err(fail(ApiError::missing("quote"))),
            };
            let catalog = state.engine.catalog();
            let req = Query::from_json_object(quote)
                .and_then(|q| requests::parse_route(&q, &catalog, requests::RouteKind::Quote))
                .map_err(|e| fail(e.in_item("quote")))?;
            shortcuts::check_tokens(&catalog, &req).map_err(|e| fail(e.in_item("quote")))?;
            let slot = state
                .streams
                .reserve(key, state.settings.stream_subscriptions_per_key)
                .map_err(fail)?;
            let sub = state.streams.subscribe(
                &state.engine,
                shortcuts::quote_request(&req),
                crate::quote_id::canonical(&req),
                slot,
            );
            let mut follower = Follower::new(state.engine.clone(), Arc::clone(key), sub);
            let (tx, sub_id) = (tx.clone(), id.clone());
            let task = tokio::spawn(async move {
                while let Some(p) = follower.next().await {
                    let m = match p {
                        Pushed::Quote(q) => format!(
                            r#"{{"id":{},"blockNumber":{},"quoteId":{},"quote":{}}}"#,
                            Value::from(sub_id.as_str()),
                            q.block,
                            Value::from(q.id.as_str()),
                            q.data
                        ),
                        Pushed::Error(body) => {
                            format!(r#"{{"id":{},"error":{body}}}"#, Value::from(sub_id.as_str()))
                        }
                        Pushed::Skipped => continue,
                    };
                    if tx.send(Message::Text(m.into())).await.is_err() {
                        return;
                    }
                }
            });
            subs.insert(id, task);
            Ok(())
        }
        _ => Err(fail(ApiError::invalid("op", "op is subscribe or unsubscribe"))),
    }
}
