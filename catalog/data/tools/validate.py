#!/usr/bin/env python3
"""Consistency checks for catalog/data/*.json (see make_market.py)."""
import glob, json, os, re, sys
from decimal import Decimal, getcontext
from Crypto.Hash import keccak

getcontext().prec = 100
D = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
ADDR = re.compile(r"^0x[0-9a-f]{40}$")
errs = []
def err(m): errs.append(m)
def k(b):
    h = keccak.new(digest_bits=256); h.update(b); return h.digest()

docs = {}
for f in sorted(glob.glob(os.path.join(D, "*.json"))):
    try:
        docs[os.path.basename(f)] = json.load(open(f))
    except Exception as e:
        err(f"{f}: {e}")
cat = {}
for name, d in docs.items():
    if name == "market.json": continue
    for key, v in d.items():
        cat.setdefault(key, []).extend(v)
market = docs["market.json"]

def walk(o, path=""):
    if isinstance(o, dict):
        for kk, v in o.items(): walk(v, f"{path}.{kk}")
    elif isinstance(o, list):
        for i, v in enumerate(o): walk(v, f"{path}[{i}]")
    elif isinstance(o, str) and o.startswith("0x") and len(o) == 42 and not ADDR.match(o):
        err(f"bad address {path}: {o}")
for n, d in docs.items(): walk(d, n)

nets = {n["id"]: n for n in cat["networks"]}
tokens = {}
for t in cat["tokens"]:
    key = (t["chainId"], t["address"])
    if key in tokens: err(f"duplicate token {key}")
    tokens[key] = t
    if t["chainId"] not in nets: err(f"token on unknown chain {key}")
    if not isinstance(t["decimals"], int): err(f"decimals {key}")
for cid, n in nets.items():
    if (cid, "0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee") not in tokens: err(f"native missing {cid}")
    if (cid, n["wrappedNative"]) not in tokens: err(f"wrapped native missing {cid}")
def need_tok(c, a, where):
    if (c, a) not in tokens: err(f"{where}: token {a} not in tokens on chain {c}")

slugs = {p["slug"] for p in cat["protocols"]}
if len(slugs) != len(cat["protocols"]): err("duplicate protocol slug")
for p in cat["protocols"]:
    for c in p["chains"]:
        if c not in nets: err(f"protocol {p['slug']} unknown chain {c}")
def need_slug(s, where):
    if s not in slugs: err(f"{where}: unknown protocol slug {s}")

for t in cat["tokens"]:
    if t["type"] == "defi":
        need_slug(t["protocolSlug"], f"token {t['symbol']}")
        for u in t["underlyingTokens"]: need_tok(t["chainId"], u, f"defi {t['symbol']}")
actions = {a["action"] for a in cat["actions"]}
for s in cat["standards"]:
    need_slug(s["protocol"], "standard")
    for f in s["forks"]: need_slug(f, f"standard {s['protocol']} fork")
    for a in s["actions"]:
        if a["action"] not in actions: err(f"standard {s['protocol']} unknown action {a['action']}")
        ins = next(x for x in cat["actions"] if x["action"] == a["action"])["inputs"]
        for i in a["inputs"]:
            if i not in ins: err(f"standard {s['protocol']}.{a['action']} input {i} not in action")
for ag in cat["aggregators"]:
    for p in ag["protocols"]: need_slug(p, f"aggregator {ag['name']}")
for b in cat["bridges"]:
    need_slug(b["name"], "bridge")
    for c, lst in b["tokens"].items():
        if c not in b["contracts"]: err(f"bridge {b['name']} tokens on chain without contract {c}")
        for a in lst: need_tok(int(c), a, f"bridge {b['name']}")
if sorted(b["name"] for b in cat["bridges"]) != ["ccip", "cctp", "relay", "stargate"]: err("bridge set")
for lp in cat["layerzeroPools"]:
    need_tok(lp["chainId"], lp["token"], "layerzero")
    if tokens.get((lp["chainId"], lp["token"]), {}).get("decimals") != lp["decimals"]: err(f"lz decimals {lp}")
for p in cat["positions"]:
    need_slug(p["protocol"], "position")
    for u in p["underlyingTokens"]: need_tok(p["chainId"], u, f"position {p['positionId']}")
ids = [p["positionId"] for p in cat["positions"]]
if len(ids) != len(set(ids)): err("duplicate positionId")
fact = {}
for f in cat["dexFactories"]:
    need_slug(f["protocol"], "factory")
    fact[(f["chainId"], f["protocol"])] = f
for c in cat["contracts"]:
    if c["chainId"] not in nets: err(f"contract unknown chain {c}")

# market
mchains = {c["chainId"] for c in market["chains"]}
agg = {}
for ag in cat["aggregators"]:
    for c in ag["chains"]:
        for p in ag["protocols"]: agg.setdefault((c, p), []).append(ag["name"])
seen = set()
for p in market["pools"]:
    c, a = p["chainId"], p["address"]
    w = f"pool {c}:{a}"
    if (c, a, p.get("asset")) in seen: err(f"duplicate {w}")
    seen.add((c, a, p.get("asset")))
    if c not in mchains: err(f"{w}: chain has no chains entry")
    need_slug(p["protocol"], w)
    if (c, p["protocol"]) not in agg: err(f"{w}: protocol {p['protocol']} in no aggregator on chain {c}")
    kind = p["kind"]
    if kind in ("uniswapV2", "uniswapV3"):
        t0, t1 = p["token0"], p["token1"]
        need_tok(c, t0, w); need_tok(c, t1, w)
        if int(t0, 16) >= int(t1, 16): err(f"{w}: token order")
        f = fact.get((c, p["protocol"]))
        if not f or f["kind"] != kind: err(f"{w}: no factory"); continue
        if kind == "uniswapV2":
            salt = k(bytes.fromhex(t0[2:]) + bytes.fromhex(t1[2:]))
        else:
            salt = k(bytes(12) + bytes.fromhex(t0[2:]) + bytes(12) + bytes.fromhex(t1[2:]) + p["fee"].to_bytes(32, "big"))
        addr = "0x" + k(b"\xff" + bytes.fromhex(f["factory"][2:]) + salt + bytes.fromhex(f["initCodeHash"][2:]))[12:].hex()
        if addr != a: err(f"{w}: CREATE2 mismatch {addr}")
        if kind == "uniswapV3":
            ts = p["tickSpacing"]; tick = p["tick"]; sp = int(p["sqrtPriceX96"])
            price = (Decimal(sp) / (Decimal(2) ** 96)) ** 2
            if not (Decimal("1.0001") ** tick <= price < Decimal("1.0001") ** (tick + 1)): err(f"{w}: tick/sqrtPrice")
            idx = [t["index"] for t in p["ticks"]]
            if idx != sorted(idx) or len(set(idx)) != len(idx): err(f"{w}: ticks unsorted")
            if any(i % ts for i in idx): err(f"{w}: tick not multiple of spacing")
            if sum(int(t["liquidityNet"]) for t in p["ticks"]) != 0: err(f"{w}: liquidityNet sum != 0")
            if sum(int(t["liquidityNet"]) for t in p["ticks"] if t["index"] <= tick) != int(p["liquidity"]): err(f"{w}: active liquidity")
            run = 0
            for t in p["ticks"]:
                run += int(t["liquidityNet"])
                if run < 0: err(f"{w}: negative running liquidity")
    elif kind == "stableswap":
        for t in p["coins"]: need_tok(c, t, w)
        need_tok(c, p["lpToken"], w)
        if len(p["coins"]) != len(p["balances"]) or not 2 <= len(p["coins"]) <= 4: err(f"{w}: coins")
    elif kind == "weighted":
        for t in p["tokens"]: need_tok(c, t, w)
        if sum(int(x) for x in p["weights"]) != 10 ** 18: err(f"{w}: weights")
        if not p["poolId"].startswith(a) or len(p["poolId"]) != 66: err(f"{w}: poolId")
    elif kind == "erc4626":
        need_tok(c, a, w); need_tok(c, p["asset"], w)
    elif kind == "lending":
        need_tok(c, p["asset"], w); need_tok(c, p["receipt"], w)
    elif kind == "liquidStaking":
        need_tok(c, p["asset"], w); need_tok(c, p["receipt"], w)
    else:
        err(f"{w}: unknown kind")
    for kk, v in p.items():
        if kk in ("reserve0", "reserve1", "liquidity", "sqrtPriceX96", "totalAssets", "totalSupply", "availableLiquidity",
                  "exchangeRate", "totalPooledAsset", "totalShares", "lpSupply", "amp", "fee", "swapFee") and not (isinstance(v, str) and v.isdigit()):
            if not (kk == "fee" and isinstance(v, int)):
                err(f"{w}: {kk} must be a decimal string")

# price consistency of V2/V3 pools vs reference prices
PX = {"WETH": 3000, "ETH": 3000, "WETH.e": 3000, "WBTC": 95000, "WBNB": 650, "WPOL": .25, "WAVAX": 25, "WXDAI": 1, "wS": .5, "WBERA": 3}
for p in market["pools"]:
    c = p["chainId"]
    if p["kind"] == "uniswapV2":
        t0, t1 = tokens[(c, p["token0"])], tokens[(c, p["token1"])]
        v0 = int(p["reserve0"]) / 10 ** t0["decimals"] * PX.get(t0["symbol"], 1)
        v1 = int(p["reserve1"]) / 10 ** t1["decimals"] * PX.get(t1["symbol"], 1)
        if abs(v0 / v1 - 1) > 0.01: err(f"price {p['address']}")
    if p["kind"] == "uniswapV3":
        t0, t1 = tokens[(c, p["token0"])], tokens[(c, p["token1"])]
        pr = (int(p["sqrtPriceX96"]) / 2 ** 96) ** 2 * 10 ** t0["decimals"] / 10 ** t1["decimals"]
        exp = PX.get(t0["symbol"], 1) / PX.get(t1["symbol"], 1)
        if abs(pr / exp - 1) > 0.001: err(f"price {p['address']} {pr} vs {exp}")

for e in errs: print("ERROR", e)
print(f"{len(errs)} errors; files={len(docs)} " + ", ".join(f"{k}={len(v)}" for k, v in cat.items()) + f", pools={len(market['pools'])}, chains={len(market['chains'])}")
sys.exit(1 if errs else 0)
