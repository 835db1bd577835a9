import * as os from 'node:os';
import { activePasskeys, addPasskey, isGuarded, registrationSubject, removePasskey } from '../../core/accounts/passkeys.ts';
import { HolonError } from '../../core/kernel/errors.ts';
import type { Command } from '../args.ts';
import { str } from '../args.ts';
import { open, openExisting, print, withStore } from '../context.ts';
import { atPage } from '../passkeyPage.ts';

const passkeyCmd: Command = {
  name: 'passkey',
  usage: 'passkey add [--label NAME] | passkey list | passkey remove ID',
  summary:
    'Adds, lists or removes the passkeys that decide for this state. Once one is added, every decision ' +
    '(an approval, a mandate, money in, a rate, the catalog, a setting) is made on a page Holon opens in ' +
    "your browser, with your passkey; the terminal and the state folder's keys decide nothing. A second " +
    'passkey, or removing one, needs one you have.',
  options: { label: { type: 'string', help: "a name for the new passkey (default: this machine's name)" } },
  positionals: [1, 2],
  async run(ctx) {
    const [verb, id] = ctx.args;
    if (verb === 'list') {
      return withStore(openExisting(ctx), async (store) => {
        const keys = activePasskeys(store.state).map((r) => ({ id: r.credential.id, label: r.label, added_at: r.added_at }));
        return print(
          ctx,
          { guarded: isGuarded(store.state), passkeys: keys },
          keys.length === 0
            ? 'No passkey: this state decides with its local keys.'
            : keys.map((k) => `${k.id}  ${k.label}  added ${k.added_at}`).join('\n'),
        );
      });
    }
    if (verb === 'remove') {
      if (!id) throw new HolonError('invalid_input', 'usage: holon passkey remove ID');
      return withStore(
        openExisting(ctx),
        async (store) => {
          await removePasskey(store, id);
          return print(ctx, { removed: id }, `Removed passkey ${id}.`);
        },
        true,
      );
    }
    if (verb !== 'add' || id !== undefined) throw new HolonError('invalid_input', `usage: holon ${passkeyCmd.usage}`);
    const label = str(ctx.opts, 'label') ?? os.hostname();
    return withStore(
      open(ctx),
      async (store) => {
        const first = !isGuarded(store.state);
        const answer = await atPage({
          kind: 'register',
          title: 'Holon: add a passkey',
          lines: [
            first
              ? 'From now on, only this passkey decides for this Holon state: approvals, mandates, funding, rates, the catalog, settings.'
              : 'A further passkey that decides for this Holon state; one you already have confirms it next.',
            `Its name: ${label}`,
          ],
          user: `Holon on ${os.hostname()}`,
          subject: registrationSubject,
        });
        if (answer.kind !== 'registered') {
          ctx.out('Not added.');
          return 1;
        }
        const added = await addPasskey(store, answer.credential, label, answer.assertion);
        return print(
          ctx,
          { id: added.credential.id, label: added.label, guarded: true },
          `Added passkey ${added.credential.id} (${added.label}).${first ? ' From now on, only your passkey decides for this state.' : ''}`,
        );
      },
      true,
    );
  },
};

export const commands: Command[] = [passkeyCmd];
