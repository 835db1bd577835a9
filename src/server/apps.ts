/**
 * MCP Apps (`@modelcontextprotocol/ext-apps`): where the host renders them (VS Code, Claude, ChatGPT,
 * Goose), a tool's result is shown inside the chat by a `ui://` view this server serves — the receipt
 * tree, the spend chart, the ranked comparison, the card of a call that waits for the human. One bundle
 * (dist/apps/holon.html, built by esbuild.mjs) holds every view; each `ui://holon/<view>` resource is
 * that page naming its view. Every client gets the same tools and results: a host without apps simply
 * ignores the tool's `_meta` link and the chart's figures in the result's `_meta`.
 *
 * No app approves, rejects or widens anything: an app can call only the server's tools, which the model
 * can call too, and none of them decides (DESIGN §4). The views call the read-only ones.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { McpUiAppResourceConfig, McpUiReadResourceCallback } from '@modelcontextprotocol/ext-apps/server';
import { registerAppResource, registerAppTool, RESOURCE_MIME_TYPE } from '@modelcontextprotocol/ext-apps/server';
import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import type { Server, CallToolResult, Resource } from '@modelcontextprotocol/server';
import * as M from '../core/kernel/amount.ts';
import { SPEND_GROUP_LABELS, spendChart } from '../core/views/spendChart.ts';
import type { AppView, ToolContext, ToolDef } from './tools/toolDef.ts';
import { APP_VIEWS } from './tools/toolDef.ts';

export { APP_VIEWS };
export type { AppView };

/** The resource of a view. */
export function appUri(view: AppView): string {
  return `ui://holon/${view}`;
}

/** What each view shows, for the resource list. */
const DESCRIPTIONS: Record<AppView, { title: string; description: string }> = {
  receipt: {
    title: 'Holon receipt',
    description: 'A receipt as a tree: delegated calls, cost against worst case, the terms hash, where a payment landed.',
  },
  spend: { title: 'Holon spend', description: "The mandate's limits and its spend per day, per payee and per kind of spend, as a chart." },
  agents: { title: 'Holon agents', description: 'The ranked comparison of agents, with the ones the mandate excludes and why.' },
  call: {
    title: 'Holon call',
    description: 'A call of an agent: where to decide when it waits for the human, and its receipt once it ran.',
  },
};

/** The name of the result `_meta` key that carries a spend chart's figures to the spend view. */
export const SPEND_META_KEY = 'holon/spend';

/** The token in the built page that the server replaces with the view's name. */
export const VIEW_TOKEN = '__HOLON_VIEW__';

/**
 * The built page: beside the bundle that runs (dist/holon.js → dist/apps/holon.html), or, run from the
 * sources (tests through tsx), in the repository's dist/. Read once.
 */
let page: string | undefined;
function appPage(): string {
  if (page !== undefined) return page;
  const candidates = [path.join(__dirname, 'apps', 'holon.html'), path.join(__dirname, '..', '..', 'dist', 'apps', 'holon.html')];
  const file = candidates.find((f) => fs.existsSync(f));
  if (!file)
    throw new ProtocolError(ProtocolErrorCode.InternalError, `the apps' page is missing (${candidates[0]}): build with node esbuild.mjs`);
  page = fs.readFileSync(file, 'utf8');
  return page;
}

/**
 * The ext-apps helpers register with an McpServer; Holon lists its tools and resources from its own
 * tables on the low-level Server (one place registers tools: server.ts). So the helpers register into
 * this collector, and what they produce (the normalized `_meta` link, the resource's MIME type and
 * config) is what Holon serves.
 */
type ToolTarget = Parameters<typeof registerAppTool>[0];
type ResourceTarget = Parameters<typeof registerAppResource>[0];
type ResourceConfig = McpUiAppResourceConfig & { mimeType?: string };
interface Collected {
  tools: Map<string, { _meta?: Record<string, unknown> }>;
  resources: Map<string, { name: string; config: ResourceConfig; read: McpUiReadResourceCallback }>;
}
function collector(): Collected & { target: ToolTarget & ResourceTarget } {
  const tools: Collected['tools'] = new Map();
  const resources: Collected['resources'] = new Map();
  const registerTool = (name: string, config: { _meta?: Record<string, unknown> }): void => void tools.set(name, config);
  const registerResource = (name: string, uri: string, config: ResourceConfig, read: McpUiReadResourceCallback): void =>
    void resources.set(uri, { name, config, read });
  // Only what the helpers call is implemented (and what they return is never used): the collector serves nothing itself.
  return { tools, resources, target: { registerTool, registerResource } as unknown as ToolTarget & ResourceTarget };
}

const unused = (): never => {
  throw new Error('collected only');
};

/** A tool's `_meta` linking its view, as the ext-apps helper writes it (the current key and the older hosts' one). */
const toolMetas = new Map<AppView, Record<string, unknown>>();
export function appToolMeta(view: AppView): Record<string, unknown> {
  let meta = toolMetas.get(view);
  if (!meta) {
    const c = collector();
    registerAppTool(c.target, view, { _meta: { ui: { resourceUri: appUri(view) } } }, unused);
    meta = c.tools.get(view)?._meta ?? {};
    toolMetas.set(view, meta);
  }
  return meta;
}

/** The views the tools link, as resources: served by `registerApps`. */
function appResources(views: ReadonlySet<AppView>): Collected['resources'] {
  const c = collector();
  for (const view of views) {
    const uri = appUri(view);
    registerAppResource(
      c.target,
      DESCRIPTIONS[view].title,
      uri,
      {
        description: DESCRIPTIONS[view].description,
        // No domain at all: the host's strictest policy (nothing is loaded from or sent to the network).
        _meta: { ui: { csp: { connectDomains: [], resourceDomains: [], frameDomains: [] }, prefersBorder: true } },
      },
      async () => ({
        contents: [
          {
            uri,
            mimeType: RESOURCE_MIME_TYPE,
            text: appPage().replace(VIEW_TOKEN, view),
            _meta: { ui: { csp: { connectDomains: [], resourceDomains: [], frameDomains: [] }, prefersBorder: true } },
          },
        ],
      }),
    );
  }
  return c.resources;
}

/**
 * Serves the views `tools` link (resources/list and resources/read) on `server`, before it connects. A
 * server whose tools link none offers no resources.
 */
export function registerApps(server: Server, tools: readonly ToolDef[]): void {
  const views = new Set(tools.flatMap((t) => (t.ui ? [t.ui] : [])));
  if (views.size === 0) return;
  const resources = appResources(views);
  server.registerCapabilities({ resources: { listChanged: false } });
  server.setRequestHandler('resources/list', () => ({
    resources: [...resources.entries()].map(([uri, r]): Resource => ({
      uri,
      name: r.name,
      title: r.name,
      ...(r.config.description ? { description: r.config.description } : {}),
      mimeType: r.config.mimeType ?? RESOURCE_MIME_TYPE,
      ...(r.config._meta ? { _meta: r.config._meta } : {}),
    })),
  }));
  server.setRequestHandler('resources/read', async (request, ctx) => {
    const r = resources.get(request.params.uri);
    if (!r) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Resource ${request.params.uri} not found`);
    return r.read(new URL(request.params.uri), ctx);
  });
}

/**
 * What a view needs beyond the tool's result, in the result's `_meta` (which the model is not shown): the
 * spend view's chart — the last 30 days, the payees and the kinds of spend — read from the fold's day
 * totals. Sent whenever the tool has the view, whatever the client announced: a host may render apps
 * without saying so in its capabilities (the ext-apps example host does), and a view without its figures
 * would show the limits beside an empty space. Never on a failure: everything else is the result as it was.
 */
export function withAppData(tool: ToolDef, ctx: ToolContext, result: CallToolResult): CallToolResult {
  if (tool.ui !== 'spend' || result.isError) return result;
  const chart = spendChart(ctx.deps.store.state, ctx.mandate, ctx.deps.clock.now());
  if (!chart) return result;
  const j = M.toJson;
  const data = {
    mandate: chart.mandate,
    currency: chart.currency,
    days: chart.days.map((d) => ({ day: d.day, spent: j(d.spent), permille: d.permille })),
    payees: chart.payees.map((p) => ({ kind: p.payee.kind, id: p.payee.id, spent: j(p.spent), permille: p.permille })),
    groups: chart.groups.map((g) => ({ group: g.group, label: SPEND_GROUP_LABELS[g.group], spent: j(g.spent) })),
    total: j(chart.total),
    per_day: chart.perDay ? j(chart.perDay) : null,
    day_scale: j(chart.dayScale),
    per_day_permille: chart.perDayPermille,
    budget: {
      total: j(chart.budget.total),
      spent: j(chart.budget.spent),
      held: j(chart.budget.held),
      remaining: j(chart.budget.remaining),
    },
    other_currencies: chart.otherCurrencies,
  };
  return { ...result, _meta: { ...result._meta, [SPEND_META_KEY]: data } };
}
