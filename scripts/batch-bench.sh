#!/usr/bin/env bash
# The batch figure for BENCHMARKS.md: 100 quotes as one
# POST /shortcuts/quote/batch against the same 100 as single GET
# /shortcuts/quote requests over kept-alive connections, on a release server
# serving the embedded market (benches/examples/batch_vs_single.rs; rounds
# alternate the two, medians and their ratio printed).
#
#   scripts/batch-bench.sh                 # 1 connection, then 4
#   ROUNDS=50 scripts/batch-bench.sh
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${ROUNDS:-30}
PORT=${PORT:-18096}
scripts/setup.sh
cargo build --release --locked -p switchyard-server
cargo build --release --locked -p switchyard-benches --example batch_vs_single
. scripts/lib.sh
start_server target/release/switchyard "$PORT" 1000000000
for c in 1 4; do
  target/release/examples/batch_vs_single --addr "127.0.0.1:$PORT" --key "$KEY" \
    --rounds "$ROUNDS" --connections "$c"
done
