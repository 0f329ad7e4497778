#!/usr/bin/env bash
# One small quote (USDC -> WETH, $10k) over HTTP on a generated market,
# timed back to back, right after a large tail quote, and after the client
# idles 50 ms: what the caches left behind changes the figure several
# times over (BENCHMARKS.md, "Where the HTTP time goes"). Prints the p50s.
#
#   target/release/examples/make_market 100000 7 /tmp/synth100000
#   scripts/idle-quote.sh /tmp/synth100000
#   BIN=/path/to/another/switchyard scripts/idle-quote.sh /tmp/synth100000
set -euo pipefail
cd "$(dirname "$0")/.."
dir=$1
port=${PORT:-18121}
bin=${BIN:-target/release/switchyard}
# shellcheck source=scripts/quote-server.sh
. scripts/quote-server.sh
python3 - "$port" "$key" "$dir/synthetic-tokens.json" <<'PY'
import http.client, json, sys, time
port, key, tokens = int(sys.argv[1]), sys.argv[2], sys.argv[3]
tails = json.load(open(tokens))["tokens"]
small = ("/api/v1/shortcuts/quote?chainId=1&tokenIn=0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48"
         "&tokenOut=0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2&amountIn=10000000000")
big = (f"/api/v1/shortcuts/quote?chainId=1&tokenIn={tails[40]['address']}"
       f"&tokenOut={tails[2]['address']}&amountIn={int(1e7 * 1e18)}")
c = http.client.HTTPConnection("127.0.0.1", port)
def q(p):
    t = time.perf_counter()
    c.request("GET", p, headers={"Authorization": f"Bearer {key}"})
    r = c.getresponse(); r.read()
    return (time.perf_counter() - t) * 1e6
def med(v): v = sorted(v); return int(v[len(v) // 2])
for _ in range(5): q(small); q(big)
alone = [q(small) for _ in range(50)]
after_big = []
for _ in range(30): q(big); after_big.append(q(small))
idle = []
for _ in range(30): time.sleep(0.05); idle.append(q(small))
print(f"USDC->WETH $10k p50: back to back {med(alone)} us, after a $10M tail quote {med(after_big)} us, after 50 ms idle {med(idle)} us")
PY
