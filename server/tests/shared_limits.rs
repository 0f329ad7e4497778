//! Two replicas behind one Redis enforce one rate limit per key, and each
//! follows its policy when Redis goes away (closed: 503; open: its own
//! limit) and recovers when it comes back.
//!
//! Needs `redis-server` (Debian's package), which `scripts/setup.sh`
//! installs; the test starts its own on a free loopback port.
#![cfg(unix)]
// Blocking test code driving child processes; no async runtime here.
#![allow(clippy::disallowed_methods)]

use std::{
    io::{Read, Write},
    net::TcpStream,
    path::{Path, PathBuf},
    process::{Child, Command, Stdio},
    time::{Duration, Instant},
};

const BIN: &str = env!("CARGO_BIN_EXE_switchyard");

/// Kills its process when dropped, so a failing assertion leaves nothing
/// running.
struct Proc(Child);

impl Drop for Proc {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .expect("free port")
        .local_addr()
        .expect("addr")
        .port()
}

fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("switchyard-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("temp dir");
    d
}

/// The status of `GET path` with `key`, or `None` when nothing answers.
fn status(addr: &str, path: &str, key: &str) -> Option<(u16, String)> {
    let mut s = TcpStream::connect(addr).ok()?;
    s.set_read_timeout(Some(Duration::from_secs(5))).ok()?;
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: {addr}\r\nAuthorization: Bearer {key}\r\nConnection: close\r\n\r\n"
    )
    .ok()?;
    let mut buf = String::new();
    s.read_to_string(&mut buf).ok()?;
    let code = buf.get(9..12)?.parse().ok()?;
    Some((code, buf))
}

fn wait_for(what: &str, mut ready: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while !ready() {
        assert!(Instant::now() < deadline, "{what} did not come up in 30 s");
        std::thread::sleep(Duration::from_millis(50));
    }
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
    let out = Command::new(BIN)
        .args(["keys", "create", "--rate", "2", "--data-dir"])
        .arg(dir.join("data"))
        .output()
        .expect("keys create runs");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let key = String::from_utf8_lossy(&out.stdout).lines().last().unwrap_or_default().to_owned();

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
