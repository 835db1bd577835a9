import { loadPublished } from '../../core/commerce/ap2.ts';
import { loadMandateKey, MANDATE_KEY_FILE } from '../../core/local/mandateKey.ts';
import type { Command } from '../args.ts';
import { print } from '../context.ts';
import * as path from 'node:path';

const keysCmd: Command = {
  name: 'keys',
  usage: 'keys',
  summary:
    'Prints the public JWK of your mandate key (ES256): the key merchants trust for the AP2 mandates Holon signs for you, and the open ' +
    'mandates it publishes now. The key is made the first time you create or edit a mandate that can buy; its private part stays in ' +
    '<state>/keys/mandate.jwk (mode 0600) and is never printed.',
  options: {},
  positionals: [0, 0],
  run(ctx) {
    const key = loadMandateKey(ctx.stateDir);
    if (!key)
      return Promise.resolve(
        print(
          ctx,
          { mandate_key: null, open: {} },
          'No mandate key yet: it is made when you create or edit a mandate that can buy (commerce.buy).',
        ),
      );
    const published = loadPublished(ctx.stateDir);
    const open = published?.key.kid === key.publicJwk.kid ? published.open : {};
    const names = Object.keys(open);
    return Promise.resolve(
      print(
        ctx,
        { mandate_key: key.publicJwk, open },
        `Mandate key ${key.publicJwk.kid} (ES256, private part in ${path.join(ctx.stateDir, MANDATE_KEY_FILE)}):\n` +
          `${JSON.stringify(key.publicJwk)}\n` +
          (names.length > 0 ? `Open AP2 mandates published for: ${names.join(', ')}` : 'No open AP2 mandate is published.'),
      ),
    );
  },
};

export const commands: Command[] = [keysCmd];
