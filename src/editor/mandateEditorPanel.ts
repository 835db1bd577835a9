import * as vscode from 'vscode';
import { createMandate, updateMandate } from '../core/admin.ts';
import { HolonError } from '../core/errors.ts';
import type { MandateEditorState } from '../webview/protocol/mandateEditor.ts';
import { mandateEditorProtocol } from '../webview/protocol/mandateEditor.ts';
import { parse } from '../webview/protocol/messages.ts';
import type { EditorState } from './editorState.ts';
import { formToInput, formValues } from './mandateForm.ts';
import { webviewHtml, webviewRoots } from './webviewHtml.ts';

/**
 * The mandate form, in an editor panel. Only a human at this form (or the CLI) changes a mandate; the
 * values are validated here, on the host, and appended to the journal, never to a workspace file.
 */
export class MandateEditorPanels implements vscode.Disposable {
  private readonly open_ = new Set<vscode.WebviewPanel>();

  constructor(
    private readonly state: EditorState,
    private readonly extensionUri: vscode.Uri,
    private readonly log: vscode.LogOutputChannel,
  ) {}

  open(mode: 'create' | 'edit', id?: string): void {
    const mandate = id ? this.state.state.mandates[id] : undefined;
    let view: MandateEditorState = { mode, values: formValues(mandate), errors: {}, saved: false };
    let ready = false;
    const panel = vscode.window.createWebviewPanel('holon.mandateEditor', mode === 'create' ? 'New Mandate' : `Mandate ${id}`, vscode.ViewColumn.Active, {
      enableScripts: true,
      localResourceRoots: webviewRoots(this.extensionUri),
    });
    this.open_.add(panel);
    panel.webview.html = webviewHtml(panel.webview, this.extensionUri, 'mandateEditor', 'Mandate');
    const post = (): void => {
      if (ready) void panel.webview.postMessage({ type: 'state', state: view });
    };
    const sub = panel.webview.onDidReceiveMessage(async (m: unknown) => {
      const cmd = parse(mandateEditorProtocol.command, m);
      if (!cmd) {
        this.log.warn('Mandate editor: ignored a malformed message');
        return;
      }
      if (cmd.type === 'ready') {
        ready = true;
        post();
        return;
      }
      if (cmd.type === 'cancel') {
        panel.dispose();
        return;
      }
      const target = view.mode === 'edit' && id ? id : cmd.values.id;
      const { input, errors } = formToInput({ ...cmd.values, id: target }, view.mode);
      if (Object.keys(errors).length > 0) {
        view = { ...view, values: cmd.values, errors, saved: false };
        post();
        return;
      }
      try {
        const saved = view.mode === 'create' ? await createMandate(this.state.store, this.state.clock, target, input) : await updateMandate(this.state.store, this.state.clock, target, input);
        if (view.mode === 'create' && !this.state.selected) await this.state.select(saved.id);
        view = { mode: 'edit', values: formValues(saved), errors: {}, saved: true };
        panel.title = `Mandate ${saved.id}`;
        id = saved.id;
      } catch (err) {
        if (!HolonError.is(err)) throw err;
        view = { ...view, values: cmd.values, errors: { form: err.message }, saved: false };
      }
      post();
    });
    panel.onDidDispose(() => {
      sub.dispose();
      this.open_.delete(panel);
    });
  }

  dispose(): void {
    for (const p of this.open_) p.dispose();
  }
}
