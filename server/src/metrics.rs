//! Request metrics in the Prometheus text format, served at `/metrics`.
//!
//! Counters are kept per (route template, method, status) so cardinality is
//! bounded by the number of routes, whatever clients send.

use std::{collections::BTreeMap, fmt::Write as _, sync::Mutex, time::Duration};

use switchyard_engine::EngineHandle;

#[derive(Debug, Default, Clone, Copy)]
struct Series {
    count: u64,
    seconds: f64,
}

/// Request counters and latency sums.
#[derive(Debug, Default)]
pub struct Metrics {
    series: Mutex<BTreeMap<(String, String, u16), Series>>,
}

impl Metrics {
    /// Records one request.
    pub fn record(&self, route: &str, method: &str, status: u16, elapsed: Duration) {
        let mut m = self.series.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let e = m.entry((route.to_owned(), method.to_owned(), status)).or_default();
        e.count += 1;
        e.seconds += elapsed.as_secs_f64();
    }

    /// Renders every metric, including the engine's feed statuses.
    pub fn render(&self, engine: &EngineHandle) -> String {
        let mut out = String::with_capacity(4096);
        out.push_str(
            "# HELP switchyard_http_requests_total HTTP requests by route, method and status.\n",
        );
        out.push_str("# TYPE switchyard_http_requests_total counter\n");
        let snapshot: Vec<_> = {
            let m = self.series.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            m.iter().map(|(k, v)| (k.clone(), *v)).collect()
        };
        for ((route, method, status), s) in &snapshot {
            let _ = writeln!(
                out,
                "switchyard_http_requests_total{{route=\"{route}\",method=\"{method}\",status=\"{status}\"}} {}",
                s.count
            );
        }
        out.push_str(
            "# HELP switchyard_http_request_duration_seconds_sum Time spent answering, by route.\n",
        );
        out.push_str("# TYPE switchyard_http_request_duration_seconds_sum counter\n");
        for ((route, method, status), s) in &snapshot {
            let _ = writeln!(
                out,
                "switchyard_http_request_duration_seconds_sum{{route=\"{route}\",method=\"{method}\",status=\"{status}\"}} {:.6}",
                s.seconds
            );
        }
        out.push_str("# HELP switchyard_feed_up Feed status: 1 when ready, 0 otherwise.\n");
        out.push_str("# TYPE switchyard_feed_up gauge\n");
        let feeds = engine.feeds();
        for f in &feeds {
            let _ = writeln!(
                out,
                "switchyard_feed_up{{chain=\"{}\",source=\"{}\",status=\"{}\"}} {}",
                f.chain,
                f.source,
                f.state.as_str(),
                u8::from(f.state == switchyard_engine::FeedState::Ready)
            );
        }
        let mut gauge =
            |name: &str, help: &str, value: fn(&switchyard_engine::FeedStatus) -> u64| {
                let _ = writeln!(out, "# HELP {name} {help}\n# TYPE {name} gauge");
                for f in &feeds {
                    let _ = writeln!(
                        out,
                        "{name}{{chain=\"{}\",source=\"{}\"}} {}",
                        f.chain,
                        f.source,
                        value(f)
                    );
                }
            };
        gauge("switchyard_feed_head_block", "Head block of the published market state.", |f| {
            f.head_block
        });
        gauge(
            "switchyard_feed_lag_blocks",
            "Blocks the published state is behind the chain.",
            |f| f.lag_blocks,
        );
        let state = engine.state();
        out.push_str("# HELP switchyard_priced_tokens Tokens with a derived USD price.\n");
        out.push_str("# TYPE switchyard_priced_tokens gauge\n");
        let _ = writeln!(out, "switchyard_priced_tokens {}", state.prices.len());
        out.push_str("# HELP switchyard_pools Pools in the published market state.\n");
        out.push_str("# TYPE switchyard_pools gauge\n");
        let _ = writeln!(out, "switchyard_pools {}", state.snapshot.pools().len());
        out
    }
}
