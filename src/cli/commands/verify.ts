import { HolonError } from '../../core/kernel/errors.ts';
import { passkeyUses, verifyJournal } from '../../core/verify.ts';
import { verifyText } from '../../core/store/verify.ts';
import { checkPasskeys, passkeyCheckText } from '../../core/rails/delegation/accountKeys.ts';
import type { Command } from '../args.ts';
import { CHAIN_OPTIONS, chainOf } from '../chainOptions.ts';
import { hasState, openExisting, print, withStore } from '../context.ts';
import { consentChains, consentText } from '../../core/commerce/consent.ts';
import { loadMandateKey } from '../../core/local/mandateKey.ts';

const verifyCmd: Command = {
  name: 'verify',
  usage: 'verify [--rpc-url URL --chain-id N --token ADDRESS]',
  summary:
    'Checks the journal offline (or, with --store, the team store): the hash chain, ' +
    'the signatures of its checkpoints, and the snapshot against the fold. Names the first bad event. Then, for every purchase ' +
    'made with AP2 mandates, that its chain of consent holds (mandate → checkout → payment → transaction), from the signatures. ' +
    "With a chain (its flags, or $HOLON_RPC_URL) where the human's account is, every passkey registration and assertion in " +
    "the journal is checked against the keys that account has held there; without one, against the journal's own keys only.",
  options: { ...CHAIN_OPTIONS },
  positionals: [0, 0],
  async run(ctx) {
    if (ctx.store !== undefined) {
      const { verifyTeamStore } = await import('../../core/teamAdmin.ts');
      const r = await verifyTeamStore(ctx.store);
      print(ctx, r, verifyText(r, 'row'));
      return r.ok ? 0 : 1;
    }
    const chain = chainOf(ctx.opts);
    if (!hasState(ctx.stateDir)) throw new HolonError('not_found', `no journal in ${ctx.stateDir}`);
    const r = verifyJournal(ctx.stateDir);
    // Consent and passkeys are read from a journal that checked out: a broken journal proves nothing.
    const { consent, passkeys } = r.ok
      ? await withStore(openExisting(ctx), async (store) => ({
          consent: await consentChains(store.state, loadMandateKey(ctx.stateDir)?.publicJwk),
          passkeys: await checkPasskeys(passkeyUses(ctx.stateDir), store.state, chain),
        }))
      : { consent: [], passkeys: undefined };
    const text = [verifyText(r), ...consent.map(consentText), ...(passkeys ? [passkeyCheckText(passkeys)] : [])];
    print(ctx, { ...r, consent, passkeys: passkeys ?? null }, text.join('\n'));
    return r.ok && consent.every((c) => c.holds) && (passkeys?.problems.length ?? 0) === 0 ? 0 : 1;
  },
};

export const commands: Command[] = [verifyCmd];
