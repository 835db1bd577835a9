import { HolonError } from '../../core/errors.ts';
import { verifyJournal } from '../../core/verify.ts';
import type { Command } from '../args.ts';
import { hasState, print } from '../context.ts';

const verifyCmd: Command = {
  name: 'verify',
  usage: 'verify',
  summary: 'Checks the journal offline: the hash chain, and the signatures of its checkpoints. Names the first bad event.',
  options: {},
  positionals: [0, 0],
  async run(ctx) {
    if (!hasState(ctx.stateDir)) throw new HolonError('not_found', `no journal in ${ctx.stateDir}`);
    const r = verifyJournal(ctx.stateDir);
    const text = r.ok
      ? `OK: ${r.events} events, hash chain intact, ${r.checkpoints} signed checkpoint(s) through event ${r.signed_through}${r.unsigned > 0 ? ` (${r.unsigned} newer events not yet signed)` : ''}.`
      : `FAILED at event ${r.first_bad?.seq} (line ${r.first_bad?.line}): ${r.first_bad?.problem}. ${r.events} events before it are intact.`;
    print(ctx, r, text);
    return r.ok ? 0 : 1;
  },
};

export const commands: Command[] = [verifyCmd];
