// Golden vectors for kernel/src/amm/weighted.rs, computed by an independent
// implementation: @balancer-labs/balancer-maths 0.0.41 (pinned in
// package-lock.json), Balancer's own BigInt port of their pool maths.
//
//   npm ci && node gen.mjs > vectors.json
//
// The package is the V3 maths, but the parts used here are the V2 formulas:
//   - LogExpMath.pow / exp / _ln / _ln_36 are line for line the Solidity
//     LogExpMath of @balancer-labs/v2-solidity-utils (same a0..a11 / x0..x11,
//     12 Taylor terms for exp, 6 and 8 atanh terms for ln and ln_36, the same
//     bounds and MILD_EXPONENT_BOUND), with BigInt `/` and `%` truncating
//     toward zero as sdiv/smod do;
//   - MathSol.mulDownFixed / mulUpFixed / divDownFixed / divUpFixed /
//     complementFixed are FixedPoint's, and MathSol.powUpFixed(x, y) is
//     FixedPoint.powUp of solidity-utils 4.0.0 (exact 1/2/4 shortcuts, then
//     raw + mulUp(raw, 10000) + 1); powUpFixed(x, y, 1) is the powUp of the
//     first 2021 deployments, which has no shortcuts;
//   - _computeOutGivenExactIn (exported) is WeightedMath._calcOutGivenIn:
//     MAX_IN_RATIO 0.3e18, base = divUp(bI, bI + aI), exponent = divDown(wI,
//     wO), powUp, mulDown(bO, complement(power)).
// BigInt never overflows, so the vectors stay where uint256 does not either;
// reverts are recorded as the AmmError the Rust side must return.
//
// The package bundles MathSol and LogExpMath without exporting them; we load
// a copy of the bundle with one export line appended (no code is changed).
// The V2 onSwap wrapper (fee with mulUp on the raw amount, _upscale by
// 10^(18-decimals) * 1e18 with mulDown, _downscaleDown with divDown) is
// composed here from those primitives, as BaseMinimalSwapInfoPool does.

import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const bundlePath = require
    .resolve('@balancer-labs/balancer-maths')
    .replace(/index\.js$/, 'index.mjs');
const bundle = readFileSync(bundlePath, 'utf8');
const lib = await import(
    'data:text/javascript;base64,' +
        Buffer.from(
            bundle + '\nexport { MathSol as __MathSol, LogExpMath as __LogExpMath };\n',
        ).toString('base64')
);
const MathSol = lib.__MathSol;
const LogExpMath = lib.__LogExpMath;
const computeOutGivenExactIn = lib._computeOutGivenExactIn;
const version = JSON.parse(
    readFileSync(require.resolve('@balancer-labs/balancer-maths/package.json'), 'utf8'),
).version;

const WAD = 10n ** 18n;
const U256_MAX = (1n << 256n) - 1n;
const e18 = (x) => BigInt(Math.round(x * 1e6)) * 10n ** 12n;

// Deterministic PRNG (mulberry32) so that regenerating gives the same file.
let seed = 0x5eed1234;
function rand() {
    seed = (seed + 0x6d2b79f5) >>> 0;
    let t = seed;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
function randBig(lo, hi) {
    // Uniform-ish in [lo, hi] from 4 x 32 random bits.
    let r = 0n;
    for (let k = 0; k < 4; k++) r = (r << 32n) | BigInt(Math.floor(rand() * 4294967296));
    return lo + (r % (hi - lo + 1n));
}
const pick = (xs) => xs[Math.floor(rand() * xs.length)];

// The Rust side's error for a JS throw.
function errorOf(e) {
    const m = String(e && e.message);
    if (m === 'MaxInRatio exceeded') return 'InsufficientLiquidity';
    if (m.startsWith('Errors.')) return 'InvalidState';
    if (e instanceof RangeError && /[Dd]ivision by zero/.test(m)) return 'InvalidState';
    throw e;
}

const vectors = [];
function record(fn, args, compute, note) {
    for (const a of args) {
        if (typeof a === 'bigint' && (a > U256_MAX || a < -(1n << 255n))) {
            throw new Error(`${fn}: argument out of range ${a}`);
        }
    }
    const v = { fn, args: args.map(String) };
    if (note) v.note = note;
    try {
        const r = compute();
        if (r < 0n && fn !== 'exp' && fn !== 'ln') throw new Error(`${fn}: negative ${r}`);
        if (r > U256_MAX) throw new Error(`${fn}: result overflows uint256`);
        v.expected = r.toString();
    } catch (e) {
        v.error = errorOf(e);
    }
    vectors.push(v);
}

// --- FixedPoint -------------------------------------------------------------

for (const [a, b] of [
    [0n, 5n],
    [3n, WAD / 2n],
    [WAD + 1n, WAD - 1n],
    [123456789012345678901234n, 987654321098765432n],
    [10n ** 40n, 10n ** 30n],
]) {
    record('mul_down', [a, b], () => MathSol.mulDownFixed(a, b));
    record('mul_up', [a, b], () => MathSol.mulUpFixed(a, b));
}
for (const [a, b] of [
    [0n, 5n],
    [1n, 3n * WAD],
    [2n * WAD, 3n * WAD],
    [123456789012345678901234n, 987654321098765432n],
    [10n ** 50n, 7n],
]) {
    record('div_down', [a, b], () => MathSol.divDownFixed(a, b));
    record('div_up', [a, b], () => MathSol.divUpFixed(a, b));
}
for (const x of [0n, 1n, WAD - 1n, WAD, WAD + 1n, 3n * WAD]) {
    record('complement', [x], () => MathSol.complementFixed(x));
}

// --- LogExpMath.pow and FixedPoint.powUp -------------------------------------

const exponents = {
    quarter: WAD / 4n, // 20/80 pool, token in is the 20
    half: WAD / 2n,
    one: WAD, // 50/50
    two: 2n * WAD,
    four: 4n * WAD, // 80/20, token in is the 80
    r98_2: MathSol.divDownFixed(e18(0.98), e18(0.02)), // 49
    r2_98: MathSol.divDownFixed(e18(0.02), e18(0.98)),
    r60_40: MathSol.divDownFixed(e18(0.6), e18(0.4)),
    r1_99: MathSol.divDownFixed(e18(0.01), e18(0.99)),
};
const bases = {
    // ln_36 branch: strictly inside (0.9, 1.1)
    'just above 0.9': e18(0.9) + 1n,
    '0.95': e18(0.95),
    '0.999999': e18(0.999999),
    'one minus a wei': WAD - 1n,
    one: WAD,
    'one plus a wei': WAD + 1n,
    '1.05': e18(1.05),
    'just below 1.1': e18(1.1) - 1n,
    // the plain ln branch
    '0.9 exactly': e18(0.9),
    '1.1 exactly': e18(1.1),
    '0.7': e18(0.7),
    '0.5': e18(0.5),
    '0.3': e18(0.3),
    '2': 2n * WAD,
    '10': 10n * WAD,
    '1e9 wei': 10n ** 9n,
};
for (const [bn, x] of Object.entries(bases)) {
    for (const [en, y] of Object.entries(exponents)) {
        // Keep the cartesian product modest: every base with the common
        // exponents, the rarer exponents with a few bases.
        const common = ['quarter', 'one', 'four', 'r98_2', 'r2_98'].includes(en);
        const fewBases = ['0.95', '0.999999', '0.5', '2', 'one minus a wei'].includes(bn);
        if (!common && !fewBases) continue;
        const note = `x=${bn} y=${en}`;
        record('pow', [x, y], () => LogExpMath.pow(x, y), note);
        record('pow_up', [x, y], () => MathSol.powUpFixed(x, y), note);
        record('pow_up_v1', [x, y], () => MathSol.powUpFixed(x, y, 1), note);
    }
}
// Edges of pow's domain.
const MILD = LogExpMath.MILD_EXPONENT_BOUND;
for (const [x, y, note] of [
    [0n, 0n, '0^0 is 1'],
    [0n, WAD, '0^y is 0'],
    [5n * WAD, 0n, 'x^0 is 1'],
    [1n << 255n, WAD / 2n, 'x out of bounds'],
    [(1n << 255n) - 1n, WAD / 2n, 'largest x'],
    [2n * WAD, MILD, 'y out of bounds'],
    [WAD + 1n, MILD - 1n, 'largest y, x a wei above one'],
    [1n, 2n * WAD, 'product below -41'],
    [10n ** 30n, 100n * WAD, 'product above 130'],
    [10n ** 30n, 9n * WAD, 'product near 124'],
    [1n, WAD, 'one wei to the first'],
]) {
    record('pow', [x, y], () => LogExpMath.pow(x, y), note);
    record('pow_up', [x, y], () => MathSol.powUpFixed(x, y), note);
}
// Random bases around one and random exponents in the weight-ratio range.
for (let k = 0; k < 40; k++) {
    const x = k % 2 === 0 ? randBig(e18(0.85), e18(1.15)) : randBig(e18(0.4), e18(1.0));
    const y = randBig(e18(0.0102), e18(99));
    record('pow', [x, y], () => LogExpMath.pow(x, y), 'random');
    record('pow_up', [x, y], () => MathSol.powUpFixed(x, y), 'random');
}

// --- exp and ln ---------------------------------------------------------------

for (const x of [
    -41n * WAD - 1n,
    -41n * WAD,
    -WAD,
    -1n,
    0n,
    1n,
    WAD / 16n,
    WAD,
    e18(2.5),
    63n * WAD + e18(0.9),
    64n * WAD,
    128n * WAD,
    130n * WAD,
    130n * WAD + 1n,
    randBig(0n, 130n * WAD),
    -randBig(0n, 41n * WAD),
]) {
    record('exp', [x], () => LogExpMath.exp(x));
}
// LogExpMath.ln(a): a > 0, ln_36 / 1e18 strictly inside (0.9, 1.1), else _ln.
const ln = (a) => {
    if (a <= 0n) throw new Error('Errors.OUT_OF_BOUNDS');
    if (e18(0.9) < a && a < e18(1.1)) return LogExpMath._ln_36(a) / WAD;
    return LogExpMath._ln(a);
};
for (const a of [
    -1n,
    0n,
    1n,
    10n ** 9n,
    e18(0.5),
    e18(0.9),
    e18(0.9) + 1n,
    WAD - 1n,
    WAD,
    WAD + 1n,
    e18(1.1),
    2n * WAD,
    10n ** 36n,
    10n ** 74n,
    (1n << 255n) - 1n,
    randBig(1n, 10n ** 40n),
]) {
    record('ln', [a], () => ln(a));
}

// --- WeightedMath._calcOutGivenIn (upscaled) --------------------------------

for (const [bi, wi, bo, wo, ai] of [
    [1000n * WAD, e18(0.5), 1000n * WAD, e18(0.5), WAD],
    [1000n * WAD, e18(0.8), 250n * WAD, e18(0.2), 10n * WAD],
    [250n * WAD, e18(0.2), 1000n * WAD, e18(0.8), 10n * WAD],
    [1000n * WAD, e18(0.5), 1000n * WAD, e18(0.5), 300n * WAD],
    [1000n * WAD, e18(0.5), 1000n * WAD, e18(0.5), 300n * WAD + 1n],
]) {
    record('calc_out_given_in', [bi, wi, bo, wo, ai], () =>
        computeOutGivenExactIn(bi, wi, bo, wo, ai),
    );
}

// --- The pool's onSwap, GIVEN_IN --------------------------------------------

function scalingFactor(decimals) {
    if (decimals > 18) throw new Error('Errors.SUB_OVERFLOW');
    return 10n ** BigInt(18 - decimals) * WAD;
}
function onSwapGivenIn(p, v1) {
    const sfIn = scalingFactor(p.decimalsIn);
    const sfOut = scalingFactor(p.decimalsOut);
    const bIn = MathSol.mulDownFixed(p.balanceIn, sfIn);
    const bOut = MathSol.mulDownFixed(p.balanceOut, sfOut);
    const fee = MathSol.mulUpFixed(p.amountIn, p.swapFee);
    if (fee > p.amountIn) throw new Error('Errors.SUB_OVERFLOW');
    const aIn = MathSol.mulDownFixed(p.amountIn - fee, sfIn);
    let out;
    if (v1) {
        // _calcOutGivenIn with the 2021 powUp.
        if (aIn > MathSol.mulDownFixed(bIn, lib._MAX_IN_RATIO)) throw new Error('MaxInRatio exceeded');
        const base = MathSol.divUpFixed(bIn, bIn + aIn);
        const exponent = MathSol.divDownFixed(p.weightIn, p.weightOut);
        const power = MathSol.powUpFixed(base, exponent, 1);
        out = MathSol.mulDownFixed(bOut, MathSol.complementFixed(power));
    } else {
        out = computeOutGivenExactIn(bIn, p.weightIn, bOut, p.weightOut, aIn);
    }
    return MathSol.divDownFixed(out, sfOut);
}
function swap(p, note, v1 = false) {
    const args = [
        p.balanceIn,
        p.decimalsIn,
        p.weightIn,
        p.balanceOut,
        p.decimalsOut,
        p.weightOut,
        p.swapFee,
        p.amountIn,
    ];
    record(v1 ? 'out_given_in_v1' : 'out_given_in', args, () => onSwapGivenIn(p, v1), note);
}
const unit = (d) => 10n ** BigInt(d);
const FEE = { '0.3%': e18(0.003), '1%': e18(0.01), '0.0001%': e18(0.000001), '0.25%': e18(0.0025) };
const pools = {
    'WETH/USDC 50/50': { balanceIn: 5000n * unit(18), decimalsIn: 18, weightIn: e18(0.5), balanceOut: 15_000_000n * unit(6), decimalsOut: 6, weightOut: e18(0.5) },
    'USDC/WETH 50/50': { balanceIn: 15_000_000n * unit(6), decimalsIn: 6, weightIn: e18(0.5), balanceOut: 5000n * unit(18), decimalsOut: 18, weightOut: e18(0.5) },
    'BAL/WETH 80/20': { balanceIn: 10_000_000n * unit(18), decimalsIn: 18, weightIn: e18(0.8), balanceOut: 4000n * unit(18), decimalsOut: 18, weightOut: e18(0.2) },
    'WETH/BAL 20/80': { balanceIn: 4000n * unit(18), decimalsIn: 18, weightIn: e18(0.2), balanceOut: 10_000_000n * unit(18), decimalsOut: 18, weightOut: e18(0.8) },
    'WBTC/WETH 50/50': { balanceIn: 2526315789n, decimalsIn: 8, weightIn: e18(0.5), balanceOut: 800n * unit(18), decimalsOut: 18, weightOut: e18(0.5) },
    'WETH/WBTC 50/50': { balanceIn: 800n * unit(18), decimalsIn: 18, weightIn: e18(0.5), balanceOut: 2526315789n, decimalsOut: 8, weightOut: e18(0.5) },
    'X/USDC 98/2': { balanceIn: 49_000_000n * unit(18), decimalsIn: 18, weightIn: e18(0.98), balanceOut: 20_000n * unit(6), decimalsOut: 6, weightOut: e18(0.02) },
    'USDC/X 2/98': { balanceIn: 20_000n * unit(6), decimalsIn: 6, weightIn: e18(0.02), balanceOut: 49_000_000n * unit(18), decimalsOut: 18, weightOut: e18(0.98) },
    'WBTC/USDC 60/40': { balanceIn: 300n * unit(8), decimalsIn: 8, weightIn: e18(0.6), balanceOut: 12_000_000n * unit(6), decimalsOut: 6, weightOut: e18(0.4) },
    'deep 18/18 50/50': { balanceIn: 10n ** 30n, decimalsIn: 18, weightIn: e18(0.5), balanceOut: 3n * 10n ** 29n, decimalsOut: 18, weightOut: e18(0.5) },
    'tiny pool 50/50': { balanceIn: 1_000_000n, decimalsIn: 18, weightIn: e18(0.5), balanceOut: 1_000_000n, decimalsOut: 18, weightOut: e18(0.5) },
};
// The largest raw amount that passes MAX_IN_RATIO after the fee.
function maxIn(p) {
    let lo = 0n;
    let hi = p.balanceIn;
    const ok = (a) => {
        try {
            onSwapGivenIn({ ...p, amountIn: a });
            return true;
        } catch (e) {
            if (errorOf(e) === 'InsufficientLiquidity') return false;
            return true;
        }
    };
    while (lo < hi) {
        const mid = (lo + hi + 1n) / 2n;
        if (ok(mid)) lo = mid;
        else hi = mid - 1n;
    }
    return lo;
}
for (const [pn, pool] of Object.entries(pools)) {
    const inUnit = unit(pool.decimalsIn);
    const amounts = {
        '1 wei': 1n,
        '1000 wei': 1000n,
        '0.01 token': inUnit / 100n,
        '1 token': inUnit,
        '1% of the balance': pool.balanceIn / 100n,
        '10% of the balance': pool.balanceIn / 10n,
    };
    for (const [fn, swapFee] of Object.entries(FEE)) {
        if (fn === '0.25%' && pn !== 'WBTC/WETH 50/50') continue;
        for (const [an, amountIn] of Object.entries(amounts)) {
            swap({ ...pool, swapFee, amountIn }, `${pn}, fee ${fn}, ${an}`);
        }
        const m = maxIn({ ...pool, swapFee });
        swap({ ...pool, swapFee, amountIn: m }, `${pn}, fee ${fn}, at MAX_IN_RATIO`);
        swap({ ...pool, swapFee, amountIn: m + 1n }, `${pn}, fee ${fn}, a wei past MAX_IN_RATIO`);
    }
}
// The first-deployment powUp on the pools whose exponent it changes.
for (const pn of ['WETH/USDC 50/50', 'WBTC/WETH 50/50', 'BAL/WETH 80/20', 'WETH/BAL 20/80', 'X/USDC 98/2']) {
    for (const amountIn of [unit(pools[pn].decimalsIn), pools[pn].balanceIn / 20n]) {
        swap({ ...pools[pn], swapFee: FEE['0.3%'], amountIn }, `${pn}, fee 0.3%, v1 powUp`, true);
        swap({ ...pools[pn], swapFee: FEE['0.3%'], amountIn }, `${pn}, fee 0.3%, current powUp`);
    }
}
// Degenerate inputs the contract reverts on.
swap({ ...pools['WETH/USDC 50/50'], swapFee: 2n * WAD, amountIn: WAD }, 'fee above 100%');
swap({ ...pools['WETH/USDC 50/50'], weightOut: 0n, swapFee: FEE['0.3%'], amountIn: WAD }, 'zero weight out');
swap({ ...pools['WETH/USDC 50/50'], balanceIn: 0n, swapFee: FEE['0.3%'], amountIn: WAD }, 'empty pool');
swap({ ...pools['WETH/USDC 50/50'], decimalsIn: 19, swapFee: FEE['0.3%'], amountIn: WAD }, '19 decimals');
// Random pools.
const weightPairs = [
    [0.5, 0.5],
    [0.8, 0.2],
    [0.2, 0.8],
    [0.98, 0.02],
    [0.02, 0.98],
    [0.6, 0.4],
    [0.33, 0.67],
    [0.01, 0.99],
];
for (let k = 0; k < 40; k++) {
    const [wi, wo] = pick(weightPairs);
    const decimalsIn = pick([6, 8, 18]);
    const decimalsOut = pick([6, 8, 18]);
    const balanceIn = randBig(unit(decimalsIn), 10n ** BigInt(decimalsIn + 12));
    const balanceOut = randBig(unit(decimalsOut), 10n ** BigInt(decimalsOut + 12));
    const amountIn = randBig(1n, (balanceIn * 32n) / 100n);
    const swapFee = pick([...Object.values(FEE), randBig(10n ** 12n, e18(0.1))]);
    swap(
        { balanceIn, decimalsIn, weightIn: e18(wi), balanceOut, decimalsOut, weightOut: e18(wo), swapFee, amountIn },
        `random ${wi}/${wo}`,
    );
}

const counts = {};
for (const v of vectors) counts[v.fn] = (counts[v.fn] || 0) + 1;
process.stdout.write(
    JSON.stringify(
        {
            generator: `kernel/tests/golden/weighted/gen.mjs with @balancer-labs/balancer-maths ${version}`,
            counts,
            vectors,
        },
        null,
        1,
    ) + '\n',
);
