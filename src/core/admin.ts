/**
 * What only the human does: fund accounts, write mandates, set rates, add agents, decide approvals.
 * None of this is reachable from an MCP tool.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Clock } from './deps.ts';
import { HolonError } from './errors.ts';
import type { EventStore } from './journal.ts';
import type { AgentEntry, Approval, ApprovalChannel, Endpoint, Manifest, Mandate } from './model.ts';
import * as M from './money.ts';
import type { MandateInput } from './schemas.ts';
import { CatalogSchema, EndpointSchema, firstIssue, MandateId, MandateInputSchema, ManifestSchema } from './schemas.ts';
import type { HolonState } from './state.ts';
import { ev } from './state.ts';

/** The object without its undefined fields, so a partial edit never blanks a field. */
function defined<T extends object>(o: T): { [K in keyof T]-?: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as { [K in keyof T]-?: Exclude<T[K], undefined> };
}

const ACCOUNT = /^[a-z0-9][a-z0-9_-]{0,62}$/;

/** Adds funds to an account. */
export async function fund(store: EventStore<HolonState>, account: string, amount: string, currency = 'EUR'): Promise<M.Money> {
  if (!ACCOUNT.test(account)) throw new HolonError('invalid_input', `"${account}" is not an account name (lower-case letters, digits, - and _)`);
  const m = M.money(amount, currency);
  if (m.units <= 0n) throw new HolonError('invalid_input', 'the amount must be positive');
  await store.transact(() => ({ events: [ev('account.funded', { account, amount: M.formatUnits(m.units), currency: m.currency })], result: undefined }));
  return m;
}

function parseMandateInput(input: unknown): MandateInput {
  const parsed = MandateInputSchema.strict().safeParse(input);
  if (!parsed.success) throw new HolonError('invalid_input', `mandate: ${firstIssue(parsed.error)}`);
  return parsed.data;
}

function checkMandate(m: Mandate): Mandate {
  const total = M.money(m.budget.total, m.currency);
  if (total.units <= 0n) throw new HolonError('invalid_input', 'mandate: budget.total must be positive');
  if (m.budget.per_call && M.parseUnits(m.budget.per_call) <= 0n) throw new HolonError('invalid_input', 'mandate: budget.per_call must be positive');
  if (m.budget.per_day && M.parseUnits(m.budget.per_day) <= 0n) throw new HolonError('invalid_input', 'mandate: budget.per_day must be positive');
  return m;
}

/** Creates a mandate `account/name`; everything not given takes a careful default. */
export async function createMandate(store: EventStore<HolonState>, clock: Clock, id: string, input: unknown): Promise<Mandate> {
  if (!MandateId.safeParse(id).success) throw new HolonError('invalid_input', `"${id}" is not a mandate id (account/name, lower case)`);
  const i = parseMandateInput(input);
  const [account = '', name = ''] = id.split('/');
  const now = new Date(clock.now()).toISOString();
  const currency = i.currency ?? 'EUR';
  const m = checkMandate({
    id,
    account,
    name,
    grantee: i.grantee ?? { slug: name, name: `Agent on ${id}`, role: 'coding agent', manager: null },
    currency,
    budget: { total: i.budget?.total ?? '5.00', per_day: i.budget?.per_day ?? null, per_call: i.budget?.per_call ?? null },
    approval_threshold: i.approval_threshold ?? '0.50',
    toolsets: i.toolsets ?? ['market'],
    capabilities: i.capabilities ?? [{ name: 'market.call', params: { capabilities: ['*'] } }],
    data: { regions: i.data?.regions ?? null, retention_days: i.data?.retention_days ?? null, training: i.data?.training ?? false },
    expires_at: i.expires_at ?? null,
    status: i.status ?? 'active',
    created_at: now,
    updated_at: now,
  });
  return store.transact((s) => {
    if (s.mandates[id]) throw new HolonError('conflict', `mandate ${id} already exists; edit it instead`);
    return { events: [ev('mandate.created', { mandate: m })], result: m };
  });
}

/** Changes a mandate; fields not given stay as they are. */
export async function updateMandate(store: EventStore<HolonState>, clock: Clock, id: string, input: unknown): Promise<Mandate> {
  const i = parseMandateInput(input);
  return store.transact((s) => {
    const old = s.mandates[id];
    if (!old) throw new HolonError('not_found', `no mandate "${id}"`);
    const m = checkMandate({
      ...old,
      ...(i.grantee ? { grantee: i.grantee } : {}),
      ...(i.currency ? { currency: i.currency } : {}),
      budget: { ...old.budget, ...defined(i.budget ?? {}) },
      ...(i.approval_threshold ? { approval_threshold: i.approval_threshold } : {}),
      ...(i.toolsets ? { toolsets: i.toolsets } : {}),
      ...(i.capabilities ? { capabilities: i.capabilities } : {}),
      data: { ...old.data, ...defined(i.data ?? {}) },
      ...(i.expires_at !== undefined ? { expires_at: i.expires_at } : {}),
      ...(i.status ? { status: i.status } : {}),
      updated_at: new Date(clock.now()).toISOString(),
    });
    if (m.currency !== old.currency && (s.spend[id]?.spent ?? 0n) + (s.spend[id]?.held ?? 0n) > 0n) {
      throw new HolonError('conflict', `mandate ${id} has already spent in ${old.currency}; its currency cannot change`);
    }
    return { events: [ev('mandate.updated', { mandate: m })], result: m };
  });
}

/** Sets the rate: one unit of `from` is worth `rate` units of `to`. */
export async function setFx(store: EventStore<HolonState>, from: string, to: string, rate: string): Promise<void> {
  M.currency(from);
  M.currency(to);
  if (from === to) throw new HolonError('invalid_input', 'a rate needs two different currencies');
  if (M.parseUnits(rate) <= 0n) throw new HolonError('invalid_input', 'the rate must be positive');
  await store.transact(() => ({ events: [ev('fx.set', { from, to, rate: M.formatUnits(M.parseUnits(rate)) })], result: undefined }));
}

/** Adds (or replaces) an agent in the catalog. */
export async function addAgent(store: EventStore<HolonState>, clock: Clock, manifest: unknown, endpoint: unknown, source: string): Promise<AgentEntry> {
  const m = ManifestSchema.safeParse(manifest);
  if (!m.success) throw new HolonError('invalid_input', `manifest: ${firstIssue(m.error)}`);
  const e = EndpointSchema.safeParse(endpoint);
  if (!e.success) throw new HolonError('invalid_input', `endpoint: ${firstIssue(e.error)}`);
  const entry: AgentEntry = { manifest: m.data as Manifest, endpoint: e.data as Endpoint, source, added_at: new Date(clock.now()).toISOString() };
  await store.transact(() => ({ events: [ev('agent.added', { entry })], result: undefined }));
  return entry;
}

/**
 * Reads a catalog file (`{agents: [{manifest, endpoint}]}`, or one `{manifest, endpoint}`); endpoint
 * arguments starting with "./" resolve against the file's folder.
 */
export function readCatalog(file: string): { manifest: Manifest; endpoint: Endpoint }[] {
  let json: unknown;
  try {
    json = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (err) {
    throw new HolonError('invalid_input', `cannot read catalog ${file}: ${(err as Error).message}`);
  }
  const parsed = CatalogSchema.safeParse(json && typeof json === 'object' && 'manifest' in json ? { agents: [json] } : json);
  if (!parsed.success) throw new HolonError('invalid_input', `catalog ${file}: ${firstIssue(parsed.error)}`);
  const dir = path.dirname(path.resolve(file));
  return parsed.data.agents.map((a) => {
    const endpoint = a.endpoint as Endpoint;
    if (endpoint.type !== 'stdio') return { manifest: a.manifest as Manifest, endpoint };
    const args = endpoint.args.map((x) => (x.startsWith('./') ? path.join(dir, x) : x));
    return { manifest: a.manifest as Manifest, endpoint: { ...endpoint, args, cwd: endpoint.cwd ? path.resolve(dir, endpoint.cwd) : dir } };
  });
}

/**
 * Which channels may answer approvals on this state (null: all). The editor writes it from its settings,
 * so `holon approve` in a terminal — where an agent could type too — obeys the human's choice.
 */
export async function setApprovalChannels(store: EventStore<HolonState>, channels: ApprovalChannel[] | null): Promise<void> {
  const same = (a: ApprovalChannel[] | null, b: ApprovalChannel[] | null): boolean => JSON.stringify(a && [...a].sort()) === JSON.stringify(b && [...b].sort());
  await store.transact((s) => ({ events: same(s.settings.approval_channels, channels) ? [] : [ev('settings.updated', { approval_channels: channels })], result: undefined }));
}

/** True if `channel` may answer approvals on this state. */
export function channelAccepted(state: HolonState, channel: ApprovalChannel): boolean {
  return state.settings.approval_channels === null || state.settings.approval_channels.includes(channel);
}

/**
 * Records a human's decision. The first decision wins: a second one, from any channel, is refused with
 * the decision already made.
 */
export async function decideApproval(
  store: EventStore<HolonState>,
  clock: Clock,
  id: string,
  decision: 'approved' | 'rejected',
  channel: ApprovalChannel,
): Promise<Approval> {
  return store.transact((s) => {
    const a = s.approvals[id];
    if (!a) throw new HolonError('not_found', `no approval "${id}"`);
    if (!channelAccepted(s, channel)) throw new HolonError('denied', `approvals through ${channel} are turned off for this state (setting holon.approvals.channels)`);
    if (a.status !== 'pending') throw new HolonError('conflict', `approval ${id} was already ${a.status}${a.channel ? ` (${a.channel})` : ''}`, { status: a.status });
    if (Date.parse(a.expires_at) <= clock.now()) throw new HolonError('conflict', `approval ${id} expired at ${a.expires_at}`, { status: 'expired' });
    return { events: [ev('approval.decided', { id, decision, channel })], result: { ...a, status: decision, channel } };
  });
}

/**
 * Waits until an approval leaves `pending` (a decision from any process), the time runs out, or the
 * signal aborts. `onTick` runs about once a second meanwhile (progress notifications).
 */
export function waitForDecision(
  store: EventStore<HolonState>,
  id: string,
  timeoutMs: number,
  options: { signal?: AbortSignal; onTick?: (elapsedMs: number) => void } = {},
): Promise<Approval['status']> {
  const statusNow = (): Approval['status'] => store.state.approvals[id]?.status ?? 'pending';
  if (statusNow() !== 'pending' || timeoutMs <= 0) return Promise.resolve(statusNow());
  return new Promise((resolve) => {
    const start = Date.now();
    const finish = (): void => {
      clearTimeout(timer);
      clearInterval(ticker);
      unsubscribe();
      options.signal?.removeEventListener('abort', finish);
      resolve(statusNow());
    };
    const unsubscribe = store.subscribe(() => {
      if (statusNow() !== 'pending') finish();
    });
    const timer = setTimeout(finish, timeoutMs);
    const ticker = setInterval(() => options.onTick?.(Date.now() - start), 1000);
    options.signal?.addEventListener('abort', finish);
  });
}
