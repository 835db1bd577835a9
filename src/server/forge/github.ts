/**
 * GitHub as the office's forge (seed 004): the pull requests of the repositories of one owner (an org or
 * a user), through the two documented endpoints `GET` and `POST /repos/{owner}/{repo}/pulls` and nothing
 * else, so the agent can list and open pull requests and never merge. The token is the human's; it is
 * sent to GitHub only, and never appears in an error, a log line or a result.
 */
import { Octokit as OctokitCore } from '@octokit/core';
import { paginateRest } from '@octokit/plugin-paginate-rest';
import type { Logger } from '../../core/kernel/deps.ts';
import { HolonError } from '../../core/kernel/errors.ts';
import type { Forge, ForgePr, OpenPrRequest } from '../../core/office/forge.ts';

// Octokit's core with its paginator, asked by route: the two endpoints Holon uses, without the table of
// every GitHub endpoint that `@octokit/rest` carries (some 80 kB in the package, for nothing).
const Octokit = OctokitCore.plugin(paginateRest);
type Octokit = InstanceType<typeof Octokit>;

/** GitHub's public API; GitHub Enterprise Server answers under `https://HOST/api/v3`. */
export const GITHUB_API = 'https://api.github.com';

/** How many open pull requests a list reads at most (100 a page). */
const MAX_LISTED = 1000;
const PER_PAGE = 100;
/** A GitHub that does not answer fails the call rather than holding the agent forever. */
const REQUEST_TIMEOUT_MS = 30_000;

export interface GitHubForgeOptions {
  /** The org or user whose repositories the agent's `forge.read` / `forge.write` repos name. */
  owner: string;
  token: string;
  /** Default https://api.github.com. Plain http only to this machine: the token is never sent in clear. */
  baseUrl?: string;
  userAgent?: string;
  /** Where GitHub's own warnings go (deprecations); failures are thrown as HolonErrors instead. */
  logger?: Logger;
}

/** The fields of a pull request this forge reads, as GitHub returns them. */
interface GitHubPull {
  number: number;
  title: string;
  html_url: string;
  head: { ref: string };
  base: { ref: string };
  user: { login: string } | null;
}

function toForgePr(p: GitHubPull): ForgePr {
  // A deleted account's pull requests have no user; GitHub shows them as "ghost".
  return { number: p.number, title: p.title, head: p.head.ref, base: p.base.ref, author: p.user?.login ?? 'ghost', url: p.html_url };
}

function checkBaseUrl(text: string): string {
  let u: URL;
  try {
    u = new URL(text);
  } catch {
    throw new HolonError('invalid_input', `the GitHub API URL "${text}" is not a URL`);
  }
  const host = u.hostname.replace(/^\[(.*)\]$/, '$1');
  const loopback = host === 'localhost' || host === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
  if (u.protocol !== 'https:' && !(u.protocol === 'http:' && loopback))
    throw new HolonError(
      'invalid_input',
      `the GitHub API URL must be https (got ${u.protocol}//${u.host}): the token is never sent in clear`,
    );
  if (u.username || u.password || u.search || u.hash)
    throw new HolonError('invalid_input', 'the GitHub API URL takes no credentials, query or fragment');
  return u.toString().replace(/\/+$/, '');
}

/** GitHub's error body: `{message, errors: [{resource, field, code, message}]}`. */
interface GitHubErrorBody {
  message?: unknown;
  errors?: unknown;
}

/**
 * What GitHub said, in one sentence: the detailed reasons of a 422 when it gave them, else its message.
 * A branch GitHub does not know comes back as `{field: "head", code: "invalid"}`: that is said in words.
 */
function githubReason(body: GitHubErrorBody | undefined, fallback: string, branches: { head?: string; base?: string }): string {
  const details = Array.isArray(body?.errors)
    ? body.errors.flatMap((e: unknown): string[] => {
        if (typeof e === 'string') return [e];
        if (typeof e !== 'object' || e === null) return [];
        const { message, field, code } = e as { message?: unknown; field?: unknown; code?: unknown };
        if (typeof message === 'string' && message) return [message];
        if ((field === 'head' || field === 'base') && code === 'invalid' && branches[field] !== undefined)
          return [`${field} branch "${branches[field]}" is not on GitHub; push it first`];
        if (typeof field === 'string' && typeof code === 'string') return [`${field} ${code}`];
        return [];
      })
    : [];
  if (details.length > 0) return details.join('; ');
  return typeof body?.message === 'string' && body.message ? body.message : fallback;
}

/** The parts of Octokit's RequestError this forge reads (duck-typed: never its class or message). */
interface RequestFailure {
  status?: unknown;
  message?: unknown;
  response?: { data?: unknown; headers?: Record<string, string | number | undefined> };
}

/** The forge of one GitHub owner. */
export class GitHubForge implements Forge {
  readonly name = 'github';
  readonly owner: string;
  readonly baseUrl: string;
  readonly #octokit: Octokit;
  readonly #token: string;

  constructor(options: GitHubForgeOptions) {
    // GitHub's rule for a user or org name: letters, digits and single hyphens, at most 39.
    if (!/^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})$/.test(options.owner))
      throw new HolonError('invalid_input', `"${options.owner}" is not a GitHub user or organization name`);
    if (!options.token.trim()) throw new HolonError('invalid_input', 'the GitHub token is empty');
    this.owner = options.owner;
    this.baseUrl = checkBaseUrl(options.baseUrl ?? GITHUB_API);
    this.#token = options.token.trim();
    const logger = options.logger;
    const quiet = (): void => {};
    this.#octokit = new Octokit({
      auth: this.#token,
      baseUrl: this.baseUrl,
      userAgent: options.userAgent ?? 'holon',
      // Octokit logs each failed request on its own; the failure reaches the agent and the ledger as a HolonError.
      log: { debug: quiet, info: quiet, warn: (m: string) => logger?.warn(`GitHub: ${this.#scrub(m)}`), error: quiet },
    });
  }

  /** What GitHub may echo back never carries the token out. */
  #scrub(text: string): string {
    return text.split(this.#token).join('[redacted]');
  }

  #fail(err: unknown, repo: string, refusal: string, branches: { head?: string; base?: string } = {}): HolonError {
    if (HolonError.is(err)) return err;
    const e = (typeof err === 'object' && err !== null ? err : {}) as RequestFailure;
    const where = `${this.owner}/${repo}`;
    const status = typeof e.status === 'number' ? e.status : undefined;
    if (!e.response || status === undefined) {
      // No answer at all: the network, DNS or the timeout.
      const why = typeof e.message === 'string' ? this.#scrub(e.message) : 'no answer';
      return new HolonError('conflict', `GitHub did not answer (${why}); try again later`, { repo: where });
    }
    const said = this.#scrub(githubReason(e.response.data as GitHubErrorBody | undefined, `HTTP ${status}`, branches));
    const headers = e.response.headers ?? {};
    const details = { repo: where, status };
    if (status === 429 || (status === 403 && String(headers['x-ratelimit-remaining']) === '0')) {
      const reset = Number(headers['x-ratelimit-reset']);
      const when = Number.isFinite(reset) && reset > 0 ? ` after ${new Date(reset * 1000).toISOString()}` : ' later';
      return new HolonError('conflict', `GitHub's rate limit for this token is used up; try again${when}`, details);
    }
    if (status === 401)
      return new HolonError('denied', `GitHub refused the token (${said}): a human must check HOLON_GITHUB_TOKEN`, details);
    if (status === 403)
      return new HolonError(
        'denied',
        `GitHub refused access to ${where} (${said}): the token lacks the permission, or the org restricts it`,
        details,
      );
    if (status === 404)
      return new HolonError('not_found', `repository ${where} was not found on GitHub, or the token cannot see it`, details);
    if (status === 422) return new HolonError('conflict', `the forge refused: ${said}`, details);
    if (status >= 500) return new HolonError('conflict', `GitHub failed (${status}: ${said}); try again later`, details);
    return new HolonError('conflict', `${refusal} (${status}: ${said})`, details);
  }

  #signal(): { request: { signal: AbortSignal } } {
    return { request: { signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) } };
  }

  async listOpen(repo: string): Promise<ForgePr[]> {
    try {
      const out: ForgePr[] = [];
      const pages = this.#octokit.paginate.iterator('GET /repos/{owner}/{repo}/pulls', {
        owner: this.owner,
        repo,
        state: 'open',
        per_page: PER_PAGE,
        ...this.#signal(),
      });
      for await (const page of pages) {
        for (const p of page.data) out.push(toForgePr(p));
        if (out.length >= MAX_LISTED) break;
      }
      return out.slice(0, MAX_LISTED);
    } catch (err) {
      throw this.#fail(err, repo, 'GitHub refused to list the pull requests');
    }
  }

  /** The open pull request from `head` (a branch of this owner's repo) into `base`, if there is one. */
  async #openFor(repo: string, head: string, base: string): Promise<ForgePr | undefined> {
    const { data } = await this.#octokit.request('GET /repos/{owner}/{repo}/pulls', {
      owner: this.owner,
      repo,
      state: 'open',
      head: `${this.owner}:${head}`,
      base,
      per_page: 1,
      ...this.#signal(),
    });
    const first = data[0];
    return first ? toForgePr(first) : undefined;
  }

  async open(r: OpenPrRequest): Promise<ForgePr & { existing: boolean }> {
    // "user:branch" would name a fork's branch; the agent opens pull requests from the repo's own branches.
    if (r.head.includes(':') || r.base.includes(':'))
      throw new HolonError('invalid_input', `head and base are branches of ${this.owner}/${r.repo}, without an owner`, {
        head: r.head,
        base: r.base,
      });
    try {
      const same = await this.#openFor(r.repo, r.head, r.base);
      if (same) return { ...same, existing: true };
      try {
        const { data } = await this.#octokit.request('POST /repos/{owner}/{repo}/pulls', {
          owner: this.owner,
          repo: r.repo,
          head: r.head,
          base: r.base,
          title: r.title,
          body: r.body,
          ...this.#signal(),
        });
        return { ...toForgePr(data), existing: false };
      } catch (err) {
        // Another call opened the same one meanwhile: GitHub refuses the second, and the first is the answer.
        if ((err as RequestFailure).status === 422) {
          const raced = await this.#openFor(r.repo, r.head, r.base).catch(() => undefined);
          if (raced) return { ...raced, existing: true };
        }
        throw err;
      }
    } catch (err) {
      throw this.#fail(err, r.repo, 'GitHub refused to open the pull request', { head: r.head, base: r.base });
    }
  }
}
