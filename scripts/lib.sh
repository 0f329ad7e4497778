# Shared by the scripts that drive a live server (sourced, not run).
#
#   start_server BIN PORT RATE
#
# Creates a throwaway data directory and a key of RATE requests per second,
# serves on 127.0.0.1:PORT, waits for /health, and stops the server and
# removes the directory when the calling script exits. Sets KEY.
start_server() {
  local bin=$1 port=$2 rate=$3
  SERVER_DIR=$(mktemp -d)
  KEY=$("$bin" keys create --rate "$rate" --data-dir "$SERVER_DIR" | tail -n 1)
  SWITCHYARD_LOG_FILTER=warn "$bin" serve --bind "127.0.0.1:$port" --data-dir "$SERVER_DIR" \
    >"$SERVER_DIR/server.log" 2>&1 &
  SERVER_PID=$!
  trap 'kill $SERVER_PID 2>/dev/null; wait $SERVER_PID 2>/dev/null; rm -rf "$SERVER_DIR"' EXIT
  for _ in $(seq 100); do
    curl -fs "http://127.0.0.1:$port/health" >/dev/null && return 0
    sleep 0.1
  done
  echo "server on port $port did not come up; log:" >&2
  cat "$SERVER_DIR/server.log" >&2
  return 1
}
