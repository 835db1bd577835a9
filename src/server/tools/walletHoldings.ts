/**
 * What the human's wallet holds on the configured chain, beside what a mandate allows: the token (in its
 * currency) and the chain's native coin, read from the RPC when a tool is called. `get_budget` and
 * `get_mandate` both carry it; the mandate's limits are what Holon lets go, the wallet what there is.
 */
import * as z from 'zod';
import { walletBalances } from '../../core/rails/chain.ts';
import { MoneySchema } from '../../core/kernel/schemas.ts';
import type { ServerDeps } from '../serverDeps.ts';

export const WalletSchema = z
  .object({
    address: z.string(),
    network: z.string(),
    token: MoneySchema.describe("The token the mandate's payments are in (e.g. USDC), as the chain holds it"),
    native: z
      .object({ amount: z.string(), currency: z.string() })
      .describe("The chain's own coin, which pays no one here (exact, 18 decimals)"),
  })
  .nullable()
  .describe(
    "What the human's wallet holds on the configured chain, read from it now: beside what the mandate allows, what there is. " +
      'null when there is no wallet or no chain configured, or the chain did not answer',
  );

/** The wallet's holdings, or null when there is no wallet or chain, or the chain did not answer. */
export async function walletHoldings(deps: Pick<ServerDeps, 'wallet' | 'chain' | 'logger'>): Promise<z.infer<typeof WalletSchema>> {
  if (!deps.wallet || !deps.chain) return null;
  try {
    const b = await walletBalances(deps.chain, deps.wallet.address);
    return { address: b.address, network: b.network, token: { amount: b.token.amount, currency: b.token.currency }, native: b.native };
  } catch (err) {
    deps.logger.warn(`could not read the wallet's balances on ${deps.chain.config.network}: ${(err as Error).message}`);
    return null;
  }
}
