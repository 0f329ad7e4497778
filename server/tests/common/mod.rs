//! What the tests that run the `switchyard` binary (and other processes)
//! share: child processes killed on drop, free loopback ports, waiting, a
//! blocking HTTP/1.1 client, and keys made with the binary's CLI.

#![allow(dead_code, unreachable_pub, clippy::disallowed_methods)]

pub mod node;

use std::{
    io::{Read, Write},
    net::TcpStream,
    path::{Path, PathBuf},
    process::{Child, Command},
    time::{Duration, Instant},
};

/// The binary under test.
pub const BIN: &str = env!("CARGO_BIN_EXE_switchyard");

/// Kills its process when dropped, so a failing assertion leaves nothing
/// running.
pub struct Proc(pub Child);

impl Drop for Proc {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// A loopback port nothing listens on (at the time of asking).
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .expect("free port")
        .local_addr()
        .expect("addr")
        .port()
}

/// A fresh, empty directory under the system temp dir.
pub fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("switchyard-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("temp dir");
    d
}

/// Polls `ready` every 50 ms; fails the test after `secs`.
pub fn wait_for(what: &str, secs: u64, mut ready: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(secs);
    while !ready() {
        assert!(Instant::now() < deadline, "{what}: not within {secs} s");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// An HTTP answer.
pub struct Answer {
    /// Status code.
    pub status: u16,
    /// Status line and headers, as sent.
    pub head: String,
    /// Body (de-chunked).
    pub body: String,
}

/// One HTTP/1.1 exchange on a new connection (`key` as a bearer token when
/// not empty); `None` when nothing answers.
pub fn request(addr: &str, method: &str, path: &str, key: &str, body: &str) -> Option<Answer> {
    let mut s = TcpStream::connect(addr).ok()?;
    s.set_read_timeout(Some(Duration::from_secs(10))).ok()?;
    let auth =
        if key.is_empty() { String::new() } else { format!("Authorization: Bearer {key}\r\n") };
    write!(
        s,
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\n{auth}Content-Type: application/json\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .ok()?;
    let mut buf = Vec::new();
    s.read_to_end(&mut buf).ok()?;
    let text = String::from_utf8_lossy(&buf).into_owned();
    let status = text.get(9..12)?.parse().ok()?;
    let (head, rest) = text.split_once("\r\n\r\n")?;
    let body = if head.to_ascii_lowercase().contains("transfer-encoding: chunked") {
        dechunk(rest)
    } else {
        rest.to_owned()
    };
    Some(Answer { status, head: head.to_owned(), body })
}

fn dechunk(mut s: &str) -> String {
    let mut out = String::new();
    while let Some((len, rest)) = s.split_once("\r\n") {
        let Ok(n) = usize::from_str_radix(len.trim(), 16) else { break };
        if n == 0 || rest.len() < n {
            break;
        }
        out.push_str(&rest[..n]);
        s = rest[n..].trim_start_matches("\r\n");
    }
    out
}

/// A key of `rate` requests per second in the database under `data_dir`,
/// made with `switchyard keys create`.
pub fn create_key(data_dir: &Path, rate: &str) -> String {
    let out = Command::new(BIN)
        .args(["keys", "create", "--rate", rate, "--data-dir"])
        .arg(data_dir)
        .output()
        .expect("keys create runs");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).lines().last().unwrap_or_default().to_owned()
}

/// The binary serving on `addr` from `data_dir` with the `SWITCHYARD_*`
/// variables `env`, its output discarded, once `/ready` answers 200.
pub fn serve_ready(addr: &str, data_dir: &Path, env: &[(&str, &str)]) -> Proc {
    let mut cmd = Command::new(BIN);
    cmd.args(["serve", "--bind", addr, "--data-dir", data_dir.to_str().expect("utf-8")])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    for (k, v) in env {
        cmd.env(k, v);
    }
    let proc = Proc(cmd.spawn().expect("serve starts"));
    wait_for("the server", 60, || {
        request(addr, "GET", "/ready", "", "").is_some_and(|a| a.status == 200)
    });
    proc
}
