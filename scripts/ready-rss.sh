#!/usr/bin/env bash
# Time to /ready and resident memory of the release server on a generated
# market, for BENCHMARKS.md ("A 100k-pool market file, served"):
#
#   target/release/examples/make_market 100000 7 /tmp/synth100000
#   scripts/ready-rss.sh /tmp/synth100000
#   BIN=/path/to/another/switchyard scripts/ready-rss.sh /tmp/synth100000   # another build
#
# Polls /ready every 50 ms from the start; reads VmRSS and VmHWM 10 s after.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=$1
port=${PORT:-18130}
bin=${BIN:-target/release/switchyard}
start=$(date +%s.%N)
# shellcheck source=scripts/serve-market.sh
. scripts/serve-market.sh
for _ in $(seq 2400); do curl -fs "http://127.0.0.1:$port/ready" > /dev/null && break; sleep 0.05; done
ready=$(date +%s.%N)
sleep 10
rss=$(awk '/VmRSS/ {print $2}' /proc/$pid/status)
hwm=$(awk '/VmHWM/ {print $2}' /proc/$pid/status)
printf 'ready %.2f s, RSS %d MiB, peak %d MiB\n' "$(echo "$ready - $start" | bc)" $((rss / 1024)) $((hwm / 1024))
