import { HolonError } from '../../core/errors.ts';
import { verifyJournal } from '../../core/verify.ts';
import { verifyText } from '../../core/store/verify.ts';
import type { Command } from '../args.ts';
import { hasState, print } from '../context.ts';

const verifyCmd: Command = {
  name: 'verify',
  usage: 'verify',
  summary:
    'Checks the journal offline (or, with --store, the team store): the hash chain, ' +
    'the signatures of its checkpoints, and the snapshot against the fold. Names the first bad event.',
  options: {},
  positionals: [0, 0],
  async run(ctx) {
    if (ctx.store !== undefined) {
      const { verifyTeamStore } = await import('../../core/teamAdmin.ts');
      const r = await verifyTeamStore(ctx.store);
      print(ctx, r, verifyText(r, 'row'));
      return r.ok ? 0 : 1;
    }
    if (!hasState(ctx.stateDir)) throw new HolonError('not_found', `no journal in ${ctx.stateDir}`);
    const r = verifyJournal(ctx.stateDir);
    print(ctx, r, verifyText(r));
    return r.ok ? 0 : 1;
  },
};

export const commands: Command[] = [verifyCmd];
