#!/usr/bin/env python3
"""Writes catalog/data/blocks.json: the recorded block stream the embedded
feed replays over the demo market (market.json), so a fresh `serve` shows a
market that moves block by block, the same way on every run.

Each block lists the trades that landed in it: a pool, the token sold and
the exact amount. Amounts are 0.05%–0.3% of the pool's depth on that side
at the snapshot (V3: its virtual reserves), in random directions, so prices
wander without running away. The service applies them with its exact pool
math, so every later state is what the real contracts would hold.

    python3 catalog/data/tools/make_blocks.py > catalog/data/blocks.json
"""
import json
import random
import sys
from pathlib import Path

BLOCKS = 240
SEED = 20261124

market = json.loads((Path(__file__).resolve().parent.parent / "market.json").read_text())
rng = random.Random(SEED)


def sides(p):
    """(token, depth) per tradable token of a pool, or None."""
    k = p["kind"]
    if k == "uniswapV2":
        return [(p["token0"], int(p["reserve0"])), (p["token1"], int(p["reserve1"]))]
    if k == "uniswapV3":
        liq, sp = int(p["liquidity"]), int(p["sqrtPriceX96"])
        if liq == 0 or sp == 0:
            return None
        return [(p["token0"], liq * 2**96 // sp), (p["token1"], liq * sp // 2**96)]
    if k == "stableswap":
        return list(zip(p["coins"], map(int, p["balances"])))
    if k == "weighted":
        return list(zip(p["tokens"], map(int, p["balances"])))
    return None


pools = [(p, s) for p in market["pools"] if (s := sides(p)) and all(d > 10**6 for _, d in s)]
blocks = []
for _ in range(BLOCKS):
    trades = []
    for p, s in rng.sample(pools, rng.randint(1, 3)):
        i = rng.randrange(len(s))
        j = rng.choice([k for k in range(len(s)) if k != i])
        token_in, depth = s[i]
        trades.append({
            "chainId": p["chainId"],
            "pool": p["address"],
            "tokenIn": token_in,
            "tokenOut": s[j][0],
            "amountIn": str(int(depth * rng.uniform(0.0005, 0.003))),
        })
    blocks.append(trades)

json.dump({
    "description": f"Recorded trades over the demo market, one list per block "
                   f"(make_blocks.py, seed {SEED}).",
    "blocks": blocks,
}, sys.stdout, separators=(",", ":"))
sys.stdout.write("\n")
