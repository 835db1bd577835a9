import { HolonError } from '../../core/kernel/errors.ts';
import { verifyJournal } from '../../core/verify.ts';
import { verifyText } from '../../core/store/verify.ts';
import type { Command } from '../args.ts';
import { hasState, openExisting, print, withStore } from '../context.ts';
import { consentChains, consentText } from '../../core/commerce/consent.ts';
import { loadMandateKey } from '../../core/local/mandateKey.ts';

const verifyCmd: Command = {
  name: 'verify',
  usage: 'verify',
  summary:
    'Checks the journal offline (or, with --store, the team store): the hash chain, ' +
    'the signatures of its checkpoints, and the snapshot against the fold. Names the first bad event. Then, for every purchase ' +
    'made with AP2 mandates, that its chain of consent holds (mandate → checkout → payment → transaction), from the signatures.',
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
    // Consent is read from a journal that checked out: a broken journal's purchases prove nothing.
    const consent = r.ok
      ? await withStore(openExisting(ctx), (store) => consentChains(store.state, loadMandateKey(ctx.stateDir)?.publicJwk))
      : [];
    print(ctx, { ...r, consent }, [verifyText(r), ...consent.map(consentText)].join('\n'));
    return r.ok && consent.every((c) => c.holds) ? 0 : 1;
  },
};

export const commands: Command[] = [verifyCmd];
