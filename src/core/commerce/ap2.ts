/**
 * AP2 (v0.2) mandates, as UCP's AP2 Mandates extension (dev.ucp.shopping.ap2_mandate) carries them: the
 * consent a merchant can verify. Two kinds, each an SD-JWT VC built with the `@sd-jwt/sd-jwt-vc` family
 * and signed by the human's mandate key (mandateKey.ts):
 *
 * - the open (human-not-present) mandates, `mandate.checkout.open.1` and `mandate.payment.open.1`, signed
 *   when the human creates or edits a Holon mandate: its merchants, its cap per purchase and its expiry,
 *   which is what merchants see of it. Their digests are published beside the key (`<state>/ap2/human.json`),
 *   so a merchant refuses an open mandate the human has since replaced;
 * - the closed mandates of one purchase, `mandate.checkout.1` (the merchant-signed checkout JWT and its
 *   hash) and `mandate.payment.1` (amount, currency, payee and the payment instrument, scoped to that
 *   hash), each presented with a key-binding JWT for the merchant (aud) and its challenge (nonce). Only the buy
 *   path signs them, inside the gate, for a purchase the gate held.
 *
 * The merchant's side of the extension — its detached checkout signature and its challenge — is checked in
 * merchantSignature.ts, before anything is signed.
 */
import { createHash, randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { digest, ES256, generateSalt } from '@sd-jwt/crypto-nodejs';
import { SDJwtVcInstance } from '@sd-jwt/sd-jwt-vc';
import { canonicalize } from 'json-canonicalize';
import { CAP } from '../kernel/capabilities.ts';
import { HolonError } from '../kernel/errors.ts';
import * as M from '../kernel/amount.ts';
import type { Mandate } from '../kernel/model.ts';
import type { MandateKey, PublicJwk } from '../local/mandateKey.ts';
import { agentKey, jwkThumbprint, loadAgentKey, loadMandateKey, mandateKey } from '../local/mandateKey.ts';
import type { Presentation, SignedCheckout } from './checkout.ts';
import { jwsPayload } from './merchantSignature.ts';
import { fromMinor, minorExponent, toMinor } from './checkout.ts';
import type { AllowedProduct } from '../kernel/products.ts';
import { allowedProducts } from '../kernel/products.ts';

/** The AP2 version whose mandates these are. */
export const AP2_VERSION = '0.2';
/** UCP's capability name for the AP2 Mandates extension. */
export const AP2_EXTENSION = 'dev.ucp.shopping.ap2_mandate';
/** The mandates' credential types (AP2's `vct`, with their version suffix). */
export const VCT = {
  checkout: 'mandate.checkout.1',
  payment: 'mandate.payment.1',
  openCheckout: 'mandate.checkout.open.1',
  openPayment: 'mandate.payment.open.1',
} as const;

type Claims = Record<string, unknown>;

/** How long a purchase's closed mandates are good for: long enough to complete, short enough not to keep. */
const CLOSED_TTL_S = 15 * 60;
/**
 * How long an open mandate is good for when its Holon mandate has no expiry: AP2's merchants read a consent
 * without one as good for ever, so Holon never signs one. Editing the mandate signs it again.
 */
export const OPEN_TTL_DAYS = 30;

/** base64url SHA-256 of a string: AP2's `checkout_hash`, and the digest Holon names a mandate by. */
export function hashOf(s: string): string {
  return createHash('sha256').update(s).digest('base64url');
}

/**
 * The digest of a mandate: of its issuer-signed JWT, the same however many disclosures a presentation keeps.
 * Of a chain (`open~…~~closed~…~`), the closed mandate's JWT, as AP2 names a receipt's mandate.
 */
export function mandateDigest(sdJwt: string): string {
  return hashOf(sdJwt.split(CHAIN_SEPARATOR).at(-1)?.split('~')[0] ?? '');
}

/**
 * AP2's `sd_hash` of an SD-JWT (RFC 9901 §4.3.1): over `issuerJWT~disclosure~…~`, without a key binding.
 * It binds a closed mandate to the open one it presents, and is `payment.reference`'s digest of the open
 * checkout mandate.
 */
export function sdHash(sdJwt: string): string {
  return hashOf(sdJwt.slice(0, sdJwt.lastIndexOf('~') + 1));
}

/** What joins the open mandate and the closed one into AP2's delegation chain. */
export const CHAIN_SEPARATOR = '~~';
/** The JWT type of a chain's last hop: a key-bound SD-JWT that delegates no further (no `cnf`). */
export const CLOSED_TYP = 'kb+sd-jwt';

/** The open and closed parts of a two-hop chain, each with its trailing `~`; undefined when it is not one. */
export function chainParts(chain: string): { open: string; closed: string } | undefined {
  const at = chain.indexOf(CHAIN_SEPARATOR);
  if (at <= 0) return undefined;
  const closed = chain.slice(at + CHAIN_SEPARATOR.length);
  return closed.includes(CHAIN_SEPARATOR) || !closed.endsWith('~') ? undefined : { open: `${chain.slice(0, at)}~`, closed };
}

/** An amount as AP2 writes it: an integer of the currency's minor units. */
export interface Ap2Amount {
  amount: number;
  currency: string;
}

/** What the human's open mandate says, from their Holon mandate: whom it may buy from, what, up to how much, until when. */
export interface OpenTerms {
  /** The merchants (their ids, as the human configured them); null: any merchant. */
  merchants: string[] | null;
  /** The most one purchase may cost, in the mandate's currency; null: no cap in the mandate. */
  cap: Ap2Amount | null;
  /** The most all purchases under it may cost together: the mandate's total budget (AP2's `payment.budget`). */
  budget?: Ap2Amount;
  /** The products a cart may hold, and how many of each at most (AP2's `checkout.line_items`); absent: any. */
  products?: AllowedProduct[];
  expires_at: string | null;
}

/**
 * The open terms of a Holon mandate, or undefined when it cannot buy (no commerce.buy grant): the grant's
 * merchants, a cap of the lower of the approval threshold (above it a purchase is refused) and the
 * per-call limit, and the mandate's expiry.
 */
export function openTerms(m: Mandate): OpenTerms | undefined {
  const grant = m.capabilities.find((g) => g.name === CAP.commerceBuy);
  if (!grant) return undefined;
  const listed = grant.params?.['merchants'];
  const merchants = listed === undefined ? null : Array.isArray(listed) ? listed.filter((x): x is string => typeof x === 'string') : [];
  const limits = [m.approval_threshold, m.budget.per_call].filter((x): x is string => x !== null).map((x) => M.parseUnits(x));
  const cap =
    limits.length > 0
      ? { amount: toMinor({ units: limits.reduce((a, b) => (a < b ? a : b)), currency: m.currency }), currency: m.currency }
      : null;
  const products = allowedProducts(m);
  return {
    merchants: merchants?.includes('*') ? null : merchants,
    cap,
    budget: { amount: toMinor({ units: M.parseUnits(m.budget.total), currency: m.currency }), currency: m.currency },
    ...(products ? { products } : {}),
    expires_at: m.expires_at,
  };
}

/** When an open mandate of these terms signed at `now` expires (ms): the mandate's expiry, else OPEN_TTL_DAYS on. */
export function openExpiry(t: OpenTerms, now: number): number {
  return t.expires_at ? Date.parse(t.expires_at) : now + OPEN_TTL_DAYS * 86_400_000;
}

/**
 * An amount of minor units as AP2's `payment.budget` writes it, a JSON number of the currency's major units
 * (AP2's reference multiplies it by 100). It is made from the decimal digits, never by float arithmetic, and
 * a merchant reads it back the same way.
 */
export function majorUnits(a: Ap2Amount): number {
  const digits = minorExponent(a.currency);
  const text = String(a.amount).padStart(digits + 1, '0');
  return Number(digits === 0 ? text : `${text.slice(0, -digits)}.${text.slice(-digits)}`);
}

/** The open terms in the human's words, as the form and the CLI show them ("merchants will see this"). */
export function openTermsText(t: OpenTerms | undefined): string {
  if (!t) return 'no purchases (this mandate cannot buy)';
  const cap = t.cap
    ? `up to ${M.formatUnits(fromMinor(t.cap.amount, t.cap.currency).units)} ${t.cap.currency} a purchase`
    : 'no cap per purchase';
  const who = t.merchants === null ? 'any merchant' : t.merchants.length === 0 ? 'no merchant' : t.merchants.join(', ');
  const until = t.expires_at ? `until ${t.expires_at}` : `no expiry (merchants see ${OPEN_TTL_DAYS} days from signing)`;
  const total = t.budget ? `; ${M.formatUnits(fromMinor(t.budget.amount, t.budget.currency).units)} ${t.budget.currency} in all` : '';
  const what = t.products ? `; only ${t.products.map((p) => `up to ${p.quantity} × ${p.id}`).join(', ')}` : '';
  return `${who}; ${cap}; ${until}${total}${what}`;
}

/** The human's open mandates for one Holon mandate, as signed and kept in the state folder. */
export interface OpenMandates {
  mandate: string;
  terms: OpenTerms;
  /** The thumbprint of the key that signed them (the human's). */
  key: string;
  /** The thumbprint of the agent key their `cnf` binds: the only key that may sign a purchase's closed mandates. */
  agent: string;
  checkout: string;
  payment: string;
  signed_at: string;
  /** When they expire (their `exp`): the mandate's expiry, or OPEN_TTL_DAYS after signing. */
  expires_at?: string;
}

/** What the human publishes for merchants: the key they trust, and the open mandates in force now. */
export interface Published {
  key: PublicJwk;
  open: Record<string, { checkout: string; payment: string }>;
}

const AP2_DIR = 'ap2';
/** Where the published key and open mandates live in a state folder. */
export const PUBLISHED_FILE = path.join(AP2_DIR, 'human.json');
const openFile = (dir: string, mandate: string): string => path.join(dir, AP2_DIR, 'open', `${encodeURIComponent(mandate)}.json`);

function writeAtomic(file: string, text: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const tmp = `${file}.${randomBytes(6).toString('hex')}.tmp`;
  fs.writeFileSync(tmp, text, { mode: 0o600 });
  fs.renameSync(tmp, file);
}

function readJson<T>(file: string): T | undefined {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8')) as T;
  } catch {
    return undefined;
  }
}

/** The open mandates signed for `mandate`, if any. */
export function loadOpenMandates(dir: string, mandate: string): OpenMandates | undefined {
  return readJson<OpenMandates>(openFile(dir, mandate));
}

/** What the state publishes for merchants, if it has a mandate key. */
export function loadPublished(dir: string): Published | undefined {
  return readJson<Published>(path.join(dir, PUBLISHED_FILE));
}

function publish(dir: string, key: PublicJwk, mandate: string, open: OpenMandates | null): void {
  const before = loadPublished(dir);
  const entries = { ...(before && before.key.kid === key.kid ? before.open : {}) };
  if (open) entries[mandate] = { checkout: mandateDigest(open.checkout), payment: mandateDigest(open.payment) };
  else delete entries[mandate];
  writeAtomic(path.join(dir, PUBLISHED_FILE), `${JSON.stringify({ key, open: entries } satisfies Published, null, 2)}\n`);
}

function vcOf(key: MandateKey): SDJwtVcInstance {
  const signer = (data: string): Promise<string> => Promise.resolve(key.sign(data));
  return new SDJwtVcInstance({
    signer,
    signAlg: 'ES256',
    kbSigner: signer,
    kbSignAlg: 'ES256',
    hasher: digest,
    hashAlg: 'sha-256',
    saltGenerator: generateSalt,
  });
}

const seconds = (ms: number): number => Math.floor(ms / 1000);
const cnfOf = (key: PublicJwk): { jwk: Omit<PublicJwk, 'kid' | 'alg' | 'use'> } => {
  const { kty, crv, x, y } = key;
  return { jwk: { kty, crv, x, y } };
};

/**
 * Signs the open mandates of a Holon mandate's terms with the human's key, binding (`cnf`) the agent's key:
 * the agent signs a purchase's closed mandates with its own key, never with the human's.
 */
export async function signOpenMandates(
  key: MandateKey,
  agent: PublicJwk,
  mandate: string,
  terms: OpenTerms,
  now: number,
): Promise<OpenMandates> {
  const vc = vcOf(key);
  const header = { header: { kid: key.publicJwk.kid } };
  const expires = openExpiry(terms, now);
  const times = { iat: seconds(now), exp: seconds(expires) };
  const merchants = terms.merchants?.map((id) => ({ id, name: id }));
  // One requirement per product: a cart holds it at most `quantity` times, and nothing not listed.
  const lineItems = terms.products?.map((p) => ({ id: p.id, acceptable_items: [{ id: p.id, title: p.id }], quantity: p.quantity }));
  const checkout = await vc.issue(
    {
      vct: VCT.openCheckout,
      constraints: [
        ...(merchants ? [{ type: 'checkout.allowed_merchants', allowed: merchants }] : []),
        ...(lineItems ? [{ type: 'checkout.line_items', items: lineItems }] : []),
      ],
      cnf: cnfOf(agent),
      ...times,
    },
    // A disclosure of its own, so that the chain's `~~` never follows a bare JWT (AP2's verifier reads that
    // as a key binding); sd_hash covers it, so no hop can drop it.
    { _sd: ['constraints'] },
    header,
  );
  const payment = await vc.issue(
    {
      vct: VCT.openPayment,
      constraints: [
        { type: 'payment.reference', conditional_transaction_id: sdHash(checkout) },
        ...(merchants ? [{ type: 'payment.allowed_payees', allowed: merchants }] : []),
        ...(terms.cap ? [{ type: 'payment.amount_range', currency: terms.cap.currency, max: terms.cap.amount }] : []),
        // Used for every purchase, as often as the agent buys (ON_DEMAND), and never for more than the budget in all.
        // AP2 pairs a recurrence with an amount range; with no cap of its own, one purchase is capped by the budget.
        ...(terms.budget
          ? [
              ...(terms.cap ? [] : [{ type: 'payment.amount_range', currency: terms.budget.currency, max: terms.budget.amount }]),
              { type: 'payment.agent_recurrence', frequency: 'ON_DEMAND' },
              { type: 'payment.budget', max: majorUnits(terms.budget), currency: terms.budget.currency },
            ]
          : []),
      ],
      cnf: cnfOf(agent),
      ...times,
    },
    { _sd: ['constraints'] },
    header,
  );
  return {
    mandate,
    terms,
    key: key.publicJwk.kid,
    agent: agent.kid,
    checkout,
    payment,
    signed_at: new Date(now).toISOString(),
    expires_at: new Date(expires).toISOString(),
  };
}

/**
 * The human's consent for a Holon mandate they just created or edited, signed again and published: the
 * open mandates of its terms now, or — when it can no longer buy (suspended, revoked, no commerce.buy) —
 * none, so merchants refuse the ones it had. The keys (the human's, and the agent key the mandates bind)
 * are made on first use. Only a human's path calls this, after the mandate was written (the CLI's mandate
 * create and edit, the editor's form): where a passkey guards the state, that write is one it approved.
 */
export async function signMandateConsent(dir: string, m: Mandate, now: number): Promise<OpenMandates | null> {
  const terms = m.status === 'active' ? openTerms(m) : undefined;
  const file = openFile(dir, m.id);
  if (!terms) {
    // Nothing to consent to: what it had is withdrawn; a mandate that never could buy makes no key.
    fs.rmSync(file, { force: true });
    const existing = loadMandateKey(dir);
    if (existing) publish(dir, existing.publicJwk, m.id, null);
    return null;
  }
  const key = mandateKey(dir);
  const open = await signOpenMandates(key, agentKey(dir).publicJwk, m.id, terms, now);
  writeAtomic(file, `${JSON.stringify(open, null, 2)}\n`);
  publish(dir, key.publicJwk, m.id, open);
  return open;
}

/** True when the open mandates were signed for exactly these terms (the mandate was not changed since). */
export function sameTerms(a: OpenTerms, b: OpenTerms): boolean {
  return canonicalize(a) === canonicalize(b);
}

/** The public members of a P-256 JWK, with a kid (its thumbprint when it named none). */
function publicPart(k: Record<string, unknown>): { kty: string; crv: string; x: string; y: string; kid: string } {
  const core = { kty: String(k['kty']), crv: String(k['crv']), x: String(k['x']), y: String(k['y']) };
  return { ...core, kid: typeof k['kid'] === 'string' ? k['kid'] : jwkThumbprint(core) };
}

/** The merchant a payment mandate pays (AP2's merchant object). */
export interface Ap2Merchant {
  id: string;
  name: string;
  website: string;
}

/** AP2's payment instrument: for an x402 payment on a chain, the token and the wallet that pays. */
export interface Ap2Instrument {
  id: string;
  type: string;
  description: string;
}

/** What a purchase's closed mandates are about. */
export interface ClosedRequest {
  checkout: SignedCheckout;
  payee: Ap2Merchant;
  amount: Ap2Amount;
  instrument: Ap2Instrument;
  /** Who the key binding is for: the merchant's origin. */
  audience: string;
  now: number;
}

/** What a purchase's receipt keeps of its mandates: their digests and disclosed claims, never the mandates. */
export interface Ap2Evidence {
  ap2: typeof AP2_VERSION;
  /** The human's key (its thumbprint). */
  key: string;
  /** The agent key that signed the closed mandates (its thumbprint), as the open mandates bind it. */
  agent: string;
  open: { checkout: string; payment: string; terms: OpenTerms; signed_at: string };
  checkout: {
    id: string;
    hash: string;
    /** The merchant-signed checkout (AP2's checkout_jwt): the merchant's own words, signed by it. */
    jwt: string;
    merchant_authorization: string;
    /** The merchant's public key (JWK) that signed it, as its profile published it. */
    merchant_key: { kty: string; crv: string; x: string; y: string; kid: string };
  };
  checkout_mandate: string;
  payment_mandate: {
    digest: string;
    transaction_id: string;
    payee: Ap2Merchant;
    payment_amount: Ap2Amount;
    payment_instrument: Ap2Instrument;
  };
}

/**
 * One closed mandate as the last hop of AP2's delegation chain: a key-bound SD-JWT signed by the agent key
 * the open mandate binds, its one `delegate_payload` item (the mandate) a disclosure, bound to the open
 * mandate by `sd_hash` and to the merchant by `aud` and a nonce; presented as `open~…~~closed~…~`.
 */
function closedHop(agent: MandateKey, open: string, mandate: Claims, kb: { iat: number; aud: string; nonce: string }): string {
  const b64 = (x: unknown): string => Buffer.from(JSON.stringify(x)).toString('base64url');
  const disclosure = b64([randomBytes(16).toString('base64url'), mandate]);
  const header = b64({ alg: 'ES256', typ: CLOSED_TYP, kid: agent.publicJwk.kid });
  const payload = b64({ delegate_payload: [{ '...': hashOf(disclosure) }], _sd_alg: 'sha-256', ...kb, sd_hash: sdHash(open) });
  return `${open.replace(/~$/, '')}${CHAIN_SEPARATOR}${header}.${payload}.${agent.sign(`${header}.${payload}`)}~${disclosure}~`;
}

/**
 * Signs a purchase's closed mandates with the agent key the open mandates bind, each the last hop of a
 * chain from its open mandate (AP2's delegation chain), bound to the merchant and its challenge. The
 * caller is the buy path, after the gate held the purchase.
 */
export function signClosedMandates(
  key: MandateKey,
  open: OpenMandates,
  r: ClosedRequest,
  checkoutId: string,
): Promise<{ presentation: Presentation; evidence: Ap2Evidence }> {
  const iat = seconds(r.now);
  const times = { iat, exp: iat + CLOSED_TTL_S };
  const checkoutHash = hashOf(r.checkout.jwt);
  // The merchant's challenge when it sent one (both mandates answer it); a fresh nonce of Holon's own otherwise.
  const kb = (): { iat: number; aud: string; nonce: string } => ({
    iat,
    aud: r.audience,
    nonce: r.checkout.challenge ?? randomBytes(16).toString('base64url'),
  });
  const payment = {
    vct: VCT.payment,
    transaction_id: checkoutHash,
    payee: r.payee,
    payment_amount: r.amount,
    payment_instrument: r.instrument,
    ...times,
  };
  const presentation: Presentation = {
    checkout_mandate: closedHop(
      key,
      open.checkout,
      { vct: VCT.checkout, checkout_jwt: r.checkout.jwt, checkout_hash: checkoutHash, ...times },
      kb(),
    ),
    payment_mandate: closedHop(key, open.payment, payment, kb()),
    open_checkout_mandate: open.checkout,
    open_payment_mandate: open.payment,
  };
  const evidence: Ap2Evidence = {
    ap2: AP2_VERSION,
    key: open.key,
    agent: key.publicJwk.kid,
    open: { checkout: mandateDigest(open.checkout), payment: mandateDigest(open.payment), terms: open.terms, signed_at: open.signed_at },
    checkout: {
      id: checkoutId,
      hash: checkoutHash,
      jwt: r.checkout.jwt,
      merchant_authorization: r.checkout.authorization,
      merchant_key: publicPart(r.checkout.key),
    },
    checkout_mandate: mandateDigest(presentation.checkout_mandate),
    payment_mandate: {
      digest: mandateDigest(presentation.payment_mandate),
      transaction_id: checkoutHash,
      payee: r.payee,
      payment_amount: r.amount,
      payment_instrument: r.instrument,
    },
  };
  return Promise.resolve({ presentation, evidence });
}

/** What a verified chain says: the open mandate's claims, the closed mandate's, and its hop's (aud, nonce, iat, sd_hash). */
export interface VerifiedChain {
  open: Claims;
  closed: Claims;
  hop: Claims;
}

/**
 * Verifies a two-hop AP2 chain as AP2's reference reads it: the open mandate signed by `root` (its
 * disclosures' digests with it), the closed hop signed by the key the open mandate's `cnf` names, typed
 * `kb+sd-jwt`, its `sd_hash` over the open mandate as presented, its one mandate a disclosure it commits
 * to, with no `cnf` of its own; both unexpired at `at` (ms). Undefined when any of it fails.
 */
export async function verifyChain(chain: string, root: object, at: number): Promise<VerifiedChain | undefined> {
  const parts = chainParts(chain);
  if (!parts) return undefined;
  const now = seconds(at);
  let open: Claims;
  try {
    const vc = new SDJwtVcInstance({ verifier: await ES256.getVerifier(root), hasher: digest, hashAlg: 'sha-256' });
    open = (await vc.verify(parts.open, { currentDate: now })).payload as Claims;
  } catch {
    return undefined;
  }
  const cnf = (open['cnf'] as { jwk?: Record<string, unknown> } | undefined)?.jwk;
  const [jwt = '', disclosure, end, ...more] = parts.closed.split('~');
  if (!cnf || !disclosure || end !== '' || more.length > 0) return undefined;
  let header: Claims;
  try {
    header = JSON.parse(Buffer.from(jwt.split('.')[0] ?? '', 'base64url').toString('utf8')) as Claims;
  } catch {
    return undefined;
  }
  const hop = jwsPayload(jwt, cnf);
  if (!hop || header['typ'] !== CLOSED_TYP || hop['sd_hash'] !== sdHash(parts.open) || hop['_sd_alg'] !== 'sha-256') return undefined;
  const items = hop['delegate_payload'];
  if (!Array.isArray(items) || items.length !== 1 || (items[0] as Claims | undefined)?.['...'] !== hashOf(disclosure)) return undefined;
  let closed: unknown;
  try {
    closed = (JSON.parse(Buffer.from(disclosure, 'base64url').toString('utf8')) as unknown[])[1];
  } catch {
    return undefined;
  }
  if (typeof closed !== 'object' || closed === null || 'cnf' in closed) return undefined;
  const exp = (closed as Claims)['exp'];
  if (typeof exp !== 'number' || exp <= now) return undefined;
  return { open, closed: closed as Claims, hop };
}

/**
 * Where the buy path finds the human's consent: their key (its public part is what merchants trust), the
 * agent key their open mandates bind, and the open mandates they signed for a Holon mandate.
 */
export interface Ap2Consent {
  key(): MandateKey | undefined;
  agent(): MandateKey | undefined;
  open(mandate: string): OpenMandates | undefined;
}

/** The consent kept in a state folder (the key files, the signed open mandates), read when a purchase needs it. */
export function stateConsent(dir: string): Ap2Consent {
  return { key: () => loadMandateKey(dir), agent: () => loadAgentKey(dir), open: (mandate) => loadOpenMandates(dir, mandate) };
}

/**
 * The agent key and the human's open mandates for a purchase at an AP2 merchant, or a `denied` error saying what the
 * human must do: sign them (create or edit the mandate), or sign them again when the mandate changed
 * since. A cap in another currency than the merchant's cannot be checked by the merchant, so it is
 * refused here, before anything is held.
 */
export function consentFor(
  consent: Ap2Consent | undefined,
  m: Mandate,
  currency: string,
  now: number,
): { key: MandateKey; open: OpenMandates } {
  const refuse = (why: string): HolonError =>
    new HolonError('denied', `${why}; the merchant requires AP2 mandates, and Holon never completes its checkout without them`, {
      mandate: m.id,
    });
  const human = consent?.key();
  const key = consent?.agent();
  const open = consent?.open(m.id);
  const terms = openTerms(m);
  if (!human || !key || !open || !terms)
    throw refuse(`the human has not signed this mandate's open AP2 mandate (holon mandate edit ${m.id}, or the mandate form, signs it)`);
  // Signed before the agent had a key of its own (or with other keys): it binds no key the agent holds.
  if (open.key !== human.publicJwk.kid || open.agent !== key.publicJwk.kid || !sameTerms(open.terms, terms))
    throw refuse(`the open AP2 mandate was signed for other terms than the mandate's now; the human signs it again by editing ${m.id}`);
  // Signed without an expiry of the mandate's own, it lapsed: the merchant would refuse it, so nothing is held.
  if (open.expires_at && Date.parse(open.expires_at) <= now)
    throw refuse(`the open AP2 mandate expired at ${open.expires_at}; the human signs it again by editing ${m.id}`);
  const limit = terms.cap ?? terms.budget;
  if (limit && limit.currency !== currency)
    throw refuse(`the mandate's cap is in ${limit.currency} and the merchant prices in ${currency}: a merchant cannot check it`);
  return { key, open };
}
