/**
 * The merchants a human configured (`holon mcp --merchant acp:http://127.0.0.1:8801`), and one HTTP
 * exchange with one of them. A merchant's URL is the human's choice, never the agent's or a
 * counterparty's, so it may be on loopback or the human's own network; the exchange is still bounded
 * like every other: no redirect followed (a merchant cannot send Holon elsewhere), a size limit, a
 * timeout. What a merchant answers is data, read through a schema; only its codes reach a message.
 */
import type { z } from 'zod';
import type { CheckoutProtocol } from '../../core/commerce/checkout.ts';
import { CHECKOUT_PROTOCOLS } from '../../core/commerce/checkout.ts';
import { HolonError } from '../../core/kernel/errors.ts';
import type { FetchLike } from '../net/publicFetch.ts';
import { publicFetch } from '../net/publicFetch.ts';

/** One merchant as the human configured it. */
export interface MerchantConfig {
  /** How tools and capabilities name it (`commerce.buy {merchants: [id]}`). */
  id: string;
  protocol: CheckoutProtocol;
  /** ACP: the base the checkout_sessions paths hang from; UCP: the business, whose /.well-known/ucp names its endpoint. */
  url: string;
}

/** The configured merchants, and how Holon reaches them. */
export interface Merchants {
  list: readonly MerchantConfig[];
  fetch: FetchLike;
}

const MERCHANT_ID = /^[a-z0-9][a-z0-9_.:-]{0,62}$/;

/**
 * The merchants of a `--merchant` flag: comma-separated `[ID=]PROTOCOL:URL`, e.g.
 * `acp:http://127.0.0.1:8801,shop=ucp:https://shop.example`. Without an id, a merchant is named by its
 * host and port.
 */
export function parseMerchants(text: string): MerchantConfig[] {
  const out: MerchantConfig[] = [];
  for (const part of text
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p.length > 0)) {
    const named = /^([^=:/]+)=(.*)$/.exec(part);
    const spec = named ? (named[2] ?? '') : part;
    const colon = spec.indexOf(':');
    const protocol = spec.slice(0, colon);
    if (colon < 0 || !(CHECKOUT_PROTOCOLS as readonly string[]).includes(protocol))
      throw new HolonError(
        'invalid_input',
        `--merchant takes [ID=]PROTOCOL:URL with PROTOCOL ${CHECKOUT_PROTOCOLS.join(' or ')}: "${part}"`,
      );
    let url: URL;
    try {
      url = new URL(spec.slice(colon + 1));
    } catch {
      throw new HolonError('invalid_input', `--merchant: "${spec.slice(colon + 1)}" is not a URL`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      throw new HolonError('invalid_input', '--merchant: only http and https merchants');
    if (url.username || url.password) throw new HolonError('invalid_input', '--merchant: no credentials in the URL');
    const id = (named?.[1] ?? url.host).toLowerCase();
    if (!MERCHANT_ID.test(id))
      throw new HolonError('invalid_input', `--merchant: "${id}" is not a merchant id (lower-case letters, digits, ., :, - and _)`);
    if (out.some((m) => m.id === id)) throw new HolonError('invalid_input', `--merchant: "${id}" is named twice`);
    out.push({ id, protocol: protocol as CheckoutProtocol, url: url.href.replace(/\/+$/, '') });
  }
  return out;
}

/** The merchants, reached with the human's network choice: their own URL, private or not, within the limits. */
export function merchantsOf(list: readonly MerchantConfig[], fetch?: FetchLike): Merchants {
  return { list, fetch: fetch ?? publicFetch({ allowPrivate: true, maxBytes: 1 << 20, timeoutMs: 15_000 }) };
}

/** What a merchant answered: its status and its JSON body (undefined when it sent none or no JSON). */
export interface MerchantReply {
  status: number;
  body: unknown;
}

/** One request to a merchant. Any failure to exchange (network, timeout, too large) is `agent_failed`. */
export async function exchange(
  fetch: FetchLike,
  merchant: string,
  method: 'GET' | 'POST' | 'PUT',
  url: string,
  headers: Record<string, string>,
  body?: unknown,
): Promise<MerchantReply> {
  let res: Response;
  try {
    res = await fetch(url, {
      method,
      headers: { accept: 'application/json', ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
  } catch {
    throw new HolonError(
      'agent_failed',
      `the merchant ${merchant} could not be reached, or its answer was lost; call ` +
        `again (a buy with the same replay key never buys twice)`,
      { merchant },
    );
  }
  const text = await res.text().catch(() => '');
  let parsed: unknown;
  try {
    parsed = text.length > 0 ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  return { status: res.status, body: parsed };
}

/** A code a merchant sent, when it is one (a short token), else null: a merchant's prose never becomes Holon's message. */
export function codeOf(v: unknown): string | null {
  return typeof v === 'string' && /^[A-Za-z0-9_.-]{1,64}$/.test(v) ? v : null;
}

/**
 * A merchant's answer that is not the success it should be, as Holon's failure: 5xx (or anything else
 * unexpected) may pass — retry as is; 404 is not found; any other 4xx is a refusal the merchant means.
 */
export function merchantFailure(merchant: string, reply: MerchantReply, what: string, code: string | null): HolonError {
  const said = code ? ` (${code})` : '';
  if (reply.status === 404)
    return new HolonError('not_found', `the merchant ${merchant} has no such ${what}${said}`, { merchant, status: reply.status, code });
  if (reply.status >= 400 && reply.status < 500 && reply.status !== 408 && reply.status !== 429) {
    return new HolonError('conflict', `the merchant ${merchant} refused the ${what}: HTTP ${reply.status}${said}`, {
      merchant,
      status: reply.status,
      code,
    });
  }
  return new HolonError(
    'agent_failed',
    `the merchant ${merchant} failed on the ${what}: HTTP ${reply.status}${said}; call again with the same replay key`,
    { merchant, status: reply.status, code },
  );
}

/** A body read through its schema, or `agent_failed`: a merchant that answers what cannot be read has failed. */
export function readBody<T>(schema: z.ZodType<T>, merchant: string, reply: MerchantReply, what: string): T {
  const parsed = schema.safeParse(reply.body);
  if (!parsed.success)
    throw new HolonError('agent_failed', `the merchant ${merchant} answered a ${what} that cannot be read`, {
      merchant,
      status: reply.status,
    });
  return parsed.data;
}
