#!/usr/bin/env bash
# The quote-stream figures for BENCHMARKS.md: a release server on the
# embedded market with a block every 500 ms, 1,000 server-sent-event
# subscribers over 100 distinct quotes (benches/examples/stream_fanout.rs),
# for RUN_SECONDS (default 30); then, on a fresh server that replays the
# same blocks, the same with one stalled consumer added. Then the same two
# with the subscribers as subscriptions over WS_CONNECTIONS (default 10)
# WebSocket connections, and last what the same number of loopback
# connections' writes cost this machine's kernel alone, with one and with
# two writer threads (benches/examples/loopback_floor.rs): the floor under
# any server's figure.
#
#   scripts/stream-bench.sh
#   SUBSCRIBERS=1000 DISTINCT=100 RUN_SECONDS=30 WS_CONNECTIONS=10 scripts/stream-bench.sh
set -euo pipefail
cd "$(dirname "$0")/.."
SUBSCRIBERS=${SUBSCRIBERS:-1000}
DISTINCT=${DISTINCT:-100}
SECONDS_PER_RUN=${RUN_SECONDS:-30}
PORT=${PORT:-18095}
# Room for a thousand connections on each side.
ulimit -n 65536 2>/dev/null || ulimit -n 8192 2>/dev/null || true
export SWITCHYARD_EMBEDDED_BLOCK_MS=500
export SWITCHYARD_STREAM_SUBSCRIPTIONS_PER_KEY=$((SUBSCRIBERS * 2 + 10))
scripts/setup.sh
cargo build --release --locked -p switchyard-server
cargo build --release --locked -p switchyard-benches --example stream_fanout --example loopback_floor
WS_CONNECTIONS=${WS_CONNECTIONS:-10}
. scripts/lib.sh
# A fresh server per run: both runs see the same recorded blocks from the
# start, so the stalled consumer is the only difference.
for ws in 0 "$WS_CONNECTIONS"; do
  for stall in 0 1; do
    start_server target/release/switchyard "$PORT" 1000000000
    target/release/examples/stream_fanout --addr "127.0.0.1:$PORT" --key "$KEY" --pid "$SERVER_PID" \
      --subscribers "$SUBSCRIBERS" --distinct "$DISTINCT" --seconds "$SECONDS_PER_RUN" --stall "$stall" \
      --ws "$ws"
    kill "$SERVER_PID"; wait "$SERVER_PID" 2>/dev/null || true; rm -rf "$SERVER_DIR"
  done
done
for writers in 1 2; do
  target/release/examples/loopback_floor --sockets "$SUBSCRIBERS" --writers "$writers" --rounds 40
done
