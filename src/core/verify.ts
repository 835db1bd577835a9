/**
 * `holon verify` of a state folder: the store's offline check of its journal (store/verify.ts), folded
 * with Holon's own state, so what it admits is exactly what every process admits.
 */
import * as path from 'node:path';
import { holonReducer } from './fold/state.ts';
import type { PasskeyCredential } from './passkey/types.ts';
import type { KeyUse } from './rails/delegation/accountKeys.ts';
import { JOURNAL_FILE } from './store/file/journal.ts';
import { scanLines } from './store/file/foldRange.ts';
import { parseEventLine } from './store/store.ts';
import type { VerifyReport } from './store/verify.ts';
import { checkJournal } from './store/verify.ts';

/** Checks a state folder's whole journal, its snapshot and its index (see `checkJournal`). */
export function verifyJournal(stateDir: string): VerifyReport {
  return checkJournal(stateDir, holonReducer);
}

/**
 * The journal's passkey events, in order: registrations, removals and the human's assertions, each with
 * the passkey it names. Read from a journal `verifyJournal` found whole, so that every one was folded.
 */
export function passkeyUses(stateDir: string): KeyUse[] {
  const uses: KeyUse[] = [];
  scanLines(path.join(stateDir, JOURNAL_FILE), 0, undefined, (line) => {
    // Most lines are something else: only these three are parsed.
    if (!/"type":"(passkey\.registered|passkey\.removed|human\.asserted)"/.test(line)) return true;
    const e = parseEventLine(line);
    const d = e?.data as { credential?: { id?: unknown }; id?: unknown; assertion?: { credential?: unknown } } | undefined;
    if (e?.type === 'passkey.registered' && typeof d?.credential?.id === 'string')
      uses.push({ seq: e.seq, type: e.type, credential: d.credential as PasskeyCredential });
    else if (e?.type === 'passkey.removed' && typeof d?.id === 'string') uses.push({ seq: e.seq, type: e.type, credential: d.id });
    else if (e?.type === 'human.asserted' && typeof d?.assertion?.credential === 'string')
      uses.push({ seq: e.seq, type: e.type, credential: d.assertion.credential });
    return true;
  });
  return uses;
}
