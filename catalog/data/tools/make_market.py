#!/usr/bin/env python3
"""Generate Switchyard's embedded default catalog (catalog/data/*.json).

Every address in this file is a real on-chain address (Ethereum mainnet and
the other listed EVM chains).  V2/V3 pool addresses are not typed in: they are
*computed* here with CREATE2 from the factory and init-code hash listed in
DEX_FACTORIES, exactly as the Rust test suite recomputes them.

The market snapshot (reserves, ticks, rates, block numbers, gas prices) is a
DEMO: plausible, price-consistent values, not a recording of the chain.
Reference prices used for every pool:

    ETH 3000 USD, BTC 95000, BNB 650, POL 0.25, AVAX 25, xDAI 1, S 0.5,
    BERA 3, stablecoins 1, stETH 0.999 ETH (market), wstETH = 1.2 stETH,
    sDAI = 1.15 DAI.

Requires pycryptodome (pip install pycryptodome).  Run from anywhere:

    python3 catalog/data/tools/make_market.py
"""
import json
import math
import os
from decimal import Decimal, getcontext

from Crypto.Hash import keccak

getcontext().prec = 120
OUT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
NATIVE = "0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee"


# --------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------
def k256(b: bytes) -> bytes:
    h = keccak.new(digest_bits=256)
    h.update(b)
    return h.digest()


def checksum(addr: str) -> str:
    a = addr.lower()[2:]
    h = k256(a.encode()).hex()
    return "0x" + "".join(c.upper() if int(h[i], 16) >= 8 else c for i, c in enumerate(a))


def sort2(a, b):
    a, b = a.lower(), b.lower()
    return (a, b) if int(a, 16) < int(b, 16) else (b, a)


def create2_v2(factory, a, b, init_hash):
    t0, t1 = sort2(a, b)
    salt = k256(bytes.fromhex(t0[2:]) + bytes.fromhex(t1[2:]))
    return "0x" + k256(b"\xff" + bytes.fromhex(factory[2:]) + salt + bytes.fromhex(init_hash[2:]))[12:].hex()


def create2_v3(factory, a, b, fee, init_hash):
    t0, t1 = sort2(a, b)
    salt = k256(bytes(12) + bytes.fromhex(t0[2:]) + bytes(12) + bytes.fromhex(t1[2:]) + fee.to_bytes(32, "big"))
    return "0x" + k256(b"\xff" + bytes.fromhex(factory[2:]) + salt + bytes.fromhex(init_hash[2:]))[12:].hex()


def raw(amount, decimals) -> str:
    """human amount -> integer string in smallest units"""
    return str(int(Decimal(str(amount)) * (Decimal(10) ** decimals)))


# --------------------------------------------------------------------------
# prices (USD)
# --------------------------------------------------------------------------
PX = {"ETH": 3000, "BTC": 95000, "BNB": 650, "POL": 0.25, "AVAX": 25, "XDAI": 1,
      "S": 0.5, "BERA": 3, "USD": 1}

# --------------------------------------------------------------------------
# networks
# --------------------------------------------------------------------------
TW = {1: "ethereum", 10: "optimism", 56: "smartchain", 100: "xdai", 130: "unichain",
      137: "polygon", 146: "sonic", 8453: "base", 42161: "arbitrum", 43114: "avalanchec",
      59144: "linea", 80094: "berachain"}

NETWORKS = [
    # id, name, native symbol, native name, wrapped native, block time (s)
    (1, "Ethereum", "ETH", "Ether", "0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2", 12),
    (10, "Optimism", "ETH", "Ether", "0x4200000000000000000000000000000000000006", 2),
    (56, "BNB Chain", "BNB", "BNB", "0xbb4cdb9cbd36b01bd1cbaebf2de08d9173bc095c", 3),
    (100, "Gnosis", "XDAI", "xDAI", "0xe91d153e0b41518a2ce8dd3d7944fa863463a97d", 5),
    (130, "Unichain", "ETH", "Ether", "0x4200000000000000000000000000000000000006", 1),
    (137, "Polygon", "POL", "POL", "0x0d500b1d8e8ef31e21c99d1db9a6444d3adf1270", 2),
    (146, "Sonic", "S", "Sonic", "0x039e2fb66102314ce7b64ce5ce3e5183bc94ad38", 1),
    (8453, "Base", "ETH", "Ether", "0x4200000000000000000000000000000000000006", 2),
    (42161, "Arbitrum", "ETH", "Ether", "0x82af49447d8a07e3bd95bd0d56f35241523fbab1", 1),
    (43114, "Avalanche", "AVAX", "Avalanche", "0xb31f66aa3c1e785363f0875a1b74e27b85fd66c7", 2),
    (59144, "Linea", "ETH", "Ether", "0xe5d7c2a44ffddf6b295a15c148167daaaf5cf34f", 2),
    (80094, "Berachain", "BERA", "Bera", "0x6969696969696969696969696969696969696969", 2),
]
WRAPPED = {n[0]: n[4] for n in NETWORKS}
WRAPPED_META = {  # symbol, name of the wrapped native
    1: ("WETH", "Wrapped Ether"), 10: ("WETH", "Wrapped Ether"), 56: ("WBNB", "Wrapped BNB"),
    100: ("WXDAI", "Wrapped XDAI"), 130: ("WETH", "Wrapped Ether"), 137: ("WPOL", "Wrapped Polygon Ecosystem Token"),
    146: ("wS", "Wrapped Sonic"), 8453: ("WETH", "Wrapped Ether"), 42161: ("WETH", "Wrapped Ether"),
    43114: ("WAVAX", "Wrapped AVAX"), 59144: ("WETH", "Wrapped Ether"), 80094: ("WBERA", "Wrapped Bera"),
}

# --------------------------------------------------------------------------
# base tokens: chain -> list of (symbol, name, address, decimals)
# --------------------------------------------------------------------------
BASE = {
    1: [("USDC", "USD Coin", "0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48", 6),
        ("USDT", "Tether USD", "0xdac17f958d2ee523a2206206994597c13d831ec7", 6),
        ("DAI", "Dai Stablecoin", "0x6b175474e89094c44da98b954eedeac495271d0f", 18),
        ("WBTC", "Wrapped BTC", "0x2260fac5e5542a773aa44fbcfedf7c193bc2c599", 8),
        ("USDS", "USDS Stablecoin", "0xdc035d45d973e3ec169d2276ddab16f1e407384f", 18),
        ("BAL", "Balancer", "0xba100000625a3754423978a60c9317c58a424e3d", 18)],
    10: [("USDC", "USD Coin", "0x0b2c639c533813f4aa9d7837caf62653d097ff85", 6),
         ("USDT", "Tether USD", "0x94b008aa00579c1307b0ef2c499ad98a8ce58e58", 6),
         ("DAI", "Dai Stablecoin", "0xda10009cbd5d07dd0cecc66161fc93d7c9000da1", 18),
         ("WBTC", "Wrapped BTC", "0x68f180fcce6836688e9084f035309e29bf0a2095", 8)],
    56: [("USDC", "Binance-Peg USD Coin", "0x8ac76a51cc950d9822d68b83fe1ad97b32cd580d", 18),
         ("USDT", "Binance-Peg BSC-USD", "0x55d398326f99059ff775485246999027b3197955", 18),
         ("DAI", "Binance-Peg Dai Token", "0x1af3f329e8be154074d8769d1ffa4ee058b1dbc3", 18),
         ("ETH", "Binance-Peg Ethereum Token", "0x2170ed0880ac9a755fd29b2688956bd959f933f8", 18)],
    100: [("USDC", "USD Coin on xDai", "0xddafbb505ad214d7b80b1f830fccc89b60fb7a83", 6),
          ("USDT", "Tether on xDai", "0x4ecaba5870353805a9f068101a40e0f32ed605c6", 6),
          ("WETH", "Wrapped Ether on xDai", "0x6a023ccd1ff6f2045c3309768ead9e68f978f6e1", 18),
          ("WBTC", "Wrapped BTC on xDai", "0x8e5bbbb09ed1ebde8674cda39a0c169401db4252", 8)],
    130: [("USDC", "USD Coin", "0x078d782b760474a361dda0af3839290b0ef57ad6", 6)],
    137: [("USDC", "USD Coin", "0x3c499c542cef5e3811e1192ce70d8cc03d5c3359", 6),
          ("USDT", "Tether USD (PoS)", "0xc2132d05d31c914a87c6611c10748aeb04b58e8f", 6),
          ("DAI", "Dai Stablecoin (PoS)", "0x8f3cf7ad23cd3cadbd9735aff958023239c6a063", 18),
          ("WETH", "Wrapped Ether (PoS)", "0x7ceb23fd6bc0add59e62ac25578270cff1b9f619", 18),
          ("WBTC", "Wrapped BTC (PoS)", "0x1bfd67037b42cf73acf2047067bd4f2c47d9bfd6", 8)],
    146: [("USDC", "USD Coin", "0x29219dd400f2bf60e5a23d13be72b486d4038894", 6),
          ("WETH", "Wrapped Ether", "0x50c42deacd8fc9773493ed674b675be577f2634b", 18)],
    8453: [("USDC", "USD Coin", "0x833589fcd6edb6e08f4c7c32d4f71b54bda02913", 6),
           ("DAI", "Dai Stablecoin", "0x50c5725949a6f0c72e6c4a641f24049a917db0cb", 18)],
    42161: [("USDC", "USD Coin", "0xaf88d065e77c8cc2239327c5edb3a432268e5831", 6),
            ("USDT", "Tether USD", "0xfd086bc7cd5c481dcc9c85ebe478a1c0b69fcbb9", 6),
            ("DAI", "Dai Stablecoin", "0xda10009cbd5d07dd0cecc66161fc93d7c9000da1", 18),
            ("WBTC", "Wrapped BTC", "0x2f2a2543b76a4166549f7aab2e75bef0aefc5b0f", 8)],
    43114: [("USDC", "USD Coin", "0xb97ef9ef8734c71904d8002f8b6bc66dd9c48a6e", 6),
            ("USDT", "TetherToken", "0x9702230a8ea53601f5cd2dc00fdbc13d4df4a8c7", 6),
            ("DAI.e", "Dai Stablecoin", "0xd586e7f844cea2f87f50152665bcbc2c279d8d70", 18),
            ("WETH.e", "Wrapped Ether", "0x49d5c2bdffac6ce2bfdb6640f4f80f226bc10bab", 18),
            ("WBTC.e", "Wrapped BTC", "0x50b7545627a5162f82a992c33b87adc75187b52b", 8)],
    59144: [("USDC", "USD Coin", "0x176211869ca2b568f2a7d4ee941e073a821ee1ff", 6),
            ("USDT", "Tether USD", "0xa219439258ca9da29e9cc4ce5596924745e12b93", 6),
            ("DAI", "Dai Stablecoin", "0x4af15ec2a0bd43db75dd04e62faa3b8ef36b00d5", 18),
            ("WBTC", "Wrapped BTC", "0x3aab2285ddcddad8edf438c1bab47e1a9d05a9b4", 8)],
    80094: [("HONEY", "Honey", "0xfcbd14dc51f0a4d49d5e53c2e0950e0bc26d0dce", 18),
            ("USDC.e", "Bridged USDC (Stargate)", "0x549943e04f40284185054145c6e4e9568c1d3241", 6),
            ("WETH", "Wrapped Ether", "0x2f6f07cdcf3588944bf4c42ac74ff24bf56e7590", 18)],
}


def tok(chain, sym):
    """address of a base token by symbol (or the wrapped native by its symbol)"""
    if WRAPPED_META[chain][0] == sym:
        return WRAPPED[chain]
    for s, _n, a, _d in BASE[chain]:
        if s == sym:
            return a
    raise KeyError((chain, sym))


DECIMALS = {}
for c, lst in BASE.items():
    for s, n, a, d in lst:
        DECIMALS[(c, a)] = d
for c, w in WRAPPED.items():
    DECIMALS[(c, w)] = 18
    DECIMALS[(c, NATIVE)] = 18


def logo(chain, addr):
    if addr == NATIVE:
        return f"https://raw.githubusercontent.com/trustwallet/assets/master/blockchains/{TW[chain]}/info/logo.png"
    return f"https://raw.githubusercontent.com/trustwallet/assets/master/blockchains/{TW[chain]}/assets/{checksum(addr)}/logo.png"


# --------------------------------------------------------------------------
# well-known protocol contracts (all real)
# --------------------------------------------------------------------------
E = {  # Ethereum
    "aavePool": "0x87870bca3f3fd6335c3f4ce8392d69350b4fa4e2",
    "aEthUSDC": "0x98c23e9d8f34fefb1b7bd6a91b7ff122f4e16f5c",
    "aEthWETH": "0x4d5f47fa6a74757f35c14fd3a6ef8e3c9bc514e8",
    "aEthUSDT": "0x23878914efe38d27c4d67ab83ed1b93a74d4086a",
    "vdEthUSDC": "0x72e95b8931767c79ba4eee721354d6e99a61d004",
    "vdEthWETH": "0xea51d7853eefb32b6ee06b1c12e6dcca88be0ffe",
    "cUSDC": "0x39aa39c021dfbae8fac545936693ac917d5e7563",
    "cDAI": "0x5d3a536e4d6dbd6114cc1ead35777bab948e3643",
    "cUSDCv3": "0xc3d688b66703497daa19211eedff47f25384cdc3",
    "3pool": "0xbebc44782c7db0a1a60cb6fe97d0b483032ff1c7",
    "3Crv": "0x6c3f90f043a72fa612cbac8115ee7e52bde6e490",
    "3poolGauge": "0xbfcf63294ad7105dea65aa58f8ae5be2d9d0952a",
    "stethPool": "0xdc24316b9ae028f1497c275eb9192a3ea0f67022",
    "steCRV": "0x06325440d014e39736583c165c2963ba99faf14e",
    "steCRVGauge": "0x182b723a58739a9c974cfdb385ceadb237453c28",
    "stETH": "0xae7ab96520de3a18e5e111b5eaab095312d7fe84",
    "wstETH": "0x7f39c581f595b53c5cb19bd0b3f8da6c935e2ca0",
    "sDAI": "0x83f20f44975d03b1b09e64809b757c47f942beea",
    "sUSDS": "0xa3931d71877c0e7a3148cb7eb4463524fec27fbd",
    "steakUSDC": "0xbeef01735c132ada46aa9aa4c54623caa92a64cb",
    "uniV2Router": "0x7a250d5630b4cf539739df2c5dacb4c659f2488d",
    "balVault": "0xba12222222228d8ba445958a75a0704d566bf2c8",
    "bal5050WbtcWeth": "0xa6f548df93de924d73be7d25dc02554c6bd66db5",
}
B = {  # Base
    "aavePool": "0xa238dd80c259a72e81d7e4664a9801593f98d1c5",
    "aBasUSDC": "0x4e65fe4dba92790696d040ac24aa414708f5c0ab",
    "aBasWETH": "0xd4a0e0b9149bcee3c920d2e00b5de09138fd8bb7",
    "vdBasUSDC": "0x59dca05b6c26dbd64b5381374aaac5cd05644c28",
    "vdBasWETH": "0x24e6e0795b3c7c71d965fcc4f371803d1c1dca1e",
    "mwUSDC": "0xc1256ae5ff1cf2719d4937adb3bbccab2e00a2ca",
    "wstETH": "0xc1cba3fcea344f92d9239c08c0568f6f2f0ee452",
}
A = {  # Arbitrum
    "aavePool": "0x794a61358d6845594f94dc1db02a252b5b4814ad",
    "aArbUSDCn": "0x724dc807b04555b71ed48a6896b6f41593b8c637",
    "aArbWETH": "0xe50fa9b3c56ffb159cb0fca61f5c9d750e8128c8",
    "aArbUSDT": "0x6ab707aca953edaefbc4fd23ba73294241490620",
}

# --------------------------------------------------------------------------
# DEX factories (CREATE2 parameters)
# --------------------------------------------------------------------------
UNI_V3_HASH = "0xe34f199b19b2b4f47f68442619d555527d244f78a3297ea89325f843f87b8b54"
UNI_V2_HASH = "0x96e8ac4277198ff8b6f785478aa9a39f403cb768dd02cbee326c3e7da348845f"
SUSHI_V2_HASH = "0xe18a34eb0e04b04f7a0ac29a6e80748dca96319b42c54d679cb821dca90c6303"
PCS_V2_HASH = "0x00fb7f630766e6a796048ea87d01acd3068e8ff67d078148a3fa3f4a84f69bd5"
KODIAK_V3_HASH = "0xd8e2091bc519b509176fc39aeb148cc8444418d3ce260820edc44e806c2c2339"
DEX_FACTORIES = [
    (1, "uniswap-v2", "uniswapV2", "0x5c69bee701ef814a2b6a3edd4b1652cb9cc5aa6f", UNI_V2_HASH),
    (1, "uniswap-v3", "uniswapV3", "0x1f98431c8ad98523631ae4a59f267346ea31f984", UNI_V3_HASH),
    (10, "uniswap-v3", "uniswapV3", "0x1f98431c8ad98523631ae4a59f267346ea31f984", UNI_V3_HASH),
    (137, "uniswap-v3", "uniswapV3", "0x1f98431c8ad98523631ae4a59f267346ea31f984", UNI_V3_HASH),
    (42161, "uniswap-v3", "uniswapV3", "0x1f98431c8ad98523631ae4a59f267346ea31f984", UNI_V3_HASH),
    (8453, "uniswap-v3", "uniswapV3", "0x33128a8fc17869897dce68ed026d694621f6fdfd", UNI_V3_HASH),
    (56, "uniswap-v3", "uniswapV3", "0xdb1d10011ad0ff90774d0c6bb92e5c5c8b4461f7", UNI_V3_HASH),
    (43114, "uniswap-v3", "uniswapV3", "0x740b1c1de25031c31ff4fc9a62f554a55cdc1bad", UNI_V3_HASH),
    (59144, "uniswap-v3", "uniswapV3", "0x31fafd4889fa1269f7a13a66ee0fb458f27d72a9", UNI_V3_HASH),
    (130, "uniswap-v3", "uniswapV3", "0x1f98400000000000000000000000000000000003", UNI_V3_HASH),
    (56, "pancakeswap-v2", "uniswapV2", "0xca143ce32fe78f1f7019d7d551a6402fc5350c73", PCS_V2_HASH),
    (100, "sushiswap-v2", "uniswapV2", "0xc35dadb65012ec5796536bd9864ed8773abc74c4", SUSHI_V2_HASH),
    (146, "sushiswap-v3", "uniswapV3", "0x46b3fdf7b5cde91ac049936bf0bdb12c5d22202e", UNI_V3_HASH),
    (80094, "kodiak-v3", "uniswapV3", "0xd84cbf0b02636e7f53db9e5e45a616e05d710990", KODIAK_V3_HASH),
]
FACT = {(c, p): (f, h) for c, p, _k, f, h in DEX_FACTORIES}

# --------------------------------------------------------------------------
# market chains (demo block / time / gas)
# --------------------------------------------------------------------------
TS = 1740000000  # 2025-02-19T21:20:00Z
CHAINS = [
    (1, 21890310, TS - 11, "3000000000"),
    (10, 132452100, TS - 1, "1000000"),
    (56, 46852400, TS - 2, "1000000000"),
    (100, 38612200, TS - 3, "1500000000"),
    (130, 9304500, TS, "1000000"),
    (137, 68120400, TS - 1, "32000000000"),
    (146, 8965200, TS, "55000000000"),
    (8453, 26501800, TS - 1, "8000000"),
    (42161, 307018500, TS, "10000000"),
    (43114, 57480200, TS - 1, "2000000000"),
    (59144, 15303600, TS - 2, "60000000"),
    (80094, 1452800, TS - 1, "1000000000"),
]

# --------------------------------------------------------------------------
# pool builders
# --------------------------------------------------------------------------
POOLS = []


def usd_of(sym):
    return {"WETH": PX["ETH"], "ETH": PX["ETH"], "WETH.e": PX["ETH"], "WBTC": PX["BTC"], "WBTC.e": PX["BTC"],
            "WBNB": PX["BNB"], "WPOL": PX["POL"], "WAVAX": PX["AVAX"], "WXDAI": PX["XDAI"], "wS": PX["S"],
            "WBERA": PX["BERA"]}.get(sym, 1)


def v2_pool(chain, protocol, symA, symB, usd_each_side, fee_bps):
    a, b = tok(chain, symA), tok(chain, symB)
    t0, t1 = sort2(a, b)
    s0, s1 = (symA, symB) if t0 == a.lower() else (symB, symA)
    f, h = FACT[(chain, protocol)]
    r0 = raw(Decimal(usd_each_side) / Decimal(str(usd_of(s0))), DECIMALS[(chain, t0)])
    r1 = raw(Decimal(usd_each_side) / Decimal(str(usd_of(s1))), DECIMALS[(chain, t1)])
    POOLS.append({"kind": "uniswapV2", "chainId": chain, "protocol": protocol,
                  "address": create2_v2(f, t0, t1, h), "token0": t0, "token1": t1,
                  "reserve0": r0, "reserve1": r1, "feeBps": fee_bps})


TICK_SPACING = {100: 1, 500: 10, 3000: 60, 10000: 200}


def v3_pool(chain, protocol, symA, symB, fee, active_usd, price_override=None):
    """active_usd ~ USD value of *virtual* reserves per side inside the narrowest band."""
    a, b = tok(chain, symA), tok(chain, symB)
    t0, t1 = sort2(a, b)
    s0, s1 = (symA, symB) if t0 == a.lower() else (symB, symA)
    d0, d1 = DECIMALS[(chain, t0)], DECIMALS[(chain, t1)]
    # human price of token0 in token1, then raw price (token1 units per token0 unit)
    p_h = Decimal(str(price_override)) if price_override is not None else Decimal(str(usd_of(s0))) / Decimal(str(usd_of(s1)))
    p_raw = p_h * (Decimal(10) ** d1) / (Decimal(10) ** d0)
    sqrtp = int(p_raw.sqrt() * (Decimal(2) ** 96))
    # tick = floor(log_1.0001(price)), consistent with sqrtPriceX96
    tick = math.floor(math.log(float(p_raw)) / math.log(1.0001))
    while Decimal("1.0001") ** (tick + 1) <= (Decimal(sqrtp) / (Decimal(2) ** 96)) ** 2:
        tick += 1
    while Decimal("1.0001") ** tick > (Decimal(sqrtp) / (Decimal(2) ** 96)) ** 2:
        tick -= 1
    ts = TICK_SPACING[fee]
    # virtual reserves: x = active_usd / usd0 (raw), y = active_usd / usd1 (raw); L = sqrt(x*y)
    x = Decimal(active_usd) / Decimal(str(usd_of(s0))) * (Decimal(10) ** d0)
    y = Decimal(active_usd) / Decimal(str(usd_of(s1))) * (Decimal(10) ** d1)
    L_total = int((x * y).sqrt())
    # three positions: wide (55 %), medium (30 %), narrow (15 %) of active liquidity
    parts = [(0.55, 4000), (0.30, 600), (0.15, 60)]  # (share, half-width in tickSpacing units... scaled)
    base = (tick // ts) * ts
    nets = {}
    acc = 0
    for i, (share, half) in enumerate(parts):
        L = int(L_total * share) if i < len(parts) - 1 else L_total - acc
        acc += L
        w = max(1, (half * 10) // ts) * ts  # half width in ticks, multiple of spacing
        lo, hi = base - w, base + w + ts
        nets[lo] = nets.get(lo, 0) + L
        nets[hi] = nets.get(hi, 0) - L
    ticks = [{"index": i, "liquidityNet": str(nets[i])} for i in sorted(nets) if nets[i] != 0]
    f, h = FACT[(chain, protocol)]
    POOLS.append({"kind": "uniswapV3", "chainId": chain, "protocol": protocol,
                  "address": create2_v3(f, t0, t1, fee, h), "token0": t0, "token1": t1,
                  "fee": fee, "tickSpacing": ts, "sqrtPriceX96": str(sqrtp), "tick": tick,
                  "liquidity": str(L_total), "ticks": ticks})


# ---- Ethereum --------------------------------------------------------------
v2_pool(1, "uniswap-v2", "USDC", "WETH", 21_000_000, 30)   # 0xb4e16d01...
v2_pool(1, "uniswap-v2", "DAI", "WETH", 4_200_000, 30)     # 0xa478c297...
v2_pool(1, "uniswap-v2", "WBTC", "WETH", 6_500_000, 30)    # 0xbb2b8038...
v2_pool(1, "uniswap-v2", "USDT", "WETH", 11_000_000, 30)   # 0x0d4a11d5...
v3_pool(1, "uniswap-v3", "USDC", "WETH", 500, 180_000_000)   # 0x88e6a0c2...
v3_pool(1, "uniswap-v3", "WBTC", "WETH", 3000, 60_000_000)   # 0xcbcdf962...
v3_pool(1, "uniswap-v3", "USDC", "USDT", 100, 2_500_000_000, price_override="0.99995")  # 0x3416cf6c...
POOLS.append({"kind": "stableswap", "chainId": 1, "protocol": "curve", "address": E["3pool"],
              "lpToken": E["3Crv"], "coins": [tok(1, "DAI"), tok(1, "USDC"), tok(1, "USDT")],
              "balances": [raw(52_400_000, 18), raw(55_100_000, 6), raw(63_800_000, 6)],
              "amp": "2000", "fee": "1000000", "adminFee": "5000000000", "aPrecision": 1, "lpSupply": raw(Decimal("165700000") / Decimal("1.0386"), 18)})
POOLS.append({"kind": "stableswap", "chainId": 1, "protocol": "curve", "address": E["stethPool"],
              "lpToken": E["steCRV"], "coins": [NATIVE, E["stETH"]],
              "balances": [raw(37_150, 18), raw(36_420, 18)],
              "amp": "30", "fee": "1000000", "adminFee": "5000000000", "aPrecision": 100, "lpSupply": raw(Decimal("73570") / Decimal("1.1362"), 18)})
POOLS.append({"kind": "weighted", "chainId": 1, "protocol": "balancer-v2", "address": E["bal5050WbtcWeth"],
              "poolId": E["bal5050WbtcWeth"] + "00020000000000000000000e",
              "tokens": [tok(1, "WBTC"), tok(1, "WETH")],
              "balances": [raw(Decimal(2_400_000) / 95000, 8), raw(800, 18)],
              "weights": ["500000000000000000", "500000000000000000"], "swapFee": "2500000000000000",
              # WeightedPool2Tokens of 2021: the first powUp rule.
              "poolVersion": 1})


def vault(chain, protocol, address, asset_sym, total_assets_h, rate):
    d = DECIMALS[(chain, tok(chain, asset_sym))]
    record = {"kind": "erc4626", "chainId": chain, "protocol": protocol, "address": address,
              "asset": tok(chain, asset_sym), "totalAssets": raw(total_assets_h, d),
              "totalSupply": raw(Decimal(str(total_assets_h)) / Decimal(str(rate)), 18)}
    if protocol == "morpho-vaults":
        # MetaMorpho inherits OpenZeppelin's ERC4626 with a decimals offset
        # of 18 - asset decimals.
        record.update({"rule": "openZeppelin", "decimalsOffset": 18 - d})
    POOLS.append(record)


vault(1, "spark-savings", E["sDAI"], "DAI", 414_000_000, "1.15")
vault(1, "sky-savings", E["sUSDS"], "USDS", 2_180_000_000, "1.0412")
vault(1, "morpho-vaults", E["steakUSDC"], "USDC", 1_050_000_000, "1.0731")
vault(8453, "morpho-vaults", B["mwUSDC"], "USDC", 48_000_000, "1.0517")


def lending(chain, protocol, model, address, asset_sym, receipt, rate, liquidity_h):
    d = DECIMALS[(chain, tok(chain, asset_sym))]
    POOLS.append({"kind": "lending", "chainId": chain, "protocol": protocol, "model": model,
                  "address": address, "asset": tok(chain, asset_sym), "receipt": receipt,
                  "exchangeRate": rate, "availableLiquidity": raw(liquidity_h, d)})


RAY = 10 ** 27
lending(1, "aave-v3", "aave", E["aavePool"], "USDC", E["aEthUSDC"], str(int(Decimal("1.1382046710") * RAY)), 412_000_000)
lending(1, "aave-v3", "aave", E["aavePool"], "WETH", E["aEthWETH"], str(int(Decimal("1.0471385202") * RAY)), 318_000)
lending(1, "aave-v3", "aave", E["aavePool"], "USDT", E["aEthUSDT"], str(int(Decimal("1.1407735196") * RAY)), 365_000_000)
# Compound v2: exchangeRateStored = underlying per cToken * 1e18 * 10^(underlying - 8)
lending(1, "compound-v2", "compound", E["cUSDC"], "USDC", E["cUSDC"], str(int(Decimal("0.023394") * 10 ** 16)), 6_200_000)
lending(1, "compound-v2", "compound", E["cDAI"], "DAI", E["cDAI"], str(int(Decimal("0.023547") * 10 ** 28)), 4_900_000)
lending(8453, "aave-v3", "aave", B["aavePool"], "USDC", B["aBasUSDC"], str(int(Decimal("1.0823511842") * RAY)), 96_000_000)
lending(8453, "aave-v3", "aave", B["aavePool"], "WETH", B["aBasWETH"], str(int(Decimal("1.0187604413") * RAY)), 41_000)
lending(42161, "aave-v3", "aave", A["aavePool"], "USDC", A["aArbUSDCn"], str(int(Decimal("1.1163380527") * RAY)), 88_000_000)
lending(42161, "aave-v3", "aave", A["aavePool"], "WETH", A["aArbWETH"], str(int(Decimal("1.0389121577") * RAY)), 52_000)
lending(42161, "aave-v3", "aave", A["aavePool"], "USDT", A["aArbUSDT"], str(int(Decimal("1.1240952330") * RAY)), 47_000_000)

# Lido: stETH per share 1.2 (so wstETH = 1.2 stETH)
LIDO_POOLED, LIDO_SHARES = raw(9_612_000, 18), raw(8_010_000, 18)
POOLS.append({"kind": "liquidStaking", "chainId": 1, "protocol": "lido", "address": E["stETH"],
              "asset": NATIVE, "receipt": E["stETH"], "totalPooledAsset": LIDO_POOLED, "totalShares": LIDO_SHARES, "rebasing": True})
POOLS.append({"kind": "liquidStaking", "chainId": 1, "protocol": "lido", "address": E["wstETH"],
              "asset": E["stETH"], "receipt": E["wstETH"], "totalPooledAsset": LIDO_POOLED, "totalShares": LIDO_SHARES})

# ---- other chains -----------------------------------------------------------
v3_pool(10, "uniswap-v3", "WETH", "USDC", 500, 14_000_000)     # 0x1fb3cf6e...
v3_pool(10, "uniswap-v3", "WETH", "USDT", 500, 5_000_000)      # 0xc858a329...
v3_pool(42161, "uniswap-v3", "WETH", "USDC", 500, 60_000_000)  # 0xc6962004...
v3_pool(42161, "uniswap-v3", "WETH", "USDT", 500, 25_000_000)  # 0x641c00a8...
v3_pool(8453, "uniswap-v3", "WETH", "USDC", 500, 45_000_000)   # 0xd0b53d92...
v3_pool(137, "uniswap-v3", "WPOL", "USDC", 500, 3_000_000)     # 0xb6e57ed8...
v3_pool(137, "uniswap-v3", "WETH", "USDC", 500, 6_000_000)     # 0xa4d8c89f...
v3_pool(56, "uniswap-v3", "WBNB", "USDT", 500, 8_000_000)      # 0x6fe9e9de...
v2_pool(56, "pancakeswap-v2", "WBNB", "USDT", 16_000_000, 25)  # 0x16b9a828...
v2_pool(56, "pancakeswap-v2", "WBNB", "USDC", 6_000_000, 25)   # 0xd99c7f6c...
v2_pool(56, "pancakeswap-v2", "ETH", "WBNB", 4_000_000, 25)    # 0x74e4716e...
v3_pool(43114, "uniswap-v3", "WAVAX", "USDC", 500, 4_000_000)  # 0xfae3f424...
v3_pool(43114, "uniswap-v3", "WETH.e", "WAVAX", 3000, 1_500_000)  # 0x724f6a02...
v2_pool(100, "sushiswap-v2", "WXDAI", "USDC", 450_000, 30)     # 0xa227c72a...
v2_pool(100, "sushiswap-v2", "WETH", "WXDAI", 600_000, 30)     # 0x8c0c36c8...
v3_pool(59144, "uniswap-v3", "WETH", "USDC", 500, 4_000_000)   # 0xc4862219...
v3_pool(130, "uniswap-v3", "WETH", "USDC", 500, 6_000_000)     # 0x65081cb4...
v3_pool(146, "sushiswap-v3", "wS", "USDC", 500, 1_500_000)     # 0x48505b30...
v3_pool(80094, "kodiak-v3", "WBERA", "HONEY", 3000, 2_000_000)  # 0x1127f801...
v3_pool(80094, "kodiak-v3", "WETH", "WBERA", 3000, 1_200_000)   # 0xcda0ca7c...

# --------------------------------------------------------------------------
# tokens
# --------------------------------------------------------------------------
TOKENS = []
for cid, name, nsym, nname, w, _bt in NETWORKS:
    TOKENS.append({"chainId": cid, "address": NATIVE, "type": "base", "decimals": 18, "symbol": nsym,
                   "name": nname, "logosUri": [logo(cid, NATIVE)]})
    ws, wn = WRAPPED_META[cid]
    TOKENS.append({"chainId": cid, "address": w, "type": "base", "decimals": 18, "symbol": ws,
                   "name": wn, "logosUri": [logo(cid, w)]})
    for s, n, a, d in BASE[cid]:
        TOKENS.append({"chainId": cid, "address": a, "type": "base", "decimals": d, "symbol": s,
                       "name": n, "logosUri": [logo(cid, a)]})


def defi(chain, address, decimals, symbol, name, project, slug, primary, underlying, apy_base, apy_reward, tvl,
         borrow_base=None, borrow_reward=None):
    TOKENS.append({"chainId": chain, "address": address, "type": "defi", "decimals": decimals, "symbol": symbol,
                   "name": name, "logosUri": [logo(chain, address)], "project": project, "protocolSlug": slug,
                   "primaryAddress": primary, "underlyingTokens": underlying,
                   "apy": round(apy_base + apy_reward, 2), "apyBase": apy_base, "apyReward": apy_reward,
                   "tvl": float(tvl), "borrowApyBase": borrow_base, "borrowApyReward": borrow_reward})


defi(1, E["sDAI"], 18, "sDAI", "Savings Dai", "spark", "spark-savings", E["sDAI"], [tok(1, "DAI")], 6.5, 0.0, 476_000_000)
defi(1, E["sUSDS"], 18, "sUSDS", "Savings USDS", "sky", "sky-savings", E["sUSDS"], [tok(1, "USDS")], 6.5, 0.0, 2_180_000_000)
defi(1, E["steakUSDC"], 18, "steakUSDC", "Steakhouse USDC", "morpho", "morpho-vaults", E["steakUSDC"], [tok(1, "USDC")], 5.9, 0.4, 1_050_000_000)
defi(1, E["aEthUSDC"], 6, "aEthUSDC", "Aave Ethereum USDC", "aave", "aave-v3", E["aavePool"], [tok(1, "USDC")], 5.1, 0.0, 3_100_000_000, 6.6, 0.0)
defi(1, E["aEthWETH"], 18, "aEthWETH", "Aave Ethereum WETH", "aave", "aave-v3", E["aavePool"], [tok(1, "WETH")], 2.0, 0.0, 5_400_000_000, 2.7, 0.0)
defi(1, E["aEthUSDT"], 6, "aEthUSDT", "Aave Ethereum USDT", "aave", "aave-v3", E["aavePool"], [tok(1, "USDT")], 5.4, 0.0, 2_600_000_000, 6.9, 0.0)
defi(1, E["cUSDC"], 8, "cUSDC", "Compound USD Coin", "compound", "compound-v2", E["cUSDC"], [tok(1, "USDC")], 2.9, 0.0, 22_000_000, 4.6, 0.0)
defi(1, E["cDAI"], 8, "cDAI", "Compound Dai", "compound", "compound-v2", E["cDAI"], [tok(1, "DAI")], 3.1, 0.0, 58_000_000, 5.2, 0.0)
defi(1, E["3Crv"], 18, "3Crv", "Curve.fi DAI/USDC/USDT", "curve", "curve", E["3pool"], [tok(1, "DAI"), tok(1, "USDC"), tok(1, "USDT")], 1.2, 0.6, 171_000_000)
defi(1, E["steCRV"], 18, "steCRV", "Curve.fi ETH/stETH", "curve", "curve", E["stethPool"], [NATIVE, E["stETH"]], 1.5, 0.9, 220_000_000)
defi(1, create2_v2(FACT[(1, "uniswap-v2")][0], tok(1, "USDC"), tok(1, "WETH"), UNI_V2_HASH), 18, "UNI-V2", "Uniswap V2 USDC/WETH",
     "uniswap", "uniswap-v2", E["uniV2Router"], [tok(1, "USDC"), tok(1, "WETH")], 4.8, 0.0, 42_000_000)
defi(1, E["stETH"], 18, "stETH", "Liquid staked Ether 2.0", "lido", "lido", E["stETH"], [NATIVE], 3.0, 0.0, 28_800_000_000)
defi(1, E["wstETH"], 18, "wstETH", "Wrapped liquid staked Ether 2.0", "lido", "lido", E["wstETH"], [E["stETH"]], 3.0, 0.0, 11_500_000_000)
defi(8453, B["aBasUSDC"], 6, "aBasUSDC", "Aave Base USDC", "aave", "aave-v3", B["aavePool"], [tok(8453, "USDC")], 4.6, 0.0, 410_000_000, 6.1, 0.0)
defi(8453, B["aBasWETH"], 18, "aBasWETH", "Aave Base WETH", "aave", "aave-v3", B["aavePool"], [tok(8453, "WETH")], 1.9, 0.0, 520_000_000, 2.6, 0.0)
defi(8453, B["mwUSDC"], 18, "mwUSDC", "Moonwell Flagship USDC", "morpho", "morpho-vaults", B["mwUSDC"], [tok(8453, "USDC")], 6.8, 1.9, 48_000_000)
defi(42161, A["aArbUSDCn"], 6, "aArbUSDCn", "Aave Arbitrum USDC", "aave", "aave-v3", A["aavePool"], [tok(42161, "USDC")], 4.9, 0.0, 290_000_000, 6.3, 0.0)
defi(42161, A["aArbWETH"], 18, "aArbWETH", "Aave Arbitrum WETH", "aave", "aave-v3", A["aavePool"], [tok(42161, "WETH")], 1.8, 0.0, 410_000_000, 2.5, 0.0)
defi(42161, A["aArbUSDT"], 6, "aArbUSDT", "Aave Arbitrum USDT", "aave", "aave-v3", A["aavePool"], [tok(42161, "USDT")], 5.2, 0.0, 150_000_000, 6.8, 0.0)

# --------------------------------------------------------------------------
# protocols
# --------------------------------------------------------------------------
ALL = [n[0] for n in NETWORKS]
EVM_ROUTER_CHAINS = ALL


def P(project, slug, name, desc, url, logo_url, chains):
    return {"project": project, "slug": slug, "name": name, "description": desc, "url": url,
            "logosUri": [logo_url], "chains": sorted(chains)}


LL = "https://icons.llamao.fi/icons/protocols/{}?w=48&h=48"
PROTOCOLS = [
    P("enso", "enso", "Enso", "Route, split, merge and bundle primitives of the shortcut executor", "https://www.enso.build", LL.format("enso"), ALL),
    P("erc20", "erc20", "ERC-20", "Fungible token approve and transfer", "https://eips.ethereum.org/EIPS/eip-20", "https://ethereum.org/favicon-32x32.png", ALL),
    P("erc721", "erc721", "ERC-721", "Non-fungible token approve and transfer", "https://eips.ethereum.org/EIPS/eip-721", "https://ethereum.org/favicon-32x32.png", ALL),
    P("math", "math", "Math", "Arithmetic on previous action outputs", "https://www.enso.build", LL.format("enso"), ALL),
    P("helpers", "helpers", "Helpers", "Comparisons, conditions and toggles on previous action outputs", "https://www.enso.build", LL.format("enso"), ALL),
    P("wrapped-native", "wrapped-native", "Wrapped native", "1:1 wrapping of the chain's native coin (WETH9 and equivalents)", "https://weth.io", logo(1, WRAPPED[1]), ALL),
    P("erc4626", "erc4626", "ERC-4626", "Tokenized vault standard", "https://eips.ethereum.org/EIPS/eip-4626", "https://ethereum.org/favicon-32x32.png", ALL),
    P("uniswap", "uniswap-v2", "Uniswap V2", "Constant-product AMM", "https://app.uniswap.org", LL.format("uniswap-v2"), [1]),
    P("uniswap", "uniswap-v3", "Uniswap V3", "Concentrated-liquidity AMM", "https://app.uniswap.org", LL.format("uniswap-v3"), [1, 10, 56, 130, 137, 8453, 42161, 43114, 59144]),
    P("sushiswap", "sushiswap-v2", "SushiSwap V2", "Constant-product AMM (Uniswap V2 fork)", "https://www.sushi.com", LL.format("sushiswap"), [100]),
    P("sushiswap", "sushiswap-v3", "SushiSwap V3", "Concentrated-liquidity AMM (Uniswap V3 fork)", "https://www.sushi.com", LL.format("sushiswap-v3"), [146]),
    P("pancakeswap", "pancakeswap-v2", "PancakeSwap V2", "Constant-product AMM (Uniswap V2 fork)", "https://pancakeswap.finance", LL.format("pancakeswap-amm"), [56]),
    P("kodiak", "kodiak-v3", "Kodiak V3", "Concentrated-liquidity AMM on Berachain (Uniswap V3 fork)", "https://app.kodiak.finance", LL.format("kodiak-v3"), [80094]),
    P("curve", "curve", "Curve", "StableSwap pools for like-priced assets", "https://curve.fi", LL.format("curve-dex"), [1]),
    P("balancer", "balancer-v2", "Balancer V2", "Weighted and stable pools behind a single vault", "https://balancer.fi", LL.format("balancer-v2"), [1]),
    P("aave", "aave-v3", "Aave V3", "Over-collateralized lending market", "https://app.aave.com", LL.format("aave-v3"), [1, 8453, 42161]),
    P("compound", "compound-v2", "Compound V2", "cToken lending market", "https://compound.finance", LL.format("compound-v2"), [1]),
    P("compound", "compound-v3", "Compound V3", "Comet single-borrowable-asset lending market", "https://app.compound.finance", LL.format("compound-v3"), [1]),
    P("lido", "lido", "Lido", "Liquid staking of ETH (stETH, wstETH)", "https://lido.fi", LL.format("lido"), [1]),
    P("spark", "spark-savings", "Spark Savings", "Savings Dai (sDAI) ERC-4626 vault over the DSR", "https://app.spark.fi", LL.format("spark"), [1]),
    P("sky", "sky-savings", "Sky Savings Rate", "Savings USDS (sUSDS) ERC-4626 vault", "https://sky.money", LL.format("sky-lending"), [1]),
    P("morpho", "morpho-vaults", "Morpho Vaults", "Curated ERC-4626 vaults lending on Morpho", "https://app.morpho.org", LL.format("morpho-blue"), [1, 8453]),
    P("curve", "curve-gauge", "Curve Gauges", "Curve LP staking for CRV emissions", "https://curve.fi", LL.format("curve-dex"), [1]),
    P("stargate", "stargate", "Stargate", "LayerZero liquidity-pool bridge (Stargate V2)", "https://stargate.finance", LL.format("stargate-v2"), [1, 10, 56, 137, 8453, 42161, 43114, 59144]),
    P("circle", "cctp", "CCTP", "Circle Cross-Chain Transfer Protocol (burn and mint USDC)", "https://www.circle.com/cross-chain-transfer-protocol", LL.format("circle"), [1, 10, 130, 137, 146, 8453, 42161, 43114, 59144]),
    P("chainlink", "ccip", "Chainlink CCIP", "Chainlink Cross-Chain Interoperability Protocol", "https://chain.link/cross-chain", LL.format("chainlink"), ALL),
    P("relay", "relay", "Relay", "Intent-based cross-chain relaying", "https://relay.link", LL.format("relay"), [1, 10, 137, 8453, 42161]),
]
PROTO_SLUGS = {p["slug"] for p in PROTOCOLS}

# --------------------------------------------------------------------------
# actions (one per action of actions.ts)
# --------------------------------------------------------------------------
AMT = "uint256 | CallOutput"
AMTS = "uint256 | CallOutput | (uint256 | CallOutput)[]"


def I(t, d, opt):
    return {"type": t, "description": d, "optional": opt}


RECV = I("address", "receiver address, defaults to the caller", True)
OBO = I("address", "address that owns the resulting position", True)
POS = I("string", "position identifier for position-based protocols", True)
TID = I("uint256", "token id for token-based positions", True)
XARGS = I("Record<string, string | uint256 | CallOutput>", "extra protocol-specific arguments", True)
PRIM = I("address", "protocol contract to call", False)


def deposit_like(tin, tout, amt, tout_opt, with_pos):
    d = {"tokenIn": tin, "tokenOut": dict(tout, optional=tout_opt), "amountIn": amt, "primaryAddress": PRIM,
         "receiver": RECV, "onBehalfOf": OBO}
    if with_pos:
        d["positionId"] = POS
        d["tokenId"] = TID
    d["args"] = XARGS
    return d


TIN1 = I("address", "input token address", False)
TINN = I("address[]", "input token addresses", False)
TOUT1 = I("address", "output token address", False)
TOUTN = I("address[]", "output token addresses", False)
AIN1 = I(AMT, "amount in wei or a previous output", False)
AINN = I("(uint256 | CallOutput)[]", "amounts in wei or previous outputs", False)

ACTIONS = {
    "route": {"tokenIn": TIN1, "tokenOut": TOUT1, "amountIn": AIN1,
              "slippage": I("uint256", "slippage tolerance in bps", True),
              "minAmountOut": I(AMTS, "minimum amount out", True),
              "fee": I(AMTS, "fee in bps", True),
              "feeReceiver": I("address", "fee receiver", True),
              "ignoreAggregators": I("string[]", "aggregators to ignore", True),
              "ignoreStandards": I("string[]", "standards to ignore", True),
              "ignoreBridges": I("string[]", "bridges to ignore", True),
              "destinationChainId": I("number", "destination chain id for a cross-chain route", True),
              "receiver": I("address", "receiver address, required for cross-chain routes", True),
              "refundReceiver": I("address", "receiver of refunds and dust", True)},
    "swap": {"tokenIn": TIN1, "tokenOut": TOUT1, "amountIn": AIN1, "primaryAddress": I("address", "router or pool contract", False),
             "receiver": RECV, "slippage": I("uint256", "slippage in bps", True),
             "poolFee": I("uint256", "pool fee tier", True), "tickSpacing": I("uint256", "tick spacing", True),
             "hooks": I("address", "hook contract", True), "poolId": I("bytes", "pool identifier", True),
             "salt": I("bytes", "pool salt", True), "path": I("address[]", "token path for multi-hop swaps", True),
             "args": XARGS},
    "deposit": deposit_like(I("address | address[]", "input token or tokens", False), I("address | address[]", "output token or tokens", False),
                            I(AMTS, "amount or amounts in", False), True, True),
    "singledeposit": deposit_like(TIN1, I("address | address[]", "output token or tokens", False), AIN1, True, False),
    "multideposit": deposit_like(TINN, I("address | address[]", "output token or tokens", False), AINN, True, False),
    "tokenizedsingledeposit": deposit_like(TIN1, TOUT1, AIN1, False, False),
    "tokenizedmultideposit": deposit_like(TINN, TOUT1, AINN, False, False),
    "multioutsingledeposit": deposit_like(TIN1, TOUTN, AIN1, False, False),
    "depositclmm": {"tokenIn": TINN, "tokenOut": TOUT1, "amountIn": AINN,
                    "ticks": I("uint256[]", "lower and upper tick of the position", False),
                    "poolFee": I("uint256", "pool fee tier", True), "tickSpacing": I("uint256", "tick spacing", True),
                    "hook": I("address", "hook contract", True), "receiver": RECV},
    "redeem": {"tokenIn": I("address", "share token to redeem", True), "tokenOut": I("address | address[]", "output token or tokens", False),
               "amountIn": AIN1, "primaryAddress": PRIM, "receiver": RECV, "onBehalfOf": OBO,
               "positionId": POS, "tokenId": TID, "args": XARGS},
    "singleredeem": {"tokenIn": I("address", "share token to redeem", True), "tokenOut": TOUT1, "amountIn": AIN1,
                     "primaryAddress": PRIM, "receiver": RECV, "onBehalfOf": OBO, "args": XARGS},
    "multiredeem": {"tokenIn": I("address", "share token to redeem", True), "tokenOut": TOUTN, "amountIn": AIN1,
                    "primaryAddress": PRIM, "receiver": RECV, "onBehalfOf": OBO, "args": XARGS},
    "tokenizedsingleredeem": {"tokenIn": I("address", "share token to redeem", False), "tokenOut": TOUT1, "amountIn": AIN1,
                              "primaryAddress": PRIM, "receiver": RECV, "onBehalfOf": OBO, "args": XARGS},
    "tokenizedmultiredeem": {"tokenIn": I("address", "share token to redeem", False), "tokenOut": TOUTN, "amountIn": AIN1,
                             "primaryAddress": PRIM, "receiver": RECV, "onBehalfOf": OBO, "args": XARGS},
    "redeemclmm": {"tokenIn": I("address", "position manager token", False), "tokenOut": TOUTN,
                   "liquidity": I(AMT, "liquidity to remove", False), "tokenId": I("uint256", "position token id", False),
                   "receiver": RECV},
    "borrow": {"collateral": I("address | address[]", "collateral token or tokens", True), "tokenOut": I("address", "token to borrow", False),
               "amountOut": I(AMT, "amount to borrow", False), "primaryAddress": I("address", "lending pool contract", False),
               "receiver": RECV, "onBehalfOf": I("address", "address that owns the debt", True), "positionId": POS, "tokenId": TID, "args": XARGS},
    "repay": {"tokenIn": I("address", "token to repay with", False), "amountIn": I(AMT, "amount to repay", False),
              "primaryAddress": I("address", "lending pool contract", False), "onBehalfOf": I("address", "address whose debt is repaid", True),
              "positionId": POS, "tokenId": TID, "args": XARGS},
}
WITHDRAW = {"tokenOut": I("address | address[]", "output token or tokens", False), "amountOut": I(AMTS, "amount or amounts to withdraw", False),
            "primaryAddress": PRIM, "receiver": RECV, "onBehalfOf": I("address", "address on whose behalf to withdraw", True),
            "positionId": POS, "args": XARGS}
for a in ("withdraw", "singlewithdraw", "singlewithdrawwithpositionid", "multiwithdraw"):
    ACTIONS[a] = dict(WITHDRAW)
ACTIONS.update({
    "harvest": {"token": I("address", "token to harvest", False), "primaryAddress": I("address", "contract holding the rewards", False)},
    "approve": {"token": I("address", "token to approve", False), "spender": I("address", "spender address", False),
                "amount": I(AMT, "amount to approve, required for erc20", True), "tokenId": I("uint256", "token id, required for erc721", True)},
    "transfer": {"token": I("address", "token address", False), "amount": I(AMT, "amount to transfer, required for erc20", True),
                 "receiver": I("address", "receiver address", False), "tokenId": I("uint256", "token id for erc721/erc1155", True)},
    "transferfrom": {"token": I("address", "token address", False), "amount": I(AMT, "amount to transfer, required for erc20", True),
                     "receiver": I("address", "receiver address", False), "sender": I("address", "sender address", True),
                     "tokenId": I("uint256", "token id for erc721/erc1155", True)},
    "permittransferfrom": {"token": I("address | address[]", "token or tokens to transfer", False), "amount": I(AMTS, "amount or amounts", False),
                           "sender": I("address", "sender address", False), "receiver": I("address", "receiver address", False),
                           "nonce": I("uint256", "permit nonce", False), "deadline": I("uint256", "permit deadline", False),
                           "signature": I("bytes", "permit signature", False)},
    "bridge": {"tokenIn": I("address", "token to bridge", False), "amountIn": I(AMT, "amount to bridge", False),
               "primaryAddress": I("address", "bridge contract", False), "destinationChainId": I("number", "destination chain id", False),
               "receiver": I("address", "receiver on the destination chain", False),
               "callback": I("BundleAction[]", "actions to run on the destination chain, starting with balance", True),
               "callbackValue": I("uint256", "native value for the callback", True),
               "protocolArgs": I("{transferType?, forwardFee?, isHyperCoreTransfer?}", "bridge-specific arguments", True)},
    "flashloan": {"flashloanToken": I("address | address[]", "token or tokens to flashloan", False),
                  "flashloanAmount": I(AMTS, "amount or amounts to flashloan", False),
                  "tokenOut": I("address | address[]", "token or tokens expected after the callback", False),
                  "primaryAddress": I("address", "flashloan lender contract", True),
                  "tokenIn": I("address | address[]", "additional user token or tokens", True),
                  "amountIn": I(AMTS, "additional user amount or amounts", True),
                  "callback": I("BundleAction[]", "actions run with the flashloaned funds", False), "receiver": RECV},
    "call": {"address": I("address", "contract to call", False), "method": I("string", "method name", False),
             "abi": I("string", "function signature", False), "args": I("ContractCallArg[]", "call arguments", False),
             "tokenIn": I("address", "input token", True), "tokenOut": I("address", "output token", True),
             "value": I(AMT, "native value to send", True)},
    "split": {"tokenIn": TIN1, "tokenOut": TOUTN, "amountIn": AIN1, "receiver": RECV},
    "merge": {"tokenIn": TINN, "tokenOut": TOUT1, "amountIn": AINN, "receiver": RECV},
    "balance": {"token": I("address", "token to read the balance of", False), "estimate": I(AMT, "estimated balance for quoting", True),
                "account": I("address", "account to read, defaults to the executor", True)},
    "minamountout": {"amountOut": I(AMT, "amount to check", False), "minAmountOut": I(AMT, "minimum acceptable amount", False)},
    "slippage": {"bps": I("uint256", "maximum slippage in bps", False), "amountOut": I(AMT, "expected amount", False)},
    "fee": {"receiver": I("address", "fee receiver", False), "token": I("address", "token the fee is taken in", False),
            "amount": I(AMT, "amount the fee applies to", False), "bps": I("uint256", "fee in bps", False)},
    "ensofee": {"token": I("address", "token the fee is taken in", False), "amount": I(AMT, "amount the fee applies to", False),
                "bps": I("uint256", "fee in bps", False)},
    "paymasterfee": {"token": I("address", "token the fee is taken in", False), "amount": I(AMT, "amount the fee applies to", False)},
})
for a in ("add", "sub", "mul", "div", "min", "max", "isequal", "islessthan", "isequalorlessthan", "isgreaterthan", "isequalorgreaterthan"):
    ACTIONS[a] = {"amountA": I(AMT, "first operand", False), "amountB": I(AMT, "second operand", False)}
for a in ("not", "check"):
    ACTIONS[a] = {"condition": I("boolean | CallOutput", "boolean or a previous boolean output", False)}
ACTIONS["toggle"] = {"condition": I("boolean | CallOutput", "boolean or a previous boolean output", False),
                     "amountA": I(AMT, "value when the condition is true", False),
                     "amountB": I(AMT, "value when the condition is false", False)}

# --------------------------------------------------------------------------
# standards
# --------------------------------------------------------------------------


def act(action, name, fns, chains, inputs=None):
    if inputs is None:
        inputs = [k for k, v in ACTIONS[action].items() if not v["optional"]]
    return {"action": action, "name": name, "functionNames": fns, "chains": sorted(chains), "inputs": inputs}


V2C = [1, 56, 100]
V3C = [1, 10, 56, 130, 137, 146, 8453, 42161, 43114, 59144, 80094]
STANDARDS = [
    {"protocol": "enso", "forks": [], "actions": [
        act("route", "Route", ["routeSingle", "routeMulti", "safeRouteSingle", "safeRouteMulti"], ALL),
        act("split", "Split", ["executeShortcut"], ALL), act("merge", "Merge", ["executeShortcut"], ALL),
        act("balance", "Balance", ["balanceOf"], ALL), act("minamountout", "Min amount out", ["executeShortcut"], ALL),
        act("slippage", "Slippage", ["executeShortcut"], ALL), act("fee", "Fee", ["transfer"], ALL),
        act("ensofee", "Enso fee", ["transfer"], ALL), act("paymasterfee", "Paymaster fee", ["transfer"], ALL),
        act("call", "Call", ["executeShortcut"], ALL), act("transfer", "Transfer", ["transfer"], ALL),
        act("transferfrom", "Transfer from", ["transferFrom"], ALL)]},
    {"protocol": "erc20", "forks": [], "actions": [
        act("approve", "Approve", ["approve"], ALL), act("transfer", "Transfer", ["transfer"], ALL),
        act("transferfrom", "Transfer from", ["transferFrom"], ALL),
        act("permittransferfrom", "Permit2 transfer from", ["permitTransferFrom"], ALL)]},
    {"protocol": "erc721", "forks": [], "actions": [
        act("approve", "Approve", ["approve"], ALL, ["token", "spender", "tokenId"]),
        act("transfer", "Transfer", ["safeTransferFrom"], ALL, ["token", "receiver", "tokenId"]),
        act("transferfrom", "Transfer from", ["transferFrom"], ALL, ["token", "receiver", "tokenId"])]},
    {"protocol": "math", "forks": [], "actions": [act(a, a.capitalize(), [a], ALL) for a in ("add", "sub", "mul", "div", "min", "max")]},
    {"protocol": "helpers", "forks": [], "actions": [act(a, n, [a], ALL) for a, n in (
        ("isequal", "Is equal"), ("islessthan", "Is less than"), ("isequalorlessthan", "Is equal or less than"),
        ("isgreaterthan", "Is greater than"), ("isequalorgreaterthan", "Is equal or greater than"),
        ("not", "Not"), ("check", "Check"), ("toggle", "Toggle"))]},
    {"protocol": "wrapped-native", "forks": [], "actions": [
        act("deposit", "Wrap", ["deposit"], ALL), act("redeem", "Unwrap", ["withdraw"], ALL)]},
    {"protocol": "uniswap-v2", "forks": ["sushiswap-v2", "pancakeswap-v2"], "actions": [
        act("swap", "Swap", ["swapExactTokensForTokens", "swapExactETHForTokens", "swapExactTokensForETH"], V2C),
        act("deposit", "Add liquidity", ["addLiquidity", "addLiquidityETH"], V2C),
        act("redeem", "Remove liquidity", ["removeLiquidity", "removeLiquidityETH"], V2C)]},
    {"protocol": "uniswap-v3", "forks": ["sushiswap-v3", "kodiak-v3"], "actions": [
        act("swap", "Swap", ["exactInputSingle", "exactInput"], V3C),
        act("depositclmm", "Add concentrated liquidity", ["mint", "increaseLiquidity"], V3C),
        act("redeemclmm", "Remove concentrated liquidity", ["decreaseLiquidity", "collect"], V3C)]},
    {"protocol": "curve", "forks": [], "actions": [
        act("swap", "Swap", ["exchange", "exchange_underlying"], [1]),
        act("deposit", "Add liquidity", ["add_liquidity"], [1]),
        act("redeem", "Remove liquidity", ["remove_liquidity", "remove_liquidity_one_coin"], [1])]},
    {"protocol": "curve-gauge", "forks": [], "actions": [
        act("deposit", "Stake LP", ["deposit"], [1]),
        act("withdraw", "Unstake LP", ["withdraw"], [1]),
        act("harvest", "Claim rewards", ["claim_rewards", "mint"], [1])]},
    {"protocol": "balancer-v2", "forks": [], "actions": [
        act("swap", "Swap", ["swap", "batchSwap"], [1]),
        act("deposit", "Join pool", ["joinPool"], [1]),
        act("redeem", "Exit pool", ["exitPool"], [1])]},
    {"protocol": "aave-v3", "forks": [], "actions": [
        act("deposit", "Supply", ["supply"], [1, 8453, 42161]),
        act("redeem", "Withdraw", ["withdraw"], [1, 8453, 42161]),
        act("borrow", "Borrow", ["borrow"], [1, 8453, 42161]),
        act("repay", "Repay", ["repay"], [1, 8453, 42161]),
        act("flashloan", "Flash loan", ["flashLoan", "flashLoanSimple"], [1, 8453, 42161])]},
    {"protocol": "compound-v2", "forks": [], "actions": [
        act("deposit", "Mint", ["mint"], [1]), act("redeem", "Redeem", ["redeem", "redeemUnderlying"], [1]),
        act("borrow", "Borrow", ["borrow"], [1]), act("repay", "Repay", ["repayBorrow", "repayBorrowBehalf"], [1])]},
    {"protocol": "compound-v3", "forks": [], "actions": [
        act("deposit", "Supply", ["supply", "supplyTo"], [1]), act("withdraw", "Withdraw", ["withdraw", "withdrawTo"], [1]),
        act("borrow", "Borrow", ["withdraw"], [1]), act("repay", "Repay", ["supply"], [1])]},
    {"protocol": "erc4626", "forks": ["spark-savings", "sky-savings", "morpho-vaults"], "actions": [
        act("deposit", "Deposit", ["deposit"], [1, 8453]), act("redeem", "Redeem", ["redeem"], [1, 8453]),
        act("tokenizedsingledeposit", "Deposit", ["deposit"], [1, 8453]),
        act("tokenizedsingleredeem", "Redeem", ["redeem"], [1, 8453])]},
    {"protocol": "lido", "forks": [], "actions": [
        act("deposit", "Stake", ["submit"], [1]),
        act("tokenizedsingledeposit", "Wrap stETH", ["wrap"], [1]),
        act("tokenizedsingleredeem", "Unwrap wstETH", ["unwrap"], [1])]},
    {"protocol": "stargate", "forks": [], "actions": [act("bridge", "Bridge", ["send"], [1, 10, 56, 137, 8453, 42161, 43114, 59144])]},
    {"protocol": "cctp", "forks": [], "actions": [act("bridge", "Bridge", ["depositForBurn", "depositForBurnWithHook"], [1, 10, 130, 137, 146, 8453, 42161, 43114, 59144])]},
    {"protocol": "ccip", "forks": [], "actions": [act("bridge", "Bridge", ["ccipSend"], ALL)]},
    {"protocol": "relay", "forks": [], "actions": [act("bridge", "Bridge", ["transfer"], [1, 10, 137, 8453, 42161])]},
]

# --------------------------------------------------------------------------
# aggregators (named liquidity sources)
# --------------------------------------------------------------------------
AGGREGATORS = [
    {"name": "uniswap", "chains": sorted(set([1] + [c for c, p, *_ in DEX_FACTORIES if p == "uniswap-v3"])), "protocols": ["uniswap-v2", "uniswap-v3"]},
    {"name": "sushiswap", "chains": [100, 146], "protocols": ["sushiswap-v2", "sushiswap-v3"]},
    {"name": "pancakeswap", "chains": [56], "protocols": ["pancakeswap-v2"]},
    {"name": "kodiak", "chains": [80094], "protocols": ["kodiak-v3"]},
    {"name": "curve", "chains": [1], "protocols": ["curve"]},
    {"name": "balancer", "chains": [1], "protocols": ["balancer-v2"]},
    {"name": "aave", "chains": [1, 8453, 42161], "protocols": ["aave-v3"]},
    {"name": "compound", "chains": [1], "protocols": ["compound-v2"]},
    {"name": "lido", "chains": [1], "protocols": ["lido"]},
    {"name": "vaults", "chains": [1, 8453], "protocols": ["spark-savings", "sky-savings", "morpho-vaults"]},
]

# --------------------------------------------------------------------------
# bridges
# --------------------------------------------------------------------------
CCTP_CHAINS = [1, 10, 130, 137, 146, 8453, 42161, 43114, 59144]
CCIP_ROUTERS = {
    1: "0x80226fc0ee2b096224eeac085bb9a8cba1146f7d", 10: "0x3206695cae29952f4b0c22a169725a865bc8ce0f",
    56: "0x34b03cb9086d7d758ac55af71584f81a598759fe", 100: "0x4aad6071085df840abd9baf1697d5d5992bdadce",
    130: "0x68891f5f96695ecd7dedbe2289d1b73426ae7864", 137: "0x849c5ed5a80f5b408dd4969b78c2c8fdf0565bfe",
    146: "0xb4e1ff7882474bb93042be9ad5e1fa387949b860", 8453: "0x881e3a65b4d4a04dd529061dd0071cf975f58bcd",
    42161: "0x141fa059441e0ca23ce184b6a78bafd2a517dde8", 43114: "0xf4c7e640eda248ef95972845a62bdc74237805db",
    59144: "0x549feb73f2348f6cd99b9fc8c69252034897f06c", 80094: "0x71a275704c283486fba26dad3dd0db78804426ef",
}
# Stargate V2 pools: (chainId, symbol, pool, eid)
EID = {1: 30101, 10: 30111, 56: 30102, 137: 30109, 8453: 30184, 42161: 30110, 43114: 30106, 59144: 30183}
SG = [
    (1, "USDC", "0xc026395860db2d07ee33e05fe50ed7bd583189c7"), (1, "USDT", "0x933597a323eb81cae705c5bc29985172fd5a3973"),
    (1, "ETH", "0x77b2043768d28e9c9ab44e1abfc95944bce57931"),
    (10, "USDC", "0xce8cca271ebc0533920c83d39f417ed6a0abb7d0"), (10, "USDT", "0x19cfce47ed54a88614648dc3f19a5980097007dd"),
    (10, "ETH", "0xe8cdf27acd73a434d661c84887215f7598e7d0d3"),
    (42161, "USDC", "0xe8cdf27acd73a434d661c84887215f7598e7d0d3"), (42161, "USDT", "0xce8cca271ebc0533920c83d39f417ed6a0abb7d0"),
    (42161, "ETH", "0xa45b5130f36cdca45667738e2a258ab09f4a5f7f"),
    (8453, "USDC", "0x27a16dc786820b16e5c9028b75b99f6f604b5d26"), (8453, "ETH", "0xdc181bd607330aeebef6ea62e03e5e1fb4b6f7c7"),
    (137, "USDC", "0x9aa02d4fae7f58b8e8f34c66e756cc734dac7fe4"), (137, "USDT", "0xd47b03ee6d86cf251ee7860fb2acf9f91b9fd4d7"),
    (56, "USDC", "0x962bd449e630b0d928f308ce63f1a21f02576057"), (56, "USDT", "0x138eb30f73bc423c6455c53df6d89cb01d9ebc63"),
    (43114, "USDC", "0x5634c4a5fed09819e3c46d86a965dd9447d86e47"), (43114, "USDT", "0x12dc9256acc9895b076f6638d628382881e62cee"),
    (59144, "ETH", "0x81f6138153d473e8c5ecebd3dc8cd4903506b075"),
]
LZ_POOLS = []
for c, s, p in SG:
    t = NATIVE if s == "ETH" else tok(c, s)
    LZ_POOLS.append({"chainId": c, "token": t, "pool": p, "decimals": DECIMALS[(c, t)], "eid": EID[c]})
SG_MAIN = {}
for c, s, p in SG:
    SG_MAIN.setdefault(c, p)  # first listed (USDC, or ETH on Linea)
RELAY_RECEIVER = "0xa5f565650890fba1824ee0f21ebbbf660a179934"
RELAY_CHAINS = [1, 10, 137, 8453, 42161]


def bridge_tokens(chains, syms):
    out = {}
    for c in chains:
        lst = []
        for s in syms:
            try:
                lst.append(NATIVE if s == "NATIVE" else tok(c, s))
            except KeyError:
                pass
        out[str(c)] = lst
    return out


BRIDGES = [
    {"name": "cctp", "feeBps": 0, "fixedFeeUsd": 0.0, "estimatedSeconds": 1140,
     "contracts": {str(c): "0x28b5a0e9c621a5badaa536219b3a228c8168cf5d" for c in CCTP_CHAINS},
     "tokens": bridge_tokens(CCTP_CHAINS, ["USDC"])},
    {"name": "stargate", "feeBps": 6, "fixedFeeUsd": 0.5, "estimatedSeconds": 180,
     "contracts": {str(c): p for c, p in sorted(SG_MAIN.items())},
     "tokens": {str(c): [lp["token"] for lp in LZ_POOLS if lp["chainId"] == c] for c in sorted(SG_MAIN)}},
    {"name": "ccip", "feeBps": 0, "fixedFeeUsd": 1.5, "estimatedSeconds": 1200,
     "contracts": {str(c): a for c, a in sorted(CCIP_ROUTERS.items())},
     "tokens": {str(c): ([tok(c, "USDC")] if c in (1, 10, 8453, 42161, 43114) else []) for c in sorted(CCIP_ROUTERS)}},
    {"name": "relay", "feeBps": 5, "fixedFeeUsd": 0.1, "estimatedSeconds": 15,
     "contracts": {str(c): RELAY_RECEIVER for c in RELAY_CHAINS},
     "tokens": bridge_tokens(RELAY_CHAINS, ["NATIVE", "USDC", "USDT"])},
]

# --------------------------------------------------------------------------
# non-tokenized positions
# --------------------------------------------------------------------------


def POSN(chain, project, protocol, address, pid, primary, name, underlying, logo_addr):
    return {"chainId": chain, "project": project, "protocol": protocol, "address": address, "positionId": pid,
            "primaryAddress": primary, "name": name, "logosUri": logo(chain, logo_addr), "underlyingTokens": underlying}


POSITIONS = [
    POSN(1, "aave", "aave-v3", E["vdEthUSDC"], "aave-v3:1:usdc:variable-debt", E["aavePool"],
         "Aave V3 USDC variable borrow", [tok(1, "USDC")], tok(1, "USDC")),
    POSN(1, "aave", "aave-v3", E["vdEthWETH"], "aave-v3:1:weth:variable-debt", E["aavePool"],
         "Aave V3 WETH variable borrow", [tok(1, "WETH")], tok(1, "WETH")),
    POSN(8453, "aave", "aave-v3", B["vdBasUSDC"], "aave-v3:8453:usdc:variable-debt", B["aavePool"],
         "Aave V3 Base USDC variable borrow", [tok(8453, "USDC")], tok(8453, "USDC")),
    POSN(8453, "aave", "aave-v3", B["vdBasWETH"], "aave-v3:8453:weth:variable-debt", B["aavePool"],
         "Aave V3 Base WETH variable borrow", [tok(8453, "WETH")], tok(8453, "WETH")),
    POSN(1, "compound", "compound-v3", E["cUSDCv3"], "compound-v3:1:cusdcv3:borrow", E["cUSDCv3"],
         "Compound V3 USDC borrow (cUSDCv3)", [tok(1, "USDC")], tok(1, "USDC")),
    POSN(1, "curve", "curve-gauge", E["3poolGauge"], "curve-gauge:1:3pool:stake", E["3poolGauge"],
         "Curve 3pool gauge deposit", [E["3Crv"]], tok(1, "DAI")),
    POSN(1, "curve", "curve-gauge", E["steCRVGauge"], "curve-gauge:1:steth:stake", E["steCRVGauge"],
         "Curve stETH/ETH gauge deposit", [E["steCRV"]], E["stETH"]),
]

# --------------------------------------------------------------------------
# contracts
# --------------------------------------------------------------------------
ROUTER = "0xf75584ef6673ad213a685a1b58cc0330b8ea22cf"
EXECUTOR = "0x4fe93ebc4ce6ae4f81601cc7ce7139023919e003"
DELEGATE = "0xa2f4f9c6ec598ca8c633024f8851c79ca5f43e48"
LEGACY_ROUTER = "0x80eba3855878739f4710233a8a19d89bdd2ffb8e"
LINEA_ROUTER = "0xa146d46823f3f594b785200102be5385cafce9b5"
LEGACY_DELEGATE = "0x38147794ff247e5fc179edbae6c37fff88f68c52"
# Linea delegate: DelegateEnsoShortcuts from Enso's own deployment broadcast
# (EnsoBuild/shortcuts-client-contracts broadcast/DelegateDeployer.s.sol/59144).
LINEA_DELEGATE = "0x82309f58b39c4c27cf2594801ba5e8fd34f641b8"


def create_address(deployer: str, nonce: int) -> str:
    """CREATE address (nonce < 0x80)."""
    rlp = bytes([0xc0 + 22, 0x80 + 20]) + bytes.fromhex(deployer[2:]) + bytes([nonce])
    return "0x" + k256(rlp)[12:].hex()


# The EnsoRouter constructor deploys its EnsoShortcuts executor with `new`
# (CREATE, router nonce 1).  This reproduces the published mainnet pair
# (router 0xf755... -> executor 0x4fe9...), and gives Linea's executor.
assert create_address(ROUTER, 1) == EXECUTOR
LINEA_EXECUTOR = create_address(LINEA_ROUTER, 1)
CONTRACTS = []
for cid in ALL:
    CONTRACTS.append({"chainId": cid, "strategy": "router",
                      "router": LINEA_ROUTER if cid == 59144 else ROUTER,
                      "executor": LINEA_EXECUTOR if cid == 59144 else EXECUTOR})
    CONTRACTS.append({"chainId": cid, "strategy": "delegate",
                      "delegate": LINEA_DELEGATE if cid == 59144 else DELEGATE})
    CONTRACTS.append({"chainId": cid, "strategy": "router-legacy", "router": LEGACY_ROUTER})
for cid in (1, 137, 8453):
    CONTRACTS.append({"chainId": cid, "strategy": "delegate-legacy", "delegate": LEGACY_DELEGATE})

# --------------------------------------------------------------------------
# write
# --------------------------------------------------------------------------


def dump(name, obj):
    with open(os.path.join(OUT, name), "w") as f:
        json.dump(obj, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    dump("networks.json", {"networks": [
        {"id": cid, "name": name, "nativeCurrency": {"symbol": s, "name": n, "decimals": 18},
         "wrappedNative": w, "blockTimeSeconds": bt} for cid, name, s, n, w, bt in NETWORKS]})
    dump("tokens.json", {"tokens": TOKENS})
    dump("protocols.json", {"protocols": PROTOCOLS})
    dump("standards.json", {"standards": STANDARDS})
    dump("actions.json", {"actions": [{"action": a, "inputs": i} for a, i in ACTIONS.items()]})
    dump("aggregators.json", {"aggregators": AGGREGATORS})
    dump("bridges.json", {"bridges": BRIDGES})
    dump("layerzero.json", {"layerzeroPools": LZ_POOLS})
    dump("positions.json", {"positions": POSITIONS})
    dump("factories.json", {"dexFactories": [
        {"chainId": c, "protocol": p, "kind": k, "factory": f, "initCodeHash": h} for c, p, k, f, h in DEX_FACTORIES]})
    dump("contracts.json", {"contracts": CONTRACTS})
    used = sorted({p["chainId"] for p in POOLS})
    dump("market.json", {
        "description": "demo snapshot: real pool addresses, plausible demo state (ETH 3000, BTC 95000 USD); not a recording of the chain, do not trade on it",
        "chains": [{"chainId": c, "blockNumber": b, "timestamp": t, "gasPriceWei": g} for c, b, t, g in CHAINS if c in used],
        "pools": POOLS})
    print(f"wrote {len(POOLS)} pools, {len(TOKENS)} tokens to {OUT}")
