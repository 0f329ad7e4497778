#!/usr/bin/env bash
# What the replay ring costs in memory, for BENCHMARKS.md ("Replay"): the
# release server on the embedded market, a block every 100 ms, holding
# REPLAY (default 64) blocks per chain, against the same holding none.
# Reads VmRSS once BLOCKS (default 150) blocks have been published.
#
#   scripts/replay-rss.sh                # 64 against 0
#   REPLAY=256 scripts/replay-rss.sh
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${BIN:-target/release/switchyard}
blocks=${BLOCKS:-150}
measure() {
  local held=$1 port=$2 dir
  dir=$(mktemp -d)
  SWITCHYARD_EMBEDDED_BLOCK_MS=100 SWITCHYARD_REPLAY_BLOCKS=$held \
    "$bin" serve --bind "127.0.0.1:$port" --data-dir "$dir" > /dev/null 2>&1 &
  local pid=$!
  for _ in $(seq 1200); do curl -fs "http://127.0.0.1:$port/ready" > /dev/null && break; sleep 0.05; done
  local start head
  start=$(curl -fs "http://127.0.0.1:$port/status.json" | grep -o '"headBlock":[0-9]*' | head -1 | cut -d: -f2)
  while :; do
    head=$(curl -fs "http://127.0.0.1:$port/status.json" | grep -o '"headBlock":[0-9]*' | head -1 | cut -d: -f2)
    [ $((head - start)) -ge "$blocks" ] && break
    sleep 0.2
  done
  local rss
  rss=$(awk '/VmRSS/ {print $2}' /proc/$pid/status)
  kill $pid; wait $pid 2>/dev/null || true
  rm -rf "$dir"
  printf 'replay_blocks=%s: %d blocks published, RSS %.1f MiB\n' "$held" $((head - start)) "$(echo "$rss / 1024" | bc -l)"
}
measure 0 18141
measure "${REPLAY:-64}" 18142
measure 0 18143
measure "${REPLAY:-64}" 18144
