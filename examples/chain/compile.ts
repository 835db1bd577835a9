/**
 * The local chain's contracts, compiled by solc-js from npm with fixed settings into committed artifacts:
 *
 * - `contracts/TestUSDC.sol` (solc 0.8.26, npm `solc`) → `testUsdcArtifact.ts`, the token the chain deploys;
 * - Uniswap's Permit2, its source as `@uniswap/v4-periphery` 1.0.3 ships it in `lib/permit2` (MIT; solc
 *   0.8.17, the exact version its pragma names, npm `solc-0.8.17`, with Permit2's own foundry.toml
 *   settings) → `permit2Artifact.ts`;
 * - `contracts/X402UptoPermit2Proxy.sol` (solc 0.8.26) → `uptoProxyArtifact.ts`.
 *
 * Permit2 and the proxy are not deployed but placed at their canonical addresses (placed.ts), so their
 * artifacts are runtime code with where each immutable sits in it, by name, for that placing to link.
 *
 * The artifacts are committed rather than compiled in the build: loading solc-js (an 8 MB emscripten
 * module) and compiling takes seconds (Permit2, through the IR pipeline, twenty), which every `npm test`,
 * `npm run demo` and `node esbuild.mjs` would pay; test/chain/artifact.test.ts compiles every source afresh
 * and fails when a committed artifact differs from it. `node --import tsx examples/chain/compile.ts`
 * writes them again after a change to a source.
 */
import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import * as path from 'node:path';

/** The part of solc-js's API used here (the package ships no types). */
interface Solc {
  compile(input: string, callbacks?: { import: (p: string) => { contents: string } | { error: string } }): string;
  version(): string;
}

/** The version the token and the proxy must have been compiled by: the one package.json pins as `solc`. */
export const SOLC_VERSION = '0.8.26';
export const SOURCE = path.join(__dirname, 'contracts', 'TestUSDC.sol');
export const ARTIFACT = path.join(__dirname, 'testUsdcArtifact.ts');

/** Where Permit2's sources are: the npm package that ships them. */
const PERMIT2_ROOT = (): string =>
  path.join(path.dirname(createRequire(__filename).resolve('@uniswap/v4-periphery/package.json')), 'lib', 'permit2');

/** One contract to compile: its compiler, its source, its settings, its artifact. */
export interface ContractSpec {
  name: string;
  /** The npm package whose solc-js compiles it, and the version that must be. */
  solc: { module: string; version: string };
  /** Its source file's name as solc sees it, and where that file is. */
  source: { unit: string; file: () => string };
  /** Where an import is read from (only Permit2 imports: its own files and solmate's). */
  imports?: (p: string) => string;
  settings: Record<string, unknown>;
  /** `deploy`: init code, deployed by a transaction; `place`: runtime code and its immutables, placed by setCode. */
  kind: 'deploy' | 'place';
  artifact: string;
  /** The artifact's exported names' prefix. */
  constant: string;
}

const TOKEN_SETTINGS = { optimizer: { enabled: true, runs: 200 }, evmVersion: 'cancun' };

/** Every contract the local chain runs. */
export const CONTRACTS: ContractSpec[] = [
  {
    name: 'TestUSDC',
    solc: { module: 'solc', version: SOLC_VERSION },
    source: { unit: 'TestUSDC.sol', file: () => SOURCE },
    settings: TOKEN_SETTINGS,
    kind: 'deploy',
    artifact: ARTIFACT,
    constant: 'TEST_USDC',
  },
  {
    name: 'Permit2',
    solc: { module: 'solc-0.8.17', version: '0.8.17' },
    source: { unit: 'src/Permit2.sol', file: () => path.join(PERMIT2_ROOT(), 'src', 'Permit2.sol') },
    // Permit2's imports as its remappings resolve them: `solmate/` is its lib/solmate, the rest its own tree.
    imports: (p) => path.join(PERMIT2_ROOT(), p.startsWith('solmate/') ? path.join('lib', p) : p),
    // Its foundry.toml's: the IR pipeline (without it, solc runs out of stack), a million runs, no metadata hash.
    settings: {
      viaIR: true,
      optimizer: { enabled: true, runs: 1_000_000 },
      metadata: { bytecodeHash: 'none' },
      evmVersion: 'london',
    },
    kind: 'place',
    artifact: path.join(__dirname, 'permit2Artifact.ts'),
    constant: 'PERMIT2',
  },
  {
    name: 'x402UptoPermit2Proxy',
    solc: { module: 'solc', version: SOLC_VERSION },
    source: { unit: 'X402UptoPermit2Proxy.sol', file: () => path.join(__dirname, 'contracts', 'X402UptoPermit2Proxy.sol') },
    settings: TOKEN_SETTINGS,
    kind: 'place',
    artifact: path.join(__dirname, 'uptoProxyArtifact.ts'),
    constant: 'UPTO_PROXY',
  },
];

interface AstNode {
  nodeType?: string;
  id?: number;
  name?: string;
  mutability?: string;
  [k: string]: unknown;
}

interface Output {
  errors?: { severity: string; formattedMessage: string }[];
  sources?: Record<string, { ast: AstNode }>;
  contracts?: Record<
    string,
    Record<
      string,
      {
        abi: unknown[];
        evm: {
          bytecode: { object: string };
          deployedBytecode: { object: string; immutableReferences?: Record<string, { start: number; length: number }[]> };
        };
      }
    >
  >;
}

/** A compilation: the compiler's full version, the ABI, and the code (with its immutables' places, for a placed one). */
export interface Compiled {
  solc: string;
  abi: unknown[];
  bytecode: `0x${string}`;
  immutables?: Record<string, { start: number; length: number }[]>;
}

/** The immutables' names by their AST ids, in every source unit. */
function immutableNames(sources: Output['sources']): Map<string, string> {
  const names = new Map<string, string>();
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(walk);
    if (!node || typeof node !== 'object') return;
    const n = node as AstNode;
    if (n.nodeType === 'VariableDeclaration' && n.mutability === 'immutable' && n.id !== undefined && n.name) names.set(String(n.id), n.name);
    for (const v of Object.values(n)) if (v && typeof v === 'object') walk(v);
  };
  for (const s of Object.values(sources ?? {})) walk(s.ast);
  return names;
}

/** Compiles a contract's source as it is now; throws on any compiler error. */
export function compileContract(spec: ContractSpec): Compiled {
  const solc = createRequire(__filename)(spec.solc.module) as Solc;
  const outputs = spec.kind === 'deploy' ? ['abi', 'evm.bytecode.object'] : ['abi', 'evm.deployedBytecode.object', 'evm.deployedBytecode.immutableReferences'];
  const input = {
    language: 'Solidity',
    sources: { [spec.source.unit]: { content: fs.readFileSync(spec.source.file(), 'utf8') } },
    settings: { ...spec.settings, outputSelection: { '*': { [spec.name]: outputs, ...(spec.kind === 'place' ? { '': ['ast'] } : {}) } } },
  };
  const imports = spec.imports;
  const read = (p: string): { contents: string } | { error: string } => {
    if (!imports) return { error: `${spec.name} imports nothing` };
    try {
      return { contents: fs.readFileSync(imports(p), 'utf8') };
    } catch {
      return { error: `not found: ${p}` };
    }
  };
  const output = JSON.parse(solc.compile(JSON.stringify(input), { import: read })) as Output;
  const errors = (output.errors ?? []).filter((e) => e.severity === 'error');
  if (errors.length > 0) throw new Error(errors.map((e) => e.formattedMessage).join('\n'));
  const contract = output.contracts?.[spec.source.unit]?.[spec.name];
  if (!contract) throw new Error(`solc produced no ${spec.name}`);
  if (spec.kind === 'deploy') return { solc: solc.version(), abi: contract.abi, bytecode: `0x${contract.evm.bytecode.object}` };
  const names = immutableNames(output.sources);
  const immutables: Record<string, { start: number; length: number }[]> = {};
  for (const [id, places] of Object.entries(contract.evm.deployedBytecode.immutableReferences ?? {})) {
    const name = names.get(id);
    if (!name) throw new Error(`${spec.name}: immutable ${id} has no name in the AST`);
    immutables[name] = places;
  }
  return { solc: solc.version(), abi: contract.abi, bytecode: `0x${contract.evm.deployedBytecode.object}`, immutables };
}

/** The token's compilation (what the chain deploys). */
export function compileTestUsdc(): Compiled {
  return compileContract(CONTRACTS[0] as ContractSpec);
}

/** The artifact module's text for a compilation: what is committed, byte for byte. */
export function artifactText(compiled: Compiled, spec: ContractSpec = CONTRACTS[0] as ContractSpec): string {
  const from = path.relative(__dirname, spec.source.file()).split(path.sep).join('/');
  const source = from.startsWith('..') ? `${spec.source.unit} of @uniswap/v4-periphery's lib/permit2` : from;
  const c = spec.constant;
  return [
    `// Written by \`node --import tsx examples/chain/compile.ts\` from ${source}; do not edit.`,
    '// test/chain/artifact.test.ts compiles the source again and fails when this differs.',
    `export const ${c}_SOLC = ${JSON.stringify(compiled.solc)};`,
    `export const ${c}_ABI = ${JSON.stringify(compiled.abi, null, 2)} as const;`,
    ...(spec.kind === 'deploy'
      ? [`export const ${c}_BYTECODE = ${JSON.stringify(compiled.bytecode)};`]
      : [
          '/** Runtime code, its immutables left zero: placed.ts links them for the address and chain it is placed on. */',
          `export const ${c}_RUNTIME = ${JSON.stringify(compiled.bytecode)};`,
          '/** Where each immutable sits in the runtime code (byte offsets), by name. */',
          `export const ${c}_IMMUTABLES: Record<string, readonly { start: number; length: number }[]> = ${JSON.stringify(compiled.immutables)};`,
        ]),
    '',
  ].join('\n');
}

if (require.main === module) {
  for (const spec of CONTRACTS) {
    const compiled = compileContract(spec);
    if (!compiled.solc.startsWith(`${spec.solc.version}+`)) throw new Error(`solc ${compiled.solc} is not the pinned ${spec.solc.version}`);
    fs.writeFileSync(spec.artifact, artifactText(compiled, spec));
    process.stdout.write(
      `${path.relative(process.cwd(), spec.artifact)}: ${spec.name} by solc ${compiled.solc}, ${(compiled.bytecode.length - 2) / 2} bytes of ` +
        `${spec.kind === 'deploy' ? 'init' : 'runtime'} code\n`,
    );
  }
}
