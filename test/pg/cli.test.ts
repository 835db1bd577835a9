/** The CLI on the team store: --store and HOLON_STORE reach one PostgreSQL database; the state folder keeps only the key. */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import { promisify } from 'node:util';
import { after, before, test } from 'node:test';
import { HOLON_BIN, ROOT, tempDir } from '../helpers.ts';
import type { TestPostgres } from './harness.ts';
import { startPostgres } from './harness.ts';

let pg: TestPostgres;
before(async () => {
  if (!fs.existsSync(HOLON_BIN)) await promisify(execFile)(process.execPath, ['esbuild.mjs'], { cwd: ROOT });
  pg = await startPostgres();
});
after(() => pg.stop());

async function holon(args: string[], env: Record<string, string> = {}): Promise<{ code: number; out: string }> {
  try {
    const r = await promisify(execFile)(process.execPath, [HOLON_BIN, ...args], { env: { ...process.env, HOLON_STORE: '', ...env } });
    return { code: 0, out: r.stdout + r.stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, out: e.stdout + e.stderr };
  }
}

test('two state folders share one account through --store and HOLON_STORE', async () => {
  const url = await pg.createDatabase('cli');
  const a = tempDir();
  const b = tempDir();
  try {
    const first = await holon(['fund', 'demo', '5', '--state', a.dir, '--store', url]);
    assert.equal(first.code, 0, first.out);
    const second = await holon(['fund', 'demo', '2', '--state', a.dir, '--json'], { HOLON_STORE: url });
    assert.equal(second.code, 0, second.out);
    assert.match(second.out, /7\.00/);
    // The first to write owns the store: another installation reads it, and may not fund it until made an owner.
    const other = await holon(['fund', 'demo', '2', '--state', b.dir], { HOLON_STORE: url });
    assert.equal(other.code, 1, other.out);
    assert.match(other.out, /needs an owner of account demo/);
    const listed = await holon(['team', 'list', '--state', b.dir, '--json'], { HOLON_STORE: url });
    assert.equal(listed.code, 0, listed.out);
    assert.deepEqual(fs.readdirSync(a.dir), ['keys'], 'no journal in the state folder: the events are in the database');
    const wrong = await holon(['fund', 'demo', '1', '--state', a.dir, '--store', 'mysql://x']);
    assert.equal(wrong.code === 0, false);
    assert.match(wrong.out, /postgres:\/\//);
  } finally {
    a.cleanup();
    b.cleanup();
  }
});

test('a store that cannot be reached is one clear error, soon, and nothing is written', { timeout: 120_000 }, async () => {
  // A port nobody listens on, and a server that takes the connection and never answers (a host that drops packets).
  const closed = await new Promise<number>((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
  const sockets: net.Socket[] = [];
  const silent = net.createServer((socket) => sockets.push(socket));
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  const state = tempDir();
  try {
    for (const port of [closed, (silent.address() as net.AddressInfo).port]) {
      const url = `postgres://holon:secret@127.0.0.1:${port}/team`;
      const r = await holon(['fund', 'demo', '5', '--state', state.dir, '--store', url]);
      assert.equal(r.code, 1, r.out);
      const lines = r.out.split('\n').filter((l) => l.length > 0);
      assert.equal(lines.length, 1, r.out);
      assert.match(lines[0] ?? '', new RegExp(`^holon: could not reach the team store at postgres://holon:\\*\\*\\*@127\\.0\\.0\\.1:${port}/team \\(`));
      assert.ok(!r.out.includes('secret'), 'the password is never shown');
    }
    assert.deepEqual(fs.readdirSync(state.dir), [], 'nothing was written, not even a key');
  } finally {
    for (const s of sockets) s.destroy();
    silent.close();
    state.cleanup();
  }
});
