/**
 * The checkout client of each configured merchant, over its protocol, made once per merchant list (a
 * UCP client keeps the endpoint its business's profile named).
 */
import type { CheckoutClient } from '../../core/commerce/checkout.ts';
import { HolonError } from '../../core/kernel/errors.ts';
import { AcpCheckout } from './acp.ts';
import type { MerchantConfig, Merchants } from './merchants.ts';
import { UcpCheckout } from './ucp.ts';

const clients = new WeakMap<MerchantConfig, CheckoutClient>();

function clientOf(config: MerchantConfig, merchants: Merchants): CheckoutClient {
  let c = clients.get(config);
  if (!c) {
    c = config.protocol === 'ucp' ? new UcpCheckout(config, merchants.fetch) : new AcpCheckout(config, merchants.fetch);
    clients.set(config, c);
  }
  return c;
}

/**
 * The merchant a call names (by id, or by protocol when one merchant speaks it), or the only one when it
 * names none. Without a configured merchant, or with none that fits, it is `not_found`.
 */
export function pickMerchant(
  merchants: Merchants | undefined,
  id: string | null | undefined,
  protocol: string | null | undefined,
): CheckoutClient {
  const list = merchants?.list ?? [];
  if (!merchants || list.length === 0)
    throw new HolonError('not_found', 'no merchant is configured for this server: the human adds one (holon mcp --merchant PROTOCOL:URL)');
  const fits = list.filter((m) => (id == null || m.id === id) && (protocol == null || m.protocol === protocol));
  if (fits.length === 0)
    throw new HolonError(
      'not_found',
      `no configured merchant${id != null ? ` "${id}"` : ''}` +
        `${protocol != null ? ` speaking ${protocol}` : ''}; configured: ` +
        `${list.map((m) => `${m.id} (${m.protocol})`).join(', ')}`,
      { merchants: list.map((m) => m.id) },
    );
  if (fits.length > 1)
    throw new HolonError('invalid_input', `several merchants are configured; name one: ${fits.map((m) => m.id).join(', ')}`, {
      merchants: fits.map((m) => m.id),
    });
  return clientOf(fits[0] as MerchantConfig, merchants);
}
