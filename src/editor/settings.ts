/**
 * The human's settings. Every setting that could widen what an agent may do (who can approve, where
 * agents come from) is read from the user's own settings only: a workspace's `.vscode/settings.json` is
 * a file the agent can edit, so its values are never read for these. package.json also declares them
 * `application`-scoped, so VS Code offers them only in user settings.
 */
import * as vscode from 'vscode';
import type { ApprovalChannel } from '../core/approvals/model.ts';
import { APPROVAL_CHANNELS } from '../core/approvals/model.ts';
import type { ChainConfig } from '../core/rails/chain.ts';
import { chainConfig } from '../core/rails/chain.ts';

/** What `WorkspaceConfiguration.inspect` reports of one setting, as far as it matters here. */
export interface Inspected<T> {
  defaultValue?: T | undefined;
  globalValue?: T | undefined;
  workspaceValue?: T | undefined;
  workspaceFolderValue?: T | undefined;
}

/** The user's value of a setting, else its default: never a workspace's. */
export function userValue<T>(inspected: Inspected<T> | undefined, fallback: T): T {
  return inspected?.globalValue ?? inspected?.defaultValue ?? fallback;
}

function read<T>(key: string, fallback: T): T {
  return userValue(vscode.workspace.getConfiguration('holon').inspect<T>(key), fallback);
}

/** The human's approval settings. */
export interface ApprovalConfig {
  channels: ApprovalChannel[];
  waitSeconds: number;
}

/** Which channels the human accepts answers from, and how long a server waits for one. */
export function approvalConfig(): ApprovalConfig {
  const raw = read<unknown>('approvals.channels', ['panel', 'elicitation']);
  const channels = (Array.isArray(raw) ? raw : []).filter((x): x is ApprovalChannel =>
    (APPROVAL_CHANNELS as readonly unknown[]).includes(x),
  );
  const wait = read<unknown>('approvals.waitSeconds', 300);
  return { channels, waitSeconds: typeof wait === 'number' && Number.isFinite(wait) ? Math.min(Math.max(wait, 0), 3600) : 300 };
}

/**
 * Whether sellers' links may reach private addresses (loopback, the human's network): off by default,
 * for a seller the human runs themselves; a user setting only, like every setting that widens anything.
 */
export function allowPrivateSellers(): boolean {
  return read<unknown>('terms.allowPrivateSellers', false) === true;
}

/** Catalog files the human listed for Holon: Add Agent. */
export function registries(): string[] {
  const raw = read<unknown>('registries', []);
  return Array.isArray(raw) ? raw.filter((x): x is string => typeof x === 'string') : [];
}

/** The GitHub owner whose repositories are the office's forge, or null for the open folder's git. */
export function githubOwner(): string | null {
  const raw = read<unknown>('office.githubOwner', '');
  return typeof raw === 'string' && /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})$/.test(raw) ? raw : null;
}

/**
 * The team store the human named (`holon.store`), as written; storeSetting.ts says whether it can be used.
 * A user setting only: a workspace that named a store would choose which ledger the human's approvals go to.
 */
export function storeSetting(): unknown {
  return read<unknown>('store', '');
}

/**
 * The chain payments are read back on and `pay` settles on (`holon.chain.rpcUrl`, `.id`, `.token`,
 * `.facilitator`): the human's user settings, checked as the CLI checks its flags. `config` is null when
 * no RPC URL is set; `error` says why settings that are set cannot be used.
 */
export function chainSettings(): { config: ChainConfig | null; error: string | null } {
  const rpcUrl = read<unknown>('chain.rpcUrl', '');
  if (typeof rpcUrl !== 'string' || rpcUrl.trim() === '') return { config: null, error: null };
  const id = read<unknown>('chain.id', 0);
  const token = read<unknown>('chain.token', '');
  const facilitator = read<unknown>('chain.facilitator', '');
  try {
    const config = chainConfig({
      rpcUrl: rpcUrl.trim(),
      chainId: typeof id === 'number' ? id : Number.NaN,
      token: typeof token === 'string' ? token.trim() : '',
      facilitator: typeof facilitator === 'string' && facilitator.trim() !== '' ? facilitator.trim() : null,
    });
    return { config, error: null };
  } catch (err) {
    return { config: null, error: (err as Error).message };
  }
}
