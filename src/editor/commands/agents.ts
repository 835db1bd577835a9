import * as path from 'node:path';
import * as vscode from 'vscode';
import { copyExampleFiles } from '../../core/local/demoFiles.ts';
import { addAgentSource, isListingUrl, readAgentSource } from '../../core/market/agentSources.ts';
import { addedSummary } from '../agentsAdded.ts';
import { chainSettings, registries } from '../settings.ts';
import type { CommandDeps, FeatureCommands } from './command.ts';

/** The pick that asks for a URL (no file is named so). */
const URL_ITEM = 'url:';

/**
 * Adding agents to the catalog: the built-in demo catalog, a configured registry, a file (a catalog or an
 * x402 discovery listing), or a facilitator's discovery URL.
 */
export function agentCommands({ state, demoCatalog }: CommandDeps): FeatureCommands<'addAgent'> {
  return {
    addAgent: async () => {
      const items = [
        { label: 'Demo catalog', description: 'built in: five local example agents', file: demoCatalog },
        ...registries().map((r) => ({ label: path.basename(r), description: r, file: r })),
        { label: 'From a file…', description: 'a catalog, {manifest, endpoint} or x402 discovery listing JSON', file: '' },
        { label: 'From a discovery URL…', description: "an x402 facilitator's listing of the services it settles", file: URL_ITEM },
      ];
      const pick = await vscode.window.showQuickPick(items, { placeHolder: 'Where to add agents from' });
      if (!pick) return;
      let file = pick.file;
      if (file === URL_ITEM) {
        const url = await vscode.window.showInputBox({
          prompt: "A facilitator's URL, or its discovery listing's (…/discovery/resources)",
          placeHolder: 'https://facilitator.example/discovery/resources',
          validateInput: (v) => (isListingUrl(v.trim()) ? undefined : 'An http:// or https:// URL'),
        });
        if (!url) return;
        file = url.trim();
      }
      if (!file) {
        const uri = await vscode.window.showOpenDialog({ canSelectMany: false, filters: { JSON: ['json'] } });
        if (!uri?.[0]) return;
        file = uri[0].fsPath;
      }
      // The chain the human configured: a listing's resources paid elsewhere are left out.
      const chain = chainSettings().config;
      const from = await readAgentSource(file, {
        fetch: globalThis.fetch,
        chain: chain ? { network: chain.network, token: chain.token } : undefined,
      });
      const store = await state.store();
      const added = await addAgentSource(store, state.clock, from, pick.file === demoCatalog ? 'demo-catalog' : from.source);
      if (pick.file === demoCatalog) copyExampleFiles(path.dirname(demoCatalog), state.dir);
      void vscode.window.showInformationMessage(`Holon: ${addedSummary(added, from)}`);
    },
  };
}
