// Entry of the mandate form (dist/webview/mandateEditor.js). Registers the components it uses, then starts.
import '@vscode-elements/elements/dist/vscode-button/index.js';
import '@vscode-elements/elements/dist/vscode-checkbox/index.js';
import '@vscode-elements/elements/dist/vscode-label/index.js';
import '@vscode-elements/elements/dist/vscode-option/index.js';
import '@vscode-elements/elements/dist/vscode-single-select/index.js';
import '@vscode-elements/elements/dist/vscode-textarea/index.js';
import '@vscode-elements/elements/dist/vscode-textfield/index.js';
import { mountMandateEditor, whenLoaded } from './mount.ts';

const api = acquireVsCodeApi();
whenLoaded(window, () => mountMandateEditor(api, window));
