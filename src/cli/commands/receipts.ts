import { HolonError } from '../../core/kernel/errors.ts';
import { receiptTree, recentRootReceipts, treeOf } from '../../core/market/receiptTree.ts';
import type { SpendEntry, SpendKind } from '../../core/fold/activity.ts';
import { recentSpends, spendKind } from '../../core/fold/activity.ts';
import type { SettlementDetail } from '../../core/money/payments.ts';
import { isSettlementId, settlementDetail, settlementOfSpend } from '../../core/money/payments.ts';
import type { Mandate } from '../../core/kernel/model.ts';
import { receiptJson, receiptLines, settlementText } from '../../core/views/present.ts';
import { fmt } from '../../core/kernel/words.ts';
import type { MoneyJson } from '../../core/kernel/amount.ts';
import * as M from '../../core/kernel/amount.ts';
import { ownerState } from '../../core/store/owner.ts';
import { holdTree, INTERRUPTED_REASON, releaseAll } from '../../core/money/spend.ts';
import type { Settlement } from '../../core/rails/settlement.ts';
import { isOpen } from '../../core/rails/settlement.ts';
import { settlementWords } from '../../core/rails/settlementView.ts';
import { decideApproval } from '../../core/decisions/decide.ts';
import { approvalMessage } from '../../core/views/present.ts';
import { lazySigner } from '../../core/store/keys.ts';
import type { EventStore } from '../../core/store/store.ts';
import { decidable } from './approvals.ts';
import type { HolonState } from '../../core/fold/state.ts';
import type { Command } from '../args.ts';
import { str } from '../args.ts';
import { clock, confirmAtTerminal, openExisting, print, withStore } from '../context.ts';
import { budgetJson, mandateText } from '../render.ts';

const receiptsCmd: Command = {
  name: 'receipts',
  usage: 'receipts [RECEIPT_ID | SETTLEMENT_ID] [--mandate M] [--limit N]',
  summary:
    'Shows one receipt as a tree with its delegated calls, or one payment on a chain by its settlement id (stl_…) and where it ' +
    'landed; or lists the recent spends: calls, payments, intents and purchases, each paid on a chain with where it landed.',
  options: {
    mandate: { type: 'string', help: 'only this mandate' },
    limit: { type: 'string', help: 'how many recent spends (default 20)' },
  },
  positionals: [0, 1],
  async run(ctx) {
    return withStore(openExisting(ctx), async (store) => {
      const s = store.state;
      const id = ctx.args[0];
      if (id) {
        const paid = paymentById(s, id);
        if (paid) return print(ctx, paid, settlementText(paid));
        const tree = await receiptTree(store, id);
        return print(ctx, receiptJson(tree), [`Total ${fmt(tree.total_cost)} (${tree.mandate})`, ...receiptLines(tree)].join('\n'));
      }
      const limit = Number(str(ctx.opts, 'limit') ?? '20');
      if (!Number.isInteger(limit) || limit < 1) throw new HolonError('invalid_input', '--limit takes a positive whole number');
      const mandate = str(ctx.opts, 'mandate');
      if (mandate !== undefined && !s.mandates[mandate]) throw new HolonError('not_found', `no mandate "${mandate}"`);
      const rows = await recentRows(store, mandate, limit);
      return print(
        ctx,
        rows.map((r) => r.json),
        rows.length === 0 ? 'No receipts yet.' : rows.flatMap((r) => r.lines).join('\n'),
      );
    });
  },
};

/**
 * The payment `id` names, if it names one: a settlement id, or the hold of a spend a payment on a chain
 * pays (the id `holon receipts` lists a payment, an intent or a purchase by). A settlement id that names
 * none is not found; any other id may be a call's receipt.
 */
function paymentById(s: HolonState, id: string): SettlementDetail | undefined {
  if (isSettlementId(id)) {
    const r = s.settlements[id];
    if (!r) throw new HolonError('not_found', `no payment "${id}"`, { settlement: id });
    return settlementDetail(s, r);
  }
  // A call's receipt is never a hold a payment is filed under (a call's payment has a hold of its own).
  const held = s.settlement_by_hold[id];
  const r = held !== undefined ? s.settlements[held] : undefined;
  return r ? settlementDetail(s, r) : undefined;
}

/** One row of `holon receipts`: a call with its receipt tree, or another spend with the payment that pays it. */
interface Row {
  at: string;
  json: Record<string, unknown>;
  lines: string[];
}

/**
 * The newest spends, newest first: the calls (every root receipt, a denied or rejected one too) and the
 * other spends of the accounts — payments under terms, intents, purchases — each with where the payment
 * on a chain that pays it landed, or why not.
 */
async function recentRows(store: EventStore<HolonState>, mandate: string | undefined, limit: number): Promise<Row[]> {
  const s = store.state;
  const calls = await Promise.all((await recentRootReceipts(store, { mandate, limit })).map((r) => treeOf(store, r)));
  const isIntent = (id: string): boolean => s.intents[id] !== undefined;
  const others = recentSpends(s, { mandate, limit, where: (e) => spendKind(e, isIntent) !== 'call' });
  const rows: Row[] = [
    ...calls.map((t) => ({ at: t.started_at, json: { kind: 'call', ...receiptJson(t) }, lines: receiptLines(t) })),
    ...others.map((e) => spendRow(s, e, spendKind(e, isIntent))),
  ];
  // ISO times sort as text; each list is newest first already, and a sort is stable.
  return rows.sort((a, b) => (a.at === b.at ? 0 : a.at < b.at ? 1 : -1)).slice(0, limit);
}

/** A spend that is not a call, with the payment on a chain that pays it. */
function spendRow(s: HolonState, e: SpendEntry, kind: SpendKind): Row {
  const paid = settlementOfSpend(s, { id: e.id, kind });
  const held = { amount: e.held, currency: e.currency };
  const cost = e.cost === null ? null : { amount: e.cost, currency: e.currency };
  const json = {
    kind,
    id: e.id,
    mandate: e.mandate,
    account: e.account,
    payee: { ...e.payee },
    status: e.status,
    held,
    cost,
    reason: e.reason,
    placed_at: e.placed_at,
    ended_at: e.ended_at,
    settlement: paid ? settlementDetail(s, paid) : null,
  };
  const amount = e.status === 'held' ? `${fmt(held)} held` : fmt(cost ?? { amount: '0', currency: e.currency });
  const why = e.reason === null ? '' : ` (${e.reason.replaceAll('_', ' ')})`;
  const chain = paid ? ` · ${paid.id}: ${settlementWords(paid)}` : '';
  return { at: e.placed_at, json, lines: [`${e.id} ${kind} ${e.mandate} → ${e.payee.id} ${e.status}${why} ${amount}${chain}`] };
}

const budgetCmd: Command = {
  name: 'budget',
  usage: 'budget [MANDATE]',
  summary: 'Shows spent, held and remaining budget of one mandate, or of all.',
  options: {},
  positionals: [0, 1],
  async run(ctx) {
    return withStore(openExisting(ctx), async (store) => {
      const id = ctx.args[0];
      const found: Mandate[] = [];
      if (id !== undefined) {
        const m = store.state.mandates[id];
        if (!m) throw new HolonError('not_found', `no mandate "${id}"`);
        found.push(m);
      } else found.push(...Object.values(store.state.mandates));
      const now = clock.now();
      return print(
        ctx,
        found.map((m) => ({ mandate: m.id, ...budgetJson(m, store.state, now) })),
        found.map((m) => mandateText(m, store.state, now)).join('\n'),
      );
    });
  },
};

/** The open settlement whose money a hold carries (a payment signed on a chain), if it carries one. */
function paymentOf(s: HolonState, hold: string): Settlement | undefined {
  const r = s.settlements[s.settlement_by_hold[hold] ?? ''];
  return r && isOpen(r) ? r : undefined;
}

/**
 * A hold as the human sees it: what it is for, how much, and what ends it — the process that placed it
 * (whether it still runs), or, for a payment signed on a chain, the chain (and its settlement).
 */
function holdJson(
  s: HolonState,
  id: string,
  h: HolonState['holds'][string],
): {
  hold: string;
  mandate: string;
  amount: MoneyJson;
  payee: string;
  placed_at: string;
  owner: string;
  settlement: string | null;
  why: string;
} {
  const paying = paymentOf(s, id);
  const owner = paying ? 'chain' : h.owner ? ownerState(h.owner) : 'unknown';
  return {
    hold: id,
    mandate: h.mandate,
    amount: M.toJson({ units: h.units, currency: h.currency }),
    payee: `${h.payee.kind} ${h.payee.id}`,
    placed_at: h.placed_at,
    owner,
    settlement: paying?.id ?? null,
    why: paying ? `payment ${paying.id} on ${paying.network}: ${settlementWords(paying)}` : (HOLD_OWNERS[owner] ?? owner),
  };
}

const HOLD_OWNERS: Record<string, string> = {
  running: 'its process runs',
  gone: 'its process died; the next write releases it',
  restarted: 'placed before the machine restarted: release it once you know what the payee did',
  elsewhere: 'placed on another machine',
  unknown: 'placed by an older Holon',
};

const holdsCmd: Command = {
  name: 'holds',
  usage: 'holds [release HOLD_ID]',
  summary:
    'Lists the money held for spends in flight, and what ends each: its process (whether it still runs), ' +
    'or, for a payment signed on a chain, the chain. `holds release` (interactive only) gives back a hold left ' +
    'from before the machine restarted (its spend is then recorded as interrupted), or releases a flagged ' +
    'payment as approving its card does (its money comes back once it can no longer land).',
  options: {},
  positionals: [0, 2],
  async run(ctx) {
    const [sub, id] = ctx.args;
    if (sub === undefined) {
      return withStore(openExisting(ctx), async (store) => {
        const rows = Object.entries(store.state.holds).map(([hid, h]) => holdJson(store.state, hid, h));
        return print(
          ctx,
          rows,
          rows.length === 0
            ? 'Nothing is held.'
            : rows.map((r) => `${r.hold}  ${fmt(r.amount)}  ${r.mandate} → ${r.payee}  since ${r.placed_at}  (${r.why})`).join('\n'),
        );
      });
    }
    if (sub !== 'release' || !id) throw new HolonError('invalid_input', 'usage: holon holds [release HOLD_ID]');
    return withStore(
      openExisting(ctx),
      async (store) => {
        const h = store.state.holds[id];
        if (!h) throw new HolonError('not_found', `no hold "${id}"`);
        // A payment signed on a chain: the chain says where its money went. A flagged one (the payee says it
        // was paid, the chain does not show it) is released by the human's decision on its card, asked here
        // as `holon approve` asks it; any other ends when the chain shows it landed, or that it never can.
        const paying = paymentOf(store.state, id);
        if (paying) return releasePayment(ctx, store, paying);
        if (h.parent) throw new HolonError('conflict', `hold ${id} draws on ${h.parent}: release that one`);
        const row = holdJson(store.state, id, h);
        if (row.owner === 'running') throw new HolonError('conflict', `the process that placed hold ${id} is still running it`);
        if (
          !(await confirmAtTerminal(
            `Release ${fmt(row.amount)} held for ${row.payee} under ${row.mandate} since ${row.placed_at}? Its ` +
              `spend is recorded as interrupted. [y/N] `,
            'releasing a hold',
          ))
        ) {
          ctx.out('Not released.');
          return 1;
        }
        const released = await store.transact((s) => {
          if (!s.holds[id]) throw new HolonError('conflict', `hold ${id} was released meanwhile`);
          const ids = holdTree(s, id);
          return { events: releaseAll(s, ids, INTERRUPTED_REASON), result: ids };
        });
        return print(ctx, { released }, `Released ${fmt(row.amount)} (${released.join(', ')}).`);
      },
      true,
    );
  },
};

/**
 * Releases a flagged payment's hold: the human approves its card (at this terminal, after seeing it), which
 * gives the money back once the payment can no longer land. One that is not flagged is not the human's to
 * release: the chain ends it.
 */
async function releasePayment(ctx: Parameters<Command['run']>[0], store: EventStore<HolonState>, paying: Settlement): Promise<number> {
  const approval = paying.status === 'flagged' ? paying.flag?.approval : null;
  const a = approval ? store.state.approvals[approval] : undefined;
  if (!approval || !a || a.status !== 'pending')
    throw new HolonError(
      'conflict',
      `hold ${paying.hold} carries payment ${paying.id}, signed on ${paying.network}: ${settlementWords(paying)}. It ends when the ` +
        'chain shows it landed, or that it never can',
      { settlement: paying.id },
    );
  const decider = lazySigner(ctx.stateDir);
  decidable(store.state, approval, decider);
  process.stdout.write(`${approvalMessage(a)}\n`);
  if (!(await confirmAtTerminal('Release it? [y/N] ', 'releasing a payment'))) {
    ctx.out('Not released.');
    return 1;
  }
  await decideApproval(store, clock, approval, 'approved', 'cli', decider);
  const now = store.state.settlements[paying.id] ?? paying;
  return print(ctx, { settlement: now.id, status: now.status }, `Released payment ${now.id}: ${settlementWords(now)}.`);
}

export const commands: Command[] = [receiptsCmd, budgetCmd, holdsCmd];
