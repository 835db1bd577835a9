// Shared set-up for webview tests: a happy-dom window, a fake acquireVsCodeApi, states to render.
// The vscode-elements components are not registered here (happy-dom lacks ElementInternals): the tests
// check our own DOM — tags, attributes, text — and drive it with events, as the components would.
import { Window as HappyWindow } from 'happy-dom';
import type { WebviewApi } from '../../src/webview/host.ts';
import type { HolonViewState, PendingApproval } from '../../src/webview/protocol/holonView.ts';
import type { MandateEditorState } from '../../src/webview/protocol/mandateEditor.ts';
import type { Amount } from '../../src/webview/protocol/messages.ts';
import type { ReceiptNode, ReceiptsState } from '../../src/webview/protocol/receipts.ts';

/** A page with `<div id="root"></div>`, as the host's HTML shell has. */
export interface Page {
  window: Window;
  document: Document;
  root: HTMLElement;
  close(): Promise<void>;
}

export function page(): Page {
  const happy = new HappyWindow({ url: 'https://webview.test/' });
  happy.document.body.innerHTML = '<div id="root"></div>';
  const window = happy as unknown as Window;
  const document = happy.document as unknown as Document;
  return { window, document, root: document.getElementById('root') as HTMLElement, close: () => happy.happyDOM.close() };
}

/** A fake of what acquireVsCodeApi() returns: records what the view posts and saves. */
export class FakeVsCodeApi implements WebviewApi {
  readonly posted: unknown[] = [];
  readonly saved: unknown[] = [];
  constructor(private state: unknown = undefined) {}
  postMessage(message: unknown): void {
    this.posted.push(structuredClone(message));
  }
  getState(): unknown {
    return this.state;
  }
  setState(state: unknown): unknown {
    // What VS Code keeps is a copy (it is serialised).
    this.state = structuredClone(state);
    this.saved.push(this.state);
    return state;
  }
  /** What was posted, without the ready message. */
  commands(): unknown[] {
    return this.posted.filter((m) => (m as { type?: unknown }).type !== 'ready');
  }
}

/** A host → view message, delivered as VS Code does (a message event on the window). */
export function hostSends(window: Window, data: unknown): void {
  const { MessageEvent } = window as unknown as { MessageEvent: new (type: string, init: { data: unknown }) => Event };
  window.dispatchEvent(new MessageEvent('message', { data }));
}

/** A click, as a human's. */
export function click(node: Element | null): void {
  if (!node) throw new Error('nothing to click');
  node.dispatchEvent(new node.ownerDocument.defaultView!.MouseEvent('click', { bubbles: true }));
}

/** Types into a control: sets its value, as a vscode-textfield does, and fires input and change. */
export function type(node: Element | null, value: string): void {
  if (!node) throw new Error('nothing to type into');
  (node as unknown as { value: string }).value = value;
  const win = node.ownerDocument.defaultView!;
  node.dispatchEvent(new win.Event('input', { bubbles: true }));
  node.dispatchEvent(new win.Event('change', { bubbles: true }));
}

/** Ticks or unticks a vscode-checkbox. */
export function check(node: Element | null, checked: boolean): void {
  if (!node) throw new Error('nothing to check');
  (node as unknown as { checked: boolean }).checked = checked;
  node.dispatchEvent(new node.ownerDocument.defaultView!.Event('change', { bubbles: true }));
}

/** Dispatches an event built by the node's own window (`Event`, `KeyboardEvent`, …). */
export function fire(node: EventTarget & Node, kind: 'Event' | 'KeyboardEvent' | 'MouseEvent' | 'FocusEvent', type: string, init: Record<string, unknown> = {}): void {
  const win = (node.ownerDocument ?? (node as unknown as Document)).defaultView as unknown as Record<string, new (type: string, init: object) => Event>;
  node.dispatchEvent(new win[kind]!(type, { bubbles: true, ...init }));
}

/** The element with this exact data-testid. */
export function byTestId(root: ParentNode, id: string): HTMLElement | null {
  return Array.from(root.querySelectorAll<HTMLElement>('[data-testid]')).find((n) => n.getAttribute('data-testid') === id) ?? null;
}

/** Like byTestId, but fails the test when it is missing. */
export function get(root: ParentNode, id: string): HTMLElement {
  const node = byTestId(root, id);
  if (!node) throw new Error(`no [data-testid="${id}"]`);
  return node;
}

export const HOSTILE = '<img src=x onerror="globalThis.pwned=1">';

/** An amount as the host sends it: its text, and (when it has more digits) the exact amount. */
export function amt(text: string, exact: string = text): Amount {
  return { text, exact };
}

/** An agent call waiting for approval, as the host maps it. */
export function approval(overrides: Partial<PendingApproval> = {}): PendingApproval {
  return {
    id: 'apr_1',
    kind: 'agent_call',
    kindLabel: 'Agent call',
    mandate: 'demo/sandbox',
    title: 'Call acme/invoice-extractor 1.4.2',
    subject: 'acme/invoice-extractor',
    amount: amt('3.10 EUR'),
    amountLabel: 'Worst case',
    threshold: amt('0.50 EUR'),
    facts: [
      { label: 'Version', value: '1.4.2' },
      { label: 'Delegated calls', value: 'up to 4 (extraction.pdf × 4)' },
    ],
    detail: JSON.stringify({ files: ['holon://files/examples/facture.pdf'] }, null, 2),
    removals: [],
    requestedAt: '2026-03-01T10:00:00.000Z',
    expiresAt: '2026-03-01T10:15:00.000Z',
    requested: '3/1/2026, 11:00:00 AM',
    expires: '3/1/2026, 11:15:00 AM',
    askedBy: 'Copilot (sandbox)',
    machine: 'dev-laptop',
    mayDecide: true,
    decider: null,
    ...overrides,
  };
}

export function viewState(overrides: Partial<HolonViewState> = {}): HolonViewState {
  return {
    mandate: 'demo/sandbox',
    budget: {
      mandate: 'demo/sandbox',
      status: 'active',
      total: amt('5.00 EUR'),
      spent: amt('1.20 EUR', '1.1962 EUR'),
      held: amt('0.40 EUR'),
      remaining: amt('3.40 EUR', '3.4038 EUR'),
      perDay: amt('2.00 EUR'),
      spentToday: amt('1.20 EUR', '1.1962 EUR'),
      perCall: amt('1.00 EUR'),
      threshold: amt('0.50 EUR'),
      account: {
        id: 'demo',
        funded: amt('5.00 EUR'),
        spent: amt('1.20 EUR', '1.1962 EUR'),
        held: amt('0.40 EUR'),
        available: amt('3.40 EUR', '3.4038 EUR'),
        otherMandatesSpent: amt('0.00 EUR'),
      },
      limitedBy: 'mandate',
    },
    approvals: [],
    panelApprovals: true,
    wallet: null,
    holdings: null,
    payments: [],
    spend: null,
    setup: { funded: true, mandates: 1 },
    refusals: [],
    mail: [],
    artifacts: [],
    store: { kind: 'journal', label: "this workspace's journal", error: null, loading: false },
    ...overrides,
  };
}

export function receiptNode(overrides: Partial<ReceiptNode> = {}): ReceiptNode {
  return {
    id: 'rcp_1',
    mandate: 'demo/sandbox',
    agent: 'acme/invoice-extractor',
    version: '1.4.2',
    status: 'succeeded',
    cost: amt('0.40 EUR'),
    totalCost: amt('1.20 EUR'),
    worstCase: amt('3.10 EUR'),
    durationMs: 1234,
    approval: 'apr_1',
    approvalChannel: 'panel',
    reasons: [],
    error: null,
    startedAt: '2026-03-01T10:01:00.000Z',
    children: [],
    ...overrides,
  };
}

export function receiptsState(overrides: Partial<ReceiptsState> = {}): ReceiptsState {
  const children = [1, 2].map((n) =>
    receiptNode({ id: `rcp_1.${n}`, agent: 'ocr/pdf', version: '0.9.0', cost: amt('0.20 EUR'), totalCost: amt('0.20 EUR'), worstCase: amt('0.50 EUR'), durationMs: 340, approval: null, approvalChannel: null }),
  );
  children.push(
    receiptNode({ id: 'rcp_1.3', agent: 'ocr/pdf', version: '0.9.0', status: 'failed', cost: null, totalCost: null, worstCase: amt('0.50 EUR'), durationMs: null, approval: null, approvalChannel: null, error: 'timeout after 30 s' }),
  );
  return {
    mandate: null,
    narrow: null,
    mandates: ['demo/buyer', 'demo/sandbox'],
    accounts: [{ id: 'demo', funded: amt('5.00 EUR'), spent: amt('1.21 EUR', '1.2062 EUR'), held: amt('0.00 EUR'), available: amt('3.79 EUR', '3.7938 EUR') }],
    spends: [
      {
        id: 'pay_1',
        kind: 'payment',
        mandate: 'demo/buyer',
        account: 'demo',
        to: 'eip155:84532:0x00000000000000000000000000000000000000b0',
        amount: amt('0.92 EUR'),
        status: 'settled',
        reason: null,
        at: '2026-03-01T10:03:00.000Z',
        receipt: null,
        onChain: 'landed in block 12 (eip155:84532) · 0x5e1f0000000000000000000000000000000000000000000000000000000000aa',
        settlement: 'stl_1',
      },
      {
        id: 'rcp_1',
        kind: 'call',
        mandate: 'demo/sandbox',
        account: 'demo',
        to: 'acme/invoice-extractor',
        amount: amt('1.20 EUR'),
        status: 'settled',
        reason: null,
        at: '2026-03-01T10:01:00.000Z',
        receipt: 'rcp_1',
        onChain: null,
        settlement: null,
      },
    ],
    filter: 'all',
    recent: [
      { id: 'rcp_1', mandate: 'demo/sandbox', agent: 'acme/invoice-extractor', status: 'succeeded', totalCost: amt('1.20 EUR'), startedAt: '2026-03-01T10:01:00.000Z', delegatedCalls: 3 },
      { id: 'rcp_2', mandate: 'demo/sandbox', agent: null, status: 'denied', totalCost: null, startedAt: '2026-03-01T10:02:00.000Z', delegatedCalls: 0 },
    ],
    selected: receiptNode({ children }),
    purchases: [],
    ...overrides,
  };
}

export function editorState(overrides: Partial<MandateEditorState> = {}): MandateEditorState {
  return {
    mode: 'create',
    values: {
      id: '',
      grantee: '',
      currency: 'EUR',
      total: '',
      perDay: '',
      perCall: '',
      threshold: '0.50',
      toolsets: ['market'],
      capabilities: '*',
      regions: '',
      retentionDays: '',
      training: false,
      expiresAt: '',
      status: 'active',
    },
    errors: {},
    saved: false,
    ...overrides,
  };
}
