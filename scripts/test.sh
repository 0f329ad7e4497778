#!/usr/bin/env bash
# The whole test suite: unit, integration, HTTP scenarios, properties, tidy
# checks, the CLI, and the official TypeScript client against a live server
# (that test runs `npm ci` in tests/sdk itself).
set -euo pipefail
cd "$(dirname "$0")/.."
exec cargo test --workspace --locked "$@"
