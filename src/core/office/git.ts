/**
 * The workspace's own git, run as the real `git` binary: for committing artifacts and as the local forge.
 * Arguments are always passed as a list (never through a shell) and a ref is checked before use, so a
 * branch name an agent chose cannot become an option or a command.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { HolonError } from '../kernel/errors.ts';

const run = promisify(execFile);

/**
 * What every git run turns off: a workspace an agent can write may carry hooks, an fsmonitor command or
 * system config that would run programs inside the server. Plumbing runs no hooks; these cover the rest.
 */
const SAFE = ['-c', 'core.hooksPath=/dev/null', '-c', 'core.fsmonitor=false'];

/** Where the office commits artifacts: its own ref, never the human's branch or index. */
export const ARTIFACTS_REF = 'refs/holon/artifacts';

/** Runs git in `cwd`; stdout trimmed. */
export async function git(cwd: string, args: string[], env: Record<string, string> = {}): Promise<string> {
  const { stdout } = await run('git', [...SAFE, ...args], {
    cwd,
    env: { ...process.env, ...env, GIT_TERMINAL_PROMPT: '0', GIT_CONFIG_NOSYSTEM: '1' },
    maxBuffer: 16 * 1024 * 1024,
  });
  return stdout.trim();
}

/** The top folder of the repository `dir` is in, or null when it is not in one (or git is missing). */
export async function repoRoot(dir: string): Promise<string | null> {
  try {
    return await git(dir, ['rev-parse', '--show-toplevel']);
  } catch {
    return null;
  }
}

/** A branch name git accepts and that cannot be read as an option. */
export async function checkBranchName(cwd: string, name: string): Promise<void> {
  if (name.startsWith('-')) throw new HolonError('invalid_input', `"${name}" is not a branch name`, { branch: name });
  try {
    await git(cwd, ['check-ref-format', '--branch', name]);
  } catch {
    throw new HolonError('invalid_input', `"${name}" is not a branch name`, { branch: name });
  }
}

/** The commit a local branch points at, or null if there is no such branch. */
export async function branchCommit(cwd: string, name: string): Promise<string | null> {
  await checkBranchName(cwd, name);
  try {
    return await git(cwd, ['rev-parse', '--verify', '--quiet', `refs/heads/${name}^{commit}`]);
  } catch {
    return null;
  }
}

/** True when `ancestor` is already contained in `branch` (a merged pull request). */
export async function isMerged(cwd: string, ancestor: string, branch: string): Promise<boolean> {
  try {
    await git(cwd, ['merge-base', '--is-ancestor', `refs/heads/${ancestor}`, `refs/heads/${branch}`]);
    return true;
  } catch {
    return false;
  }
}

/**
 * Commits files onto ARTIFACTS_REF, authored by the agent and committed by the office, with plumbing and
 * a private index: the human's branch, index and working tree are never touched, no hook or filter runs,
 * and two publishes racing retry on the ref's compare-and-swap instead of fighting over index.lock.
 */
export async function commitToArtifactsRef(
  root: string,
  files: { path: string; abs: string }[],
  message: string,
  author: { name: string; email: string },
): Promise<string> {
  const index = path.join(os.tmpdir(), `holon-index-${randomBytes(8).toString('hex')}`);
  // Angle brackets would let a name carry an address of its own into the author line.
  const clean = (t: string): string => t.replace(/[<>\n]/g, '').trim() || 'agent';
  const env = {
    GIT_INDEX_FILE: index,
    GIT_AUTHOR_NAME: clean(author.name),
    GIT_AUTHOR_EMAIL: clean(author.email),
    GIT_COMMITTER_NAME: 'Holon office',
    GIT_COMMITTER_EMAIL: 'office@holon.invalid',
  };
  try {
    for (let attempt = 0; ; attempt++) {
      let parent: string | null = null;
      try {
        parent = await git(root, ['rev-parse', '--verify', '--quiet', `${ARTIFACTS_REF}^{commit}`]);
      } catch {
        parent = null;
      }
      fs.rmSync(index, { force: true });
      await git(root, parent ? ['read-tree', parent] : ['read-tree', '--empty'], env);
      for (const f of files) {
        const blob = await git(root, ['hash-object', '-w', '--no-filters', '--', f.abs], env);
        await git(root, ['update-index', '--add', '--cacheinfo', `100644,${blob},${f.path}`], env);
      }
      const tree = await git(root, ['write-tree'], env);
      const commit = await git(root, ['commit-tree', tree, ...(parent ? ['-p', parent] : []), '-m', message], env);
      try {
        await git(root, ['update-ref', ARTIFACTS_REF, commit, parent ?? '0'.repeat(40)], env);
        return commit;
      } catch (err) {
        if (attempt >= 8) throw err;
      }
    }
  } finally {
    fs.rmSync(index, { force: true });
  }
}

/** A path as a gitignore pattern matches it literally (git reads `\\`, `*`, `?` and `[` as pattern characters). */
function literalPattern(relPath: string): string {
  return relPath.replace(/[\\*?[]/g, (c) => `\\${c}`);
}

/**
 * Keeps `folder` (inside the repository at `root`) out of the human's `git status`: a line in the
 * repository's own exclude file (`info/exclude`, where `git rev-parse --git-path` puts it, so a worktree's
 * is found too), added once and never again. Never `.gitignore`, which is the project's own and tracked.
 * Returns whether the line is there. The file is only ever appended to, and never through a link: an agent
 * that can write the workspace could point it at another file of the human's.
 */
export async function excludeFromStatus(root: string, folder: string): Promise<boolean> {
  const rel = path.relative(root, folder).split(path.sep).join('/');
  if (rel === '' || rel.startsWith('..') || path.isAbsolute(rel)) return false;
  const pattern = `/${literalPattern(rel)}/`;
  const file = path.resolve(root, await git(root, ['rev-parse', '--git-path', 'info/exclude']));
  const dir = path.dirname(file);
  try {
    if (!fs.lstatSync(dir).isDirectory()) return false;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    fs.mkdirSync(dir);
  }
  const fd = fs.openSync(file, fs.constants.O_RDWR | fs.constants.O_APPEND | fs.constants.O_CREAT | fs.constants.O_NOFOLLOW, 0o644);
  try {
    if (!fs.fstatSync(fd).isFile()) return false;
    const text = fs.readFileSync(fd, 'utf8');
    if (text.split('\n').some((line) => line.trim() === pattern)) return true;
    const lead = text.length > 0 && !text.endsWith('\n') ? '\n' : '';
    fs.writeSync(fd, `${lead}# Holon office artifacts: published on ${ARTIFACTS_REF}, kept out of git status\n${pattern}\n`);
    return true;
  } finally {
    fs.closeSync(fd);
  }
}
