/**
 * docs/tools.md is what the server lists: the page is built again from a real server's tools/list and
 * compared with the committed one, so a tool, an argument or a description changed in the code and not
 * in the reference fails here, with the command that writes it.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { test } from 'node:test';
import { TOOL_DOCS, TOOL_DOCS_COMMAND, toolDocs } from '../../scripts/toolDocs.ts';
import { TOOLSETS } from '../../src/server/server.ts';

test('docs/tools.md is the tool reference the server lists today', async () => {
  const page = await toolDocs();
  const committed = fs.existsSync(TOOL_DOCS) ? fs.readFileSync(TOOL_DOCS, 'utf8') : '';
  if (committed === page) return;
  const a = committed.split('\n');
  const b = page.split('\n');
  const at = b.findIndex((line, i) => line !== a[i]);
  assert.fail(
    `docs/tools.md differs from the server's tools at line ${at + 1}: run \`${TOOL_DOCS_COMMAND}\` and commit it.\n` +
      `  committed: ${a[at] ?? '(end of file)'}\n  now:       ${b[at] ?? '(end of file)'}`,
  );
});

test('the reference has every toolset and every tool of the server, each with its arguments', () => {
  const page = fs.readFileSync(TOOL_DOCS, 'utf8');
  for (const set of Object.values(TOOLSETS)) {
    assert.match(page, new RegExp(`^## ${set.name}$`, 'm'), `toolset ${set.name}`);
    for (const tool of set.tools) assert.match(page, new RegExp(`^### \`${tool.name}\` — `, 'm'), `tool ${tool.name}`);
  }
  const pay = page.slice(page.indexOf('### `pay` — '));
  assert.match(pay, /^not read-only · needs `pay`\./m);
  assert.match(pay, /^\| `intent` \| \{payee, amount, currency, purpose, idempotency_key\} \| yes \| The payment intent \|$/m);
  const search = page.slice(page.indexOf('### `search_agents` — '));
  assert.match(search, /^read-only · every grantee may call it\.$/m);
  assert.match(search, /^\| `limit` \| integer \| no \| How many allowed \(and excluded\) agents to return at most; default 20 \|$/m);
});
