/**
 * Holon's closed AP2 mandates read as AP2's own verifier reads a delegation chain (the reference SDK's
 * `MandateClient.verify` and its merchant sample, AP2 commit e1ea56db72a6385bce3e5c1112b3a56ce60acb43),
 * with the rules written out here from that description, on node:crypto alone: nothing of Holon's
 * verification is used. Then the negative controls: each changed token must fail the same rules.
 */
import assert from 'node:assert/strict';
import { createHash, createPublicKey, verify } from 'node:crypto';
import { test } from 'node:test';
import { signClosedMandates, signOpenMandates } from '../../src/core/commerce/ap2.ts';
import type { MandateKey } from '../../src/core/local/mandateKey.ts';
import { mandateKeyOf, newMandateJwk } from '../../src/core/local/mandateKey.ts';

type Claims = Record<string, unknown>;
const sha = (s: string): string => createHash('sha256').update(s, 'ascii').digest('base64url');
const json = (b64: string): unknown => JSON.parse(Buffer.from(b64, 'base64url').toString('utf8'));

/** An ES256 compact JWS's payload when it verifies with `jwk`; it throws otherwise. */
function jws(jwt: string, jwk: Claims): { header: Claims; payload: Claims } {
  const [h = '', p = '', s = ''] = jwt.split('.');
  const key = createPublicKey({ key: { kty: jwk['kty'], crv: jwk['crv'], x: jwk['x'], y: jwk['y'] } as never, format: 'jwk' });
  if (!verify('sha256', Buffer.from(`${h}.${p}`), { key, dsaEncoding: 'ieee-p1363' }, Buffer.from(s, 'base64url')))
    throw new Error('signature');
  return { header: json(h) as Claims, payload: json(p) as Claims };
}

/** RFC 9901: the payload with every disclosure placed where its digest is, each disclosure used once, none left over. */
function resolve(payload: Claims, disclosures: string[]): Claims {
  const byDigest = new Map(disclosures.map((d) => [sha(d), d]));
  const walk = (x: unknown): unknown => {
    if (Array.isArray(x))
      return x.map((e: unknown) => {
        const ref = (e as Claims | null)?.['...'];
        if (typeof ref !== 'string') return walk(e);
        const d = byDigest.get(ref);
        if (!d) throw new Error('an array disclosure is missing');
        byDigest.delete(ref);
        return walk((json(d) as unknown[])[1]);
      });
    if (typeof x !== 'object' || x === null) return x;
    const out: Claims = {};
    for (const [k, v] of Object.entries(x as Claims)) if (k !== '_sd' && k !== '_sd_alg') out[k] = walk(v);
    for (const ref of ((x as Claims)['_sd'] as string[] | undefined) ?? []) {
      const d = byDigest.get(ref);
      if (!d) continue;
      byDigest.delete(ref);
      const [, name, value] = json(d) as [string, string, unknown];
      out[name] = walk(value);
    }
    return out;
  };
  const resolved = walk(payload) as Claims;
  if (byDigest.size > 0) throw new Error('a disclosure the JWT does not commit to');
  return resolved;
}

/**
 * AP2's chain rules: `open~…~~closed~…~`; the open SD-JWT signed by the human's key; the closed hop signed
 * by the open's cnf key, typed kb+sd-jwt, with iat, aud, nonce and sd_hash over the open as presented
 * (`issuerJWT~disclosures~`); its delegate_payload one disclosed mandate with no cnf. The two payloads.
 */
function verifyChain(token: string, human: Claims, aud: string): { open: Claims; closed: Claims } {
  const segments = token.split('~~');
  if (segments.length !== 2) throw new Error('not a two-hop chain');
  const open = `${segments[0] ?? ''}~`;
  const [openJwt = '', ...openRest] = open.split('~');
  const o = jws(openJwt, human);
  const openClaims = resolve(o.payload, openRest.slice(0, -1));
  const cnf = (openClaims['cnf'] as { jwk?: Claims } | undefined)?.jwk;
  if (!cnf) throw new Error('the open mandate binds no key');
  const [closedJwt = '', ...closedRest] = (segments[1] ?? '').split('~');
  if (closedRest.at(-1) !== '') throw new Error('a trailing KB-JWT');
  const c = jws(closedJwt, cnf);
  if (c.header['typ'] !== 'kb+sd-jwt') throw new Error('typ');
  if (c.payload['sd_hash'] !== sha(open)) throw new Error('sd_hash');
  if (typeof c.payload['iat'] !== 'number' || c.payload['aud'] !== aud || typeof c.payload['nonce'] !== 'string') throw new Error('binding');
  const items = resolve(c.payload, closedRest.slice(0, -1))['delegate_payload'];
  if (!Array.isArray(items) || items.length !== 1) throw new Error('delegate_payload');
  const closed = items[0] as Claims;
  if ('cnf' in closed) throw new Error('a terminal hop with cnf');
  return { open: openClaims, closed };
}

const AUD = 'http://127.0.0.1:8080';
const checkoutJwt = 'eyJhbGciOiJFUzI1NiJ9.eyJpZCI6ImNoa18xIn0.c2ln';

async function signed(human: MandateKey, agent: MandateKey, signer: MandateKey = agent) {
  const now = Date.now();
  const open = await signOpenMandates(human, agent.publicJwk, 'demo/shopper', { merchants: ['hardware'], cap: { amount: 3000, currency: 'USD' }, expires_at: null }, now);
  const { presentation } = await signClosedMandates(
    signer,
    open,
    {
      checkout: { authorization: 'h..s', jwt: checkoutJwt, key: { kid: 'business-1', kty: 'EC', crv: 'P-256', x: 'x', y: 'y' } },
      payee: { id: 'hardware', name: 'hardware', website: AUD },
      amount: { amount: 108, currency: 'USD' },
      instrument: { id: 'eip155:31337:0xToken:0xPayer', type: 'org.x402.exact', description: 'USDC' },
      audience: AUD,
      now,
    },
    'chk_1',
  );
  return { open, presentation };
}

test("Holon's closed mandates are AP2 chains: the agent key the open mandate binds, sd_hash over it, payment.reference over issuerJWT~", async () => {
  const human = mandateKeyOf(newMandateJwk());
  const agent = mandateKeyOf(newMandateJwk());
  const { open, presentation } = await signed(human, agent);
  const checkout = verifyChain(presentation.checkout_mandate, human.publicJwk as never, AUD);
  const payment = verifyChain(presentation.payment_mandate, human.publicJwk as never, AUD);
  assert.equal(checkout.closed['vct'], 'mandate.checkout.1');
  assert.equal(checkout.closed['checkout_hash'], sha(checkoutJwt));
  assert.equal(payment.closed['transaction_id'], sha(checkoutJwt));
  assert.deepEqual(payment.closed['payment_amount'], { amount: 108, currency: 'USD' });
  // The open mandates bind the agent's key, not the human's.
  assert.equal((checkout.open['cnf'] as { jwk: { x: string } }).jwk.x, agent.publicJwk.x);
  assert.notEqual(agent.publicJwk.x, human.publicJwk.x);
  // payment.reference: the open checkout mandate's sd_hash, as presented in the checkout chain.
  const reference = (payment.open['constraints'] as Claims[]).find((c) => c['type'] === 'payment.reference');
  assert.equal(reference?.['conditional_transaction_id'], sha(`${presentation.checkout_mandate.split('~~')[0] ?? ''}~`));
  assert.equal(reference?.['conditional_transaction_id'], sha(open.checkout));
});

test('the negative controls fail the same rules', async () => {
  const human = mandateKeyOf(newMandateJwk());
  const agent = mandateKeyOf(newMandateJwk());
  const { presentation } = await signed(human, agent);
  const token = presentation.payment_mandate;
  const ok = (t: string): boolean => {
    try {
      verifyChain(t, human.publicJwk as never, AUD);
      return true;
    } catch {
      return false;
    }
  };
  assert.ok(ok(token));
  // A changed amount: the closed mandate's disclosure edited (109 for 108 cents).
  const [open = '', closed = ''] = token.split('~~');
  const [jwt = '', disclosure = ''] = closed.split('~');
  const edited = Buffer.from(Buffer.from(disclosure, 'base64url').toString('utf8').replace('"amount":108', '"amount":109')).toString('base64url');
  assert.notEqual(edited, disclosure);
  assert.equal(ok(`${open}~~${jwt}~${edited}~`), false, 'a changed amount');
  // An open mandate's disclosure dropped (its constraints): the closed hop's sd_hash no longer matches.
  assert.equal(ok(`${open.split('~')[0] ?? ''}~~${closed}`), false, 'a dropped disclosure');
  // An open disclosure edited: its digest is not in the issuer JWT.
  const openDisclosure = open.split('~')[1] ?? '';
  const widened = Buffer.from(Buffer.from(openDisclosure, 'base64url').toString('utf8').replace('3000', '300000')).toString('base64url');
  assert.equal(ok(`${open.split('~')[0] ?? ''}~${widened}~~${closed}`), false, 'an edited disclosure');
  // A closed mandate signed by another key than the one the open mandate binds (the human's own, too).
  assert.equal(ok((await signed(human, agent, mandateKeyOf(newMandateJwk()))).presentation.payment_mandate), false, 'another key');
  assert.equal(ok((await signed(human, agent, human)).presentation.payment_mandate), false, "the human's key");
  // A wrong sd_hash: the payment's closed hop presented after the checkout's open mandate.
  assert.equal(ok(`${presentation.checkout_mandate.split('~~')[0] ?? ''}~~${closed}`), false, 'a wrong sd_hash');
});
