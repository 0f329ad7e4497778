//! 100 quotes as one `POST /shortcuts/quote/batch` against the same 100 as
//! single `GET /shortcuts/quote` requests over a kept-alive connection, on
//! a running server (`scripts/batch-bench.sh` starts one). Rounds
//! alternate the two, so both see the same machine noise; the medians and
//! their ratio are printed.
//!
//! ```text
//! batch_vs_single --addr 127.0.0.1:18096 --key sy_… [--rounds 30] [--connections 1]
//! ```
//!
//! With `--connections C`, the singles go over C kept-alive connections at
//! once (C requests in flight) and the batch is sent as C batches of
//! 100 / C, also at once.

use std::time::{Duration, Instant};

use http_body_util::{BodyExt, Full};
use hyper::{Request, body::Bytes, client::conn::http1};
use hyper_util::rt::TokioIo;
use tokio::net::TcpStream;

const TOKENS: [&str; 5] = [
    "0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48",
    "0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2",
    "0xdac17f958d2ee523a2206206994597c13d831ec7",
    "0x6b175474e89094c44da98b954eedeac495271d0f",
    "0x2260fac5e5542a773aa44fbcfedf7c193bc2c599",
];
const AMOUNTS: [&str; 5] = ["1000000", "250000000000", "3000000000000000000", "70000000", "5"];

/// 100 quotes: the 20 ordered pairs of the five tokens, five amounts each.
fn quotes() -> Vec<(String, String, String)> {
    let mut out = Vec::new();
    for a in AMOUNTS {
        for (i, x) in TOKENS.iter().enumerate() {
            for (j, y) in TOKENS.iter().enumerate() {
                if i != j {
                    out.push(((*x).to_owned(), (*y).to_owned(), a.to_owned()));
                }
            }
        }
    }
    out
}

type Conn = http1::SendRequest<Full<Bytes>>;

async fn connect(addr: &str) -> Conn {
    let stream = TcpStream::connect(addr).await.expect("connect");
    let _ = stream.set_nodelay(true);
    let (send, conn) = http1::handshake(TokioIo::new(stream)).await.expect("handshake");
    tokio::spawn(conn);
    send
}

async fn send(c: &mut Conn, req: Request<Full<Bytes>>) -> (u16, Bytes) {
    c.ready().await.expect("ready");
    let res = c.send_request(req).await.expect("answer");
    let status = res.status().as_u16();
    (status, res.into_body().collect().await.expect("body").to_bytes())
}

async fn singles(conns: &mut Vec<Conn>, addr: &str, key: &str, qs: &[(String, String, String)]) {
    let per = qs.len().div_ceil(conns.len());
    let mut tasks = Vec::new();
    for (mut c, chunk) in std::mem::take(conns).into_iter().zip(qs.chunks(per)) {
        let (addr, key, chunk) = (addr.to_owned(), key.to_owned(), chunk.to_vec());
        tasks.push(tokio::spawn(async move {
            for (a, b, amount) in chunk {
                let req = Request::get(format!(
                    "/api/v1/shortcuts/quote?chainId=1&tokenIn={a}&tokenOut={b}&amountIn={amount}"
                ))
                .header("host", &addr)
                .header("authorization", format!("Bearer {key}"))
                .body(Full::new(Bytes::new()))
                .expect("request");
                let (status, _) = send(&mut c, req).await;
                assert!(status == 200 || status == 422, "single quote answered {status}");
            }
            c
        }));
    }
    for t in tasks {
        conns.push(t.await.expect("task"));
    }
}

async fn batches(conns: &mut Vec<Conn>, addr: &str, key: &str, qs: &[(String, String, String)]) {
    let per = qs.len().div_ceil(conns.len());
    let mut tasks = Vec::new();
    for (mut c, chunk) in std::mem::take(conns).into_iter().zip(qs.chunks(per)) {
        let items: Vec<serde_json::Value> = chunk
            .iter()
            .map(|(a, b, amount)| {
                serde_json::json!({"chainId": 1, "tokenIn": a, "tokenOut": b, "amountIn": amount})
            })
            .collect();
        let body = serde_json::json!({ "quotes": items }).to_string();
        let (addr, key) = (addr.to_owned(), key.to_owned());
        tasks.push(tokio::spawn(async move {
            let req = Request::post("/api/v1/shortcuts/quote/batch")
                .header("host", &addr)
                .header("authorization", format!("Bearer {key}"))
                .header("content-type", "application/json")
                .body(Full::new(Bytes::from(body)))
                .expect("request");
            let (status, _) = send(&mut c, req).await;
            assert_eq!(status, 200, "the batch answered {status}");
            c
        }));
    }
    for t in tasks {
        conns.push(t.await.expect("task"));
    }
}

fn median(v: &mut [Duration]) -> Duration {
    v.sort_unstable();
    v[v.len() / 2]
}

#[tokio::main(flavor = "multi_thread", worker_threads = 1)]
async fn main() {
    let mut args = std::env::args().skip(1);
    let (mut addr, mut key, mut rounds, mut connections) =
        (String::new(), String::new(), 30usize, 1usize);
    while let (Some(flag), Some(v)) = (args.next(), args.next()) {
        match flag.as_str() {
            "--addr" => addr = v,
            "--key" => key = v,
            "--rounds" => rounds = v.parse().expect("--rounds is a number"),
            "--connections" => connections = v.parse().expect("--connections is a number"),
            _ => panic!("unknown flag {flag}"),
        }
    }
    assert!(!addr.is_empty() && !key.is_empty(), "--addr and --key are required");
    let qs = quotes();
    let mut conns = Vec::new();
    for _ in 0..connections.max(1) {
        conns.push(connect(&addr).await);
    }
    // Warm both paths once.
    singles(&mut conns, &addr, &key, &qs).await;
    batches(&mut conns, &addr, &key, &qs).await;
    let (mut single_t, mut batch_t) = (Vec::new(), Vec::new());
    for _ in 0..rounds {
        let t = Instant::now();
        singles(&mut conns, &addr, &key, &qs).await;
        single_t.push(t.elapsed());
        let t = Instant::now();
        batches(&mut conns, &addr, &key, &qs).await;
        batch_t.push(t.elapsed());
    }
    let (s, b) = (median(&mut single_t), median(&mut batch_t));
    let per_s = |d: Duration| qs.len() as f64 / d.as_secs_f64();
    println!(
        "{} quotes, {} connection(s), {rounds} rounds: singles median {:.2} ms ({:.0} quotes/s), batch median {:.2} ms ({:.0} quotes/s); batch ÷ singles {:.2}×",
        qs.len(),
        conns.len(),
        s.as_secs_f64() * 1e3,
        per_s(s),
        b.as_secs_f64() * 1e3,
        per_s(b),
        per_s(b) / per_s(s)
    );
}
