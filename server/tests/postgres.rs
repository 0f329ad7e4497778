//! Keys and routed volume in PostgreSQL (issue 16, item 2): a real
//! PostgreSQL (Debian's `postgresql`, installed by `scripts/setup.sh
//! --tests`) started on a free port in a temporary directory, and two
//! replicas with separate data directories on it.
//!
//! - a key created through one replica's CLI works on the other within 1 s;
//! - a revocation through the other's CLI reaches the first within 1 s;
//! - routed volume adds up across both;
//! - a PostgreSQL restart is survived: while it is down, what needs the
//!   database answers a clear 503 and keys keep authenticating from the
//!   cache; once it is back, volume and key changes flow again.

mod common;

use std::{
    path::{Path, PathBuf},
    process::{Command, Stdio},
    time::{Duration, Instant},
};

use common::{BIN, Proc, free_port, request, temp_dir, wait_for};

const ROUTE: &str = "/api/v1/shortcuts/route?chainId=1&fromAddress=0xd8da6bf26964af9d7eed9e03e53415d37aa96045&tokenIn=0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48&amountIn=5000000000&tokenOut=0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2";

/// Debian's PostgreSQL server programs (the newest installed version).
fn pg_bin() -> PathBuf {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir("/usr/lib/postgresql")
        .map(|d| d.filter_map(|e| e.ok()).map(|e| e.path().join("bin")).collect())
        .unwrap_or_default();
    dirs.retain(|d| d.join("initdb").is_file());
    dirs.sort();
    dirs.pop().unwrap_or_else(|| {
        panic!("PostgreSQL is not installed: scripts/setup.sh --tests installs Debian's postgresql")
    })
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
}

/// A PostgreSQL cluster in a temporary directory, stopped when dropped.
struct Postgres {
    bin: PathBuf,
    dir: PathBuf,
    port: u16,
    root: bool,
}

impl Postgres {
    /// Runs a server program (as the `postgres` user when this is root:
    /// PostgreSQL refuses to run as root).
    fn run(&self, program: &str, args: &[&str]) -> std::process::Output {
        let exe = self.bin.join(program);
        let mut cmd = if self.root {
            let mut c = Command::new("runuser");
            c.args(["-u", "postgres", "--"]).arg(exe);
            c
        } else {
            Command::new(exe)
        };
        cmd.args(args).stdin(Stdio::null()).output().expect("a PostgreSQL program runs")
    }

    fn start_new(dir: &Path) -> Self {
        std::fs::create_dir_all(dir).expect("cluster dir");
        let root = is_root();
        if root {
            let ok = Command::new("chown").args(["-R", "postgres:postgres"]).arg(dir).status();
            assert!(ok.is_ok_and(|s| s.success()), "chown to the postgres user");
        }
        let pg = Self { bin: pg_bin(), dir: dir.to_owned(), port: free_port(), root };
        let data = pg.data();
        let out = pg.run("initdb", &["-D", &data, "-A", "trust", "-U", "postgres", "--no-sync"]);
        assert!(out.status.success(), "initdb: {}", String::from_utf8_lossy(&out.stderr));
        pg.start();
        pg
    }

    fn data(&self) -> String {
        self.dir.join("data").display().to_string()
    }

    fn start(&self) {
        let opts = format!(
            "-p {} -k {} -c listen_addresses=127.0.0.1 -c fsync=off",
            self.port,
            self.dir.display()
        );
        let log = self.dir.join("postgres.log").display().to_string();
        let out = self.run("pg_ctl", &["-D", &self.data(), "-l", &log, "-o", &opts, "-w", "start"]);
        assert!(
            out.status.success(),
            "pg_ctl start: {}{}",
            String::from_utf8_lossy(&out.stdout),
            std::fs::read_to_string(&log).unwrap_or_default()
        );
    }

    fn stop(&self) {
        let out = self.run("pg_ctl", &["-D", &self.data(), "-m", "fast", "-w", "stop"]);
        assert!(out.status.success(), "pg_ctl stop: {}", String::from_utf8_lossy(&out.stderr));
    }

    fn url(&self) -> String {
        format!("postgres://postgres@127.0.0.1:{}/postgres", self.port)
    }
}

impl Drop for Postgres {
    fn drop(&mut self) {
        let _ = self.run("pg_ctl", &["-D", &self.data(), "-m", "immediate", "-w", "stop"]);
    }
}

/// One replica: its own data directory and config, the shared database.
struct Replica {
    addr: String,
    config: PathBuf,
    _proc: Proc,
}

impl Replica {
    fn start(root: &Path, name: &str, database_url: &str) -> Self {
        let data = root.join(name);
        std::fs::create_dir_all(&data).expect("data dir");
        let addr = format!("127.0.0.1:{}", free_port());
        let config = data.join("config.toml");
        std::fs::write(
            &config,
            format!(
                "bind = \"{addr}\"\ndata_dir = \"{}\"\ndatabase_url = \"{database_url}\"\n",
                data.display()
            ),
        )
        .expect("config");
        let proc = Proc(
            Command::new(BIN)
                .args(["serve", "--config"])
                .arg(&config)
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .expect("serve starts"),
        );
        wait_for(name, 60, || {
            request(&addr, "GET", "/health", "", "").is_some_and(|a| a.status == 200)
        });
        Self { addr, config, _proc: proc }
    }

    /// `switchyard keys …` with this replica's config.
    fn keys(&self, args: &[&str]) -> String {
        let out = Command::new(BIN)
            .arg("keys")
            .args(args)
            .arg("--config")
            .arg(&self.config)
            .output()
            .expect("keys runs");
        assert!(out.status.success(), "keys {args:?}: {}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    fn status(&self, path: &str, key: &str) -> u16 {
        request(&self.addr, "GET", path, key, "").map_or(0, |a| a.status)
    }

    /// Transactions routed on chain 1, as `/volume/1` reports them.
    fn transactions(&self, key: &str) -> Option<u64> {
        let a = request(&self.addr, "GET", "/api/v1/volume/1", key, "")?;
        let v: serde_json::Value = serde_json::from_str(&a.body).ok()?;
        (a.status == 200).then(|| v["transactionCount"].as_u64()).flatten()
    }
}

/// Polls until `ok`, and returns how long it took; fails after 10 s.
fn time_until(what: &str, mut ok: impl FnMut() -> bool) -> Duration {
    let t = Instant::now();
    wait_for(what, 10, &mut ok);
    t.elapsed()
}

#[test]
fn two_replicas_share_keys_and_volume_through_postgres_and_survive_its_restart() {
    let root = temp_dir("postgres");
    let pg = Postgres::start_new(&root.join("pg"));
    let a = Replica::start(&root, "a", &pg.url());
    let b = Replica::start(&root, "b", &pg.url());

    // A key made through A's CLI works on B within 1 s.
    let key = a.keys(&["create", "--rate", "1000"]).lines().last().unwrap_or_default().to_owned();
    assert!(key.starts_with("sy_"), "{key}");
    let took = time_until("the new key on both", || {
        b.status("/api/v1/networks", &key) == 200 && a.status("/api/v1/networks", &key) == 200
    });
    eprintln!("a new key reached both replicas in {took:?}");
    // The store finds it by its hash (as tools do), and nothing else.
    let store =
        switchyard_engine::KeyStore::connect(&switchyard_engine::Database::Postgres(pg.url()))
            .expect("the store connects");
    let found = store.find(&key).expect("find").expect("the new key");
    assert!(key.starts_with(&found.prefix) && !found.revoked, "{found:?}");
    assert!(store.find("sy_not_a_key").expect("find").is_none());
    assert!(took <= Duration::from_secs(1), "the key reached both replicas after {took:?}");

    // Volume adds up across both replicas.
    for r in [&a, &b, &b] {
        assert_eq!(r.status(ROUTE, &key), 200);
    }
    wait_for("3 routed transactions on A", 10, || a.transactions(&key) == Some(3));
    assert_eq!(b.transactions(&key), Some(3));

    // A revocation through B's CLI reaches A within 1 s.
    let other = b.keys(&["create", "--rate", "1000"]).lines().last().unwrap_or_default().to_owned();
    wait_for("the second key on A", 10, || a.status("/api/v1/networks", &other) == 200);
    let listed = a.keys(&["list"]);
    let prefix = &other[..10];
    assert!(listed.contains(prefix), "{listed}");
    assert!(b.keys(&["revoke", prefix]).contains("revoked"));
    let took = time_until("the revocation on A", || a.status("/api/v1/networks", &other) == 401);
    eprintln!("a revocation reached the other replica in {took:?}");
    assert!(took <= Duration::from_secs(1), "the revocation reached A after {took:?}");

    // PostgreSQL restarts. While it is down, volume answers a clear 503 and
    // keys keep authenticating from each replica's cache.
    pg.stop();
    let down = request(&a.addr, "GET", "/api/v1/volume/1", &key, "").expect("an answer");
    assert_eq!(down.status, 503, "{}", down.body);
    assert!(down.body.contains("database is unreachable"), "{}", down.body);
    assert!(down.head.to_ascii_lowercase().contains("retry-after"), "{}", down.head);
    assert_eq!(b.status("/api/v1/networks", &key), 200);
    assert_eq!(a.status(ROUTE, &key), 200, "routes are built while the database is down");
    pg.start();
    // Recovery: the volume routed during the outage is written, and key
    // changes flow again.
    wait_for("volume after the restart", 15, || a.transactions(&key) == Some(4));
    let third = a.keys(&["create", "--rate", "1000"]).lines().last().unwrap_or_default().to_owned();
    let took = time_until("a key made after the restart on B", || {
        b.status("/api/v1/networks", &third) == 200
    });
    eprintln!("after the restart, a new key reached the other replica in {took:?}");
    assert!(took <= Duration::from_secs(1), "after the restart the key reached B in {took:?}");
    assert_eq!(b.transactions(&key), Some(4));
}
