import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { HolonError } from '../../core/kernel/errors.ts';
import { verifyInWorker } from '../../core/holon.ts';
import { JOURNAL_FILE } from '../../core/store/file/journal.ts';
import { verifyText } from '../../core/store/verify.ts';
import type { CommandDeps, FeatureCommands } from './command.ts';

/** A size in words: `812 kB`, `12.3 MB`. */
function megabytes(bytes: number): string {
  return bytes < 1_000_000 ? `${Math.max(1, Math.round(bytes / 1000))} kB` : `${(bytes / 1_000_000).toFixed(1)} MB`;
}

/** A bar of the chart, as the Holon view asks for it: a mandate, and a day or a payee (anything else is no bar). */
function barArg(arg: unknown): { mandate: string | null; day: string | null; payee: string | null } | undefined {
  if (typeof arg !== 'object' || arg === null) return undefined;
  const o = arg as Record<string, unknown>;
  const str = (v: unknown): string | null => (typeof v === 'string' && v.length > 0 && v.length <= 300 ? v : null);
  const bar = { mandate: str(o['mandate']), day: str(o['day']), payee: str(o['payee']) };
  return bar.day !== null || bar.payee !== null ? bar : undefined;
}

/** The record of what was done: its receipts, proof that it was not rewritten, and where it is kept. */
export function ledgerCommands({ state, receipts }: CommandDeps): FeatureCommands<'showReceipts' | 'verifyLedger' | 'openStateFolder'> {
  return {
    // A receipt id; or, from the Holon view's chart, the bar whose spends to show ({mandate, day, payee}).
    showReceipts: async (arg) => {
      const bar = barArg(arg);
      if (bar) receipts.showBar(bar.mandate, { day: bar.day, payee: bar.payee });
      else receipts.show(typeof arg === 'string' ? arg : null);
    },
    verifyLedger: async () => {
      const team = state.storeInUse.kind === 'team' ? await state.storeForServer() : undefined;
      if (!team && !fs.existsSync(path.join(state.dir, JOURNAL_FILE))) throw new HolonError('not_found', 'there is no ledger yet');
      // A big journal takes a while: a notification says what is being checked until it is done.
      const size = team ? null : fs.statSync(path.join(state.dir, JOURNAL_FILE)).size;
      const what = team
        ? `the team store ${state.storeInUse.kind === 'team' ? state.storeInUse.label : ''}`.trim()
        : `${megabytes(size ?? 0)} of journal`;
      const r = await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title: 'Holon: verifying the ledger', cancellable: false },
        async (progress) => {
          progress.report({ message: `checking the hash chain and every signature of ${what}…` });
          // A team store's rows are read in batches on the database's connection, not hashed here in one go: no worker needed.
          return team ? (await import('../../core/teamAdmin.ts')).verifyTeamStore(team) : verifyInWorker(state.dir);
        },
      );
      const text = `Holon: ledger ${verifyText(r, team ? 'row' : 'line')}`;
      if (r.ok) void vscode.window.showInformationMessage(text);
      else void vscode.window.showErrorMessage(text);
      return r;
    },
    openStateFolder: async () => {
      // Only a desktop VS Code on this machine can show a folder in the OS; elsewhere (a browser, a
      // remote) the path is what the human can use.
      if (vscode.env.uiKind === vscode.UIKind.Desktop && !vscode.env.remoteName) {
        await vscode.commands.executeCommand('revealFileInOS', vscode.Uri.file(state.dir));
        return;
      }
      const copy = 'Copy Path';
      const answer = await vscode.window.showInformationMessage(`Holon: the state is in ${state.dir}`, copy);
      if (answer === copy) await vscode.env.clipboard.writeText(state.dir);
    },
  };
}
