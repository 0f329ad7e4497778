//! Criterion benchmarks live in `benches/benches/*.rs`; this library is empty.
