/**
 * Artifacts (seed 004): a finished deliverable an agent publishes for the humans. The file and its
 * `artifact.json` are written under the workspace's `.holon/artifacts/<id>/` in one step (a folder made
 * aside and renamed into place), committed when the workspace is a git repository (whose own exclude file
 * then keeps `.holon/` out of the human's `git status`), and recorded in the journal. Every call makes a
 * new artifact; nothing is overwritten. The content is never ledgered.
 */
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Clock } from '../kernel/deps.ts';
import { HolonError } from '../kernel/errors.ts';
import { ARTIFACT_META, ARTIFACTS_DIR } from '../local/stateFolder.ts';
import type { MandatesFields } from '../accounts/mandates.ts';
import { mandateOf } from '../accounts/mandates.ts';
import type { EventStore } from '../store/store.ts';
import { toDict } from '../kernel/util.ts';
import type { Mandate } from '../kernel/model.ts';
import { commitToArtifactsRef, excludeFromStatus, repoRoot } from './git.ts';
import type { Logger } from '../kernel/deps.ts';
import type { Artifact, OfficeFields } from './slice.ts';
import { officeEvent } from './slice.ts';

export const MAX_TEXT_BYTES = 2 * 1024 * 1024;
export const MAX_BINARY_BYTES = 10 * 1024 * 1024;

// Looked up by the extension an agent chose: without a prototype, "notes.constructor" is just a file.
const KINDS = toDict<string>({
  md: 'markdown',
  markdown: 'markdown',
  txt: 'text',
  html: 'page',
  htm: 'page',
  png: 'image',
  jpg: 'image',
  jpeg: 'image',
  gif: 'image',
  svg: 'image',
  webp: 'image',
  pdf: 'pdf',
  csv: 'data',
  tsv: 'data',
  json: 'data',
  xlsx: 'data',
  yaml: 'data',
  yml: 'data',
});

/**
 * The file name an artifact is stored under: a bare name with an extension. Paths, names starting with
 * a dot and `artifact.json` are refused; any other unusual character becomes `-`.
 */
export function artifactFileName(name: string): string {
  if (/[/\\]/.test(name) || name === '..' || name === '.')
    throw new HolonError('invalid_input', 'filename is a bare file name, not a path');
  if (name.startsWith('.')) throw new HolonError('invalid_input', 'filename may not start with a dot');
  const clean = name.replace(/[^A-Za-z0-9._-]/g, '-');
  if (clean.toLowerCase() === ARTIFACT_META) throw new HolonError('invalid_input', `${ARTIFACT_META} is the office's own file`);
  if (!/\.[A-Za-z0-9]+$/.test(clean) || clean.length > 200)
    throw new HolonError('invalid_input', 'filename needs an extension (report.md, chart.png), and at most 200 characters');
  return clean;
}

/** How a file is shown, from its extension. */
export function artifactKind(filename: string): string {
  return KINDS[filename.slice(filename.lastIndexOf('.') + 1).toLowerCase()] ?? 'file';
}

/** The bytes of exactly one of `content` (UTF-8, ≤ 2 MB) and `content_base64` (≤ 10 MB decoded, a data: prefix allowed). */
export function artifactBytes(content: string | undefined, contentBase64: string | undefined): Buffer {
  if ((content === undefined) === (contentBase64 === undefined))
    throw new HolonError('invalid_input', 'pass exactly one of content and content_base64');
  if (content !== undefined) {
    const bytes = Buffer.from(content, 'utf8');
    if (bytes.length > MAX_TEXT_BYTES) throw new HolonError('invalid_input', `content is ${bytes.length} bytes; at most ${MAX_TEXT_BYTES}`);
    return bytes;
  }
  const b64 = (contentBase64 as string).replace(/^data:[^,]*;base64,/, '').replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(b64) || b64.length % 4 !== 0) throw new HolonError('invalid_input', 'content_base64 is not base64');
  if ((b64.length / 4) * 3 > MAX_BINARY_BYTES + 3)
    throw new HolonError('invalid_input', `content_base64 decodes to more than ${MAX_BINARY_BYTES} bytes`);
  const bytes = Buffer.from(b64, 'base64');
  if (bytes.length > MAX_BINARY_BYTES)
    throw new HolonError('invalid_input', `content_base64 decodes to ${bytes.length} bytes; at most ${MAX_BINARY_BYTES}`);
  return bytes;
}

/**
 * The artifacts folder, made if missing. Every part of it must be a real folder inside the workspace:
 * an agent that can write the workspace could plant a link that sends the office's writes elsewhere.
 */
function artifactsRoot(workspace: string): string {
  let dir = fs.realpathSync(workspace);
  for (const part of ARTIFACTS_DIR.split(path.sep)) {
    dir = path.join(dir, part);
    try {
      if (!fs.lstatSync(dir).isDirectory())
        throw new HolonError('conflict', `${dir} is not a plain folder; the office will not write through it`, { path: dir });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      fs.mkdirSync(dir);
    }
  }
  return dir;
}

function folderName(title: string): string {
  const slug =
    title
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 48) || 'artifact';
  return `${slug}-${randomBytes(4).toString('hex')}`;
}

export interface PublishRequest {
  mandate: string;
  workspace: string;
  title: string;
  summary?: string | undefined;
  filename: string;
  content?: string | undefined;
  content_base64?: string | undefined;
}

/** Writes, commits and records one new artifact. */
export async function publishArtifact(
  store: EventStore<MandatesFields & OfficeFields>,
  clock: Clock,
  r: PublishRequest,
  logger?: Logger,
): Promise<Artifact> {
  const m = mandateOf(store.state, r.mandate);
  const filename = artifactFileName(r.filename);
  const bytes = artifactBytes(r.content, r.content_base64);
  const root = artifactsRoot(r.workspace);
  const id = folderName(r.title);
  const created_at = new Date(clock.now()).toISOString();
  const meta = {
    id,
    title: r.title,
    summary: r.summary ?? null,
    filename,
    kind: artifactKind(filename),
    author: m.grantee.slug,
    mandate: m.id,
    bytes: bytes.length,
    sha256: createHash('sha256').update(bytes).digest('hex'),
    created_at,
  };
  writeFolder(root, id, [
    [filename, bytes],
    [ARTIFACT_META, JSON.stringify(meta, null, 2) + '\n'],
  ]);
  const folder = path.join(root, id);
  const workspaceReal = fs.realpathSync(r.workspace);
  const rel = path.relative(workspaceReal, folder).split(path.sep).join('/');
  const paths = [path.join(folder, filename), path.join(folder, ARTIFACT_META)];
  const commit = await commitArtifact(workspaceReal, root, id, paths, r.title, m, logger);
  const artifact: Artifact = {
    id,
    mandate: m.id,
    slug: m.grantee.slug,
    title: r.title,
    summary: r.summary ?? null,
    filename,
    kind: meta.kind,
    path: rel,
    bytes: bytes.length,
    sha256: meta.sha256,
    commit,
    created_at,
  };
  await store.transact(() => ({ events: [officeEvent('artifact.published', { artifact })], result: undefined }));
  return artifact;
}

/**
 * Writes `files`, in order, into a new folder `root/id`. Both files appear at once: the folder is complete before it
 * gets its name.
 */
function writeFolder(root: string, id: string, files: [name: string, content: Buffer | string][]): void {
  const staging = fs.mkdtempSync(path.join(root, '.staging-'));
  // The folder could have been swapped for a link since it was checked: the writes go only where it still is.
  const stillInside = (): void => {
    if (path.dirname(fs.realpathSync(staging)) !== root)
      throw new HolonError('conflict', `${root} changed while publishing; the office will not write through it`, { path: root });
  };
  try {
    stillInside();
    for (const [name, content] of files) fs.writeFileSync(path.join(staging, name), content, { flag: 'wx' });
    stillInside();
    fs.renameSync(staging, path.join(root, id));
  } catch (err) {
    fs.rmSync(staging, { recursive: true, force: true });
    throw err;
  }
}

/**
 * Commits an artifact's files to the artifacts ref of the workspace's repository, as its author; null
 * when the workspace is in none, or git cannot write to it (the files are published either way).
 */
async function commitArtifact(
  workspaceReal: string,
  root: string,
  id: string,
  paths: string[],
  title: string,
  m: Mandate,
  logger: Logger | undefined,
): Promise<string | null> {
  const repo = await repoRoot(workspaceReal);
  if (!repo) return null;
  // The files stay in the working tree for the human to open: kept out of their `git status`, not shown as untracked.
  try {
    await excludeFromStatus(repo, path.dirname(root));
  } catch (err) {
    logger?.warn(
      `artifact ${id}: could not keep ${path.dirname(root)} out of git status: ${String((err as Error).message).split('\n')[0]}`,
    );
  }
  const files = paths.map((abs) => ({ abs, path: path.relative(repo, abs).split(path.sep).join('/') }));
  try {
    return await commitToArtifactsRef(repo, files, `Publish artifact: ${title.replace(/\s+/g, ' ').slice(0, 200)}`, {
      name: m.grantee.name,
      email: `${m.grantee.slug}@agents.holon.invalid`,
    });
  } catch (err) {
    logger?.warn(`artifact ${id}: not committed: ${String((err as Error).message).split('\n')[0]}`);
    return null;
  }
}

/** The caller's artifacts, newest first. */
export function artifactsOf(s: MandatesFields & OfficeFields, mandate: string, limit: number): Artifact[] {
  const slug = mandateOf(s, mandate).grantee.slug;
  // Published order breaks ties between artifacts made in the same millisecond.
  return Object.values(s.office.artifacts)
    .filter((a) => a.slug === slug)
    .reverse()
    .sort((a, b) => (a.created_at > b.created_at ? -1 : a.created_at < b.created_at ? 1 : 0))
    .slice(0, limit);
}
