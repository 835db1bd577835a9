/**
 * One racing process for the team store's tests: opens the store at argv[2] with its own state folder
 * (argv[3], its installation key), says "ready", waits for a line on stdin, then tries argv[4] spends
 * of 0.10 EUR on demo/sandbox, each decided by gateSpend in one transaction. With argv[5] "rerunnable",
 * each is a transaction that may run again, as a call's hold is (decided without the lock first). Prints
 * what it got, and how its store appended, as JSON.
 */
import * as readline from 'node:readline';
import { silentLogger, systemClock } from '../../src/core/kernel/deps.ts';
import { lazySigner } from '../../src/core/store/keys.ts';
import { money } from '../../src/core/kernel/amount.ts';
import { PostgresStore } from '../../src/core/store/pg/store.ts';
import { gateSpend } from '../../src/core/money/spend.ts';
import { holonReducer } from '../../src/core/fold/state.ts';

async function main(): Promise<void> {
  const [url, stateDir, count, mode] = process.argv.slice(2) as [string, string, string, string | undefined];
  const store = await PostgresStore.open({ url, reducer: holonReducer, clock: systemClock, logger: silentLogger, signer: lazySigner(stateDir) });
  process.stdout.write('ready\n');
  const rl = readline.createInterface({ input: process.stdin });
  await new Promise<void>((resolve) => rl.once('line', () => resolve()));
  rl.close();
  process.stdin.destroy();
  const got = { held: 0, denied: 0 };
  for (let i = 0; i < Number(count); i++) {
    const kind = await store.transact((s) => {
      const mandate = s.mandates['demo/sandbox'];
      if (!mandate) throw new Error('no mandate');
      const id = `spend-${process.pid}-${i}`;
      const gate = gateSpend(s, { id, mandate, payee: { kind: 'payee', id: 'bob' }, amount: money('0.10', 'EUR'), subject: { kind: 'payment', payee: 'bob', amount: { amount: '0.10', currency: 'EUR' }, terms_hash: null, purpose: null }, now: Date.now() });
      return { events: gate.kind === 'held' ? gate.events : [], result: gate.kind };
    }, { rerunnable: mode === 'rerunnable' });
    if (kind === 'held') got.held += 1;
    else got.denied += 1;
  }
  // The result first: what is measured is the race, not how the connections wind down.
  process.stdout.write(JSON.stringify({ ...got, counts: store.counts }) + '\n');
  store.close();
  await store.ended;
}

main().catch((err: unknown) => {
  process.stderr.write(String((err as Error).stack ?? err));
  process.exit(1);
});
