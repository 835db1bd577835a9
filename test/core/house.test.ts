/**
 * The floor plan of src/core is the one docs/architecture.md draws: its table names every folder and
 * top-level file, ground floor first, and the imports follow it. A folder added without its row, a row
 * for a folder that is gone, an import circle or a new import up a floor fails here, so the page a
 * newcomer reads cannot drift from the code.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';

const ROOT = path.join(__dirname, '..', '..');
const CORE = path.join(ROOT, 'src/core');
const DOC = fs.readFileSync(path.join(ROOT, 'docs/architecture.md'), 'utf8');

/** The table's rows, in order: each floor's name and the folders (`x/`) and files (`x.ts`) it names. */
function floorsOfDoc(): { floor: string; places: string[] }[] {
  const section = DOC.split(/^## /m).find((s) => s.startsWith('Inside `src/core`'));
  assert.ok(section, 'docs/architecture.md has a section "Inside `src/core`"');
  const rows = section.split('\n').filter((l) => l.startsWith('| ') && !l.startsWith('| floor'));
  return rows.map((row) => {
    const [floor = '', places = ''] = row
      .split('|')
      .slice(1, 3)
      .map((c) => c.trim());
    return { floor, places: [...places.matchAll(/`([^`]+)`/g)].map((m) => m[1]!) };
  });
}

function tsFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? tsFiles(p) : e.name.endsWith('.ts') ? [p] : [];
  });
}

/** The top-level place (folder `x/` or file `x.ts`) of a file of src/core. */
function placeOf(file: string): string {
  const [first = '', ...rest] = path.relative(CORE, file).split(path.sep);
  return rest.length ? `${first}/` : first;
}

/**
 * Every relative import of a file, resolved to a path, and whether it is type-only. A type-only import
 * is erased at build: a subject that takes the folded state's shape (`HolonState`, from the fold) does
 * not run the fold, so it counts for circles but not as a step up a floor.
 */
function importsOf(file: string): { to: string; typeOnly: boolean }[] {
  const text = fs.readFileSync(file, 'utf8');
  return [...text.matchAll(/^(import|export)(\s+type)?\b[^;]*?from\s+'(\.{1,2}\/[^']+)'|import\(\s*'(\.{1,2}\/[^']+)'/gms)].map((m) => ({
    to: path.resolve(path.dirname(file), m[3] ?? m[4] ?? ''),
    typeOnly: Boolean(m[2]),
  }));
}

/** Every circle of an import graph, each as the files around it; a circle shows as a back edge of a depth-first walk. */
function circlesOf(graph: Map<string, string[]>): string[][] {
  const state = new Map<string, 'open' | 'done'>();
  const circles: string[][] = [];
  const walk = (f: string, trail: string[]): void => {
    state.set(f, 'open');
    for (const to of graph.get(f) ?? []) {
      if (state.get(to) === 'open') circles.push([...trail.slice(trail.indexOf(to)), to]);
      else if (!state.has(to)) walk(to, [...trail, to]);
    }
    state.set(f, 'done');
  };
  for (const f of graph.keys()) if (!state.has(f)) walk(f, [f]);
  return circles;
}

test('the table names every folder and top-level file of src/core, and nothing else', () => {
  const named = floorsOfDoc().flatMap((f) => f.places);
  const onDisk = fs
    .readdirSync(CORE, { withFileTypes: true })
    .map((e) => (e.isDirectory() ? `${e.name}/` : e.name))
    .filter((n) => n.endsWith('/') || n.endsWith('.ts'));
  assert.deepEqual([...new Set(named)].sort(), onDisk.sort());
});

test('src/core keeps at most six files at its top: the rest stand in their floors', () => {
  const top = fs.readdirSync(CORE).filter((n) => n.endsWith('.ts'));
  assert.ok(top.length <= 6, `src/core has ${top.length} top-level files: ${top.join(', ')}`);
});

test('imports follow the floors: no circle, at most four run up a floor', () => {
  const floorOf = new Map<string, number>();
  floorsOfDoc().forEach((f, i) => f.places.forEach((p) => floorOf.set(p, i)));
  const files = tsFiles(CORE);
  const inCore = new Map(files.map((f) => [f, importsOf(f).filter((i) => i.to.startsWith(CORE + path.sep))]));
  const graph = new Map([...inCore].map(([f, is]) => [f, is.map((i) => i.to)]));

  const up = [...inCore].flatMap(([from, is]) =>
    is
      .filter((i) => !i.typeOnly)
      .map((i) => i.to)
      .filter((to) => floorOf.get(placeOf(to))! > floorOf.get(placeOf(from))!)
      .map((to) => `${path.relative(CORE, from)} → ${path.relative(CORE, to)}`),
  );
  assert.ok(up.length <= 4, `imports that run up a floor:\n${up.join('\n')}`);

  assert.deepEqual(
    circlesOf(graph).map((c) => c.map((p) => path.relative(CORE, p)).join(' → ')),
    [],
  );
});

test('the circle check finds a circle where there is one', () => {
  const graph = new Map([
    ['a', ['b']],
    ['b', ['c']],
    ['c', ['a']],
    ['d', ['a']],
  ]);
  assert.deepEqual(circlesOf(graph), [['a', 'b', 'c', 'a']]);
});
