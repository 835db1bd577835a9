/**
 * Which process holds money for a spend in flight. A hold names its owner, so that when that process
 * dies (killed, crashed) the next process can tell and give the money back, rather than leave it held
 * forever. After the machine itself went down it cannot be told whether the spend's settlement reached
 * the disk, so such holds stay held (over-reserved, never overspent) until a human releases them.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import { pidAlive } from './file/lock.ts';

/** A process, told apart from a later one that got the same pid, on a machine since it last started. */
export interface ProcessRef {
  host: string;
  /** Which run of the machine: Linux's boot id, elsewhere `t:` and when it started (seconds). */
  boot?: string;
  pid: number;
  /** When the process started, as the OS tells it (Linux: ticks since boot); null where it cannot be read. */
  start: string | null;
}

/** How a hold's owner is doing, as far as this process can tell. */
export type OwnerState = 'running' | 'gone' | 'restarted' | 'elsewhere';

function startOf(pid: number): string | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces and parentheses: count fields from the last ')'.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? null;
  } catch {
    return null;
  }
}

function bootId(): string {
  try {
    return fs.readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
  } catch {
    return `t:${Math.round(Date.now() / 1000 - os.uptime())}`;
  }
}

/** Boot times read at two moments differ by a second or so: within a minute is the same run. */
function sameBoot(a: string, b: string): boolean {
  if (a.startsWith('t:') && b.startsWith('t:')) return Math.abs(Number(a.slice(2)) - Number(b.slice(2))) <= 60;
  return a === b;
}

let self: ProcessRef | undefined;

/**
 * This machine's name as a team store shows it: `HOLON_MACHINE` when set (a container's host name is
 * random and says nothing to a teammate), else the host name. It names the machine, it grants nothing:
 * a process that claims another machine's name only makes its own holds look like that machine's, which
 * is no more than stopping itself would do.
 */
export function machineName(): string {
  const named = process.env.HOLON_MACHINE?.trim();
  return named && /^[\w.-]{1,64}$/.test(named) ? named : os.hostname();
}

/** This process. */
export function thisProcess(): ProcessRef {
  return (self ??= { host: machineName(), boot: bootId(), pid: process.pid, start: startOf(process.pid) });
}

/** One string per process, for the places that look a process up (a team store's presence). */
export function processKey(p: ProcessRef): string {
  return `${p.host}|${p.boot ?? ''}|${p.pid}|${p.start ?? ''}`;
}

/**
 * How `p` is doing: `gone` only when it certainly died on this machine since it last started (no
 * process has its pid, or the one that has it started at another time); `restarted` when the machine
 * started again since; `elsewhere` when it ran on another machine, which is never judged from here.
 */
export function ownerState(p: ProcessRef): OwnerState {
  const me = thisProcess();
  if (p.host !== me.host) return 'elsewhere';
  if (p.boot !== undefined && me.boot !== undefined && !sameBoot(p.boot, me.boot)) return 'restarted';
  if (p.pid === me.pid) return p.start === me.start ? 'running' : 'gone';
  if (!pidAlive(p.pid)) return 'gone';
  const start = p.start === null ? null : startOf(p.pid);
  return start !== null && start !== p.start ? 'gone' : 'running';
}

/** True when `p` certainly died, and everything it wrote is still there to read (see ownerState). */
export function processGone(p: ProcessRef): boolean {
  return ownerState(p) === 'gone';
}
