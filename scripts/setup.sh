#!/usr/bin/env bash
# Installs what the service and the test suite need besides Rust, from the
# registries, into the source tree (idempotent, quick when done already):
#
#   contracts/node_modules  @uniswap/v2-core@1.0.1, @uniswap/v3-core@1.0.1,
#                           @uniswap/v2-periphery@1.1.0-beta.0 (Router02),
#                           @uniswap/v3-periphery@1.4.4 (SwapRouter) and
#                           @uniswap/swap-router-contracts@1.3.1 (SwapRouter02),
#                           @balancer-labs/v2-deployments@3.2.0 (the Vault and
#                           the 2021 weighted pools), @aave/core-v3@1.19.3 and
#                           @account-abstraction/contracts@0.7.0 (the
#                           ERC-4337 EntryPoint),
#                           @layerzerolabs/lz-evm-protocol-v2@3.0.168
#                           (LayerZero's EndpointV2) and
#                           @stargatefinance/stg-evm-v2@2.0.6 (Stargate's
#                           pools and messaging): the published bytecode
#                           the EVM world runs (not committed);
#                           @morpho-org/morpho-blue@1.0.0 and solc 0.8.19
#                           (Morpho Blue's published source, compiled as
#                           deployed into node_modules/.published by
#                           contracts/published.mjs); solc 0.8.37 and
#                           @openzeppelin/contracts@5.7.0 (to rebuild our own
#                           contracts' committed artifacts).
#
#   tests/node/node_modules with --tests only: hardhat@2.29.1, the local
#                           Ethereum node the RPC feed's integration test
#                           starts on a free loopback port (and stops).
#
#   redis-server            with --tests only: Debian's package, for the test
#                           of rate limits shared by two replicas (the test
#                           starts its own on a free loopback port; nothing is
#                           left running).
#
#   postgresql              with --tests only: Debian's package, the server
#                           the two-replica key store test starts in a
#                           temporary directory on a free port (and stops).
#
#   chromium                with --tests only: Debian's package, the headless
#                           browser tests/status_page.rs drives at /status
#                           (that test installs puppeteer-core itself, npm ci
#                           in tests/browser).
#
# Versions are pinned by contracts/package-lock.json. Needs node and npm, and
# apt-get (as root, or through sudo) when redis-server, postgresql or
# chromium is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

need() {
  [ -f "contracts/node_modules/@uniswap/v2-core/build/UniswapV2Pair.json" ] &&
    [ -f "contracts/node_modules/@uniswap/v3-core/artifacts/contracts/UniswapV3Pool.sol/UniswapV3Pool.json" ] &&
    [ -f "contracts/node_modules/@uniswap/v2-periphery/build/UniswapV2Router02.json" ] &&
    [ -f "contracts/node_modules/@uniswap/v3-periphery/artifacts/contracts/SwapRouter.sol/SwapRouter.json" ] &&
    [ -f "contracts/node_modules/@uniswap/swap-router-contracts/artifacts/contracts/SwapRouter02.sol/SwapRouter02.json" ] &&
    [ -f "contracts/node_modules/@balancer-labs/v2-deployments/dist/tasks/20210418-weighted-pool/bytecode/WeightedPool2Tokens.json" ] &&
    [ -f "contracts/node_modules/@account-abstraction/contracts/artifacts/EntryPointSimulations.json" ] &&
    [ -f "contracts/node_modules/@layerzerolabs/lz-evm-protocol-v2/artifacts/contracts/EndpointV2.sol/EndpointV2.json" ] &&
    [ -f "contracts/node_modules/@stargatefinance/stg-evm-v2/deployments/ethereum-mainnet/TokenMessaging.json" ] &&
    [ -f "contracts/node_modules/@openzeppelin/contracts/token/ERC20/extensions/ERC4626.sol" ] &&
    [ -f "contracts/node_modules/@morpho-org/morpho-blue/src/Morpho.sol" ] &&
    [ -f "contracts/node_modules/solc-0.8.19/soljson.js" ]
}

if ! need; then
  if ! command -v npm >/dev/null; then
    echo "setup: npm is needed to install the Uniswap bytecode (contracts/package.json)" >&2
    exit 1
  fi
  echo "setup: installing contracts/node_modules (npm ci)" >&2
  npm ci --prefix contracts --no-audit --no-fund --loglevel=error
fi
need
# Published sources shipped without bytecode (Morpho Blue), compiled as
# deployed: contracts/published.mjs, about 25 s.
if [ ! -f contracts/node_modules/.published/MorphoBlue.json ]; then
  echo "setup: compiling published sources (contracts/published.mjs)" >&2
  node contracts/published.mjs >&2
fi

if [ "${1:-}" = "--tests" ] && [ ! -x tests/node/node_modules/.bin/hardhat ]; then
  echo "setup: installing tests/node/node_modules (npm ci: hardhat)" >&2
  npm ci --prefix tests/node --no-audit --no-fund --loglevel=error
  [ -x tests/node/node_modules/.bin/hardhat ] || { echo "setup: hardhat could not be installed" >&2; exit 1; }
fi

# apt_install CHECK PACKAGE: installs PACKAGE unless the command CHECK
# succeeds.
apt_install() {
  local check=$1 pkg=$2
  eval "$check" >/dev/null 2>&1 && return
  echo "setup: installing $pkg (apt-get)" >&2
  if [ "$(id -u)" -eq 0 ]; then sudo=(); else sudo=(sudo); fi
  export DEBIAN_FRONTEND=noninteractive
  "${sudo[@]}" apt-get install -y -q "$pkg" >/dev/null ||
    { "${sudo[@]}" apt-get update -q >/dev/null && "${sudo[@]}" apt-get install -y -q "$pkg" >/dev/null; }
  eval "$check" >/dev/null 2>&1 || { echo "setup: $pkg could not be installed" >&2; exit 1; }
}

if [ "${1:-}" = "--tests" ]; then
  apt_install "command -v redis-server" redis-server
  # Debian keeps the server programs out of PATH.
  apt_install "compgen -G '/usr/lib/postgresql/*/bin/initdb'" postgresql
  apt_install "command -v chromium" chromium
fi
