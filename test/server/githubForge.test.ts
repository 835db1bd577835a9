/**
 * GitHub as the office's forge. There is no network here, so GitHub is a loopback `node:http` server
 * answering the two documented endpoints the forge uses — `GET /repos/{owner}/{repo}/pulls` (with
 * `state`, `head`, `base`, `per_page`, `page` and a `Link` header, as GitHub pages) and
 * `POST /repos/{owner}/{repo}/pulls` (201, or 422 with GitHub's error body) — and refusing any request
 * without the token. The forge is tested on its own, then through the real office toolset and an SDK Client.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, beforeEach, describe, test } from 'node:test';
import type { Client, CallToolResult } from '@modelcontextprotocol/client';
import { HolonError } from '../../src/core/kernel/errors.ts';
import { DEMO_OFFICE, seedOffice } from '../../src/core/office/demoOffice.ts';
import { GitHubForge } from '../../src/server/forge/github.ts';
import { GITHUB_TOKEN_ENV, githubForge } from '../../src/cli/serverRuntime.ts';
import { connect, demoRuntime } from '../helpers.ts';
import { callTool } from './support.ts';

const OWNER = 'acme';
const TOKEN = 'ghp_TESTTOKEN0123456789abcdefABCDEF0123';

interface Pull {
  number: number;
  title: string;
  body: string;
  head: string;
  base: string;
  user: string;
  state: 'open' | 'closed';
}

interface Seen {
  method: string;
  path: string;
  query: URLSearchParams;
  authorization: string | undefined;
  body?: unknown;
}

/** A GitHub that knows a few repos, their branches and pull requests, and answers as the REST API does. */
class FakeGitHub {
  readonly seen: Seen[] = [];
  readonly repos = new Map<string, { branches: Set<string>; pulls: Pull[] }>();
  /** A status every request is answered with instead (401, 403, 500…), with GitHub's body. */
  failWith: { status: number; body: unknown; headers?: Record<string, string> } | undefined;
  /** The same, for the POST only. */
  failPostWith: { status: number; body: unknown } | undefined;
  /** The next lookup by head misses (as when another call opens the same pull request meanwhile). */
  missNextLookup = false;
  private server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => this.answer(req, Buffer.concat(chunks).toString('utf8'), res));
  });
  url = '';

  async start(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  reset(): void {
    this.seen.length = 0;
    this.failWith = undefined;
    this.failPostWith = undefined;
    this.missNextLookup = false;
    this.repos.clear();
    this.repos.set('site', {
      branches: new Set(['main', 'ada/fix-footer', 'ada/docs', 'lea/old']),
      pulls: [
        { number: 1, title: 'Old work', body: '', head: 'lea/old', base: 'main', user: 'lea', state: 'open' },
        { number: 2, title: 'Merged long ago', body: '', head: 'lea/older', base: 'main', user: 'lea', state: 'closed' },
      ],
    });
  }

  private pullJson(repo: string, p: Pull): Record<string, unknown> {
    return {
      url: `${this.url}/repos/${OWNER}/${repo}/pulls/${p.number}`,
      html_url: `https://github.com/${OWNER}/${repo}/pull/${p.number}`,
      number: p.number,
      state: p.state,
      title: p.title,
      body: p.body,
      user: { login: p.user, id: 1, type: 'User' },
      head: { label: `${OWNER}:${p.head}`, ref: p.head, sha: 'a'.repeat(40) },
      base: { label: `${OWNER}:${p.base}`, ref: p.base, sha: 'b'.repeat(40) },
    };
  }

  private send(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
    res.end(JSON.stringify(body));
  }

  private answer(req: http.IncomingMessage, text: string, res: http.ServerResponse): void {
    const u = new URL(req.url ?? '/', this.url);
    const seen: Seen = { method: req.method ?? '', path: u.pathname, query: u.searchParams, authorization: req.headers.authorization };
    if (text) seen.body = JSON.parse(text);
    this.seen.push(seen);
    if (req.headers.authorization !== `token ${TOKEN}` && req.headers.authorization !== `Bearer ${TOKEN}`) {
      return this.send(res, 401, { message: 'Bad credentials', documentation_url: 'https://docs.github.com/rest' });
    }
    if (this.failWith) return this.send(res, this.failWith.status, this.failWith.body, this.failWith.headers);
    const m = /^\/repos\/([^/]+)\/([^/]+)\/pulls$/.exec(u.pathname);
    const repo = m && m[1] === OWNER ? this.repos.get(decodeURIComponent(m[2] ?? '')) : undefined;
    if (!m || !repo) return this.send(res, 404, { message: 'Not Found', documentation_url: 'https://docs.github.com/rest/pulls/pulls', status: '404' });
    const name = decodeURIComponent(m[2] ?? '');
    if (req.method === 'GET') {
      const state = u.searchParams.get('state') ?? 'open';
      const head = u.searchParams.get('head');
      const base = u.searchParams.get('base');
      const perPage = Number(u.searchParams.get('per_page') ?? 30);
      const page = Number(u.searchParams.get('page') ?? 1);
      if (head && this.missNextLookup) {
        this.missNextLookup = false;
        return this.send(res, 200, []);
      }
      const all = repo.pulls.filter((p) => (state === 'all' || p.state === state) && (!head || `${OWNER}:${p.head}` === head) && (!base || p.base === base));
      const slice = all.slice((page - 1) * perPage, page * perPage);
      const headers: Record<string, string> = {};
      if (page * perPage < all.length) {
        const next = new URL(u);
        next.searchParams.set('page', String(page + 1));
        headers['link'] = `<${next.toString()}>; rel="next"`;
      }
      return this.send(res, 200, slice.map((p) => this.pullJson(name, p)), headers);
    }
    if (req.method === 'POST') {
      if (this.failPostWith) return this.send(res, this.failPostWith.status, this.failPostWith.body);
      const b = seen.body as { head: string; base: string; title: string; body?: string };
      if (!repo.branches.has(b.head)) {
        return this.send(res, 422, { message: 'Validation Failed', errors: [{ resource: 'PullRequest', code: 'custom', message: `No commits between ${b.base} and ${b.head}` }], documentation_url: 'https://docs.github.com/rest/pulls/pulls#create-a-pull-request' });
      }
      if (repo.pulls.some((p) => p.state === 'open' && p.head === b.head && p.base === b.base)) {
        return this.send(res, 422, { message: 'Validation Failed', errors: [{ resource: 'PullRequest', code: 'custom', message: `A pull request already exists for ${OWNER}:${b.head}.` }] });
      }
      const p: Pull = { number: Math.max(0, ...repo.pulls.map((x) => x.number)) + 1, title: b.title, body: b.body ?? '', head: b.head, base: b.base, user: 'holon-bot', state: 'open' };
      repo.pulls.push(p);
      return this.send(res, 201, this.pullJson(name, p));
    }
    return this.send(res, 404, { message: 'Not Found' });
  }
}

const github = new FakeGitHub();
const forge = (token = TOKEN): GitHubForge => new GitHubForge({ owner: OWNER, token, baseUrl: github.url });

/** The HolonError a promise rejects with. */
async function failure(p: Promise<unknown>): Promise<HolonError> {
  try {
    await p;
  } catch (err) {
    assert.ok(HolonError.is(err), `a HolonError, not ${String(err)}`);
    return err;
  }
  assert.fail('expected a failure');
}

before(() => github.start());
after(() => github.stop());
beforeEach(() => github.reset());

describe('GitHubForge', () => {
  test('lists the open pull requests with their fields, sending the token to GitHub', async () => {
    const prs = await forge().listOpen('site');
    assert.deepEqual(prs, [{ number: 1, title: 'Old work', head: 'lea/old', base: 'main', author: 'lea', url: `https://github.com/${OWNER}/site/pull/1` }]);
    assert.equal(github.seen.length, 1);
    const [req] = github.seen;
    assert.equal(req?.method, 'GET');
    assert.equal(req?.path, `/repos/${OWNER}/site/pulls`);
    assert.equal(req?.query.get('state'), 'open');
    assert.equal(req?.query.get('per_page'), '100');
    assert.equal(req?.authorization, `token ${TOKEN}`);
  });

  test('follows the pages of a long list', async () => {
    const site = github.repos.get('site');
    for (let n = 10; n < 260; n++) site?.pulls.push({ number: n, title: `PR ${n}`, body: '', head: `b${n}`, base: 'main', user: 'bot', state: 'open' });
    const prs = await forge().listOpen('site');
    assert.equal(prs.length, 251);
    assert.deepEqual(github.seen.map((s) => s.query.get('page') ?? '1'), ['1', '2', '3']);
  });

  test('opens a pull request, then returns the open one for the same head and base without a second POST', async () => {
    const f = forge();
    const opened = await f.open({ repo: 'site', head: 'ada/fix-footer', base: 'main', title: 'Fix footer links', body: 'Tested by hand.', author: 'ada' });
    assert.deepEqual(opened, { number: 3, title: 'Fix footer links', head: 'ada/fix-footer', base: 'main', author: 'holon-bot', url: `https://github.com/${OWNER}/site/pull/3`, existing: false });
    const [lookup, create] = github.seen;
    assert.equal(lookup?.method, 'GET');
    assert.equal(lookup?.query.get('head'), `${OWNER}:ada/fix-footer`);
    assert.equal(lookup?.query.get('base'), 'main');
    assert.equal(lookup?.query.get('state'), 'open');
    assert.equal(create?.method, 'POST');
    assert.equal(create?.path, `/repos/${OWNER}/site/pulls`);
    assert.deepEqual(create?.body, { head: 'ada/fix-footer', base: 'main', title: 'Fix footer links', body: 'Tested by hand.' });
    assert.equal(create?.authorization, `token ${TOKEN}`);

    const again = await f.open({ repo: 'site', head: 'ada/fix-footer', base: 'main', title: 'Again', body: '', author: 'ada' });
    assert.deepEqual(again, { ...opened, existing: true });
    assert.deepEqual(github.seen.map((s) => s.method), ['GET', 'POST', 'GET'], 'no second POST');
    // Another base is another pull request.
    assert.equal((await f.open({ repo: 'site', head: 'ada/fix-footer', base: 'lea/old', title: 'Onto lea', body: '', author: 'ada' })).existing, false);
  });

  test('a pull request opened meanwhile by another call is returned, not refused', async () => {
    github.missNextLookup = true;
    const raced = await forge().open({ repo: 'site', head: 'lea/old', base: 'main', title: 'Same', body: '', author: 'ada' });
    assert.deepEqual(raced, { number: 1, title: 'Old work', head: 'lea/old', base: 'main', author: 'lea', url: `https://github.com/${OWNER}/site/pull/1`, existing: true });
    assert.deepEqual(github.seen.map((s) => s.method), ['GET', 'POST', 'GET']);
  });

  test("GitHub's 422 is a conflict that names GitHub's reason", async () => {
    const err = await failure(forge().open({ repo: 'site', head: 'ada/not-pushed', base: 'main', title: 't', body: '', author: 'ada' }));
    assert.equal(err.reason, 'conflict');
    assert.equal(err.message, 'the forge refused: No commits between main and ada/not-pushed');
    assert.deepEqual(err.details, { repo: `${OWNER}/site`, status: 422 });
  });

  test('a 422 without a message, for a branch GitHub does not know, says so in words', async () => {
    github.failPostWith = { status: 422, body: { message: 'Validation Failed', errors: [{ resource: 'PullRequest', field: 'head', code: 'invalid' }] } };
    const err = await failure(forge().open({ repo: 'site', head: 'ada/gone', base: 'main', title: 't', body: '', author: 'ada' }));
    assert.equal(err.reason, 'conflict');
    assert.equal(err.message, 'the forge refused: head branch "ada/gone" is not on GitHub; push it first');
  });

  test('a repository GitHub does not show is not_found', async () => {
    const list = await failure(forge().listOpen('secret'));
    assert.equal(list.reason, 'not_found');
    assert.match(list.message, /acme\/secret was not found on GitHub, or the token cannot see it/);
    const open = await failure(forge().open({ repo: 'secret', head: 'a', base: 'main', title: 't', body: '', author: 'ada' }));
    assert.equal(open.reason, 'not_found');
  });

  test('a token GitHub refuses, or one without access, is denied; the rate limit and an outage are conflicts', async () => {
    const bad = await failure(forge('ghp_WRONG').listOpen('site'));
    assert.equal(bad.reason, 'denied');
    assert.match(bad.message, /GitHub refused the token \(Bad credentials\)/);
    github.failWith = { status: 403, body: { message: 'Resource not accessible by personal access token' } };
    const forbidden = await failure(forge().open({ repo: 'site', head: 'ada/docs', base: 'main', title: 't', body: '', author: 'ada' }));
    assert.equal(forbidden.reason, 'denied');
    assert.match(forbidden.message, /Resource not accessible by personal access token/);
    github.failWith = { status: 403, body: { message: 'API rate limit exceeded' }, headers: { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '1893456000' } };
    const limited = await failure(forge().listOpen('site'));
    assert.equal(limited.reason, 'conflict');
    assert.match(limited.message, /rate limit .* try again after 2030-01-01T00:00:00.000Z/);
    github.failWith = { status: 502, body: { message: 'Server Error' } };
    assert.equal((await failure(forge().listOpen('site'))).reason, 'conflict');
  });

  test('a GitHub that does not answer is a conflict, not a stack', async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const err = await failure(new GitHubForge({ owner: OWNER, token: TOKEN, baseUrl: `http://127.0.0.1:${port}` }).listOpen('site'));
    assert.equal(err.reason, 'conflict');
    assert.match(err.message, /^GitHub did not answer/);
  });

  test('the token appears in no error, even when GitHub echoes it back', async () => {
    const errors: HolonError[] = [];
    errors.push(await failure(forge().open({ repo: 'site', head: 'ada/not-pushed', base: 'main', title: 't', body: '', author: 'ada' })));
    errors.push(await failure(forge().listOpen('secret')));
    errors.push(await failure(forge(`${TOKEN}x`).listOpen('site')));
    github.failWith = { status: 422, body: { message: `Validation Failed for ${TOKEN}` } };
    errors.push(await failure(forge().listOpen('site')));
    github.failWith = { status: 403, body: { message: `token ${TOKEN} is not allowed` } };
    errors.push(await failure(forge().listOpen('site')));
    for (const e of errors) {
      const shown = `${e.message} ${JSON.stringify(e.details)} ${e.stack ?? ''}`;
      assert.ok(!shown.includes(TOKEN), shown);
      assert.ok(!shown.includes('TESTTOKEN'), shown);
    }
    assert.match(errors[3]?.message ?? '', /Validation Failed for \[redacted\]/);
    assert.ok(!JSON.stringify(forge()).includes('TESTTOKEN'), 'nor in the forge itself, serialized');
  });

  test('refuses a fork head, a bad owner and a token sent in clear to another machine', async () => {
    assert.equal((await failure(forge().open({ repo: 'site', head: 'mallory:evil', base: 'main', title: 't', body: '', author: 'ada' }))).reason, 'invalid_input');
    assert.equal(github.seen.length, 0);
    assert.throws(() => new GitHubForge({ owner: 'not/an-owner', token: TOKEN }), (e: unknown) => HolonError.is(e, 'invalid_input'));
    assert.throws(() => new GitHubForge({ owner: OWNER, token: '' }), (e: unknown) => HolonError.is(e, 'invalid_input'));
    assert.throws(() => new GitHubForge({ owner: OWNER, token: TOKEN, baseUrl: 'http://github.example.com/api/v3' }), /must be https/);
    assert.equal(new GitHubForge({ owner: OWNER, token: TOKEN }).baseUrl, 'https://api.github.com');
    assert.equal(new GitHubForge({ owner: OWNER, token: TOKEN, baseUrl: 'https://ghe.example.com/api/v3/' }).baseUrl, 'https://ghe.example.com/api/v3');
  });
});

describe('GitHub through the office toolset', () => {
  let client: Client;
  let cleanup: () => Promise<void>;
  before(async () => {
    const world = await demoRuntime({ forge: new GitHubForge({ owner: OWNER, token: TOKEN, baseUrl: github.url }) });
    cleanup = world.cleanup;
    await seedOffice(world.runtime.store, world.clock, 'site');
    client = await connect(world.runtime, { mandate: DEMO_OFFICE.ada });
  });
  after(async () => {
    await client.close();
    await cleanup();
  });

  const structured = <T>(r: CallToolResult): T => {
    assert.equal(r.isError, undefined, JSON.stringify(r.content));
    return r.structuredContent as T;
  };
  const text = (r: CallToolResult): string => (r.content[0] as { text: string }).text;

  test('forge_open_pr opens on GitHub once, forge_list_prs lists it', async () => {
    const opened = structured<{ number: number; url: string; existing: boolean }>(await callTool(client, 'forge_open_pr', { repo: 'site', head: 'ada/fix-footer', title: 'Fix footer links', body: 'Tested by hand.' }));
    assert.deepEqual(opened, { number: 3, url: `https://github.com/${OWNER}/site/pull/3`, existing: false });
    assert.deepEqual(github.seen.find((s) => s.method === 'POST')?.body, { head: 'ada/fix-footer', base: 'main', title: 'Fix footer links', body: 'Tested by hand.' });
    const again = structured<{ number: number; existing: boolean }>(await callTool(client, 'forge_open_pr', { repo: 'site', head: 'ada/fix-footer', base: 'main', title: 'Again', body: '' }));
    assert.deepEqual(again, { number: 3, url: `https://github.com/${OWNER}/site/pull/3`, existing: true });
    assert.equal(github.seen.filter((s) => s.method === 'POST').length, 1);
    const r = await callTool(client, 'forge_list_prs', { repo: 'site' });
    const listed = structured<{ repo: string; pull_requests: { number: number; head: string; author: string }[] }>(r);
    // Who opened a pull request chose its branches, and GitHub names its author: both as given, named as that author's.
    assert.deepEqual(listed.pull_requests.map((p) => [p.number, p.head, p.author]), [
      [1, 'lea/old', 'lea'],
      [3, 'ada/fix-footer', 'holon-bot'],
    ]);
    const named = (r._meta?.['holon/foreign'] ?? []) as { path: string; from: string }[];
    assert.deepEqual(named.filter((f) => /\/(head|author)$/.test(f.path)), [
      { path: '/pull_requests/0/head', from: 'lea' },
      { path: '/pull_requests/0/author', from: 'lea' },
      { path: '/pull_requests/1/head', from: 'holon-bot' },
      { path: '/pull_requests/1/author', from: 'holon-bot' },
    ]);
  });

  test("GitHub's refusal reaches the agent as the forge's refusal", async () => {
    const r = await callTool(client, 'forge_open_pr', { repo: 'site', head: 'ada/not-pushed', title: 't', body: '' });
    assert.equal(r.isError, true);
    assert.equal(text(r), 'conflict: the forge refused: No commits between main and ada/not-pushed');
  });

  test('a repo outside forge.write is refused before any request reaches GitHub', async () => {
    const before_ = github.seen.length;
    const r = await callTool(client, 'forge_open_pr', { repo: 'other', head: 'ada/fix-footer', title: 't', body: '' });
    assert.equal(r.isError, true);
    assert.equal(text(r), 'Not permitted: needs capability forge.write (for other) — use approval_request');
    const l = await callTool(client, 'forge_list_prs', { repo: 'other' });
    assert.equal(l.isError, true);
    assert.equal(github.seen.length, before_, 'GitHub was never asked');
  });
});

describe('--github-owner (holon mcp and holon serve)', () => {
  test('takes the token from the environment only, once, and refuses without it', async () => {
    delete process.env[GITHUB_TOKEN_ENV];
    assert.equal(await githubForge({}), undefined, "without it the workspace's git stays the forge");
    await assert.rejects(githubForge({ 'github-owner': OWNER }), (e: unknown) => HolonError.is(e, 'invalid_input') && e.message.includes(GITHUB_TOKEN_ENV));
    await assert.rejects(githubForge({ 'github-api': github.url }), (e: unknown) => HolonError.is(e, 'invalid_input') && /--github-owner/.test(e.message));
    process.env[GITHUB_TOKEN_ENV] = TOKEN;
    const f = await githubForge({ 'github-owner': OWNER, 'github-api': github.url });
    assert.ok(f instanceof GitHubForge);
    assert.equal(f.name, 'github');
    assert.equal(process.env[GITHUB_TOKEN_ENV], undefined, 'what this server starts does not inherit it');
    assert.deepEqual((await f.listOpen('site')).map((p) => p.number), [1]);
    assert.equal(github.seen[0]?.authorization, `token ${TOKEN}`);
  });
});
