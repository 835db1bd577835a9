/**
 * An MCP client in a state the human's passkey guards: a call above the threshold is never offered as a
 * form (the agent's host fills forms), but as a URL-mode elicitation of the passkey's page. The human, in
 * Chromium with its virtual authenticator, confirms there; the call then runs. A client that declines to
 * open the page, or cannot open URLs, gets the approval pending, as when nobody answers.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Client, InMemoryTransport, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createMcpHandler } from '@modelcontextprotocol/server';
import type { ElicitRequest, ElicitResult } from '@modelcontextprotocol/client';
import { addPasskey, registrationSubject } from '../../src/core/accounts/passkeys.ts';
import { openCeremony } from '../../src/core/ceremony/page.ts';
import type { Runtime } from '../../src/server/runtime.ts';
import { createHolonServer } from '../../src/server/server.ts';
import type { PasskeyBrowser, VirtualCredential } from '../helpers/passkeyBrowser.ts';
import { noChromium, openPasskeyBrowser } from '../helpers/passkeyBrowser.ts';
import { demoRuntime, INVOICES, MANDATE, until } from '../helpers.ts';
import { callAgent } from './support.ts';

const JOB = { agent: 'holon-labs/invoice-pipeline', input: { files: INVOICES } };

/** Registers a passkey in Chromium's virtual authenticator on Holon's page, and in the state. */
async function registered(browser: PasskeyBrowser, runtime: Runtime): Promise<VirtualCredential> {
  const page = await openCeremony({
    kind: 'register',
    title: 'Holon: add a passkey',
    lines: ['test'],
    user: 'Holon test',
    subject: registrationSubject,
  });
  const credential = await browser.registerAt(page.url);
  const answer = await page.answer;
  assert.equal(answer.kind, 'registered');
  if (answer.kind !== 'registered') throw new Error('not registered');
  await addPasskey(runtime.store, answer.credential, 'test', answer.assertion);
  return credential;
}

/** The revisions a client may speak: the older ones ask by request, 2026-07-28 in the call's answer. */
const REVISIONS = ['2025-11-25', '2026-07-28'] as const;

/**
 * A real SDK client whose host answers elicitations with `elicit`, connected to a Holon server: in memory at
 * 2025-11-25; at 2026-07-28 through the SDK's per-request HTTP entry, in this process.
 */
async function clientWith(
  runtime: Runtime,
  capabilities: Record<string, unknown>,
  elicit: (req: ElicitRequest) => Promise<ElicitResult>,
  revision: (typeof REVISIONS)[number] = '2025-11-25',
): Promise<Client> {
  const modern = revision === '2026-07-28';
  const options = {
    capabilities: { elicitation: capabilities as never },
    ...(modern ? { versionNegotiation: { mode: { pin: revision } } } : {}),
  };
  const client = new Client({ name: 'host', version: '1.0.0' }, options);
  client.setRequestHandler('elicitation/create', (req) => elicit(req));
  if (modern) {
    const handler = createMcpHandler(() => createHolonServer(runtime.deps, MANDATE), { legacy: 'reject' });
    const fetch = (url: string | URL, init?: RequestInit): Promise<Response> => handler.fetch(new Request(url, init));
    await client.connect(new StreamableHTTPClientTransport(new URL('http://holon.test/mcp'), { fetch }));
    const close = client.close.bind(client);
    client.close = async () => (await close(), await handler.close());
    return client;
  }
  const [c, s] = InMemoryTransport.createLinkedPair();
  await Promise.all([createHolonServer(runtime.deps, MANDATE).connect(s), client.connect(c)]);
  return client;
}

describe("the passkey's page as a URL-mode elicitation", { skip: noChromium }, () => {
  let browser: PasskeyBrowser;
  before(async () => {
    browser = await openPasskeyBrowser();
  });
  after(() => browser?.close());

  for (const revision of REVISIONS) {
    test(`${revision}: the host opens the page, the human confirms with the passkey, the call runs; no form is ever sent`, async () => {
      const { runtime, cleanup } = await demoRuntime({ approvals: { waitMs: 60_000, elicitationWaitMs: 60_000 } });
      try {
        const credential = await registered(browser, runtime);
        const modes: string[] = [];
        let opened: Promise<unknown> | undefined;
        const client = await clientWith(
          runtime,
          { form: {}, url: {} },
          async (req) => {
            modes.push(req.params.mode ?? 'form');
            if (req.params.mode !== 'url') return { action: 'decline' };
            // The human takes their time: the page is answered after the host has said it opened it.
            const url = req.params.url;
            opened = new Promise((resolve) => setImmediate(resolve)).then(() => browser.decideAt(url, credential, 'confirm'));
            return { action: 'accept' };
          },
          revision,
        );
        try {
          const r = await callAgent(client, JOB);
          assert.equal(r.status, 'succeeded', JSON.stringify(r));
          assert.deepEqual(modes, ['url']);
          const outcome = (await opened) as { state: string; status: string };
          assert.equal(outcome.state, 'done', outcome.status);
          const a = Object.values(runtime.store.state.approvals).find((x) => x.channel === 'elicitation');
          assert.equal(a?.status, 'used');
        } finally {
          await client.close();
        }
      } finally {
        await cleanup();
      }
    });

    test(`${revision}: a host that declines to open it, or can only fill forms, leaves the approval pending; nothing is decided`, async () => {
      const { runtime, cleanup } = await demoRuntime({ approvals: { waitMs: 0, elicitationWaitMs: 60_000 } });
      try {
        await registered(browser, runtime);
        const asked: string[] = [];
        const declining = await clientWith(
          runtime,
          { url: {} },
          async (req) => {
            asked.push(req.params.mode ?? 'form');
            return { action: 'decline' };
          },
          revision,
        );
        const formsOnly = await clientWith(
          runtime,
          { form: {} },
          async (req) => {
            asked.push(req.params.mode ?? 'form');
            return { action: 'accept', content: { decision: 'Approve' } };
          },
          revision,
        );
        try {
          const [declined, filled] = await Promise.all([callAgent(declining, JOB), callAgent(formsOnly, JOB)]);
          await until(() => asked.length >= 1, 'the page offered');
          for (const r of [declined, filled]) assert.equal(r.status, 'pending_approval', JSON.stringify(r));
          assert.deepEqual(asked, ['url'], 'the forms-only host is never sent a form');
          for (const a of Object.values(runtime.store.state.approvals)) assert.equal(a.status, 'pending');
        } finally {
          await declining.close();
          await formsOnly.close();
        }
      } finally {
        await cleanup();
      }
    });
  }
});
