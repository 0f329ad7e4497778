//! `/metrics` of the real binary (issue 16, item 3): Prometheus histograms
//! per route template, search, simulation and publication times, feed lag
//! in blocks and seconds, pools and tokens per chain, rate-limit rejections
//! and open connections; and labels that stay bounded whatever paths and
//! methods clients send.

mod common;

use std::{io::Write as _, net::TcpStream};

use common::{create_key, free_port, request, temp_dir, wait_for};

const QUOTE: &str = "/api/v1/shortcuts/quote?chainId=1&fromAddress=0xd8da6bf26964af9d7eed9e03e53415d37aa96045&tokenIn=0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48&amountIn=5000000000&tokenOut=0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2";

/// The value of the series `name{labels}` (exactly), if rendered.
fn value(metrics: &str, series: &str) -> Option<f64> {
    metrics.lines().find_map(|l| l.strip_prefix(series)?.strip_prefix(' ')?.trim().parse().ok())
}

#[test]
fn metrics_are_prometheus_histograms_with_bounded_labels() {
    let dir = temp_dir("metrics");
    let fast = create_key(&dir, "100000");
    let slow = create_key(&dir, "1");
    let addr = format!("127.0.0.1:{}", free_port());
    // The embedded feed replays a block every 200 ms: publications.
    let _server = common::serve_ready(&addr, &dir, &[("SWITCHYARD_EMBEDDED_BLOCK_MS", "200")]);

    // Quotes and routes (searched and executed), a refused rate, unknown
    // paths with made-up methods.
    for _ in 0..3 {
        assert_eq!(request(&addr, "GET", QUOTE, &fast, "").map(|a| a.status), Some(200));
    }
    let route = QUOTE.replace("/quote?", "/route?");
    assert_eq!(request(&addr, "GET", &route, &fast, "").map(|a| a.status), Some(200));
    let statuses: Vec<u16> = (0..4)
        .filter_map(|_| request(&addr, "GET", "/api/v1/networks", &slow, "").map(|a| a.status))
        .collect();
    assert!(statuses.contains(&429), "the 1/s key was never refused: {statuses:?}");
    for k in 0..50 {
        let _ = request(&addr, &format!("X{k}FOO"), &format!("/random/{k}/path"), "", "");
        let _ = request(&addr, "GET", &format!("/api/v1/nothing-{k}"), &fast, "");
    }
    wait_for("a published block", 30, || {
        request(&addr, "GET", "/metrics", "", "").is_some_and(|a| {
            a.body.contains("switchyard_publication_seconds_count{stage=\"proven\"}")
        })
    });
    // Three connections held open while /metrics is read.
    let held: Vec<TcpStream> = (0..3)
        .map(|_| {
            let mut s = TcpStream::connect(&addr).expect("connect");
            s.write_all(b"GET /health HTTP/1.1\r\n").expect("partial headers");
            s
        })
        .collect();
    let mut m = String::new();
    wait_for("the held connections counted", 10, || {
        m = request(&addr, "GET", "/metrics", "", "").map(|a| a.body).unwrap_or_default();
        value(&m, "switchyard_open_connections").is_some_and(|n| n >= 4.0)
    });
    drop(held);

    // Request latency: a histogram per route template and method.
    let quote = "route=\"/api/v1/shortcuts/quote\",method=\"GET\"";
    assert_eq!(
        value(&m, &format!("switchyard_http_request_duration_seconds_count{{{quote}}}")),
        Some(3.0),
        "{m}"
    );
    assert!(m.contains("# TYPE switchyard_http_request_duration_seconds histogram"), "{m}");
    assert!(
        value(
            &m,
            &format!("switchyard_http_request_duration_seconds_bucket{{{quote},le=\"+Inf\"}}")
        ) == Some(3.0)
    );
    assert_eq!(
        value(
            &m,
            "switchyard_http_requests_total{route=\"/api/v1/shortcuts/quote\",method=\"GET\",status=\"200\"}"
        ),
        Some(3.0)
    );
    // Search and simulation times: the three quotes searched, the route
    // searched and executed.
    assert_eq!(value(&m, "switchyard_search_seconds_count{use=\"quote\"}"), Some(4.0), "{m}");
    assert!(value(&m, "switchyard_simulation_seconds_count").is_some_and(|n| n >= 1.0), "{m}");
    assert!(m.contains("# TYPE switchyard_simulation_seconds histogram"));
    // Publication: the embedded feed's first block reached quotes and was
    // proven.
    assert!(m.contains("switchyard_publication_seconds_bucket{stage=\"quotes\""), "{m}");
    assert!(m.contains("switchyard_publication_seconds_bucket{stage=\"proven\""), "{m}");
    // Feed lag in blocks and seconds, pools and tokens, per chain.
    assert_eq!(value(&m, "switchyard_feed_lag_blocks{chain=\"1\",source=\"demo\"}"), Some(0.0));
    assert_eq!(value(&m, "switchyard_feed_lag_seconds{chain=\"1\",source=\"demo\"}"), Some(0.0));
    assert!(value(&m, "switchyard_pools{chain=\"1\"}").is_some_and(|n| n >= 10.0), "{m}");
    assert!(value(&m, "switchyard_tokens{chain=\"1\"}").is_some_and(|n| n >= 10.0), "{m}");
    // Rate-limit rejections and open connections.
    let refused = statuses.iter().filter(|s| **s == 429).count() as f64;
    assert_eq!(value(&m, "switchyard_rate_limited_total"), Some(refused), "{m}");
    let open = value(&m, "switchyard_open_connections").unwrap_or_default();
    assert!(open >= 4.0, "3 held and the one reading /metrics: {open}");

    // Bounded labels: 50 made-up paths and methods are one series each.
    assert!(!m.contains("/random/") && !m.contains("nothing-") && !m.contains("FOO"), "{m}");
    assert_eq!(
        value(
            &m,
            "switchyard_http_request_duration_seconds_count{route=\"unmatched\",method=\"OTHER\"}"
        ),
        Some(50.0),
        "{m}"
    );
    let series = m.lines().filter(|l| l.starts_with("switchyard_http_requests_total{")).count();
    assert!(series <= 12, "{series} request series for 6 kinds of request:\n{m}");
}
