/**
 * Every problem type is published: each code of PROBLEMS has its page, docs/problems/<code>.md, whose
 * status and action are the code's own (the docs cannot drift from the code), and every problem's `type`
 * — as a real client receives it, too — is the URL of that page.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import { createMandate } from '../../src/core/accounts/mandates.ts';
import { ALL_PROBLEM_CODES, problem, PROBLEM_TYPE_BASE, PROBLEMS, problemType } from '../../src/server/render/problems.ts';
import { connect, demoRuntime, ROOT } from '../helpers.ts';
import { callTool } from './support.ts';

const PAGES = path.join(ROOT, 'docs', 'problems');

/** A page's table row `| name | value |`, its value without backticks. */
function row(page: string, name: string): string | undefined {
  const m = new RegExp(`^\\| ${name} \\| (.+?) \\|$`, 'm').exec(page);
  return m?.[1]?.replace(/^`(.*)`$/, '$1');
}

test('every problem code has its page, with its type, status and action; no page without a code', () => {
  const pages = fs.readdirSync(PAGES).filter((f) => f !== 'README.md');
  assert.deepEqual(pages.sort(), ALL_PROBLEM_CODES.map((c) => `${c}.md`).sort());
  const index = fs.readFileSync(path.join(PAGES, 'README.md'), 'utf8');
  for (const code of ALL_PROBLEM_CODES) {
    const page = fs.readFileSync(path.join(PAGES, `${code}.md`), 'utf8');
    assert.match(page, new RegExp(`^# \`${code.replace('.', '\\.')}\``), `${code}: its title`);
    assert.equal(row(page, 'Type'), problemType(code), code);
    assert.equal(row(page, 'Status'), String(PROBLEMS[code].status), code);
    assert.equal(row(page, 'Action'), PROBLEMS[code].action, code);
    for (const section of ['What it means', 'What the agent should do', 'What the human should do']) assert.match(page, new RegExp(`^## ${section}\\n\\n\\S`, 'm'), `${code}: ${section}`);
    assert.ok(index.includes(`| [\`${code}\`](${code}.md) | ${PROBLEMS[code].status} | \`${PROBLEMS[code].action}\` |`), `${code} in the index`);
  }
});

test("a problem's type is the URL of its page in the repository's docs", () => {
  // One stable form: the base, then the page's path in the repository.
  assert.match(PROBLEM_TYPE_BASE, /^https:\/\/github\.com\/[^/]+\/[^/]+\/blob\/main\/docs\/problems\/$/);
  for (const code of ALL_PROBLEM_CODES) {
    const type = problem(code, 'x').data.type;
    assert.equal(type, problemType(code));
    const inRepo = new URL(type).pathname.split('/blob/main/')[1] ?? '';
    assert.ok(fs.existsSync(path.join(ROOT, inRepo)), `${type} names ${inRepo}, which exists`);
  }
});

let env: Awaited<ReturnType<typeof demoRuntime>>;
let client: Client;

before(async () => {
  env = await demoRuntime();
  await createMandate(env.runtime.store, env.clock, 'demo/docs', { toolsets: ['money', 'records'], capabilities: [] });
  client = await connect(env.runtime, { mandate: 'demo/docs' });
});

after(async () => {
  await client.close();
  await env.cleanup();
});

test('the problems a real client receives carry the URL of their page', async () => {
  const intent = { payee: 'acct:demo2', amount: '0.20', currency: 'EUR', purpose: 'docs', idempotency_key: 'k-docs' };
  const cases: [string, Record<string, unknown>, string][] = [
    ['get_job', { idempotency_key: 'k-never' }, 'not_found'],
    ['simulate', { intent: { ...intent, amount: 'lots' } }, 'validation'],
    ['pay', { intent }, 'intent.denied'],
    ['quote', { lines: [{ product: 'p', quantity: 1 }] }, 'not_found'],
  ];
  for (const [tool, args, code] of cases) {
    const r = await callTool(client, tool, args);
    assert.equal(r.isError, true, tool);
    const p = r.structuredContent as { code: string; data: { type: string } };
    assert.equal(p.code, code, tool);
    assert.equal(p.data.type, `${PROBLEM_TYPE_BASE}${code}.md`);
    assert.ok(fs.existsSync(path.join(PAGES, `${code}.md`)));
  }
});
