/**
 * What may be opened as a state: only a folder the human chose. An office artifact's folder holds files
 * an agent wrote, named as it liked (`journal.jsonl` is a valid artifact name), so no process ever opens
 * an artifact folder, or a folder inside one, as its state. Kept apart from office/artifacts.ts so that
 * every command can check a state folder without loading the office.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { HolonError } from '../kernel/errors.ts';

/** Where artifacts live, relative to the workspace. */
export const ARTIFACTS_DIR = path.join('.holon', 'artifacts');

/** The office's own file in every artifact folder. */
export const ARTIFACT_META = 'artifact.json';

/** `p` with its existing part resolved through links: a link's name must not hide where it points. */
function realOf(p: string): string {
  const rest: string[] = [];
  let dir = p;
  for (;;) {
    try {
      return path.join(fs.realpathSync(dir), ...rest);
    } catch {
      const parent = path.dirname(dir);
      if (parent === dir) return p;
      rest.unshift(path.basename(dir));
      dir = parent;
    }
  }
}

/**
 * True when `p` is at or under a `.holon/artifacts` folder. Compared without case: on a file system that
 * ignores case `.Holon/Artifacts` is the same folder, and elsewhere refusing it costs nothing.
 */
function underArtifacts(p: string): boolean {
  const [holon, artifacts] = ARTIFACTS_DIR.split(path.sep).map((s) => s.toLowerCase());
  const parts = p.split(path.sep).map((s) => s.toLowerCase());
  return parts.some((part, i) => part === holon && parts[i + 1] === artifacts);
}

/**
 * Refuses (`invalid_input`) to use `dir` as a state folder when it is an office artifact folder or lies
 * inside one: it holds `artifact.json`, or it is at or under a `.holon/artifacts` folder, by its own path
 * or by the path its links resolve to.
 */
export function refuseArtifactState(dir: string): void {
  const abs = path.resolve(dir);
  const inside = underArtifacts(abs) || underArtifacts(realOf(abs));
  if (inside || fs.existsSync(path.join(abs, ARTIFACT_META))) {
    throw new HolonError(
      'invalid_input',
      `${abs} is an office artifact folder (or inside one), which an agent writes: it ` +
        `is never opened as a state. Name the state folder you chose with --state DIR`,
      {
        problem: 'artifact_state',
        state: abs,
      },
    );
  }
}
