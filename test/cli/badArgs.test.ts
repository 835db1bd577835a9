/**
 * Bad arguments, command by command: one line on stderr starting with "holon:", a non-zero exit, and
 * nothing written — the journal's bytes are the same before and after, and a read on a missing state
 * does not create it.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { before, describe, test } from 'node:test';
import type { Run } from './cliHarness.ts';
import { EXAMPLES, ensureBuilt, HANG_MS, holonIn, ledgerBytes, mcpSession, pool, seededState, structured, tempDir } from './cliHarness.ts';

before(ensureBuilt);

/** Every file under a folder, with its size: what a refused command must leave as it was. */
function listing(dir: string): string[] {
  return (fs.readdirSync(dir, { recursive: true, withFileTypes: true }) as fs.Dirent[])
    .filter((d) => d.isFile())
    .map((d) => {
      const file = path.join(d.parentPath ?? (d as unknown as { path: string }).path, d.name);
      return `${path.relative(dir, file)} ${fs.statSync(file).size}`;
    })
    .sort();
}

function assertRefusal(r: Run, args: string[]): void {
  const what = `holon ${args.join(' ')}`;
  assert.ok(r.code === 1 || r.code === 2, `${what}: exit ${r.code} (expected 1 or 2)\n${r.stderr}`);
  const lines = r.stderr.split('\n').filter((l) => l.length > 0);
  assert.equal(lines.length, 1, `${what}: one line on stderr, got:\n${r.stderr}`);
  assert.match(lines[0] ?? '', /^holon: \S/, what);
  assert.equal(r.stdout, '', `${what}: nothing on stdout`);
}

/** Runs every case on `state` (a few at a time) and checks each was refused and wrote nothing. */
async function refusedAll(state: string, cases: string[][]): Promise<void> {
  const files = listing(state);
  const bytes = await ledgerBytes(state);
  await pool(cases, 3, async (args) => {
    const r = await holonIn(state, args);
    assertRefusal(r, args);
  });
  assert.ok((await ledgerBytes(state)).equals(bytes), 'the journal is byte for byte as it was');
  assert.deepEqual(listing(state), files, 'no file was added or changed in size');
}

/**
 * Runs every case on its own missing state folder under `root`; none may create it. (On a team store a
 * read needs no state folder: test/pg/cli.test.ts.)
 */
async function refusedOnMissing(root: string, cases: string[][]): Promise<void> {
  await pool(cases, 3, async (args, i) => {
    const state = path.join(root, `missing-${i}`);
    const r = await holonIn(state, args);
    const what = `holon ${args.join(' ')}`;
    assertRefusal(r, args);
    assert.equal(fs.existsSync(state), false, `${what} created ${state}`);
  });
}

async function withState(fn: (state: string, root: string) => Promise<void>): Promise<void> {
  const { dir, root, cleanup } = await seededState();
  try {
    await fn(dir, root);
  } finally {
    cleanup();
  }
}

const BAD_AMOUNTS = ['abc', '1.1234567', '0'];

describe('holon with bad arguments', { concurrency: true }, () => {
  describe('bad arguments write nothing', { concurrency: 2 }, () => {
    test('fund', () =>
      withState(async (state, root) => {
        await refusedAll(state, [
          ['fund', 'demo', '5', '--bogus'],
          ['fund', 'demo'],
          ['fund', 'demo', '5', '6'],
          ...BAD_AMOUNTS.map((a) => ['fund', 'demo', a]),
          ['fund', 'demo', '-5'],
          ['fund', 'demo', '--', '-5'],
          ['fund', 'demo', '5', '--currency', 'eur'],
          ['fund', 'demo', '5', '--currency'],
          ['fund', 'Demo', '5'],
        ]);
        await refusedOnMissing(root, [['fund', 'demo'], ['fund', 'demo', '5', '--bogus'], ['fund', 'demo', 'abc'], ['fund', 'demo', '5', '--currency', 'eur']]);
      }));

    test('fx', () =>
      withState(async (state, root) => {
        await refusedAll(state, [
          ['fx', '--bogus'],
          ['fx', 'USD', 'EUR'],
          ['fx', 'USD', 'EUR', '1', '2'],
          ...BAD_AMOUNTS.map((a) => ['fx', 'USD', 'EUR', a]),
          ['fx', 'USD', 'EUR', '--', '-5'],
          ['fx', 'usd', 'EUR', '0.9'],
          ['fx', 'EUR', 'EUR', '1'],
        ]);
        await refusedOnMissing(root, [['fx'], ['fx', 'USD', 'EUR'], ['fx', 'usd', 'EUR', '1']]);
      }));

    test('mandate', () =>
      withState(async (state, root) => {
        await refusedAll(state, [
          ['mandate', 'list', '--bogus'],
          ['mandate'],
          ['mandate', 'show'],
          ['mandate', 'show', 'demo/sandbox', 'extra'],
          ['mandate', 'frob', 'demo/x'],
          ['mandate', 'create', 'demo/x', '--total', 'abc'],
          ['mandate', 'create', 'demo/x', '--threshold', '1.1234567'],
          ['mandate', 'create', 'demo/x', '--total=-5'],
          ['mandate', 'edit', 'demo/sandbox', '--per-call', '0'],
          ['mandate', 'edit', 'demo/sandbox', '--total', '0'],
          ['mandate', 'create', 'demo/x', '--currency', 'eur'],
          ['mandate', 'create', 'Demo/X'],
          ['mandate', 'create', 'demo/x/y'],
          ['mandate', 'edit', 'BAD ID', '--total', '1'],
          ['mandate', 'show', 'demo/nope'],
          ['mandate', 'edit', 'demo/nope', '--total', '1'],
          ['mandate', 'create', 'demo/sandbox'],
          ['mandate', 'create', 'demo/x', '--retention', 'abc'],
          ['mandate', 'create', 'demo/x', '--training', 'maybe'],
          ['mandate', 'create', 'demo/x', '--expires', 'tomorrow'],
          ['mandate', 'create', 'demo/x', '--status', 'active'],
          ['mandate', 'edit', 'demo/sandbox', '--status', 'paused'],
        ]);
        await refusedOnMissing(root, [
          ['mandate', 'list'],
          ['mandate', 'show', 'demo/sandbox'],
          ['mandate', 'create', 'demo/x', '--training', 'maybe'],
          ['mandate', 'create', 'Demo/X'],
          ['mandate', 'create', 'demo/x', '--total', 'abc'],
        ]);
      }));

    test('agents', () =>
      withState(async (state, root) => {
        const notJson = path.join(root, 'not-json.json');
        fs.writeFileSync(notJson, '{"agents": [');
        // A catalog whose second agent is bad: the first must not be added on its own.
        const catalog = JSON.parse(fs.readFileSync(path.join(EXAMPLES, 'catalog.json'), 'utf8')) as { agents: { manifest: Record<string, unknown> }[] };
        const first = catalog.agents[0];
        const second = structuredClone(catalog.agents[1]);
        assert.ok(first && second);
        const half = (price: unknown, id = 'lena/other'): string => {
          const file = path.join(root, `half-${id.replace('/', '-')}-${String(JSON.stringify(price)).length}.json`);
          fs.writeFileSync(file, JSON.stringify({ agents: [{ ...first, manifest: { ...first.manifest, id: 'acme/copy' } }, { ...second, manifest: { ...second.manifest, id, price } }] }));
          return file;
        };
        await refusedAll(state, [
          ['agents', 'list', '--bogus'],
          ['agents'],
          ['agents', 'add'],
          ['agents', 'search', 'a', 'b'],
          ['agents', 'frob'],
          ['agents', 'add', path.join(root, 'no-such-file.json')],
          ['agents', 'add', notJson],
          ['agents', 'add', half({ currency: 'EUR', per_call: 'abc' })],
          ['agents', 'add', half({ currency: 'EUR', per_call: '1.1234567' })],
          ['agents', 'add', half({ currency: 'eur', per_call: '0.01' })],
          ['agents', 'search', '--mandate', 'demo/nope'],
          ['agents', 'list', '--mandate', 'BAD ID'],
        ]);
        await refusedOnMissing(root, [['agents', 'list'], ['agents', 'search', 'table'], ['agents', 'add', notJson]]);
      }));

    test('approvals, approve and reject', () =>
      withState(async (state, root) => {
        await refusedAll(state, [
          ['approvals', 'extra'],
          ['approvals', '--bogus'],
          ['approve'],
          ['approve', 'apr_a', 'apr_b'],
          ['approve', 'apr_nope'],
          ['approve', 'apr_nope', '--bogus'],
          ['reject'],
          ['reject', 'apr_nope'],
          ['reject', 'apr_nope', '--no-run'],
          ['approvals', 'channels', 'cli,pigeon'],
          ['approvals', 'channels', ''],
          // Without a terminal nobody can choose who approves: an agent's shell has none.
          ['approvals', 'channels', 'panel,elicitation,cli'],
          ['approvals', 'channels', 'all'],
        ]);
        await refusedOnMissing(root, [['approvals'], ['approve', 'apr_x'], ['reject', 'apr_x']]);
      }));

    test('receipts, budget and verify', () =>
      withState(async (state, root) => {
        await refusedAll(state, [
          ['receipts', 'a', 'b'],
          ['receipts', 'rcpt_nope'],
          ['receipts', '--limit', 'abc'],
          ['receipts', '--limit', '0'],
          ['budget', 'a', 'b'],
          ['budget', 'demo/nope'],
          ['budget', 'BAD ID'],
          ['verify', 'extra'],
          ['verify', '--bogus'],
          // Ids that are names on Object.prototype are ids like any other: not found, never a crash.
          ['receipts', 'constructor'],
          ['receipts', '__proto__'],
          ['receipts', 'toString'],
          ['budget', '__proto__'],
          ['budget', 'constructor'],
          ['mandate', 'show', 'hasOwnProperty'],
          ['receipts', '--mandate', '__proto__'],
          ['approve', 'constructor'],
          ['reject', '__proto__'],
        ]);
        await refusedOnMissing(root, [['receipts'], ['budget', 'demo/sandbox'], ['verify']]);
      }));

    test('mcp, demo and unknown commands', () =>
      withState(async (state, root) => {
        await refusedAll(state, [
          ['mcp'],
          ['mcp', 'extra', '--mandate', 'demo/sandbox'],
          ['mcp', '--mandate', 'demo/nope'],
          ['mcp', '--mandate', 'BAD ID'],
          ['mcp', '--mandate', 'demo/sandbox', '--approval-wait', 'abc'],
          ['mcp', '--mandate', 'demo/sandbox', '--approval-wait=-5'],
          ['mcp', '--mandate', 'demo/sandbox', '--elicitation-wait', '3601'],
          ['mcp', '--mandate', 'demo/sandbox', '--bogus'],
          ['demo', 'extra'],
          ['demo', '--bogus'],
          ['demo', '--protocol', '2024-11-05'],
          ['demo', '--protocol'],
          ['frob'],
        ]);
        await refusedOnMissing(root, [
          ['mcp', '--mandate', 'demo/sandbox'],
          ['demo', '--protocol', 'latest'],
        ]);
      }));
  });

  describe('bad arguments write nothing: known bugs', { concurrency: 2 }, () => {
    test(
      'list takes no second positional',
      () =>
        withState(async (state) => {
          await refusedAll(state, [
            ['mandate', 'list', 'extra'],
            ['agents', 'list', 'extra'],
          ]);
        }),
    );

    test(
      'receipts --mandate of an unknown or malformed mandate is refused',
      () =>
        withState(async (state) => {
          await refusedAll(state, [
            ['receipts', '--mandate', 'demo/nope'],
            ['receipts', '--mandate', 'BAD ID'],
          ]);
        }),
    );

    test(
      'editing a mandate of a missing state does not create the state folder',
      async () => {
        const { dir: root, cleanup } = tempDir('holon-cli-');
        try {
          await refusedOnMissing(root, [['mandate', 'edit', 'demo/nope', '--total', '1']]);
        } finally {
          cleanup();
        }
      },
    );

    test(
      'an empty flag value is refused, never read as "not given"',
      () =>
        withState(async (state) => {
          await refusedAll(state, [
            ['mandate', 'create', 'demo/x', '--capabilities', ''],
            ['mandate', 'create', 'demo/y', '--regions', ''],
            ['mandate', 'create', 'demo/z', '--total', ''],
            ['mandate', 'edit', 'demo/sandbox', '--threshold', ''],
          ]);
        }),
    );

    test(
      '--state naming a file is refused in one line',
      async () => {
        const { dir: root, cleanup } = tempDir('holon-cli-');
        try {
          const file = path.join(root, 'not-a-folder');
          fs.writeFileSync(file, 'hello\n');
          await pool([['fund', 'demo', '5'], ['fx', 'USD', 'EUR', '0.9'], ['demo']], 3, async (args) => {
            assertRefusal(await holonIn(file, args), args);
          });
          assert.equal(fs.readFileSync(file, 'utf8'), 'hello\n');
        } finally {
          cleanup();
        }
      },
    );

    test(
      'a refused command appends nothing, even when the journal has unsigned events',
      {
        timeout: HANG_MS,
      },
      () =>
        withState(async (state) => {
          const session = await mcpSession(state, 'demo/sandbox', ['--approval-wait', '0', '--no-elicitation']);
          try {
            // A denied call: the running server appends it and, under the checkpoint interval, leaves it unsigned.
            const r = await session.client.callTool({ name: 'call_agent', arguments: { agent: 'fastcheap/table-extract-us', input: { file: 'holon://files/examples/facture.pdf' } } });
            assert.equal(structured<{ status: string }>(r).status, 'denied');
            await refusedAll(state, [['fund', 'demo', 'abc'], ['mandate', 'show', 'demo/nope'], ['budget', 'demo/nope'], ['reject', 'apr_nope'], ['approve', 'apr_nope']]);
          } finally {
            await session.close();
          }
        }),
    );
  });
});
