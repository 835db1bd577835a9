import { HolonError } from '../../core/errors.ts';
import { verifyJournal, verifyText } from '../../core/verify.ts';
import type { Command } from '../args.ts';
import { hasState, print } from '../context.ts';

const verifyCmd: Command = {
  name: 'verify',
  usage: 'verify',
  summary: 'Checks the journal offline: the hash chain, the signatures of its checkpoints, and the snapshot against the fold. Names the first bad event.',
  options: {},
  positionals: [0, 0],
  async run(ctx) {
    // TODO(issue 11): verify a shared store (its chain and every installation's checkpoint signatures).
    if (ctx.store !== undefined) throw new HolonError('invalid_input', 'holon verify checks the journal in a state folder; a shared store (--store) cannot be verified yet, though every process checks each row it reads');
    if (!hasState(ctx.stateDir)) throw new HolonError('not_found', `no journal in ${ctx.stateDir}`);
    const r = verifyJournal(ctx.stateDir);
    print(ctx, r, verifyText(r));
    return r.ok ? 0 : 1;
  },
};

export const commands: Command[] = [verifyCmd];
