import * as vscode from 'vscode';
import { HolonError } from '../../core/kernel/errors.ts';
import { storeSetting } from '../settings.ts';
import type { TeamStore } from '../storeSetting.ts';
import { teamStoreFromSetting } from '../storeSetting.ts';
import type { CommandDeps, FeatureCommands } from './command.ts';
import { givenOrTyped } from './command.ts';

const KEPT = "It is kept in VS Code's secret storage, never in settings or the workspace.";

/** The team store `holon.store` names; a command about its password has nothing to do without one. */
function namedTeamStore(): TeamStore {
  const team = teamStoreFromSetting(storeSetting());
  if (!team) {
    const where = 'put its postgres://user@host:port/database URL in holon.store, in your user settings, first';
    throw new HolonError('invalid_input', `no team store is set: ${where}`);
  }
  return team;
}

/**
 * The team store's password. It goes to SecretStorage (the OS keychain) under a key naming the store's
 * URL, never to settings; the state reopens the store when it changes (teamStore.ts).
 */
export function teamStoreCommands({ secrets }: CommandDeps): FeatureCommands<'setStorePassword' | 'clearStorePassword'> {
  return {
    setStorePassword: async (passwordArg) => {
      const team = namedTeamStore();
      const password = await givenOrTyped(passwordArg, {
        title: `Holon: password of the team store ${team.label}`,
        prompt: `The PostgreSQL password for ${team.url}. ${KEPT}`,
        password: true,
        ignoreFocusOut: true,
      });
      if (password === undefined || password === '') return undefined;
      await secrets.store(team.secretKey, password);
      void vscode.window.showInformationMessage(`Holon: password kept for the team store ${team.label}; reconnecting.`);
      return team.label;
    },
    clearStorePassword: async () => {
      const team = namedTeamStore();
      await secrets.delete(team.secretKey);
      void vscode.window.showInformationMessage(`Holon: the password of the team store ${team.label} is forgotten.`);
      return team.label;
    },
  };
}
