/** `holon wallet`: the human's key made or taken in, kept 0600 in the state, never printed, never replaced. */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { before, test } from 'node:test';
import { privateKeyToAccount } from 'viem/accounts';
import { ensureBuilt, holon, tempDir } from './cliHarness.ts';

before(ensureBuilt);

test('create, show, import from stdin; never printed, never replaced; bad keys refused', async () => {
  const { dir, cleanup } = tempDir('holon-wallet-');
  try {
    const a = path.join(dir, 'a');
    const none = await holon(['wallet', '--state', a, '--json']);
    assert.deepEqual(JSON.parse(none.stdout), { address: null, balances: null });
    const made = await holon(['wallet', 'create', '--state', a, '--json']);
    assert.equal(made.code, 0, made.stderr);
    const { address } = JSON.parse(made.stdout) as { address: string };
    const file = path.join(a, 'keys', 'wallet.key');
    assert.equal(fs.statSync(file).mode & 0o777, 0o600);
    const key = fs.readFileSync(file, 'utf8').trim();
    assert.equal(privateKeyToAccount(key as `0x${string}`).address, address);
    assert.ok(!made.stdout.includes(key.slice(2)) && !made.stderr.includes(key.slice(2)), 'the key is never printed');
    assert.deepEqual(JSON.parse((await holon(['wallet', '--state', a, '--json'])).stdout), { address, balances: null }, 'no chain configured: no balances');
    const again = await holon(['wallet', 'create', '--state', a]);
    assert.equal(again.code, 1);
    assert.equal(fs.readFileSync(file, 'utf8').trim(), key, 'a wallet is never replaced');

    const b = path.join(dir, 'b');
    const theirs = `0x${randomBytes(32).toString('hex')}`;
    const imported = await holon(['wallet', 'import', '--state', b, '--json'], { input: `${theirs}\n` });
    assert.equal(imported.code, 0, imported.stderr);
    assert.deepEqual(JSON.parse(imported.stdout), { address: privateKeyToAccount(theirs as `0x${string}`).address });
    assert.ok(!imported.stdout.includes(theirs.slice(2)));

    for (const bad of ['', 'nope', `0x${'zz'.repeat(32)}`, `0x${'ab'.repeat(31)}`]) {
      const c = path.join(dir, `c${bad.length}`);
      const r = await holon(['wallet', 'import', '--state', c], { input: `${bad}\n` });
      assert.equal(r.code, 2, bad);
      assert.equal(fs.existsSync(path.join(c, 'keys', 'wallet.key')), false, 'nothing kept for a bad key');
    }
    const arg = await holon(['wallet', 'import', theirs, '--state', path.join(dir, 'd')]);
    assert.notEqual(arg.code, 0, 'a key on the command line is refused');
  } finally {
    cleanup();
  }
});

test('mandate --payees grants pay to those payees and keeps every other grant; an empty value is refused', async () => {
  const { dir, cleanup } = tempDir('holon-payees-');
  try {
    const s = path.join(dir, 's');
    assert.equal((await holon(['fund', 'demo', '1', '--state', s])).code, 0);
    const payee = 'eip155:31337:0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
    const made = await holon(['mandate', 'create', 'demo/buyer', '--toolsets', 'market,terms', '--capabilities', 'extraction.*', '--payees', payee, '--state', s, '--json']);
    assert.equal(made.code, 0, made.stderr);
    const grants = (JSON.parse(made.stdout) as { capabilities: { name: string; params: unknown }[] }).capabilities;
    assert.deepEqual(grants.map((g) => [g.name, g.params]), [['market.call', { capabilities: ['extraction.*'] }], ['pay', { payees: [payee] }]]);
    const edited = await holon(['mandate', 'edit', 'demo/buyer', '--payees', '*', '--state', s, '--json']);
    assert.equal(edited.code, 0, edited.stderr);
    const after = (JSON.parse(edited.stdout) as { capabilities: { name: string; params: unknown }[] }).capabilities;
    assert.deepEqual(after.map((g) => [g.name, g.params]), [['market.call', { capabilities: ['extraction.*'] }], ['pay', { payees: ['*'] }]], 'market.call is kept');
    const empty = await holon(['mandate', 'edit', 'demo/buyer', '--payees', '', '--state', s]);
    assert.equal(empty.code, 2);
  } finally {
    cleanup();
  }
});
