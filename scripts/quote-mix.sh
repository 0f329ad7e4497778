#!/usr/bin/env bash
# Quote latency over HTTP on a generated market, one client in sequence:
# 36 quotes (USDC->WETH, WETH->DAI and four tail pairs, at $10k, $1M and
# $10M), ROUNDS rounds after two warm-up rounds, on a kept-alive
# connection (Python's http.client, so the client's own time is in the
# figures). For BENCHMARKS.md:
#
#   cargo build --release -p switchyard-server -p switchyard-benches --example make_market
#   target/release/examples/make_market 10000 7 /tmp/synth10000
#   scripts/quote-mix.sh /tmp/synth10000            # prints p50 / p90 / p99
#   ROUNDS=20 PORT=18200 scripts/quote-mix.sh /tmp/synth100000
#   BIN=/path/to/another/switchyard scripts/quote-mix.sh /tmp/synth10000   # another build, same mix
set -euo pipefail
cd "$(dirname "$0")/.."
dir=$1
port=${PORT:-18120}
bin=${BIN:-target/release/switchyard}
# shellcheck source=scripts/quote-server.sh
. scripts/quote-server.sh
python3 - "$port" "$key" "${ROUNDS:-10}" "$dir/synthetic-tokens.json" <<'PY'
import http.client, json, sys, time
port, key, rounds, tokens = int(sys.argv[1]), sys.argv[2], int(sys.argv[3]), sys.argv[4]
hubs = {"USDC": ("0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48", 6, 1.0),
        "WETH": ("0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2", 18, 3000.0),
        "DAI": ("0x6b175474e89094c44da98b954eedeac495271d0f", 18, 1.0)}
tails = json.load(open(tokens))["tokens"]
def tail(i): return (tails[i]["address"], 18, 1.0)
pairs = [(hubs["USDC"], hubs["WETH"]), (hubs["WETH"], hubs["DAI"]), (tail(7), hubs["USDC"]),
         (tail(3), hubs["WETH"]), (tail(17), tail(23)), (tail(40), tail(2))]
paths = [f"/api/v1/shortcuts/quote?chainId=1&tokenIn={a[0]}&tokenOut={b[0]}"
         f"&amountIn={int(usd / a[2] * 10 ** a[1])}"
         for (a, b) in pairs for usd in (1e4, 1e6, 1e7)]
c = http.client.HTTPConnection("127.0.0.1", port)
def run(n):
    lat, codes = [], {}
    for _ in range(n):
        for p in paths:
            t = time.perf_counter()
            c.request("GET", p, headers={"Authorization": f"Bearer {key}"})
            r = c.getresponse(); r.read()
            lat.append((time.perf_counter() - t) * 1e6)
            codes[r.status] = codes.get(r.status, 0) + 1
    return sorted(lat), codes
run(2)
lat, codes = run(rounds)
q = lambda f: lat[min(len(lat) - 1, int(len(lat) * f))]
print(f"{len(lat)} quotes, statuses {codes}: p50 {q(0.5):.0f} us, p90 {q(0.9):.0f} us, p99 {q(0.99):.0f} us")
PY
