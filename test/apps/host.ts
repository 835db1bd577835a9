// The host side of an MCP App, as the ext-apps package's AppBridge runs it: this page is the chat that
// shows a tool's view. It puts the `ui://` page the server served into a sandboxed frame (scripts only,
// no same origin), speaks the MCP Apps protocol with it through AppBridge, and forwards the view's tool
// calls to the real `holon mcp` (the test's SDK client, through `holonCallTool`). Bundled by the test.
import { AppBridge, PostMessageTransport } from '@modelcontextprotocol/ext-apps/app-bridge';

/** The host's context (theme, style variables), as the bridge takes it. */
type McpUiHostContext = Parameters<AppBridge['setHostContext']>[0];

/** What the test hands the host for one tool call: the view's page, the call's arguments and result. */
interface Show {
  html: string;
  input: Record<string, unknown>;
  result: Parameters<AppBridge['sendToolResult']>[0];
  context: McpUiHostContext;
}

declare global {
  interface Window {
    holonCallTool(params: { name: string; arguments?: Record<string, unknown> | undefined }): Promise<Parameters<AppBridge['sendToolResult']>[0]>;
    holonShow(show: Show): Promise<void>;
    holonContext(context: McpUiHostContext): void;
    holonCalls: string[];
    holonBridge: AppBridge | undefined;
  }
}

window.holonCalls = [];
window.holonShow = async ({ html, input, result, context }) => {
  document.body.replaceChildren();
  const frame = document.createElement('iframe');
  frame.id = 'app';
  frame.title = 'Holon app';
  frame.setAttribute('sandbox', 'allow-scripts');
  frame.width = '640';
  frame.height = '900';
  document.body.appendChild(frame);
  const bridge = new AppBridge(null, { name: 'holon-test-host', version: '1.0.0' }, { serverTools: {}, logging: {} }, { hostContext: context });
  bridge.oncalltool = async (params) => {
    window.holonCalls.push(params.name);
    return window.holonCallTool(params);
  };
  const initialized = new Promise<void>((resolve) => (bridge.oninitialized = () => resolve()));
  const view = frame.contentWindow;
  if (!view) throw new Error('the frame has no window');
  await bridge.connect(new PostMessageTransport(view, view));
  frame.srcdoc = html;
  await initialized;
  await bridge.sendToolInput({ arguments: input });
  await bridge.sendToolResult(result);
  window.holonBridge = bridge;
};
window.holonContext = (context) => window.holonBridge?.setHostContext(context);
