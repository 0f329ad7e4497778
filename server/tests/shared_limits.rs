//! Two replicas behind one Redis enforce one rate limit per key, and each
//! follows its policy when Redis goes away (closed: 503; open: its own
//! limit) and recovers when it comes back.
//!
//! Needs `redis-server` (Debian's package), which `scripts/setup.sh`
//! installs; the test starts its own on a free loopback port.
#![cfg(unix)]
// Blocking test code driving child processes; no async runtime here.
#![allow(clippy::disallowed_methods)]

mod common;

use std::{
    net::TcpStream,
    path::Path,
    process::{Command, Stdio},
    time::{Duration, Instant},
};

use common::{BIN, Proc, free_port, request, temp_dir};

/// The status of `GET path` with `key`, and the whole answer (headers
/// included), or `None` when nothing answers.
fn status(addr: &str, path: &str, key: &str) -> Option<(u16, String)> {
    request(addr, "GET", path, key, "").map(|a| (a.status, format!("{}\r\n\r\n{}", a.head, a.body)))
}

fn wait_for(what: &str, ready: impl FnMut() -> bool) {
    common::wait_for(what, 30, ready);
}

fn redis(port: u16) -> Proc {
    let child = Command::new("redis-server")
        .args(["--bind", "127.0.0.1", "--port", &port.to_string(), "--save", "", "--appendonly", "no"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap_or_else(|e| {
            panic!("redis-server cannot start ({e}): scripts/setup.sh installs it (Debian's redis-server)")
        });
    wait_for("redis-server", || TcpStream::connect(("127.0.0.1", port)).is_ok());
    Proc(child)
}

/// A replica configured the way `deploy/switchyard.toml` shows.
fn replica(dir: &Path, name: &str, redis_port: u16, on_error: &str) -> (Proc, String) {
    let addr = format!("127.0.0.1:{}", free_port());
    let config = dir.join(format!("{name}.toml"));
    std::fs::write(
        &config,
        format!(
            "bind = \"{addr}\"\ndata_dir = \"{}\"\nlog_filter = \"warn\"\n\
             redis_url = \"redis://127.0.0.1:{redis_port}/\"\non_redis_error = \"{on_error}\"\n",
            dir.join("data").display()
        ),
    )
    .expect("config written");
    let child = Command::new(BIN)
        .args(["serve", "--config", config.to_str().expect("utf-8")])
        .env_remove("SWITCHYARD_DATA_DIR")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("serve starts");
    let a = addr.clone();
    wait_for(name, move || status(&a, "/health", "").is_some_and(|(c, _)| c == 200));
    (Proc(child), addr)
}

/// Sends `n` requests alternating between the replicas as fast as they
/// answer; returns how many were admitted and how long it took.
fn burst(addrs: &[&str], key: &str, n: usize) -> (usize, Duration, Vec<u16>) {
    let t0 = Instant::now();
    let codes: Vec<u16> = (0..n)
        .map(|i| status(addrs[i % addrs.len()], "/api/v1/networks", key).map_or(0, |(c, _)| c))
        .collect();
    (codes.iter().filter(|c| **c == 200).count(), t0.elapsed(), codes)
}

#[test]
fn two_replicas_share_one_limit_and_follow_their_policy_without_redis() {
    let dir = temp_dir("shared-limits");
    let redis_port = free_port();
    let mut store = Some(redis(redis_port));
    // 2 requests per second: a burst of 2, then one every 500 ms.
    let key = common::create_key(&dir.join("data"), "2");

    let (_a, closed) = replica(&dir, "closed", redis_port, "closed");
    let (_b, open) = replica(&dir, "open", redis_port, "open");
    let both = [closed.as_str(), open.as_str()];

    // One limit for the key across both replicas, per window, within ±1.
    for window in 0..2 {
        std::thread::sleep(Duration::from_millis(1_100)); // the bucket refills
        let (admitted, took, codes) = burst(&both, &key, 16);
        let expected = 2.0 + took.as_secs_f64() * 2.0;
        assert!(
            (admitted as f64 - expected).abs() <= 1.0,
            "window {window}: {admitted} admitted in {took:?} (expected {expected:.1} ± 1): {codes:?}"
        );
        assert!(codes.iter().all(|c| *c == 200 || *c == 429), "{codes:?}");
        // Either replica refuses once the shared budget is spent.
        assert!(codes.iter().step_by(2).any(|c| *c == 429), "{codes:?}");
        assert!(codes.iter().skip(1).step_by(2).any(|c| *c == 429), "{codes:?}");
    }

    // Redis goes away: `closed` refuses with a 503 at once, `open` limits
    // on its own.
    drop(store.take());
    std::thread::sleep(Duration::from_millis(1_100));
    let t0 = Instant::now();
    let (code, body) = status(&closed, "/api/v1/networks", &key).expect("an answer");
    assert_eq!(code, 503, "{body}");
    assert!(body.contains("RATE_LIMITER_UNAVAILABLE") && body.contains("retry-after: 1"), "{body}");
    assert!(t0.elapsed() < Duration::from_secs(2), "refused within the store timeout");
    let (admitted, took, codes) = burst(&[open.as_str()], &key, 6);
    let expected = 2.0 + took.as_secs_f64() * 2.0;
    assert!(
        (admitted as f64 - expected).abs() <= 1.0,
        "the open replica's own limit: {admitted} in {took:?}: {codes:?}"
    );

    // Redis is back: both recover by themselves.
    store = Some(redis(redis_port));
    std::thread::sleep(Duration::from_millis(1_100));
    wait_for("recovery", || {
        status(&closed, "/api/v1/networks", &key).is_some_and(|(c, _)| c == 200)
    });
    drop(store);
    let _ = std::fs::remove_dir_all(&dir);
}
