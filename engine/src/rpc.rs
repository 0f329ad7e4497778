//! A small Ethereum JSON-RPC client: the calls the RPC feed makes, over
//! hyper's HTTP/1 client on one kept-alive connection (reconnected after any
//! failure), each with a timeout.
//!
//! Why not `alloy-provider`: it brings reqwest, rustls and a second HTTP
//! stack; hyper is already in the tree for axum, so this client adds no
//! crate. Plain `http://` only: a market maker's node sits on loopback or
//! the LAN (put a TLS proxy in front of a remote one).
//!
//! Every answer a node sends is untrusted input: it is decoded into typed
//! values, and anything malformed is an [`RpcError`], never a panic.

use std::{
    sync::atomic::{AtomicU64, Ordering},
    time::Duration,
};

use alloy_primitives::{Address, B256, Bytes, U64, U256};
use http_body_util::{BodyExt, Full};
use hyper::{
    Request,
    body::Bytes as Body,
    client::conn::http1::{self, SendRequest},
    header,
};
use hyper_util::rt::TokioIo;
use serde::{Deserialize, Serialize, de::DeserializeOwned};
use serde_json::{Value, json};
use tokio::sync::Mutex;

/// Why a JSON-RPC call failed.
#[derive(Debug, thiserror::Error)]
pub enum RpcError {
    /// The URL is not `http://host:port[/path]`.
    #[error("rpc url `{0}`: expected http://host:port/path")]
    Url(String),
    /// No connection, or it broke.
    #[error("rpc transport: {0}")]
    Transport(String),
    /// No answer within the timeout.
    #[error("rpc call {method} timed out after {after:?}")]
    Timeout {
        /// Method.
        method: String,
        /// Timeout.
        after: Duration,
    },
    /// The node answered with an HTTP error status.
    #[error("rpc http status {0}")]
    Status(u16),
    /// The node answered with a JSON-RPC error.
    #[error("rpc error {code} from {method}: {message}")]
    Node {
        /// Method.
        method: String,
        /// JSON-RPC error code.
        code: i64,
        /// Message.
        message: String,
    },
    /// The answer is not what the method returns.
    #[error("rpc answer to {method} malformed: {message}")]
    Decode {
        /// Method.
        method: String,
        /// What was wrong.
        message: String,
    },
}

/// A block header: what the feed needs to follow the canonical chain.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Header {
    /// Number.
    pub number: U64,
    /// Hash.
    pub hash: B256,
    /// Parent hash.
    pub parent_hash: B256,
    /// Unix seconds.
    pub timestamp: U64,
}

/// A log, as `eth_getLogs` returns it.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Log {
    /// Emitter.
    pub address: Address,
    /// Topics.
    pub topics: Vec<B256>,
    /// Data.
    pub data: Bytes,
    /// Block number.
    pub block_number: U64,
    /// Block hash.
    pub block_hash: B256,
    /// Index in the block.
    pub log_index: U64,
    /// Set when a reorg removed the log (subscriptions only).
    #[serde(default)]
    pub removed: bool,
}

/// An `eth_getLogs` filter.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LogFilter {
    /// First block, inclusive.
    pub from_block: U64,
    /// Last block, inclusive.
    pub to_block: U64,
    /// Emitters (`None`: any).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub address: Option<Vec<Address>>,
    /// Topic filters, by position; `topics[0]` lists event signatures.
    pub topics: Vec<Vec<B256>>,
}

struct Target {
    host: String,
    port: u16,
    path: String,
}

fn parse_url(url: &str) -> Result<Target, RpcError> {
    let bad = || RpcError::Url(url.to_owned());
    let rest = url.strip_prefix("http://").ok_or_else(bad)?;
    let (authority, path) = match rest.find('/') {
        Some(i) => (&rest[..i], &rest[i..]),
        None => (rest, "/"),
    };
    let (host, port) = match authority.rsplit_once(':') {
        Some((h, p)) => (h, p.parse::<u16>().map_err(|_| bad())?),
        None => (authority, 80),
    };
    if host.is_empty() {
        return Err(bad());
    }
    Ok(Target { host: host.to_owned(), port, path: path.to_owned() })
}

/// A JSON-RPC client of one node.
pub struct RpcClient {
    url: String,
    target: Target,
    timeout: Duration,
    conn: Mutex<Option<SendRequest<Full<Body>>>>,
    next_id: AtomicU64,
}

impl std::fmt::Debug for RpcClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RpcClient").field("url", &self.url).finish_non_exhaustive()
    }
}

fn decode<T: DeserializeOwned>(method: &str, v: Value) -> Result<T, RpcError> {
    serde_json::from_value(v)
        .map_err(|e| RpcError::Decode { method: method.to_owned(), message: e.to_string() })
}

fn hex_quantity(n: u64) -> String {
    format!("{n:#x}")
}

impl RpcClient {
    /// A client of the node at `url`; every call gives up after `timeout`.
    pub fn new(url: &str, timeout: Duration) -> Result<Self, RpcError> {
        Ok(Self {
            url: url.to_owned(),
            target: parse_url(url)?,
            timeout,
            conn: Mutex::new(None),
            next_id: AtomicU64::new(1),
        })
    }

    /// The node's URL.
    pub fn url(&self) -> &str {
        &self.url
    }

    async fn connect(&self) -> Result<SendRequest<Full<Body>>, RpcError> {
        let stream = tokio::net::TcpStream::connect((self.target.host.as_str(), self.target.port))
            .await
            .map_err(|e| RpcError::Transport(e.to_string()))?;
        let _ = stream.set_nodelay(true);
        let (sender, conn) = http1::handshake(TokioIo::new(stream))
            .await
            .map_err(|e| RpcError::Transport(e.to_string()))?;
        tokio::spawn(async move {
            // Ends when the node closes the connection or the sender is
            // dropped; the next call reconnects.
            let _ = conn.await;
        });
        Ok(sender)
    }

    /// Posts one JSON body and parses the JSON answer.
    async fn post(&self, method: &str, body: Vec<u8>) -> Result<Value, RpcError> {
        let work = async {
            let mut guard = self.conn.lock().await;
            let mut sender = match guard.take() {
                Some(s) if !s.is_closed() => s,
                _ => self.connect().await?,
            };
            sender.ready().await.map_err(|e| RpcError::Transport(e.to_string()))?;
            let req = Request::post(self.target.path.as_str())
                .header(header::HOST, format!("{}:{}", self.target.host, self.target.port))
                .header(header::CONTENT_TYPE, "application/json")
                .body(Full::new(Body::from(body)))
                .map_err(|e| RpcError::Transport(e.to_string()))?;
            let resp =
                sender.send_request(req).await.map_err(|e| RpcError::Transport(e.to_string()))?;
            let status = resp.status();
            // A node's answer is bounded: a broken or hostile one cannot
            // make the feed hold unbounded memory.
            let bytes = http_body_util::Limited::new(resp.into_body(), MAX_ANSWER_BYTES)
                .collect()
                .await
                .map_err(|e| RpcError::Transport(e.to_string()))?
                .to_bytes();
            // Only a connection that answered in full is kept.
            *guard = Some(sender);
            if !status.is_success() {
                return Err(RpcError::Status(status.as_u16()));
            }
            serde_json::from_slice::<Value>(&bytes)
                .map_err(|e| RpcError::Decode { method: method.to_owned(), message: e.to_string() })
        };
        match tokio::time::timeout(self.timeout, work).await {
            Ok(r) => r,
            Err(_) => {
                // A half-finished exchange leaves the connection unusable.
                if let Ok(mut g) = self.conn.try_lock() {
                    *g = None;
                }
                Err(RpcError::Timeout { method: method.to_owned(), after: self.timeout })
            }
        }
    }

    fn result_of(method: &str, mut answer: Value) -> Result<Value, RpcError> {
        if let Some(err) = answer.get("error").filter(|e| !e.is_null()) {
            return Err(RpcError::Node {
                method: method.to_owned(),
                code: err.get("code").and_then(Value::as_i64).unwrap_or(0),
                message: err.get("message").and_then(Value::as_str).unwrap_or("").to_owned(),
            });
        }
        match answer.get_mut("result") {
            Some(v) => Ok(v.take()),
            None => Err(RpcError::Decode {
                method: method.to_owned(),
                message: "neither result nor error".into(),
            }),
        }
    }

    /// One call.
    pub async fn call<T: DeserializeOwned>(
        &self,
        method: &str,
        params: Value,
    ) -> Result<T, RpcError> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let body = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        let answer = self.post(method, body.to_string().into_bytes()).await?;
        decode(method, Self::result_of(method, answer)?)
    }

    /// Several calls of one method in one JSON-RPC batch; answers in the
    /// order of `params` (a node may answer a batch in any order). Fails
    /// if any call fails.
    pub async fn batch<T: DeserializeOwned>(
        &self,
        method: &str,
        params: Vec<Value>,
    ) -> Result<Vec<T>, RpcError> {
        self.batch_each(method, params).await?.into_iter().collect()
    }

    /// Like [`Self::batch`], with each call's own outcome (the batch itself
    /// failing is the outer error).
    pub async fn batch_each<T: DeserializeOwned>(
        &self,
        method: &str,
        params: Vec<Value>,
    ) -> Result<Vec<Result<T, RpcError>>, RpcError> {
        if params.is_empty() {
            return Ok(Vec::new());
        }
        let first = self.next_id.fetch_add(params.len() as u64, Ordering::Relaxed);
        let body: Vec<Value> = params
            .into_iter()
            .enumerate()
            .map(|(k, p)| json!({"jsonrpc": "2.0", "id": first + k as u64, "method": method, "params": p}))
            .collect();
        let n = body.len();
        let answer = self.post(method, Value::Array(body).to_string().into_bytes()).await?;
        let Value::Array(items) = answer else {
            // A node refusing the whole batch answers with one error object.
            return Err(Self::result_of(method, answer).err().unwrap_or(RpcError::Decode {
                method: method.to_owned(),
                message: "a batch answered with one object".into(),
            }));
        };
        let mut out: Vec<Option<Result<T, RpcError>>> = (0..n).map(|_| None).collect();
        for item in items {
            let id = item.get("id").and_then(Value::as_u64).unwrap_or(u64::MAX);
            let k =
                id.checked_sub(first).map(|k| k as usize).filter(|k| *k < n).ok_or_else(|| {
                    RpcError::Decode {
                        method: method.to_owned(),
                        message: format!("unknown id {id}"),
                    }
                })?;
            out[k] = Some(Self::result_of(method, item).and_then(|v| decode(method, v)));
        }
        out.into_iter()
            .map(|v| {
                v.ok_or_else(|| RpcError::Decode {
                    method: method.to_owned(),
                    message: "a batch answer is missing".into(),
                })
            })
            .collect()
    }

    /// `eth_chainId`.
    pub async fn chain_id(&self) -> Result<u64, RpcError> {
        Ok(self.call::<U64>("eth_chainId", json!([])).await?.to())
    }

    /// `eth_blockNumber`.
    pub async fn block_number(&self) -> Result<u64, RpcError> {
        Ok(self.call::<U64>("eth_blockNumber", json!([])).await?.to())
    }

    /// `eth_gasPrice`.
    pub async fn gas_price(&self) -> Result<U256, RpcError> {
        self.call("eth_gasPrice", json!([])).await
    }

    /// The headers of `numbers`, in one batch; `None` for a block the node
    /// does not have.
    pub async fn headers(&self, numbers: &[u64]) -> Result<Vec<Option<Header>>, RpcError> {
        let params = numbers.iter().map(|n| json!([hex_quantity(*n), false])).collect();
        self.batch("eth_getBlockByNumber", params).await
    }

    /// `eth_getLogs`.
    pub async fn logs(&self, filter: &LogFilter) -> Result<Vec<Log>, RpcError> {
        self.call("eth_getLogs", json!([filter])).await
    }

    /// Runs `initcode` (a contract never deployed) in an `eth_call` at
    /// `block`: its constructor's return data is the answer.
    pub async fn call_initcode(&self, initcode: &Bytes, block: u64) -> Result<Bytes, RpcError> {
        self.call(
            "eth_call",
            json!([{"data": initcode, "gas": hex_quantity(BATCH_CALL_GAS)}, hex_quantity(block)]),
        )
        .await
    }

    /// Runs a never-deployed lens over `items` at `block`, in batches of at
    /// most `max_batch`, each encoded by `encode` after the `lens` initcode
    /// and its answer decoded by `decode` (one result per item).
    ///
    /// A node refuses an initcode over 48 KiB (EIP-3860) and a constructor
    /// answer over 24 KiB (EIP-170), even in an `eth_call`, and how much a
    /// batch answers is not known before: a batch the node refuses is
    /// halved and tried again; an item refused alone is split by
    /// `split_one` where it can be (a V3 pool's bitmap range), else it is
    /// answered `Err` with the node's reason, and the others go on.
    /// `on_done` hears how many items each good batch answered.
    #[allow(clippy::too_many_arguments)]
    pub async fn lens_batches<I: Clone, T>(
        &self,
        lens: &[u8],
        items: &[I],
        block: u64,
        max_batch: usize,
        encode: impl Fn(&[I]) -> Vec<u8>,
        decode: impl Fn(&[u8]) -> Result<Vec<T>, String>,
        split_one: impl Fn(&I) -> Option<(I, I)>,
        on_done: impl FnMut(usize),
    ) -> Result<Vec<(I, Result<T, String>)>, RpcError> {
        let call = async |batch: &[I]| {
            let mut data = lens.to_vec();
            data.extend(encode(batch));
            self.call_initcode(&data.into(), block).await
        };
        Self::halving(items, max_batch, call, decode, split_one, on_done).await
    }

    /// Calls `to` over `items` at `block` in batches, as
    /// [`lens_batches`](Self::lens_batches) does, with `code` lent (the
    /// call's state override set) to `to` and to every address `lent`
    /// names for the batch: a contract never deployed runs as those
    /// accounts, over their own balances in other contracts' storage.
    #[allow(clippy::too_many_arguments)]
    pub async fn lent_code_batches<I: Clone, T>(
        &self,
        to: Address,
        code: &Bytes,
        items: &[I],
        block: u64,
        max_batch: usize,
        encode: impl Fn(&[I]) -> Vec<u8>,
        lent: impl Fn(&[I]) -> Vec<Address>,
        decode: impl Fn(&[u8]) -> Result<Vec<T>, String>,
    ) -> Result<Vec<(I, Result<T, String>)>, RpcError> {
        let call = async |batch: &[I]| {
            let overrides: serde_json::Map<String, serde_json::Value> = std::iter::once(to)
                .chain(lent(batch))
                .map(|a| (format!("{a:#x}"), json!({ "code": code })))
                .collect();
            let data = Bytes::from(encode(batch));
            let tx = json!({"to": to, "data": data, "gas": hex_quantity(BATCH_CALL_GAS)});
            self.call("eth_call", json!([tx, hex_quantity(block), overrides])).await
        };
        Self::halving(items, max_batch, call, decode, |_| None, |_| {}).await
    }

    /// The batching both lens calls share: `call` answers one batch; a
    /// batch the node refuses is halved, an item refused alone is split by
    /// `split_one` or answered `Err` with the node's reason.
    async fn halving<I: Clone, T>(
        items: &[I],
        max_batch: usize,
        call: impl AsyncFn(&[I]) -> Result<Bytes, RpcError>,
        decode: impl Fn(&[u8]) -> Result<Vec<T>, String>,
        split_one: impl Fn(&I) -> Option<(I, I)>,
        mut on_done: impl FnMut(usize),
    ) -> Result<Vec<(I, Result<T, String>)>, RpcError> {
        let mut queue: std::collections::VecDeque<Vec<I>> =
            items.chunks(max_batch.max(1)).map(<[I]>::to_vec).collect();
        let mut out = Vec::with_capacity(items.len());
        while let Some(batch) = queue.pop_front() {
            match call(&batch).await {
                Ok(answer) => {
                    let results = decode(&answer).map_err(|message| RpcError::Decode {
                        method: "eth_call".into(),
                        message,
                    })?;
                    if results.len() != batch.len() {
                        return Err(RpcError::Decode {
                            method: "eth_call".into(),
                            message: format!("{} results for {} items", results.len(), batch.len()),
                        });
                    }
                    on_done(batch.len());
                    out.extend(batch.into_iter().zip(results.into_iter().map(Ok)));
                }
                Err(RpcError::Node { .. }) if batch.len() > 1 => {
                    let mut first = batch;
                    let second = first.split_off(first.len() / 2);
                    queue.push_front(second);
                    queue.push_front(first);
                }
                Err(RpcError::Node { message, .. }) => {
                    let Some(item) = batch.into_iter().next() else { continue };
                    match split_one(&item) {
                        Some((a, b)) => {
                            queue.push_front(vec![b]);
                            queue.push_front(vec![a]);
                        }
                        None => out.push((item, Err(message))),
                    }
                }
                Err(e) => return Err(e),
            }
        }
        Ok(out)
    }

    /// The code at `at` at `block` (`None`: latest).
    pub async fn code(&self, at: Address, block: Option<u64>) -> Result<Bytes, RpcError> {
        let tag = block.map_or_else(|| "latest".to_owned(), hex_quantity);
        self.call("eth_getCode", json!([at, tag])).await
    }

    /// `eth_call` of `data` on `to` at `block` (`None`: latest).
    pub async fn eth_call(
        &self,
        to: Address,
        data: &Bytes,
        block: Option<u64>,
    ) -> Result<Bytes, RpcError> {
        let tag = block.map_or_else(|| "latest".to_owned(), hex_quantity);
        self.call("eth_call", json!([{"to": to, "data": data}, tag])).await
    }
}

/// One `GET` of `path` (with its query) below `base` (`http://host:port[/prefix]`),
/// on a connection of its own: the answer's status and body (at most
/// [`MAX_GET_BYTES`]). For the HTTP services beside the nodes (CCTP's
/// attestation service).
pub async fn http_get(
    base: &str,
    path: &str,
    timeout: Duration,
) -> Result<(u16, Vec<u8>), RpcError> {
    let target = parse_url(base)?;
    let full = format!("{}{path}", target.path.trim_end_matches('/'));
    let work = async {
        let stream = tokio::net::TcpStream::connect((target.host.as_str(), target.port))
            .await
            .map_err(|e| RpcError::Transport(e.to_string()))?;
        let (mut sender, conn) = http1::handshake(TokioIo::new(stream))
            .await
            .map_err(|e| RpcError::Transport(e.to_string()))?;
        tokio::spawn(async move {
            let _ = conn.await;
        });
        let req = Request::get(full.as_str())
            .header(header::HOST, format!("{}:{}", target.host, target.port))
            .header(header::ACCEPT, "application/json")
            .body(Full::new(Body::new()))
            .map_err(|e| RpcError::Transport(e.to_string()))?;
        let resp =
            sender.send_request(req).await.map_err(|e| RpcError::Transport(e.to_string()))?;
        let status = resp.status().as_u16();
        let bytes = http_body_util::Limited::new(resp.into_body(), MAX_GET_BYTES)
            .collect()
            .await
            .map_err(|e| RpcError::Transport(e.to_string()))?
            .to_bytes();
        Ok((status, bytes.to_vec()))
    };
    tokio::time::timeout(timeout, work)
        .await
        .map_err(|_| RpcError::Timeout { method: format!("GET {full}"), after: timeout })?
}

/// The largest answer [`http_get`] reads.
pub const MAX_GET_BYTES: usize = 4 * 1024 * 1024;

/// The largest answer read from a node (a discovery `eth_getLogs` over a
/// busy range is the biggest: narrow `log_range` if a node hits this).
pub const MAX_ANSWER_BYTES: usize = 256 * 1024 * 1024;

/// The largest initcode a node runs (EIP-3860, since Shanghai), even in an
/// `eth_call`: a lens's code and its arguments together stay within it.
pub const MAX_INITCODE_BYTES: usize = 49_152;

/// The largest code a constructor may leave (EIP-170): a lens's answer, in
/// an `eth_call`, stays within it.
pub const MAX_ANSWER_CODE_BYTES: usize = 24_576;

/// The gas an `eth_call` of the batch reader asks for: below geth's default
/// RPC gas cap (50M) and Hardhat's block gas limit (30M).
pub const BATCH_CALL_GAS: u64 = 25_000_000;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls() {
        let t = parse_url("http://127.0.0.1:8545").unwrap();
        assert_eq!((t.host.as_str(), t.port, t.path.as_str()), ("127.0.0.1", 8545, "/"));
        let t = parse_url("http://node.lan/rpc/v1").unwrap();
        assert_eq!((t.host.as_str(), t.port, t.path.as_str()), ("node.lan", 80, "/rpc/v1"));
        assert!(parse_url("https://x:1").is_err());
        assert!(parse_url("http://:1").is_err());
        assert!(parse_url("http://x:99999").is_err());
    }

    /// A fake node on loopback: answers each request on a new connection
    /// with the next of `answers` (status, body), then closes it.
    async fn fake_node(answers: Vec<(u16, &'static str)>) -> String {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move {
            for (status, body) in answers {
                let Ok((mut s, _)) = listener.accept().await else { return };
                let mut buf = vec![0u8; 64 * 1024];
                let _ = s.read(&mut buf).await;
                let reply = format!(
                    "HTTP/1.1 {status} X\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                    body.len()
                );
                let _ = s.write_all(reply.as_bytes()).await;
            }
        });
        format!("http://{addr}")
    }

    #[tokio::test]
    async fn answers_and_failures_of_a_node() {
        let url = fake_node(vec![
            (200, r#"{"jsonrpc":"2.0","id":1,"result":"0x10"}"#),
            (500, "oops"),
            (200, "not json"),
            (200, r#"{"jsonrpc":"2.0","id":4,"result":"0xzz"}"#),
            (200, r#"[{"jsonrpc":"2.0","id":6,"result":"0x2"},{"jsonrpc":"2.0","id":5,"error":{"code":3,"message":"reverted"}}]"#),
        ])
        .await;
        let c = RpcClient::new(&url, Duration::from_secs(2)).unwrap();
        // Each answer closes its connection: every call reconnects.
        assert_eq!(c.block_number().await.unwrap(), 16);
        assert!(matches!(c.block_number().await, Err(RpcError::Status(500))));
        assert!(matches!(c.block_number().await, Err(RpcError::Decode { .. })));
        assert!(matches!(c.block_number().await, Err(RpcError::Decode { .. })));
        // A batch answered out of order, one call failing on its own.
        let each =
            c.batch_each::<U64>("eth_blockNumber", vec![json!([]), json!([])]).await.unwrap();
        assert!(matches!(each[0], Err(RpcError::Node { code: 3, .. })));
        assert_eq!(each[1].as_ref().unwrap().to::<u64>(), 2);
        // Nothing listens any more: a transport error, not a hang.
        assert!(matches!(c.block_number().await, Err(RpcError::Transport(_))));
    }

    #[tokio::test]
    async fn a_silent_node_times_out() {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let _hold = tokio::spawn(async move {
            let conn = listener.accept().await;
            tokio::time::sleep(Duration::from_secs(5)).await;
            drop(conn);
        });
        let c = RpcClient::new(&url, Duration::from_millis(200)).unwrap();
        let t0 = std::time::Instant::now();
        assert!(matches!(c.block_number().await, Err(RpcError::Timeout { .. })));
        assert!(t0.elapsed() < Duration::from_secs(2));
    }

    #[test]
    fn node_errors_are_typed() {
        let e = RpcClient::result_of(
            "eth_call",
            json!({"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"execution reverted"}}),
        )
        .unwrap_err();
        assert!(matches!(e, RpcError::Node { code: -32000, .. }), "{e}");
        let e = RpcClient::result_of("eth_call", json!({"id":1})).unwrap_err();
        assert!(matches!(e, RpcError::Decode { .. }));
    }
}
