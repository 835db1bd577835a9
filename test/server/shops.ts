/** The commerce tests' world: the two local merchants over loopback HTTP and a shopper mandate that buys from them. */
import type { Client } from '@modelcontextprotocol/client';
import { silentLogger } from '../../src/core/kernel/deps.ts';
import { createMandate } from '../../src/core/accounts/mandates.ts';
import type { MerchantConfig } from '../../src/server/commerce/merchants.ts';
import type { Runtime } from '../../src/server/runtime.ts';
import { openRuntime } from '../../src/server/runtime.ts';
import { startAcpMerchant } from '../../examples/merchants/acpMerchant.ts';
import type { Shop, ShopOptions } from '../../examples/merchants/shop.ts';
import { startUcpMerchant } from '../../examples/merchants/ucpMerchant.ts';
import { connect, seedDemo, tempDir, TestClock } from '../helpers.ts';

export const SHOPPER = 'demo/shopper';

/** The two merchants as the server is configured with them: stationery speaks ACP, hardware UCP. */
export function merchantsOf(acp: Shop, ucp: Shop): MerchantConfig[] {
  return [
    { id: 'stationery', protocol: 'acp', url: acp.url },
    { id: 'hardware', protocol: 'ucp', url: ucp.url },
  ];
}

export interface ShopWorld {
  runtime: Runtime;
  client: Client;
  acp: Shop;
  ucp: Shop;
}

/**
 * A state with the demo world and a shopper mandate offering commerce (threshold 30 EUR, budget 60 EUR),
 * the two merchants running, and (unless told otherwise) configured for the server. Everything is
 * closed after `body`, whatever it throws.
 */
export async function withShops(
  o: { acp?: ShopOptions; ucp?: ShopOptions & { endpoint?: string }; configured?: boolean; mandate?: Record<string, unknown> },
  body: (w: ShopWorld) => Promise<void>,
): Promise<void> {
  const acp = await startAcpMerchant(o.acp);
  const ucp = await startUcpMerchant(o.ucp);
  const merchants = o.configured === false ? [] : merchantsOf(acp, ucp);
  const { dir, cleanup } = tempDir();
  const clock = new TestClock();
  const runtime = openRuntime(dir, { clock, logger: silentLogger, durable: false, approvals: { waitMs: 0, elicitation: false, elicitationWaitMs: 0 }, merchants });
  try {
    await seedDemo(runtime.store, clock, { funds: '100', stateDir: dir });
    await createMandate(runtime.store, clock, SHOPPER, {
      toolsets: ['commerce'],
      approval_threshold: '30.00',
      budget: { total: '60.00', per_day: null, per_call: '40.00' },
      capabilities: [{ name: 'commerce.buy' }],
      ...o.mandate,
    });
    const client = await connect(runtime, { mandate: SHOPPER });
    try {
      await body({ runtime, client, acp, ucp });
    } finally {
      await client.close();
    }
  } finally {
    await runtime.close();
    cleanup();
    await acp.close();
    await ucp.close();
  }
}
