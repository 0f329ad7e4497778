//! Per-key rate limiting with GCRA (the generic cell rate algorithm).
//!
//! Each key has an emission interval `T = 1 / rate` and a burst of
//! `max(1, ceil(rate))` requests. The state per key is one number, the
//! theoretical arrival time (TAT). A request at time `now` is admitted when
//! `TAT - burst*T <= now - T`, i.e. when `max(TAT, now) + T - now <= burst*T`;
//! admitting it moves TAT to `max(TAT, now) + T`.

use std::{
    collections::HashMap,
    sync::Mutex,
    time::{Duration, Instant},
};

/// The outcome of one admission check, enough for `RateLimit-*` headers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RateDecision {
    /// Requests allowed per window (the burst).
    pub limit: u32,
    /// Requests left right now.
    pub remaining: u32,
    /// Time until the bucket is full again.
    pub reset: Duration,
    /// `Some` when the request was refused: when to retry.
    pub retry_after: Option<Duration>,
}

const SHARDS: usize = 16;

/// The emission interval `T` and the burst of a key at `rate` requests per
/// second (a rate that is not a positive number admits nearly nothing).
pub(crate) fn gcra_params(rate: f64) -> (Duration, u32) {
    let rate = if rate.is_finite() && rate > 0.0 { rate } else { f64::MIN_POSITIVE };
    let t_ns = (1e9 / rate).min(1e18) as u64;
    let burst = rate.ceil().clamp(1.0, 1e6) as u32;
    (Duration::from_nanos(t_ns), burst)
}

/// The burst of a key at `rate` requests per second: the most requests it
/// may send at once (a batch larger than this is never admitted).
pub fn burst(rate: f64) -> u32 {
    gcra_params(rate).1
}

/// GCRA state for many keys, sharded to keep lock hold times tiny.
#[derive(Debug)]
pub struct RateLimiter {
    epoch: Instant,
    shards: Vec<Mutex<HashMap<i64, u128>>>,
}

impl Default for RateLimiter {
    fn default() -> Self {
        Self::new()
    }
}

impl RateLimiter {
    /// An empty limiter.
    pub fn new() -> Self {
        Self {
            epoch: Instant::now(),
            shards: (0..SHARDS).map(|_| Mutex::new(HashMap::new())).collect(),
        }
    }

    /// Checks and, if admitted, records one request of key `id` at `rate`
    /// requests per second.
    pub fn check(&self, id: i64, rate: f64) -> RateDecision {
        self.check_at(id, rate, Instant::now())
    }

    /// Checks and, if admitted, records `cost` requests at once (a batch
    /// of `cost` quotes): admitted only when all of them fit.
    pub fn check_n(&self, id: i64, rate: f64, cost: u32) -> RateDecision {
        self.check_at_n(id, rate, cost, Instant::now())
    }

    /// [`Self::check`] at a given instant (tests drive time explicitly).
    pub fn check_at(&self, id: i64, rate: f64, now: Instant) -> RateDecision {
        self.check_at_n(id, rate, 1, now)
    }

    /// [`Self::check_n`] at a given instant.
    pub fn check_at_n(&self, id: i64, rate: f64, cost: u32, now: Instant) -> RateDecision {
        let (interval, burst) = gcra_params(rate);
        let t_ns = interval.as_nanos();
        let cost_ns = t_ns * u128::from(cost.max(1));
        let tau = t_ns * u128::from(burst);
        let now_ns = now.saturating_duration_since(self.epoch).as_nanos();
        let shard = &self.shards[(id.unsigned_abs() as usize) % SHARDS];
        // A poisoned shard only means another thread panicked mid-update of
        // a plain integer; the map is still usable.
        let mut map = shard.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let tat = map.get(&id).copied().unwrap_or(now_ns).max(now_ns);
        let new_tat = tat + cost_ns;
        if new_tat - now_ns > tau {
            let retry_ns = new_tat - now_ns - tau;
            return RateDecision {
                limit: burst,
                remaining: 0,
                reset: Duration::from_nanos((tat - now_ns) as u64),
                retry_after: Some(Duration::from_nanos(retry_ns as u64)),
            };
        }
        map.insert(id, new_tat);
        let used = (new_tat - now_ns).div_ceil(t_ns.max(1));
        RateDecision {
            limit: burst,
            remaining: burst.saturating_sub(used as u32),
            reset: Duration::from_nanos((new_tat - now_ns) as u64),
            retry_after: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_per_second_admits_one_then_refuses_until_a_second_passes() {
        let rl = RateLimiter::new();
        let t0 = rl.epoch + Duration::from_secs(10);
        let d = rl.check_at(1, 1.0, t0);
        assert!(d.retry_after.is_none());
        assert_eq!((d.limit, d.remaining), (1, 0));
        let d = rl.check_at(1, 1.0, t0 + Duration::from_millis(500));
        assert_eq!(d.retry_after, Some(Duration::from_millis(500)));
        let d = rl.check_at(1, 1.0, t0 + Duration::from_millis(1000));
        assert!(d.retry_after.is_none());
    }

    #[test]
    fn burst_equals_rate_and_keys_are_independent() {
        let rl = RateLimiter::new();
        let t0 = rl.epoch + Duration::from_secs(10);
        for i in 0..5 {
            let d = rl.check_at(7, 5.0, t0);
            assert!(d.retry_after.is_none(), "request {i}");
            assert_eq!(d.remaining, 4 - i);
        }
        assert!(rl.check_at(7, 5.0, t0).retry_after.is_some());
        assert!(rl.check_at(8, 5.0, t0).retry_after.is_none());
        // 200 ms later exactly one more is admitted.
        assert!(rl.check_at(7, 5.0, t0 + Duration::from_millis(200)).retry_after.is_none());
        assert!(rl.check_at(7, 5.0, t0 + Duration::from_millis(200)).retry_after.is_some());
    }

    #[test]
    fn a_batch_costs_its_size_and_is_admitted_only_whole() {
        let rl = RateLimiter::new();
        let t0 = rl.epoch + Duration::from_secs(10);
        let d = rl.check_at_n(3, 10.0, 7, t0);
        assert_eq!((d.retry_after, d.remaining), (None, 3));
        // Four more do not fit in the three left: refused, nothing taken.
        let d = rl.check_at_n(3, 10.0, 4, t0);
        assert_eq!(d.retry_after, Some(Duration::from_millis(100)));
        assert!(rl.check_at_n(3, 10.0, 3, t0).retry_after.is_none());
        // More than the burst never fits.
        assert!(rl.check_at_n(4, 10.0, 11, t0 + Duration::from_secs(5)).retry_after.is_some());
    }
}
