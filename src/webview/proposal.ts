// Entry of the personnel change diff panel (dist/webview/proposal.js).
import '@vscode-elements/elements/dist/vscode-button/index.js';
import { mountProposal, whenLoaded } from './mount.ts';

const api = acquireVsCodeApi();
whenLoaded(window, () => mountProposal(api, window));
