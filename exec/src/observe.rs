//! The times this crate reports through the `metrics` facade. Whoever
//! installs a recorder (the server's Prometheus one) receives them; with
//! none installed they cost an atomic load.

use std::time::Instant;

/// Histogram: seconds one route search took (the kernel's `find_routes`),
/// labelled `use` (`quote`, `bundle` or `ladder`).
pub const SEARCH_SECONDS: &str = "switchyard_search_seconds";

/// Histogram: seconds one transaction took to execute in a prepared fork
/// of the EVM world (the call and the balance reads before it).
pub const SIMULATION_SECONDS: &str = "switchyard_simulation_seconds";

/// Runs `f` and records its time in the `SEARCH_SECONDS` histogram.
pub(crate) fn timed_search<T>(use_case: &'static str, f: impl FnOnce() -> T) -> T {
    let started = Instant::now();
    let out = f();
    metrics::histogram!(SEARCH_SECONDS, "use" => use_case).record(started.elapsed().as_secs_f64());
    out
}
