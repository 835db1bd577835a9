import * as vscode from 'vscode';
import { createRunToken } from '../../core/accounts/runTokens.ts';
import type { CommandDeps, FeatureCommands } from './command.ts';
import { pickMandate } from './command.ts';

const LIFETIMES = [
  { label: '1 hour', ms: 3600_000 },
  { label: '8 hours', ms: 8 * 3600_000 },
  { label: '1 day', ms: 24 * 3600_000 },
];

/** A run token: how long a client may use a mandate over HTTP (`holon serve`). */
export function runTokenCommands(deps: CommandDeps): FeatureCommands<'createRunToken'> {
  const { state } = deps;
  return {
    createRunToken: async () => {
      const mandate = state.selected ?? (await pickMandate(deps, 'Mandate the run acts for'));
      if (!mandate) return undefined;
      const placeHolder = `How long a client may use ${mandate} over HTTP (holon serve)`;
      const ttl = await vscode.window.showQuickPick(LIFETIMES, { placeHolder });
      if (!ttl) return undefined;
      const made = await createRunToken(await state.store(), state.clock, { mandate, ttlMs: ttl.ms, label: 'editor' });
      // Shown once, never written anywhere: only its hash is kept. The client reads it from its environment.
      const copy = 'Copy Token';
      const answer = await vscode.window.showInformationMessage(
        `Holon: run token ${made.id} for ${mandate}, until ${new Date(made.expires_at).toLocaleString()}. Start \`holon serve\` and give ` +
          `the client HOLON_RUN_TOKEN; \`holon token end ${made.id}\` ends the run.`,
        copy,
      );
      if (answer === copy) await vscode.env.clipboard.writeText(made.token);
      return made.id;
    },
  };
}
