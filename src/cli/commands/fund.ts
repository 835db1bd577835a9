import * as M from '../../core/kernel/amount.ts';
import { fund } from '../../core/money/spend.ts';
import type { Command } from '../args.ts';
import { str } from '../args.ts';
import { open, print, withStore } from '../context.ts';

const fundCmd: Command = {
  name: 'fund',
  usage: 'fund ACCOUNT AMOUNT [--currency EUR]',
  summary: 'Adds funds to an account (created on first use).',
  options: { currency: { type: 'string', help: 'currency (default EUR)' } },
  positionals: [2, 2],
  async run(ctx) {
    const [account = '', amount = ''] = ctx.args;
    return withStore(
      open(ctx),
      async (store) => {
        const m = await fund(store, account, amount, str(ctx.opts, 'currency') ?? 'EUR');
        const total = { units: store.state.accounts[account]?.funded[m.currency] ?? 0n, currency: m.currency };
        return print(
          ctx,
          { account, funded: M.toJson(m), total_funded: M.toJson(total) },
          `Funded ${account} with ${M.format(m)} (total funded ${M.format(total)}).`,
        );
      },
      true,
    );
  },
};

export const commands: Command[] = [fundCmd];
