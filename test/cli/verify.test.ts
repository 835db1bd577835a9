/**
 * `holon verify` checks the journal offline: it passes on a state the CLI and a server wrote, and after
 * one byte of one event is changed it fails and names that event: as the first bad line when the chain
 * cannot be read past it, or as a refused transaction when it can.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { before, describe, test } from 'node:test';
import { copyState, ensureBuilt, holonIn, journalFile, mcpSession, readEvents, seededState, structured } from './cliHarness.ts';

before(ensureBuilt);

type Report = {
  ok: boolean;
  events: number;
  transactions: number;
  signed_through: number;
  unsigned: number;
  first_bad?: { line: number; seq: number; problem: string };
  refused: { from: number; to: number; code: string }[];
};

let template: Promise<{ state: string; cleanup: () => void }> | undefined;

/** A seeded state with a real call in it (receipts, settlement, a checkpoint from the server); made once, copied per test. */
async function stateWithCalls(): Promise<{ state: string; cleanup: () => void }> {
  template ??= (async () => {
    const { dir: state, cleanup } = await seededState();
    process.on('exit', cleanup);
    const session = await mcpSession(state, 'demo/sandbox', ['--approval-wait', '0', '--no-elicitation']);
    try {
      const r = await session.client.callTool({ name: 'call_agent', arguments: { agent: 'lena/table-extract-fr', input: { file: 'holon://files/examples/facture.pdf' } } });
      assert.equal(structured<{ status: string }>(r).status, 'succeeded');
    } finally {
      await session.close();
    }
    return { state, cleanup };
  })();
  const { dir: state, cleanup } = copyState((await template).state);
  return { state, cleanup };
}

/** Changes one byte of line `line` (1-based): the first byte after `after` inside that line, to `to`. */
function changeOneByte(state: string, line: number, after: string, pick: (c: string) => string): { before: string; afterText: string } {
  const file = journalFile(state);
  const bytes = fs.readFileSync(file);
  let start = 0;
  for (let i = 1; i < line; i++) start = bytes.indexOf(10, start) + 1;
  const end = bytes.indexOf(10, start);
  const text = bytes.toString('utf8', start, end);
  const at = text.indexOf(after);
  assert.ok(at >= 0, `line ${line} has ${after}: ${text}`);
  const pos = start + at + after.length;
  const old = String.fromCharCode(bytes[pos] ?? 0);
  const to = pick(old);
  assert.equal(Buffer.byteLength(to), 1);
  assert.notEqual(to, old);
  const changed = Buffer.from(bytes);
  changed[pos] = to.charCodeAt(0);
  fs.writeFileSync(file, changed);
  assert.equal(changed.length, bytes.length);
  assert.equal(changed.filter((b, i) => b !== bytes[i]).length, 1, 'exactly one byte differs');
  return { before: text, afterText: changed.toString('utf8', start, end) };
}

const otherHex = (c: string): string => (c === '0' ? '1' : '0');
const otherDigit = (c: string): string => (c === '9' ? '8' : String.fromCharCode(c.charCodeAt(0) + 1));

describe('holon verify', { concurrency: 4 }, () => {
  test('passes on a real state, in text and --json', async () => {
    const { state, cleanup } = await stateWithCalls();
    try {
      const events = await readEvents(state);
      const r = await holonIn(state, ['verify']);
      assert.equal(r.code, 0, r.stderr);
      assert.ok(r.stdout.includes(String(events.length)), r.stdout);
      const j = await holonIn(state, ['verify', '--json']);
      const report = JSON.parse(j.stdout) as Report;
      assert.equal(report.ok, true);
      assert.equal(report.events, events.length);
      assert.equal(report.signed_through, events.length, 'every transaction is sealed as it is written');
      assert.equal(report.transactions, events.filter((e) => e.tx).length);
      assert.ok(events.some((e) => e.type === 'hold.settled'));
    } finally {
      cleanup();
    }
  });

  // Each variant changes one byte of one event in the middle of the journal, in a different field.
  const variants: { name: string; after: (e: { type: string }) => string; pick: (c: string) => string }[] = [
    { name: 'an amount in its data', after: () => '"amount":"', pick: otherDigit },
    { name: 'its time', after: () => '"time":"20', pick: otherDigit },
    { name: 'its type', after: () => '"type":"', pick: (c) => (c === 'x' ? 'y' : 'x') },
    { name: 'its own hash', after: () => '"hash":"', pick: otherHex },
    { name: 'its link to the event before', after: () => '"prev":"', pick: otherHex },
    { name: 'its sequence number', after: () => '"seq":', pick: otherDigit },
    { name: 'a brace (the line no longer parses)', after: () => '', pick: () => '[' },
  ];

  for (const v of variants) {
    test(`after one byte of ${v.name} changes, fails and names that event`, async () => {
      const { state, cleanup } = await stateWithCalls();
      try {
        const events = await readEvents(state);
        // An event in the middle that carries an amount: the call's settlement.
        const target = events.find((e) => e.type === 'call.finished');
        assert.ok(target);
        const line = events.indexOf(target) + 1;
        assert.equal(target.seq, line);
        assert.ok(line < events.length, 'events follow it');
        changeOneByte(state, line, v.after(target), v.pick);

        const r = await holonIn(state, ['verify']);
        assert.equal(r.code, 1, r.stdout + r.stderr);
        assert.ok(r.stdout.includes(`event ${target.seq}`), r.stdout);
        const j = await holonIn(state, ['verify', '--json']);
        assert.equal(j.code, 1);
        const report = JSON.parse(j.stdout) as Report;
        assert.equal(report.ok, false);
        // Where the line still parses and links, the transaction that holds it is refused and the check
        // goes on; where it does not, nothing after it can be read.
        const refused = report.refused.find((t) => t.from <= target.seq && target.seq <= t.to);
        if (refused) assert.equal(refused.code, 'altered', JSON.stringify(report));
        else {
          assert.equal(report.first_bad?.line, line, JSON.stringify(report));
          assert.equal(report.first_bad?.seq, target.seq);
          assert.equal(report.events, line - 1);
          assert.ok(r.stdout.includes(`line ${line}`), r.stdout);
        }
      } finally {
        cleanup();
      }
    });
  }
});
