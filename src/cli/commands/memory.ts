/**
 * `holon memory MANDATE`: what a mandate remembers, for the human, read-only — the snapshot a recall
 * would show (valid now, or --as-of; as recorded now, or --system-as-of), or with --history every
 * version of every key, superseded ones included. Nothing here writes: memory is the agent's to write,
 * and nobody's to forget.
 */
import { HolonError } from '../../core/kernel/errors.ts';
import type { MemoryVersion } from '../../core/memory/slice.ts';
import { allVersions, isoInstant, readContents, resolveSnapshot } from '../../core/memory/memory.ts';
import type { Command } from '../args.ts';
import { str } from '../args.ts';
import { clock, openExisting, print, withStore } from '../context.ts';

/** A memory's text on one terminal line: control characters (escape sequences included) shown, never run. */
function oneLine(text: string, max = 100): string {
  const safe = text
    .replace(/\r?\n/g, ' ⏎ ')
    .replace(/[\u0000-\u001f\u007f-\u009f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return safe.length <= max ? safe : `${safe.slice(0, max)}… (${text.length} chars)`;
}

const validRange = (v: MemoryVersion): string => `valid ${v.valid_from} → ${v.valid_to ?? '…'}`;

const memoryCmd: Command = {
  name: 'memory',
  usage: 'memory MANDATE [--as-of T] [--system-as-of T] [--prefix P] [--history] [--limit N]',
  summary:
    'Lists what a mandate remembers, as a recall would show it (read-only); --history ' +
    'lists every version, corrections and what they superseded.',
  options: {
    'as-of': { type: 'string', help: 'valid time: what was true then (ISO 8601; default now)' },
    'system-as-of': { type: 'string', help: 'system time: as Holon had recorded it then (ISO 8601; default now)' },
    prefix: { type: 'string', help: 'only keys starting with this' },
    history: { type: 'boolean', help: 'every version of every key, oldest first' },
    limit: { type: 'string', help: 'at most this many records (default 100)' },
  },
  positionals: [1, 1],
  async run(ctx) {
    const mandate = ctx.args[0] as string;
    const limit = Number(str(ctx.opts, 'limit') ?? '100');
    if (!Number.isInteger(limit) || limit < 1) throw new HolonError('invalid_input', '--limit takes a positive whole number');
    const history = ctx.opts['history'] === true;
    const asOf = str(ctx.opts, 'as-of');
    const systemAsOf = str(ctx.opts, 'system-as-of');
    if (history && (asOf !== undefined || systemAsOf !== undefined))
      throw new HolonError('invalid_input', '--history lists every version: it takes no --as-of or --system-as-of');
    const now = clock.now();
    const validAsOf = asOf !== undefined ? isoInstant(asOf, '--as-of') : new Date(now).toISOString();
    const system = systemAsOf !== undefined ? isoInstant(systemAsOf, '--system-as-of') : new Date(now).toISOString();
    const prefix = str(ctx.opts, 'prefix') ?? null;
    return withStore(openExisting(ctx), async (store) => {
      if (!store.state.mandates[mandate]) throw new HolonError('not_found', `no mandate "${mandate}"`);
      const all = history
        ? allVersions(store.state, mandate).filter((v) => prefix === null || v.key.startsWith(prefix))
        : resolveSnapshot(store.state, {
            mandate,
            system_seq: store.seq,
            system_as_of: system,
            valid_as_of: validAsOf,
            keys: null,
            prefix,
          });
      const shown = all.slice(0, limit);
      const contents = await readContents(store, mandate, shown);
      const records = shown.map((v) => ({ ...v, content: contents.get(v.id) ?? '' }));
      const head = history
        ? `${mandate}: ${all.length} versions${prefix ? ` of keys starting "${oneLine(prefix)}"` : ''}`
        : `${mandate}: ${all.length} records valid at ${validAsOf}, as recorded by ${system} (journal #${store.seq})`;
      const lines = records.flatMap((r) => [
        `${oneLine(r.key, 60)}  ${validRange(r)}  recorded ${r.recorded_at}  ${r.bytes} ` +
          `B  ${r.id}${r.supersedes.length > 0 ? `  supersedes ${r.supersedes.join(', ')}` : ''}`,
        `    ${oneLine(r.content)}`,
      ]);
      const more = all.length > shown.length ? [`… and ${all.length - shown.length} more (--limit, --prefix)`] : [];
      const json = {
        mandate,
        ...(history ? { history: true } : { valid_as_of: validAsOf, system_as_of: system, system_seq: store.seq }),
        total: all.length,
        records,
      };
      return print(ctx, json, all.length === 0 ? `${head}.` : [`${head}:`, ...lines, ...more].join('\n'));
    });
  },
};

export const commands: Command[] = [memoryCmd];
