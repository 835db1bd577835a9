/**
 * A payment's durability on the file journal: everything it wrote is on disk before the wallet's
 * signature is handed back, with one fdatasync (the settlement's, which covers the hold); an approval it
 * asks for is on disk before the agent is told to wait for it; a wallet that fails spends nothing.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, mock, test } from 'node:test';
import * as M from '../../src/core/kernel/amount.ts';
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
import { tempDir, TestClock } from '../helpers.ts';

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
  test('one fdatasync, after the wallet signed and before the signature is handed back; the hold is on disk with it', async () => {
    const spentBefore = spend().spent;
    let atSigning: { syncs: number; holdWritten: boolean } | undefined;
    const { result, syncs } = await syncsDuring((count) =>
      payWithin(store, clock, ask('0.25'), async () => {
        atSigning = { syncs: count(), holdWritten: /"hold\.placed"/.test(journal()) };
        return '0xsigned';
      }),
    );
    assert.equal(result.kind, 'paid');
    assert.deepEqual(atSigning, { syncs: 0, holdWritten: true }, 'the hold is written, and left to the settlement to sync');
    assert.equal(syncs, 1, 'the settlement syncs itself and the hold');
    assert.ok(result.kind === 'paid' && new RegExp(`"hold\\.settled".*"${result.spend}"`).test(journal()));
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

  test('a wallet that fails: the hold is released, nothing spent', async () => {
    const before = spend();
    await assert.rejects(
      payWithin(store, clock, ask('0.10'), async () => {
        throw new Error('the wallet is locked');
      }),
      /the wallet is locked/,
    );
    assert.deepEqual(spend(), before);
    assert.match(journal(), /"hold\.released".*"not_signed"/);
  });
});
