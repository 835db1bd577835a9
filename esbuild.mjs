// One build script, one base, one build per target. Only the extension bundle may mark `vscode`
// external, so a stray `vscode` import anywhere else fails the CLI/server build.
import * as esbuild from 'esbuild';
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';

const production = process.argv.includes('--production');
const watch = process.argv.includes('--watch');

/** @type {import('esbuild').BuildOptions} */
const base = {
  bundle: true,
  sourcemap: production ? false : 'linked',
  minify: production,
  logLevel: 'warning',
  legalComments: 'none',
};

/**
 * Modules the extension loads only when first needed (with `import()`): the schemas (zod) that check
 * what a human or a view sends, the wallet, the YAML and diff libraries of the personnel change diff panel,
 * the PostgreSQL client of the team store (and its verification), the chain reader (viem's client) of
 * the wallet's balances, the AP2 mandates (the SD-JWT libraries) of the mandate form and receipts, and the
 * passkey's page on loopback (its HTTP server), served only when a passkey is used. The extension takes
 * them from dist/holon.js, which holds them all already (see `holonEntry`), so activating the extension
 * never compiles or runs them and the package carries them once.
 */
const LAZY = ['src/core/kernel/schemas.ts', 'src/core/local/wallet.ts', 'src/core/rails/chain.ts', 'src/core/commerce/ap2.ts', 'src/core/commerce/consent.ts', 'src/core/office/personnelDiff.ts', 'src/core/store/pg/store.ts', 'src/core/teamAdmin.ts', 'src/core/market/discovery.ts', 'src/core/rails/delegation/humanAccount.ts', 'src/core/rails/delegation/accountPays.ts', 'src/core/ceremony/page.ts', ...fs.readdirSync('src/webview/protocol').filter((f) => f.endsWith('.ts')).map((f) => `src/webview/protocol/${f}`)];

/** @type {import('esbuild').Plugin} */
const lazyModules = {
  name: 'lazy-modules',
  setup(build) {
    build.onResolve({ filter: /\.ts$/ }, (args) => {
      if (args.kind !== 'dynamic-import') return undefined;
      const rel = path.relative(process.cwd(), path.resolve(args.resolveDir, args.path)).split(path.sep).join('/');
      return LAZY.includes(rel) ? { path: rel, namespace: 'lazy' } : undefined;
    });
    build.onLoad({ filter: /.*/, namespace: 'lazy' }, (args) => ({
      contents: `module.exports = require(require('node:path').join(__dirname, 'holon.js')).modules[${JSON.stringify(args.path)}];`,
      loader: 'js',
    }));
  },
};

/**
 * zod names every locale it has in one namespace (`z.locales`), which no bundler can prune: a bundle would
 * carry some 300 kB of error messages in forty languages that Holon never shows (it never sets a locale).
 * The MCP Apps page and dist/sdk.js get English only (zod's ES build for the page, its CommonJS for sdk.js).
 */
const englishOnly = {
  name: 'zod-english-only',
  setup(build) {
    build.onResolve({ filter: /\/locales\/index\.c?js$/ }, (args) =>
      /[\\/]node_modules[\\/]zod[\\/]/.test(args.importer) ? { path: path.join(path.dirname(args.importer), args.path), namespace: 'zod-en' } : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: 'zod-en' }, (args) => ({
      contents: args.path.endsWith('.cjs') ? "exports.en = require('./en.cjs');" : "export { default as en } from './en.js';",
      resolveDir: path.dirname(args.path),
      loader: 'js',
    }));
  },
};

/**
 * One copy of the MCP SDK, zod and ajv, in dist/sdk.js: the CLI (holon.js), the lazy schemas and every
 * demo agent require it instead of bundling their own, so the package carries them once.
 */
const SHARED = /^(@modelcontextprotocol\/(server|client|core|node)(\/stdio)?$|@modelcontextprotocol\/ext-apps\/server$|zod($|\/)|ajv$)/;
const sources = (dir) => fs.readdirSync(dir, { recursive: true }).filter((f) => /\.(ts|mjs)$/.test(f)).map((f) => fs.readFileSync(path.join(dir, f), 'utf8'));
const SHARED_SOURCES = [...sources('src'), ...sources('examples/agents'), ...sources('examples/sellers')];
const SHARED_SPECIFIERS = [...new Set(SHARED_SOURCES.flatMap((text) => [...text.matchAll(/from '([^']+)'/g)].map((m) => m[1]).filter((spec) => SHARED.test(spec))))].sort();

/**
 * The MCP packages' names the sources import, by package: sdk.js carries those (and what they use) from
 * the packages' ES builds, which esbuild can prune, rather than the CommonJS builds whole. The client and
 * server packages each bundle their own copy of the protocol's core, so whole they would double it.
 */
const MCP_PACKAGE = /^@modelcontextprotocol\/((server|client|core|node)(\/stdio)?|ext-apps\/server)$/;
const MCP_NAMES = new Map();
for (const text of SHARED_SOURCES) {
  for (const m of text.matchAll(/^import \{([^}]+)\} from '([^']+)';$/gm)) {
    if (!MCP_PACKAGE.test(m[2])) continue;
    const names = m[1].split(',').map((n) => n.trim()).filter((n) => n !== '' && !n.startsWith('type '));
    MCP_NAMES.set(m[2], new Set([...(MCP_NAMES.get(m[2]) ?? []), ...names.map((n) => n.split(/\s+as\s+/)[0])]));
  }
}
/**
 * Loads each MCP package of sdk.js as the names the sources use, from its ES build; and both packages'
 * runtime seam (`_shims`) from src/server/mcpShims.ts, whose validator is the Ajv sdk.js already carries.
 */
const mcpNames = {
  name: 'mcp-names',
  setup(build) {
    build.onResolve({ filter: /^@modelcontextprotocol\/(server|client)\/_shims$/ }, () => ({ path: path.resolve('src/server/mcpShims.ts') }));
    build.onResolve({ filter: /^mcp-names:/ }, (args) => ({ path: args.path.slice('mcp-names:'.length), namespace: 'mcp-names' }));
    build.onLoad({ filter: /.*/, namespace: 'mcp-names' }, (args) => ({
      contents: `export { ${[...(MCP_NAMES.get(args.path) ?? [])].sort().join(', ')} } from '${args.path}';`,
      resolveDir: process.cwd(),
      loader: 'js',
    }));
  },
};

/** Resolves the shared packages to dist/sdk.js at run time; `sdkPath` is an expression for where it is (never a literal, which esbuild would bundle). */
function sharedSdk(sdkPath) {
  return {
    name: 'shared-sdk',
    setup(build) {
      // Only Holon's own imports: a package that brings its own version (x402's zod 3) keeps it. The
      // @sd-jwt packages ask for zod 4, the one Holon ships: they share it rather than bundle a second copy.
      const ownZod = (importer) => !importer.includes('node_modules') || /node_modules[\\/]@sd-jwt[\\/]/.test(importer);
      build.onResolve({ filter: SHARED }, (args) => (ownZod(args.importer) ? { path: args.path, namespace: 'shared' } : undefined));
      build.onLoad({ filter: /.*/, namespace: 'shared' }, (args) => {
        if (!SHARED_SPECIFIERS.includes(args.path)) throw new Error(`${args.path} is not in dist/sdk.js: import it with a plain \`from '...'\``);
        return { contents: `module.exports = require(${sdkPath}).modules[${JSON.stringify(args.path)}];`, loader: 'js' };
      });
    },
  };
}
const besideSdk = sharedSdk("require('node:path').join(__dirname, 'sdk.js')");

/**
 * SD-JWT VC's status lists: @sd-jwt/sd-jwt-vc reads one only for a token whose payload names it
 * (`status.status_list`), and its reader carries a JavaScript zlib. Holon's AP2 mandates name none, and a
 * mandate that did would be refused anyway: Holon fetches no status list. So the reader is one that refuses,
 * and the package carries no zlib.
 */
const noStatusLists = {
  name: 'no-status-lists',
  setup(build) {
    build.onResolve({ filter: /^@sd-jwt\/jwt-status-list$/ }, () => ({ path: 'jwt-status-list', namespace: 'no-status-lists' }));
    build.onLoad({ filter: /.*/, namespace: 'no-status-lists' }, () => ({
      contents:
        'class SLException extends Error {}\n' +
        'exports.SLException = SLException;\n' +
        "exports.getListFromStatusListJWT = () => { throw new SLException('Holon reads no SD-JWT status lists'); };\n",
      loader: 'js',
    }));
  },
};

/**
 * pg's optional native binding: pg requires it only when asked for `pg.native`, which Holon never is.
 * Left to `require` at run time (where it would fail cleanly), never bundled or resolved at build time.
 */
const PG_NATIVE = 'pg-native';

/**
 * The ext-apps server helpers are an ES module: their imports of the MCP SDK and zod would resolve to the
 * packages' ES builds, a second copy beside the CommonJS ones every `require` here loads (twice the bytes,
 * and two zods). They are resolved as a `require` would resolve them: the same files, once.
 */
const oneCopy = {
  name: 'one-copy',
  setup(build) {
    build.onResolve({ filter: /^zod($|\/)/ }, async (args) => {
      if (args.kind !== 'import-statement' || args.pluginData === 'one-copy' || !/[\\/]@modelcontextprotocol[\\/]/.test(args.importer)) return undefined;
      const r = await build.resolve(args.path, { kind: 'require-call', resolveDir: args.resolveDir, pluginData: 'one-copy' });
      return r.errors.length > 0 ? { errors: r.errors } : { path: r.path };
    });
  },
};

/**
 * The MCP packages' modules have no side effects on load, but their manifests do not say so: without it,
 * esbuild keeps every module a package's entry re-exports, used or not (the client's whole Client in a page
 * that uses only its Protocol).
 */
const mcpPure = {
  name: 'mcp-pure',
  setup(build) {
    const inMcp = /[\\/]node_modules[\\/]@modelcontextprotocol[\\/]/;
    build.onResolve({ filter: /.*/ }, async (args) => {
      if (args.pluginData === 'mcp-pure' || !(args.path.startsWith('@modelcontextprotocol/') || inMcp.test(args.importer))) return undefined;
      const r = await build.resolve(args.path, { kind: args.kind, importer: args.importer, resolveDir: args.resolveDir, pluginData: 'mcp-pure' });
      if (r.errors.length > 0) return { errors: r.errors };
      return inMcp.test(r.path) ? { ...r, sideEffects: false } : r;
    });
  },
};

/**
 * dist/holon.js: the CLI when run (`node dist/holon.js …`, the `holon` of the editor's terminals); the
 * journal's worker when a worker thread is started on it with a job (snapshots, verify: for both the CLI
 * and the extension, so the package carries no third copy of the fold); and, when the extension requires
 * it, the map of the LAZY modules, each evaluated when first asked for (the wallet's crypto does not load
 * zod, nor the reverse) and the CLI not started. Everything is bundled once, and every way runs the same code.
 */
const holonEntry = {
  contents:
    `exports.modules = { ${LAZY.map((f) => `get ${JSON.stringify(f)}() { return require(${JSON.stringify(`./${f}`)}); }`).join(', ')} };\n` +
    "const thread = require('node:worker_threads');\n" +
    "if (!thread.isMainThread && thread.workerData && thread.workerData.job) require('./src/core/journalWorker.ts');\n" +
    "else if (require.main === module) require('./src/cli/main.ts');\n",
  resolveDir: process.cwd(),
  sourcefile: 'holon.js',
  loader: 'js',
};

/** @type {import('esbuild').BuildOptions[]} */
/**
 * The libraries every webview uses (zod/mini and the vscode-elements components, with lit under them) are
 * built once into dist/webview/shared.js, which each page loads before its own bundle, instead of a copy
 * in each page's bundle. A page takes zod/mini from the global the shared script sets; its imports of
 * components are there for their side effect (defining the element), which the shared script has had
 * already. The shared script holds what any page imports, collected from the sources.
 */
const webviewShared = await (async () => {
  const SHARED_WEBVIEW = /^(zod\/mini|@vscode-elements\/elements\/dist\/[\w-]+\/index\.js)$/;
  const GLOBAL = '__holonWebviewShared';
  const imported = sources('src/webview').flatMap((text) => [...text.matchAll(/^import (?:[^'";]+ from )?'([^']+)';$/gm)].map((m) => m[1]));
  const specs = [...new Set(imported.filter((spec) => SHARED_WEBVIEW.test(spec)))].sort();
  const modules = specs.filter((spec) => !spec.startsWith('@vscode-elements/'));
  const name = (spec) => `m${specs.indexOf(spec)}`;
  // Of each module, what the pages use (`z.string` where the page has `import * as z from 'zod/mini'`),
  // so the shared script carries that and what it needs rather than every export.
  const usedOf = (spec) =>
    new Set(
      sources('src/webview').flatMap((text) => {
        const alias = new RegExp(`^import \\* as (\\w+) from '${spec.replace(/[/.]/g, '\\$&')}';$`, 'm').exec(text)?.[1];
        return alias ? [...text.matchAll(new RegExp(`\\b${alias}\\.(\\w+)`, 'g'))].map((m) => m[1]) : [];
      }),
    );
  const exported = Object.fromEntries(await Promise.all(modules.map(async (spec) => [spec, Object.keys(await import(spec))])));
  const used = Object.fromEntries(modules.map((spec) => [spec, usedOf(spec)]));
  const picked = (spec) => exported[spec].filter((n) => used[spec].has(n)).sort();
  return {
    contents: {
      contents: [
        // Each name under a local alias: a module may export a reserved word (zod's `enum`).
        ...specs.map((spec) =>
          modules.includes(spec) ? `import { ${picked(spec).map((n) => `${n} as ${name(spec)}_${n}`).join(', ')} } from '${spec}';` : `import '${spec}';`,
        ),
        `globalThis.${GLOBAL} = { ${modules.map((spec) => `${JSON.stringify(spec)}: { ${picked(spec).map((n) => `${n}: ${name(spec)}_${n}`).join(', ')} }`).join(', ')} };`,
      ].join('\n'),
      resolveDir: process.cwd(),
      sourcefile: 'webview-shared.js',
    },
    /** @type {import('esbuild').Plugin} */
    plugin: {
      name: 'webview-shared',
      setup(build) {
        build.onResolve({ filter: SHARED_WEBVIEW }, (args) => ({ path: args.path, namespace: 'webview-shared' }));
        build.onLoad({ filter: /.*/, namespace: 'webview-shared' }, (args) => {
          if (!specs.includes(args.path)) throw new Error(`${args.path} is not in dist/webview/shared.js: import it on a line of its own`);
          const contents = modules.includes(args.path) ? `module.exports = globalThis.${GLOBAL}[${JSON.stringify(args.path)}];` : '';
          return { contents, loader: 'js' };
        });
      },
    },
  };
})();

const targets = [
  {
    ...base,
    plugins: [mcpNames, oneCopy, englishOnly, mcpPure],
    stdin: {
      // Each package is evaluated when first asked for: an agent needs the server, the CLI's fund needs nothing.
      contents: `export const modules = { ${SHARED_SPECIFIERS.map((f) => `get ${JSON.stringify(f)}() { return require(${JSON.stringify(MCP_PACKAGE.test(f) ? `mcp-names:${f}` : f)}); }`).join(', ')} };`,
      resolveDir: process.cwd(),
      sourcefile: 'sdk.ts',
      loader: 'ts',
    },
    outfile: 'dist/sdk.js',
    platform: 'node',
    format: 'cjs',
    target: 'node20',
  },
  {
    ...base,
    stdin: holonEntry,
    outfile: 'dist/holon.js',
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    banner: { js: '#!/usr/bin/env node' },
    // The demo's virtual human drives Chromium with the repository's playwright-core; the CLI carries none of it.
    external: [PG_NATIVE, 'playwright-core'],
    plugins: [besideSdk, noStatusLists],
  },
  {
    ...base,
    entryPoints: ['src/extension.ts'],
    outfile: 'dist/extension.js',
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    external: ['vscode', PG_NATIVE],
    plugins: [lazyModules],
  },
  // The webviews' shared libraries, once (dist/webview/shared.js): every page loads it before its own bundle.
  {
    ...base,
    stdin: webviewShared.contents,
    outfile: 'dist/webview/shared.js',
    platform: 'browser',
    format: 'iife',
    target: 'es2022',
    // All of zod/mini is kept (a page may use any of it), so its locales would all be kept too.
    plugins: [englishOnly],
  },
  {
    ...base,
    entryPoints: { holonView: 'src/webview/holonView.ts', receipts: 'src/webview/receipts.ts', mandateEditor: 'src/webview/mandateEditor.ts', proposal: 'src/webview/proposal.ts' },
    outdir: 'dist/webview',
    platform: 'browser',
    format: 'iife',
    target: 'es2022',
    plugins: [webviewShared.plugin],
  },
  // The ceremony page's script (dist/webview/passkey.js), served on loopback to the system browser rather
  // than in a webview: self-contained (no shared.js there) and minified always.
  {
    ...base,
    entryPoints: { passkey: 'src/webview/passkey.ts' },
    outdir: 'dist/webview',
    platform: 'browser',
    format: 'iife',
    target: 'es2022',
    minify: true,
    sourcemap: false,
  },
  // The demo agents, self-contained, so the packaged extension (which ships no node_modules) can run them.
  // What they share (the PDF reader, the protocol's helpers) is one module beside them, not a copy in each.
  {
    ...base,
    entryPoints: fs.readdirSync('examples/agents').filter((f) => f.endsWith('.mjs')).map((f) => `examples/agents/${f}`),
    outdir: 'dist/examples/agents',
    outExtension: { '.js': '.mjs' },
    splitting: true,
    chunkNames: 'shared-[hash]',
    platform: 'node',
    format: 'esm',
    target: 'node20',
    sourcemap: false,
    banner: { js: "import { createRequire as __holonRequire } from 'node:module'; const require = __holonRequire(import.meta.url);" },
    // The agents sit in dist/examples/agents; `require` (above) resolves from the agent's own file.
    plugins: [sharedSdk("['..', '..', 'sdk.js'].join('/')")],
  },
];

/** An example seller run by `node` as an ES module (dist/examples/sellers/NAME.mjs), requiring what it must through createRequire. */
const sellerTarget = (entryPoints, plugins = []) => ({
  ...base,
  entryPoints,
  outdir: 'dist/examples/sellers',
  outExtension: { '.js': '.mjs' },
  platform: 'node',
  format: 'esm',
  target: 'node20',
  sourcemap: false,
  banner: { js: "import { createRequire as __holonRequire } from 'node:module'; const require = __holonRequire(import.meta.url);" },
  plugins,
});

/** A local seller to try the terms tools against (dist/examples/sellers/seller.mjs). */
targets.push(sellerTarget({ seller: 'examples/sellers/run.ts' }));

/**
 * The paid MCP tool (dist/examples/sellers/paidTool.mjs): an MCP server whose tool x402 pays per call. It takes
 * the MCP SDK and zod from dist/sdk.js, like the demo agents.
 */
targets.push(sellerTarget({ paidTool: 'examples/sellers/runPaidTool.ts' }, [sharedSdk("['..', '..', 'sdk.js'].join('/')")]));

/**
 * The local chain to pay on by hand (dist/examples/chain/chain.cjs): CommonJS, because it finds its node's
 * launcher (node.cjs, copied beside it with its Hardhat configuration) next to itself. The launcher
 * loads Hardhat from the repository's node_modules: the chain is a tool of the repository, not of the
 * packaged extension.
 */
targets.push({
  ...base,
  entryPoints: { chain: 'examples/chain/run.ts' },
  outdir: 'dist/examples/chain',
  outExtension: { '.js': '.cjs' },
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  sourcemap: false,
});

/** The two local merchants (ACP and UCP) to try the commerce tools against (dist/examples/merchants/merchants.mjs). */
targets.push({
  ...base,
  entryPoints: { merchants: 'examples/merchants/run.ts' },
  outdir: 'dist/examples/merchants',
  outExtension: { '.js': '.mjs' },
  platform: 'node',
  format: 'esm',
  target: 'node20',
  sourcemap: false,
  // The UCP merchant's AP2 verification (@sd-jwt) asks for zod 4: it takes the one in dist/sdk.js.
  banner: { js: "import { createRequire as __holonRequire } from 'node:module'; const require = __holonRequire(import.meta.url);" },
  plugins: [sharedSdk("['..', '..', 'sdk.js'].join('/')")],
});

/** The demo catalog and its invoices beside the bundled agents, and the chain's launcher (dist/examples). */
function copyExamples() {
  fs.mkdirSync('dist/examples/files', { recursive: true });
  fs.mkdirSync('dist/examples/chain', { recursive: true });
  for (const f of ['node.cjs', 'hardhat.config.cjs']) fs.copyFileSync(path.join('examples/chain', f), path.join('dist/examples/chain', f));
  fs.copyFileSync('examples/catalog.json', 'dist/examples/catalog.json');
  for (const f of fs.readdirSync('examples/files')) {
    if (f.endsWith('.pdf') || f.endsWith('.txt')) fs.copyFileSync(path.join('examples/files', f), path.join('dist/examples/files', f));
  }
}

/**
 * The MCP Apps page (dist/apps/holon.html, served by src/server/apps.ts as every `ui://holon/<view>`): one
 * self-contained HTML file, its script and stylesheet inline and allowed by their SHA-256 in its own CSP,
 * so nothing is loaded from anywhere and no other inline script or style runs. Minified always: the
 * package carries it.
 */
async function buildApps() {
  const out = await esbuild.build({
    plugins: [mcpPure, englishOnly],
    ...base,
    entryPoints: ['src/apps/main.ts'],
    bundle: true,
    write: false,
    minify: true,
    sourcemap: false,
    platform: 'browser',
    format: 'iife',
    target: 'es2022',
  });
  const js = out.outputFiles[0].text;
  const css = fs.readFileSync('src/apps/app.css', 'utf8');
  if (/<\/(script|style)/i.test(js + css)) throw new Error('the apps bundle holds a closing script or style tag');
  const hash = (text) => `'sha256-${crypto.createHash('sha256').update(text, 'utf8').digest('base64')}'`;
  const csp = [
    "default-src 'none'",
    `script-src ${hash(js)}`,
    `style-src ${hash(css)}`,
    'img-src data:',
    "connect-src 'none'",
    "font-src 'none'",
    "frame-src 'none'",
    "form-action 'none'",
    "base-uri 'none'",
  ].join('; ');
  const html =
    `<!DOCTYPE html>\n<html lang="en" data-view="__HOLON_VIEW__">\n<head>\n<meta charset="utf-8">\n` +
    `<meta http-equiv="Content-Security-Policy" content="${csp}">\n<meta name="viewport" content="width=device-width, initial-scale=1">\n` +
    `<title>Holon</title>\n<style>${css}</style>\n</head>\n<body>\n<main id="root"></main>\n<script>${js}</script>\n</body>\n</html>\n`;
  fs.mkdirSync('dist/apps', { recursive: true });
  fs.writeFileSync('dist/apps/holon.html', html);
}

// A production build starts clean, so no stale source map or bundle ends up in the package.
if (production) fs.rmSync('dist', { recursive: true, force: true });
copyExamples();
if (watch) {
  for (const t of targets) await (await esbuild.context(t)).watch();
  await buildApps();
} else {
  await Promise.all([...targets.map((t) => esbuild.build(t)), buildApps()]);
}
