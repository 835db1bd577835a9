/**
 * `holon budget` as a user types it, against a spend an agent made through the built `holon mcp` and one
 * recorded in a currency no rate converts (GBP, as a journal from an earlier Holon or a team's store can
 * hold): what the mandate spent and has left are then unknown — in the terminal as in `get_mandate`, never
 * the GBP spend counted as if it were EUR.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { spendEvent } from '../../src/core/money/spend.ts';
import { ensureBuilt, json, mcpSession, ok, openLedger, seededState, structured } from './cliHarness.ts';

const SPENDER = 'demo/spender';
type MoneyJson = { amount: string; currency: string };
type Budget = { mandate: string; total: MoneyJson; spent?: MoneyJson; held: MoneyJson; remaining?: MoneyJson; spent_today?: MoneyJson; unconvertible: string[] };
type Authority = { spent?: MoneyJson; held: MoneyJson; remaining?: MoneyJson; unconvertible: string[] };

let state: { dir: string; cleanup: () => void };

before(async () => {
  await ensureBuilt();
  state = await seededState();
  await ok(state.dir, ['fund', 'demo2', '1']);
  await ok(state.dir, ['mandate', 'create', SPENDER, '--toolsets', 'money,records', '--total', '5', '--threshold', '1', '--grant', '{"pay": {"payees": ["acct:demo2"]}}']);
  const session = await mcpSession(state.dir, SPENDER);
  try {
    const paid = structured<{ intent: { status: string } }>(
      await session.client.callTool({ name: 'pay', arguments: { intent: { payee: 'acct:demo2', amount: '0.20', currency: 'EUR', purpose: 'a test', idempotency_key: 'b-1' } } }),
    );
    assert.equal(paid.intent.status, 'settled');
  } finally {
    await session.close();
  }
  // A spend of 0.10 GBP on the record: no rate converts GBP to EUR.
  const store = await openLedger(state.dir);
  try {
    await store.transact(() => ({
      events: [
        spendEvent('hold.placed', { hold: 'gbp-1', mandate: SPENDER, account: 'demo', currency: 'GBP', amount: '0.10', parent: null, payee: { kind: 'payee', id: 'acct:demo2' } }),
        spendEvent('hold.settled', { hold: 'gbp-1', cost: '0.10' }),
      ],
      result: undefined,
    }));
  } finally {
    store.close();
  }
});

after(() => state?.cleanup());

/** What `get_mandate` says now, through the built server. */
async function authority(): Promise<Authority> {
  const session = await mcpSession(state.dir, SPENDER);
  try {
    return structured<Authority>(await session.client.callTool({ name: 'get_mandate', arguments: {} }));
  } finally {
    await session.close();
  }
}

const budget = async (): Promise<Budget> => {
  const [b] = await json<Budget[]>(state.dir, ['budget', SPENDER]);
  assert.ok(b);
  return b;
};

test('holon budget says spent and remaining are unknown when a spend cannot be converted, as get_mandate does', async () => {
  const unknown = await budget();
  assert.ok(!('spent' in unknown) && !('remaining' in unknown) && !('spent_today' in unknown), `absent together, never 0.30 EUR: ${JSON.stringify(unknown)}`);
  assert.deepEqual(unknown.unconvertible, ['GBP']);
  assert.deepEqual(unknown.total, { amount: '5.00', currency: 'EUR' });
  const text = await ok(state.dir, ['budget', SPENDER]);
  assert.match(text, /spent unknown, held 0\.00 EUR, remaining unknown \(spent in GBP, which no rate converts to EUR: holon fx GBP EUR RATE\)/);
  assert.doesNotMatch(text, /0\.30 EUR|4\.70 EUR/);
  const tool = await authority();
  assert.ok(!('spent' in tool) && !('remaining' in tool));
  assert.deepEqual(tool.unconvertible, unknown.unconvertible, 'the terminal and the tool agree');

  // With a rate, both know again, and say the same: 0.20 EUR and 0.10 GBP at 1.20.
  await ok(state.dir, ['fx', 'GBP', 'EUR', '1.20']);
  const known = await budget();
  assert.deepEqual([known.spent, known.remaining, known.unconvertible], [{ amount: '0.32', currency: 'EUR' }, { amount: '4.68', currency: 'EUR' }, []]);
  const again = await authority();
  assert.deepEqual([again.spent, again.remaining], [known.spent, known.remaining]);
  assert.match(await ok(state.dir, ['budget', SPENDER]), /spent 0\.32 EUR, held 0\.00 EUR, remaining 4\.68 EUR\n/);
});
