//! A Hardhat 2 node on loopback (`tests/node`, installed by
//! `scripts/setup.sh --tests`) and a blocking JSON-RPC client of it.

use std::{
    net::TcpStream,
    path::{Path, PathBuf},
    process::{Command, Stdio},
};

use alloy_primitives::{Address, Bytes, U256, hex};
use serde_json::{Value, json};

use super::{Proc, request, wait_for};

/// The repository's root.
pub fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// `(status, body)` of one exchange.
pub fn http(addr: &str, method: &str, path: &str, key: &str, body: &str) -> Option<(u16, String)> {
    request(addr, method, path, key, body).map(|a| (a.status, a.body))
}

/// The Hardhat node and a JSON-RPC client of it.
pub struct Node {
    /// `host:port`.
    pub addr: String,
    proc: Option<Proc>,
}

impl Node {
    /// A node of chain 1 (`tests/node/hardhat.config.js`).
    pub fn start(port: u16) -> Self {
        Self::start_with(port, "hardhat.config.js")
    }

    /// A node of `config` (a file in `tests/node`: its chain id).
    pub fn start_with(port: u16, config: &str) -> Self {
        let dir = repo().join("tests/node");
        let bin = dir.join("node_modules/.bin/hardhat");
        assert!(bin.exists(), "{} is missing: run scripts/setup.sh --tests", bin.display());
        let child = Command::new(bin)
            .args([
                "--config",
                config,
                "node",
                "--hostname",
                "127.0.0.1",
                "--port",
                &port.to_string(),
            ])
            .current_dir(&dir)
            .env("HARDHAT_DISABLE_TELEMETRY_PROMPT", "true")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("hardhat starts");
        let node = Self { addr: format!("127.0.0.1:{port}"), proc: Some(Proc(child)) };
        wait_for("the hardhat node", 60, || node.try_rpc("eth_chainId", json!([])).is_ok());
        node
    }

    pub fn stop(&mut self) {
        drop(self.proc.take());
        wait_for("the node to stop", 10, || TcpStream::connect(&self.addr).is_err());
    }

    pub fn try_rpc(&self, method: &str, params: Value) -> Result<Value, String> {
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
        let (_, text) = http(&self.addr, "POST", "/", "", &body.to_string())
            .ok_or_else(|| "no answer".to_owned())?;
        let v: Value = serde_json::from_str(&text).map_err(|e| format!("{e}: {text}"))?;
        if let Some(e) = v.get("error") {
            return Err(format!("{method}: {e}"));
        }
        Ok(v["result"].clone())
    }

    pub fn rpc(&self, method: &str, params: Value) -> Value {
        self.try_rpc(method, params).unwrap_or_else(|e| panic!("{e}"))
    }

    pub fn accounts(&self) -> Vec<Address> {
        serde_json::from_value(self.rpc("eth_accounts", json!([]))).expect("accounts")
    }

    pub fn block_number(&self) -> u64 {
        let v = self.rpc("eth_blockNumber", json!([]));
        u64::from_str_radix(v.as_str().expect("hex").trim_start_matches("0x"), 16).expect("hex")
    }

    /// Sends a transaction (mined at once) and checks it succeeded; returns
    /// the created contract, if any.
    pub fn send(&self, from: Address, to: Option<Address>, data: &[u8]) -> Option<Address> {
        let (_, receipt) = self.transact(from, to, data);
        serde_json::from_value(receipt["contractAddress"].clone()).ok()
    }

    /// Sends a transaction (mined at once), checks it succeeded, and
    /// returns its hash and receipt.
    pub fn transact(&self, from: Address, to: Option<Address>, data: &[u8]) -> (String, Value) {
        self.transact_with_gas(from, to, data, 0xf4_2400)
    }

    /// [`Self::transact`] with `gas` as the transaction's gas limit.
    pub fn transact_with_gas(
        &self,
        from: Address,
        to: Option<Address>,
        data: &[u8],
        gas: u64,
    ) -> (String, Value) {
        let gas = format!("{gas:#x}");
        let mut tx = json!({"from": from, "data": Bytes::copy_from_slice(data), "gas": gas});
        if let Some(to) = to {
            tx["to"] = json!(to);
        }
        let hash = self.rpc("eth_sendTransaction", json!([tx]));
        let receipt = self.rpc("eth_getTransactionReceipt", json!([hash]));
        assert_eq!(receipt["status"], "0x1", "transaction failed: {receipt}");
        (hash.as_str().expect("hash").to_owned(), receipt)
    }

    pub fn call(&self, to: Address, data: &[u8]) -> Bytes {
        let v = self
            .rpc("eth_call", json!([{"to": to, "data": Bytes::copy_from_slice(data)}, "latest"]));
        serde_json::from_value(v).expect("bytes")
    }

    /// `eth_call` from `from`: what a transaction it sent would return.
    pub fn call_from(&self, from: Address, to: Address, data: &[u8]) -> Bytes {
        let call = json!({"from": from, "to": to, "data": Bytes::copy_from_slice(data)});
        serde_json::from_value(self.rpc("eth_call", json!([call, "latest"]))).expect("bytes")
    }

    pub fn code(&self, at: Address) -> Bytes {
        serde_json::from_value(self.rpc("eth_getCode", json!([at, "latest"]))).expect("code")
    }

    /// Moves a deployed contract's code (with every copy of its own address
    /// in it, its immutables, rewritten) and `slots` to `to`.
    pub fn relocate(&self, from: Address, to: Address, slots: &[U256]) {
        let mut code = self.code(from).to_vec();
        let (old, new) = (from.as_slice(), to.as_slice());
        let mut i = 0;
        while i + 20 <= code.len() {
            if &code[i..i + 20] == old {
                code[i..i + 20].copy_from_slice(new);
                i += 20;
            } else {
                i += 1;
            }
        }
        self.rpc("hardhat_setCode", json!([to, Bytes::from(code)]));
        for slot in slots {
            let v = self.rpc("eth_getStorageAt", json!([from, slot, "latest"]));
            let word = format!(
                "{:#066x}",
                U256::from_str_radix(v.as_str().expect("hex").trim_start_matches("0x"), 16)
                    .expect("hex")
            );
            self.rpc("hardhat_setStorageAt", json!([to, format!("{slot:#x}"), word]));
        }
    }
}

/// The initcode of a JSON artifact.
pub fn artifact(path: &Path) -> Vec<u8> {
    let v: Value = serde_json::from_slice(&std::fs::read(path).expect("artifact")).expect("json");
    hex::decode(v["bytecode"].as_str().expect("bytecode").trim_start_matches("0x")).expect("hex")
}

/// The initcode of one of our contracts.
pub fn ours(name: &str) -> Vec<u8> {
    artifact(&repo().join(format!("contracts/artifacts/{name}.json")))
}

/// The initcode of a Uniswap npm artifact.
pub fn npm(path: &str) -> Vec<u8> {
    artifact(&repo().join("contracts/node_modules/@uniswap").join(path))
}

/// The binary serving `config` (TOML after the bind address and data
/// directory it is given), with a key of 1,000 requests/s; its log in
/// `dir/server.log`. Returns the address, the key and the process.
pub fn serve_config(dir: &Path, config: &str) -> (String, String, Proc) {
    let addr = format!("127.0.0.1:{}", super::free_port());
    let file = dir.join("switchyard.toml");
    let text = format!(
        "bind = \"{addr}\"\ndata_dir = \"{}\"\nlog_filter = \"info\"\nembedded_block_ms = 0\n{config}",
        dir.join("data").display()
    );
    std::fs::write(&file, text).expect("config written");
    let key = super::create_key(&dir.join("data"), "1000");
    let log = std::fs::File::create(dir.join("server.log")).expect("log file");
    let child = Command::new(super::BIN)
        .args(["serve", "--config", file.to_str().expect("utf-8")])
        .env_remove("SWITCHYARD_DATA_DIR")
        .stdout(Stdio::null())
        .stderr(log)
        .spawn()
        .expect("serve starts");
    let a = addr.clone();
    wait_for("the server", 60, move || {
        http(&a, "GET", "/health", "", "").is_some_and(|(c, _)| c == 200)
    });
    (addr, key, Proc(child))
}

/// Loads each `(node, chain)` with that chain of the embedded market's
/// world: every contract the build placed, with its storage, at its
/// address (Stargate's pools and messaging, LayerZero's endpoint and
/// message library, Enso's composer and router among them).
pub fn load_worlds(nodes: &[(&Node, u64)]) {
    use switchyard_catalog::{ChainId, loaders};
    use switchyard_engine::{StateInputs, build_state, evm::NpmArtifacts};
    let catalog = loaders::load_catalog(&[] as &[&Path]).expect("embedded catalog");
    let market = loaders::load_market(None, &catalog).expect("embedded market");
    let snapshot =
        switchyard_kernel::MarketSnapshot::build(&market, &catalog).expect("embedded snapshot");
    let inputs = StateInputs {
        catalog: std::sync::Arc::new(catalog),
        market: std::sync::Arc::new(market),
        npm: NpmArtifacts::load(&NpmArtifacts::default_dir())
            .map(std::sync::Arc::new)
            .map_err(|e| e.to_string()),
    };
    let state = build_state(&inputs, std::sync::Arc::new(snapshot));
    let world = state.world.as_ref().expect("the world builds (run scripts/setup.sh --tests)");
    for (node, chain) in nodes {
        let placed = world.chain(ChainId(*chain)).expect("a world of the chain").placed_accounts();
        for a in placed {
            if !a.code.is_empty() {
                node.rpc("hardhat_setCode", json!([a.address, a.code]));
            }
            if !a.balance.is_zero() {
                node.rpc("hardhat_setBalance", json!([a.address, format!("{:#x}", a.balance)]));
            }
            for (slot, value) in &a.storage {
                node.rpc(
                    "hardhat_setStorageAt",
                    json!([a.address, format!("{slot:#x}"), format!("{value:#066x}")]),
                );
            }
        }
        node.rpc("evm_mine", json!([]));
    }
}
