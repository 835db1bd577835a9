/**
 * The README is read in five minutes, and every page it and docs/ link to is there: a page moved or
 * renamed breaks a link here, not for a reader.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';

const ROOT = path.join(__dirname, '..', '..');
const README = path.join(ROOT, 'README.md');
const DOCS = path.join(ROOT, 'docs');

test('the README stays short: at most 250 lines', () => {
  const lines = fs.readFileSync(README, 'utf8').split('\n').length;
  assert.ok(lines <= 250, `README.md has ${lines} lines; move the detail to a page in docs/`);
});

test('every relative link in the README and in docs/ names a file that exists', () => {
  const pages = [
    README,
    ...fs
      .readdirSync(DOCS)
      .filter((f) => f.endsWith('.md'))
      .map((f) => path.join(DOCS, f)),
  ];
  const broken: string[] = [];
  for (const page of pages) {
    for (const [, target = ''] of fs.readFileSync(page, 'utf8').matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z]+:/.test(target) || target.startsWith('#')) continue;
      const file = target.split('#')[0] ?? '';
      if (!fs.existsSync(path.resolve(path.dirname(page), file))) broken.push(`${path.relative(ROOT, page)} → ${target}`);
    }
  }
  assert.deepEqual(broken, []);
});
