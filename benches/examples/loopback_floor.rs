//! What the stream benchmark's writes cost this machine's kernel alone: no
//! HTTP, no server, no quotes. N loopback TCP connections; every round
//! (one per `--interval-ms`, as the feed's blocks) `--writers` plain threads
//! write one `--bytes` frame on each of their share of the sockets, and a
//! one-worker tokio runtime reads them, as `stream_fanout`'s client does.
//!
//! ```text
//! loopback_floor [--sockets 1000] [--writers 1|2] [--bytes 1400] \
//!   [--rounds 40] [--interval-ms 500]
//! ```
//!
//! Printed, p50 and p99 over the rounds, from the round's start: the last
//! frame written (the last `write` returned), and the last byte read by the
//! client. Issue 17's stream target is 5 ms to the last frame written for
//! 1,000 subscribers; this is the part of it no server can take away.

use std::{
    io::Write,
    net::{TcpListener, TcpStream},
    sync::{
        Arc, Barrier,
        atomic::{AtomicU64, Ordering},
    },
    time::{Duration, Instant},
};

use tokio::io::AsyncReadExt;

struct Args {
    sockets: usize,
    writers: usize,
    bytes: usize,
    rounds: usize,
    interval: Duration,
}

fn args() -> Args {
    let mut a = Args {
        sockets: 1000,
        writers: 1,
        bytes: 1400,
        rounds: 40,
        interval: Duration::from_millis(500),
    };
    let v: Vec<String> = std::env::args().skip(1).collect();
    for pair in v.chunks(2) {
        let n: u64 = pair
            .get(1)
            .and_then(|s| s.parse().ok())
            .unwrap_or_else(|| panic!("{} needs a number", pair[0]));
        match pair[0].as_str() {
            "--sockets" => a.sockets = n as usize,
            "--writers" => a.writers = (n as usize).max(1),
            "--bytes" => a.bytes = n as usize,
            "--rounds" => a.rounds = n as usize,
            "--interval-ms" => a.interval = Duration::from_millis(n),
            other => panic!("unknown option {other}"),
        }
    }
    a
}

fn quantile(sorted: &[f64], q: f64) -> f64 {
    sorted[((sorted.len() as f64 * q) as usize).min(sorted.len() - 1)]
}

#[allow(clippy::disallowed_methods, reason = "the measuring thread is not async code")]
fn main() {
    let a = args();
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let addr = listener.local_addr().expect("address");
    let received = Arc::new(AtomicU64::new(0));

    // The client: one worker, one task per connection, as stream_fanout.
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .expect("runtime");
    let mut servers = Vec::with_capacity(a.sockets);
    for _ in 0..a.sockets {
        let client = TcpStream::connect(addr).expect("connect");
        let (server, _) = listener.accept().expect("accept");
        server.set_nodelay(true).expect("nodelay");
        client.set_nonblocking(true).expect("nonblocking");
        let received = received.clone();
        rt.spawn(async move {
            let mut client = tokio::net::TcpStream::from_std(client).expect("register");
            let mut buf = vec![0u8; 16 * 1024];
            while let Ok(n) = client.read(&mut buf).await {
                if n == 0 {
                    break;
                }
                received.fetch_add(n as u64, Ordering::Relaxed);
            }
        });
        servers.push(server);
    }

    // The writers: each owns every `writers`-th socket.
    let start = Arc::new(Barrier::new(a.writers + 1));
    let done = Arc::new(Barrier::new(a.writers + 1));
    let frame = vec![b'x'; a.bytes];
    let mut shares: Vec<Vec<TcpStream>> = (0..a.writers).map(|_| Vec::new()).collect();
    for (i, s) in servers.into_iter().enumerate() {
        shares[i % a.writers].push(s);
    }
    for mut share in shares {
        let (start, done, frame) = (start.clone(), done.clone(), frame.clone());
        std::thread::spawn(move || {
            loop {
                start.wait();
                for s in &mut share {
                    s.write_all(&frame).expect("write");
                }
                done.wait();
            }
        });
    }

    let (mut written, mut read) = (Vec::new(), Vec::new());
    for _ in 0..a.rounds {
        std::thread::sleep(a.interval);
        let target = received.load(Ordering::Relaxed) + (a.sockets * a.bytes) as u64;
        let t0 = Instant::now();
        start.wait();
        done.wait();
        written.push(t0.elapsed().as_secs_f64() * 1e3);
        while received.load(Ordering::Relaxed) < target {
            std::thread::sleep(Duration::from_micros(100));
        }
        read.push(t0.elapsed().as_secs_f64() * 1e3);
    }
    written.sort_by(f64::total_cmp);
    read.sort_by(f64::total_cmp);
    println!(
        "{} sockets, {} writer thread(s), {} B frames, {} rounds: last frame written p50 {:.2} ms p99 {:.2} ms; last byte read p50 {:.2} ms p99 {:.2} ms",
        a.sockets,
        a.writers,
        a.bytes,
        a.rounds,
        quantile(&written, 0.5),
        quantile(&written, 0.99),
        quantile(&read, 0.5),
        quantile(&read, 0.99),
    );
    std::process::exit(0);
}
