/** What the commands share: opening the state, printing, asking the human at the terminal. */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as readline from 'node:readline/promises';
import { holdableClock, stderrLogger } from '../core/kernel/deps.ts';
import { isGuarded } from '../core/accounts/passkeys.ts';
import { humanStore } from '../core/decisions/asserted.ts';
import { HolonError } from '../core/kernel/errors.ts';
import { goneOwners, releaseOrphanedHolds } from '../core/money/spend.ts';
import type { EventStore } from '../core/store/store.ts';
import { refusalNotice, unseenRefusals } from '../core/store/store.ts';
import { JOURNAL_FILE } from '../core/store/file/journal.ts';
import { openStore } from '../core/holon.ts';
import type { HolonState } from '../core/fold/state.ts';
import type { CommandContext } from './args.ts';

// Held still while a decision is built twice, to be shown to the human and then written (decisions/asserted.ts).
export const clock = holdableClock();
export const logger = stderrLogger;

/** True when the state folder holds a journal. */
export function hasState(stateDir: string): boolean {
  return fs.existsSync(path.join(stateDir, JOURNAL_FILE));
}

/** Opens the state's store (the shared one, with --store) for a short command; no tailing needed. */
export async function open(ctx: CommandContext): Promise<EventStore<HolonState>> {
  const store = await openStore(ctx.stateDir, { clock, logger, watch: false, store: ctx.store });
  noticeRefusals(ctx.stateDir, store);
  if (!isGuarded(store.state)) return store;
  // A state the human's passkey guards: what only they decide is asked on the page, never at this terminal.
  const { askAtPage } = await import('./passkeyPage.ts');
  return humanStore(store, clock, askAtPage);
}

/** Where a state folder remembers the last refused row its human was told of. */
const REFUSALS_SHOWN = 'refusals.shown';

/**
 * Tells the human, once, of rows the team store holds and did not fold: a line on stderr for the ones
 * this installation has not been told of (remembered in its state folder, when it has one: a command
 * that only reads creates no folder, and then says it each time).
 */
function noticeRefusals(stateDir: string, store: EventStore<HolonState>): void {
  if (store.refused.length === 0) return;
  const file = path.join(stateDir, REFUSALS_SHOWN);
  let shown = 0;
  try {
    shown = Number.parseInt(fs.readFileSync(file, 'utf8'), 10) || 0;
  } catch {
    // Never told: show them all.
  }
  const { unseen, through } = unseenRefusals(store.refused, shown);
  if (unseen.length === 0) return;
  logger.warn(refusalNotice(unseen, 'holon verify --store'));
  // Only a suppressed warning is at stake in this file: nothing read from it widens anything.
  if (fs.existsSync(stateDir)) fs.writeFileSync(file, `${through}\n`, { mode: 0o600 });
}

/** Reads a state that must already exist; a read never creates one. */
export function openExisting(ctx: CommandContext): Promise<EventStore<HolonState>> {
  if (ctx.store !== undefined) return open(ctx);
  if (!hasState(ctx.stateDir))
    throw new HolonError('not_found', `no Holon state in ${ctx.stateDir} (use --state DIR, or fund an account first)`);
  return open(ctx);
}

/**
 * Runs a command on a store and closes it. Every transaction it appended is sealed as it was written; a
 * read, a command that failed, or one the human declined leaves the journal exactly as it was.
 */
export async function withStore<T>(
  opening: EventStore<HolonState> | Promise<EventStore<HolonState>>,
  fn: (s: EventStore<HolonState>) => Promise<T>,
  write = false,
): Promise<T> {
  const store = await opening;
  try {
    // A write first gives back what a process that died mid-spend still holds.
    if (write) await releaseOrphanedHolds(store, await goneOwners(store));
    return await fn(store);
  } finally {
    store.close();
  }
}

/** Prints JSON with --json, else the text; returns the exit code 0. */
export function print(ctx: CommandContext, json: unknown, text: string): number {
  ctx.out(ctx.json ? JSON.stringify(json, null, 2) : text);
  return 0;
}

/** A comma-separated flag as a list; an empty list is refused. */
export function list(v: string | undefined): string[] | undefined {
  if (v === undefined) return undefined;
  const items = v
    .split(',')
    .map((x) => x.trim())
    .filter((x) => x.length > 0);
  if (items.length === 0) throw new HolonError('invalid_input', `"${v}" is an empty list`);
  return items;
}

/**
 * Asks the human at the terminal; refuses when there is none, so an agent's shell cannot answer. (An
 * agent that can run a pseudo-terminal can still answer: the README says so, and the editor's panel is
 * the channel to trust.)
 */
export async function confirmAtTerminal(question: string, refusal: string): Promise<boolean> {
  if (!process.stdin.isTTY || !process.stdout.isTTY) {
    throw new HolonError('not_interactive', `${refusal} needs a human at a terminal (stdin and stdout must be a TTY); nothing was changed`);
  }
  const rl = readline.createInterface({ input: process.stdin, output: process.stdout });
  try {
    const answer = await rl.question(question);
    return /^y(es)?$/i.test(answer.trim());
  } finally {
    rl.close();
  }
}

/**
 * Asks the human at a terminal, as confirmAtTerminal does — unless a passkey guards the state: then the
 * passkey's page asks, as the change is written (decisions/asserted.ts), and nothing typed here counts.
 */
export async function confirmUnlessGuarded(ctx: CommandContext, question: string, refusal: string): Promise<boolean> {
  const guarded =
    (ctx.store !== undefined || hasState(ctx.stateDir)) && (await withStore(open(ctx), async (store) => isGuarded(store.state)));
  return guarded || confirmAtTerminal(question, refusal);
}
