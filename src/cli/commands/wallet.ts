import * as fs from 'node:fs';
import * as path from 'node:path';
import { HolonError } from '../../core/kernel/errors.ts';
import { createWallet, loadWallet, saveWallet, WALLET_FILE } from '../../core/local/wallet.ts';
import type { Command } from '../args.ts';
import { chainReader, walletBalances } from '../../core/rails/chain.ts';
import { CHAIN_OPTIONS, chainOf } from '../chainOptions.ts';
import { hasState, openExisting, print, withStore } from '../context.ts';
import { accountOn } from '../../core/accounts/chainAccount.ts';

/** Reads a private key from standard input: never from the command line, where other processes see it. */
async function keyFromStdin(): Promise<string> {
  if (process.stdin.isTTY) process.stderr.write('Private key (0x and 64 hex digits), then Enter: ');
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) {
    chunks.push(chunk as Buffer);
    if (Buffer.concat(chunks).includes(10)) break;
    if (Buffer.concat(chunks).length > 200) break;
  }
  return Buffer.concat(chunks).toString('utf8').split('\n')[0]?.trim() ?? '';
}

const walletCmd: Command = {
  name: 'wallet',
  usage: 'wallet [create | import] [--rpc-url URL --chain-id N --token ADDRESS]',
  summary:
    "Shows the address of the wallet that signs this state's payments and, on the configured chain, what it " +
    'holds (the token and the native coin, read from the RPC); creates one, or imports one (its private key read ' +
    'from standard input, never from the command line). The key stays in <state>/keys/wallet.key (mode 0600); ' +
    'Holon never prints it.',
  options: { ...CHAIN_OPTIONS },
  positionals: [0, 1],
  async run(ctx) {
    const sub = ctx.args[0];
    if (sub === undefined) {
      const chain = chainOf(ctx.opts);
      const w = loadWallet(ctx.stateDir);
      if (!w)
        return print(
          ctx,
          { address: null, balances: null },
          'No wallet: `holon wallet create` makes one, `holon wallet import` takes yours.',
        );
      const balances = chain ? await walletBalances(chainReader(chain), w.address) : null;
      const held = balances
        ? ` holds ${balances.token.amount} ${balances.token.currency} and ${balances.native.amount} ${balances.native.currency} ` +
          `on ${balances.network}`
        : ' (no chain configured: --rpc-url, or $HOLON_RPC_URL, shows what it holds)';
      // The human's account, where the passkey keeps the money and the hot key above draws only within the mandates.
      const account =
        chain && hasState(ctx.stateDir) ? await withStore(openExisting(ctx), async (st) => accountOn(st.state, chain.chainId)) : undefined;
      const inAccount = account ? await walletBalances(chainReader(chain!), account.address) : null;
      const accountText = inAccount
        ? `\nYour account ${inAccount.address} (owned by your passkey) holds ${inAccount.token.amount} ${inAccount.token.currency} ` +
          `on ${inAccount.network}; the wallet above draws from it only within each mandate's delegation`
        : '';
      return print(
        ctx,
        { address: w.address, balances, ...(inAccount ? { account: inAccount } : {}) },
        `Wallet ${w.address}${held}${accountText}`,
      );
    }
    if (sub !== 'create' && sub !== 'import') throw new HolonError('invalid_input', 'usage: holon wallet [create | import]');
    if (fs.existsSync(path.join(ctx.stateDir, WALLET_FILE)))
      throw new HolonError(
        'conflict',
        `this state already has a wallet (${path.join(ctx.stateDir, WALLET_FILE)}); Holon never replaces one`,
      );
    const address = sub === 'create' ? createWallet(ctx.stateDir) : saveWallet(ctx.stateDir, await keyFromStdin());
    return print(
      ctx,
      { address },
      `Wallet ${address} (${sub === 'create' ? 'created' : 'imported'}); its key is in ${path.join(ctx.stateDir, WALLET_FILE)}, readable ` +
        `by you only.`,
    );
  },
};

export const commands: Command[] = [walletCmd];
