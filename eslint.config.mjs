// The house rules of DESIGN.md §3, enforced per folder. The bundles enforce them a second time.
import stylistic from '@stylistic/eslint-plugin';
import tseslint from 'typescript-eslint';

const sdk = { group: ['@modelcontextprotocol/*'], message: 'Only src/server and src/cli speak MCP.' };
const vscode = { name: 'vscode', message: 'Only src/editor and src/extension.ts import vscode.' };
const coreOnly = { group: ['**/server/**', '**/cli/**', '**/editor/**', '**/webview/**'], message: 'core imports only core, node: builtins and small pure libraries.' };
const storeOnly = 'The store imports no domain module: only the store, kernel/deps.ts and kernel/errors.ts (a fold or a codec is passed in).';
const kernelOnly = { regex: '^\\.\\./(?!\\.\\./shared/)', message: 'The kernel (amounts, ids, errors, denials, words, model) imports only the kernel and src/shared.' };
const webviewOnly = {
  group: ['**/core/**', '**/server/**', '**/cli/**', '**/editor/**'],
  message: 'Webviews import only src/webview, and src/shared (what the core and the webviews both read).',
};
// The subjects an approval can be about, and what is built on them. The approvals (and every kind's
// declaration) are read by the subjects whenever they ask for an approval, so an import of one back would
// close a circle; what a decision does to its subject is src/core/decisions, above both. Amounts
// (kernel/amount.ts, kernel/amountJson.ts) are values every module uses, not a subject.
const subjects = {
  group: [
    '**/office/**', '**/money/**', '**/rails/**', '**/market/**', '**/commerce/**', '**/memory/**',
    '**/terms/**', '**/identity/**', '**/accounts/mandates.ts', '**/accounts/team.ts', '**/teamAdmin.ts', '**/fold/**',
    '**/views/**', '**/decisions/**',
  ],
  message: 'approvals import no subject module: a kind declares what it binds and shows; what deciding it does is src/core/decisions.',
};

export default tseslint.config(
  { ignores: ['**/*.tmp.*', 'dist/**', 'node_modules/**', '.cache/**', 'examples/**/*.mjs', '.holon/**'] },
  ...tseslint.configs.recommended,
  // Plain CommonJS scripts a child process runs as they are (the bench's probes).
  { files: ['**/*.cjs'], rules: { '@typescript-eslint/no-require-imports': 'off' } },
  {
    files: ['**/*.ts'],
    // Type-aware rules: a promise nobody awaits or catches is an unhandled rejection waiting to happen.
    languageOptions: { parserOptions: { project: ['./tsconfig.json', './tsconfig.webview.json'], tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      // node:test runs what test() and describe() return; nobody else awaits them.
      '@typescript-eslint/no-floating-promises': ['error', { allowForKnownSafeCalls: [{ from: 'package', package: 'node:test', name: ['test', 'describe', 'it', 'suite'] }] }],
      '@typescript-eslint/no-misused-promises': 'error',
    },
  },
  // Lines a person can read: prettier wraps code at 140 (npm run format); strings and comments it cannot
  // wrap are held to the same width here.
  { files: ['src/**/*.ts'], plugins: { '@stylistic': stylistic }, rules: { '@stylistic/max-len': ['error', { code: 140, tabWidth: 2 }] } },
  {
    files: ['src/core/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { paths: [vscode], patterns: [sdk, coreOnly] }] },
  },
  // The ground floor: the words every module speaks.
  {
    files: ['src/core/kernel/*.ts'],
    rules: { 'no-restricted-imports': ['error', { paths: [vscode], patterns: [sdk, coreOnly, kernelOnly] }] },
  },
  // The store knows events, bytes, hashes and signatures: from the rest of the core it takes only the
  // host services (kernel/deps.ts) and the failure vocabulary (kernel/errors.ts); a fold or a codec is passed in.
  {
    files: ['src/core/store/*.ts'],
    rules: { 'no-restricted-imports': ['error', { paths: [vscode], patterns: [sdk, coreOnly, { regex: '^\\.\\./(?!kernel/(deps|errors)\\.ts$)', message: storeOnly }] }] },
  },
  {
    files: ['src/core/store/*/*.ts'],
    rules: { 'no-restricted-imports': ['error', { paths: [vscode], patterns: [sdk, coreOnly, { regex: '^\\.\\./\\.\\./(?!kernel/(deps|errors)\\.ts$)', message: storeOnly }] }] },
  },
  {
    files: ['src/core/approvals/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { paths: [vscode], patterns: [sdk, coreOnly, subjects] }] },
  },
  {
    // What both the core and the webviews read (the kinds of approval): declarations, importing nothing.
    files: ['src/shared/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [{ regex: '.', message: 'src/shared imports nothing.' }] }] },
  },
  {
    files: ['src/server/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { paths: [vscode], patterns: [{ group: ['**/editor/**', '**/webview/**', '**/cli/**'], message: 'server imports core, the MCP SDK and zod (the CLI builds on the server, never the reverse).' }] }],
    },
  },
  {
    files: ['src/cli/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { paths: [vscode], patterns: [{ group: ['**/editor/**', '**/webview/**'], message: 'cli imports core, server, the MCP SDK and zod.' }] }],
    },
  },
  {
    files: ['src/editor/**/*.ts', 'src/extension.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { regex: 'webview/(?!protocol/)', message: 'The host shares only src/webview/protocol with the webviews.' },
            { ...sdk, message: 'The editor reaches MCP through the holon process it starts, never the SDK itself.' },
            { group: ['**/server/**', '**/cli/**'], message: 'The editor runs the server and CLI as processes; it imports only core.' },
          ],
        },
      ],
    },
  },
  {
    files: ['src/webview/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { paths: [vscode], patterns: [sdk, webviewOnly] }] },
  },
  // The MCP App views (dist/apps/holon.html): browser code that speaks to the host through the ext-apps
  // package only, and borrows the webviews' DOM helpers; nothing of the core, the server or the editor.
  {
    files: ['src/apps/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [vscode],
          patterns: [
            { group: ['@modelcontextprotocol/sdk', '@modelcontextprotocol/sdk/*'], message: 'An app reaches its host through @modelcontextprotocol/ext-apps only.' },
            { group: ['**/core/**', '**/server/**', '**/cli/**', '**/editor/**'], message: 'An app imports only src/apps, the webviews’ render/dom.ts and ext-apps.' },
          ],
        },
      ],
    },
  },
);
