// Compiles every contracts/src/*.sol in one standard-JSON call and copies the
// Uniswap V2/V3 factory and pool bytecode from their npm packages, writing
// artifacts/<Name>.json = { "abi": [...], "bytecode": "0x..." } for each.
//
//   cd contracts && npm ci && node build.mjs
//
// The artifacts are committed: `cargo test` reads them with include_str! and
// needs neither npm nor a compiler.

import { createRequire } from 'node:module';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const solc = require('solc');

const here = dirname(fileURLToPath(import.meta.url));
const srcDir = join(here, 'src');
const outDir = join(here, 'artifacts');

// The compiler and target the artifacts are built for. solc 0.8.37 defaults
// to osaka; the Rust harness runs revm at CANCUN, so pin it here.
const SOLC_VERSION = '0.8.37';
const EVM_VERSION = 'cancun';

const UNISWAP = [
  ['UniswapV2Factory', '@uniswap/v2-core/build/UniswapV2Factory.json'],
  ['UniswapV2Pair', '@uniswap/v2-core/build/UniswapV2Pair.json'],
  ['UniswapV3Factory', '@uniswap/v3-core/artifacts/contracts/UniswapV3Factory.sol/UniswapV3Factory.json'],
  ['UniswapV3Pool', '@uniswap/v3-core/artifacts/contracts/UniswapV3Pool.sol/UniswapV3Pool.json'],
];

function write(name, abi, bytecode) {
  const hex = bytecode.startsWith('0x') ? bytecode : `0x${bytecode}`;
  if (!/^0x([0-9a-f]{2})+$/i.test(hex)) throw new Error(`${name}: bytecode is not hex`);
  writeFileSync(join(outDir, `${name}.json`), `${JSON.stringify({ abi, bytecode: hex }, null, 1)}\n`);
  console.log(`${name}: ${(hex.length - 2) / 2} bytes of initcode`);
}

if (!solc.version().startsWith(`${SOLC_VERSION}+`)) {
  throw new Error(`expected solc ${SOLC_VERSION}, found ${solc.version()} (run npm ci)`);
}

const sources = {};
for (const file of readdirSync(srcDir).filter((f) => f.endsWith('.sol')).sort()) {
  sources[file] = { content: readFileSync(join(srcDir, file), 'utf8') };
}

const input = {
  language: 'Solidity',
  sources,
  settings: {
    optimizer: { enabled: true, runs: 200 },
    evmVersion: EVM_VERSION,
    // No metadata hash: the bytecode then depends only on the source and
    // the settings, so a rebuild gives byte-identical artifacts.
    metadata: { bytecodeHash: 'none', appendCBOR: false },
    outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } },
  },
};

const output = JSON.parse(solc.compile(JSON.stringify(input)));
const errors = (output.errors ?? []).filter((e) => e.severity === 'error');
for (const e of output.errors ?? []) console.error(e.formattedMessage);
if (errors.length > 0) process.exit(1);

mkdirSync(outDir, { recursive: true });
for (const file of Object.keys(sources)) {
  for (const [name, c] of Object.entries(output.contracts[file] ?? {})) {
    // Interfaces declared beside a contract compile to no bytecode, and a
    // library of internal functions only (WeightedMath) to a stub with an
    // empty ABI that nothing deploys.
    if (c.evm.bytecode.object.length === 0 || c.abi.length === 0) continue;
    write(name, c.abi, c.evm.bytecode.object);
  }
}

for (const [name, path] of UNISWAP) {
  const artifact = JSON.parse(readFileSync(require.resolve(path), 'utf8'));
  write(name, artifact.abi, artifact.bytecode);
}
console.log(`compiled with solc ${solc.version()}, evmVersion ${EVM_VERSION}`);
