import * as fs from 'node:fs';
import * as readline from 'node:readline/promises';
import { addAgent, channelAccepted, createMandate, decideApproval, fund, readCatalog, setFx, updateMandate } from '../core/admin.ts';
import { stderrLogger, systemClock } from '../core/deps.ts';
import { HolonError } from '../core/errors.ts';
import type { FileJournal } from '../core/journal.ts';
import { JOURNAL_FILE } from '../core/journal.ts';
import { openState } from '../core/holon.ts';
import type { Approval, Mandate } from '../core/model.ts';
import * as M from '../core/money.ts';
import { budgetOf } from '../core/policy.ts';
import type { HolonState } from '../core/state.ts';
import { receiptTree, recentRootReceipts } from '../core/gateway.ts';
import { verifyJournal } from '../core/verify.ts';
import { approvalMessage } from '../server/approvalWait.ts';
import { openRuntime } from '../server/runtime.ts';
import { receiptJson, receiptLines } from '../server/tools/market.ts';
import type { Command, CommandContext } from './args.ts';
import { str } from './args.ts';

const clock = systemClock;
const logger = stderrLogger;

/** Opens the state for a short command; no tailing needed. */
function open(ctx: CommandContext): FileJournal<HolonState> {
  return openState(ctx.stateDir, { clock, logger, watch: false });
}

/** Reads a state that must already exist; a read never creates one. */
function openExisting(ctx: CommandContext): FileJournal<HolonState> {
  if (!fs.existsSync(`${ctx.stateDir}/${JOURNAL_FILE}`)) throw new HolonError('not_found', `no Holon state in ${ctx.stateDir} (use --state DIR, or fund an account first)`);
  return open(ctx);
}

/**
 * Runs a command on a store and closes it. A write that succeeded signs a checkpoint; a read, or a
 * command that failed, leaves the journal exactly as it was.
 */
async function withStore<T>(store: FileJournal<HolonState>, fn: (s: FileJournal<HolonState>) => Promise<T>, write = false): Promise<T> {
  try {
    const result = await fn(store);
    if (write) await store.checkpoint();
    return result;
  } finally {
    store.close();
  }
}

function print(ctx: CommandContext, json: unknown, text: string): number {
  ctx.out(ctx.json ? JSON.stringify(json, null, 2) : text);
  return 0;
}

const fmt = (m: M.MoneyJson | null | undefined): string => (m ? M.format(M.fromJson(m)) : 'unknown');
/** A comma-separated flag as a list; an empty list is refused. */
const list = (v: string | undefined): string[] | undefined => {
  if (v === undefined) return undefined;
  const items = v.split(',').map((x) => x.trim()).filter((x) => x.length > 0);
  if (items.length === 0) throw new HolonError('invalid_input', `"${v}" is an empty list`);
  return items;
};

const MANDATE_OPTIONS = {
  currency: { type: 'string', help: 'currency of the mandate (default EUR)' },
  total: { type: 'string', help: 'total budget, e.g. 5.00' },
  'per-day': { type: 'string', help: 'daily limit' },
  'per-call': { type: 'string', help: 'limit for one call' },
  threshold: { type: 'string', help: 'calls whose worst case is above this wait for your approval (default 0.50)' },
  capabilities: { type: 'string', help: 'agent capabilities market.call allows, comma-separated (e.g. extraction.*,pipeline.*)' },
  toolsets: { type: 'string', help: 'toolsets the server offers, comma-separated (default market)' },
  regions: { type: 'string', help: 'regions data may go to, comma-separated (default: any)' },
  retention: { type: 'string', help: 'longest data retention allowed, in days' },
  training: { type: 'string', help: 'allow training on inputs: yes or no (default no)' },
  expires: { type: 'string', help: 'expiry, ISO 8601' },
  grantee: { type: 'string', help: 'name of the agent or person the mandate is for' },
  status: { type: 'string', help: 'active, suspended or revoked (edit only)' },
} as const;

/** The mandate fields the flags set; only what was given. */
function mandateInput(opts: CommandContext['opts'], id: string): Record<string, unknown> {
  // A flag given empty is refused, never read as "not given": `--capabilities ''` must not mean "any".
  const o = (k: string): string | undefined => {
    const v = str(opts, k);
    if (v !== undefined && v.trim() === '') throw new HolonError('invalid_input', `--${k} needs a value`);
    return v;
  };
  const input: Record<string, unknown> = {};
  if (o('currency')) input['currency'] = o('currency');
  const budget: Record<string, string> = {};
  if (o('total')) budget['total'] = o('total') as string;
  if (o('per-day')) budget['per_day'] = o('per-day') as string;
  if (o('per-call')) budget['per_call'] = o('per-call') as string;
  if (Object.keys(budget).length > 0) input['budget'] = budget;
  if (o('threshold')) input['approval_threshold'] = o('threshold');
  if (o('capabilities')) input['capabilities'] = [{ name: 'market.call', params: { capabilities: list(o('capabilities')) } }];
  if (o('toolsets')) input['toolsets'] = list(o('toolsets'));
  const data: Record<string, unknown> = {};
  if (o('regions')) data['regions'] = list(o('regions'));
  if (o('retention')) {
    const n = Number(o('retention'));
    if (!Number.isInteger(n) || n < 0) throw new HolonError('invalid_input', '--retention takes a whole number of days');
    data['retention_days'] = n;
  }
  if (o('training')) {
    if (!['yes', 'no'].includes(o('training') as string)) throw new HolonError('invalid_input', '--training takes yes or no');
    data['training'] = o('training') === 'yes';
  }
  if (Object.keys(data).length > 0) input['data'] = data;
  if (o('expires')) input['expires_at'] = o('expires');
  if (o('grantee')) input['grantee'] = { slug: id.split('/')[1] ?? 'agent', name: o('grantee'), role: 'agent', manager: null };
  if (o('status')) input['status'] = o('status');
  return input;
}

function mandateText(m: Mandate, s: HolonState): string {
  const b = budgetOf(s, m, clock.now());
  const caps = m.capabilities.map((c) => `${c.name}${c.params ? ' ' + JSON.stringify(c.params) : ''}`).join(', ');
  return [
    `${m.id} (${m.status}) for ${m.grantee.name}`,
    `  budget ${M.format(b.total)}, spent ${M.format(b.spent)}, held ${M.format(b.held)}, remaining ${M.format(b.remaining)}`,
    `  per day ${b.per_day ? M.format(b.per_day) : '-'}, per call ${b.per_call ? M.format(b.per_call) : '-'}, approval above ${M.format(b.threshold)}`,
    `  toolsets ${m.toolsets.join(', ')}; capabilities ${caps}`,
    `  data: regions ${m.data.regions?.join(', ') ?? 'any'}, retention ${m.data.retention_days ?? 'any'} days, training ${m.data.training ? 'allowed' : 'forbidden'}`,
    `  expires ${m.expires_at ?? 'never'}`,
  ].join('\n');
}

function approvalLine(a: Approval, now: number): string {
  const status = (a.status === 'pending' || a.status === 'approved') && Date.parse(a.expires_at) <= now ? 'expired' : a.status;
  return `${a.id} ${status.padEnd(8)} ${a.mandate} ${a.agent} ${a.version} worst ${fmt(a.worst_case)} (threshold ${fmt(a.threshold)})`;
}

const fundCmd: Command = {
  name: 'fund',
  usage: 'fund ACCOUNT AMOUNT [--currency EUR]',
  summary: 'Adds funds to an account (created on first use).',
  options: { currency: { type: 'string', help: 'currency (default EUR)' } },
  positionals: [2, 2],
  async run(ctx) {
    const [account = '', amount = ''] = ctx.args;
    return withStore(open(ctx), async (store) => {
      const m = await fund(store, account, amount, str(ctx.opts, 'currency') ?? 'EUR');
      const acct = store.state.accounts[account];
      const total = { units: acct?.funded[m.currency] ?? 0n, currency: m.currency };
      return print(ctx, { account, funded: M.toJson(m), total_funded: M.toJson(total) }, `Funded ${account} with ${M.format(m)} (total funded ${M.format(total)}).`);
    }, true);
  },
};

const mandateCmd: Command = {
  name: 'mandate',
  usage: 'mandate create|list|show|edit [ID] [options]',
  summary: 'Creates, lists, shows and edits mandates. Only a human at this command (or the editor) changes a mandate.',
  options: MANDATE_OPTIONS,
  positionals: [1, 2],
  async run(ctx) {
    const [action, id] = ctx.args;
    if (action === 'list' && id !== undefined) throw new HolonError('invalid_input', 'usage: holon mandate list');
    if (action === 'list') {
      return withStore(openExisting(ctx), async (store) => {
        const all = Object.values(store.state.mandates);
        return print(ctx, all, all.length === 0 ? 'No mandates yet: holon mandate create ACCOUNT/NAME' : all.map((m) => mandateText(m, store.state)).join('\n'));
      });
    }
    if (!id) throw new HolonError('invalid_input', `usage: holon mandate ${action ?? 'create'} ACCOUNT/NAME`);
    if (action === 'show') {
      return withStore(openExisting(ctx), async (store) => {
        const m = store.state.mandates[id];
        if (!m) throw new HolonError('not_found', `no mandate "${id}"`);
        return print(ctx, { ...m, budget_view: jsonBudget(store.state, m) }, mandateText(m, store.state));
      });
    }
    if (action === 'create' || action === 'edit') {
      const input = mandateInput(ctx.opts, id);
      if (action === 'create' && ctx.opts['status']) throw new HolonError('invalid_input', '--status is for edit');
      return withStore(action === 'create' ? open(ctx) : openExisting(ctx), async (store) => {
        const m = action === 'create' ? await createMandate(store, clock, id, input) : await updateMandate(store, clock, id, input);
        return print(ctx, m, `${action === 'create' ? 'Created' : 'Updated'} ${mandateText(m, store.state)}`);
      }, true);
    }
    throw new HolonError('invalid_input', `unknown action "${action}"; use create, list, show or edit`);
  },
};

function jsonBudget(s: HolonState, m: Mandate): Record<string, unknown> {
  const b = budgetOf(s, m, clock.now());
  const j = (x: M.Money | null): M.MoneyJson | null => (x ? M.toJson(x) : null);
  return { total: j(b.total), spent: j(b.spent), held: j(b.held), remaining: j(b.remaining), per_day: j(b.per_day), spent_today: j(b.spent_today), per_call: j(b.per_call), threshold: j(b.threshold), account: { id: b.account.id, funded: j(b.account.funded), available: j(b.account.available) } };
}

const agentsCmd: Command = {
  name: 'agents',
  usage: 'agents list | search [QUERY] [--capability C] [--mandate M] | add FILE',
  summary: 'Lists and searches the catalog; adds agents from a catalog file ({agents:[{manifest, endpoint}]}) or one {manifest, endpoint} file.',
  options: { capability: { type: 'string', help: 'capability or pattern' }, mandate: { type: 'string', help: "show the mandate's decision for each agent" } },
  positionals: [1, 2],
  async run(ctx) {
    const [action, arg] = ctx.args;
    if (action === 'list' && arg !== undefined) throw new HolonError('invalid_input', 'usage: holon agents list');
    if (action === 'add') {
      if (!arg) throw new HolonError('invalid_input', 'usage: holon agents add FILE');
      const entries = readCatalog(arg);
      return withStore(open(ctx), async (store) => {
        for (const e of entries) await addAgent(store, clock, e.manifest, e.endpoint, `file:${arg}`);
        return print(ctx, entries.map((e) => ({ agent: e.manifest.id, version: e.manifest.version })), entries.map((e) => `Added ${e.manifest.id} ${e.manifest.version}`).join('\n'));
      }, true);
    }
    if (action !== 'list' && action !== 'search') throw new HolonError('invalid_input', `unknown action "${action}"; use list, search or add`);
    return withStore(openExisting(ctx), async (store) => {
      const runtime = openRuntime(ctx.stateDir, { clock, logger, store });
      const mandateId = str(ctx.opts, 'mandate') ?? Object.keys(store.state.mandates)[0];
      const query = action === 'search' ? arg : undefined;
      const capability = str(ctx.opts, 'capability');
      if (!mandateId) {
        const all = Object.values(store.state.agents).filter((a) => !capability || a.manifest.capabilities.some((c) => c === capability || (capability.endsWith('.*') && c.startsWith(capability.slice(0, -1)))));
        return print(ctx, all.map((a) => a.manifest), all.map((a) => `${a.manifest.id} ${a.manifest.version} ${a.manifest.capabilities.join(',')} ${a.manifest.price.per_call} ${a.manifest.price.currency}`).join('\n'));
      }
      const r = runtime.deps.gateway.search(mandateId, { query, capability });
      const row = (v: (typeof r.agents)[number]): string =>
        `${v.entry.manifest.id.padEnd(28)} ${v.entry.manifest.version.padEnd(7)} ${fmt(v.ranking.expected_cost_per_success).padEnd(13)} per success  worst ${fmt(v.worst_case).padEnd(12)} ${v.decision}`;
      const text = [`For mandate ${mandateId}:`, ...r.agents.map(row), ...(r.excluded.length > 0 ? ['Excluded:', ...r.excluded.map((v) => `${v.entry.manifest.id}: ${v.reasons.join('; ')}`)] : [])].join('\n');
      return print(
        ctx,
        { mandate: mandateId, agents: r.agents.map((v) => ({ agent: v.entry.manifest.id, version: v.entry.manifest.version, worst_case: v.worst_case, decision: v.decision, ranking: v.ranking })), excluded: r.excluded.map((v) => ({ agent: v.entry.manifest.id, reasons: v.reasons })) },
        text,
      );
    });
  },
};

const approvalsCmd: Command = {
  name: 'approvals',
  usage: 'approvals [--all]',
  summary: 'Lists approvals waiting for you (all of them with --all).',
  options: { all: { type: 'boolean', help: 'include decided, used and expired approvals' } },
  positionals: [0, 0],
  async run(ctx) {
    return withStore(openExisting(ctx), async (store) => {
      const now = clock.now();
      const all = Object.values(store.state.approvals).filter((a) => ctx.opts['all'] || (a.status === 'pending' && Date.parse(a.expires_at) > now));
      return print(ctx, all, all.length === 0 ? 'No approvals waiting.' : all.map((a) => approvalLine(a, now)).join('\n'));
    });
  },
};

/** Asks the human at the terminal; refuses when there is none, so an agent's shell cannot approve. */
async function confirmAtTerminal(question: string): Promise<boolean> {
  if (!process.stdin.isTTY || !process.stdout.isTTY) {
    throw new HolonError('not_interactive', 'approve needs a human at a terminal (stdin and stdout must be a TTY); nothing was approved');
  }
  const rl = readline.createInterface({ input: process.stdin, output: process.stdout });
  try {
    const answer = await rl.question(question);
    return /^y(es)?$/i.test(answer.trim());
  } finally {
    rl.close();
  }
}

const approveCmd: Command = {
  name: 'approve',
  usage: 'approve APPROVAL_ID [--no-run]',
  summary:
    'Approves one call, after showing it to you. Interactive only. If the server that asked is still waiting, it runs the call; otherwise the call runs here, unless --no-run, in which case the agent re-submits it with the approval id.',
  options: { 'no-run': { type: 'boolean', help: 'only approve; the agent re-submits the call' } },
  positionals: [1, 1],
  async run(ctx) {
    const id = ctx.args[0] ?? '';
    const runtime = openRuntime(ctx.stateDir, { clock, logger, store: openExisting(ctx) });
    let decided = false;
    try {
      const a = runtime.store.state.approvals[id];
      if (!a) throw new HolonError('not_found', `no approval "${id}"`);
      if (a.status !== 'pending') throw new HolonError('conflict', `approval ${id} is already ${a.status}`);
      if (!channelAccepted(runtime.store.state, 'cli')) {
        throw new HolonError('denied', 'approvals from the terminal are turned off for this state; approve in the editor (setting holon.approvals.channels)');
      }
      process.stdout.write(`${approvalMessage(a)}\n`);
      if (!(await confirmAtTerminal('Approve this call? [y/N] '))) {
        ctx.out('Not approved.');
        return 1;
      }
      const approval = await decideApproval(runtime.store, clock, id, 'approved', 'cli');
      decided = true;
      const current = runtime.store.state.approvals[id] ?? approval;
      if (!current.released) {
        return print(ctx, { approval: id, status: 'approved', runs_in: 'waiting server' }, `Approved ${id}. The waiting server runs the call now.`);
      }
      if (ctx.opts['no-run']) {
        return print(ctx, { approval: id, status: 'approved' }, `Approved ${id}. The agent can now re-submit the same call with approval: "${id}".`);
      }
      const outcome = await runtime.deps.gateway.call(a.mandate, { agent: a.agent, input: a.input, approval: id });
      const tree = receiptTree(runtime.store.state, outcome.receipt.id);
      return print(ctx, receiptJson(tree), [`Approved ${id} and ran it here:`, ...receiptLines(tree)].join('\n'));
    } finally {
      await runtime.close({ checkpoint: decided });
    }
  },
};

const rejectCmd: Command = {
  name: 'reject',
  usage: 'reject APPROVAL_ID',
  summary: 'Rejects a pending approval; the call will not run.',
  options: {},
  positionals: [1, 1],
  async run(ctx) {
    return withStore(openExisting(ctx), async (store) => {
      const a = await decideApproval(store, clock, ctx.args[0] ?? '', 'rejected', 'cli');
      return print(ctx, { approval: a.id, status: 'rejected' }, `Rejected ${a.id}.`);
    }, true);
  },
};

const receiptsCmd: Command = {
  name: 'receipts',
  usage: 'receipts [RECEIPT_ID] [--mandate M] [--limit N]',
  summary: 'Shows one receipt as a tree with its delegated calls, or lists recent calls.',
  options: { mandate: { type: 'string', help: 'only this mandate' }, limit: { type: 'string', help: 'how many recent calls (default 20)' } },
  positionals: [0, 1],
  async run(ctx) {
    return withStore(openExisting(ctx), async (store) => {
      const s = store.state;
      if (ctx.args[0]) {
        const tree = receiptTree(s, ctx.args[0]);
        return print(ctx, receiptJson(tree), [`Total ${fmt(tree.total_cost)} (${tree.mandate})`, ...receiptLines(tree)].join('\n'));
      }
      const limit = Number(str(ctx.opts, 'limit') ?? '20');
      if (!Number.isInteger(limit) || limit < 1) throw new HolonError('invalid_input', '--limit takes a positive whole number');
      const mandate = str(ctx.opts, 'mandate');
      if (mandate !== undefined && !s.mandates[mandate]) throw new HolonError('not_found', `no mandate "${mandate}"`);
      const roots = recentRootReceipts(s, { mandate, limit }).map((r) => receiptTree(s, r.id));
      return print(ctx, roots.map(receiptJson), roots.length === 0 ? 'No receipts yet.' : roots.flatMap((t) => receiptLines(t)).join('\n'));
    });
  },
};

const budgetCmd: Command = {
  name: 'budget',
  usage: 'budget [MANDATE]',
  summary: 'Shows spent, held and remaining budget of one mandate, or of all.',
  options: {},
  positionals: [0, 1],
  async run(ctx) {
    return withStore(openExisting(ctx), async (store) => {
      const ms = ctx.args[0] ? [store.state.mandates[ctx.args[0]]] : Object.values(store.state.mandates);
      if (ms.some((m) => !m)) throw new HolonError('not_found', `no mandate "${ctx.args[0]}"`);
      const found = ms as Mandate[];
      return print(ctx, found.map((m) => ({ mandate: m.id, ...jsonBudget(store.state, m) })), found.map((m) => mandateText(m, store.state)).join('\n'));
    });
  },
};

const fxCmd: Command = {
  name: 'fx',
  usage: 'fx [FROM TO RATE]',
  summary: 'Lists exchange rates, or sets one: 1 FROM = RATE TO (e.g. holon fx USD EUR 0.92). Only rates you set are used.',
  options: {},
  positionals: [0, 3],
  async run(ctx) {
    if (ctx.args.length !== 0 && ctx.args.length !== 3) throw new HolonError('invalid_input', 'usage: holon fx [FROM TO RATE]');
    if (ctx.args.length === 3) {
      const [from = '', to = '', rate = ''] = ctx.args;
      return withStore(open(ctx), async (store) => {
        await setFx(store, from, to, rate);
        return print(ctx, { from, to, rate }, `1 ${from} = ${rate} ${to}`);
      }, true);
    }
    return withStore(openExisting(ctx), async (store) => {
      const rates = Object.entries(store.state.fx).map(([pair, rate]) => ({ pair, rate }));
      return print(ctx, rates, rates.length === 0 ? 'No rates set.' : rates.map((r) => `1 ${r.pair.replace('/', ' = ' + r.rate + ' ')}`).join('\n'));
    });
  },
};

const verifyCmd: Command = {
  name: 'verify',
  usage: 'verify',
  summary: 'Checks the journal offline: the hash chain, and the signatures of its checkpoints. Names the first bad event.',
  options: {},
  positionals: [0, 0],
  async run(ctx) {
    if (!fs.existsSync(`${ctx.stateDir}/${JOURNAL_FILE}`)) throw new HolonError('not_found', `no journal in ${ctx.stateDir}`);
    const r = verifyJournal(ctx.stateDir);
    const text = r.ok
      ? `OK: ${r.events} events, hash chain intact, ${r.checkpoints} signed checkpoint(s) through event ${r.signed_through}${r.unsigned > 0 ? ` (${r.unsigned} newer events not yet signed)` : ''}.`
      : `FAILED at event ${r.first_bad?.seq} (line ${r.first_bad?.line}): ${r.first_bad?.problem}. ${r.events} events before it are intact.`;
    print(ctx, r, text);
    return r.ok ? 0 : 1;
  },
};

/** Every command but `mcp` and `demo`, which live in their own files. */
export const COMMANDS: Command[] = [fundCmd, mandateCmd, agentsCmd, approvalsCmd, approveCmd, rejectCmd, receiptsCmd, budgetCmd, fxCmd, verifyCmd];
