import { HolonError } from '../../core/kernel/errors.ts';
import { setFx } from '../../core/money/fx.ts';
import type { Command } from '../args.ts';
import { open, openExisting, print, withStore } from '../context.ts';

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
      return withStore(
        open(ctx),
        async (store) => {
          await setFx(store, from, to, rate);
          return print(ctx, { from, to, rate }, `1 ${from} = ${rate} ${to}`);
        },
        true,
      );
    }
    return withStore(openExisting(ctx), async (store) => {
      const rates = Object.entries(store.state.fx).map(([pair, rate]) => ({ pair, rate }));
      return print(
        ctx,
        rates,
        rates.length === 0 ? 'No rates set.' : rates.map((r) => `1 ${r.pair.replace('/', ' = ' + r.rate + ' ')}`).join('\n'),
      );
    });
  },
};

export const commands: Command[] = [fxCmd];
