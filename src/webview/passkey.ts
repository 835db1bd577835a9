// Entry of the ceremony page (dist/webview/passkey.js), served on loopback to the system browser.
// Nothing runs until the human clicks: a passkey is used on purpose, never because a tab opened.
import { startAuthentication, startRegistration } from '@simplewebauthn/browser';
import type { AnswerBody, CeremonyChoice, CeremonyErrorJson, CeremonyJson, RegisteredJson } from '../shared/ceremony.ts';
import { CEREMONY_ROUTES } from '../shared/ceremony.ts';

/** A refusal from the server, with its code: `over` means the page can do nothing more. */
class Refused extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

const main = document.querySelector('main');
const status = document.getElementById('status');
const buttons = [...document.querySelectorAll<HTMLButtonElement>('button[data-choice]')];

function show(state: 'busy' | 'error' | 'done' | 'ready', text: string): void {
  main?.setAttribute('data-state', state);
  if (status) status.textContent = text;
  for (const b of buttons) b.disabled = state === 'busy' || state === 'done';
}

// Every URL is relative: the page may be served under a proxy's path.
async function call<T>(route: string, body?: AnswerBody | object): Promise<T> {
  const res = await fetch(
    route,
    body === undefined ? {} : { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) },
  );
  const json = (await res.json().catch(() => undefined)) as unknown;
  if (!res.ok) {
    const error = (json as Partial<CeremonyErrorJson> | undefined)?.error;
    throw new Refused(error?.code ?? 'http', error?.message ?? `The server answered ${res.status}.`);
  }
  return json as T;
}

/** What a failed ceremony means to the human: the browser's own names say little. */
function explain(err: unknown): string {
  if (err instanceof Refused) return err.message;
  const name = err instanceof Error ? err.name : '';
  const message = err instanceof Error ? err.message : String(err);
  if (name === 'NotAllowedError')
    return `The passkey was not used: cancelled, timed out, or your identity was not verified. Try again. (${message})`;
  if (name === 'InvalidStateError') return `This authenticator cannot be used here: ${message}`;
  if (name === 'SecurityError') return `The browser refused this page for passkeys: ${message}`;
  return `${name || 'Error'}: ${message}`;
}

async function run(choice: CeremonyChoice | 'register'): Promise<void> {
  show('busy', 'Waiting for your passkey…');
  try {
    const page = await call<CeremonyJson>(CEREMONY_ROUTES.ceremony);
    if (page.kind === 'register') {
      const created = await startRegistration({ optionsJSON: page.options });
      // The new key at once signs what it registers for, so its owner is proven, not assumed.
      const { options } = await call<RegisteredJson>(CEREMONY_ROUTES.registered, created);
      show('busy', 'Passkey created. Use it once more to confirm it…');
      const assertion = await startAuthentication({ optionsJSON: options });
      await call(CEREMONY_ROUTES.answer, { assertion } satisfies AnswerBody);
    } else {
      const options = page.choices.find((c) => c.choice === choice)?.options;
      if (!options) throw new Refused('choice', `This page does not offer ${choice}.`);
      const assertion = await startAuthentication({ optionsJSON: options });
      await call(CEREMONY_ROUTES.answer, { choice: choice as CeremonyChoice, assertion } satisfies AnswerBody);
    }
    show('done', 'Done — you can close this tab.');
  } catch (err) {
    if (err instanceof Refused && err.code === 'over') show('done', err.message);
    else show('error', explain(err));
  }
}

for (const button of buttons) {
  const choice = button.dataset['choice'] as CeremonyChoice | 'register';
  button.addEventListener('click', () => void run(choice));
}
show('ready', '');
