import * as path from 'node:path';
import * as vscode from 'vscode';
import { copyExampleFiles } from '../../core/local/demoFiles.ts';
import { addAgent, readCatalog } from '../../core/market/catalog.ts';
import { registries } from '../settings.ts';
import type { CommandDeps, FeatureCommands } from './command.ts';

/** Adding agents to the catalog: the built-in demo catalog, a configured registry, or a file. */
export function agentCommands({ state, demoCatalog }: CommandDeps): FeatureCommands<'addAgent'> {
  return {
    addAgent: async () => {
      const items = [
        { label: 'Demo catalog', description: 'built in: five local example agents', file: demoCatalog },
        ...registries().map((r) => ({ label: path.basename(r), description: r, file: r })),
        { label: 'From a file…', description: 'a catalog or {manifest, endpoint} JSON', file: '' },
      ];
      const pick = await vscode.window.showQuickPick(items, { placeHolder: 'Where to add agents from' });
      if (!pick) return;
      let file = pick.file;
      if (!file) {
        const uri = await vscode.window.showOpenDialog({ canSelectMany: false, filters: { JSON: ['json'] } });
        if (!uri?.[0]) return;
        file = uri[0].fsPath;
      }
      const entries = await readCatalog(file);
      const store = await state.store();
      const source = pick.file === demoCatalog ? 'demo-catalog' : `file:${file}`;
      for (const e of entries) await addAgent(store, state.clock, e.manifest, e.endpoint, source);
      if (pick.file === demoCatalog) copyExampleFiles(path.dirname(demoCatalog), state.dir);
      void vscode.window.showInformationMessage(`Holon: added ${entries.map((e) => e.manifest.id).join(', ')}.`);
    },
  };
}
