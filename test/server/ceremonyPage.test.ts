/**
 * The ceremony page on loopback, with a real browser and a real authenticator: Chromium's virtual one,
 * through CDP. What the page hands back is judged by an outside verifier (SimpleWebAuthn's server), not
 * by Holon's own check. The refusals are asked of the server directly, as any local process could.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createPrivateKey, createPublicKey, generateKeyPairSync } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { verifyAuthenticationResponse } from '@simplewebauthn/server';
import { isoCBOR } from '@simplewebauthn/server/helpers';
import type { Answer, Ceremony } from '../../src/core/ceremony/page.ts';
import { openCeremony } from '../../src/core/ceremony/page.ts';
import { base64url, challengeOf } from '../../src/core/passkey/challenge.ts';
import type { AssertionJson, PasskeyCredential } from '../../src/core/passkey/types.ts';
import type { CeremonyJson } from '../../src/shared/ceremony.ts';
import type { PasskeyBrowser, VirtualCredential } from '../helpers/passkeyBrowser.ts';
import { noChromium, openPasskeyBrowser } from '../helpers/passkeyBrowser.ts';

const ROOT = path.join(__dirname, '..', '..');

before(() => {
  if (!fs.existsSync(path.join(ROOT, 'dist', 'webview', 'passkey.js')))
    execFileSync(process.execPath, ['esbuild.mjs'], { cwd: ROOT, stdio: 'inherit' });
});

/** Resolves to `'pending'` when `answer` has not settled yet (a settled promise wins the race). */
const stillPending = (answer: Promise<Answer>): Promise<Answer | 'pending'> => Promise.race([answer, Promise.resolve('pending' as const)]);

/** A request to the page's server with any Host header and body, as a local process (or a rebinding page) could send. */
function request(
  url: string,
  opts: { method?: string; host?: string; body?: string; contentType?: string } = {},
): Promise<{ status: number; json: unknown }> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port: u.port,
        path: u.pathname,
        method: opts.method ?? (opts.body === undefined ? 'GET' : 'POST'),
        headers: { host: opts.host ?? u.host, 'content-type': opts.contentType ?? 'application/json' },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let json: unknown = text;
          try {
            json = JSON.parse(text);
          } catch {
            // the page itself, or a script: kept as text
          }
          resolve({ status: res.statusCode ?? 0, json });
        });
      },
    );
    req.on('error', reject);
    req.end(opts.body);
  });
}

const codeOf = (json: unknown): unknown => (json as { error?: { code?: unknown } }).error?.code;

/** The COSE form of a credential's key, which SimpleWebAuthn's verifier takes. */
function coseOf(credential: PasskeyCredential): Uint8Array<ArrayBuffer> {
  const map = new Map<number, number | Uint8Array>([
    [1, 2],
    [3, -7],
    [-1, 1],
    [-2, Buffer.from(credential.x, 'base64url')],
    [-3, Buffer.from(credential.y, 'base64url')],
  ]);
  return new Uint8Array(isoCBOR.encode(map));
}

/** Whether SimpleWebAuthn, the outside judge, accepts `assertion` by `credential` over `challenge` from `url`'s origin. */
async function judged(assertion: AssertionJson, credential: PasskeyCredential, challenge: Uint8Array, url: string): Promise<boolean> {
  const result = await verifyAuthenticationResponse({
    response: {
      id: assertion.credential,
      rawId: assertion.credential,
      type: 'public-key',
      clientExtensionResults: {},
      response: {
        authenticatorData: assertion.authenticator_data,
        clientDataJSON: assertion.client_data_json,
        signature: assertion.signature,
      },
    },
    expectedChallenge: base64url(challenge),
    expectedOrigin: new URL(url).origin,
    expectedRPID: 'localhost',
    credential: { id: credential.id, publicKey: coseOf(credential), counter: 0 },
    requireUserVerification: true,
  }).catch(() => ({ verified: false }));
  return result.verified;
}

const register = (subject: (c: PasskeyCredential) => unknown = (c) => ({ passkey: c.id })): Ceremony => ({
  kind: 'register',
  title: 'Register your passkey',
  lines: ['Holon on this machine will ask this passkey for every decision.'],
  user: 'Holon on test',
  subject,
});

const decide = (
  credentials: PasskeyCredential[],
  challenge: Extract<Ceremony, { kind: 'decide' }>['challenge'],
  lines: string[] = ['Pay 3.10 EUR to acme/extract'],
): Ceremony => ({
  kind: 'decide',
  title: 'Approve a payment',
  lines,
  challenge,
  credentials,
  choices: ['approve', 'reject'],
});

const SOME_KEY: PasskeyCredential = {
  id: 'AAAA',
  x: Buffer.alloc(32, 1).toString('base64url'),
  y: Buffer.alloc(32, 2).toString('base64url'),
};

describe('the ceremony page, with Chromium and its virtual authenticator', { skip: noChromium }, () => {
  let browser: PasskeyBrowser;
  let virtual: VirtualCredential;
  let registered: Answer & { kind: 'registered' };
  let registerUrl: string;
  const subjects: PasskeyCredential[] = [];

  before(async () => {
    browser = await openPasskeyBrowser();
    const page = await openCeremony(
      register((c) => {
        subjects.push(c);
        return { passkey: c.id, purpose: 'register' };
      }),
    );
    registerUrl = page.url;
    try {
      virtual = await browser.registerAt(page.url);
      const answer = await page.answer;
      assert.equal(answer.kind, 'registered');
      registered = answer as typeof registered;
    } finally {
      page.close();
    }
  });
  after(async () => {
    await browser?.close();
  });

  test('registering gives the authenticator’s own key, and its self-assertion over the subject passes an outside verifier', async () => {
    const { credential, assertion } = registered;
    assert.equal(credential.id, Buffer.from(virtual.credentialId, 'base64').toString('base64url'));
    const jwk = createPublicKey(createPrivateKey({ key: Buffer.from(virtual.privateKey, 'base64'), format: 'der', type: 'pkcs8' })).export({
      format: 'jwk',
    });
    assert.deepEqual({ x: credential.x, y: credential.y }, { x: jwk.x, y: jwk.y });
    assert.deepEqual(subjects, [credential], 'the subject is asked of exactly the key created');
    const subject = challengeOf({ passkey: credential.id, purpose: 'register' });
    assert.equal(await judged(assertion, credential, subject, registerUrl), true);
    assert.equal(await judged(assertion, credential, challengeOf({ passkey: credential.id, purpose: 'other' }), registerUrl), false);
  });

  test('a decision made on the page is an assertion over exactly the given challenge', async () => {
    const challenge = challengeOf({ pay: '3.10', currency: 'EUR', payee: 'acme/extract' });
    const page = await openCeremony(decide([registered.credential], challenge));
    try {
      const outcome = await browser.decideAt(page.url, virtual, 'approve');
      assert.deepEqual(outcome, { state: 'done', status: 'Done — you can close this tab.' });
      const answer = await page.answer;
      assert.equal(answer.kind, 'decided');
      if (answer.kind !== 'decided') return;
      assert.equal(answer.choice, 'approve');
      assert.equal(await judged(answer.assertion, registered.credential, challenge, page.url), true);
      assert.equal(
        await judged(
          answer.assertion,
          registered.credential,
          challengeOf({ pay: '310', currency: 'EUR', payee: 'acme/extract' }),
          page.url,
        ),
        false,
      );

      // Answered once: the same answer again is refused, and the page is no longer served.
      const again = JSON.stringify({
        choice: 'approve',
        assertion: {
          id: answer.assertion.credential,
          response: {
            authenticatorData: answer.assertion.authenticator_data,
            clientDataJSON: answer.assertion.client_data_json,
            signature: answer.assertion.signature,
          },
        },
      });
      const second = await request(`${page.url}answer`, { body: again });
      assert.equal(second.status, 410);
      assert.equal(codeOf(second.json), 'over');
      assert.equal((await request(page.url)).status, 410);
    } finally {
      page.close();
    }
  });

  test('when the choice is signed, rejecting signs another challenge than approving', async () => {
    const of = (choice: string): Uint8Array => challengeOf({ approval: 'ap_1', decision: choice });
    const page = await openCeremony(decide([registered.credential], of));
    try {
      assert.equal((await browser.decideAt(page.url, virtual, 'reject')).state, 'done');
      const answer = await page.answer;
      assert.equal(answer.kind === 'decided' && answer.choice, 'reject');
      if (answer.kind !== 'decided') return;
      assert.equal(await judged(answer.assertion, registered.credential, of('reject'), page.url), true);
      assert.equal(await judged(answer.assertion, registered.credential, of('approve'), page.url), false);
    } finally {
      page.close();
    }
  });

  test('a passkey that may not decide is refused by the browser, and the page says so', async () => {
    const page = await openCeremony(decide([SOME_KEY], challengeOf({ pay: '1' })));
    try {
      const outcome = await browser.decideAt(page.url, virtual, 'approve');
      assert.equal(outcome.state, 'error');
      assert.match(outcome.status, /NotAllowedError|not used/);
      assert.equal(await stillPending(page.answer), 'pending');
    } finally {
      page.close();
    }
  });

  test('the lines are shown as text: markup in them is never run', async () => {
    const hostile = '<img src=x onerror="document.title=\'pwned\'"> pays <b>0.01</b> EUR & more';
    const page = await openCeremony(decide([registered.credential], challengeOf({ x: 1 }), ['Agent:', hostile]));
    const view = await browser.open(page.url);
    try {
      assert.deepEqual(await view.locator('#lines li').allTextContents(), ['Agent:', hostile]);
      assert.equal(await view.locator('img, b').count(), 0);
      assert.equal(await view.title(), 'Holon — Approve a payment');
      // The buttons come alive only when the script ran (served under the page's strict CSP).
      await view.locator('button[data-choice="approve"]:enabled').waitFor();
    } finally {
      await view.close();
      page.close();
    }
  });
});

describe('the ceremony server refuses what is not its page', () => {
  test('registration offers ES256 only, with user verification and a resident key', async () => {
    const page = await openCeremony(register());
    try {
      const { status, json } = await request(`${page.url}ceremony`);
      assert.equal(status, 200);
      const body = json as CeremonyJson;
      assert.equal(body.kind, 'register');
      if (body.kind !== 'register') return;
      assert.deepEqual(body.options.pubKeyCredParams, [{ type: 'public-key', alg: -7 }]);
      assert.deepEqual(body.options.rp, { id: 'localhost', name: 'Holon' });
      assert.equal(body.options.authenticatorSelection.residentKey, 'required');
      assert.equal(body.options.authenticatorSelection.userVerification, 'required');
      assert.equal(body.options.attestation, 'none');
      assert.equal(Buffer.from(body.options.challenge, 'base64url').length, 32);
    } finally {
      page.close();
    }
  });

  test('a decision offers the given challenge, to the given passkeys, with user verification', async () => {
    const challenge = challengeOf({ pay: '2' });
    const page = await openCeremony(decide([SOME_KEY], challenge));
    try {
      const body = (await request(`${page.url}ceremony`)).json as CeremonyJson;
      assert.equal(body.kind, 'decide');
      if (body.kind !== 'decide') return;
      assert.deepEqual(
        body.choices.map((c) => [c.choice, c.options.challenge, c.options.rpId, c.options.allowCredentials, c.options.userVerification]),
        ['approve', 'reject'].map((choice) => [
          choice,
          base64url(challenge),
          'localhost',
          [{ type: 'public-key', id: 'AAAA' }],
          'required',
        ]),
      );
    } finally {
      page.close();
    }
  });

  test('a Host that is not loopback (DNS rebinding) is refused; another token, or another path, is not found', async () => {
    const page = await openCeremony(register());
    try {
      const url = new URL(page.url);
      assert.equal((await request(page.url)).status, 200);
      assert.equal((await request(page.url.replace('localhost', '127.0.0.1'))).status, 200);
      const rebound = await request(page.url, { host: `evil.example:${url.port}` });
      assert.equal(rebound.status, 403);
      assert.equal(codeOf(rebound.json), 'wrong_host');
      assert.equal((await request(page.url, { host: 'localhost.evil.example' })).status, 403);
      assert.equal((await request(page.url, { host: `127.0.0.1.nip.io:${url.port}` })).status, 403);
      // code-server forwards its /proxy/PORT/ path here with the workbench's own Host: still loopback, so served.
      assert.equal((await request(page.url, { host: 'localhost:8080' })).status, 200);
      const token = url.pathname.split('/')[2] ?? '';
      const other = `${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`;
      assert.equal((await request(`${url.origin}/c/${other}/`)).status, 404);
      assert.equal((await request(`${url.origin}/c/${other}/ceremony`)).status, 404);
      assert.equal((await request(`${url.origin}/`)).status, 404);
      assert.equal((await request(`${page.url}nothing`)).status, 404);
      assert.equal(await stillPending(page.answer), 'pending');
    } finally {
      page.close();
    }
  });

  test('a malformed or wrong answer is refused with a reason and changes nothing', async () => {
    const challenge = challengeOf({ pay: '3' });
    const page = await openCeremony(decide([SOME_KEY], challenge));
    try {
      const post = (body: string, contentType?: string): Promise<{ status: number; json: unknown }> =>
        request(`${page.url}answer`, { body, ...(contentType ? { contentType } : {}) });
      const clientData = (c: object): string => Buffer.from(JSON.stringify(c)).toString('base64url');
      const assertion = (over: Partial<{ id: string; clientDataJSON: string }> = {}): object => ({
        id: over.id ?? 'AAAA',
        response: {
          authenticatorData: Buffer.alloc(37).toString('base64url'),
          clientDataJSON:
            over.clientDataJSON ?? clientData({ type: 'webauthn.get', challenge: base64url(challenge), origin: 'http://localhost' }),
          signature: 'MEUCIQ',
        },
      });
      const cases: [string, { status: number; json: unknown }, number, string][] = [
        ['not JSON', await post('{"choice":'), 400, 'malformed'],
        ['not JSON by its type', await post('{}', 'text/plain'), 415, 'content_type'],
        ['too large', await post(JSON.stringify({ pad: 'x'.repeat(70_000) })), 413, 'too_large'],
        ['no assertion', await post(JSON.stringify({ choice: 'approve' })), 400, 'invalid'],
        ['a choice not offered', await post(JSON.stringify({ choice: 'confirm', assertion: assertion() })), 400, 'invalid'],
        ['another passkey', await post(JSON.stringify({ choice: 'approve', assertion: assertion({ id: 'BBBB' }) })), 400, 'invalid'],
        [
          'a registration’s client data',
          await post(
            JSON.stringify({
              choice: 'approve',
              assertion: assertion({ clientDataJSON: clientData({ type: 'webauthn.create', challenge: base64url(challenge) }) }),
            }),
          ),
          400,
          'invalid',
        ],
        [
          'a stale challenge',
          await post(
            JSON.stringify({
              choice: 'approve',
              assertion: assertion({
                clientDataJSON: clientData({ type: 'webauthn.get', challenge: base64url(challengeOf({ pay: '4' })) }),
              }),
            }),
          ),
          409,
          'stale',
        ],
        ['not for localhost, nor user-verified', await post(JSON.stringify({ choice: 'approve', assertion: assertion() })), 400, 'invalid'],
        ['a GET of a POST route', await request(`${page.url}answer`), 405, 'method'],
      ];
      for (const [what, reply, status, code] of cases) {
        assert.equal(reply.status, status, what);
        assert.equal(codeOf(reply.json), code, what);
        assert.equal(typeof (reply.json as { error: { message: unknown } }).error.message, 'string', what);
      }
      assert.equal(await stillPending(page.answer), 'pending');
      assert.equal((await request(`${page.url}ceremony`)).status, 200, 'the page is still served');
    } finally {
      page.close();
    }
  });

  test('a registration of a key that is not ES256, or a registration’s answer before its key, is refused', async () => {
    const page = await openCeremony(register());
    try {
      const spki = generateKeyPairSync('ed25519').publicKey.export({ format: 'der', type: 'spki' }).toString('base64url');
      const made = (alg: number): string =>
        JSON.stringify({ id: 'AAAA', type: 'public-key', response: { publicKeyAlgorithm: alg, publicKey: spki, clientDataJSON: 'e30' } });
      const wrongAlg = await request(`${page.url}registered`, { body: made(-8) });
      assert.equal(wrongAlg.status, 400);
      assert.equal(codeOf(wrongAlg.json), 'algorithm');
      // An Ed25519 key that claims to be ES256 is read for what it is.
      assert.equal(codeOf((await request(`${page.url}registered`, { body: made(-7) })).json), 'invalid');
      const early = await request(`${page.url}answer`, {
        body: JSON.stringify({ assertion: { id: 'AAAA', response: { authenticatorData: 'AA', clientDataJSON: 'e30', signature: 'AA' } } }),
      });
      assert.equal(early.status, 409);
      assert.equal(codeOf(early.json), 'not_registered');
      assert.equal(await stillPending(page.answer), 'pending');
    } finally {
      page.close();
    }
  });

  test('closing, or aborting, cancels the ceremony and stops serving it', async () => {
    const page = await openCeremony(register());
    page.close();
    assert.deepEqual(await page.answer, { kind: 'cancelled' });
    await assert.rejects(request(page.url));

    const controller = new AbortController();
    const aborted = await openCeremony(register(), { signal: controller.signal });
    controller.abort();
    assert.deepEqual(await aborted.answer, { kind: 'cancelled' });
    await assert.rejects(request(aborted.url));
  });

  test('a ceremony that could not be answered safely is refused before it is served', async () => {
    await assert.rejects(openCeremony({ ...decide([], challengeOf({})) }), { name: 'HolonError', reason: 'invalid_input' });
    await assert.rejects(openCeremony({ ...decide([SOME_KEY], new Uint8Array(4)) }), { reason: 'invalid_input' });
    await assert.rejects(
      openCeremony({ kind: 'decide', title: 't', lines: [], challenge: challengeOf({}), credentials: [SOME_KEY], choices: [] }),
      {
        reason: 'invalid_input',
      },
    );
  });
});
