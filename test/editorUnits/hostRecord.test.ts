/** The extension host's record of a state folder: the selected mandate and the receipts seen, kept beside no workspace file. */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { hostRecordFile, readHostRecord, writeHostRecord } from '../../src/editor/hostRecord.ts';

test('a record is kept per state folder, in global storage, and read back whole', () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'holon-record-'));
  try {
    const global = path.join(root, 'globalStorage');
    const a = path.join(root, 'workspaceStorage', 'a', 'holon.holon');
    const b = path.join(root, 'workspaceStorage', 'b', 'holon.holon');
    const fileA = hostRecordFile(global, a);
    assert.notEqual(fileA, hostRecordFile(global, b), 'two state folders, two records');
    assert.ok(fileA.startsWith(global + path.sep) && !fileA.startsWith(a), 'outside the state folder');
    assert.deepEqual(readHostRecord(fileA), {}, 'nothing kept yet');
    writeHostRecord(fileA, { selected: 'demo/sandbox', receiptsShown: true });
    assert.deepEqual(readHostRecord(fileA), { selected: 'demo/sandbox', receiptsShown: true });
    assert.deepEqual(readHostRecord(hostRecordFile(global, b)), {});
    assert.deepEqual(fs.readdirSync(path.dirname(fileA)), [path.basename(fileA)], 'no temporary file left behind');
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});

test('a record that is not one reads as empty, field by field', () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'holon-record-'));
  try {
    const file = path.join(root, 'r.json');
    for (const [text, expected] of [
      ['not json', {}],
      ['null', {}],
      ['"demo/sandbox"', {}],
      ['{"selected": 7, "receiptsShown": "yes"}', {}],
      ['{"selected": "demo/sandbox", "receiptsShown": "yes"}', { selected: 'demo/sandbox' }],
    ] as const) {
      fs.writeFileSync(file, text);
      assert.deepEqual(readHostRecord(file), expected, text);
    }
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});
