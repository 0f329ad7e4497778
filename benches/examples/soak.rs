//! The soak load of `scripts/soak.sh`: requests at a fixed rate (open loop)
//! over kept-alive connections, a mix of endpoints, for N minutes; per
//! minute it reports requests, errors, p50/p99/max latency, the server's
//! RSS and the published head of chain 1 (the feed moving).
//!
//! Latency is measured from the moment each request is released by the
//! scheduler (its due time, to the timer's millisecond), queueing for a
//! connection included, so a server that falls behind shows it (no
//! coordinated omission).
//!
//! ```text
//! soak --addr 127.0.0.1:18090 --key sy_… --rate 400 --minutes 10 --pid 1234
//! ```

use std::{
    collections::BTreeMap,
    sync::{Arc, Mutex},
    time::{Duration, Instant},
};

use http_body_util::{BodyExt, Empty};
use hyper::{Request, body::Bytes, client::conn::http1};
use hyper_util::rt::TokioIo;
use tokio::{net::TcpStream, sync::mpsc};

/// The mix: (weight, path). Quotes and routes dominate, as for a market
/// maker's bot; metadata, prices and approvals come between them.
const FROM: &str = "fromAddress=0xd8da6bf26964af9d7eed9e03e53415d37aa96045";
const USDC: &str = "0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48";
const WETH: &str = "0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2";

fn mix() -> Vec<(u32, String)> {
    let one = format!("chainId=1&{FROM}&tokenIn={USDC}&amountIn=5000000000&tokenOut={WETH}");
    let split =
        format!("chainId=1&{FROM}&tokenIn={WETH}&amountIn=300000000000000000000&tokenOut={USDC}");
    vec![
        (30, format!("/api/v1/shortcuts/quote?{one}")),
        (20, format!("/api/v1/shortcuts/quote?{split}")),
        (10, format!("/api/v1/shortcuts/route?{one}")),
        (5, format!("/api/v1/shortcuts/route?{split}")),
        (10, format!("/api/v1/prices/1/{WETH}")),
        (10, "/api/v1/tokens?chainId=1&pageSize=100".to_owned()),
        (5, "/api/v1/networks".to_owned()),
        (5, format!("/api/v1/wallet/approve?chainId=1&{FROM}&tokenAddress={USDC}&amount=1000000")),
        (5, "/api/v1/standards".to_owned()),
    ]
}

#[derive(Default)]
struct Minute {
    latencies_us: Vec<u64>,
    errors: BTreeMap<String, u64>,
}

struct Args {
    addr: String,
    key: String,
    rate: f64,
    minutes: u64,
    pid: Option<u32>,
    connections: usize,
}

fn args() -> Result<Args, String> {
    let mut a = Args {
        addr: String::new(),
        key: String::new(),
        rate: 400.0,
        minutes: 10,
        pid: None,
        connections: 32,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let v = it.next().ok_or(format!("{flag} needs a value"))?;
        let bad = |e: &dyn std::fmt::Display| format!("{flag}: {e}");
        match flag.as_str() {
            "--addr" => a.addr = v,
            "--key" => a.key = v,
            "--rate" => a.rate = v.parse().map_err(|e| bad(&e))?,
            "--minutes" => a.minutes = v.parse().map_err(|e| bad(&e))?,
            "--pid" => a.pid = Some(v.parse().map_err(|e| bad(&e))?),
            "--connections" => a.connections = v.parse().map_err(|e| bad(&e))?,
            _ => return Err(format!("unknown flag {flag}")),
        }
    }
    if a.addr.is_empty() || a.key.is_empty() || a.rate <= 0.0 || a.connections == 0 {
        return Err("usage: soak --addr HOST:PORT --key KEY [--rate R] [--minutes M] [--pid PID] [--connections C]".into());
    }
    Ok(a)
}

fn rss_mib(pid: u32) -> Option<f64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let kb: f64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))?
        .split_whitespace()
        .next()?
        .parse()
        .ok()?;
    Some(kb / 1024.0)
}

fn quantile(sorted: &[u64], q: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let k = ((q * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len()) - 1;
    sorted[k] as f64 / 1000.0
}

type Conn = http1::SendRequest<Empty<Bytes>>;

async fn connect(addr: &str) -> Result<Conn, String> {
    let stream = TcpStream::connect(addr).await.map_err(|e| e.to_string())?;
    let _ = stream.set_nodelay(true);
    let (send, conn) = http1::handshake(TokioIo::new(stream)).await.map_err(|e| e.to_string())?;
    tokio::spawn(conn);
    Ok(send)
}

/// One request on `conn` (reconnecting when it is gone); `Err` names the
/// failure.
async fn send(conn: &mut Option<Conn>, addr: &str, key: &str, path: &str) -> Result<(), String> {
    if conn.as_ref().is_none_or(|c| c.is_closed()) {
        *conn = Some(connect(addr).await?);
    }
    let Some(c) = conn.as_mut() else { return Err("no connection".into()) };
    c.ready().await.map_err(|e| e.to_string())?;
    let req = Request::get(path)
        .header("host", addr)
        .header("authorization", format!("Bearer {key}"))
        .body(Empty::new())
        .map_err(|e| e.to_string())?;
    let res = c.send_request(req).await.map_err(|e| {
        *conn = None;
        e.to_string()
    })?;
    let status = res.status();
    let _ = res.into_body().collect().await.map_err(|e| e.to_string())?;
    if status.is_success() { Ok(()) } else { Err(status.as_u16().to_string()) }
}

/// The head of chain 1 in `/status.json`.
async fn head(addr: &str) -> Option<u64> {
    let mut conn = Some(connect(addr).await.ok()?);
    let c = conn.as_mut()?;
    let req = Request::get("/status.json").header("host", addr).body(Empty::new()).ok()?;
    let res = c.send_request(req).await.ok()?;
    let body = res.into_body().collect().await.ok()?.to_bytes();
    let v: serde_json::Value = serde_json::from_slice(&body).ok()?;
    v["chains"].as_array()?.iter().find(|c| c["chainId"] == 1)?["headBlock"].as_u64()
}

/// Prints the minute's row and adds its figures to the totals.
async fn report(
    minute_no: u64,
    minute: &Mutex<Minute>,
    a: &Args,
    all: &mut Vec<u64>,
    all_errors: &mut u64,
    rss: &mut Vec<f64>,
) {
    let m = std::mem::take(&mut *minute.lock().unwrap_or_else(std::sync::PoisonError::into_inner));
    let mut l = m.latencies_us;
    l.sort_unstable();
    let errors: u64 = m.errors.values().sum();
    let r = a.pid.and_then(rss_mib);
    if let Some(r) = r {
        rss.push(r);
    }
    println!(
        "| {minute_no} | {} | {errors}{} | {:.2} | {:.2} | {:.1} | {} | {} |",
        l.len(),
        if m.errors.is_empty() { String::new() } else { format!(" {:?}", m.errors) },
        quantile(&l, 0.5),
        quantile(&l, 0.99),
        quantile(&l, 1.0),
        r.map_or_else(|| "–".to_owned(), |r| format!("{r:.1}")),
        head(&a.addr).await.map_or_else(|| "–".to_owned(), |h| h.to_string()),
    );
    all.extend(l);
    *all_errors += errors;
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let a = match args() {
        Ok(a) => Arc::new(a),
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(2);
        }
    };
    let mix = mix();
    let total_weight: u32 = mix.iter().map(|(w, _)| w).sum();
    let paths: Arc<Vec<String>> = Arc::new(
        (0..total_weight)
            .map(|k| {
                let mut acc = 0;
                mix.iter()
                    .find(|(w, _)| {
                        acc += w;
                        k < acc
                    })
                    .map_or_else(String::new, |(_, p)| p.clone())
            })
            .collect(),
    );
    let minute = Arc::new(Mutex::new(Minute::default()));
    let (tx, rx) = mpsc::channel::<(Instant, usize)>(100_000);
    let rx = Arc::new(tokio::sync::Mutex::new(rx));
    for _ in 0..a.connections {
        let (a, rx, minute, paths) =
            (Arc::clone(&a), Arc::clone(&rx), Arc::clone(&minute), Arc::clone(&paths));
        tokio::spawn(async move {
            let mut conn = None;
            loop {
                let Some((due, k)) = rx.lock().await.recv().await else { return };
                let r = send(&mut conn, &a.addr, &a.key, &paths[k % paths.len()]).await;
                let us = due.elapsed().as_micros() as u64;
                let mut m = minute.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
                m.latencies_us.push(us);
                if let Err(e) = r {
                    *m.errors.entry(e).or_default() += 1;
                }
            }
        });
    }
    println!("| minute | requests | errors | p50 ms | p99 ms | max ms | RSS MiB | chain 1 head |");
    println!("|---:|---:|---:|---:|---:|---:|---:|---:|");
    let start = Instant::now();
    let period = Duration::from_secs_f64(1.0 / a.rate);
    let mut next_report = start + Duration::from_secs(60);
    let mut n: u64 = 0;
    let mut all: Vec<u64> = Vec::new();
    let mut all_errors: u64 = 0;
    let mut rss = Vec::new();
    let end = start + Duration::from_secs(60 * a.minutes);
    let mut minute_no = 1;
    loop {
        let due = start + period.mul_f64(n as f64);
        if due >= end {
            break;
        }
        if due >= next_report {
            // Requests still in flight land in the next minute's figures.
            report(minute_no, &minute, &a, &mut all, &mut all_errors, &mut rss).await;
            minute_no += 1;
            next_report += Duration::from_secs(60);
        }
        tokio::time::sleep_until(due.into()).await;
        if tx.try_send((Instant::now(), n as usize)).is_err() {
            eprintln!("the load generator fell 100,000 requests behind: stopping");
            break;
        }
        n += 1;
    }
    drop(tx);
    tokio::time::sleep(Duration::from_secs(2)).await;
    report(minute_no, &minute, &a, &mut all, &mut all_errors, &mut rss).await;
    all.sort_unstable();
    println!();
    println!(
        "total: {} requests at {} req/s for {} min, {all_errors} errors, p50 {:.2} ms, p99 {:.2} ms, max {:.1} ms; RSS first/last minute {} / {} MiB",
        all.len(),
        a.rate,
        a.minutes,
        quantile(&all, 0.5),
        quantile(&all, 0.99),
        quantile(&all, 1.0),
        rss.first().map_or_else(|| "–".to_owned(), |r| format!("{r:.1}")),
        rss.last().map_or_else(|| "–".to_owned(), |r| format!("{r:.1}")),
    );
}
