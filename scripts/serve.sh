#!/usr/bin/env bash
# Runs the service on its embedded default data (the README's first
# command): installs what it needs (scripts/setup.sh), then
# `cargo run --release -p switchyard-server -- serve` with any extra flags.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
exec cargo run --release --locked -p switchyard-server -- serve "$@"
