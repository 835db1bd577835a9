/**
 * The personnel file as text, and two of them compared: the YAML a human reads, the unified diff an
 * approval is bound to, and the side-by-side rows of the diff panel. Kept apart from personnel.ts so
 * that deciding an approval (which every process does) never loads a YAML or diff library.
 */
import { createTwoFilesPatch, diffLines } from 'diff';
import { stringify } from 'yaml';
import { canonicalHash } from '../kernel/util.ts';
import type { Personnel } from './personnel.ts';

/** The file as a human reads it in a diff. */
export function personnelYaml(p: Personnel | null): string {
  return p ? stringify(p, { lineWidth: 0 }) : '';
}

/** The unified diff of two files, and the hash an approval of it is bound to. */
export function personnelDiff(slug: string, before: Personnel | null, after: Personnel): { diff: string; sha256: string } {
  const a = personnelYaml(before);
  const b = personnelYaml(after);
  const file = `agents/${slug}/personnel.yaml`;
  const diff = createTwoFilesPatch(before ? `a/${file}` : '/dev/null', `b/${file}`, a, b, '', '', { context: 3 });
  return { diff, sha256: canonicalHash({ slug, before: a, after: b }) };
}

/** One line of a side-by-side diff: the old line (left), the new one (right), or both. */
export interface DiffRow {
  kind: 'same' | 'removed' | 'added' | 'changed';
  left: string | null;
  right: string | null;
}

/**
 * Two files side by side, line for line: removed lines are paired with the added lines that replace
 * them (a change), and what is left over stands alone on its side.
 */
export function sideBySide(before: string, after: string): DiffRow[] {
  const rows: DiffRow[] = [];
  const lines = (text: string): string[] => text.replace(/\n$/, '').split('\n');
  let removed: string[] = [];
  const flush = (added: string[]): void => {
    const n = Math.max(removed.length, added.length);
    for (let i = 0; i < n; i++) {
      const left = removed[i] ?? null;
      const right = added[i] ?? null;
      rows.push({ kind: left !== null && right !== null ? 'changed' : left !== null ? 'removed' : 'added', left, right });
    }
    removed = [];
  };
  for (const part of diffLines(before, after)) {
    if (part.removed) {
      flush([]);
      removed = lines(part.value);
    } else if (part.added) {
      flush(lines(part.value));
    } else {
      flush([]);
      for (const l of lines(part.value)) rows.push({ kind: 'same', left: l, right: l });
    }
  }
  flush([]);
  return rows;
}
