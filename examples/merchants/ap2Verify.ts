/**
 * The local UCP business's side of AP2 (v0.2) through UCP's AP2 Mandates extension: it signs every
 * checkout it prices (a detached JWS over the JCS form of the checkout without `ap2`, with its own ES256
 * key, published in its profile's `signing_keys`), and before it completes a checkout it verifies the
 * mandates against the human's published key: each closed mandate as the last hop of AP2's delegation
 * chain (`open~…~~closed~…~`), the open mandate verified with the `@sd-jwt/sd-jwt-vc` family, the closed
 * hop by hand as AP2's reference reads it (signed by the key the open mandate's `cnf` names, typed
 * `kb+sd-jwt`, `sd_hash` over the open mandate as presented, its mandate a disclosure it commits to, no
 * `cnf` of its own). It trusts nothing of Holon's code: what it checks is written here, from the specifications.
 *
 * What it refuses, each with UCP's error code (and `mandate_replayed`, its own): no mandate
 * (`mandate_required`); a signature by any key but the human's, or the key the human's open mandate binds
 * (`mandate_invalid_signature`); an expired mandate (`mandate_expired`); a mandate already used for an order
 * or a key binding answering a challenge an order already used (`mandate_replayed`); a key binding that does
 * not answer the challenge the business issued with this checkout (`ap2.nonce`), a checkout mandate for
 * another checkout or for a cart changed since it was signed, a
 * payment mandate of another amount, payee or instrument, or outside the open mandate's constraints, or an
 * open mandate the human no longer publishes (`mandate_scope_mismatch`).
 */
import { createHash, createPublicKey, generateKeyPairSync, sign, verify } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import { digest, ES256 } from '@sd-jwt/crypto-nodejs';
import { SDJwtVcInstance } from '@sd-jwt/sd-jwt-vc';
import { canonicalize } from 'json-canonicalize';

/** What the human publishes: the key merchants trust, and the digests of the open mandates in force. */
export interface HumanPublication {
  key: { kty: string; crv: string; x: string; y: string };
  open: Record<string, { checkout: string; payment: string }>;
}

/** How the business takes part in AP2: its id (as the human's mandates name it), and where it reads the human's publication. */
export interface Ap2Options {
  id: string;
  human: () => HumanPublication | undefined | Promise<HumanPublication | undefined>;
  /** A dishonest business: signs its checkouts with a key its profile does not publish, or not at all. */
  signature?: 'forged' | 'none';
}

/** A refusal: UCP's error code and a sentence. */
export interface Refusal {
  code: string;
  content: string;
}

const b64 = (s: string | Buffer): string => Buffer.from(s).toString('base64url');
const hashOf = (s: string): string => createHash('sha256').update(s).digest('base64url');
const issuerPart = (sdJwt: string): string => sdJwt.split('~')[0] ?? '';

/** The business's signing key and what it publishes of it. */
export interface BusinessKey {
  publicJwk: Record<string, string>;
  /** The detached JWS of a checkout (without its `ap2`), `<header>..<signature>`. */
  authorize(checkout: Record<string, unknown>): string;
  /** True when `jwt` is a compact JWS this business signed; its payload, decoded. */
  signed(jwt: string): Record<string, unknown> | undefined;
}

/** A new ES256 key for the business. */
export function businessKey(): BusinessKey {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const jwk = publicKey.export({ format: 'jwk' }) as Record<string, string>;
  const kid = `business-${hashOf(canonicalize({ crv: jwk['crv'], kty: jwk['kty'], x: jwk['x'], y: jwk['y'] })).slice(0, 16)}`;
  const header = b64(JSON.stringify({ alg: 'ES256', kid }));
  const signPart = (input: string): string =>
    sign('sha256', Buffer.from(input), { key: privateKey, dsaEncoding: 'ieee-p1363' }).toString('base64url');
  return {
    publicJwk: { ...jwk, kid, alg: 'ES256', use: 'sig' },
    authorize: (checkout) => {
      const { ap2: _ap2, ...payload } = checkout;
      return `${header}..${signPart(`${header}.${b64(canonicalize(payload))}`)}`;
    },
    signed: (jwt) => {
      const [h, p, s] = jwt.split('.');
      if (!h || !p || !s || h !== header) return undefined;
      const ok = verify('sha256', Buffer.from(`${h}.${p}`), { key: publicKey, dsaEncoding: 'ieee-p1363' }, Buffer.from(s, 'base64url'));
      return ok ? (JSON.parse(Buffer.from(p, 'base64url').toString('utf8')) as Record<string, unknown>) : undefined;
    },
  };
}

type Claims = Record<string, unknown>;

function keyOfJwk(jwk: unknown): KeyObject | undefined {
  try {
    const k = jwk as { kty?: string; crv?: string; x?: string; y?: string };
    if (k.kty !== 'EC' || k.crv !== 'P-256') return undefined;
    return createPublicKey({ key: { kty: k.kty, crv: k.crv, x: k.x, y: k.y } as never, format: 'jwk' });
  } catch {
    return undefined;
  }
}

const sameKey = (a: unknown, b: unknown): boolean => {
  const x = a as { x?: unknown; y?: unknown; crv?: unknown } | undefined;
  const y = b as { x?: unknown; y?: unknown; crv?: unknown } | undefined;
  return !!x && !!y && x.crv === y.crv && x.x === y.x && x.y === y.y;
};

/** What a mandate says, once its signatures (issuer and, for a closed one, key binding) verified. */
interface Verified {
  claims: Claims;
  kb?: { aud: string; nonce: string; iat: number };
}

/**
 * Verifies one SD-JWT VC with the library: the issuer's signature with `issuerKey`, its expiry, and, when
 * `bound`, its key binding (with the key its `cnf` names). A refusal, or what it says.
 */
async function verifyVc(sdJwt: string, issuerKey: unknown, vct: string, bound: boolean, now: number): Promise<Verified | Refusal> {
  const bad = (content: string): Refusal => ({ code: 'mandate_invalid_signature', content });
  if (!keyOfJwk(issuerKey)) return bad('no key to verify it with');
  const verifier = await ES256.getVerifier(issuerKey as object);
  const kbVerifier = async (data: string, sig: string, payload: Claims): Promise<boolean> => {
    const cnf = (payload['cnf'] as { jwk?: unknown } | undefined)?.jwk;
    if (!keyOfJwk(cnf)) return false;
    return (await ES256.getVerifier(cnf as object))(data, sig);
  };
  const vc = new SDJwtVcInstance({ verifier, kbVerifier, hasher: digest, hashAlg: 'sha-256' });
  let decoded;
  try {
    decoded = await vc.decode(sdJwt);
  } catch {
    return bad(`a ${vct} that does not read`);
  }
  const exp = (decoded.jwt?.payload as Claims | undefined)?.['exp'];
  if (typeof exp === 'number' && exp <= Math.floor(now / 1000)) return { code: 'mandate_expired', content: `the ${vct} expired` };
  const nonce = decoded.kbJwt?.payload?.nonce;
  if (bound && typeof nonce !== 'string') return bad(`the ${vct} has no key binding`);
  try {
    const r = await vc.verify(sdJwt, { currentDate: Math.floor(now / 1000), ...(bound ? { keyBindingNonce: nonce as string } : {}) });
    if (r.payload.vct !== vct) return { code: 'mandate_scope_mismatch', content: `expected a ${vct}, got ${String(r.payload.vct)}` };
    return {
      claims: r.payload as Claims,
      ...(r.kb ? { kb: { aud: r.kb.payload.aud, nonce: r.kb.payload.nonce, iat: r.kb.payload.iat } } : {}),
    };
  } catch (err) {
    return bad(`the ${vct} does not verify: ${(err as Error).message}`);
  }
}

/** The SD-JWT part of a token (up to its last `~`), and its sd_hash (RFC 9901), as AP2's chain binds a hop to the one before. */
const sdHashOf = (t: string): string => hashOf(t.slice(0, t.lastIndexOf('~') + 1));

/**
 * Verifies a chain's closed hop: signed by `holder` (the open mandate's cnf key), AP2's terminal type, bound
 * to `open` by sd_hash, its one delegate_payload item a disclosure whose digest it signs, not delegating
 * further, unexpired.
 */
async function verifyHop(hop: string, open: string, holder: unknown, vct: string, now: number): Promise<Verified | Refusal> {
  const bad = (content: string): Refusal => ({ code: 'mandate_invalid_signature', content });
  const [jwt = '', disclosure, end, ...more] = hop.split('~');
  const [h = '', p = '', sig = ''] = jwt.split('.');
  if (!disclosure || end !== '' || more.length > 0 || !sig) return bad(`a ${vct} that is not one key-bound hop`);
  if (!keyOfJwk(holder)) return bad('the open mandate binds no key');
  if (!(await (await ES256.getVerifier(holder as object))(`${h}.${p}`, sig))) return bad(`the ${vct} is not signed by the key the open mandate binds`);
  let header: Claims;
  let payload: Claims;
  let item: unknown;
  try {
    header = JSON.parse(Buffer.from(h, 'base64url').toString('utf8')) as Claims;
    payload = JSON.parse(Buffer.from(p, 'base64url').toString('utf8')) as Claims;
    item = (JSON.parse(Buffer.from(disclosure, 'base64url').toString('utf8')) as unknown[])[1];
  } catch {
    return bad(`a ${vct} that does not read`);
  }
  if (header['typ'] !== 'kb+sd-jwt' || header['alg'] !== 'ES256') return bad(`the ${vct} is not a closed hop (kb+sd-jwt)`);
  if (payload['sd_hash'] !== sdHashOf(open)) return bad(`the ${vct}'s sd_hash is not over the open mandate it is presented with`);
  const items = payload['delegate_payload'];
  if (payload['_sd_alg'] !== 'sha-256' || !Array.isArray(items) || items.length !== 1 || (items[0] as Claims)['...'] !== hashOf(disclosure))
    return bad(`the ${vct}'s disclosure is not the one it signed`);
  if (typeof item !== 'object' || item === null) return bad(`the ${vct} discloses no mandate`);
  const claims = item as Claims;
  if ('cnf' in claims) return bad(`the ${vct} delegates further (a cnf in a closed mandate)`);
  if (claims['vct'] !== vct) return { code: 'mandate_scope_mismatch', content: `expected a ${vct}, got ${String(claims['vct'])}` };
  if (typeof claims['exp'] !== 'number' || claims['exp'] <= Math.floor(now / 1000)) return { code: 'mandate_expired', content: `the ${vct} expired` };
  const { aud, nonce, iat } = payload;
  if (typeof aud !== 'string' || typeof nonce !== 'string' || typeof iat !== 'number') return bad(`the ${vct} has no key binding`);
  return { claims, kb: { aud, nonce, iat } };
}

/** The open and closed parts of a two-hop chain, or undefined. */
function chainOf(token: string): { open: string; closed: string } | undefined {
  const parts = token.split('~~');
  return parts.length === 2 && parts[0] && parts[1] ? { open: `${parts[0]}~`, closed: parts[1] } : undefined;
}

const isRefusal = (x: unknown): x is Refusal => typeof x === 'object' && x !== null && 'code' in x && 'content' in x;
const constraintsOf = (claims: Claims): Claims[] => (Array.isArray(claims['constraints']) ? (claims['constraints'] as Claims[]) : []);

/** What a completion must match: the checkout as the business shows it now, and what the x402 payment pays. */
export interface Expected {
  /** The checkout as the business would sign it now (without `ap2`). */
  checkout: Record<string, unknown>;
  total: number;
  currency: string;
  /** The business's own URL: the key bindings' audience and the payee's website. */
  url: string;
  /** When paid by x402: the instrument the payment mandate must name (network:asset:payer). */
  instrument: string | null;
  /** The challenge the business issued with this checkout, which both key bindings must answer. */
  nonce: string;
}

/** What the business remembers of the mandates it took: their digests, the challenges they answered, and each open payment mandate's use. */
export interface Spent {
  digests: ReadonlySet<string>;
  nonces: ReadonlySet<string>;
  /** By the open payment mandate's digest: what its orders paid together (minor units) and how many there were (AP2's mandate context). */
  usage: ReadonlyMap<string, Usage>;
}

/** The use of one open payment mandate so far. */
export interface Usage {
  amount: number;
  uses: number;
}

/** The verified mandates of a completion: what to mark spent once the order is placed (digests, and the challenge they answered). */
export interface Accepted {
  spent: string[];
  nonce: string;
  /** The open payment mandate (its digest) whose use grows by this order's total. */
  open: string;
}

/**
 * Verifies a completion's AP2 mandates. `spent`: the digests of mandates already used for an order, and the
 * challenges already answered by one.
 */
export async function verifyMandates(
  options: Ap2Options,
  key: BusinessKey,
  body: { ap2?: Claims; payment?: { instruments?: { credential?: Claims }[] } } | undefined,
  expected: Expected,
  spent: Spent,
  now: number,
): Promise<Accepted | Refusal> {
  const ap2 = body?.ap2 ?? {};
  const checkoutMandate = ap2['checkout_mandate'];
  const paymentMandate = body?.payment?.instruments?.[0]?.credential?.['token'];
  if (typeof checkoutMandate !== 'string' || typeof paymentMandate !== 'string')
    return {
      code: 'mandate_required',
      content: 'AP2 was negotiated for this checkout: a checkout mandate and a payment mandate are required',
    };
  // Human not present: each closed mandate comes as the last hop of a chain from the human's open mandate.
  const checkoutChain = chainOf(checkoutMandate);
  const paymentChain = chainOf(paymentMandate);
  if (!checkoutChain || !paymentChain)
    return { code: 'mandate_required', content: "each mandate must be presented chained to the human's open mandate (open~~closed)" };
  const openCheckout = checkoutChain.open;
  const openPayment = paymentChain.open;
  const human = await options.human();
  if (!human) return { code: 'agent_missing_key', content: "the human's key is not published" };
  const scope = (content: string): Refusal => ({ code: 'mandate_scope_mismatch', content });

  // The open mandates: the human's signature, and still the ones the human publishes.
  const oc = await verifyVc(openCheckout, human.key, 'mandate.checkout.open.1', false, now);
  if (isRefusal(oc)) return oc;
  const op = await verifyVc(openPayment, human.key, 'mandate.payment.open.1', false, now);
  if (isRefusal(op)) return op;
  const openDigest = hashOf(issuerPart(openPayment));
  const published = Object.values(human.open).some(
    (o) => o.checkout === hashOf(issuerPart(openCheckout)) && o.payment === hashOf(issuerPart(openPayment)),
  );
  if (!published) return scope('these open mandates are not the ones the human publishes now (replaced or withdrawn)');
  // The closed mandates are signed by the key the open mandates bind (AP2's cnf), with a key binding for this business.
  const delegate = (oc.claims['cnf'] as { jwk?: unknown } | undefined)?.jwk;
  if (!sameKey(delegate, (op.claims['cnf'] as { jwk?: unknown } | undefined)?.jwk)) return scope('the open mandates bind different keys');
  const cm = await verifyHop(checkoutChain.closed, openCheckout, delegate, 'mandate.checkout.1', now);
  if (isRefusal(cm)) return cm;
  const pm = await verifyHop(paymentChain.closed, openPayment, delegate, 'mandate.payment.1', now);
  if (isRefusal(pm)) return pm;
  for (const m of [cm, pm]) {
    if (m.kb?.aud !== expected.url) return scope('a key binding for another audience');
    if (Math.abs(Math.floor(now / 1000) - (m.kb?.iat ?? 0)) > 300)
      return { code: 'mandate_expired', content: 'a key binding older than 5 minutes' };
    // The business's own challenge for this checkout, answered once: a chain sent again answers an old one.
    if (m.kb?.nonce !== expected.nonce)
      return spent.nonces.has(m.kb?.nonce ?? '')
        ? { code: 'mandate_replayed', content: "the key binding answers a challenge an order already used, not this checkout's" }
        : scope("the key binding does not answer this checkout's challenge (nonce)");
  }
  if (spent.nonces.has(expected.nonce)) return { code: 'mandate_replayed', content: "this checkout's challenge was answered already" };
  // A mandate is named by its closed JWT, as AP2 names a receipt's.
  const digests = [checkoutChain.closed, paymentChain.closed].map((m) => hashOf(issuerPart(m)));
  if (digests.some((d) => spent.digests.has(d))) return { code: 'mandate_replayed', content: 'this mandate was already used for an order' };

  // The checkout: this business's signature, this checkout as it is now, and its hash.
  const jwt = cm.claims['checkout_jwt'];
  if (typeof jwt !== 'string') return scope('the checkout mandate discloses no checkout_jwt');
  if (cm.claims['checkout_hash'] !== hashOf(jwt)) return scope('checkout_hash is not the hash of checkout_jwt');
  const signedCheckout = key.signed(jwt);
  if (!signedCheckout)
    return { code: 'merchant_authorization_invalid', content: 'the checkout in the mandate is not one this business signed' };
  if (canonicalize(signedCheckout) !== canonicalize(expected.checkout))
    return scope(
      signedCheckout['id'] === expected.checkout['id']
        ? 'the cart changed since the mandate was signed'
        : `the mandate is for checkout ${String(signedCheckout['id'])}, not this one`,
    );

  // The payment: scoped to this checkout, for its total, to this business, by the instrument that pays.
  const p = pm.claims;
  const amount = p['payment_amount'] as { amount?: unknown; currency?: unknown } | undefined;
  const payee = p['payee'] as { id?: unknown; website?: unknown } | undefined;
  const instrument = p['payment_instrument'] as { id?: unknown } | undefined;
  if (p['transaction_id'] !== cm.claims['checkout_hash']) return scope('the payment mandate is for another checkout');
  if (amount?.amount !== expected.total || amount.currency !== expected.currency)
    return scope(
      `the payment mandate pays ${String(amount?.amount)} ${String(amount?.currency)}, the checkout is ${expected.total} ${expected.currency}`,
    );
  if (payee?.id !== options.id || payee.website !== expected.url) return scope('the payment mandate pays another payee');
  if (expected.instrument !== null && instrument?.id !== expected.instrument)
    return scope('the payment mandate names another payment instrument');

  // The open mandates' constraints, evaluated on the closed ones.
  for (const c of constraintsOf(oc.claims)) {
    if (
      c['type'] === 'checkout.allowed_merchants' &&
      !(Array.isArray(c['allowed']) && c['allowed'].some((m: Claims) => m['id'] === options.id))
    )
      return scope('the open checkout mandate does not allow this merchant');
    if (c['type'] === 'checkout.line_items') {
      const why = lineItemsRefusal(c, signedCheckout);
      if (why) return scope(why);
    }
  }
  const payment = constraintsOf(op.claims);
  // payment.reference names the open checkout mandate by its sd_hash (`issuerJWT~disclosures~`), as AP2's reference does.
  if (!payment.some((c) => c['type'] === 'payment.reference' && c['conditional_transaction_id'] === sdHashOf(openCheckout)))
    return scope('the open payment mandate does not reference the open checkout mandate');
  const used = spent.usage.get(openDigest) ?? { amount: 0, uses: 0 };
  const has = (type: string): boolean => payment.some((c) => c['type'] === type);
  // AP2 reuses an open payment mandate only under a recurrence, which it pairs with an amount range and a budget.
  if (has('payment.agent_recurrence') && !(has('payment.amount_range') && has('payment.budget')))
    return scope('the open payment mandate recurs without an amount range and a budget');
  for (const c of payment) {
    if (c['type'] === 'payment.budget') {
      const max = c['currency'] === expected.currency ? minorOf(c['max'], expected.currency) : undefined;
      if (max === undefined) return scope(`the open payment mandate's budget is not an amount in ${expected.currency}`);
      if (used.amount + expected.total > max)
        return scope(`the checkout's ${expected.total} and the ${used.amount} already paid under the open mandate are over its budget of ${max}`);
    }
    if (c['type'] === 'payment.agent_recurrence') {
      if (c['frequency'] !== 'ON_DEMAND') return scope(`a recurrence of ${String(c['frequency'])}, which this business does not evaluate`);
      if (c['max_occurrences'] !== undefined && !(typeof c['max_occurrences'] === 'number' && used.uses < c['max_occurrences']))
        return scope('the open payment mandate was used as often as it allows');
    }
    if (
      c['type'] === 'payment.allowed_payees' &&
      !(Array.isArray(c['allowed']) && c['allowed'].some((m: Claims) => m['id'] === options.id))
    )
      return scope('the open payment mandate does not allow this payee');
    if (c['type'] === 'payment.amount_range') {
      if (c['currency'] !== expected.currency)
        return scope(`the open payment mandate caps in ${String(c['currency'])}, the checkout is in ${expected.currency}`);
      if (typeof c['max'] !== 'number' || expected.total > c['max'])
        return scope(`the checkout's ${expected.total} is over the open mandate's cap of ${String(c['max'])}`);
      if (typeof c['min'] === 'number' && expected.total < c['min']) return scope("the checkout is under the open mandate's minimum");
    }
  }
  return { spent: digests, nonce: expected.nonce, open: openDigest };
}

/** The minor units of the currency's smallest unit, by ISO 4217 (the few without cents or with three decimals). */
const minorDigits = (currency: string): number => (['JPY', 'KRW', 'VND', 'CLP', 'ISK'].includes(currency) ? 0 : ['BHD', 'KWD', 'OMR', 'JOD', 'TND'].includes(currency) ? 3 : 2);

/**
 * A budget's `max` (a JSON number of major units, as AP2 writes it) in minor units, read by its decimal digits
 * and never by float arithmetic; undefined when it is not a plain decimal with at most the currency's decimals.
 */
function minorOf(max: unknown, currency: string): number | undefined {
  if (typeof max !== 'number' || !Number.isFinite(max) || max < 0) return undefined;
  const m = /^(\d+)(?:\.(\d+))?$/.exec(String(max));
  const digits = minorDigits(currency);
  if (!m || (m[2] ?? '').length > digits) return undefined;
  const minor = Number(`${m[1]}${(m[2] ?? '').padEnd(digits, '0')}`);
  return Number.isSafeInteger(minor) ? minor : undefined;
}

/**
 * AP2's `checkout.line_items` on the checkout the business signed: every unit in the cart goes to a requirement
 * that accepts its product (one with no acceptable items accepts any), no requirement taking more than its
 * quantity — a maximal flow, as AP2 describes it, read as AP2's reference SDK does: a requirement is a most,
 * not a must. The refusal's sentence, or undefined when the cart fits.
 */
function lineItemsRefusal(c: Claims, checkout: Record<string, unknown>): string | undefined {
  const requirements = Array.isArray(c['items']) ? (c['items'] as Claims[]) : [];
  const accepts = requirements.map((r) =>
    Array.isArray(r['acceptable_items']) ? (r['acceptable_items'] as Claims[]).map((i) => i['id']) : [],
  );
  const room = requirements.map((r) => (typeof r['quantity'] === 'number' && Number.isSafeInteger(r['quantity']) ? r['quantity'] : 0));
  const cart = new Map<string, number>();
  for (const l of Array.isArray(checkout['line_items']) ? (checkout['line_items'] as Claims[]) : []) {
    const id = String((l['item'] as Claims | undefined)?.['id']);
    cart.set(id, (cart.get(id) ?? 0) + (typeof l['quantity'] === 'number' ? l['quantity'] : 0));
  }
  if (cart.size === 0) return 'an empty cart does not meet the open mandate’s line items';
  const fits = (id: string, r: number): boolean => accepts[r]?.length === 0 || (accepts[r]?.includes(id) ?? false);
  for (const id of cart.keys())
    if (!requirements.some((_, r) => fits(id, r))) return `the cart holds ${id}, which the open mandate's line items do not list`;
  // Augmenting paths from each unit's product to a requirement with room (the quantities are small: one unit at a time).
  const given = requirements.map(() => new Map<string, number>());
  const place = (id: string, seen: Set<number>): boolean => {
    for (let r = 0; r < requirements.length; r++) {
      if (!fits(id, r) || seen.has(r)) continue;
      seen.add(r);
      const taken = [...(given[r]?.values() ?? [])].reduce((a, b) => a + b, 0);
      const move = (): boolean => {
        given[r]?.set(id, (given[r]?.get(id) ?? 0) + 1);
        return true;
      };
      if (taken < (room[r] ?? 0)) return move();
      for (const [other, n] of given[r] ?? []) {
        if (n > 0 && place(other, seen)) {
          given[r]?.set(other, n - 1);
          return move();
        }
      }
    }
    return false;
  };
  for (const [id, quantity] of cart)
    for (let unit = 0; unit < quantity; unit++)
      if (!place(id, new Set())) return `the cart holds more of ${id} than the open mandate's line items allow`;
  return undefined;
}
