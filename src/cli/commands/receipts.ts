import { HolonError } from '../../core/errors.ts';
import { receiptTree, recentRootReceipts, treeOf } from '../../core/market/receipts.ts';
import type { Mandate } from '../../core/model.ts';
import { fmt, receiptJson, receiptLines } from '../../core/present.ts';
import { budgetOf } from '../../core/spend.ts';
import type { Command } from '../args.ts';
import { str } from '../args.ts';
import { clock, openExisting, print, withStore } from '../context.ts';
import { budgetJson, mandateText } from '../render.ts';

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
        const tree = await receiptTree(store, ctx.args[0]);
        return print(ctx, receiptJson(tree), [`Total ${fmt(tree.total_cost)} (${tree.mandate})`, ...receiptLines(tree)].join('\n'));
      }
      const limit = Number(str(ctx.opts, 'limit') ?? '20');
      if (!Number.isInteger(limit) || limit < 1) throw new HolonError('invalid_input', '--limit takes a positive whole number');
      const mandate = str(ctx.opts, 'mandate');
      if (mandate !== undefined && !s.mandates[mandate]) throw new HolonError('not_found', `no mandate "${mandate}"`);
      const roots = await Promise.all((await recentRootReceipts(store, { mandate, limit })).map((r) => treeOf(store, r)));
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
        found.map((m) => ({ mandate: m.id, ...budgetJson(budgetOf(store.state, m, now)) })),
        found.map((m) => mandateText(m, store.state, now)).join('\n'),
      );
    });
  },
};

export const commands: Command[] = [receiptsCmd, budgetCmd];
