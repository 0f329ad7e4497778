#!/bin/bash
# What the actions built on Enso's composer and Morpho Blue cost over HTTP:
# each request kind 40 times in turn from one client (curl's time_total,
# p50 and p90), and the gas of the transaction answered, ROUNDS times.
#
#   BIN=target/release/switchyard ROUNDS=3 scripts/actions-bench.sh
#
# Serves the embedded data (its feed moving a block at a time, so a route's
# gas moves with the market) from a release build on PORT (18321).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
BIN=${BIN:-target/release/switchyard}
PORT=${PORT:-18321}
ROUNDS=${ROUNDS:-3}
export SWITCHYARD_NODE_MODULES=${SWITCHYARD_NODE_MODULES:-$PWD/contracts/node_modules}
# shellcheck source=scripts/lib.sh
. scripts/lib.sh
start_server "$BIN" "$PORT" 100000

H="Authorization: Bearer $KEY"
S="http://127.0.0.1:$PORT/api/v1"
U=0xd8da6bf26964af9d7eed9e03e53415d37aa96045
USDC=0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48
WETH=0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2
ETH=0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee
ARB_WETH=0x82af49447d8a07e3bd95bd0d56f35241523fbab1
BASE_WETH=0x4200000000000000000000000000000000000006
B="$S/shortcuts/bundle?chainId=1&fromAddress=$U&routingStrategy=router"
NT="$S/shortcuts/route/nontokenized?chainId=1&fromAddress=$U&tokenIn=$USDC&amountIn=1000000000&receiver=$U"
route_across='[{"protocol":"enso","action":"route","args":{"tokenIn":"'$USDC'","tokenOut":"'$ARB_WETH'","amountIn":"5000000000","destinationChainId":42161,"receiver":"'$U'"}}]'
callback_value='[{"protocol":"stargate","action":"bridge","args":{"tokenIn":"'$ETH'","amountIn":"1000000000000000000","primaryAddress":"0x77b2043768d28e9c9ab44e1abfc95944bce57931","destinationChainId":8453,"receiver":"'$U'","callbackValue":"10000000000000000","callback":[{"protocol":"enso","action":"balance","args":{"token":"'$ETH'"}},{"protocol":"enso","action":"route","args":{"tokenIn":"'$ETH'","tokenOut":"'$BASE_WETH'","amountIn":{"useOutputOfCallAt":0}}}]}}]'
# 1,000 USDC borrowed, sold for WETH and back, 50 USDC brought.
flash() {
  echo '[{"protocol":"'"$1"'","action":"flashloan","args":{"flashloanToken":"'$USDC'","flashloanAmount":"1000000000","tokenIn":["'$USDC'"],"amountIn":["50000000"],"tokenOut":"'$USDC'","callback":[{"protocol":"enso","action":"route","args":{"tokenIn":"'$USDC'","tokenOut":"'$WETH'","amountIn":"1000000000","slippage":"100"}},{"protocol":"enso","action":"route","args":{"tokenIn":"'$WETH'","tokenOut":"'$USDC'","amountIn":{"useOutputOfCallAt":0},"slippage":"100"}}]}}]'
}
ask() { # url [body]
  if [ $# -eq 2 ]; then
    curl -s -H "$H" -H 'content-type: application/json' -d "$2" "$1"
  else
    curl -s -H "$H" "$1"
  fi
}
run() { # name url [body]
  local name=$1
  shift
  local gas times
  gas=$(ask "$@" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d.get("gas", d))')
  times=$(for _ in $(seq 40); do
    if [ $# -eq 2 ]; then
      curl -s -o /dev/null -w "%{time_total}\n" -H "$H" -H 'content-type: application/json' -d "$2" "$1"
    else
      curl -s -o /dev/null -w "%{time_total}\n" -H "$H" "$1"
    fi
  done | sort -n | sed -n '20p;36p' | tr '\n' ' ')
  echo "| $name | $gas | $times |"
}
for r in $(seq "$ROUNDS"); do
  echo "round $r: | request | gas | p50 p90 (s) |"
  run "nontokenized, Ethereum's USDC debt" "$NT&positionOut=aave-v3:1:usdc:variable-debt"
  run "nontokenized across, Base's USDC debt" "$NT&positionOut=aave-v3:8453:usdc:variable-debt&destinationChainId=8453"
  run "nontokenized across, Base's WETH debt (swap on arrival)" "$NT&positionOut=aave-v3:8453:weth:variable-debt&destinationChainId=8453"
  run "bundle route action across, USDC to Arbitrum's WETH" "$B" "$route_across"
  run "bundle taxi, callback and callbackValue, ETH to Base's WETH" "$B" "$callback_value"
  run "bundle flash loan, aave-v3" "$B" "$(flash aave-v3)"
  run "bundle flash loan, morpho-blue" "$B" "$(flash morpho-blue)"
done
