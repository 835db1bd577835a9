/**
 * The token's compilation: `contracts/TestUSDC.sol` by solc-js (npm `solc`, pinned in package.json),
 * with fixed settings, into `testUsdcArtifact.ts`, the ABI and bytecode the chain deploys.
 *
 * The artifact is committed rather than compiled in the build: loading solc-js (an 8 MB emscripten
 * module) and compiling takes seconds, which every `npm test`, `npm run demo` and `node esbuild.mjs`
 * would pay; test/chain/artifact.test.ts compiles the source afresh once and fails when the committed
 * artifact differs from it. `node --import tsx examples/chain/compile.ts` writes it again after a change
 * to the source.
 */
import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import * as path from 'node:path';

/** The part of solc-js's API used here (the package ships no types). */
interface Solc {
  compile(input: string): string;
  version(): string;
}

/** The version the artifact must have been compiled by: the one package.json pins. */
export const SOLC_VERSION = '0.8.26';
export const SOURCE = path.join(__dirname, 'contracts', 'TestUSDC.sol');
export const ARTIFACT = path.join(__dirname, 'testUsdcArtifact.ts');

/** Settings that change the bytecode are fixed here, never left to a default of a later compiler. */
const SETTINGS = {
  optimizer: { enabled: true, runs: 200 },
  evmVersion: 'cancun',
  outputSelection: { '*': { TestUSDC: ['abi', 'evm.bytecode.object'] } },
};

interface Output {
  errors?: { severity: string; formattedMessage: string }[];
  contracts?: Record<string, Record<string, { abi: unknown[]; evm: { bytecode: { object: string } } }>>;
}

/** Compiles the token's source as it is now; throws on any compiler error. */
export function compileTestUsdc(): { solc: string; abi: unknown[]; bytecode: `0x${string}` } {
  const solc = createRequire(__filename)('solc') as Solc;
  const input = { language: 'Solidity', sources: { 'TestUSDC.sol': { content: fs.readFileSync(SOURCE, 'utf8') } }, settings: SETTINGS };
  const output = JSON.parse(solc.compile(JSON.stringify(input))) as Output;
  const errors = (output.errors ?? []).filter((e) => e.severity === 'error');
  if (errors.length > 0) throw new Error(errors.map((e) => e.formattedMessage).join('\n'));
  const contract = output.contracts?.['TestUSDC.sol']?.['TestUSDC'];
  if (!contract) throw new Error('solc produced no TestUSDC');
  return { solc: solc.version(), abi: contract.abi, bytecode: `0x${contract.evm.bytecode.object}` };
}

/** The artifact module's text for a compilation: what is committed, byte for byte. */
export function artifactText(compiled: ReturnType<typeof compileTestUsdc>): string {
  return [
    '// Written by `node --import tsx examples/chain/compile.ts` from contracts/TestUSDC.sol; do not edit.',
    '// test/chain/artifact.test.ts compiles the source again and fails when this differs.',
    `export const TEST_USDC_SOLC = ${JSON.stringify(compiled.solc)};`,
    `export const TEST_USDC_ABI = ${JSON.stringify(compiled.abi, null, 2)} as const;`,
    `export const TEST_USDC_BYTECODE = ${JSON.stringify(compiled.bytecode)};`,
    '',
  ].join('\n');
}

if (require.main === module) {
  const compiled = compileTestUsdc();
  if (!compiled.solc.startsWith(`${SOLC_VERSION}+`)) throw new Error(`solc ${compiled.solc} is not the pinned ${SOLC_VERSION}`);
  fs.writeFileSync(ARTIFACT, artifactText(compiled));
  process.stdout.write(
    `${path.relative(process.cwd(), ARTIFACT)}: TestUSDC by solc ${compiled.solc}, ${(compiled.bytecode.length - 2) / 2} bytes of init code\n`,
  );
}
