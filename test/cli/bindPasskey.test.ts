/**
 * Binding a workspace in a state the human's passkey guards, through the built CLI, with Chromium's
 * virtual authenticator as the human. `holon mandate bind` opens the passkey's page and a pseudo-
 * terminal's "y" decides nothing; once the passkey signed, a server started in the workspace serves the
 * bound mandate; and a binding file the agent rewrote to another mandate (as its owner, with its mode)
 * makes that server refuse: the journal did not decide it.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import type { TestContext } from 'node:test';
import { after, before, describe, test } from 'node:test';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { Client } from '@modelcontextprotocol/client';
import { bindingPath } from '../../src/core/local/bindings.ts';
import type { PasskeyBrowser } from '../helpers/passkeyBrowser.ts';
import { noChromium, openPasskeyBrowser } from '../helpers/passkeyBrowser.ts';
import {
  atPage,
  cleanEnv,
  ensureBuilt,
  HANG_MS,
  HOLON_BIN,
  journalFile,
  ok,
  readEvents,
  seededState,
  waitingOnPageInPty,
  tempDir,
} from './cliHarness.ts';

const NARROW = 'demo/sandbox';
const WIDE = 'demo/wide';

/** A temporary workspace (its real path); its binding goes when the test ends, pass or fail. */
function workspace(t: TestContext): string {
  const { dir, cleanup } = tempDir('holon-bind-pk-');
  const real = fs.realpathSync(dir);
  t.after(() => {
    fs.rmSync(bindingPath(real), { force: true });
    cleanup();
  });
  return real;
}

/** `holon mcp --state STATE` started in `cwd` with no mandate named, as a client starts a project's server; it answers initialize or exits. */
function startIn(cwd: string, state: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [HOLON_BIN, 'mcp', '--state', state], {
      cwd,
      env: cleanEnv(),
      stdio: ['pipe', 'pipe', 'pipe'],
      timeout: HANG_MS,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.on('error', () => {});
    const init = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    };
    child.stdin.end(JSON.stringify(init) + '\n');
  });
}

describe('binding a workspace in a guarded state', { skip: noChromium }, () => {
  let browser: PasskeyBrowser;
  before(async () => {
    await ensureBuilt();
    browser = await openPasskeyBrowser();
  });
  after(() => browser?.close());

  test('mandate bind opens the page (a pseudo-terminal\'s "y" binds nothing); the server serves what the passkey bound; a rewritten binding file is not_decided', async (t) => {
    const s = await seededState();
    t.after(s.cleanup);
    const state = s.dir;
    await ok(state, [
      'mandate',
      'create',
      WIDE,
      '--threshold',
      '5',
      '--total',
      '5',
      '--per-call',
      '5',
      '--capabilities',
      'extraction.*,pipeline.*',
    ]);
    const ws = workspace(t);
    const add = atPage(state, ['passkey', 'add', '--label', 'laptop']);
    const credential = await browser.registerAt(await add.url);
    assert.equal((await add.done).code, 0);

    // An agent with a shell: bind in a pseudo-terminal, "y" typed as soon as it waits.
    const before = fs.readFileSync(journalFile(state));
    const pty = await waitingOnPageInPty(state, ['mandate', 'bind', WIDE, '--workspace', ws]);
    pty.type('y\n');
    await pty.stop();
    assert.equal(fs.existsSync(bindingPath(ws)), false, 'typing bound nothing');
    assert.ok(fs.readFileSync(journalFile(state)).equals(before), 'and wrote nothing');

    // The human binds, on the page, with the passkey.
    const bind = atPage(state, ['mandate', 'bind', NARROW, '--workspace', ws]);
    const outcome = await browser.decideAt(await bind.url, credential, 'confirm');
    assert.equal(outcome.state, 'done', outcome.status);
    const bound = await bind.done;
    assert.equal(bound.code, 0, bound.stderr);
    const events = await readEvents(state);
    assert.deepEqual(
      events.slice(-2).map((e) => e.type),
      ['human.asserted', 'workspace.bound'],
    );
    assert.deepEqual(events.at(-1)?.data, { workspace: ws, mandate: NARROW });

    // A server started in the workspace serves the bound mandate.
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [HOLON_BIN, 'mcp', '--state', state],
      cwd: ws,
      env: cleanEnv() as Record<string, string>,
      stderr: 'pipe',
    });
    const client = new Client({ name: 'bind-passkey-test', version: '1.0.0' });
    await client.connect(transport);
    try {
      assert.equal(client.getServerVersion()?.title, `Holon · ${NARROW}`);
    } finally {
      await client.close();
    }

    // The agent rewrites the binding file to the wider mandate, as its owner: the mode stays 0600.
    const file = bindingPath(ws);
    fs.writeFileSync(file, JSON.stringify({ ...(JSON.parse(fs.readFileSync(file, 'utf8')) as object), mandate: WIDE }, null, 2) + '\n');
    assert.equal(fs.statSync(file).mode & 0o777, 0o600);
    const refused = await startIn(ws, state);
    assert.equal(refused.stdout, '', 'the server did not answer');
    assert.equal(refused.code, 1, refused.stderr);
    assert.match(refused.stderr, new RegExp(`the binding of ${ws} to the mandate ${WIDE} is not decided`));
    assert.match(refused.stderr, new RegExp(`bound it to ${NARROW}`));
  });
});
