//! The `switchyard` binary as operators and scripts use it.

use std::{
    io::{Read, Write},
    net::TcpStream,
    path::PathBuf,
    process::{Command, Stdio},
    time::{Duration, Instant},
};

const BIN: &str = env!("CARGO_BIN_EXE_switchyard");

fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("switchyard-cli-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

fn run(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(BIN)
        .args(args)
        .env_remove("SWITCHYARD_DATA_DIR")
        .output()
        .expect("binary runs");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn keys_create_list_revoke() {
    let dir = temp_dir("keys");
    let d = dir.to_str().expect("utf-8 path");
    let (ok, out, err) =
        run(&["keys", "create", "--rate", "25", "--label", "bot", "--data-dir", d]);
    assert!(ok, "{err}");
    let key = out.lines().last().expect("a last line").to_owned();
    assert!(key.starts_with("sy_") && key.len() == 51, "the key alone on the last line: {out}");
    let (ok, out, _) = run(&["keys", "list", "--data-dir", d]);
    assert!(
        ok && out.contains("active") && out.contains("bot") && out.contains(&key[..10]),
        "{out}"
    );
    assert!(!out.contains(&key), "list must never print secrets");
    let (ok, _, _) = run(&["keys", "revoke", &key[..10], "--data-dir", d]);
    assert!(ok);
    let (_, out, _) = run(&["keys", "list", "--data-dir", d]);
    assert!(out.contains("revoked"), "{out}");
    let (ok, _, err) = run(&["keys", "revoke", "sy_nope", "--data-dir", d]);
    assert!(!ok && err.contains("no key matches"), "{err}");
    let (ok, _, _) = run(&["keys", "create", "--rate", "-1", "--data-dir", d]);
    assert!(!ok, "a negative rate is refused");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn catalog_check_reports_problems_and_exit_codes() {
    let data = concat!(env!("CARGO_MANIFEST_DIR"), "/../catalog/data/");
    let (ok, out, _) = run(&["catalog", "check", &format!("{data}market.json")]);
    assert!(ok && out.contains("ok (Market)"), "{out}");
    let (ok, out, _) = run(&[
        "catalog",
        "check",
        &format!("{data}tokens.json"),
        &format!("{data}networks.json"),
        &format!("{data}protocols.json"),
    ]);
    assert!(ok, "tokens with their networks and protocols check out: {out}");
    // A file with one token the embedded catalog lacks extends it; one that
    // overrides an embedded token replaces it; a token listed twice in one
    // file is still a problem.
    let dir = temp_dir("extend");
    std::fs::create_dir_all(&dir).expect("dir");
    let uni = r#"{"chainId":1,"address":"0x1f9840a85d5af5bf1d1762f925bdaddc4201f984","symbol":"UNI","name":"Uniswap","decimals":18,"type":"base","logosUri":[]}"#;
    let one = dir.join("uni.json");
    std::fs::write(&one, format!(r#"{{"tokens":[{uni}]}}"#)).expect("write");
    let (ok, out, _) = run(&["catalog", "check", one.to_str().expect("utf-8")]);
    assert!(ok && out.contains("ok (Catalog)"), "one token extends the embedded catalog: {out}");
    let twice = dir.join("twice.json");
    std::fs::write(&twice, format!(r#"{{"tokens":[{uni},{uni}]}}"#)).expect("write");
    let (ok, out, _) = run(&["catalog", "check", twice.to_str().expect("utf-8")]);
    assert!(!ok && out.contains("listed twice"), "{out}");
    let _ = std::fs::remove_dir_all(&dir);
    let dir = temp_dir("check");
    std::fs::create_dir_all(&dir).expect("dir");
    let bad = dir.join("bad.json");
    std::fs::write(&bad, r#"{"chains":[{"chainId":424242,"blockNumber":1,"timestamp":1,"gasPriceWei":"1"}],"pools":[]}"#).expect("write");
    let (ok, out, _) = run(&["catalog", "check", bad.to_str().expect("utf-8")]);
    assert!(!ok && out.contains("unknown chain 424242") && out.contains("1 problem(s)"), "{out}");
    std::fs::write(&bad, "{ not json").expect("write");
    let (ok, out, _) = run(&["catalog", "check", bad.to_str().expect("utf-8")]);
    assert!(!ok && out.contains("bad.json"), "{out}");
    let _ = std::fs::remove_dir_all(&dir);
}

fn http_get(addr: &str, path: &str) -> Option<String> {
    let mut s = TcpStream::connect(addr).ok()?;
    s.set_read_timeout(Some(Duration::from_secs(5))).ok()?;
    write!(s, "GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n").ok()?;
    let mut buf = String::new();
    s.read_to_string(&mut buf).ok()?;
    Some(buf)
}

#[cfg(unix)]
#[test]
// A plain blocking test polling a child process; no async runtime here.
#[allow(clippy::disallowed_methods)]
fn serve_prints_a_documentation_key_and_stops_gracefully_on_sigterm() {
    let dir = temp_dir("serve");
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .expect("free port")
        .local_addr()
        .expect("addr")
        .port();
    let addr = format!("127.0.0.1:{port}");
    // A market file: nothing moves it, its feed is `ended` from the start.
    let market = concat!(env!("CARGO_MANIFEST_DIR"), "/../catalog/data/market.json");
    let child = Command::new(BIN)
        .args(["serve", "--bind", &addr, "--data-dir", dir.to_str().expect("utf-8")])
        .args(["--market", market])
        .env("SWITCHYARD_LOG_FORMAT", "json")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("serve starts");
    let deadline = Instant::now() + Duration::from_secs(20);
    let health = loop {
        if let Some(r) = http_get(&addr, "/health") {
            break r;
        }
        assert!(Instant::now() < deadline, "server did not come up");
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(
        health.starts_with("HTTP/1.1 200") && health.contains(r#"{"status":"ok"}"#),
        "{health}"
    );
    // Readiness is about serving: a market that ended serves.
    let ready = loop {
        let r = http_get(&addr, "/ready").unwrap_or_default();
        if r.starts_with("HTTP/1.1 200") || Instant::now() > deadline {
            break r;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(
        ready.starts_with("HTTP/1.1 200")
            && ready.contains(r#""status":"ready""#)
            && ready.contains(r#""source":"file","status":"ended""#),
        "{ready}"
    );
    let unauth = http_get(&addr, "/api/v1/networks").expect("answer");
    assert!(unauth.starts_with("HTTP/1.1 401"), "{unauth}");
    let status =
        Command::new("kill").args(["-TERM", &child.id().to_string()]).status().expect("kill runs");
    assert!(status.success());
    let out = child.wait_with_output().expect("exits");
    assert!(out.status.success(), "graceful exit after SIGTERM: {:?}", out.status);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let key = stdout.lines().last().unwrap_or_default();
    assert!(stdout.contains("documentation key") && key.starts_with("sy_"), "{stdout}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.lines().all(|l| l.trim().is_empty() || l.starts_with('{')),
        "logs are json lines: {stderr}"
    );
    assert!(stderr.contains("shutdown signal received"), "{stderr}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The binary's allocator commits arena memory lazily (the idle stream
/// subscriber's resident cost depends on it), and the environment still
/// decides when it says otherwise. mimalloc prints its options by name.
#[cfg(target_os = "linux")]
#[test]
fn allocator_commits_lazily() {
    let option = |env: Option<&str>| {
        let mut cmd = Command::new(BIN);
        cmd.arg("--version").env("MIMALLOC_VERBOSE", "1").env_remove("MIMALLOC_ARENA_EAGER_COMMIT");
        if let Some(v) = env {
            cmd.env("MIMALLOC_ARENA_EAGER_COMMIT", v);
        }
        let out = cmd.output().expect("binary runs");
        assert!(out.status.success());
        let err = String::from_utf8_lossy(&out.stderr).into_owned();
        err.lines()
            .find_map(|l| l.trim().strip_prefix("option 'arena_eager_commit': "))
            .map(|v| v.trim().to_owned())
            .unwrap_or_else(|| panic!("mimalloc names the option: {err}"))
    };
    assert_eq!(option(None), "0");
    assert_eq!(option(Some("1")), "1");
}
