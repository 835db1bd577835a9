/**
 * The seed's v0 design, as the baseline of comparison (c): one `.holon/state.json` holding the whole
 * state, re-read before and written after each tool call ("Limits (v0)"). Per call_agent that is: read
 * and JSON-parse the file, apply the call (a settled receipt, the mandate's and account's spend, the
 * agent's record), JSON-stringify the whole state, write it back and fsync it.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Receipt } from '../src/core/kernel/model.ts';
import { parseUnits } from '../src/core/kernel/amount.ts';
import type { HolonState } from '../src/core/fold/state.ts';
import type { CallTemplate } from './world.ts';

/** The state as v0 kept it on disk: the same objects, amounts as decimal-unit strings. */
interface V0State {
  accounts: Record<string, { funded: Record<string, string>; spent: Record<string, string>; held: Record<string, string> }>;
  mandates: HolonState['mandates'];
  spend: Record<string, { spent: string; held: string; by_day: Record<string, string> }>;
  fx: HolonState['fx'];
  agents: HolonState['agents'];
  records: Record<string, { runs: number; succeeded: number; cost_units: string; duration_ms: number }>;
  approvals: HolonState['approvals'];
  receipts: Record<string, Receipt>;
  receipts_by_mandate: Record<string, string[]>;
  holds: Record<string, { mandate: string; units: string }>;
}

const add = (a: string | undefined, b: bigint): string => (BigInt(a ?? '0') + b).toString();

/** Writes `state` as a v0 state.json in `dir`, durably; returns the file and its size. */
export function writeV0State(dir: string, state: HolonState, receipts: Receipt[]): { file: string; bytes: number } {
  const file = path.join(dir, 'state.json');
  // v0 kept every receipt in the state it rewrote; the journal's state keeps only open ones.
  const byMandate: Record<string, string[]> = {};
  for (const r of receipts) (byMandate[r.mandate] ??= []).push(r.id);
  const v0 = { ...state, receipts: Object.fromEntries(receipts.map((r) => [r.id, r])), receipts_by_mandate: byMandate };
  const text = JSON.stringify(v0, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));
  writeDurably(file, text);
  return { file, bytes: Buffer.byteLength(text) };
}

function writeDurably(file: string, text: string): void {
  const fd = fs.openSync(file, 'w', 0o600);
  try {
    fs.writeSync(fd, text);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

/** One call_agent's state work in v0: re-read, apply, rewrite the whole file, fsync. */
export function v0Call(file: string, tpl: CallTemplate, id: string, startedAt: string, endedAt: string): void {
  const s = JSON.parse(fs.readFileSync(file, 'utf8')) as V0State;

  const f = tpl.finished;
  const r: Receipt = {
    ...tpl.started.receipt,
    id,
    status: f.status,
    cost: f.cost,
    error: f.error,
    output_summary: f.output_summary,
    started_at: startedAt,
    ended_at: endedAt,
    duration_ms: f.duration_ms,
    children: [],
  };
  s.receipts[id] = r;
  (s.receipts_by_mandate[r.mandate] ??= []).push(id);
  const cost = parseUnits(f.cost.amount);
  const m = s.mandates[r.mandate];
  const sp = (s.spend[r.mandate] ??= { spent: '0', held: '0', by_day: {} });
  sp.spent = add(sp.spent, cost);
  const day = endedAt.slice(0, 10);
  sp.by_day[day] = add(sp.by_day[day], cost);
  if (m) {
    const acct = (s.accounts[m.account] ??= { funded: {}, spent: {}, held: {} });
    acct.spent[m.currency] = add(acct.spent[m.currency], cost);
  }
  if (r.agent) {
    const rec = (s.records[r.agent] ??= { runs: 0, succeeded: 0, cost_units: '0', duration_ms: 0 });
    rec.runs += 1;
    if (f.status === 'succeeded') rec.succeeded += 1;
    rec.cost_units = add(rec.cost_units, parseUnits(f.price_cost.amount));
    rec.duration_ms += f.duration_ms;
  }

  writeDurably(file, JSON.stringify(s));
}
