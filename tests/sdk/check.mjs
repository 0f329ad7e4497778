// Drives the official TypeScript client (@ensofinance/sdk 2.5.0) against a
// running switchyard and checks every metadata response against the shapes
// the client declares in src/types/types.ts.
//
// Usage: node check.mjs <baseURL ending in /api/v1> <api key>
// Prints one line per check and "N passed, M failed"; exits 1 on failure.

import { EnsoClient } from "@ensofinance/sdk";

const [baseURL, apiKey] = process.argv.slice(2);
if (!baseURL || !apiKey) {
  console.error("usage: node check.mjs <baseURL> <apiKey>");
  process.exit(2);
}
const client = new EnsoClient({ baseURL, apiKey });

const USDC = "0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48";
const WETH = "0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2";
const WBTC = "0x2260fac5e5542a773aa44fbcfedf7c193bc2c599";
const SDAI = "0x83f20f44975d03b1b09e64809b757c47f942beea";
const TX = "0x" + "ab".repeat(32);

// --- shape checking, after types.ts -------------------------------------

function typeOf(v) {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  return typeof v;
}

// spec: { key: "number" | "string|null" | ["array", itemSpec] | {nested spec} | "any" }
function check(value, spec, path = "$") {
  if (typeof spec === "string") {
    const allowed = spec.split("|");
    if (allowed.includes("any")) return;
    if (!allowed.includes(typeOf(value))) {
      throw new Error(`${path}: expected ${spec}, got ${typeOf(value)} ${JSON.stringify(value)}`);
    }
    return;
  }
  if (Array.isArray(spec)) {
    const [kind, item, nullable] = spec;
    if (nullable && value === null) return;
    if (kind !== "array" || !Array.isArray(value)) {
      throw new Error(`${path}: expected array, got ${typeOf(value)}`);
    }
    value.forEach((v, i) => check(v, item, `${path}[${i}]`));
    return;
  }
  if (typeOf(value) !== "object") throw new Error(`${path}: expected object, got ${typeOf(value)}`);
  for (const [k, s] of Object.entries(spec)) {
    const optional = k.endsWith("?");
    const key = optional ? k.slice(0, -1) : k;
    if (!(key in value)) {
      if (optional) continue;
      throw new Error(`${path}.${key}: missing`);
    }
    if (optional && value[key] === undefined) continue;
    check(value[key], s, `${path}.${key}`);
  }
}

const Network = { id: "number", name: "string|null" };
const ConnectedNetwork = { id: "number", name: "string|null", isConnected: "boolean" };
const Pagination = {
  total: "number", lastPage: "number", currentPage: "number", perPage: "number",
  prev: "number|null", next: "number|null", cursor: "number|null",
};
const UnderlyingToken = {
  address: "string", chainId: "number", type: "string", decimals: "number",
  symbol: "string|null", name: "string|null", logosUri: ["array", "string", true],
};
const Token = {
  ...UnderlyingToken,
  underlyingTokens: ["array", UnderlyingToken, true],
  project: "string|null", protocolSlug: "string|null",
  apy: "number|string|null", apyBase: "number|string|null", apyReward: "number|string|null",
  tvl: "number|string|null", primaryAddress: "string|null",
};
const ProtocolData = {
  project: "string", slug: "string", name: "string|null", description: "string|null",
  url: "string|null", logosUri: ["array", "string", true], chains: ["array", Network, true],
};
const StandardAction = {
  action: "string", name: "string|null", functionNames: ["array", "string"],
  supportedChains: ["array", Network], inputs: ["array", "string"],
};
const StandardData = {
  protocol: { slug: "string", url: "string" },
  forks: ["array", { slug: "string", url: "string" }],
  actions: ["array", StandardAction],
};
const ActionData = { action: "string", inputs: "object" };
const ActionInput = { type: "string", description: "string", "optional?": "boolean" };
const Project = { id: "string", "chains?": ["array", "number"], protocols: ["array", "string"] };
const PriceData = {
  price: "number|string", address: "string", decimals: "number", symbol: "string",
  timestamp: "number", chainId: "number", confidence: "number",
};
const NonTokenized = {
  chainId: "number", protocol: "string", address: "string", primaryAddress: "string|null",
  underlyingTokens: ["array", UnderlyingToken, true],
};
const LzPool = {
  pool: "string", chainId: "number", destinationChainId: "number", token: "string", decimals: "number",
  destinationData: { pool: "string", token: "string", decimals: "number" },
};
const BridgeStatus = {
  sourceChainId: "number", sourceTxHash: "string", status: "string", "error?": "string",
  "destinationChainId?": "number", "destinationTxHash?": "string", "layerZeroMessage?": "object",
  "ensoSourceEvent?": "object", "ensoDestinationEvent?": "object",
};

// --- the checks ------------------------------------------------------------

let passed = 0;
let failed = 0;
async function test(name, fn) {
  try {
    await fn();
    passed += 1;
    console.log(`ok   ${name}`);
  } catch (e) {
    failed += 1;
    console.log(`FAIL ${name}: ${e && e.stack ? e.stack : e}`);
  }
}
function assert(cond, msg) {
  if (!cond) throw new Error(msg);
}

await test("getNetworks", async () => {
  const r = await client.getNetworks();
  check(r, ["array", ConnectedNetwork]);
  assert(r.length >= 11 && r.some((n) => n.id === 1 && n.name === "Ethereum"), "ethereum listed");
});
await test("getNetworks by chainId", async () => {
  const r = await client.getNetworks({ chainId: "8453" });
  check(r, ["array", ConnectedNetwork]);
  assert(r.length === 1 && r[0].name === "Base", JSON.stringify(r));
});
await test("getAggregators", async () => {
  const all = await client.getAggregators();
  check(all, ["array", "string"]);
  const bsc = await client.getAggregators(56);
  assert(bsc.includes("pancakeswap") && !bsc.includes("curve"), JSON.stringify(bsc));
});
await test("getStandards", async () => {
  const r = await client.getStandards();
  check(r, ["array", StandardData]);
  assert(r.some((s) => s.protocol.slug === "aave-v3"), "aave-v3 standard");
});
await test("getStandardBySlug", async () => {
  const r = await client.getStandardBySlug("uniswap-v2");
  check(r, ["array", StandardData]);
  assert(r[0].actions.some((a) => a.action === "swap"), "swap action");
});
await test("getActions", async () => {
  const r = await client.getActions();
  check(r, ["array", ActionData]);
  for (const a of r) for (const [k, v] of Object.entries(a.inputs)) check(v, ActionInput, `${a.action}.${k}`);
  const route = r.find((a) => a.action === "route");
  assert(route && route.inputs.tokenIn && route.inputs.amountIn, "route inputs");
});
await test("getActionsBySlug", async () => {
  const r = await client.getActionsBySlug("aave-v3");
  check(r, ["array", ActionData]);
  assert(r.some((a) => a.action === "borrow"), "borrow");
});
await test("getProjects", async () => {
  const r = await client.getProjects();
  check(r, ["array", Project]);
  assert(r.some((p) => p.id === "uniswap" && p.protocols.includes("uniswap-v3")), "uniswap project");
});
await test("getProtocolsByProject", async () => {
  const r = await client.getProtocolsByProject("aave");
  check(r, ["array", ProtocolData]);
  assert(r[0].slug === "aave-v3", "aave-v3");
});
await test("getProtocolData", async () => {
  const all = await client.getProtocolData();
  check(all, ["array", ProtocolData]);
  const one = await client.getProtocolData({ chainId: 1, slug: "lido" });
  assert(one.length === 1 && one[0].project === "lido", JSON.stringify(one));
});
await test("getTokenData (defi, metadata)", async () => {
  const r = await client.getTokenData({ chainId: 1, type: "defi", includeMetadata: true });
  check(r, { meta: Pagination, data: ["array", Token] });
  const sdai = r.data.find((t) => t.address === SDAI);
  assert(sdai && sdai.symbol === "sDAI" && sdai.underlyingTokens[0].symbol === "DAI", "sDAI with DAI underlying");
});
await test("getTokenData (array params, axios bracket encoding)", async () => {
  const r = await client.getTokenData({ underlyingTokens: [USDC, WETH], pageSize: 10 });
  check(r, { meta: Pagination, data: ["array", Token] });
  assert(r.data.length === 1 && r.meta.total === 1, JSON.stringify(r.meta));
});
await test("getTokenData (pagination)", async () => {
  const r = await client.getTokenData({ pageSize: 10, page: 2 });
  check(r, { meta: Pagination, data: ["array", Token] });
  assert(r.meta.currentPage === 2 && r.meta.prev === 1 && r.data.length === 10, JSON.stringify(r.meta));
});
await test("getNonTokenizedPositions", async () => {
  const r = await client.getNonTokenizedPositions({ chainId: 1 });
  check(r, { meta: Pagination, data: ["array", NonTokenized] });
  assert(r.data.length >= 3, "positions on ethereum");
});
await test("getPriceData", async () => {
  const r = await client.getPriceData({ chainId: 1, address: WETH });
  check(r, PriceData);
  assert(r.price > 2500 && r.price < 3500 && r.symbol === "WETH", JSON.stringify(r));
});
await test("getMultiplePriceData", async () => {
  const r = await client.getMultiplePriceData({ chainId: 1, addresses: [WBTC, USDC] });
  check(r, ["array", PriceData]);
  assert(r[0].symbol === "WBTC" && r[1].price === 1, JSON.stringify(r));
});
await test("getPriceData of an unknown token is an EnsoApiError 404", async () => {
  try {
    await client.getPriceData({ chainId: 1, address: "0x0000000000000000000000000000000000000001" });
    throw new Error("expected an error");
  } catch (e) {
    assert(e.name === "EnsoApiError" && e.statusCode === 404, `got ${e}`);
    assert(/not known/.test(e.message), e.message);
  }
});
await test("getAccountId", async () => {
  const r = await client.getAccountId();
  assert(typeof r === "string" && /^[0-9a-f-]{36}$/.test(r), JSON.stringify(r));
});
await test("getLayerZeroPool", async () => {
  const r = await client.getLayerZeroPool({ chainId: 1, token: USDC, destinationChainId: 42161 });
  check(r, ["array", LzPool]);
  assert(r.length === 1 && r[0].destinationData.decimals === 6, JSON.stringify(r));
});
await test("getStargatePool", async () => {
  const r = await client.getStargatePool({ chainId: 1, token: USDC });
  check(r, ["array", LzPool]);
  assert(r.length >= 3, "several destinations");
});
await test("getCcipRouter", async () => {
  const r = await client.getCcipRouter({ chainId: 1 });
  check(r, { router: "string" });
  assert(r.router === "0x80226fc0ee2b096224eeac085bb9a8cba1146f7d", r.router);
});
await test("getCctpTokenMessenger", async () => {
  const r = await client.getCctpTokenMessenger({ chainId: 42161 });
  check(r, { address: "string" });
});
await test("getBridgeStatus", async () => {
  for (const bridgeProtocol of ["layerzero", "stargate", "ccip", "relay", "cctp"]) {
    const r = await client.getBridgeStatus({ bridgeProtocol, chainId: 1, txHash: TX });
    check(r, BridgeStatus);
    assert(r.status === "unknown" && r.sourceTxHash === TX, JSON.stringify(r));
  }
});
await test("getCctpClaimTransaction", async () => {
  const r = await client.getCctpClaimTransaction({ chainId: 1, txHash: TX });
  check(r, { claimable: "boolean", "reason?": "string" });
  assert(r.claimable === false, JSON.stringify(r));
});
const TX_SHAPE = { data: "string", to: "string", from: "string", value: "string" };
const HOP = {
  tokenIn: ["array", "string"], tokenOut: ["array", "string"], protocol: "string",
  action: "string", "primary?": "string", chainId: "number", "args?": "object",
};
await test("getRouteData builds an executed transaction", async () => {
  const r = await client.getRouteData({
    fromAddress: "0xd8da6bf26964af9d7eed9e03e53415d37aa96045", chainId: 1, amountIn: ["1000000000"],
    tokenIn: [USDC], tokenOut: [WETH], routingStrategy: "router", slippage: "100", referralCode: "sdk-check",
  });
  check(r, {
    route: ["array", HOP], gas: "string", amountOut: "string", "blockNumber?": "number",
    "priceImpact?": "number|null", createdAt: "number", tx: TX_SHAPE, "feeAmount?": ["array", "string"],
    "minAmountOut?": "string", "validUntil?": "number",
  });
  assert(BigInt(r.minAmountOut) === (BigInt(r.amountOut) * 9900n) / 10000n, JSON.stringify(r));
  assert(r.tx.to === "0xf75584ef6673ad213a685a1b58cc0330b8ea22cf", r.tx.to);
  assert(BigInt(r.gas) > 21000n, r.gas);
});
await test("getRouteData with several outputs answers one amount per output", async () => {
  const r = await client.getRouteData({
    fromAddress: "0xd8da6bf26964af9d7eed9e03e53415d37aa96045", chainId: 1,
    amountIn: ["1000000000", "1000000000000000000"], tokenIn: [USDC, WETH], tokenOut: [WETH, USDC],
    routingStrategy: "router",
  });
  check(r, { amountOut: ["array", "string"], minAmountOut: ["array", "string"], tx: TX_SHAPE });
  assert(r.amountOut.length === 2, JSON.stringify(r.amountOut));
});

const USDC_BASE = "0x833589fcd6edb6e08f4c7c32d4f71b54bda02913";
const CCTP_MESSENGER = "0x28b5a0e9c621a5badaa536219b3a228c8168cf5d";
const BRIDGE_ESTIMATE = {
  fromChainId: "number", toChainId: "number", token: "string", estimatedSeconds: "number",
  "sendConfirmations?": "number", "receiveConfirmations?": "number", "sendBlockTimeSeconds?": "number",
  "receiveBlockTimeSeconds?": "number", "bridge?": "string", "source?": "string", "note?": "string",
};
await test("getRouteData across chains with a swap on arrival goes by a Stargate taxi (the fee its value)", async () => {
  const WETH_BASE = "0x4200000000000000000000000000000000000006";
  const r = await client.getRouteData({
    fromAddress: "0xd8da6bf26964af9d7eed9e03e53415d37aa96045", chainId: 1, destinationChainId: 8453,
    receiver: "0xd8da6bf26964af9d7eed9e03e53415d37aa96045", amountIn: ["1000000000"],
    tokenIn: [USDC], tokenOut: [WETH_BASE], routingStrategy: "router",
  });
  check(r, { route: ["array", HOP], amountOut: "string", tx: TX_SHAPE, bridgingEstimates: ["array", BRIDGE_ESTIMATE] });
  assert(r.bridgingEstimates[0].bridge === "stargate", JSON.stringify(r.bridgingEstimates));
  assert(BigInt(r.tx.value) > 0n, r.tx.value);
  assert(r.route.some((h) => h.action === "bridge" && h.protocol === "stargate"), JSON.stringify(r.route));
  assert(r.route.some((h) => h.chainId === 8453 && h.action !== "bridge"), JSON.stringify(r.route));
});
await test("getRouteData across chains goes through CCTP (bridgingEstimates, a bridge hop)", async () => {
  const r = await client.getRouteData({
    fromAddress: "0xd8da6bf26964af9d7eed9e03e53415d37aa96045", chainId: 1, destinationChainId: 8453,
    receiver: "0xd8da6bf26964af9d7eed9e03e53415d37aa96045", amountIn: ["1000000000"],
    tokenIn: [USDC], tokenOut: [USDC_BASE], routingStrategy: "router",
  });
  check(r, { route: ["array", HOP], amountOut: "string", tx: TX_SHAPE, bridgingEstimates: ["array", BRIDGE_ESTIMATE] });
  assert(r.amountOut === "1000000000", r.amountOut);
  assert(r.bridgingEstimates[0].bridge === "cctp" && r.bridgingEstimates[0].toChainId === 8453, JSON.stringify(r.bridgingEstimates));
  assert(r.route.some((h) => h.action === "bridge" && h.protocol === "cctp"), JSON.stringify(r.route));
});
await test("getBundleData bridges through CCTP (amountsOut on the destination, bridgingEstimates)", async () => {
  const r = await client.getBundleData(
    { chainId: 1, fromAddress: "0xd8da6bf26964af9d7eed9e03e53415d37aa96045", routingStrategy: "router" },
    [
      { protocol: "enso", action: "route", args: { tokenIn: WETH, tokenOut: USDC, amountIn: "1000000000000000000", slippage: "100" } },
      {
        protocol: "cctp", action: "bridge",
        args: {
          tokenIn: USDC, amountIn: { useOutputOfCallAt: 0 }, primaryAddress: CCTP_MESSENGER,
          destinationChainId: 8453, receiver: "0xd8da6bf26964af9d7eed9e03e53415d37aa96045",
        },
      },
    ],
  );
  check(r, { bundle: ["array", "object"], tx: TX_SHAPE, amountsOut: "object", bridgingEstimates: ["array", BRIDGE_ESTIMATE] });
  const out = Object.fromEntries(Object.entries(r.amountsOut).map(([k, v]) => [k.toLowerCase(), v]));
  assert(BigInt(out[USDC_BASE] ?? "0") > 0n && out[USDC] === undefined, JSON.stringify(r.amountsOut));
});

await test("getApprovalData approves the router, never the executor", async () => {
  const r = await client.getApprovalData({
    chainId: 1, fromAddress: "0xd8da6bf26964af9d7eed9e03e53415d37aa96045",
    tokenAddress: USDC, amount: "1000000000", routingStrategy: "router",
  });
  check(r, { tx: TX_SHAPE, gas: "string", token: "string", amount: "string", spender: "string" });
  assert(r.spender === "0xf75584ef6673ad213a685a1b58cc0330b8ea22cf", r.spender);
  assert(r.tx.to === USDC && r.tx.data.startsWith("0x095ea7b3"), JSON.stringify(r.tx));
});
await test("getBalances of an address", async () => {
  const r = await client.getBalances({
    chainId: 1, eoaAddress: "0xd8da6bf26964af9d7eed9e03e53415d37aa96045", useEoa: true,
  });
  check(r, ["array", { token: "string", amount: "string", chainId: "number", decimals: "number", "price?": "any", "name?": "any", "symbol?": "any", "logoUri?": "any" }]);
});

await test("getBundleData mints a Uniswap V3 position (depositclmm)", async () => {
  const NPM = "0xc36442b4a4522e871399cd717abdd847ab11fe88";
  const r = await client.getBundleData(
    { chainId: 1, fromAddress: "0xd8da6bf26964af9d7eed9e03e53415d37aa96045", routingStrategy: "router" },
    [{
      protocol: "uniswap-v3", action: "depositclmm",
      args: { tokenIn: [WETH, USDC], tokenOut: NPM, amountIn: ["400000000000000000", "1000000000"], ticks: ["196000", "196500"], poolFee: "500" },
    }],
  );
  check(r, { bundle: ["array", "object"], tx: TX_SHAPE, "gas?": "string", amountsOut: "object", createdAt: "number" });
  const out = Object.fromEntries(Object.entries(r.amountsOut).map(([k, v]) => [k.toLowerCase(), v]));
  assert(out[NPM] === "1", `one position: ${JSON.stringify(r.amountsOut)}`);
});

await test("getBundleData borrows a flash loan from Aave V3 (flashloan)", async () => {
  const r = await client.getBundleData(
    { chainId: 1, fromAddress: "0xd8da6bf26964af9d7eed9e03e53415d37aa96045", routingStrategy: "router" },
    [{
      protocol: "aave-v3", action: "flashloan",
      args: {
        flashloanToken: USDC, flashloanAmount: "1000000000", tokenIn: [USDC], amountIn: ["50000000"], tokenOut: USDC,
        callback: [
          { protocol: "enso", action: "route", args: { tokenIn: USDC, tokenOut: WETH, amountIn: "1000000000", slippage: "100" } },
          { protocol: "enso", action: "route", args: { tokenIn: WETH, tokenOut: USDC, amountIn: { useOutputOfCallAt: 0 }, slippage: "100" } },
        ],
      },
    }],
  );
  check(r, { bundle: ["array", "object"], tx: TX_SHAPE, "gas?": "string", "amountsOut?": "object", createdAt: "number" });
  assert(r.tx.to.toLowerCase() === "0xf75584ef6673ad213a685a1b58cc0330b8ea22cf", JSON.stringify(r.tx));
});

await test("getBundleData borrows a flash loan from a Uniswap V3 pool (flashloan)", async () => {
  const pool = "0x88e6a0c2ddd26feeb64f039a2c41296fcb3f5640";
  const r = await client.getBundleData(
    { chainId: 1, fromAddress: "0xd8da6bf26964af9d7eed9e03e53415d37aa96045", routingStrategy: "router" },
    [{
      protocol: "uniswap-v3", action: "flashloan",
      args: {
        flashloanToken: USDC, flashloanAmount: "1000000000", tokenIn: [USDC], amountIn: ["500000"], tokenOut: USDC,
        primaryAddress: pool,
        callback: [{ protocol: "enso", action: "balance", args: { token: USDC } }],
      },
    }],
  );
  check(r, { bundle: ["array", "object"], tx: TX_SHAPE, "gas?": "string", "amountsOut?": "object", createdAt: "number" });
  assert(r.tx.to.toLowerCase() === "0xf75584ef6673ad213a685a1b58cc0330b8ea22cf", JSON.stringify(r.tx));
});

await test("getBundleData borrows a flash loan from Morpho Blue (flashloan, no fee)", async () => {
  const r = await client.getBundleData(
    { chainId: 1, fromAddress: "0xd8da6bf26964af9d7eed9e03e53415d37aa96045", routingStrategy: "router" },
    [{
      protocol: "morpho-blue", action: "flashloan",
      args: {
        flashloanToken: USDC, flashloanAmount: "1000000000", tokenOut: USDC,
        callback: [{ protocol: "enso", action: "balance", args: { token: USDC } }],
      },
    }],
  );
  check(r, { bundle: ["array", "object"], tx: TX_SHAPE, "gas?": "string", "amountsOut?": "object", createdAt: "number" });
  assert(r.tx.to.toLowerCase() === "0xf75584ef6673ad213a685a1b58cc0330b8ea22cf", JSON.stringify(r.tx));
  assert(BigInt(r.tx.value) === 0n, r.tx.value);
});

await test("getBundleData routes across chains and swaps on arrival (a route action by a Stargate taxi)", async () => {
  const WETH_ARB = "0x82af49447d8a07e3bd95bd0d56f35241523fbab1";
  const r = await client.getBundleData(
    { chainId: 1, fromAddress: "0xd8da6bf26964af9d7eed9e03e53415d37aa96045", routingStrategy: "router" },
    [{
      protocol: "enso", action: "route",
      args: { tokenIn: USDC, tokenOut: WETH_ARB, amountIn: "5000000000", destinationChainId: 42161, receiver: "0xd8da6bf26964af9d7eed9e03e53415d37aa96045" },
    }],
  );
  check(r, { bundle: ["array", "object"], tx: TX_SHAPE, "gas?": "string", amountsOut: "object", createdAt: "number" });
  const out = Object.fromEntries(Object.entries(r.amountsOut).map(([k, v]) => [k.toLowerCase(), v]));
  assert(BigInt(out[WETH_ARB]) > 0n && Object.keys(out).length === 1, JSON.stringify(r.amountsOut));
  assert(BigInt(r.tx.value) > 0n, "LayerZero's fee rides with the transaction");
});

await test("getBundleData bridges ETH through Stargate with a callback and its callbackValue", async () => {
  const ETH = "0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee";
  const WETH_BASE = "0x4200000000000000000000000000000000000006";
  const r = await client.getBundleData(
    { chainId: 1, fromAddress: "0xd8da6bf26964af9d7eed9e03e53415d37aa96045", routingStrategy: "router" },
    [{
      protocol: "stargate", action: "bridge",
      args: {
        tokenIn: ETH, amountIn: "1000000000000000000", primaryAddress: "0x77b2043768d28e9c9ab44e1abfc95944bce57931",
        destinationChainId: 8453, receiver: "0xd8da6bf26964af9d7eed9e03e53415d37aa96045",
        callbackValue: "10000000000000000",
        callback: [
          { protocol: "enso", action: "balance", args: { token: ETH } },
          { protocol: "enso", action: "route", args: { tokenIn: ETH, tokenOut: WETH_BASE, amountIn: { useOutputOfCallAt: 0 } } },
        ],
      },
    }],
  );
  check(r, { bundle: ["array", "object"], tx: TX_SHAPE, "gas?": "string", amountsOut: "object", createdAt: "number" });
  const out = Object.fromEntries(Object.entries(r.amountsOut).map(([k, v]) => [k.toLowerCase(), v]));
  // What arrives (1 ETH less Stargate's fee) and the value, wrapped.
  assert(out[WETH_BASE] === "1009399000000000000", JSON.stringify(r.amountsOut));
  assert(BigInt(r.tx.value) === 1017500000000000000n, JSON.stringify(r.tx));
});

// The client's own bundle examples (tests/docs.actions.test.ts): each is
// built, or refused with a 4xx that names the action it cannot build.
// Those whose actions and addresses the embedded catalog has must build.
const BUILDS = new Set([
  "slippage", "route", "swap", "call", "deposit", "borrow", "repay", "harvest", "approve",
  "fee", "merge", "balance", "minAmountOut", "multiDeposit",
]);
{
  const { readFileSync } = await import("node:fs");
  const file = new URL("./node_modules/@ensofinance/sdk/tests/docs.actions.test.ts", import.meta.url);
  const text = readFileSync(file, "utf8");
  const examples = [];
  const itRe = /\bit(?:\.skip)?\(\s*"([^"]+)"/g;
  let m;
  while ((m = itRe.exec(text))) {
    const name = m[1];
    const call = text.indexOf("client.getBundleData(", m.index);
    const next = text.slice(m.index + 1).search(/\bit(?:\.skip)?\(\s*"/);
    if (call < 0 || (next >= 0 && call > m.index + 1 + next)) continue;
    // The call's arguments: up to the matching parenthesis.
    let depth = 0;
    let end = call + "client.getBundleData".length;
    for (; end < text.length; end++) {
      if (text[end] === "(") depth++;
      else if (text[end] === ")" && --depth === 0) break;
    }
    // TypeScript casts (`x as Address`) are the only non-JavaScript in them.
    const args = text
      .slice(call + "client.getBundleData(".length, end)
      .replace(/\s+as\s+[A-Za-z_][\w.]*(?:<[^>]*>)?(?:\[\])?/g, "");
    try {
      examples.push({ name, args: new Function(`return [${args}];`)() });
    } catch (e) {
      // Examples built from the test file's own variables (its HyperEVM
      // wallet flows) are not self-contained.
      console.log(`     skipped example "${name}": ${e.message}`);
    }
  }
  assert(examples.length >= 15, `found ${examples.length} examples`);
  for (const { name, args } of examples) {
    await test(`bundle example "${name}"`, async () => {
      try {
        const r = await client.getBundleData(args[0], args[1]);
        check(r, { bundle: ["array", "object"], tx: TX_SHAPE, "gas?": "string", "amountsOut?": "object", createdAt: "number" });
        assert(BUILDS.has(name), `built, but "${name}" is not expected to: update the list`);
      } catch (e) {
        const status = e?.response?.status ?? e?.status ?? e?.statusCode;
        const body = e?.responseData ?? e?.response?.data ?? e?.data;
        if (BUILDS.has(name)) throw new Error(`"${name}" must build: ${status} ${JSON.stringify(body)}`);
        // 4xx, or 501 for an action the catalog lists that this version
        // does not build; never another 5xx.
        assert((status >= 400 && status < 500) || status === 501, `"${name}": ${status} ${JSON.stringify(body)} ${e}`);
        assert(typeof body?.field === "string" && body.field.length > 0, `"${name}" names no field: ${JSON.stringify(body)}`);
        console.log(`     refused with ${status} at ${body.field}: ${body.message}`);
      }
    });
  }
}

console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
