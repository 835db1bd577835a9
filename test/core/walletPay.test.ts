/**
 * A payment's durability on the file journal: its hold and what settles it are one transaction, written
 * after the wallet signed and before the signature is handed back, with one fdatasync — a crash leaves both
 * or neither, and a process killed while the wallet signs leaves nothing held; a spend that takes the room
 * while the wallet signs refuses the payment at its commit; an approval it asks for is on disk before the
 * agent is told to wait for it; a wallet that fails writes nothing.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, mock, test } from 'node:test';
import * as M from '../../src/core/kernel/amount.ts';
import { HolonError } from '../../src/core/kernel/errors.ts';
import { silentLogger } from '../../src/core/kernel/deps.ts';
import { openState } from '../../src/core/holon.ts';
import { createMandate } from '../../src/core/accounts/mandates.ts';
import { setFx } from '../../src/core/money/fx.ts';
import type { PaymentAsk } from '../../src/core/money/walletPay.ts';
import { payWithin } from '../../src/core/money/walletPay.ts';
import { fund } from '../../src/core/money/spend.ts';
import type { HolonState } from '../../src/core/fold/state.ts';
import type { EventStore } from '../../src/core/store/store.ts';
import { JOURNAL_FILE } from '../../src/core/store/file/journal.ts';
import { HANG_MS, ROOT, tempDir, TestClock, until } from '../helpers.ts';

const MANDATE = 'demo/buyer';
const PAYEE = 'eip155:31337:0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const clock = new TestClock();
const t = tempDir();
let store: EventStore<HolonState>;

before(async () => {
  store = openState(t.dir, { clock, logger: silentLogger, watch: false, snapshotEvery: 0 });
  await fund(store, 'demo', '10');
  await setFx(store, 'USDC', 'EUR', '0.92');
  await createMandate(store, clock, MANDATE, {
    toolsets: ['terms'],
    approval_threshold: '0.50',
    budget: { total: '5.00', per_day: null, per_call: null },
    capabilities: [{ name: 'pay', params: { payees: [PAYEE] } }],
  });
});
after(() => {
  store.close();
  t.cleanup();
});

const ask = (amount: string): PaymentAsk => ({ mandate: MANDATE, payee: PAYEE, amount: M.money(amount, 'USDC'), termsHash: `0x${'ab'.repeat(32)}`, purpose: 'one table' });
const journal = (): string => fs.readFileSync(path.join(t.dir, JOURNAL_FILE), 'utf8');
const lines = (): string[] => journal().split('\n').filter((l) => l.length > 0);

/** The lines of the transaction (the last line of each is sealed: it carries `tx`) holding the first line with both `type` and `id`. */
function transactionOf(ls: string[], type: string, id: string): string[] {
  let start = 0;
  for (let i = 0; i < ls.length; i++) {
    const sealed = (JSON.parse(ls[i] as string) as { tx?: unknown }).tx !== undefined;
    if (sealed) {
      const tx = ls.slice(start, i + 1);
      if (tx.some((l) => l.includes(type) && l.includes(id))) return tx;
      start = i + 1;
    }
  }
  assert.fail(`no transaction with ${type} ${id}`);
}
const spend = (): { spent: bigint; held: bigint } => store.state.spend[MANDATE] ?? { spent: 0n, held: 0n };

/** Counts the journal's fdatasyncs while `fn` runs (the real calls, passed through). */
async function syncsDuring<T>(fn: (count: () => number) => Promise<T>): Promise<{ result: T; syncs: number }> {
  const spy = mock.method(fs, 'fdatasyncSync');
  try {
    const result = await fn(() => spy.mock.callCount());
    return { result, syncs: spy.mock.callCount() };
  } finally {
    spy.mock.restore();
  }
}

describe('a payment on the file journal', () => {
  test("a payment's hold and its settlement are one transaction, written after the wallet signed: a crash leaves both or neither", async () => {
    const spentBefore = spend().spent;
    const linesBefore = lines().length;
    let atSigning: { syncs: number; written: number } | undefined;
    const { result, syncs } = await syncsDuring((count) =>
      payWithin(store, clock, ask('0.25'), async () => {
        atSigning = { syncs: count(), written: lines().length - linesBefore };
        return '0xsigned';
      }),
    );
    assert.equal(result.kind, 'paid');
    assert.deepEqual(atSigning, { syncs: 0, written: 0 }, 'nothing of the payment is written while the wallet signs');
    assert.equal(syncs, 1, 'one fdatasync, for the one transaction');
    const spendId = result.kind === 'paid' ? result.spend : '';
    const tx = transactionOf(lines().slice(linesBefore), `"hold.placed"`, spendId);
    assert.ok(tx.some((l) => l.includes('"hold.settled"') && l.includes(spendId)), 'the hold and its settlement are in the same transaction');
    assert.equal(spend().spent, spentBefore + 230_000n, '0.25 USDC at 0.92');
    assert.equal(spend().held, 0n);
  });

  test('an approval it asks for is on disk before anyone waits for it', async () => {
    let atWaiting: { syncs: number; written: boolean } | undefined;
    const { result } = await syncsDuring((count) =>
      payWithin(store, clock, ask('1.00'), async () => assert.fail('nothing is signed while a human decides'), {
        wait: async (approval) => {
          atWaiting = { syncs: count(), written: journal().includes(approval.id) };
          return 'pending';
        },
      }),
    );
    assert.equal(result.kind, 'pending');
    assert.deepEqual(atWaiting, { syncs: 1, written: true });
  });

  test('a wallet that fails: nothing written, nothing spent', async () => {
    const before = spend();
    const linesBefore = lines().length;
    await assert.rejects(
      payWithin(store, clock, ask('0.10'), async () => {
        throw new Error('the wallet is locked');
      }),
      /the wallet is locked/,
    );
    assert.deepEqual(spend(), before);
    assert.equal(lines().length, linesBefore);
  });

  test('a spend that takes the room while the wallet signs: the payment is refused at its commit, and nothing of it is written', async () => {
    const RACE = 'demo/race';
    await createMandate(store, clock, RACE, {
      toolsets: ['terms'],
      approval_threshold: '0.50',
      budget: { total: '0.60', per_day: null, per_call: null },
      capabilities: [{ name: 'pay', params: { payees: [PAYEE] } }],
    });
    const racing = { ...ask('0.45'), mandate: RACE };
    let other: Awaited<ReturnType<typeof payWithin<string>>> | undefined;
    await assert.rejects(
      payWithin(store, clock, racing, async () => {
        // Both fit alone (0.414 EUR each), not together (0.60): the other one is paid first.
        other = await payWithin(store, clock, racing, async () => '0xother');
        return '0xfirst';
      }),
      (err: unknown) => HolonError.is(err, 'denied'),
    );
    assert.equal(other?.kind, 'paid');
    const sp = store.state.spend[RACE];
    assert.equal(sp?.spent, 414_000n, 'only the other one is spent');
    assert.equal(sp?.held, 0n, 'nothing stays held');
  });

  test('a process killed with -9 while the wallet signs: nothing is held, nothing spent', { timeout: HANG_MS }, async () => {
    const k = tempDir();
    try {
      const s = openState(k.dir, { clock, logger: silentLogger, watch: false, snapshotEvery: 0 });
      await fund(s, 'demo', '10');
      await setFx(s, 'USDC', 'EUR', '0.92');
      await createMandate(s, clock, MANDATE, { toolsets: ['terms'], capabilities: [{ name: 'pay', params: { payees: [PAYEE] } }] });
      s.close();
      const script = `
        const [dir, mandate, payee] = process.argv.slice(1);
        const { openState } = require(${JSON.stringify(path.join(ROOT, 'src/core/holon.ts'))});
        const { payWithin } = require(${JSON.stringify(path.join(ROOT, 'src/core/money/walletPay.ts'))});
        const M = require(${JSON.stringify(path.join(ROOT, 'src/core/kernel/amount.ts'))});
        const quiet = { info() {}, warn() {}, error() {} };
        const store = openState(dir, { clock: { now: () => Date.now() }, logger: quiet, watch: false, snapshotEvery: 0 });
        const ask = { mandate, payee, amount: M.money('0.25', 'USDC'), termsHash: null, purpose: 'one table' };
        payWithin(store, { now: () => Date.now() }, ask, () => {
          process.stdout.write('signing\\n');
          return new Promise(() => setInterval(() => {}, 60_000));
        });
      `;
      const proc = spawn(process.execPath, ['--import', 'tsx', '-e', script, k.dir, MANDATE, PAYEE], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      let err = '';
      proc.stdout.on('data', (d: Buffer) => (out += d.toString()));
      proc.stderr.on('data', (d: Buffer) => (err += d.toString()));
      const exited = new Promise<void>((resolve) => proc.on('exit', () => resolve()));
      try {
        await until(() => {
          if (proc.exitCode !== null) throw new Error(`the child exited before signing: ${err}`);
          return out.includes('signing');
        }, 'the child to sign');
      } finally {
        proc.kill('SIGKILL');
        await exited;
      }
      const after = openState(k.dir, { clock, logger: silentLogger, watch: false, snapshotEvery: 0 });
      try {
        assert.deepEqual(after.state.spend[MANDATE] ?? { spent: 0n, held: 0n }, { spent: 0n, held: 0n });
        assert.equal(Object.keys(after.state.holds).length, 0, 'no hold is left behind');
      } finally {
        after.close();
      }
    } finally {
      k.cleanup();
    }
  });
});
