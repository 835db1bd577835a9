/**
 * The payments' index never disagrees with the settlements it indexes. A randomized history (a fixed seed)
 * of settlement events — payments of several mandates signed, claimed, landed, expired, flagged, released,
 * refunded, and events for settlements that do not exist — is read through the index (the newest payments
 * of one mandate or of all, a spend's payment by its hold, the audit trail's pages at every cursor) and
 * through a naive reference that scans every settlement and every event, which must agree, and so must
 * the settlements a watcher of the chain reads at every block, and the deposit a channel's closing looks
 * its refund for (several payers, escrows and schemes, nonces signed again): on the live state, and on a
 * state revived from its snapshot form and folded on from there.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { PaymentAuditEntry } from '../../src/core/money/audit.ts';
import { auditTrailPage, isPaymentEntry, latestPaymentEntries } from '../../src/core/money/audit.ts';
import { newestSettlements, settlementDetail } from '../../src/core/money/payments.ts';
import type { HolonState } from '../../src/core/fold/state.ts';
import { holonReducer, initialState } from '../../src/core/fold/state.ts';
import { channelSettlement } from '../../src/core/rails/refund.ts';
import { awaitsChain, settlementsAwaiting } from '../../src/core/rails/settlement.ts';
import type { JournalEvent } from '../../src/core/store/store.ts';

/** A reproducible stream of numbers in [0, 1). */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const MANDATES = ['demo/a', 'demo/b', 'demo/c'];
const TX = (n: number): string => `0x${n.toString(16).padStart(64, '0')}`;
const ADDRESS = (n: number): string => `0x${n.toString(16).padStart(40, '0')}`;
const PAYERS = [ADDRESS(3), ADDRESS(0xa3)];
const ESCROWS = [ADDRESS(2), ADDRESS(0xb2)];
/** Each scheme's own nonces, a few of them, so that the same terms are signed again. */
const NONCES = { exact: [1, 2, 3, 4, 5].map((n) => TX(0xe0 + n)), upto: [1, 2, 3].map((n) => TX(0xf0 + n)) };

/** Who pays whom under which nonce, in which scheme: a settlement's terms, or a channel's deposit. */
interface Terms {
  scheme: 'exact' | 'upto';
  payer: string;
  escrow: string;
  nonce: string;
}

/** Every settlement event folded so far: what the naive reference reads. */
interface Folded {
  seq: number;
  at: string;
  type: string;
  settlement: string;
}

function signed(id: string, mandate: string, hold: string, t: Terms): Record<string, unknown> {
  return {
    settlement: {
      ...(t.scheme === 'exact' ? {} : { scheme: t.scheme }),
      id,
      mandate,
      hold,
      for: { kind: 'payment', id: hold },
      network: 'eip155:31337',
      token: '0x0000000000000000000000000000000000000001',
      payee: 'eip155:31337:0x0000000000000000000000000000000000000002',
      authorization: {
        from: t.payer,
        to: t.escrow,
        value: '1000',
        validAfter: '0',
        validBefore: '9999999999',
        nonce: t.nonce,
      },
      amount: { amount: '0.001', currency: 'USDC' },
      held: { amount: '0.001', currency: 'EUR' },
      status: 'signed',
      payload: {},
      from_block: '1',
    },
  };
}

function naiveNewest(s: HolonState, signedSeq: Map<string, number>, mandate: string | null, limit: number): string[] {
  return Object.values(s.settlements)
    .filter((r) => mandate === null || r.mandate === mandate)
    .sort((a, b) => (signedSeq.get(b.id) ?? 0) - (signedSeq.get(a.id) ?? 0))
    .slice(0, limit)
    .map((r) => r.id);
}

/** The first settlement (in the order they were signed) paid under the deposit's nonce, by its payer, to its escrow. */
function naiveDeposit(s: HolonState, t: Terms): string | undefined {
  const same = (a: string, b: string): boolean => a.toLowerCase() === b.toLowerCase();
  return Object.values(s.settlements).find((r) => same(r.authorization.nonce, t.nonce) && same(r.authorization.from, t.payer) && same(r.authorization.to, t.escrow))
    ?.id;
}

function naiveTrail(s: HolonState, events: Folded[], mandate: string, after: number, limit: number): { entries: PaymentAuditEntry[]; next: number | null } {
  const all = events
    .filter((e) => e.seq > after && s.settlements[e.settlement]?.mandate === mandate)
    .map((e) => ({ seq: e.seq, at: e.at, type: e.type, settlement: settlementDetail(s, s.settlements[e.settlement] as never) }));
  const page = all.slice(0, limit);
  const last = page[page.length - 1];
  return { entries: page, next: all.length > page.length && last ? last.seq : null };
}

function check(s: HolonState, events: Folded[], signedSeq: Map<string, number>, rand: () => number, what: string): void {
  for (const mandate of [null, ...MANDATES]) {
    const limit = 1 + Math.floor(rand() * 12);
    assert.deepEqual(
      newestSettlements(s, { mandate, limit }).map((r) => r.id),
      naiveNewest(s, signedSeq, mandate, limit),
      `${what}: the newest ${limit} of ${mandate ?? 'every mandate'}`,
    );
  }
  for (const r of Object.values(s.settlements)) assert.equal(s.settlement_by_hold[r.hold], r.id, `${what}: the hold of ${r.id}`);
  // What a watcher of the chain reads at every block: exactly the settlements that wait for it.
  const awaiting = Object.values(s.settlements).filter(awaitsChain).map((r) => r.id);
  assert.deepEqual([...settlementsAwaiting(s)].sort(), awaiting.sort(), `${what}: the settlements that wait for the chain`);
  // Every deposit a channel could name, its addresses and H in either case, paid or not.
  for (const scheme of ['exact', 'upto'] as const)
    for (const nonce of [...NONCES[scheme], TX(0xdd)])
      for (const payer of PAYERS)
        for (const escrow of ESCROWS) {
          const upper = rand() < 0.5;
          const cased = (x: string): string => (upper ? `0x${x.slice(2).toUpperCase()}` : x);
          assert.equal(
            channelSettlement(s, { atrHash: cased(nonce), payer: cased(payer), escrow: cased(escrow) })?.id,
            naiveDeposit(s, { scheme, payer, escrow, nonce }),
            `${what}: the deposit paid under ${nonce} by ${payer} to ${escrow}`,
          );
        }
  for (const mandate of MANDATES) {
    // Every page, following next, from the start and from a random cursor: the same as the naive reference.
    const limit = 1 + Math.floor(rand() * 7);
    for (const start of [0, Math.floor(rand() * (events[events.length - 1]?.seq ?? 0))]) {
      let after = start;
      for (let pages = 0; ; pages++) {
        assert.ok(pages < 1000, 'the pages end');
        const got = auditTrailPage(s, mandate, after, limit);
        assert.ok(got.entries.every(isPaymentEntry), 'no intents in this history');
        assert.deepEqual(got, naiveTrail(s, events, mandate, after, limit), `${what}: ${mandate}'s trail after ${after}, ${limit} a page`);
        if (got.next === null) break;
        after = got.next;
      }
    }
    const latest = 1 + Math.floor(rand() * 10);
    const all = naiveTrail(s, events, mandate, 0, Number.MAX_SAFE_INTEGER).entries;
    assert.deepEqual(latestPaymentEntries(s, mandate, latest), all.slice(-latest), `${what}: ${mandate}'s latest ${latest} events`);
  }
}

test("the payments' index equals a scan of every settlement and event, live and revived from a snapshot", () => {
  const rand = random(29);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)] as T;
  const s = initialState();
  let revived: HolonState | undefined;
  let seq = 0;
  const events: Folded[] = [];
  const signedSeq = new Map<string, number>();
  const fold = (type: string, data: Record<string, unknown>): JournalEvent => {
    seq += 1;
    const e = { seq, time: new Date(Date.UTC(2026, 0, 1) + seq * 1000).toISOString(), type, data, prev: '', hash: '' };
    holonReducer.apply(s, e);
    if (revived) holonReducer.apply(revived, e);
    const id = (data['settlement'] as { id?: string } | string | undefined) ?? '';
    const settlement = typeof id === 'string' ? id : (id.id ?? '');
    if (s.settlements[settlement]) events.push({ seq, at: e.time, type, settlement });
    return e;
  };
  let n = 0;
  for (let step = 1; step <= 600; step++) {
    const ids = Object.keys(s.settlements);
    const r = rand();
    if (r < 0.3 || ids.length === 0) {
      n += 1;
      const id = `stl_${n}`;
      const scheme = rand() < 0.3 ? 'upto' : 'exact';
      fold('settlement.signed', signed(id, pick(MANDATES), `pay_${n}`, { scheme, payer: pick(PAYERS), escrow: pick(ESCROWS), nonce: pick(NONCES[scheme]) }));
      signedSeq.set(id, seq);
    } else if (r < 0.4) fold('settlement.claimed', { settlement: pick(ids), transaction: TX(step), by: 'seller' });
    else if (r < 0.55) fold('settlement.landed', { settlement: pick(ids), transaction: TX(step), block: String(step), value: '1000', log_index: 0 });
    else if (r < 0.65) fold('settlement.expired', { settlement: pick(ids), why: 'expired' });
    else if (r < 0.75) fold('settlement.flagged', { settlement: pick(ids), reason: 'not_on_chain', detail: 'd', approval: null });
    else if (r < 0.8) fold('settlement.release_asked', { settlement: pick(ids), approval: `apr_${step}` });
    else if (r < 0.85) fold('settlement.refund_expected', { settlement: pick(ids), value: '10', from: '0x2', from_block: '1' });
    else if (r < 0.875) fold('settlement.decided', { settlement: pick(ids), approval: `apr_${step}`, outcome: 'kept' });
    else if (r < 0.9)
      fold('settlement.refunded', {
        settlement: pick(ids),
        transaction: TX(step),
        block: String(step),
        value: '10',
        credit: { mandate: pick(MANDATES), account: 'acct_1', amount: { amount: '0.00001', currency: 'USDC' }, day: '2026-01-01' },
      });
    // An event for a settlement that is not there: no entry anywhere.
    else fold('settlement.landed', { settlement: `stl_missing_${step}`, transaction: TX(step), block: '1' });
    if (step % 100 === 0) {
      check(s, events, signedSeq, rand, `after step ${step}`);
      if (revived) {
        check(revived, events, signedSeq, rand, `revived, after step ${step}`);
        assert.equal(holonReducer.serialize(revived), holonReducer.serialize(s), 'the revived state folds to the same');
      }
      if (step === 200) revived = holonReducer.deserialize(holonReducer.serialize(s));
    }
  }
  assert.ok(Object.values(s.settlements).some((r) => r.status === 'landed') && Object.values(s.settlements).some((r) => r.status === 'expired'));
});
