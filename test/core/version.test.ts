import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { HOLON_VERSION } from '../../src/core/kernel/version.ts';

test('the version clients see is the package version', () => {
  const pkg = JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', 'package.json'), 'utf8')) as { version: string };
  assert.equal(HOLON_VERSION, pkg.version);
});
