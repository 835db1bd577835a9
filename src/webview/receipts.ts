// Entry of the receipts panel (dist/webview/receipts.js). Registers the components it uses, then starts.
import '@vscode-elements/elements/dist/vscode-label/index.js';
import '@vscode-elements/elements/dist/vscode-option/index.js';
import '@vscode-elements/elements/dist/vscode-single-select/index.js';
import { mountReceipts, whenLoaded } from './mount.ts';

const api = acquireVsCodeApi();
whenLoaded(window, () => mountReceipts(api, window));
