import * as vscode from 'vscode';
import { createMandate, patchMandate } from '../core/mandates.ts';
import { HolonError } from '../core/errors.ts';
import type { MandateEditorState, MandateFormValues } from '../webview/protocol/mandateEditor.ts';
import type { EditorState } from './editorState.ts';
import { formToInput, formValues } from './mandateForm.ts';
import type { WebviewDeps } from './webviewHost.ts';
import { WebviewHost } from './webviewHost.ts';

/**
 * The mandate form, in an editor panel. Only a human at this form (or the CLI) changes a mandate; the
 * values are validated here, on the host, and appended to the journal, never to a workspace file.
 */
export class MandateEditorPanels implements vscode.Disposable {
  private readonly open_ = new Set<vscode.WebviewPanel>();

  constructor(
    private readonly state: EditorState,
    private readonly webviews: WebviewDeps,
  ) {}

  open(mode: 'create' | 'edit', id?: string): void {
    const mandate = id ? this.state.state.mandates[id] : undefined;
    let view: MandateEditorState = { mode, values: formValues(mandate), errors: {}, saved: false };
    const panel = vscode.window.createWebviewPanel(
      'holon.mandateEditor',
      mode === 'create' ? 'New Mandate' : `Mandate ${id}`,
      vscode.ViewColumn.Active,
    );
    this.open_.add(panel);
    const save = async (values: MandateFormValues): Promise<void> => {
      const target = view.mode === 'edit' && id ? id : values.id;
      const { input, errors } = formToInput({ ...values, id: target }, view.mode, this.state.state.mandates[target]);
      if (Object.keys(errors).length > 0) {
        view = { ...view, values, errors, saved: false };
        return;
      }
      try {
        const saved =
          view.mode === 'create'
            ? await createMandate(await this.state.store(), this.state.clock, target, input)
            : await patchMandate(await this.state.store(), this.state.clock, target, input);
        if (view.mode === 'create' && !this.state.selected) await this.state.select(saved.id);
        view = { mode: 'edit', values: formValues(saved), errors: {}, saved: true };
        panel.title = `Mandate ${saved.id}`;
        id = saved.id;
      } catch (err) {
        // A refusal the human can fix is shown on the form; anything else goes to the host's report.
        if (!HolonError.is(err)) throw err;
        view = { ...view, values, errors: { form: err.message }, saved: false };
      }
    };
    new WebviewHost({
      ...this.webviews,
      owner: panel,
      entry: 'mandateEditor',
      title: 'Mandate',
      name: 'mandate form',
      protocol: async () => (await import('../webview/protocol/mandateEditor.ts')).mandateEditorProtocol,
      state: () => view,
      handle: (command) => (command.type === 'cancel' ? panel.dispose() : save(command.values)),
    });
    panel.onDidDispose(() => this.open_.delete(panel));
  }

  dispose(): void {
    for (const p of this.open_) p.dispose();
  }
}
