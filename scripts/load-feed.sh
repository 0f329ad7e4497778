#!/usr/bin/env bash
# /shortcuts/route under oha while the embedded feed publishes: the feed
# still (embedded_block_ms = 0), then a block every 500 ms, alternated twice
# in one run so the two are compared under the same machine noise. Prints
# req/s, p50, p99, status codes and how many blocks chain 1 moved during
# each 10 s run (BENCHMARKS.md, "Following the chain").
#
#   scripts/load-feed.sh
set -euo pipefail
cd "$(dirname "$0")/.."
command -v oha >/dev/null || cargo install oha --locked
cargo build --release -p switchyard-server --locked
bin=target/release/switchyard
path="/api/v1/shortcuts/route?chainId=1&fromAddress=0xd8da6bf26964af9d7eed9e03e53415d37aa96045&tokenIn=0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48&amountIn=5000000000&tokenOut=0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2"
for round in 1 2; do
  for ms in 0 500; do
    dir=$(mktemp -d); port=$((18150 + round * 10 + ms / 100))
    key=$("$bin" keys create --rate 1000000000 --data-dir "$dir" | tail -n 1)
    SWITCHYARD_EMBEDDED_BLOCK_MS=$ms SWITCHYARD_LOG_FILTER=warn "$bin" serve --bind "127.0.0.1:$port" --data-dir "$dir" >"$dir/log" 2>&1 &
    pid=$!
    for _ in $(seq 100); do curl -fs "http://127.0.0.1:$port/health" >/dev/null && break; sleep 0.1; done
    h0=$(curl -s "http://127.0.0.1:$port/ready" | python3 -c 'import json,sys; print([f["headBlock"] for f in json.load(sys.stdin)["feeds"] if f["chainId"]==1][0])')
    out=$(oha -z 10s -c 16 --no-tui --output-format json -H "Authorization: Bearer $key" "http://127.0.0.1:$port$path")
    h1=$(curl -s "http://127.0.0.1:$port/ready" | python3 -c 'import json,sys; print([f["headBlock"] for f in json.load(sys.stdin)["feeds"] if f["chainId"]==1][0])')
    echo "$out" | python3 -c "
import json,sys
d=json.load(sys.stdin); s=d['summary']; p=d['latencyPercentiles']
codes=d.get('statusCodeDistribution',{})
print('round $round block_ms=$ms', 'req/s=%.0f'%s['requestsPerSec'], 'p50=%.2fms'%(p['p50']*1000), 'p99=%.2fms'%(p['p99']*1000), 'codes=',codes, 'blocks=', $h1-$h0)"
    kill $pid; wait $pid 2>/dev/null || true; rm -rf "$dir"
  done
done
