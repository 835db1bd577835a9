/**
 * Debian packages the tests need (Chromium for the editor, PostgreSQL for the team store), installed with
 * apt-get when the tests run as root, as on a fresh CI machine; once, whichever test files ask at once.
 */
import { spawnSync } from 'node:child_process';
import * as os from 'node:os';
import * as path from 'node:path';
import { withLockFolder } from './lockFolder.ts';

/** apt-get is one per machine, so its lock is too. */
const LOCK = path.join(os.tmpdir(), 'holon-tests-apt.lock');

function isRoot(): boolean {
  return typeof process.getuid === 'function' && process.getuid() === 0;
}

function apt(args: string[], why: string): void {
  const r = spawnSync('apt-get', args, { env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' }, encoding: 'utf8', timeout: 900_000, maxBuffer: 64 * 1024 * 1024 });
  if (r.status !== 0) throw new Error(`${why}: \`apt-get ${args.join(' ')}\` ${r.error ? `failed (${r.error.message})` : `exited ${r.status}`}\n${`${r.stdout ?? ''}\n${r.stderr ?? ''}`.trim().split('\n').slice(-40).join('\n')}`);
}

/**
 * Installs what `missing()` names (Debian package names; empty when all is there). Without root or
 * apt-get, throws saying what the tests need, for what, and the command to run.
 */
export async function aptInstall(missing: () => string[], what: string, log: (line: string) => void): Promise<void> {
  if (missing().length === 0) return;
  if (!isRoot() || spawnSync('apt-get', ['--version'], { stdio: 'ignore' }).status !== 0) {
    const need = missing();
    throw new Error(`${what}, and cannot install it: ${isRoot() ? 'there is no apt-get' : 'this process is not root'}. Run \`apt-get install -y ${need.join(' ')}\` as root.`);
  }
  await withLockFolder(LOCK, () => {
    const still = missing();
    if (still.length === 0) return;
    const start = Date.now();
    log(`installing ${still.join(' ')} with apt-get…`);
    apt(['update', '-qq'], 'apt-get update failed');
    apt(['install', '-y', '-qq', ...still], `could not install ${still.join(' ')}`);
    const after = missing();
    if (after.length > 0) throw new Error(`apt-get installed ${still.join(' ')}, yet ${after.join(' ')} is still missing`);
    log(`${still.join(' ')} installed in ${((Date.now() - start) / 1000).toFixed(1)} s`);
  }, 1_800_000);
}
