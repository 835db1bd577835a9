import { Server, ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import type { CallToolResult, InputRequiredResult, Tool } from '@modelcontextprotocol/server';
import { HolonError } from '../core/kernel/errors.ts';
import { DATA_RULE } from '../core/kernel/foreign.ts';
import type { ToolsetName } from '../core/kernel/model.ts';
import { HOLON_VERSION } from '../core/kernel/version.ts';
import { appToolMeta, registerApps, withAppData } from './apps.ts';
import { askInBand, requestStateCheck, resumedArgs, resumeOf } from './inBand.ts';
import type { ServerDeps } from './serverDeps.ts';
import { inputJsonSchema, outputJsonSchema } from './tools/jsonSchema.ts';
import { marketToolset } from './tools/market.ts';
import { termsToolset } from './tools/terms.ts';
import { officeToolset } from './tools/office.ts';
import { commerceToolset } from './tools/commerce.ts';
import { memoryToolset } from './tools/memory.ts';
import { moneyToolset } from './tools/money.ts';
import { recordsToolset } from './tools/records.ts';
import { runTool } from './tools/pipeline.ts';
import type { ToolDef, Toolset } from './tools/toolDef.ts';

/**
 * Every toolset, under its own name: a name added to TOOLSETS in src/shared/toolsets.ts and not here, or a
 * toolset under another's name, fails to compile.
 */
export const TOOLSETS: { [N in ToolsetName]: Toolset<N> } = {
  market: marketToolset,
  terms: termsToolset,
  office: officeToolset,
  commerce: commerceToolset,
  memory: memoryToolset,
  money: moneyToolset,
  records: recordsToolset,
};

/**
 * A tier listed on every server that offers its group, whether the mandate offers the tier or not: seed 003
 * registers quote and buy on every server ("a tool list whose shape depends on the stack is one a model
 * cannot plan against"). Where the mandate does not offer the tier, its tools answer not_found.
 */
const LISTED_WITH: readonly { tier: ToolsetName; group: ToolsetName }[] = [{ tier: 'commerce', group: 'money' }];

/** The first revision in which a request carries its own version and the server sends the client no requests. */
const MODERN = '2026-07-28';

/** True when the client speaks 2026-07-28 or later (on this connection, or in this request over HTTP). */
export function isModern(server: Server): boolean {
  const version = server.getNegotiatedProtocolVersion();
  return version !== undefined && version >= MODERN;
}

/**
 * How long a 2026-07-28 client may keep what it read. The tool list and the apps' pages never change while
 * a server runs (and only its client may see them: a mandate's tools are its own); the list of resources
 * neither. The SDK sends nothing of the kind to the older revisions.
 */
const CACHE_HINTS = {
  'tools/list': { ttlMs: 60 * 60 * 1000, cacheScope: 'private' },
  'resources/list': { ttlMs: 60 * 60 * 1000, cacheScope: 'private' },
  'resources/read': { ttlMs: 60 * 60 * 1000, cacheScope: 'private' },
} as const;

// A tool's JSON Schemas are the same for every server and client: written once.
const listed = new WeakMap<ToolDef, Tool>();
function toolListing(t: ToolDef): Tool {
  let l = listed.get(t);
  if (!l) {
    const schemas = { inputSchema: inputJsonSchema(t.input), outputSchema: outputJsonSchema(t.output) };
    l = { name: t.name, title: t.title, description: t.description, ...schemas, annotations: t.annotations };
    if (t.ui) l._meta = appToolMeta(t.ui);
    listed.set(t, l);
  }
  return l;
}

/**
 * An MCP server offering `toolsets` for one mandate, every call going through the one tool pipeline; it
 * also lists the tools of `listedOnly`, which answer not_found. The tool list never changes while a
 * server runs (a model plans against a stable list), and says so.
 */
export function createToolServer(
  deps: ServerDeps,
  mandate: string,
  toolsets: Toolset[],
  info: { name: string; title: string; instructions?: string },
  listedOnly: Toolset[] = [],
): Server {
  const server = new Server(
    { name: info.name, title: info.title, version: HOLON_VERSION },
    {
      capabilities: { tools: { listChanged: false } },
      ...(info.instructions ? { instructions: info.instructions } : {}),
      requestState: requestStateCheck,
      cacheHints: CACHE_HINTS,
    },
  );
  const byName = new Map<string, { tool: ToolDef; toolset: Toolset; offered: boolean }>();
  for (const [sets, offered] of [
    [toolsets, true],
    [listedOnly, false],
  ] as const) {
    for (const toolset of sets)
      for (const tool of toolset.tools) if (tool.offered?.(deps) ?? true) byName.set(tool.name, { tool, toolset, offered });
  }
  server.setRequestHandler('tools/list', () => ({ tools: [...byName.values()].map(({ tool }) => toolListing(tool)) }));
  server.setRequestHandler('tools/call', async (request, extra): Promise<CallToolResult | InputRequiredResult> => {
    const { name } = request.params;
    const found = byName.get(name);
    if (!found) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Tool ${name} not found`);
    // 2026-07-28 and later: the human is asked in the answer, and a retry names what it resumes.
    const round = isModern(server) ? await resumeOf(deps, mandate, name, extra) : undefined;
    const args = resumedArgs(request.params.arguments ?? {}, Object.hasOwn(found.tool.input.shape, 'approval'), round);
    const ctx = { deps, mandate, server, extra, ...(round ? { round } : {}) };
    const result = withAppData(found.tool, ctx, await runTool({ ...found, args, ctx }));
    return (round?.ask && (await askInBand(deps, round.ask, name, mandate))) || result;
  });
  registerApps(
    server,
    [...byName.values()].map(({ tool }) => tool),
  );
  return server;
}

/**
 * One MCP server for exactly one mandate: the agent has no parameter to name another. It offers the
 * toolsets the mandate lists; each call is checked against the mandate when it is made.
 */
export function createHolonServer(deps: ServerDeps, mandateId: string): Server {
  const mandate = deps.store.state.mandates[mandateId];
  if (!mandate) {
    const create = `create it with \`holon mandate create ${mandateId}\``;
    throw new HolonError('not_found', `no mandate "${mandateId}"; ${create}`, { mandate: mandateId });
  }
  // On a team store, an installation that is not a member of the mandate's account could write nothing
  // the others would fold: refused here, at once, rather than at the agent's first call.
  const toolset = mandate.toolsets[0] ?? 'market';
  const probe = deps.store.mayWrite([{ type: 'tool.called', data: { mandate: mandateId, toolset, tool: 'whoami', summary: {} } }]);
  if (probe) {
    const key = deps.signer.publicKey;
    const why = probe.message.replace(/^event \d+ \([^)]*\): /, '');
    const fix = `an owner of account ${mandate.account} adds it with \`holon team add ${key} --account ${mandate.account} --name NAME\``;
    const message = `this installation (${key}) may not act for ${mandateId}: ${why}; ${fix}`;
    throw new HolonError('denied', message, { reason: probe.code, mandate: mandateId, key });
  }
  // A journal a newer Holon wrote (a team's store) may name a toolset this version does not have.
  const known = (t: string): t is ToolsetName => Object.hasOwn(TOOLSETS, t);
  const sets: Toolset[] = mandate.toolsets.filter(known).map((t) => TOOLSETS[t]);
  const unknown = mandate.toolsets.filter((t) => !known(t));
  if (unknown.length > 0) deps.logger.warn(`toolsets not available in this version: ${unknown.join(', ')}`);
  const listedOnly = LISTED_WITH.filter(({ tier, group }) => !mandate.toolsets.includes(tier) && mandate.toolsets.includes(group)).map(
    ({ tier }) => TOOLSETS[tier],
  );
  const absent = listedOnly.map(
    (t) => `This mandate does not offer ${t.name}: ${t.tools.map((x) => x.name).join(' and ')} answer not_found.`,
  );
  return createToolServer(
    deps,
    mandateId,
    sets,
    {
      // Named by its mandate, not only titled: a host that shows the name (the ext-apps example host does)
      // would otherwise show every mandate's server as the same "holon".
      name: `holon · ${mandateId}`,
      title: `Holon · ${mandateId}`,
      // The rule for every envelope, said once; each toolset's own instructions say what it marks.
      instructions: [`This server acts for mandate ${mandateId}.`, DATA_RULE, ...sets.map((s) => s.instructions), ...absent].join('\n'),
    },
    listedOnly,
  );
}
