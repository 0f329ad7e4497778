//! How long the server takes to index a node-followed chain of many
//! Uniswap V2 pairs, how much memory it then holds, and how long a block of
//! 1,000 `Sync` logs takes to reach readers:
//!
//! ```sh
//! scripts/setup.sh --tests
//! cargo build --release -p switchyard-server
//! cargo run --release -p switchyard-benches --example node_chain -- 100000 2000
//! ```
//!
//! (pairs, then tokens; defaults 100,000 and 2,000). The generator is
//! deterministic: `tokens` ERC-20s (`TestERC20`'s runtime, no catalog lists
//! them) at fixed addresses, and each pair at the real CREATE2 address of
//! the mainnet Uniswap V2 factory, with the published pair runtime and its
//! storage (tokens, reserves, lock) and token balances set directly on a
//! local Hardhat node (`tests/node`). `BenchPairEmitter`, placed at the
//! factory's address, emits the factory's `PairCreated` event for every
//! pair, so the server discovers them exactly as it would on a real chain;
//! then it reads their metadata, probes every token's transfers and loads
//! the reserves.
//!
//! Printed: the time from the server's start to its V2 feed being `ready`
//! with the `/ready` progress on the way, its resident memory then, and the
//! `node_to_readers_us` the feed logs for blocks in which 1,000 pairs `sync`
//! (from the node's logs being in to the proven state stored; quotes see the
//! new snapshot before that).

// A blocking driver of child processes: no async runtime here.
#![allow(clippy::disallowed_methods)]

use std::{
    io::{Read, Write},
    net::TcpStream,
    path::{Path, PathBuf},
    process::{Child, Command, Stdio},
    time::{Duration, Instant},
};

use alloy_primitives::{Address, B256, Bytes, U256, address, keccak256};
use alloy_sol_types::{SolCall, SolValue, sol};
use serde_json::{Value, json};

const V2_FACTORY: Address = address!("5c69bee701ef814a2b6a3edd4b1652cb9cc5aa6f");
/// `keccak256` of the published `UniswapV2Pair` initcode.
const PAIR_INIT_HASH: B256 =
    alloy_primitives::b256!("96e8ac4277198ff8b6f785478aa9a39f403cb768dd02cbee326c3e7da348845f");
/// Slots of `UniswapV2Pair`: token0, token1, reserves, the lock.
const PAIR_SLOTS: [u64; 4] = [6, 7, 8, 12];
/// `TestERC20`'s storage: name, symbol, balanceOf.
const NAME_SLOT: u64 = 0;
const SYMBOL_SLOT: u64 = 1;
const BALANCE_SLOT: u64 = 3;
/// JSON-RPC requests per batch.
const BATCH: usize = 2000;

sol! {
    function emitPairs(address[] token0s, address[] token1s, address[] pairs, uint256 first) external;
    function sync() external;
    struct LensCall { address target; bytes data; }
}

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// One HTTP POST of `body` to `addr`: the response body.
fn post(addr: &str, path: &str, body: &str) -> Result<String, String> {
    let mut s = TcpStream::connect(addr).map_err(|e| e.to_string())?;
    s.set_read_timeout(Some(Duration::from_secs(300))).map_err(|e| e.to_string())?;
    write!(
        s,
        "POST {path} HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .map_err(|e| e.to_string())?;
    let mut buf = Vec::new();
    s.read_to_end(&mut buf).map_err(|e| e.to_string())?;
    let text = String::from_utf8_lossy(&buf).into_owned();
    let (head, rest) = text.split_once("\r\n\r\n").ok_or("no body")?;
    if !head.to_ascii_lowercase().contains("transfer-encoding: chunked") {
        return Ok(rest.to_owned());
    }
    let (mut out, mut s) = (String::new(), rest);
    while let Some((len, tail)) = s.split_once("\r\n") {
        let Ok(n) = usize::from_str_radix(len.trim(), 16) else { break };
        if n == 0 || tail.len() < n {
            break;
        }
        out.push_str(&tail[..n]);
        s = tail[n..].trim_start_matches("\r\n");
    }
    Ok(out)
}

fn get(addr: &str, path: &str) -> Option<Value> {
    let mut s = TcpStream::connect(addr).ok()?;
    s.set_read_timeout(Some(Duration::from_secs(10))).ok()?;
    write!(s, "GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n").ok()?;
    let mut buf = Vec::new();
    s.read_to_end(&mut buf).ok()?;
    let text = String::from_utf8_lossy(&buf).into_owned();
    serde_json::from_str(text.split_once("\r\n\r\n")?.1).ok()
}

struct Node {
    addr: String,
    /// The node this run started (stopped at the end); `None` for one kept
    /// across runs (`NODE_CHAIN_RPC`).
    child: Option<Child>,
}

impl Drop for Node {
    fn drop(&mut self) {
        if let Some(child) = &mut self.child {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

impl Node {
    fn rpc(&self, method: &str, params: Value) -> Result<Value, String> {
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
        let v: Value = serde_json::from_str(&post(&self.addr, "/", &body.to_string())?)
            .map_err(|e| e.to_string())?;
        match v.get("error") {
            Some(e) => Err(format!("{method}: {e}")),
            None => Ok(v["result"].clone()),
        }
    }

    /// Many calls of `method`, in batches.
    fn batch(&self, method: &str, params: &[Value]) -> Result<(), String> {
        for chunk in params.chunks(BATCH) {
            let body: Vec<Value> = chunk
                .iter()
                .enumerate()
                .map(|(i, p)| json!({"jsonrpc": "2.0", "id": i, "method": method, "params": p}))
                .collect();
            let answer = post(&self.addr, "/", &Value::Array(body).to_string())?;
            if answer.contains("\"error\"") {
                return Err(format!("{method}: {}", &answer[..answer.len().min(400)]));
            }
        }
        Ok(())
    }

    fn send(&self, from: Address, to: Option<Address>, data: &[u8]) -> Result<Value, String> {
        let mut tx =
            json!({"from": from, "data": Bytes::copy_from_slice(data), "gas": "0x1c9c380"});
        if let Some(to) = to {
            tx["to"] = json!(to);
        }
        let hash = self.rpc("eth_sendTransaction", json!([tx]))?;
        let receipt = self.rpc("eth_getTransactionReceipt", json!([hash]))?;
        if receipt["status"] != "0x1" {
            return Err(format!("transaction failed: {receipt}"));
        }
        Ok(receipt)
    }

    /// Deploys `initcode` and returns the runtime code it left.
    fn runtime(&self, from: Address, initcode: &[u8]) -> Result<Bytes, String> {
        let receipt = self.send(from, None, initcode)?;
        let at = receipt["contractAddress"].clone();
        serde_json::from_value(self.rpc("eth_getCode", json!([at, "latest"]))?)
            .map_err(|e| e.to_string())
    }
}

fn artifact(path: &Path) -> Result<Vec<u8>, Box<dyn std::error::Error>> {
    let v: Value = serde_json::from_slice(&std::fs::read(path)?)?;
    let hex = v["bytecode"].as_str().ok_or("no bytecode")?.trim_start_matches("0x");
    Ok(alloy_primitives::hex::decode(hex)?)
}

fn ours(name: &str) -> Result<Vec<u8>, Box<dyn std::error::Error>> {
    artifact(&repo().join(format!("contracts/artifacts/{name}.json")))
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .unwrap_or(18545)
}

fn word(v: U256) -> String {
    format!("{v:#066x}")
}

/// A string short enough for one slot, as solc stores it.
fn short_string(s: &str) -> String {
    let mut w = [0u8; 32];
    w[..s.len()].copy_from_slice(s.as_bytes());
    w[31] = (s.len() * 2) as u8;
    format!("{}", B256::from(w))
}

fn mapping(key: Address, slot: u64) -> U256 {
    U256::from_be_bytes(keccak256((key, U256::from(slot)).abi_encode()).0)
}

fn rss_mib(pid: u32) -> f64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next()?.parse::<f64>().ok())
        .map_or(0.0, |kib| kib / 1024.0)
}

/// The pairs' runtime, storage and token balances set on the node, and the
/// factory's `PairCreated` event emitted for each.
fn place(
    node: &Node,
    me: Address,
    pairs: &[(Address, Address, Address, U256, U256)],
    pair_code: &Bytes,
) -> Result<(), Box<dyn std::error::Error>> {
    node.batch(
        "hardhat_setCode",
        &pairs.iter().map(|p| json!([p.2, pair_code])).collect::<Vec<_>>(),
    )?;
    let n = pairs.len();
    let mut slots = Vec::with_capacity(n * 6);
    for (t0, t1, pair, r0, r1) in pairs {
        let reserves = *r0 | (*r1 << 112);
        let values = [
            U256::from_be_slice(t0.as_slice()),
            U256::from_be_slice(t1.as_slice()),
            reserves,
            U256::from(1),
        ];
        for (slot, v) in PAIR_SLOTS.iter().zip(values) {
            slots.push(json!([pair, format!("{slot:#x}"), word(v)]));
        }
        slots.push(json!([t0, format!("{:#x}", mapping(*pair, BALANCE_SLOT)), word(*r0)]));
        slots.push(json!([t1, format!("{:#x}", mapping(*pair, BALANCE_SLOT)), word(*r1)]));
    }
    node.batch("hardhat_setStorageAt", &slots)?;
    for (c, chunk) in pairs.chunks(1000).enumerate() {
        let call = emitPairsCall {
            token0s: chunk.iter().map(|p| p.0).collect(),
            token1s: chunk.iter().map(|p| p.1).collect(),
            pairs: chunk.iter().map(|p| p.2).collect(),
            first: U256::from(c * 1000),
        };
        node.send(me, Some(V2_FACTORY), &call.abi_encode())?;
    }
    Ok(())
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let n: usize = args.next().map_or(Ok(100_000), |a| a.parse())?;
    let t: usize = args.next().map_or(Ok(2_000), |a| a.parse())?;
    assert!(t >= 2 && n / t < t - 1, "too few tokens for {n} distinct pairs");
    let bin = std::env::var_os("SWITCHYARD_BIN")
        .map_or_else(|| repo().join("target/release/switchyard"), PathBuf::from);
    let hardhat = repo().join("tests/node/node_modules/.bin/hardhat");
    assert!(hardhat.exists(), "run scripts/setup.sh --tests first");

    // `NODE_CHAIN_RPC=127.0.0.1:<port>` keeps the node across runs:
    // started there if nothing answers, never stopped, and the pairs placed
    // only once (a later run with the same counts finds them).
    let kept = std::env::var("NODE_CHAIN_RPC").ok();
    let port = match &kept {
        Some(addr) => addr.rsplit(':').next().unwrap_or_default().parse()?,
        None => free_port(),
    };
    let addr = format!("127.0.0.1:{port}");
    let answering = kept.is_some()
        && post(
            &addr,
            "/",
            &json!({"jsonrpc": "2.0", "id": 1, "method": "eth_chainId"}).to_string(),
        )
        .is_ok();
    let child = if answering {
        None
    } else {
        Some(
            Command::new(&hardhat)
                .args(["node", "--hostname", "127.0.0.1", "--port", &port.to_string()])
                .current_dir(repo().join("tests/node"))
                .env("HARDHAT_DISABLE_TELEMETRY_PROMPT", "true")
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()?,
        )
    };
    let node = Node { addr, child: if kept.is_some() { None } else { child } };
    let started = Instant::now();
    while node.rpc("eth_chainId", json!([])).is_err() {
        assert!(started.elapsed() < Duration::from_secs(60), "hardhat did not start");
        std::thread::sleep(Duration::from_millis(200));
    }
    let me: Address = serde_json::from_value(node.rpc("eth_accounts", json!([]))?[0].clone())?;

    let placed = node.rpc("eth_getCode", json!([V2_FACTORY, "latest"]))? != json!("0x");
    // Runtimes: a token, the pair, the emitter.
    let setup = Instant::now();
    let mut token_init = ours("TestERC20")?;
    token_init.extend(("Bench".to_owned(), "B".to_owned(), U256::from(18)).abi_encode_params());
    let token_code = node.runtime(me, &token_init)?;
    let pair_code = node.runtime(
        me,
        &artifact(
            &repo().join("contracts/node_modules/@uniswap/v2-core/build/UniswapV2Pair.json"),
        )?,
    )?;
    let emitter_code = node.runtime(me, &ours("BenchPairEmitter")?)?;
    node.rpc("hardhat_setCode", json!([V2_FACTORY, emitter_code]))?;

    let tokens: Vec<Address> = (0..t)
        .map(|i| Address::from_slice(&keccak256(format!("switchyard bench token {i}"))[12..]))
        .collect();
    node.batch(
        "hardhat_setCode",
        &tokens.iter().map(|a| json!([a, token_code])).collect::<Vec<_>>(),
    )?;
    let mut slots = Vec::new();
    for (i, a) in tokens.iter().enumerate() {
        slots.push(json!([
            a,
            format!("{NAME_SLOT:#x}"),
            short_string(&format!("Bench Token {i}"))
        ]));
        slots.push(json!([a, format!("{SYMBOL_SLOT:#x}"), short_string(&format!("BT{i}"))]));
    }
    node.batch("hardhat_setStorageAt", &slots)?;

    // Pairs: token a with a + 1 + k / t, each at its CREATE2 address.
    let mut pairs = Vec::with_capacity(n);
    for k in 0..n {
        let a = k % t;
        let b = (a + 1 + k / t) % t;
        let (t0, t1) =
            if tokens[a] < tokens[b] { (tokens[a], tokens[b]) } else { (tokens[b], tokens[a]) };
        let salt = keccak256([t0.as_slice(), t1.as_slice()].concat());
        let pair = V2_FACTORY.create2(salt, PAIR_INIT_HASH);
        let r0 = U256::from(10u128.pow(18)) * U256::from(1 + (k * 7919) % 1000);
        let r1 = U256::from(10u128.pow(18)) * U256::from(1 + (k * 104_729) % 1000);
        pairs.push((t0, t1, pair, r0, r1));
    }
    if placed {
        println!("node: the {n} pairs of an earlier run are kept");
    } else {
        place(&node, me, &pairs, &pair_code)?;
        println!("node: {n} pairs over {t} tokens placed in {:.1?}", setup.elapsed());
    }

    // The server, following the node as chain 1.
    let dir = std::env::temp_dir().join(format!("switchyard-node-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let bind = format!("127.0.0.1:{}", free_port());
    let config = dir.join("switchyard.toml");
    std::fs::write(
        &config,
        format!(
            "bind = \"{bind}\"\ndata_dir = \"{}\"\nlog_filter = \"info,switchyard_engine::rpc_feed=debug,switchyard_engine::market=debug\"\n\
             embedded_block_ms = 0\n\n[[nodes]]\nchain_id = 1\nurl = \"http://{}\"\npoll_ms = 100\n\
             log_range = 100000000\ntimeout_ms = 120000\ndelayed_after_ms = 600000\nstale_after_ms = 900000\n",
            dir.join("data").display(),
            node.addr
        ),
    )?;
    let log_path = dir.join("server.log");
    let start = Instant::now();
    let mut server = Command::new(&bin)
        .args(["serve", "--config"])
        .arg(&config)
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(&log_path)?)
        .spawn()?;
    let v2 = |ready: &Value| {
        ready["feeds"].as_array().and_then(|f| {
            f.iter().find(|f| f["chainId"] == 1 && f["source"] == "uniswap-v2").cloned()
        })
    };
    let mut last_print = Instant::now();
    let ready_in = loop {
        if let Some(feed) = get(&bind, "/ready").as_ref().and_then(v2) {
            if feed["status"] == "ready" {
                break start.elapsed();
            }
            if last_print.elapsed() >= Duration::from_secs(2) {
                println!("  {:>5.1?}  {}", start.elapsed(), feed);
                last_print = Instant::now();
            }
        }
        if start.elapsed() > Duration::from_secs(1800) {
            let _ = server.kill();
            return Err("the server did not get ready in 30 minutes".into());
        }
        std::thread::sleep(Duration::from_millis(250));
    };
    std::thread::sleep(Duration::from_secs(2));
    let log = std::fs::read_to_string(&log_path)?;
    let indexed = log.lines().find(|l| l.contains("rpc feed: indexed") && l.contains("uniswap-v2"));
    let tokens_line = log.lines().rfind(|l| l.contains("tokens read from the node"));
    println!(
        "server: uniswap-v2 ready {ready_in:.1?} after start, RSS {:.0} MiB\n  {}\n  {}",
        rss_mib(server.id()),
        indexed.unwrap_or(""),
        tokens_line.unwrap_or("")
    );

    // Following: blocks in which 1,000 pairs sync to new balances.
    let lens = ours("StateLens")?;
    let mut heads = Vec::new();
    // A run's own wei on every new balance: a kept node's pairs move on
    // each run, never to the balances an earlier run left.
    let salt = U256::from(
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH)?.as_nanos() % 1_000_003
            + 1,
    );
    for round in 0..5u64 {
        let moved: Vec<_> =
            pairs.iter().skip(round as usize).step_by((n / 1000).max(1)).take(1000).collect();
        let mut slots = Vec::new();
        for (t0, _, pair, r0, _) in &moved {
            let grown = *r0 + *r0 * U256::from(round + 1) / U256::from(100) + salt;
            slots.push(json!([t0, format!("{:#x}", mapping(*pair, BALANCE_SLOT)), word(grown)]));
        }
        node.batch("hardhat_setStorageAt", &slots)?;
        // One block: `StateLens` creations (each within the initcode limit)
        // calling `sync()` on 100 pairs apiece (their answers, returned as
        // code, stay within the code size limit), mined together.
        node.rpc("evm_setAutomine", json!([false]))?;
        let mut hashes = Vec::new();
        for part in moved.chunks(100) {
            let calls: Vec<LensCall> = part
                .iter()
                .map(|p| LensCall { target: p.2, data: syncCall {}.abi_encode().into() })
                .collect();
            let mut data = lens.clone();
            data.extend(calls.abi_encode());
            let tx = json!({"from": me, "data": Bytes::from(data), "gas": "0x1312d00"});
            hashes.push(node.rpc("eth_sendTransaction", json!([tx]))?);
        }
        node.rpc("evm_mine", json!([]))?;
        node.rpc("evm_setAutomine", json!([true]))?;
        let (mut logs, mut block) = (0, 0);
        for h in hashes {
            let receipt = node.rpc("eth_getTransactionReceipt", json!([h]))?;
            if receipt["status"] != "0x1" {
                return Err(format!("sync transaction failed: {receipt}").into());
            }
            logs += receipt["logs"].as_array().map_or(0, Vec::len);
            block = u64::from_str_radix(
                receipt["blockNumber"].as_str().unwrap_or("0x0").trim_start_matches("0x"),
                16,
            )?;
        }
        heads.push((block, logs));
        std::thread::sleep(Duration::from_secs(3));
    }
    let log = std::fs::read_to_string(&log_path)?;
    let (mut times, mut quote_times) = (Vec::new(), Vec::new());
    for (block, logs) in &heads {
        let found = log.lines().filter_map(|l| serde_json::from_str::<Value>(l).ok()).find(|v| {
            v["message"] == "rpc feed: published"
                && v["source"] == "uniswap-v2"
                && v["head"].as_u64() == Some(*block)
        });
        let us = found.and_then(|v| v["node_to_readers_us"].as_u64());
        let quotes = log
            .lines()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .find(|v| {
                v["message"] == "price cache: quotes see a feed's block"
                    && v["source"] == "uniswap-v2"
                    && v["head"].as_u64() == Some(*block)
            })
            .and_then(|v| v["node_to_quotes_us"].as_u64());
        println!(
            "block {block}: {logs} logs; node answers to quotes {quotes:?} µs, to the proven state {us:?} µs"
        );
        times.extend(us);
        quote_times.extend(quotes);
    }
    for (what, t) in [("quotes", &mut quote_times), ("proven state", &mut times)] {
        t.sort_unstable();
        if let Some(m) = t.get(t.len() / 2) {
            println!("median from the node's answers to {what}: {:.2} ms", *m as f64 / 1000.0);
        }
    }
    println!("RSS after following: {:.0} MiB", rss_mib(server.id()));
    let _ = server.kill();
    let _ = server.wait();
    // The server's log stays for a kept node's runs (read them side by side).
    if kept.is_some() {
        println!("server log: {}", log_path.display());
    } else {
        let _ = std::fs::remove_dir_all(&dir);
    }
    Ok(())
}
