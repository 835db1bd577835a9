// The MCP App page (dist/apps/holon.html): one page for every view, which the server names in
// `<html data-view>`. It talks to the host with the ext-apps `App`, follows the host's theme and CSS
// variables, and renders the tool's result (views.ts). It calls only read-only tools, named below: an
// app's tool call is one the model could make too, and no Holon tool approves, rejects or widens anything.
import { App, applyDocumentTheme, applyHostStyleVariables } from '@modelcontextprotocol/ext-apps';
import type { ApprovalJson, BudgetJson, CallJson, ReceiptJson, SearchJson, SpendChartJson } from './json.ts';
import type { CallCard } from './views.ts';
import { foreignPathsOf, renderAgents, renderCall, renderMessage, renderReceipt, renderSpend } from './views.ts';

/** The tools a view calls: reads only. */
const READS = ['check_approval', 'get_receipt'] as const;
type Read = (typeof READS)[number];

/** How often the card asks whether the human decided, while it waits. */
const POLL_MS = 2000;

/** The key of the spend chart's figures in the result's `_meta` (src/server/apps.ts). */
const SPEND_META_KEY = 'holon/spend';

/** The host's context: its theme and style variables (the package's own type, as App returns it). */
type McpUiHostContext = NonNullable<ReturnType<App['getHostContext']>>;

type ToolResult = {
  structuredContent?: Record<string, unknown> | undefined;
  _meta?: Record<string, unknown> | undefined;
  isError?: boolean | undefined;
};

/** Follows the host's theme and CSS variables. */
function theme(ctx: McpUiHostContext | undefined): void {
  if (!ctx) return;
  if (ctx.theme) applyDocumentTheme(ctx.theme);
  if (ctx.styles?.variables) applyHostStyleVariables(ctx.styles.variables);
}

function start(): void {
  const doc = document;
  const view = doc.documentElement.getAttribute('data-view') ?? '';
  const root = doc.getElementById('root') as HTMLElement;
  const main = doc.createElement('div');
  const extra = doc.createElement('div');
  root.append(main, extra);
  const app = new App({ name: 'Holon', version: '1' }, {}, { autoResize: true });

  const read = async (name: Read, args: Record<string, unknown>): Promise<ToolResult> => {
    if (!READS.includes(name)) throw new Error(`${name} is not a read`);
    return (await app.callServerTool({ name, arguments: args })) as ToolResult;
  };

  const card: CallCard = { input: null, result: null, approval: null };
  let polling: ReturnType<typeof setInterval> | undefined;
  const poll = (approval: string): void => {
    const check = async (): Promise<void> => {
      const r = await read('check_approval', { approval });
      if (r.isError || !r.structuredContent) return;
      card.approval = r.structuredContent as unknown as ApprovalJson;
      renderCall(main, card);
      if (card.approval.status !== 'pending' && polling !== undefined) {
        clearInterval(polling);
        polling = undefined;
      }
    };
    void check().catch(() => undefined);
    polling = setInterval(() => void check().catch(() => undefined), POLL_MS);
  };

  const showTree = async (receipt: string): Promise<void> => {
    const r = await read('get_receipt', { receipt });
    if (!r.isError && r.structuredContent) renderReceipt(extra, r.structuredContent as unknown as ReceiptJson, foreignPathsOf(r._meta));
  };

  app.onhostcontextchanged = (ctx) => theme({ ...app.getHostContext(), ...ctx });
  app.ontoolinput = (params) => {
    if (view !== 'call') return;
    card.input = (params.arguments ?? {}) as CallCard['input'];
    renderCall(main, card);
  };
  app.ontoolresult = (params) => {
    const result = params as ToolResult;
    const data = result.structuredContent;
    if (!data) return renderMessage(main, 'Holon answered with an error: the chat shows its text.', 'result-error');
    // Where another party's text sits in the result: the views name its writer on hover.
    const foreign = foreignPathsOf(result._meta);
    switch (view) {
      case 'receipt':
        return renderReceipt(main, data as unknown as ReceiptJson, foreign);
      case 'spend':
        return renderSpend(main, data as unknown as BudgetJson, (result._meta?.[SPEND_META_KEY] as SpendChartJson | undefined) ?? null);
      case 'agents':
        return renderAgents(main, data as unknown as SearchJson, foreign);
      case 'call': {
        card.result = data as unknown as CallJson;
        card.foreign = foreign;
        renderCall(main, card);
        if (card.result.status === 'pending_approval' && card.result.approval) poll(card.result.approval);
        else if (card.result.receipt && card.result.status !== 'denied') void showTree(card.result.receipt).catch(() => undefined);
        return;
      }
      default:
        return renderMessage(main, `Unknown view ${view}`);
    }
  };
  app.onteardown = async () => {
    if (polling !== undefined) clearInterval(polling);
    return {};
  };
  renderMessage(main, 'Waiting for the result…', 'waiting');
  app.connect().then(
    () => theme(app.getHostContext()),
    () => renderMessage(main, 'Could not reach the host.', 'no-host'),
  );
}

if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start, { once: true });
else start();
