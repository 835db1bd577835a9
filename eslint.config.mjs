// The house rules of DESIGN.md §3, enforced per folder. The bundles enforce them a second time.
import tseslint from 'typescript-eslint';

const sdk = { group: ['@modelcontextprotocol/*'], message: 'Only src/server and src/cli speak MCP.' };
const vscode = { name: 'vscode', message: 'Only src/editor and src/extension.ts import vscode.' };
const webviewOnly = { group: ['**/core/**', '**/server/**', '**/cli/**', '**/editor/**'], message: 'Webviews import only src/webview.' };

export default tseslint.config(
  { ignores: ['**/*.tmp.*', 'dist/**', 'node_modules/**', '.cache/**', 'examples/**', '.holon/**'] },
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    rules: {
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    files: ['src/core/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        paths: [vscode],
        patterns: [sdk, { group: ['**/server/**', '**/cli/**', '**/editor/**', '**/webview/**'], message: 'core imports only core, node: builtins and small pure libraries.' }],
      }],
    },
  },
  {
    files: ['src/server/**/*.ts', 'src/cli/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { paths: [vscode], patterns: [{ group: ['**/editor/**', '**/webview/**'], message: 'server and cli import core, the MCP SDK and zod.' }] }],
    },
  },
  {
    files: ['src/editor/**/*.ts', 'src/extension.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ regex: 'webview/(?!protocol/)', message: 'The host shares only src/webview/protocol with the webviews.' }] }],
    },
  },
  {
    files: ['src/webview/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { paths: [vscode], patterns: [sdk, webviewOnly] }] },
  },
);
