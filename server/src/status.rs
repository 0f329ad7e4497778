//! The operator's status board: the last minutes of requests, per route
//! template, in 5-second slots, and the last errors by code. `/status.json`
//! serves it with the feeds' state; `/status` is the page that draws it.
//!
//! Nothing here holds a key, an account or a client address: a request is
//! counted by its route template, status, error code and time only.

use std::{
    collections::{BTreeMap, VecDeque},
    sync::Mutex,
    time::{Duration, Instant, SystemTime, UNIX_EPOCH},
};

use serde::Serialize;
use utoipa::ToSchema;

/// Seconds per slot.
pub const SLOT_SECONDS: u64 = 5;
/// Slots kept: 5 minutes.
pub const SLOTS: usize = 60;
/// Errors kept in the last-errors list.
const LAST_ERRORS: usize = 20;

/// Latency buckets: bucket `i` holds `[BASE·2^(i/4), BASE·2^((i+1)/4))`,
/// about 19% wide, from 10 µs to past 40 s.
const BASE_US: f64 = 10.0;
const PER_OCTAVE: f64 = 4.0;
const BUCKETS: usize = 90;

fn bucket_of(elapsed: Duration) -> usize {
    let us = elapsed.as_secs_f64() * 1e6;
    if us <= BASE_US {
        return 0;
    }
    ((us / BASE_US).log2() * PER_OCTAVE).floor().clamp(0.0, (BUCKETS - 1) as f64) as usize
}

/// The middle (geometric) of bucket `i`, in milliseconds.
fn bucket_ms(i: usize) -> f64 {
    BASE_US * ((i as f64 + 0.5) / PER_OCTAVE).exp2() / 1000.0
}

#[derive(Debug, Clone)]
struct Hist {
    count: u64,
    errors: u64,
    buckets: [u32; BUCKETS],
}

impl Default for Hist {
    fn default() -> Self {
        Self { count: 0, errors: 0, buckets: [0; BUCKETS] }
    }
}

impl Hist {
    fn add(&mut self, other: &Self) {
        self.count += other.count;
        self.errors += other.errors;
        for (a, b) in self.buckets.iter_mut().zip(&other.buckets) {
            *a += b;
        }
    }

    /// The `q` quantile, in milliseconds (`None` with no requests).
    fn quantile(&self, q: f64) -> Option<f64> {
        let total: u64 = self.buckets.iter().map(|b| u64::from(*b)).sum();
        if total == 0 {
            return None;
        }
        let rank = ((q * total as f64).ceil() as u64).clamp(1, total);
        let mut seen = 0;
        for (i, b) in self.buckets.iter().enumerate() {
            seen += u64::from(*b);
            if seen >= rank {
                return Some(bucket_ms(i));
            }
        }
        None
    }
}

#[derive(Debug, Default)]
struct Slot {
    /// Slot number: seconds since the board's start ÷ [`SLOT_SECONDS`].
    n: u64,
    routes: BTreeMap<String, Hist>,
    codes: BTreeMap<&'static str, u64>,
}

#[derive(Debug)]
struct Inner {
    slots: VecDeque<Slot>,
    last_errors: VecDeque<ErrorEntry>,
}

/// Recent requests, for the status page.
#[derive(Debug)]
pub struct StatusBoard {
    started: Instant,
    started_unix: u64,
    inner: Mutex<Inner>,
}

impl Default for StatusBoard {
    fn default() -> Self {
        let started_unix = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
        Self {
            started: Instant::now(),
            started_unix,
            inner: Mutex::new(Inner { slots: VecDeque::new(), last_errors: VecDeque::new() }),
        }
    }
}

/// Routes the board leaves out: the operator's own polling.
fn is_operational(route: &str) -> bool {
    matches!(route, "/status" | "/status.json" | "/metrics" | "/health" | "/ready")
}

impl StatusBoard {
    fn slot_of(&self, at: Instant) -> u64 {
        at.saturating_duration_since(self.started).as_secs() / SLOT_SECONDS
    }

    /// Records one answered request.
    pub fn record(
        &self,
        route: &str,
        status: u16,
        code: Option<&'static str>,
        elapsed: Duration,
        at: Instant,
    ) {
        if is_operational(route) {
            return;
        }
        let n = self.slot_of(at);
        let mut inner = self.inner.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if inner.slots.back().is_none_or(|s| s.n < n) {
            inner.slots.push_back(Slot { n, ..Slot::default() });
            while inner.slots.front().is_some_and(|s| s.n + SLOTS as u64 <= n) {
                inner.slots.pop_front();
            }
        }
        let Some(slot) = inner.slots.iter_mut().rev().find(|s| s.n == n) else { return };
        let hist = match slot.routes.get_mut(route) {
            Some(h) => h,
            None => slot.routes.entry(route.to_owned()).or_default(),
        };
        hist.count += 1;
        hist.buckets[bucket_of(elapsed)] += 1;
        if status >= 400 {
            hist.errors += 1;
            let code = code.unwrap_or("UNKNOWN");
            *slot.codes.entry(code).or_default() += 1;
            let at_unix = self.started_unix + at.saturating_duration_since(self.started).as_secs();
            inner.last_errors.push_back(ErrorEntry {
                at: at_unix,
                route: route.to_owned(),
                status,
                code,
            });
            if inner.last_errors.len() > LAST_ERRORS {
                inner.last_errors.pop_front();
            }
        }
    }

    /// The last [`SLOTS`] slots up to `now`, oldest first (slots with no
    /// request are there, empty).
    pub fn window(&self, now: Instant) -> Window {
        let last = self.slot_of(now);
        let first = (last + 1).saturating_sub(SLOTS as u64);
        let inner = self.inner.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let slots: Vec<&Slot> =
            inner.slots.iter().filter(|s| (first..=last).contains(&s.n)).collect();
        let n_slots = (last - first + 1) as usize;
        let mut routes: BTreeMap<&str, (Vec<Hist>, Hist)> = BTreeMap::new();
        let mut codes: BTreeMap<&'static str, u64> = BTreeMap::new();
        for s in &slots {
            let k = (s.n - first) as usize;
            for (route, h) in &s.routes {
                let (series, total) = routes
                    .entry(route.as_str())
                    .or_insert_with(|| (vec![Hist::default(); n_slots], Hist::default()));
                series[k].add(h);
                total.add(h);
            }
            for (code, n) in &s.codes {
                *codes.entry(code).or_default() += n;
            }
        }
        // The newest slot is still filling: its rate is over the seconds
        // it has run.
        let running = now.saturating_duration_since(self.started).as_secs_f64()
            - (last * SLOT_SECONDS) as f64;
        let span = |k: usize| {
            if k + 1 == n_slots {
                running.clamp(1.0, SLOT_SECONDS as f64)
            } else {
                SLOT_SECONDS as f64
            }
        };
        let endpoints = routes
            .into_iter()
            .map(|(route, (series, total))| EndpointSeries {
                route: route.to_owned(),
                requests: total.count,
                errors: total.errors,
                p50_ms: total.quantile(0.5),
                p99_ms: total.quantile(0.99),
                rps: series.iter().enumerate().map(|(k, h)| h.count as f64 / span(k)).collect(),
                p50_series_ms: series.iter().map(|h| h.quantile(0.5)).collect(),
                p99_series_ms: series.iter().map(|h| h.quantile(0.99)).collect(),
            })
            .collect();
        Window {
            slot_seconds: SLOT_SECONDS,
            slot_starts: (first..=last).map(|n| self.started_unix + n * SLOT_SECONDS).collect(),
            endpoints,
            errors_by_code: codes.into_iter().map(|(k, v)| (k.to_owned(), v)).collect(),
            last_errors: inner.last_errors.iter().rev().cloned().collect(),
        }
    }

    /// Seconds since the board (the server) started.
    pub fn uptime(&self, now: Instant) -> u64 {
        now.saturating_duration_since(self.started).as_secs()
    }
}

/// One error answer.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct ErrorEntry {
    /// Unix seconds.
    pub at: u64,
    /// Route template.
    pub route: String,
    /// HTTP status.
    pub status: u16,
    /// The error body's `code`.
    pub code: &'static str,
}

/// One route's requests over the window.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct EndpointSeries {
    /// Route template.
    pub route: String,
    /// Requests in the window.
    pub requests: u64,
    /// Of which answered 4xx or 5xx.
    pub errors: u64,
    /// Median latency over the window, in ms.
    pub p50_ms: Option<f64>,
    /// 99th percentile over the window, in ms.
    pub p99_ms: Option<f64>,
    /// Requests per second, per slot.
    pub rps: Vec<f64>,
    /// Median latency per slot, in ms (null: no request).
    pub p50_series_ms: Vec<Option<f64>>,
    /// 99th percentile per slot, in ms (null: no request).
    pub p99_series_ms: Vec<Option<f64>>,
}

/// The recent window.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Window {
    /// Seconds per slot.
    pub slot_seconds: u64,
    /// Each slot's start, unix seconds, oldest first.
    pub slot_starts: Vec<u64>,
    /// Per route template, busiest first by name.
    pub endpoints: Vec<EndpointSeries>,
    /// Error answers in the window, by code.
    pub errors_by_code: BTreeMap<String, u64>,
    /// The last errors, newest first.
    pub last_errors: Vec<ErrorEntry>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_come_from_the_right_buckets() {
        let board = StatusBoard::default();
        let t = board.started;
        for k in 0..99 {
            board.record("/q", 200, None, Duration::from_micros(500 + k), t);
        }
        board.record("/q", 500, Some("INTERNAL"), Duration::from_millis(40), t);
        let w = board.window(t);
        let e = &w.endpoints[0];
        assert_eq!((e.requests, e.errors), (100, 1));
        let p50 = e.p50_ms.unwrap_or_default();
        assert!((0.42..0.7).contains(&p50), "{p50}");
        let p99 = e.p99_ms.unwrap_or_default();
        assert!((0.42..0.7).contains(&p99), "the 99th of 100 is still fast: {p99}");
        assert_eq!(w.errors_by_code.get("INTERNAL"), Some(&1));
        assert_eq!(w.last_errors[0].code, "INTERNAL");
    }

    #[test]
    fn old_slots_leave_the_window_and_empty_slots_stay_in_it() {
        let board = StatusBoard::default();
        let t0 = board.started;
        board.record("/q", 200, None, Duration::from_millis(1), t0);
        let later = t0 + Duration::from_secs(SLOT_SECONDS * 3);
        board.record("/q", 200, None, Duration::from_millis(1), later);
        let w = board.window(later);
        assert_eq!(w.slot_starts.len(), 4);
        assert_eq!(w.endpoints[0].rps.iter().filter(|r| **r > 0.0).count(), 2);
        assert_eq!(w.endpoints[0].p50_series_ms[1], None);
        let much_later = t0 + Duration::from_secs(SLOT_SECONDS * (SLOTS as u64 + 2));
        let w = board.window(much_later);
        assert_eq!(w.slot_starts.len(), SLOTS);
        assert_eq!(w.endpoints.len(), 1);
        assert_eq!(w.endpoints[0].requests, 1, "the first slot has left the window");
    }

    #[test]
    fn the_operators_polling_is_not_counted() {
        let board = StatusBoard::default();
        let t = board.started;
        board.record("/status.json", 200, None, Duration::from_millis(1), t);
        board.record("/metrics", 200, None, Duration::from_millis(1), t);
        assert!(board.window(t).endpoints.is_empty());
    }
}
