//! How long the server takes to index a node-followed chain of many
//! Uniswap V2 pairs and V3 pools, how much memory it then holds, and how
//! long a block of 1,000 `Sync` logs takes to reach readers:
//!
//! ```sh
//! scripts/setup.sh --tests
//! cargo build --release -p switchyard-server
//! cargo run --release -p switchyard-benches --example node_chain -- 100000 2000
//! cargo run --release -p switchyard-benches --example node_chain -- 75000 2000 25000
//! ```
//!
//! (V2 pairs, tokens, then V3 pools; defaults 100,000, 2,000 and 0). A V3
//! pool is the published pool runtime of its fee tier (500, 3000 or 10000,
//! in turn) with its own immutables, at its real CREATE2 address, with
//! three positions around its price written into its ticks, bitmap and
//! liquidity, and the V3 factory's `PoolCreated` event. The generator is
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
use switchyard_engine::evm::lazy::{self, V3Template};

const V2_FACTORY: Address = address!("5c69bee701ef814a2b6a3edd4b1652cb9cc5aa6f");
const V3_FACTORY: Address = address!("1f98431c8ad98523631ae4a59f267346ea31f984");
/// `keccak256` of the published `UniswapV3Pool` initcode.
const POOL_INIT_HASH: B256 =
    alloy_primitives::b256!("e34f199b19b2b4f47f68442619d555527d244f78a3297ea89325f843f87b8b54");
/// The V3 fee tiers and their tick spacings.
const TIERS: [(u32, i32); 3] = [(500, 10), (3000, 60), (10000, 200)];
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
    function emitPools(address[] token0s, address[] token1s, uint24[] fees, int24[] spacings, address[] pools) external;
    function mintAll(address[] pools, int24[][] lowers, int24[][] uppers, uint128[][] amounts) external;
    function createPool(address tokenA, address tokenB, uint24 fee) external returns (address pool);
    function getPool(address tokenA, address tokenB, uint24 fee) external view returns (address pool);
    function sync() external;
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

/// A fee tier's pool runtime: the fee, and the template pool.
type Template = (u32, V3Template);

/// One V3 pool to place: its tokens, tier, address, price and positions.
struct V3Placed {
    token0: Address,
    token1: Address,
    tier: (u32, i32),
    pool: Address,
    tick: i32,
    /// `(lower, upper, liquidity)`.
    positions: [(i32, i32, u128); 3],
}

/// Every V3 pool's `Mint` events, runtime (its tier's template with the
/// pool's own address and tokens), storage and token balances set on the
/// node, and the factory's `PoolCreated` event emitted for each.
fn place_v3(
    node: &Node,
    me: Address,
    pools: &[V3Placed],
    templates: &[Template],
    emitter_code: &Bytes,
) -> Result<(), Box<dyn std::error::Error>> {
    for chunk in pools.chunks(1000) {
        let mut codes = Vec::with_capacity(chunk.len());
        let mut slots = Vec::new();
        for p in chunk {
            let (_, template) =
                templates.iter().find(|(fee, _)| *fee == p.tier.0).ok_or("no template")?;
            let code = lazy::v3_pool_code(template, p.pool, [p.token0, p.token1], template.factory);
            codes.push(json!([p.pool, Bytes::from(code)]));
            // The state the world derives a V3 pool's storage from.
            let ticks: Vec<(i32, i128)> = p
                .positions
                .iter()
                .flat_map(|(lower, upper, l)| [(*lower, *l as i128), (*upper, -(*l as i128))])
                .collect::<std::collections::BTreeMap<_, _>>()
                .into_iter()
                .collect();
            let state = switchyard_kernel::V3State {
                sqrt_price_x96: switchyard_kernel::amm::uniswap_v3::sqrt_ratio_at_tick(p.tick)
                    .map_err(|e| format!("{e:?}"))?,
                liquidity: p.positions.iter().map(|q| q.2).sum(),
                tick: p.tick,
                fee: p.tier.0,
                tick_spacing: p.tier.1,
                ticks: ticks.into(),
                range: switchyard_kernel::RangeHint::default(),
            };
            let storage = lazy::v3_pool_storage(&state, 1).ok_or("a tick out of range")?;
            for (slot, v) in storage {
                slots.push(json!([p.pool, format!("{slot:#x}"), word(v)]));
            }
            // What the positions hold (in floating point: only the
            // balances, which no quote reads; a transfer probe borrows a
            // thousandth of them, as it would from a real pool).
            let sqrt = |t: i32| 1.0001f64.powf(f64::from(t) / 2.0);
            let held = p.positions.iter().fold([0f64; 2], |[a0, a1], (lower, upper, l)| {
                let l = *l as f64;
                [
                    a0 + l * (1.0 / sqrt(p.tick) - 1.0 / sqrt(*upper)),
                    a1 + l * (sqrt(p.tick) - sqrt(*lower)),
                ]
            });
            for (t, h) in [p.token0, p.token1].into_iter().zip(held) {
                let h = U256::from(h as u128 + 1);
                slots.push(json!([t, format!("{:#x}", mapping(p.pool, BALANCE_SLOT)), word(h)]));
            }
        }
        let call = emitPoolsCall {
            token0s: chunk.iter().map(|p| p.token0).collect(),
            token1s: chunk.iter().map(|p| p.token1).collect(),
            fees: chunk.iter().map(|p| alloy_primitives::aliases::U24::from(p.tier.0)).collect(),
            spacings: chunk
                .iter()
                .map(|p| alloy_primitives::aliases::I24::try_from(p.tier.1).unwrap_or_default())
                .collect(),
            pools: chunk.iter().map(|p| p.pool).collect(),
        };
        node.send(me, Some(V3_FACTORY), &call.abi_encode())?;
        // Each pool's `Mint` events, emitted from its address by the
        // emitter's code placed there first.
        node.batch(
            "hardhat_setCode",
            &chunk.iter().map(|p| json!([p.pool, emitter_code])).collect::<Vec<_>>(),
        )?;
        let i24 = |t: i32| alloy_primitives::aliases::I24::try_from(t).unwrap_or_default();
        let mints = mintAllCall {
            pools: chunk.iter().map(|p| p.pool).collect(),
            lowers: chunk.iter().map(|p| p.positions.iter().map(|q| i24(q.0)).collect()).collect(),
            uppers: chunk.iter().map(|p| p.positions.iter().map(|q| i24(q.1)).collect()).collect(),
            amounts: chunk.iter().map(|p| p.positions.iter().map(|q| q.2).collect()).collect(),
        };
        node.send(me, Some(V3_FACTORY), &mints.abi_encode())?;
        node.batch("hardhat_setCode", &codes)?;
        node.batch("hardhat_setStorageAt", &slots)?;
    }
    Ok(())
}

/// Each fee tier's pool runtime: the published factory deployed on the node
/// creates a pool of two placeholder tokens per tier.
fn v3_templates(node: &Node, me: Address) -> Result<Vec<Template>, Box<dyn std::error::Error>> {
    let factory_code = artifact(&repo().join(
        "contracts/node_modules/@uniswap/v3-core/artifacts/contracts/UniswapV3Factory.sol/UniswapV3Factory.json",
    ))?;
    let receipt = node.send(me, None, &factory_code)?;
    let factory: Address = serde_json::from_value(receipt["contractAddress"].clone())?;
    let mut out = Vec::new();
    for (fee, _) in TIERS {
        let fee24 = alloy_primitives::aliases::U24::from(fee);
        let [a, b] = lazy::V3_TEMPLATE_TOKENS;
        node.send(
            me,
            Some(factory),
            &createPoolCall { tokenA: a, tokenB: b, fee: fee24 }.abi_encode(),
        )?;
        let data = Bytes::from(getPoolCall { tokenA: a, tokenB: b, fee: fee24 }.abi_encode());
        let answer: Bytes = serde_json::from_value(
            node.rpc("eth_call", json!([{"to": factory, "data": data}, "latest"]))?,
        )?;
        let at = Address::from_slice(answer.get(12..32).ok_or("getPool answered nothing")?);
        let code: Bytes = serde_json::from_value(node.rpc("eth_getCode", json!([at, "latest"]))?)?;
        out.push((fee, V3Template { code, at, factory }));
    }
    Ok(out)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let n: usize = args.next().map_or(Ok(100_000), |a| a.parse())?;
    let t: usize = args.next().map_or(Ok(2_000), |a| a.parse())?;
    let m: usize = args.next().map_or(Ok(0), |a| a.parse())?;
    assert!(t >= 2 && n / t < t - 1, "too few tokens for {n} distinct pairs");
    assert!(m / 3 / t < t - 1, "too few tokens for {m} distinct V3 pools");
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
    // V3 pools: the pair of the V2 rule for `k / 3`, in tier `k % 3`.
    let v3_placed = node.rpc("eth_getCode", json!([V3_FACTORY, "latest"]))? != json!("0x");
    if m > 0 && !v3_placed {
        let placing = Instant::now();
        let templates = v3_templates(&node, me)?;
        node.rpc("hardhat_setCode", json!([V3_FACTORY, emitter_code]))?;
        let mut pools = Vec::with_capacity(m);
        for k in 0..m {
            let j = k / 3;
            let a = j % t;
            let b = (a + 1 + j / t) % t;
            let (t0, t1) =
                if tokens[a] < tokens[b] { (tokens[a], tokens[b]) } else { (tokens[b], tokens[a]) };
            let tier = TIERS[k % 3];
            let fee24 = alloy_primitives::aliases::U24::from(tier.0);
            let salt = keccak256((t0, t1, fee24).abi_encode());
            let pool = V3_FACTORY.create2(salt, POOL_INIT_HASH);
            let s = tier.1;
            let tick = s * (((k * 37) % 41) as i32 - 20);
            let l = |i: usize| 10u128.pow(18) * (1 + ((k * 7919 + i * 104_729) % 1000) as u128);
            let positions = [
                (tick - 10 * s, tick + 10 * s, l(0)),
                (tick - 60 * s, tick + 60 * s, l(1)),
                (tick - 400 * s, tick + 400 * s, l(2)),
            ];
            pools.push(V3Placed { token0: t0, token1: t1, tier, pool, tick, positions });
        }
        place_v3(&node, me, &pools, &templates, &emitter_code)?;
        println!("node: {m} V3 pools placed in {:.1?}", placing.elapsed());
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
    let feed = |ready: &Value, source: &str| {
        ready["feeds"]
            .as_array()
            .and_then(|f| f.iter().find(|f| f["chainId"] == 1 && f["source"] == source).cloned())
    };
    let mut last_print = Instant::now();
    let mut v3_ready_in = None;
    let ready_in = loop {
        let ready = get(&bind, "/ready");
        let v2 = ready.as_ref().and_then(|r| feed(r, "uniswap-v2"));
        let v3 = ready.as_ref().and_then(|r| feed(r, "uniswap-v3"));
        if v3_ready_in.is_none() && v3.as_ref().is_some_and(|f| f["status"] == "ready") {
            v3_ready_in = Some(start.elapsed());
        }
        if let Some(v2) = v2 {
            if v2["status"] == "ready" && (m == 0 || v3_ready_in.is_some()) {
                break start.elapsed();
            }
            if last_print.elapsed() >= Duration::from_secs(2) {
                println!("  {:>5.1?}  {v2}", start.elapsed());
                if m > 0 {
                    println!("         {}", v3.unwrap_or_default());
                }
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
    let indexed = |source: &str| {
        log.lines().find(|l| l.contains("rpc feed: indexed") && l.contains(source)).unwrap_or("")
    };
    let tokens_line = log.lines().rfind(|l| l.contains("tokens read from the node"));
    println!(
        "server: both feeds ready {ready_in:.1?} after start (uniswap-v3 at {v3_ready_in:.1?}), RSS {:.0} MiB\n  {}\n  {}\n  {}",
        rss_mib(server.id()),
        indexed("uniswap-v2"),
        indexed("uniswap-v3"),
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
            // `StateLens`'s packed calls: each target, its data's length
            // (two bytes) and its data; then the list's length as a word.
            let mut data = lens.clone();
            let sync = syncCall {}.abi_encode();
            let mut calls = Vec::new();
            for p in part {
                calls.extend_from_slice(p.2.as_slice());
                calls.extend_from_slice(&(sync.len() as u16).to_be_bytes());
                calls.extend_from_slice(&sync);
            }
            data.extend_from_slice(&calls);
            data.extend_from_slice(&U256::from(calls.len()).to_be_bytes::<32>());
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
