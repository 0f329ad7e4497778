# Sourced by the benchmark scripts (quote-mix.sh, ready-rss.sh): serves the
# generated market in "$dir" with "$bin" on "$port" in a fresh data
# directory, in the background. Sets `data` and `pid`, stops the server and
# removes the directory on exit. `before_serve` (if defined) runs first,
# with `data` set (quote-mix.sh creates its key there).
data=$(mktemp -d)
if declare -F before_serve > /dev/null; then before_serve; fi
printf '%s\n' "bind = \"127.0.0.1:$port\"" "data_dir = \"$data\"" \
  "market = \"$dir/synthetic-market.json\"" "catalog_files = [\"$dir/synthetic-tokens.json\"]" \
  'log_filter = "warn"' > "$data/config.toml"
# Every build reads the repo's npm artifacts (a build from another checkout
# would look for them under its own).
SWITCHYARD_NODE_MODULES=${SWITCHYARD_NODE_MODULES:-$PWD/contracts/node_modules} \
  "$bin" serve --config "$data/config.toml" > "$data/server.log" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null; rm -rf "$data"' EXIT
