/**
 * The forge an agent opens pull requests on (seed 004): the workspace's own git, or GitHub. A repo must
 * be in the agent's `forge.read` / `forge.write` lists; the agent can open a pull request and list open
 * ones, never merge — merging is the human's, in their forge. An open pull request for the same head and
 * base is returned instead of a second one.
 */
import { CAP } from '../kernel/capabilities.ts';
import type { Clock } from '../kernel/deps.ts';
import { denial } from '../kernel/denials.ts';
import { HolonError } from '../kernel/errors.ts';
import type { MandatesFields } from '../accounts/mandates.ts';
import { mandateOf } from '../accounts/mandates.ts';
import type { EventStore } from '../store/store.ts';
import { allowedTargets, grantsAllow, grantsNow } from './colleagues.ts';
import { branchCommit, checkBranchName, isMerged } from './git.ts';
import type { OfficeFields, PullRequest } from './slice.ts';
import { officeEvent } from './slice.ts';

/** A pull request as a forge lists it. */
export interface ForgePr {
  number: number;
  title: string;
  head: string;
  base: string;
  author: string;
  url: string;
}

export interface OpenPrRequest {
  repo: string;
  head: string;
  base: string;
  title: string;
  body: string;
  /** The agent's own name on the forge. */
  author: string;
}

/** Where pull requests live. */
export interface Forge {
  /** `git` or `github`: recorded with every pull request. */
  readonly name: string;
  listOpen(repo: string, known: PullRequest[]): Promise<ForgePr[]>;
  /** Opens one, or returns the open one for the same head and base (`existing: true`). */
  open(r: OpenPrRequest, known: PullRequest[]): Promise<ForgePr & { existing: boolean }>;
}

/**
 * The workspace's git as a forge: the repository is named by its folder, a pull request is a record in
 * the journal (branch, base, title, body), and it is open until its head is contained in its base —
 * that is, until the human merged it in git.
 */
export class GitForge implements Forge {
  readonly name = 'git';
  constructor(
    private readonly root: string,
    readonly repoName: string,
  ) {}

  private check(repo: string): void {
    if (repo !== this.repoName)
      throw new HolonError('not_found', `this workspace's forge has one repository, "${this.repoName}"`, { repo });
  }

  private url(n: number): string {
    return `git:${this.repoName}#${n}`;
  }

  async listOpen(repo: string, known: PullRequest[]): Promise<ForgePr[]> {
    this.check(repo);
    const out: ForgePr[] = [];
    for (const pr of known.filter((p) => p.forge === this.name && p.repo === repo)) {
      if ((await branchCommit(this.root, pr.head)) === null || (await isMerged(this.root, pr.head, pr.base))) continue;
      out.push({ number: pr.number, title: pr.title, head: pr.head, base: pr.base, author: pr.author, url: pr.url });
    }
    return out;
  }

  async open(r: OpenPrRequest, known: PullRequest[]): Promise<ForgePr & { existing: boolean }> {
    this.check(r.repo);
    await checkBranchName(this.root, r.head);
    await checkBranchName(this.root, r.base);
    if ((await branchCommit(this.root, r.head)) === null)
      throw new HolonError('conflict', `the forge refused: branch "${r.head}" does not exist; commit and create it first`, {
        head: r.head,
      });
    if ((await branchCommit(this.root, r.base)) === null)
      throw new HolonError('conflict', `the forge refused: base branch "${r.base}" does not exist`, { base: r.base });
    const open = await this.listOpen(r.repo, known);
    const same = open.find((p) => p.head === r.head && p.base === r.base);
    if (same) return { ...same, existing: true };
    if (await isMerged(this.root, r.head, r.base))
      throw new HolonError('conflict', `the forge refused: "${r.head}" has nothing that is not already in "${r.base}"`, { head: r.head });
    const number = known.filter((p) => p.forge === this.name && p.repo === r.repo).reduce((n, p) => Math.max(n, p.number), 0) + 1;
    return { number, title: r.title, head: r.head, base: r.base, author: r.author, url: this.url(number), existing: false };
  }
}

/** Refuses a repo outside the lists of the given capabilities. */
function checkRepo(s: MandatesFields & OfficeFields, mandate: string, repo: string, caps: string[], now: number): void {
  const m = mandateOf(s, mandate);
  const grants = caps.flatMap((c) => grantsNow(s, m, c, now));
  if (grantsAllow(grants.length > 0 ? grants : [{ name: caps[0] as string, params: { repos: [] } }], 'repos', repo)) return;
  const d = denial('capability_scope', { capability: caps.join(' or '), target: repo, allowed: allowedTargets(grants, 'repos') });
  throw new HolonError('denied', `${caps.join(' or ')} does not cover ${repo}`, { repo }, [d]);
}

function known(s: OfficeFields): PullRequest[] {
  return Object.values(s.office.prs);
}

/** Open pull requests on a repo the agent may read or write. */
export async function listPrs(
  store: EventStore<MandatesFields & OfficeFields>,
  clock: Clock,
  forge: Forge,
  mandate: string,
  repo: string,
): Promise<ForgePr[]> {
  checkRepo(store.state, mandate, repo, [CAP.forgeRead, CAP.forgeWrite], clock.now());
  return forge.listOpen(repo, known(store.state));
}

/** Opens a pull request as the agent, on a repo it may write; records it. */
export async function openPr(
  store: EventStore<MandatesFields & OfficeFields>,
  clock: Clock,
  forge: Forge,
  r: { mandate: string; repo: string; head: string; base: string; title: string; body: string },
): Promise<{ pr: ForgePr; existing: boolean }> {
  checkRepo(store.state, r.mandate, r.repo, [CAP.forgeWrite], clock.now());
  if (r.head === r.base) throw new HolonError('invalid_input', 'head and base are the same branch');
  const m = mandateOf(store.state, r.mandate);
  const opened = await forge.open(
    { repo: r.repo, head: r.head, base: r.base, title: r.title, body: r.body, author: m.grantee.slug },
    known(store.state),
  );
  const { existing, ...pr } = opened;
  if (!existing) {
    const record: PullRequest = {
      id: `${forge.name}:${r.repo}#${pr.number}`,
      forge: forge.name,
      repo: r.repo,
      number: pr.number,
      title: pr.title,
      head: pr.head,
      base: pr.base,
      author: pr.author,
      mandate: m.id,
      url: pr.url,
      created_at: new Date(clock.now()).toISOString(),
    };
    await store.transact((s) => {
      // Two calls racing for the same number: the second is told to try again rather than overwrite.
      if (s.office.prs[record.id])
        throw new HolonError('conflict', `pull request ${record.id} was opened meanwhile; list and try again`, { pr: record.id });
      return { events: [officeEvent('forge.pr.opened', { pr: record })], result: undefined };
    });
  }
  return { pr, existing };
}
