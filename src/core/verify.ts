/**
 * `holon verify` of a state folder: the store's offline check of its journal (store/verify.ts), folded
 * with Holon's own state, so what it admits is exactly what every process admits.
 */
import { holonReducer } from './fold/state.ts';
import type { VerifyReport } from './store/verify.ts';
import { checkJournal } from './store/verify.ts';

/** Checks a state folder's whole journal, its snapshot and its index (see `checkJournal`). */
export function verifyJournal(stateDir: string): VerifyReport {
  return checkJournal(stateDir, holonReducer);
}
