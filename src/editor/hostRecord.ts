/**
 * The extension host's own record of a state folder, in a file of the extension's global storage: what
 * the editor must remember about the workspace besides its ledger, on the machine the extension host runs
 * on (VS Code's workspace state lives in the browser when the workbench does). No vscode here, so that a
 * plain Node test reads and writes it.
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';

/**
 * What the editor remembers about one state folder besides its ledger: the selected mandate, and whether
 * the human has seen the receipts (the walkthrough's last step).
 */
export interface HostRecord {
  selected?: string;
  receiptsShown?: boolean;
}

/** Reads a record; anything but a record of the expected shape reads as an empty one. */
export function readHostRecord(file: string): HostRecord {
  let raw: unknown;
  try {
    raw = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {
    return {};
  }
  if (typeof raw !== 'object' || raw === null) return {};
  const r = raw as Record<string, unknown>;
  return {
    ...(typeof r['selected'] === 'string' ? { selected: r['selected'] } : {}),
    ...(r['receiptsShown'] === true ? { receiptsShown: true } : {}),
  };
}

/** Writes a record whole: a reader sees the old one or the new one, never half of one. */
export function writeHostRecord(file: string, record: HostRecord): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, JSON.stringify(record) + '\n', { mode: 0o600 });
  fs.renameSync(tmp, file);
}

/** The record of `stateDir`, in the extension's global storage (one file per state folder). */
export function hostRecordFile(globalStorage: string, stateDir: string): string {
  return path.join(globalStorage, 'workspaces', `${createHash('sha256').update(stateDir).digest('hex').slice(0, 32)}.json`);
}
