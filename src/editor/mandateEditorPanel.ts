import * as vscode from 'vscode';
import { createMandate, patchMandate } from '../core/accounts/mandates.ts';
import { HolonError } from '../core/kernel/errors.ts';
import type { Ceremony } from '../core/ceremony/page.ts';
import type { OpenMandates } from '../core/commerce/ap2.ts';
import type { Mandate } from '../core/kernel/model.ts';
import type { MandateEditorState, MandateFormValues } from '../webview/protocol/mandateEditor.ts';
import type { EditorState } from './editorState.ts';
import { mandateOnChainFromEditor } from './mandateChain.ts';
import { formToInput, formValues } from './mandateForm.ts';
import { chainSettings } from './settings.ts';
import type { WebviewDeps } from './webviewHost.ts';
import { WebviewHost } from './webviewHost.ts';

/** The key of the form that creates a mandate (a mandate id always has a slash, this does not). */
const NEW = 'new';

/**
 * The mandate form, in an editor panel: one panel per mandate, and one for a new mandate; asking again
 * for one that is open reveals it. Only a human at this form (or the CLI) changes a mandate; the values
 * are validated here, on the host, and appended to the journal, never to a workspace file.
 */
export class MandateEditorPanels implements vscode.Disposable {
  /** Open panels, by the mandate they edit, or NEW. */
  private readonly open_ = new Map<string, vscode.WebviewPanel>();

  constructor(
    private readonly state: EditorState,
    private readonly webviews: WebviewDeps,
  ) {}

  /** Opens the form for a new mandate, or for editing `id`; reveals the one already open for it. */
  open(mode: 'create' | 'edit', id?: string): void {
    let key = mode === 'create' || !id ? NEW : id;
    const known = this.open_.get(key);
    if (known) {
      known.reveal();
      return;
    }
    const mandate = id ? this.state.state.mandates[id] : undefined;
    // The AP2 module (and its SD-JWT libraries) loads with the first form, never to activate the extension.
    const ap2 = import('../core/commerce/ap2.ts');
    const consentOf = async (open: OpenMandates | null | undefined): Promise<MandateEditorState['consent']> =>
      open ? { terms: (await ap2).openTermsText(open.terms), key: open.key, signedAt: open.signed_at } : null;
    let view: MandateEditorState = { mode, values: formValues(mandate), errors: {}, saved: false, consent: null };
    const panel = vscode.window.createWebviewPanel(
      'holon.mandateEditor',
      mode === 'create' ? 'New Mandate' : `Mandate ${id}`,
      vscode.ViewColumn.Active,
    );
    this.open_.set(key, panel);
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
        // The human saved it here: their key signs what merchants will see of it (its AP2 open mandate).
        const open = await (await ap2).signMandateConsent(this.state.dir, saved, this.state.clock.now());
        await this.followOnChain(saved.id);
        const created = view.mode === 'create';
        const selected = created && !this.state.selected;
        if (selected) await this.state.select(saved.id);
        view = { mode: 'edit', values: formValues(saved), errors: {}, saved: true, consent: await consentOf(open) };
        panel.title = `Mandate ${saved.id}`;
        id = saved.id;
        if (created) {
          // From now on this panel is the mandate's: Edit Mandate reveals it rather than open a second.
          this.open_.delete(key);
          key = saved.id;
          this.open_.set(key, panel);
          announceCreated(saved, selected);
        }
      } catch (err) {
        // A refusal the human can fix is shown on the form; anything else goes to the host's report.
        if (!HolonError.is(err)) throw err;
        view = { ...view, values, errors: { form: err.message }, saved: false };
      }
    };
    const host = new WebviewHost({
      ...this.webviews,
      owner: panel,
      entry: 'mandateEditor',
      title: 'Mandate',
      name: 'mandate form',
      protocol: async () => (await import('../webview/protocol/mandateEditor.ts')).mandateEditorProtocol,
      state: () => view,
      handle: (command) => (command.type === 'cancel' ? panel.dispose() : save(command.values)),
    });
    // What merchants see of the mandate now (its open AP2 mandate, as last signed), once the module is loaded.
    const shown = id;
    if (shown)
      void ap2
        .then(async (m) => {
          const consent = await consentOf(m.loadOpenMandates(this.state.dir, shown));
          if (!view.saved) view = { ...view, consent };
          host.push();
        })
        .catch(() => undefined);
    panel.onDidDispose(() => {
      if (this.open_.get(key) === panel) this.open_.delete(key);
    });
  }

  /**
   * Keeps the saved mandate's delegation on chain in step (mandateChain.ts), and says what it did. The
   * mandate itself is saved whatever the chain's step came to: a page closed there is said, not thrown.
   */
  private async followOnChain(id: string): Promise<void> {
    try {
      const deps = {
        store: await this.state.store(),
        dir: this.state.dir,
        chain: chainSettings().config,
        atPage: (c: Ceremony) => this.state.atPage(c),
      };
      const said = await mandateOnChainFromEditor(deps, id);
      if (said) void vscode.window.showInformationMessage(`Holon: ${said}`);
    } catch (err) {
      if (!HolonError.is(err)) throw err;
      void vscode.window.showWarningMessage(`Holon: mandate ${id} is saved, and its limits on chain are as they were: ${err.message}`);
    }
  }

  dispose(): void {
    for (const p of [...this.open_.values()]) p.dispose();
  }
}

/** Tells the human what the mandate they just created allows. */
function announceCreated(saved: Mandate, selected: boolean): void {
  const caps = formValues(saved).capabilities.split('\n');
  const hires = caps.includes('*') ? 'any agent' : caps.join(', ');
  const budget = `${saved.budget.total} ${saved.currency}`;
  void vscode.window.showInformationMessage(
    `Holon: mandate ${saved.id} created${selected ? ' and selected' : ''}: it may hire ${hires}, up to ${budget}.`,
  );
}
