// Compiles every contracts/src/*.sol in one standard-JSON call, writing
// artifacts/<Name>.json = { "abi": [...], "bytecode": "0x..." } for each
// contract with bytecode.
//
//   cd contracts && npm ci && node build.mjs
//
// The artifacts are committed: `cargo build` reads them with include_str! and
// needs no compiler. The Uniswap V2/V3 bytecode is not ours and is not
// committed: `npm ci` here installs @uniswap/v2-core and @uniswap/v3-core,
// and the engine reads their build files from node_modules at run time
// (scripts/setup.sh does this for the test suite and the server).

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

// `storage` maps each state variable to its slot (solc's storage layout),
// so the engine can set balances of its fixture tokens directly.
function write(name, abi, bytecode, layout) {
  const hex = bytecode.startsWith('0x') ? bytecode : `0x${bytecode}`;
  if (!/^0x([0-9a-f]{2})+$/i.test(hex)) throw new Error(`${name}: bytecode is not hex`);
  const storage = Object.fromEntries((layout?.storage ?? []).map((v) => [v.label, Number(v.slot)]));
  writeFileSync(join(outDir, `${name}.json`), `${JSON.stringify({ abi, bytecode: hex, storage }, null, 1)}\n`);
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
    outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object', 'storageLayout'] } },
  },
};

// Imports of published sources (`@openzeppelin/contracts/...`) resolve in
// node_modules: the OpenZeppelin ERC-4626 vault is compiled from the package.
function findImports(path) {
  try {
    return { contents: readFileSync(join(here, 'node_modules', path), 'utf8') };
  } catch (e) {
    return { error: `${path}: ${e.message}` };
  }
}

const output = JSON.parse(solc.compile(JSON.stringify(input), { import: findImports }));
const errors = (output.errors ?? []).filter((e) => e.severity === 'error');
for (const e of output.errors ?? []) console.error(e.formattedMessage);
if (errors.length > 0) process.exit(1);

mkdirSync(outDir, { recursive: true });
// Only contracts/src's own files give artifacts; imported library sources
// are compiled into them.
for (const file of Object.keys(sources)) {
  for (const [name, c] of Object.entries(output.contracts[file] ?? {})) {
    // Interfaces declared beside a contract compile to no bytecode, and a
    // library of internal functions only (WeightedMath) to a stub with an
    // empty ABI that nothing deploys.
    if (c.evm.bytecode.object.length === 0 || c.abi.length === 0) continue;
    write(name, c.abi, c.evm.bytecode.object, c.storageLayout);
  }
}

console.log(`compiled with solc ${solc.version()}, evmVersion ${EVM_VERSION}`);
