#!/usr/bin/env bash
# The soak run for BENCHMARKS.md: a release server on its embedded market,
# with the embedded feed moving (its 240 recorded blocks spread over the
# run), under a fixed request rate for N minutes over a mix of endpoints
# (quotes, routes built and executed, prices, tokens, networks, approvals,
# standards). Prints, per minute: requests, errors, p50/p99/max latency
# (from each request's scheduled time), the server's RSS and the head of
# chain 1; then the totals. The load is benches/examples/soak.rs.
#
#   scripts/soak.sh                       # 400 req/s for 10 minutes
#   RATE=200 MINUTES=2 scripts/soak.sh
set -euo pipefail
cd "$(dirname "$0")/.."
RATE=${RATE:-400}
MINUTES=${MINUTES:-10}
PORT=${PORT:-18097}
CONNECTIONS=${CONNECTIONS:-32}
# One recorded block per MINUTES*60/240 seconds: the feed moves all along.
export SWITCHYARD_EMBEDDED_BLOCK_MS=${BLOCK_MS:-$((MINUTES * 60000 / 240))}

scripts/setup.sh
cargo build --release --locked -p switchyard-server
cargo build --release --locked -p switchyard-benches --example soak
. scripts/lib.sh
start_server target/release/switchyard "$PORT" 1000000000
echo "soak: $RATE req/s for $MINUTES min on 127.0.0.1:$PORT, a block every $SWITCHYARD_EMBEDDED_BLOCK_MS ms, server pid $SERVER_PID"
target/release/examples/soak --addr "127.0.0.1:$PORT" --key "$KEY" --rate "$RATE" \
  --minutes "$MINUTES" --pid "$SERVER_PID" --connections "$CONNECTIONS"
echo "server log lines at warn or above: $(grep -c . "$SERVER_DIR/server.log" || true)"
