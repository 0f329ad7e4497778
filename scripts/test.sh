#!/usr/bin/env bash
# The whole test suite: unit, integration, differential tests against real
# bytecode, transactions executed in the EVM, HTTP scenarios, properties,
# tidy checks, the CLI, and the official TypeScript client against a live
# server (that test runs `npm ci` in tests/sdk itself). scripts/setup.sh
# installs the Uniswap bytecode the EVM tests run first.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
exec cargo test --workspace --locked "$@"
