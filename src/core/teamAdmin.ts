/**
 * Setting up, filling and checking a team store with Holon's state: the store's PostgreSQL admin
 * (store/pg/admin.ts) given the fold, the registration of an installation and who the root is. Loaded
 * only when a command needs it, with the PostgreSQL client.
 */
import type { InitReport, MigrateReport, StoreDomain } from './store/pg/admin.ts';
import { initStore, migrateJournal, verifyStore } from './store/pg/admin.ts';
import type { Logger } from './kernel/deps.ts';
import type { HolonState } from './fold/state.ts';
import { holonReducer } from './fold/state.ts';
import type { Signer } from './store/store.ts';
import type { VerifyReport } from './store/verify.ts';
import { registerInstallation } from './accounts/team.ts';

const holonStore: StoreDomain<HolonState> = {
  reducer: holonReducer,
  register: registerInstallation,
  rootOf: (s) => s.team.root,
};

/** `holon store init`: the table, its guards, the member role, and `root` as the store's root when it is empty. */
export function initTeamStore(
  url: string,
  options: { member?: string | undefined; root?: { signer: Signer; machine: string; logger: Logger } } = {},
): Promise<InitReport> {
  const { root, ...rest } = options;
  return initStore(url, { ...rest, ...(root ? { root: { ...root, domain: holonStore } } : {}) });
}

/** `holon store migrate`: a state folder's journal copied into an empty team store, all or nothing. */
export function migrateToTeamStore(stateDir: string, url: string, deps: { logger: Logger }): Promise<MigrateReport> {
  return migrateJournal(stateDir, url, { ...deps, domain: holonStore });
}

/** `holon verify --store`: every row of a team store, through the same check as every process's. */
export function verifyTeamStore(url: string): Promise<VerifyReport> {
  return verifyStore(url, holonReducer);
}
