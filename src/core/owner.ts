/**
 * Which process holds money for a spend in flight. A hold names its owner, so that when that process
 * dies (killed, crashed, the machine restarted) the next process can tell and give the money back,
 * rather than leave it held forever.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import { pidAlive } from './journalLock.ts';

/** A process, told apart from a later one that got the same pid. */
export interface ProcessRef {
  host: string;
  pid: number;
  /** When the process started, as the OS tells it (Linux: ticks since boot); null where it cannot be read. */
  start: string | null;
}

function startOf(pid: number): string | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces and parentheses: count fields from the last ')'.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? null;
  } catch {
    return null;
  }
}

let self: ProcessRef | undefined;

/** This process. */
export function thisProcess(): ProcessRef {
  return (self ??= { host: os.hostname(), pid: process.pid, start: startOf(process.pid) });
}

/**
 * True only when `p` is certainly gone: it ran on this machine and no process has its pid, or the one
 * that has it started at another time. A process on another machine is never judged from here.
 */
export function processGone(p: ProcessRef): boolean {
  const me = thisProcess();
  if (p.host !== me.host) return false;
  if (p.pid === me.pid) return p.start !== me.start;
  if (!pidAlive(p.pid)) return true;
  const start = p.start === null ? null : startOf(p.pid);
  return start !== null && start !== p.start;
}
