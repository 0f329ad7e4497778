//! Rate limits shared by replicas: the GCRA state of every key lives in
//! Redis, and one Lua script per request reads the server clock, checks and
//! moves the key's theoretical arrival time atomically. Two or more
//! replicas behind a load balancer then enforce one limit per key.
//!
//! The arithmetic is [`crate::rate_limit`]'s, in whole microseconds of
//! Redis's own clock (`TIME`), so replicas whose clocks disagree still
//! agree on every key.
//!
//! When Redis cannot be reached within [`STORE_TIMEOUT`], the configured
//! [`OnStoreError`] decides: refuse (`closed`, the default: a 503 the
//! caller can retry) or fall back to this replica's own limiter (`open`).
//! For [`STORE_RETRY`] after a failure, checks apply the policy without
//! waiting on Redis; then one tries again, so the limiter recovers by
//! itself.

use std::{
    sync::atomic::{AtomicU64, Ordering},
    time::{Duration, SystemTime, UNIX_EPOCH},
};

use redis::{Script, aio::ConnectionManager};
use tokio::sync::OnceCell;

use crate::rate_limit::{RateDecision, RateLimiter, gcra_params};

/// How long one check may wait for Redis (connecting included).
pub const STORE_TIMEOUT: Duration = Duration::from_millis(250);

/// After a failed check, how long checks skip Redis and apply the policy
/// at once (so an outage costs each request nothing, not a timeout), before
/// one tries again.
pub const STORE_RETRY: Duration = Duration::from_secs(1);

/// What to do when the shared store cannot be reached.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum OnStoreError {
    /// Refuse the request (503, retry later): no key can exceed its limit,
    /// whatever the replicas.
    #[default]
    Closed,
    /// Admit under this replica's own limiter: each replica then enforces
    /// the key's limit on its own (up to N times the rate with N replicas).
    Open,
}

/// The store could not be reached and the policy is `closed`.
#[derive(Debug, thiserror::Error)]
#[error("the rate-limit store is unreachable: {0}")]
pub struct StoreUnavailable(pub String);

/// GCRA over Redis: `KEYS[1]` the key's TAT, `ARGV[1]` the emission
/// interval and `ARGV[2]` the burst tolerance, both in microseconds;
/// `ARGV[3]` the requests this check counts (a batch's size).
/// Returns `{admitted, reset_us, retry_us}`.
const GCRA_LUA: &str = r"
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local interval = tonumber(ARGV[1])
local tau = tonumber(ARGV[2])
local cost = tonumber(ARGV[3] or '1')
local tat = tonumber(redis.call('GET', KEYS[1]) or now)
if tat < now then tat = now end
local new_tat = tat + interval * cost
if new_tat - now > tau then
  return {0, tat - now, new_tat - now - tau}
end
redis.call('SET', KEYS[1], new_tat, 'PX', math.floor((new_tat - now) / 1000) + 1)
return {1, new_tat - now, 0}
";

/// A limiter whose counters live in Redis.
#[derive(Debug)]
pub struct SharedLimiter {
    client: redis::Client,
    conn: OnceCell<ConnectionManager>,
    script: Script,
    on_error: OnStoreError,
    /// Per-replica limits for `open`.
    fallback: RateLimiter,
    /// Unix seconds of the last "store unreachable" warning (one per 10 s).
    last_warned: AtomicU64,
    /// Unix milliseconds until which Redis is presumed down.
    down_until: AtomicU64,
}

impl SharedLimiter {
    /// A limiter over the Redis at `url` (`redis://host:port/db`). Nothing
    /// is connected until the first check.
    pub fn new(url: &str, on_error: OnStoreError) -> Result<Self, redis::RedisError> {
        Ok(Self {
            client: redis::Client::open(url)?,
            conn: OnceCell::new(),
            script: Script::new(GCRA_LUA),
            on_error,
            fallback: RateLimiter::new(),
            last_warned: AtomicU64::new(0),
            down_until: AtomicU64::new(0),
        })
    }

    /// Checks and, if admitted, records one request of key `id` at `rate`
    /// requests per second, for every replica sharing the store.
    pub async fn check(&self, id: i64, rate: f64) -> Result<RateDecision, StoreUnavailable> {
        self.check_n(id, rate, 1).await
    }

    /// Checks and, if admitted, records `cost` requests at once (a batch),
    /// for every replica sharing the store.
    pub async fn check_n(
        &self,
        id: i64,
        rate: f64,
        cost: u32,
    ) -> Result<RateDecision, StoreUnavailable> {
        if unix_ms() < self.down_until.load(Ordering::Relaxed) {
            return self.unavailable(id, rate, cost, "down at the last check".to_owned());
        }
        let why = match tokio::time::timeout(STORE_TIMEOUT, self.check_shared(id, rate, cost)).await
        {
            Ok(Ok(d)) => return Ok(d),
            Ok(Err(e)) => e.to_string(),
            Err(_) => format!("no answer in {STORE_TIMEOUT:?}"),
        };
        let retry_ms = u64::try_from(STORE_RETRY.as_millis()).unwrap_or(u64::MAX);
        self.down_until.store(unix_ms().saturating_add(retry_ms), Ordering::Relaxed);
        self.unavailable(id, rate, cost, why)
    }

    async fn check_shared(
        &self,
        id: i64,
        rate: f64,
        cost: u32,
    ) -> Result<RateDecision, redis::RedisError> {
        let conn =
            self.conn.get_or_try_init(|| ConnectionManager::new(self.client.clone())).await?;
        let (interval, burst) = gcra_params(rate);
        let interval_us = (interval.as_micros()).max(1);
        let tau_us = interval_us * u128::from(burst);
        let (admitted, reset_us, retry_us): (i64, i64, i64) = self
            .script
            .key(format!("switchyard:rate:{id}"))
            .arg(interval_us.to_string())
            .arg(tau_us.to_string())
            .arg(cost.max(1).to_string())
            .invoke_async(&mut conn.clone())
            .await?;
        let us = |v: i64| Duration::from_micros(v.max(0).unsigned_abs());
        Ok(if admitted == 1 {
            let left = tau_us.saturating_sub(u128::from(reset_us.max(0).unsigned_abs()));
            RateDecision {
                limit: burst,
                remaining: u32::try_from(left / interval_us).unwrap_or(u32::MAX),
                reset: us(reset_us),
                retry_after: None,
            }
        } else {
            RateDecision {
                limit: burst,
                remaining: 0,
                reset: us(reset_us),
                retry_after: Some(us(retry_us).max(Duration::from_millis(1))),
            }
        })
    }

    fn unavailable(
        &self,
        id: i64,
        rate: f64,
        cost: u32,
        why: String,
    ) -> Result<RateDecision, StoreUnavailable> {
        let now = unix_ms() / 1000;
        let last = self.last_warned.load(Ordering::Relaxed);
        if now >= last + 10
            && self
                .last_warned
                .compare_exchange(last, now, Ordering::Relaxed, Ordering::Relaxed)
                .is_ok()
        {
            tracing::warn!(reason = %why, policy = ?self.on_error, "rate-limit store unreachable");
        }
        match self.on_error {
            OnStoreError::Closed => Err(StoreUnavailable(why)),
            OnStoreError::Open => Ok(self.fallback.check_n(id, rate, cost)),
        }
    }
}

fn unix_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}
