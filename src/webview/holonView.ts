// Entry of the Holon view (dist/webview/holonView.js). Registers the components it uses, then starts.
import '@vscode-elements/elements/dist/vscode-badge/index.js';
import '@vscode-elements/elements/dist/vscode-button/index.js';
import '@vscode-elements/elements/dist/vscode-collapsible/index.js';
import { mountHolonView, whenLoaded } from './mount.ts';

const api = acquireVsCodeApi();
whenLoaded(window, () => mountHolonView(api, window));
