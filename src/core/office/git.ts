/**
 * The workspace's own git, run as the real `git` binary: for committing artifacts and as the local forge.
 * Arguments are always passed as a list (never through a shell) and a ref is checked before use, so a
 * branch name an agent chose cannot become an option or a command.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { HolonError } from '../errors.ts';

const run = promisify(execFile);

/** The office commits as itself; the agent is the commit's author. */
const OFFICE_COMMITTER = { GIT_COMMITTER_NAME: 'Holon office', GIT_COMMITTER_EMAIL: 'office@holon.invalid' };

/** Runs git in `cwd`; stdout trimmed. */
export async function git(cwd: string, args: string[], env: Record<string, string> = {}): Promise<string> {
  const { stdout } = await run('git', args, { cwd, env: { ...process.env, ...env, GIT_TERMINAL_PROMPT: '0' }, maxBuffer: 16 * 1024 * 1024 });
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

/** Commits exactly `paths` (nothing else the human staged), authored by the agent; returns the commit. */
export async function commitPaths(root: string, paths: string[], message: string, author: { name: string; email: string }): Promise<string> {
  // -f: the state folder is often ignored, and the artifact is meant to be committed all the same.
  await git(root, ['add', '-f', '--', ...paths]);
  await git(root, ['commit', '--quiet', '--no-verify', `--author=${author.name} <${author.email}>`, '-m', message, '--', ...paths], OFFICE_COMMITTER);
  return git(root, ['rev-parse', 'HEAD']);
}
