/**
 * The page on which the human uses their passkey. A VS Code webview cannot call WebAuthn, so the process
 * that needs a decision serves one page on loopback for the system browser, and waits for its answer.
 *
 * One server per ceremony, on 127.0.0.1 with a port the system picks, under a path nobody can guess. Every
 * URL the page uses is relative: code-server serves a forwarded port under `/proxy/PORT/`. The server
 * checks what the browser sends only for shape and for the challenge; whoever keeps the answer verifies
 * the signature.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type {
  CeremonyChoice,
  CeremonyErrorJson,
  CeremonyJson,
  CreationOptionsJson,
  RegisteredJson,
  RequestOptionsJson,
} from '../../shared/ceremony.ts';
import { CEREMONY_ROUTES } from '../../shared/ceremony.ts';
import { HolonError } from '../kernel/errors.ts';
import { base64url, challengeOf } from '../passkey/challenge.ts';
import type { AssertionJson, PasskeyCredential } from '../passkey/types.ts';
import { credentialOfSpki } from '../passkey/credential.ts';
import { RP_ID } from '../passkey/types.ts';

export type { CeremonyChoice } from '../../shared/ceremony.ts';

/** What the human is asked to do on the page. */
export type Ceremony =
  | {
      kind: 'register';
      title: string;
      lines: string[];
      /** Who the passkey is for, as the authenticator lists it (e.g. "Holon on <host>"). */
      user: string;
      /** What the new key then signs, to prove it holds the private key it registered. */
      subject: (credential: PasskeyCredential) => unknown;
    }
  | {
      kind: 'decide';
      title: string;
      lines: string[];
      /**
       * What the assertion signs. A function of the choice when the choice itself must be signed: then
       * approving and rejecting sign different challenges, and one can never be passed off as the other.
       */
      challenge: Uint8Array | ((choice: CeremonyChoice) => Uint8Array);
      /** The passkeys that may decide. */
      credentials: PasskeyCredential[];
      choices: CeremonyChoice[];
    };

/** How a ceremony ended. */
export type Answer =
  | { kind: 'registered'; credential: PasskeyCredential; assertion: AssertionJson }
  | { kind: 'decided'; choice: CeremonyChoice; assertion: AssertionJson }
  | { kind: 'cancelled' };

/** An open ceremony: the URL to show the human, the answer to wait for, and how to stop serving it. */
export interface OpenCeremony {
  /** `http://localhost:PORT/c/<token>/`. */
  url: string;
  /** Resolves once: with the first valid answer, or `cancelled` when closed or aborted before one. */
  answer: Promise<Answer>;
  close(): void;
}

const CHOICES: readonly CeremonyChoice[] = ['approve', 'reject', 'confirm'];
const MAX_BODY = 64 * 1024;
/** How long the browser lets the human take, per step. */
const TIMEOUT_MS = 5 * 60 * 1000;
const ES256 = -7;
const RP_ID_HASH = createHash('sha256').update(RP_ID).digest();
/** User present and user verified: the flags every Holon assertion must carry. */
const UP_UV = 0x05;
const BASE64URL = /^[A-Za-z0-9_-]+$/;
/**
 * The names this page answers to. Another name that resolves to 127.0.0.1 (DNS rebinding) would make the
 * page another site's origin, so only these. Any port: code-server forwards `/proxy/PORT/` to the page
 * with the workbench's own Host header (`localhost:<its port>`).
 */
const LOOPBACK_HOST = /^(localhost|127\.0\.0\.1)(:\d{1,5})?$/i;

/**
 * One ceremony apart from its serving: its challenges, the key a registration made, and the checks of what
 * the page posts. `finish` ends it with its one answer.
 */
class Session {
  readonly createChallenge = randomBytes(32).toString('base64url');
  readonly userHandle = randomBytes(16).toString('base64url');
  /** Register: the key create() made, and the challenge of its self-assertion, until that assertion arrives. */
  private made: { credential: PasskeyCredential; challenge: string } | undefined;

  constructor(
    readonly ceremony: Ceremony,
    private readonly finish: (answer: Answer) => void,
  ) {}

  challengeFor(choice: CeremonyChoice): string {
    const c = this.ceremony;
    return c.kind === 'decide' ? base64url(typeof c.challenge === 'function' ? c.challenge(choice) : c.challenge) : '';
  }

  pageJson(): CeremonyJson {
    const c = this.ceremony;
    return c.kind === 'register'
      ? { kind: 'register', title: c.title, lines: c.lines, options: creationOptions(c.user, this.userHandle, this.createChallenge) }
      : {
          kind: 'decide',
          title: c.title,
          lines: c.lines,
          choices: c.choices.map((choice) => ({ choice, options: requestOptions(this.challengeFor(choice), c.credentials) })),
        };
  }

  /** `POST ./registered`: the key create() made. Its public key must be ES256; it then signs the subject. */
  registered(body: unknown): Reply {
    if (this.ceremony.kind !== 'register') return notFound();
    const response = field(body, 'response');
    const id = field(body, 'id');
    if (typeof id !== 'string' || !BASE64URL.test(id) || id.length > 1023) return invalid('the credential id is not base64url');
    if (field(response, 'publicKeyAlgorithm') !== ES256)
      return [400, problem('algorithm', 'Only ES256 (P-256) passkeys can be used: this one uses another algorithm.')];
    const spki = field(response, 'publicKey');
    let credential: PasskeyCredential;
    try {
      credential = credentialOfSpki(id, typeof spki === 'string' ? spki : '');
    } catch {
      return invalid('the public key is not a P-256 key in SPKI form');
    }
    const stale = clientDataProblem(field(response, 'clientDataJSON'), 'webauthn.create', this.createChallenge);
    if (stale) return stale;
    this.made = { credential, challenge: base64url(challengeOf(this.ceremony.subject(credential))) };
    const reply: RegisteredJson = { options: requestOptions(this.made.challenge, [credential]) };
    return [200, reply];
  }

  /** `POST ./answer`: the assertion that ends the ceremony, once. */
  answered(body: unknown): Reply {
    const c = this.ceremony;
    const parsed = assertionOf(field(body, 'assertion'));
    if (typeof parsed === 'string') return invalid(parsed);
    if (c.kind === 'register') {
      const made = this.made;
      if (!made) return [409, problem('not_registered', 'Create the passkey first.')];
      if (parsed.credential !== made.credential.id) return invalid('the assertion is not by the passkey just created');
      const stale =
        clientDataProblem(parsed.client_data_json, 'webauthn.get', made.challenge) ?? authenticatorProblem(parsed.authenticator_data);
      if (stale) return stale;
      this.finish({ kind: 'registered', credential: made.credential, assertion: parsed });
      return [200, { done: true }];
    }
    const choice = field(body, 'choice');
    if (!c.choices.some((x) => x === choice)) return invalid(`the choice must be one of ${c.choices.join(', ')}`);
    const chosen = choice as CeremonyChoice;
    if (!c.credentials.some((x) => x.id === parsed.credential)) return invalid('the assertion is not by a passkey that may decide this');
    const stale =
      clientDataProblem(parsed.client_data_json, 'webauthn.get', this.challengeFor(chosen)) ??
      authenticatorProblem(parsed.authenticator_data);
    if (stale) return stale;
    this.finish({ kind: 'decided', choice: chosen, assertion: parsed });
    return [200, { done: true }];
  }
}

/** Answers one request to the ceremony's server; `over` says whether it still takes any. */
async function respond(
  req: http.IncomingMessage,
  res: http.ServerResponse,
  at: { token: string; nonce: string; script: string; session: Session; over: () => boolean },
): Promise<void> {
  if (!LOOPBACK_HOST.test(req.headers.host ?? '')) return send(res, 403, problem('wrong_host', 'This page is served to localhost only.'));
  const route = routeOf(req.url ?? '', at.token);
  if (route === undefined) return send(res, ...notFound());
  if (route === null) return redirect(res, `${at.token}/`);
  if (at.over()) return send(res, 410, problem('over', 'This ceremony is over: it was answered or closed. You can close this tab.'));
  const post = route === CEREMONY_ROUTES.registered || route === CEREMONY_ROUTES.answer;
  const known = post || route === '' || route === CEREMONY_ROUTES.script || route === CEREMONY_ROUTES.ceremony;
  if (!known) return send(res, ...notFound());
  if (req.method !== (post ? 'POST' : 'GET')) return send(res, 405, problem('method', `Use ${post ? 'POST' : 'GET'} here.`));
  if (route === '') return sendText(res, 'text/html; charset=utf-8', pageHtml(at.session.ceremony, at.nonce), at.nonce);
  if (route === CEREMONY_ROUTES.script) return sendText(res, 'text/javascript; charset=utf-8', at.script);
  if (route === CEREMONY_ROUTES.ceremony) return send(res, 200, at.session.pageJson());
  const body = await readJson(req);
  if (Array.isArray(body)) return send(res, ...body);
  if (at.over()) return send(res, 410, problem('over', 'This ceremony is over: it was answered or closed.'));
  send(res, ...(route === CEREMONY_ROUTES.registered ? at.session.registered(body.value) : at.session.answered(body.value)));
}

/** Serves `ceremony` on loopback until it is answered, closed, or `signal` aborts. */
export async function openCeremony(ceremony: Ceremony, opts: { signal?: AbortSignal } = {}): Promise<OpenCeremony> {
  checkCeremony(ceremony);
  let over = false;
  let settle: (answer: Answer) => void = () => undefined;
  const answer = new Promise<Answer>((resolve) => (settle = resolve));
  const finish = (result: Answer): void => {
    if (over) return;
    over = true;
    opts.signal?.removeEventListener('abort', onAbort);
    settle(result);
    // A caller that forgets close() must not keep its process alive for a page nobody will use again.
    server.unref();
  };
  const at = {
    token: randomBytes(32).toString('base64url'),
    nonce: randomBytes(16).toString('base64'),
    script: readScript(),
    session: new Session(ceremony, finish),
    over: () => over,
  };
  const server = http.createServer((req, res) => {
    void respond(req, res, at).catch((err: unknown) => {
      if (!res.headersSent) send(res, 500, problem('internal', err instanceof Error ? err.message : String(err)));
      else res.destroy();
    });
  });
  const onAbort = (): void => close();
  const close = (): void => {
    finish({ kind: 'cancelled' });
    server.close();
    server.closeAllConnections();
  };

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  if (opts.signal?.aborted) close();
  else opts.signal?.addEventListener('abort', onAbort, { once: true });
  return { url: `http://localhost:${port}/c/${at.token}/`, answer, close };
}

type Reply = [status: number, body: unknown];

const problem = (code: string, message: string): CeremonyErrorJson => ({ error: { code, message } });
const invalid = (message: string): Reply => [400, problem('invalid', `Refused: ${message}.`)];
const notFound = (): Reply => [404, problem('not_found', 'Nothing here.')];

/** The route under the ceremony's path (`''` for the page), `null` for the path without its slash, else undefined. */
function routeOf(url: string, token: string): string | null | undefined {
  const pathname = url.split('?')[0] ?? '';
  const match = /^\/c\/([^/]+)(\/.*)?$/.exec(pathname);
  if (!match) return undefined;
  const given = Buffer.from(match[1] ?? '');
  const expected = Buffer.from(token);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
  return match[2] === undefined ? null : match[2].slice(1);
}

function checkCeremony(c: Ceremony): void {
  const bad = (message: string): never => {
    throw new HolonError('invalid_input', `A ceremony ${message}.`);
  };
  if (typeof c.title !== 'string' || c.title === '') bad('needs a title');
  if (!Array.isArray(c.lines) || c.lines.some((l) => typeof l !== 'string')) bad('takes its lines as strings');
  if (c.kind === 'register') {
    if (typeof c.user !== 'string' || c.user === '') bad('to register needs the user the passkey is for');
    return;
  }
  if (c.choices.length === 0 || c.choices.some((ch) => !CHOICES.includes(ch)) || new Set(c.choices).size !== c.choices.length) {
    bad(`offers each choice once, of ${CHOICES.join(', ')}`);
  }
  if (c.credentials.length === 0) bad('to decide needs a registered passkey');
  for (const choice of c.choices) {
    const challenge = typeof c.challenge === 'function' ? c.challenge(choice) : c.challenge;
    if (!(challenge instanceof Uint8Array) || challenge.length < 16) bad('signs a challenge of at least 16 bytes');
  }
}

/** The page's script, dist/webview/passkey.js: beside the running bundle (dist/holon.js), or from the sources, in dist/. */
function readScript(): string {
  const candidates = [
    path.join(__dirname, 'webview', 'passkey.js'),
    path.join(__dirname, '..', '..', '..', 'dist', 'webview', 'passkey.js'),
  ];
  const file = candidates.find((f) => fs.existsSync(f));
  if (!file) throw new HolonError('not_found', `the passkey page's script is missing (${candidates[0]}): build with node esbuild.mjs`);
  return fs.readFileSync(file, 'utf8');
}

function creationOptions(user: string, userHandle: string, challenge: string): CreationOptionsJson {
  return {
    rp: { id: RP_ID, name: 'Holon' },
    user: { id: userHandle, name: user, displayName: user },
    challenge,
    // ES256 only: a chain can verify P-256, not Ed25519, and RS256 keys are too large to keep on one.
    pubKeyCredParams: [{ type: 'public-key', alg: ES256 }],
    timeout: TIMEOUT_MS,
    authenticatorSelection: { residentKey: 'required', requireResidentKey: true, userVerification: 'required' },
    attestation: 'none',
  };
}

function requestOptions(challenge: string, credentials: PasskeyCredential[]): RequestOptionsJson {
  return {
    challenge,
    rpId: RP_ID,
    allowCredentials: credentials.map((c) => ({ type: 'public-key', id: c.id })),
    userVerification: 'required',
    timeout: TIMEOUT_MS,
  };
}

const field = (value: unknown, key: string): unknown =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>)[key] : undefined;

/** An assertion as the browser's JSON gives it, in the journal's form; or what is wrong with it. */
function assertionOf(value: unknown): AssertionJson | string {
  const id = field(value, 'id');
  const response = field(value, 'response');
  const parts = {
    credential: id,
    authenticator_data: field(response, 'authenticatorData'),
    client_data_json: field(response, 'clientDataJSON'),
    signature: field(response, 'signature'),
  };
  for (const [name, part] of Object.entries(parts)) {
    if (typeof part !== 'string' || !BASE64URL.test(part) || part.length > 16_384) return `the assertion's ${name} is not base64url`;
  }
  return parts as AssertionJson;
}

/** A stale page (an old challenge) or another ceremony's response is told at once, before anyone keeps it. */
function clientDataProblem(clientDataJson: unknown, type: string, challenge: string): Reply | undefined {
  if (typeof clientDataJson !== 'string' || !BASE64URL.test(clientDataJson)) return invalid('clientDataJSON is not base64url');
  let data: unknown;
  try {
    data = JSON.parse(Buffer.from(clientDataJson, 'base64url').toString('utf8'));
  } catch {
    return invalid('clientDataJSON is not JSON');
  }
  if (field(data, 'type') !== type) return invalid(`clientDataJSON is not of type ${type}`);
  if (field(data, 'challenge') !== challenge) {
    return [409, problem('stale', 'This answer signs another challenge: the page is out of date. Reload it and try again.')];
  }
  return undefined;
}

/** The authenticator data must be for `localhost`, with the user present and verified. */
function authenticatorProblem(authenticatorData: string): Reply | undefined {
  const bytes = Buffer.from(authenticatorData, 'base64url');
  if (bytes.length < 37 || !bytes.subarray(0, 32).equals(RP_ID_HASH)) return invalid(`the assertion is not for ${RP_ID}`);
  if ((bytes[32]! & UP_UV) !== UP_UV) return invalid('the passkey did not verify the user');
  return undefined;
}

/** The body as JSON, or the reply that refuses it. */
async function readJson(req: http.IncomingMessage): Promise<{ value: unknown } | Reply> {
  if (!/^application\/json\s*(;|$)/i.test(req.headers['content-type'] ?? '')) return [415, problem('content_type', 'Send JSON.')];
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY) return [413, problem('too_large', `The body is over ${MAX_BODY} bytes.`)];
    chunks.push(chunk);
  }
  try {
    return { value: JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown };
  } catch {
    return [400, problem('malformed', 'The body is not JSON.')];
  }
}

function headers(contentType: string, nonce?: string): http.OutgoingHttpHeaders {
  const csp = [
    "default-src 'none'",
    "script-src 'self'",
    `style-src ${nonce ? `'nonce-${nonce}'` : "'none'"}`,
    "connect-src 'self'",
    "img-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
  return {
    'content-type': contentType,
    'content-security-policy': csp,
    'cache-control': 'no-store',
    'referrer-policy': 'no-referrer',
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
  };
}

function send(res: http.ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, headers('application/json; charset=utf-8')).end(JSON.stringify(body));
}

function sendText(res: http.ServerResponse, contentType: string, text: string, nonce?: string): void {
  res.writeHead(200, headers(contentType, nonce)).end(text);
}

function redirect(res: http.ServerResponse, location: string): void {
  res.writeHead(308, { ...headers('text/plain; charset=utf-8'), location }).end();
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
/** Text another party may have chosen (an agent's name, a payee), as text: never markup. */
const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (ch) => ESCAPES[ch] ?? ch);

const LABELS: Record<CeremonyChoice | 'register', string> = {
  approve: 'Approve',
  reject: 'Reject',
  confirm: 'Confirm',
  register: 'Create passkey',
};

const STYLE = `
body { font: 16px/1.5 system-ui, sans-serif; margin: 0; color: #1b1b1b; background: #f6f6f6; }
main { max-width: 40rem; margin: 3rem auto; padding: 2rem; background: #fff; border: 1px solid #ddd; border-radius: 8px; }
h1 { font-size: 1.1rem; margin: 0 0 1rem; color: #555; font-weight: 600; }
ul { list-style: none; padding: 0; margin: 0 0 1.5rem; }
li { font-size: 1.25rem; padding: .4rem 0; border-bottom: 1px solid #eee; overflow-wrap: anywhere; white-space: pre-wrap; }
.actions { display: flex; gap: .75rem; }
button { font: inherit; padding: .5rem 1.25rem; border-radius: 6px; border: 1px solid #888; background: #fff; cursor: pointer; }
button.primary { background: #0b5cad; border-color: #0b5cad; color: #fff; }
button:disabled { opacity: .5; cursor: default; }
#status { min-height: 1.5rem; margin: 1rem 0 0; }
main[data-state="error"] #status { color: #b00020; }
main[data-state="done"] .actions { display: none; }
`;

function pageHtml(c: Ceremony, nonce: string): string {
  const buttons = (c.kind === 'register' ? (['register'] as const) : c.choices)
    .map(
      (choice) =>
        `<button type="button" data-choice="${choice}"${choice === 'reject' ? '' : ' class="primary"'} disabled>${LABELS[choice]}</button>`,
    )
    .join('');
  const lines = c.lines.map((line) => `<li>${escapeHtml(line)}</li>`).join('');
  return (
    `<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n` +
    `<meta name="viewport" content="width=device-width, initial-scale=1">\n<title>Holon — ${escapeHtml(c.title)}</title>\n` +
    `<style nonce="${nonce}">${STYLE}</style>\n<script src="${CEREMONY_ROUTES.script}" defer></script>\n</head>\n` +
    `<body>\n<main data-kind="${c.kind}" data-state="ready">\n<h1>${escapeHtml(c.title)}</h1>\n<ul id="lines">${lines}</ul>\n` +
    `<div class="actions">${buttons}</div>\n<p id="status" role="status" aria-live="polite"></p>\n</main>\n</body>\n</html>\n`
  );
}
