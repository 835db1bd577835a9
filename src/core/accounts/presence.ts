/**
 * Presence: whether an agent's server runs now (seed 004's `running`). A run over HTTP runs while its run
 * token is live. A stdio server (`holon mcp --mandate M`) records, when it starts, that it runs and which
 * process it is, and, when it stops, that it stopped — the way a hold names the process that placed it
 * (store/owner.ts). A server killed (kill -9, a crash) writes nothing more, so its record alone proves
 * nothing: whether it still runs is judged as a hold's owner is, by its pid on this machine, and on a team
 * store by the presence PostgreSQL keeps for every connected process. The next server started on a machine
 * drops the records of that machine's processes that certainly died, so they do not pile up.
 */
import type { Clock } from '../kernel/deps.ts';
import { newId } from '../kernel/ids.ts';
import type { RunTokensFields } from './runTokens.ts';
import { runTokenStatus } from './runTokens.ts';
import type { Slice } from '../store/slice.ts';
import { eventsOf } from '../store/slice.ts';
import type { ProcessRef } from '../store/owner.ts';
import { ownerState, thisProcess } from '../store/owner.ts';
import type { EventStore } from '../store/store.ts';
import type { Dict } from '../kernel/util.ts';
import { dict, toDict } from '../kernel/util.ts';

/** A server of one mandate that said it started and has not said it stopped. */
export interface ServerPresence {
  id: string;
  mandate: string;
  /** The process serving it, told apart from a later one with the same pid. */
  owner: ProcessRef;
  started_at: string;
}

/** The presence part of the state. */
export interface PresenceFields {
  servers: Dict<ServerPresence>;
}

/** The presence events. */
export interface PresenceEvents {
  'server.started': ServerPresence;
  /** `gone`: written by another process, which saw this one had died. */
  'server.stopped': { id: string; at: string; reason?: 'gone' };
}

const presenceEvent = eventsOf<PresenceEvents>();

export const presenceSlice: Slice<PresenceFields, PresenceEvents> = {
  initial: () => ({ servers: dict() }),
  on: {
    'server.started': (s, d) => {
      s.servers[d.id] = { id: d.id, mandate: d.mandate, owner: { ...d.owner }, started_at: d.started_at };
    },
    'server.stopped': (s, d) => {
      delete s.servers[d.id];
    },
  },
  revive: (s) => {
    s.servers = toDict(s.servers);
  },
};

/** Whether a server's process certainly stopped: it died on this machine, or the machine started again since. */
function certainlyStopped(p: ServerPresence): boolean {
  const state = ownerState(p.owner);
  return state === 'gone' || state === 'restarted';
}

/**
 * Records that this process serves `mandate`, in the same transaction as dropping the records of this
 * machine's servers that died without saying so (those this installation may write). Returns how to record
 * that it stopped; call it once, before the store closes.
 */
export async function recordServer(store: EventStore<PresenceFields>, clock: Clock, mandate: string): Promise<() => Promise<void>> {
  const id = newId('srv');
  const at = (): string => new Date(clock.now()).toISOString();
  await store.transact((s) => {
    const stopped = (x: string, reason?: 'gone'): ReturnType<typeof presenceEvent> =>
      presenceEvent('server.stopped', { id: x, at: at(), ...(reason ? { reason } : {}) });
    const dead = Object.values(s.servers)
      .filter((p) => certainlyStopped(p) && store.mayWrite([stopped(p.id, 'gone')]) === undefined)
      .map((p) => stopped(p.id, 'gone'));
    const started = presenceEvent('server.started', { id, mandate, owner: thisProcess(), started_at: at() });
    return { events: [...dead, started], result: undefined };
  });
  let done = false;
  return async () => {
    if (done) return;
    done = true;
    // Another process may have dropped the record already, taking this one for dead: nothing left to say then.
    await store.transact((s) => ({ events: s.servers[id] ? [presenceEvent('server.stopped', { id, at: at() })] : [], result: undefined }));
  };
}

/**
 * The mandates whose agent runs now: a live run token (an HTTP run), or a server that recorded it started,
 * has not recorded it stopped, and whose process is still there. A process on another machine is asked of
 * the store (a team store knows who is connected); where that cannot be told, its record is believed.
 */
export async function runningMandates(store: EventStore<PresenceFields & RunTokensFields>, now: number): Promise<Set<string>> {
  const s = store.state;
  const running = new Set<string>();
  for (const t of Object.values(s.run_tokens)) if (runTokenStatus(t, now) === 'live') running.add(t.mandate);
  const elsewhere: ServerPresence[] = [];
  for (const p of Object.values(s.servers)) {
    if (running.has(p.mandate)) continue;
    const state = ownerState(p.owner);
    if (state === 'running') running.add(p.mandate);
    else if (state === 'elsewhere') elsewhere.push(p);
  }
  if (elsewhere.length > 0) {
    const absent = store.ownersAbsent ? await store.ownersAbsent(elsewhere.map((p) => p.owner)) : null;
    elsewhere.forEach((p, i) => {
      if (!absent?.[i]) running.add(p.mandate);
    });
  }
  return running;
}
