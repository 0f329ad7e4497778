#!/usr/bin/env bash
# The whole test suite: unit, integration, differential tests against real
# bytecode, transactions executed in the EVM, HTTP scenarios, properties,
# tidy checks, the CLI, and the official TypeScript client against a live
# server (that test runs `npm ci` in tests/sdk itself), and two replicas
# sharing rate limits through Redis. scripts/setup.sh first installs the
# Uniswap bytecode the EVM tests run and redis-server.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh --tests
exec cargo test --workspace --locked "$@"
