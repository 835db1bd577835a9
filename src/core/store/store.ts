/**
 * The journal's data format and the narrow store interface every process uses. The events and their
 * hashes are the same whatever holds them: a file in workspace storage (journal.ts) or a database table
 * a team shares (pg/store.ts). Events are appended in transactions; the last event of each carries
 * its seal, the signature of the installation that wrote it over the transaction's first and last seq
 * and the hash it ends on. A reader folds a transaction only once its seal is there and verifies, and
 * only if the fold admits every one of its events from that signer (see Reducer.admit): a transaction
 * is folded whole or not at all, and a row a teammate wrote by hand decides nothing.
 */
import { hash } from 'node:crypto';
import type { Logger } from '../kernel/deps.ts';
import { HolonError } from '../kernel/errors.ts';
import type { ProcessRef } from './owner.ts';

/** One event of the journal: a fact, hash-linked to the one before it. */
export interface JournalEvent {
  seq: number;
  time: string;
  type: string;
  data: unknown;
  /** Hash of the previous event ("" for the first). */
  prev: string;
  /** SHA-256 (hex) of the RFC 8785 canonical JSON of {seq, time, type, data, prev}. */
  hash: string;
  /** On the last event of a transaction: who wrote the transaction, and their signature of it. */
  tx?: TxSeal;
}

/**
 * What ends a transaction: its first event's seq, and the Ed25519 signature (base64) by `key` (raw
 * public key, base64) of `txMessage(from, seq, hash)` of the event that carries it. Outside the event's
 * hash, since it signs that hash; the hash chain makes it cover everything before too.
 */
export interface TxSeal {
  from: number;
  key: string;
  sig: string;
}

/** The message a transaction's seal signs: its first and last seq, and the hash of its last event. */
export function txMessage(from: number, to: number, head: string): string {
  return `holon-tx:v1:${from}:${to}:${head}`;
}

/** Seals events already linked into the chain (the last one gets the seal), signed by `signer`. */
export function seal(events: JournalEvent[], signer: Signer): JournalEvent[] {
  const first = events[0];
  const last = events.at(-1);
  if (!first || !last) return events;
  last.tx = { from: first.seq, key: signer.publicKey, sig: signer.sign(txMessage(first.seq, last.seq, last.hash)) };
  return events;
}

/** An event before the store gives it a place in the chain. */
export interface NewEvent {
  type: string;
  data: unknown;
}

/**
 * Event data as every reader will see it back: through JSON. Hashed and folded in this form, so that a
 * value JSON drops or changes (an undefined field, a function) can never make the writer's hash or fold
 * differ from a reader's; a value JSON cannot hold (a bigint) is refused before anything is written.
 */
export function asStored(data: unknown): unknown {
  return JSON.parse(storedJson(data));
}

/** Event data's JSON text, as a line or row holds it (`null` for a value JSON drops). */
function storedJson(data: unknown): string {
  return JSON.stringify(data) ?? 'null';
}

/**
 * RFC 8785 (JCS) text of a value: what json-canonicalize's `canonicalize` writes for it, byte for byte
 * (test/core/canonical.test.ts compares the two on every kind of value), but without the path string that
 * library builds for every property it visits, which made it most of what hashing an event costs. Every
 * event is hashed in this form, by its writer and by each of its readers.
 */
export function canonicalJson(v: unknown): string {
  // As the library does: an object with any `toJSON` member (even one that is not a function) is
  // written by JSON.stringify, and a value JSON has no text for (undefined, a function) as "undefined".
  if (v === null || typeof v !== 'object' || (v as { toJSON?: unknown }).toJSON != null) {
    if (typeof v === 'number' && !Number.isFinite(v))
      throw new Error(`Non-finite number (${v}) is not permitted in JSON (RFC 8785 §3.2.2.3)`);
    return String(JSON.stringify(v));
  }
  let out: string;
  if (Array.isArray(v)) {
    out = '[';
    let next = false;
    for (let i = 0; i < v.length; i++) {
      if (!(i in v)) continue;
      if (next) out += ',';
      next = true;
      const x: unknown = v[i];
      out += x === undefined ? 'null' : canonicalJson(x);
    }
    return out + ']';
  }
  const o = v as Record<string, unknown>;
  // UTF-16 code unit order, RFC 8785's, is what sort() compares by. A field JSON leaves out (undefined)
  // is skipped as it comes, rather than filtered into another array first.
  const keys = Object.keys(o).sort();
  out = '{';
  let next = false;
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i] as string;
    const x = o[k];
    if (x === undefined) continue;
    if (next) out += ',';
    next = true;
    out += JSON.stringify(k) + ':' + canonicalJson(x);
  }
  return out + '}';
}

/**
 * The hash that links an event into the chain: of `canonicalJson({seq, time, type, data, prev})`, that
 * object's text written here in its canonical key order, without building and sorting it per event.
 */
export function eventHash(e: Omit<JournalEvent, 'hash'>): string {
  let out = '{';
  const field = (key: string, v: unknown): void => {
    if (v === undefined) return;
    out += (out.length > 1 ? ',"' : '"') + key + '":' + canonicalJson(v);
  };
  field('data', e.data);
  field('prev', e.prev);
  field('seq', e.seq);
  field('time', e.time);
  field('type', e.type);
  return hash('sha256', out + '}', 'hex');
}

/** A new event linked into the chain, with its data's JSON text: what its line or row holds. */
export interface LinkedEvent {
  e: JournalEvent;
  /** `JSON.stringify(e.data)`, made once. */
  dataJson: string;
}

/**
 * `events` linked after `after` (the seq and hash of the last event), all stamped `time`, their data as
 * every reader will read it back (see asStored). Each event's data is written to JSON once: the line
 * or row reuses that text.
 */
export function linkEvents(events: readonly NewEvent[], after: { seq: number; hash: string }, time: string): LinkedEvent[] {
  const out: LinkedEvent[] = [];
  let seq = after.seq;
  let prev = after.hash;
  for (const n of events) {
    seq += 1;
    const dataJson = storedJson(n.data);
    const e: JournalEvent = { seq, time, type: n.type, data: JSON.parse(dataJson) as unknown, prev, hash: '' };
    e.hash = eventHash(e);
    out.push({ e, dataJson });
    prev = e.hash;
  }
  return out;
}

/** A linked event's journal line (without its newline): `JSON.stringify(e)`, its data not written again. */
export function eventLine({ e, dataJson }: LinkedEvent): string {
  const seal = e.tx ? `,"tx":${JSON.stringify(e.tx)}` : '';
  return (
    `{"seq":${e.seq},"time":${JSON.stringify(e.time)},"type":${JSON.stringify(e.type)},"data":${dataJson},` +
    `"prev":${JSON.stringify(e.prev)},"hash":${JSON.stringify(e.hash)}${seal}}`
  );
}

/**
 * The message a checkpoint signs. Journals written before every transaction was sealed were signed by
 * a checkpoint event now and then instead; they are still read (see TxChain).
 */
export function checkpointMessage(upTo: number, head: string): string {
  return `holon-checkpoint:v1:${upTo}:${head}`;
}

/** Parses one journal line; undefined when it is not a whole, well-formed event. */
export function parseEventLine(line: string): JournalEvent | undefined {
  try {
    const e = JSON.parse(line) as JournalEvent;
    if (
      typeof e !== 'object' ||
      e === null ||
      typeof e.seq !== 'number' ||
      typeof e.type !== 'string' ||
      typeof e.hash !== 'string' ||
      typeof e.prev !== 'string' ||
      typeof e.time !== 'string'
    )
      return undefined;
    if (e.tx !== undefined && !isSeal(e.tx)) return undefined;
    return e;
  } catch {
    return undefined;
  }
}

/** True when `v` has a seal's shape (whether it verifies is another question). */
export function isSeal(v: unknown): v is TxSeal {
  const t = v as TxSeal;
  return (
    typeof t === 'object' &&
    t !== null &&
    Number.isSafeInteger(t.from) &&
    t.from > 0 &&
    typeof t.key === 'string' &&
    typeof t.sig === 'string'
  );
}

/** What `reducer` would say of `events` sealed by `signer` after `seq` on `state` (see EventStore.mayWrite). */
export function wouldAdmit<S>(reducer: Reducer<S>, state: S, seq: number, signer: string, events: NewEvent[]): Refusal | undefined {
  if (!reducer.admit || events.length === 0) return undefined;
  const time = new Date().toISOString();
  return reducer.admit(
    state,
    events.map((n, i) => ({ seq: seq + i + 1, time, type: n.type, data: n.data, prev: '', hash: '' })),
    signer,
  );
}

/** Why an event read back cannot be trusted, or nothing when it follows `prev` at `seq` and is what its hash says. */
export function eventProblem(e: JournalEvent, seq: number, prev: string): string | undefined {
  if (e.seq !== seq) return `sequence ${String(e.seq)} where ${seq} was expected`;
  if (e.prev !== prev) return 'does not link to the previous event (prev hash differs)';
  if (eventHash(e) !== e.hash) return 'content does not match its hash (the event was altered)';
  return undefined;
}

/** How a store folds its events into the in-memory state every process keeps. */
export interface Reducer<S> {
  initial(): S;
  apply(state: S, event: JournalEvent): void;
  /** The state as JSON text for a snapshot, and back. */
  serialize(state: S): string;
  deserialize(text: string): S;
  /** The state as separate sections (one per slice), so a snapshot can be read a section at a time. */
  sections?: SectionCodec<S>;
  /**
   * The keys under which an event can be found again without folding (a receipt's id, say): what is
   * read on demand rather than kept in memory. Called with the state before the event is applied.
   * `first` marks the first event under a key, so a reader knows nothing came before it.
   */
  keys?(state: S, event: JournalEvent): FiledKey[];
  /**
   * Why the installation `signer` may not have written this transaction (a kind of event its role does
   * not allow, say), or undefined when the fold accepts it. Asked on the state before the transaction,
   * by every reader before it folds one, and by the writer before it appends one: so a writer is told
   * at once what every reader would refuse.
   */
  admit?(state: S, events: readonly JournalEvent[], signer: string): Refusal | undefined;
  /** Called with the signer of an admitted transaction, before its events are folded. */
  sealed?(state: S, signer: string): void;
}

/** One section of a snapshot: a slice's fields, and the shape they are written in. */
export interface Section {
  name: string;
  version: number;
  fields: string[];
  /** True when a section of an older version can be turned into this one (otherwise it is folded again). */
  migrates: boolean;
}

/** Where a lazy state reads a section from: its JSON text and the version it was written at. */
export type SectionSource = (name: string) => { text: string; version: number };

/** How a state is written and read as sections. */
export interface SectionCodec<S> {
  list: Section[];
  /** One section's JSON text. */
  write(state: S, name: string): string;
  /** A state each of whose sections is read from `source` the first time one of its fields is used. */
  lazy(source: SectionSource): S;
}

/** Why a transaction is not folded: a stable code and a sentence for a human. */
export interface Refusal {
  code: string;
  message: string;
}

/** A transaction a store read and did not fold, and why. */
export interface RefusedTx extends Refusal {
  /** Its first and last seq. */
  from: number;
  to: number;
  /** The key that sealed it, when one did. */
  signer: string | null;
}

/** A key an event is filed under; `first` when the event is the first under that key (nothing before it). */
export interface FiledKey {
  key: string;
  first?: boolean;
}

/** Seals transactions and signs snapshots with the installation key. */
export interface Signer {
  /** The raw Ed25519 public key, base64. */
  readonly publicKey: string;
  sign(message: string): string;
}

/** What a transaction returns: events to append, and a value for the caller. */
export interface TxResult<T> {
  events: NewEvent[];
  result: T;
}

/** Options of one transaction. */
export interface TxOptions {
  /**
   * False lets a later flush make the append durable (group commit): for an event whose loss in a crash
   * can only leave money over-reserved, never overspent (a settlement after a durable hold). The file
   * journal flushes it with the next durable append or within 50 ms; a team store commits it with
   * PostgreSQL's `synchronous_commit` off, and writes it again should the database lose it.
   */
  durable?: boolean;
  /**
   * True when `fn` does nothing but return its events and result, so that it may run more than once: a
   * store whose lock costs a round trip (the team store) may then run it on the state it has and write in
   * one round trip, and run it again under the lock only should another process have written first.
   */
  rerunnable?: boolean;
}

/**
 * The narrow store interface every process uses: transactions decided against the latest state, events
 * read back by key, and the events other processes append. A file in workspace storage implements it
 * (journal.ts); a shared deployment implements the same with a database transaction and LISTEN/NOTIFY.
 */
export interface EventStore<S> {
  /** The latest folded state this process has seen. */
  readonly state: S;
  /** Sequence number of the last event seen. */
  readonly seq: number;
  /**
   * Runs `fn` on the latest state, alone among every process of this store; its events are appended
   * before anyone else decides, so a decision and the events it implies can never interleave with another's.
   */
  transact<T>(fn: (state: S) => TxResult<T>, options?: TxOptions): Promise<T>;
  /**
   * The events filed under `key` (see Reducer.keys), oldest first, each checked before it is returned;
   * with `newest`, only that many of the latest.
   */
  readKey(key: string, options?: { newest?: number }): Promise<JournalEvent[]>;
  /** Reads events appended by other processes since the last look. */
  refresh(): JournalEvent[];
  /** Calls `listener` with every batch of new events, from any process. Returns an unsubscribe. */
  subscribe(listener: (events: JournalEvent[]) => void): () => void;
  /** Calls `listener` once if the store stops because what it read does not verify. */
  onBroken(listener: (err: Error) => void): () => void;
  /**
   * The transactions read and not folded (on a store others write to: a row a teammate wrote that its
   * signer may not write, say), oldest first; and every new one as it is read. A store that cannot go
   * on past such a transaction (the file journal, which only its own installation writes) stops instead.
   */
  readonly refused: readonly RefusedTx[];
  onRefused(listener: (tx: RefusedTx) => void): () => void;
  /**
   * Why this process may not append `events` as a transaction now (its installation's role does not
   * allow one of them), or undefined: what `transact` would refuse, asked without writing anything, so
   * a process can leave out what is not its to write (another account's holds, say).
   */
  mayWrite(events: NewEvent[]): Refusal | undefined;
  /** Makes every append so far durable (group-committed ones included). */
  flush(): Promise<void>;
  /**
   * For a store shared by many machines: which of `owners` (processes, on any machine) are no longer
   * connected to it, one flag each; null when that cannot be told right now (the store itself just
   * restarted, and its clients are still reconnecting). A store without it judges only this machine's.
   */
  ownersAbsent?(owners: ProcessRef[]): Promise<boolean[] | null>;
  /**
   * For a store whose database may lose, in a crash, the last transactions committed without waiting
   * for their flush (see TxOptions.durable): when that database last started, in ms since the epoch by
   * its clock; null when that cannot be told right now. What a process wrote before it may have been
   * lost: a hold placed before it may have lost its settlement.
   */
  startedAt?(): Promise<number | null>;
  close(): void;
}

/**
 * Who listens to a store: the batches of events it folds, the transactions it refuses, and the one
 * moment it stops because what it read does not verify. Every store keeps its listeners here, so each is
 * told the same way.
 */
export class StoreListeners {
  private readonly batches = new Set<(events: JournalEvent[]) => void>();
  private readonly breaks = new Set<(err: Error) => void>();
  private readonly refusals = new Set<(tx: RefusedTx) => void>();
  readonly refused: RefusedTx[] = [];
  /** Why the store stopped, once it has. */
  broken: HolonError | undefined;

  constructor(
    private readonly logger: Logger,
    /** What the store is, in a failing listener's log line. */
    private readonly what: string,
  ) {}

  subscribe(listener: (events: JournalEvent[]) => void): () => void {
    this.batches.add(listener);
    return () => this.batches.delete(listener);
  }

  onBroken(listener: (err: Error) => void): () => void {
    if (this.broken) {
      listener(this.broken);
      return () => {};
    }
    this.breaks.add(listener);
    return () => this.breaks.delete(listener);
  }

  onRefused(listener: (tx: RefusedTx) => void): () => void {
    this.refusals.add(listener);
    return () => this.refusals.delete(listener);
  }

  /**
   * Records a transaction that was read and not folded, and tells whoever listens (each opener decides
   * how a human is shown it, once: see `unseenRefusals`).
   */
  refuse(tx: RefusedTx): void {
    this.refused.push(tx);
    for (const l of this.refusals) {
      try {
        l(tx);
      } catch (err) {
        this.logger.error(`${this.what} listener failed: ${String(err)}`);
      }
    }
  }

  /** Tells every subscriber about events just folded; one failing does not keep them from the others. */
  notify(events: JournalEvent[]): void {
    for (const l of this.batches) {
      try {
        l(events);
      } catch (err) {
        this.logger.error(`${this.what} listener failed: ${String(err)}`);
      }
    }
  }

  /** Stops the store (the first time): logs why and tells whoever listens. Returns the error to throw. */
  breakWith(message: string, details: Record<string, unknown>): HolonError {
    const err = new HolonError('corrupt_journal', message, details);
    if (!this.broken) {
      this.broken = err;
      this.logger.error(message);
      for (const l of this.breaks) {
        try {
          l(err);
        } catch {
          // A listener's failure must not hide the break from the others.
        }
      }
    }
    return err;
  }

  clear(): void {
    this.batches.clear();
    this.breaks.clear();
    this.refusals.clear();
  }
}

/**
 * What every store does the same way for whoever listens to it: each store extends this and tells its
 * listeners through `listening` as it folds, refuses or stops.
 */
export abstract class ListenedStore {
  protected readonly listening: StoreListeners;

  constructor(logger: Logger, what: string) {
    this.listening = new StoreListeners(logger, what);
  }

  /** The transactions read and not folded, and why. */
  get refused(): readonly RefusedTx[] {
    return this.listening.refused;
  }

  subscribe(listener: (events: JournalEvent[]) => void): () => void {
    return this.listening.subscribe(listener);
  }

  onBroken(listener: (err: Error) => void): () => void {
    return this.listening.onBroken(listener);
  }

  onRefused(listener: (tx: RefusedTx) => void): () => void {
    return this.listening.onRefused(listener);
  }
}

/**
 * The refused transactions a human has not been shown yet, given the last seq shown (what `shownThrough`
 * remembers where the human is: the CLI's state folder, the editor's storage); the new mark to remember.
 */
export function unseenRefusals(refused: readonly RefusedTx[], shownThrough: number): { unseen: RefusedTx[]; through: number } {
  const unseen = refused.filter((t) => t.to > shownThrough);
  return { unseen, through: Math.max(shownThrough, ...refused.map((t) => t.to)) };
}

/** One line for a human about refused transactions: how many, the first of them, and what to run. */
export function refusalNotice(unseen: readonly RefusedTx[], verify: string): string {
  const first = unseen[0];
  if (!first) return '';
  const more = unseen.length > 1 ? ` (and ${unseen.length - 1} more)` : '';
  return (
    `the team store holds rows that were not folded: ${describeRefusal(first)}${more}. Nothing ` +
    `they say counts; run \`${verify}\` for each, and ask the store's owner who wrote them`
  );
}

/** A refused transaction in a sentence: where it is, who sealed it, and why it was not folded. */
export function describeRefusal(tx: RefusedTx): string {
  const where = tx.from === tx.to ? `event ${tx.from}` : `events ${tx.from}–${tx.to}`;
  return `${where} not folded (${tx.code}): ${tx.message}`;
}
