#!/usr/bin/env bash
# HTTP load figures for BENCHMARKS.md: oha against a release build on
# loopback, several endpoints interleaved over ROUNDS rounds in one run, so
# the ratios between them are taken under the same machine noise.
#
#   scripts/load.sh                 # metadata endpoints, defaults below
#   SET=route scripts/load.sh       # /shortcuts/route next to /shortcuts/quote
#   ROUNDS=5 DURATION=5s CONC=32 scripts/load.sh
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${ROUNDS:-3}
DURATION=${DURATION:-5s}
CONC=${CONC:-32}
PORT=${PORT:-18099}

command -v oha >/dev/null || cargo install oha --locked
cargo build --release -p switchyard-server --locked
. scripts/lib.sh
start_server target/release/switchyard "$PORT" 1000000000

case "${SET:-metadata}" in
  metadata)
    endpoints=(
      "/health"
      "/api/v1/networks"
      "/api/v1/tokens?chainId=1&pageSize=1000"
      "/api/v1/tokens"
      "/api/v1/tokens?type=defi&includeMetadata=true"
    )
    ;;
  route)
    # The same trades quoted, then built and executed in the EVM world.
    from="fromAddress=0xd8da6bf26964af9d7eed9e03e53415d37aa96045"
    one="chainId=1&$from&tokenIn=0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48&amountIn=5000000000&tokenOut=0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2"
    split="chainId=1&$from&tokenIn=0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2&amountIn=300000000000000000000&tokenOut=0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48"
    endpoints=(
      "/health"
      "/api/v1/shortcuts/quote?$one"
      "/api/v1/shortcuts/route?$one"
      "/api/v1/shortcuts/quote?$split"
      "/api/v1/shortcuts/route?$split"
    )
    ;;
  *) echo "SET is metadata or route" >&2; exit 2 ;;
esac
out=$(mktemp -d)
for r in $(seq "$ROUNDS"); do
  for i in "${!endpoints[@]}"; do
    oha -z "$DURATION" -c "$CONC" --no-tui --output-format json \
      -H "Authorization: Bearer $KEY" "http://127.0.0.1:$PORT${endpoints[$i]}" > "$out/$i.$r.json"
  done
done
python3 - "$out" "$ROUNDS" "${endpoints[@]}" <<'PY'
import json, statistics, sys
out, rounds, endpoints = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
rows = []
for i, ep in enumerate(endpoints):
    rps, p50, p99, ok = [], [], [], []
    for r in range(1, rounds + 1):
        d = json.load(open(f"{out}/{i}.{r}.json"))
        s = d["summary"]
        rps.append(s["requestsPerSec"])
        p50.append(d["latencyPercentiles"]["p50"] * 1e6)
        p99.append(d["latencyPercentiles"]["p99"] * 1e6)
        ok.append(s["successRate"])
    rows.append((ep, statistics.median(rps), statistics.median(p50), statistics.median(p99), min(ok)))
base = rows[0][1]
print(f"| endpoint | req/s (median of {rounds}) | vs /health | p50 µs | p99 µs | success |")
print("|---|---:|---:|---:|---:|---:|")
for ep, rps, p50, p99, ok in rows:
    short = ep if len(ep) < 60 else ep.split("?")[0] + "?…" + ("split" if "300000000000000000000" in ep else "one hop")
    print(f"| `{short}` | {rps:,.0f} | {rps / base:.2f} | {p50:,.0f} | {p99:,.0f} | {ok:.0%} |")
PY
rm -rf "$out"
