/** `holon memory`: what a mandate remembers, shown to the human read-only, as of any valid and system time. */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { systemClock } from '../../src/core/kernel/deps.ts';
import { createMandate } from '../../src/core/accounts/mandates.ts';
import { remember } from '../../src/core/memory/memory.ts';
import { ensureBuilt, holon, ledgerBytes, openLedger, tempDir, until } from './cliHarness.ts';

const M = 'demo/mem';
let dir: string;
let cleanup: () => void;
let beforeCorrection: string;

before(async () => {
  await ensureBuilt();
  ({ dir, cleanup } = tempDir('holon-memory-'));
  const store = await openLedger(dir);
  try {
    await createMandate(store, systemClock, M, { toolsets: ['memory'] });
    await createMandate(store, systemClock, 'demo/empty', { toolsets: ['memory'] });
    await remember(store, M, { key: 'acme/contact', content: 'alice@acme.example', valid_from: '2026-01-01T00:00:00Z' }, systemClock.now());
    await remember(store, M, { key: 'term', content: 'red\u001b[31m alert\nsecond line' }, systemClock.now());
    // A system time strictly after the records above and strictly before the correction below.
    const remembered = systemClock.now();
    const between = await until(() => systemClock.now() > remembered && systemClock.now(), 'the clock to pass the first records');
    beforeCorrection = new Date(between).toISOString();
    await until(() => systemClock.now() > between, 'the clock to pass that time');
    await remember(store, M, { key: 'acme/contact', content: 'bob@acme.example', valid_from: '2026-06-01T00:00:00Z' }, systemClock.now());
  } finally {
    store.close();
  }
});
after(() => cleanup());

interface Listed { total: number; records: { key: string; content: string; supersedes: string[] }[] }
const run = async (args: string[]): Promise<Listed> => {
  const r = await holon(['memory', ...args, '--state', dir, '--json']);
  assert.equal(r.code, 0, r.stderr);
  return JSON.parse(r.stdout) as Listed;
};

test('lists the snapshot now, as of a valid time, as of a system time, and every version', async () => {
  const ledger = await ledgerBytes(dir);
  const now = await run([M]);
  assert.deepEqual(now.records.map((r) => [r.key, r.content]), [['acme/contact', 'bob@acme.example'], ['term', 'red\u001b[31m alert\nsecond line']]);
  assert.deepEqual((await run([M, '--as-of', '2026-03-01T00:00:00Z', '--prefix', 'acme/'])).records.map((r) => r.content), ['alice@acme.example']);
  assert.deepEqual((await run([M, '--system-as-of', beforeCorrection, '--prefix', 'acme/'])).records.map((r) => r.content), ['alice@acme.example']);
  const history = await run([M, '--history']);
  assert.equal(history.total, 3);
  assert.equal(history.records[1]?.supersedes.length, 1, 'the correction names what it superseded');
  assert.deepEqual((await run(['demo/empty'])).records, []);

  const text = await holon(['memory', M, '--state', dir]);
  assert.equal(text.code, 0, text.stderr);
  assert.match(text.stdout, /demo\/mem: 2 records valid at/);
  assert.match(text.stdout, /bob@acme\.example/);
  assert.ok(!text.stdout.includes('\u001b'), 'a terminal escape in a memory is shown, never run');
  assert.match(text.stdout, /red\\u001b\[31m alert ⏎ second line/);
  assert.ok((await ledgerBytes(dir)).equals(ledger), 'reading writes nothing');
});

test('refuses what it cannot answer', async () => {
  assert.equal((await holon(['memory', 'demo/none', '--state', dir])).code, 1);
  assert.equal((await holon(['memory', M, '--as-of', 'yesterday', '--state', dir])).code, 2);
  assert.equal((await holon(['memory', M, '--history', '--as-of', '2026-01-01T00:00:00Z', '--state', dir])).code, 2);
  assert.equal((await holon(['memory', '--state', dir])).code, 2);
});
