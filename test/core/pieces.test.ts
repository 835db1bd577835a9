/**
 * Pieces a person can hold: no function in src/ over 80 lines, no file over 600. A function longer than
 * a screen is one nobody keeps in their head while changing it; a file longer than 600 lines holds more
 * than one thing. The one exception is a table of words (a switch from each denial to its sentence),
 * which reads as a list however long it grows.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { longFunctions, longFunctionsIn, MAX_FUNCTION_LINES } from '../../scripts/longFunctions.ts';

const ROOT = path.join(__dirname, '..', '..');
const MAX_FILE_LINES = 600;

/** Tables of words, by file and function: each case is one sentence, and splitting it would scatter them. */
const WORD_TABLES = new Set(['src/core/kernel/words.ts denialText']);

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? sourceFiles(p) : /\.(ts|css)$/.test(e.name) ? [p] : [];
  });
}

test(`no function in src/ is over ${MAX_FUNCTION_LINES} lines, tables of words aside`, () => {
  const cwd = process.cwd();
  process.chdir(ROOT);
  try {
    const found = longFunctions('src');
    // A table's own arrow (the switch inside it) is part of the table.
    const tables = found.filter((f) => WORD_TABLES.has(`${f.file} ${f.name}`));
    const long = found.filter(
      (f) =>
        !WORD_TABLES.has(`${f.file} ${f.name}`) && !tables.some((t) => t.file === f.file && f.line >= t.line && f.line <= t.line + t.lines),
    );
    assert.deepEqual(
      long.map((f) => `${f.file}:${f.line} ${f.name} ${f.lines}`),
      [],
    );
  } finally {
    process.chdir(cwd);
  }
});

test(`no file in src/ is over ${MAX_FILE_LINES} lines`, () => {
  const long = sourceFiles(path.join(ROOT, 'src'))
    .map((f) => ({ f: path.relative(ROOT, f), lines: fs.readFileSync(f, 'utf8').split('\n').length }))
    .filter((x) => x.lines > MAX_FILE_LINES);
  assert.deepEqual(
    long.map((x) => `${x.f} ${x.lines}`),
    [],
  );
});

test('the measure sees a long function, and an arrow bound to a name is named', () => {
  const body = Array.from({ length: MAX_FUNCTION_LINES }, (_, i) => `  const x${i} = ${i};`).join('\n');
  const found = longFunctionsIn('x.ts', `export const long = () => {\n${body}\n};\nfunction short() { return 1; }\n`);
  assert.deepEqual(
    found.map((f) => [f.name, f.lines]),
    [['long', MAX_FUNCTION_LINES + 2]],
  );
});
