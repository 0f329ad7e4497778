# Sourced by the quote benchmarks (quote-mix.sh, idle-quote.sh): serves the
# generated market in "$dir" with "$bin" on "$port" (serve-market.sh), with
# a key of unbounded rate in `key`, and returns once the server is ready.
before_serve() { key=$("$bin" keys create --rate 1000000000 --data-dir "$data" | tail -n 1); }
# shellcheck source=scripts/serve-market.sh
. scripts/serve-market.sh
for _ in $(seq 600); do curl -fs "http://127.0.0.1:$port/ready" > /dev/null && break; sleep 0.2; done
