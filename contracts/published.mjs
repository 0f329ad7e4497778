// Compiles published contract sources that their packages ship without
// bytecode, with the compiler and settings of their deployments, writing
// node_modules/.published/<Name>.json = { "abi": [...], "bytecode": "0x..." }
// for the engine to read beside the other npm artifacts. Not ours, so not
// committed: scripts/setup.sh runs this after `npm ci`.
//
//   cd contracts && npm ci && node published.mjs
//
// - Morpho Blue (`@morpho-org/morpho-blue@1.0.0`, the source of the
//   singleton deployed at 0xBBBBBbbBBb9cC5e90e3b3Af64bdAF62C37EEFFCb and
//   elsewhere): solc 0.8.19, via IR, 999,999 optimizer runs, the paris EVM,
//   as its foundry.toml builds it. The metadata hash is left out, so the
//   code is the deployed runtime's but for its trailing CBOR.

import { createRequire } from 'node:module';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const here = dirname(fileURLToPath(import.meta.url));
const modules = join(here, 'node_modules');
const outDir = join(modules, '.published');

const builds = [
  {
    name: 'MorphoBlue',
    contract: 'Morpho',
    compiler: 'solc-0.8.19',
    version: '0.8.19',
    root: join(modules, '@morpho-org/morpho-blue/src'),
    file: 'Morpho.sol',
    settings: { optimizer: { enabled: true, runs: 999999 }, viaIR: true, evmVersion: 'paris' },
  },
];

mkdirSync(outDir, { recursive: true });
for (const b of builds) {
  const solc = require(b.compiler);
  if (!solc.version().startsWith(`${b.version}+`)) {
    throw new Error(`${b.name}: expected solc ${b.version}, found ${solc.version()} (run npm ci)`);
  }
  const input = {
    language: 'Solidity',
    sources: { [b.file]: { content: readFileSync(join(b.root, b.file), 'utf8') } },
    settings: {
      ...b.settings,
      metadata: { bytecodeHash: 'none' },
      outputSelection: { [b.file]: { [b.contract]: ['abi', 'evm.bytecode.object'] } },
    },
  };
  const findImports = (path) => {
    try {
      return { contents: readFileSync(join(b.root, path), 'utf8') };
    } catch (e) {
      return { error: `${path}: ${e.message}` };
    }
  };
  const output = JSON.parse(solc.compile(JSON.stringify(input), { import: findImports }));
  const errors = (output.errors ?? []).filter((e) => e.severity === 'error');
  for (const e of errors) console.error(e.formattedMessage);
  if (errors.length > 0) process.exit(1);
  const c = output.contracts[b.file][b.contract];
  const bytecode = `0x${c.evm.bytecode.object}`;
  writeFileSync(join(outDir, `${b.name}.json`), `${JSON.stringify({ abi: c.abi, bytecode })}\n`);
  console.log(`${b.name}: ${(bytecode.length - 2) / 2} bytes of initcode (solc ${solc.version()})`);
}
