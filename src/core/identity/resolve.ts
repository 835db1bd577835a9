/**
 * `resolve` (seed 003): any counterparty reference — an A2A agent card (v1.0), a signed disclosure, a
 * CAIP-10 account or a Holon account — normalized into one identity with the rails it accepts and the
 * signals a caller can weigh. Pure: fetching a card from its well-known address is the server's (through
 * the public-only fetch); every field read from a card is the counterparty's claim, kept as data.
 */
import { z } from 'zod';
import { HolonError } from '../kernel/errors.ts';
import type { HolonState } from '../fold/state.ts';
import { parsePayee } from '../money/intents.ts';
import type { DisclosurePolicy } from './disclosure.ts';
import { verifyDisclosure } from './disclosure.ts';

/** The rails Holon can name: a transfer between Holon accounts in the journal, and x402 on a chain. */
export type Rail = 'journal' | 'x402';

/** One counterparty, whatever the reference it was named by. */
export interface Identity {
  id: string;
  kind: 'holon_account' | 'chain_account' | 'a2a_agent' | 'disclosure';
  name: string | null;
  /** The rails it accepts: how `pay` (or the terms tools) can reach it. */
  rails: Rail[];
  /** What a caller can weigh: each a fact Holon checked, or a claim it says is unchecked. */
  trust: Record<string, string | number | boolean | null>;
  /** The endpoints an A2A agent serves, as its card claims them. */
  interfaces: { url: string; protocol_binding: string; protocol_version: string | null }[];
  /**
   * The CAIP-10 account `pay` reaches it at on the x402/EIP-3009 rail: the account itself, or the one an
   * agent's card advertises in its x402 extension (its claim); null when there is none.
   */
  payee: string | null;
}

/** A CAIP-10 EVM account. */
const EVM_ACCOUNT = /^eip155:[0-9]{1,12}:0x[0-9a-fA-F]{40}$/;

/** The account a card's x402 extension advertises (`params.payTo` or `params.account`, CAIP-10), if it is one. */
function advertisedPayee(extensions: readonly { uri: string; params?: unknown }[]): string | null {
  for (const e of extensions) {
    if (!/x402/i.test(e.uri) || !e.params || typeof e.params !== 'object') continue;
    const p = e.params as Record<string, unknown>;
    for (const v of [p['payTo'], p['account']]) if (typeof v === 'string' && EVM_ACCOUNT.test(v)) return v;
  }
  return null;
}

/** The path of the A2A agent card under an origin (A2A v1.0 §8.2, RFC 8615). */
export const AGENT_CARD_PATH = '/.well-known/agent-card.json';

/** Where to fetch the card of an agent named by URL: its well-known address (the URL itself when it is one). */
export function agentCardUrl(ref: string): URL {
  let url: URL;
  try {
    url = new URL(ref);
  } catch {
    throw new HolonError('invalid_input', `"${ref}" is not a URL`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new HolonError('invalid_input', 'an agent is named by an http(s) URL');
  if (url.username || url.password) throw new HolonError('invalid_input', 'a URL with credentials in it is not followed');
  return url.pathname === AGENT_CARD_PATH ? url : new URL(AGENT_CARD_PATH, url.origin);
}

const Interface = z.looseObject({
  url: z.string().max(2000),
  protocolBinding: z.string().max(100),
  protocolVersion: z.string().max(40).optional(),
});
const Card = z.looseObject({
  name: z.string().min(1).max(500),
  description: z.string().max(10_000).optional(),
  version: z.string().max(100).optional(),
  supportedInterfaces: z.array(Interface).max(50).optional(),
  /** Cards before v1.0 named one endpoint here. */
  url: z.string().max(2000).optional(),
  provider: z.looseObject({ organization: z.string().max(500), url: z.string().max(2000).optional() }).optional(),
  capabilities: z
    .looseObject({
      extensions: z
        .array(z.looseObject({ uri: z.string().max(2000), params: z.unknown().optional() }))
        .max(50)
        .optional(),
    })
    .optional(),
  skills: z
    .array(z.looseObject({ id: z.string().max(200) }))
    .max(500)
    .optional(),
  signatures: z.array(z.unknown()).max(20).optional(),
});

/** True when `value` has the shape of an A2A agent card. */
export function looksLikeAgentCard(value: unknown): boolean {
  return Card.safeParse(value).success;
}

/** An A2A agent card, as one identity. `fetchedFrom` is where the server fetched it, or null when given inline. */
export function resolveAgentCard(value: unknown, fetchedFrom: URL | null): Identity {
  const parsed = Card.safeParse(value);
  if (!parsed.success)
    throw new HolonError(
      'invalid_input',
      `not an A2A agent card: ${parsed.error.issues[0]?.path.join('.') || 'name'}: ${parsed.error.issues[0]?.message ?? 'invalid'}`,
    );
  const c = parsed.data;
  const interfaces = (c.supportedInterfaces ?? []).map((i) => ({
    url: i.url,
    protocol_binding: i.protocolBinding,
    protocol_version: i.protocolVersion ?? null,
  }));
  if (interfaces.length === 0 && c.url) interfaces.push({ url: c.url, protocol_binding: 'JSONRPC', protocol_version: null });
  const origins = interfaces.map((i) => {
    try {
      return new URL(i.url).origin;
    } catch {
      return null;
    }
  });
  const x402 = (c.capabilities?.extensions ?? []).some((e) => /x402/i.test(e.uri));
  const payee = advertisedPayee(c.capabilities?.extensions ?? []);
  return {
    id: interfaces[0]?.url ?? fetchedFrom?.origin ?? `a2a:${c.name}`,
    kind: 'a2a_agent',
    name: c.name,
    rails: x402 ? ['x402'] : [],
    trust: {
      card_version: c.supportedInterfaces ? '1.0' : 'pre-1.0',
      fetched_from: fetchedFrom?.href ?? null,
      over_https: fetchedFrom ? fetchedFrom.protocol === 'https:' : null,
      // An agent served from the origin its card was fetched from is what the card's host vouches for.
      interfaces_on_card_origin: fetchedFrom ? origins.length > 0 && origins.every((o) => o === fetchedFrom.origin) : null,
      provider: c.provider?.organization ?? null,
      card_signatures: c.signatures?.length ?? 0,
      // JWS card signatures are counted, not checked: Holon holds no keys of A2A providers.
      card_signatures_verified: false,
      skills: c.skills?.length ?? 0,
    },
    interfaces,
    payee,
  };
}

/** A payee reference (`acct:<account>` or CAIP-10) as one identity. */
export function resolveAccountRef(s: HolonState, ref: string): Identity {
  const p = parsePayee(ref);
  if (p.kind === 'account') {
    const known = s.accounts[p.account] !== undefined;
    return {
      id: p.ref,
      kind: 'holon_account',
      name: p.account,
      rails: known ? ['journal'] : [],
      trust: { known_account: known, same_installation: true },
      interfaces: [],
      payee: null,
    };
  }
  const evm = EVM_ACCOUNT.test(p.ref);
  return {
    id: p.ref,
    kind: 'chain_account',
    name: null,
    // An EVM account is paid by an EIP-3009 authorization settled through an x402 facilitator (rails/chainPay.ts).
    rails: evm ? ['x402'] : [],
    trust: {
      chain: p.chain,
      address_format_valid: p.chain.startsWith('eip155:') ? /^0x[0-9a-fA-F]{40}$/.test(p.address) : null,
      ownership_proven: false,
    },
    interfaces: [],
    payee: evm ? p.ref : null,
  };
}

/** A signed disclosure as one identity: who it says it is, once its signature and time hold. */
export function resolveDisclosure(
  s: HolonState,
  value: unknown,
  now: number,
  ownKey: string | undefined,
  policy: DisclosurePolicy = {},
): Identity {
  const d = verifyDisclosure(value, policy, now, ownKey);
  if (!d.subject) throw new HolonError('invalid_input', `the disclosure cannot be resolved: ${d.reasons.join('; ')}`);
  const account = d.signals.own_installation && s.accounts[d.subject.who.account] ? d.subject.who.account : null;
  return {
    id: `holon:${d.subject.public_key}/${d.subject.mandate}`,
    kind: 'disclosure',
    name: d.subject.who.name,
    rails: account ? ['journal'] : [],
    trust: {
      signature_valid: d.signals.signature_valid,
      in_time: d.signals.in_time,
      own_installation: d.signals.own_installation,
      account: account ? `acct:${account}` : null,
      expires_at: d.subject.expires_at,
    },
    interfaces: [],
    payee: null,
  };
}
