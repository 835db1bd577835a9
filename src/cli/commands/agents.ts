import { HolonError } from '../../core/kernel/errors.ts';
import { addAgentSource, MAX_LISTED, readAgentSource } from '../../core/market/agentSources.ts';
import { offers } from '../../core/market/policy.ts';
import { denialTexts, fmt } from '../../core/kernel/words.ts';
import { openRuntime } from '../../server/runtime.ts';
import type { Command } from '../args.ts';
import { str } from '../args.ts';
import { clock, logger, open, openExisting, print, withStore } from '../context.ts';
import { CHAIN_OPTIONS, chainOf } from '../chainOptions.ts';

const agentsCmd: Command = {
  name: 'agents',
  usage: 'agents list | search [QUERY] [--capability C] [--mandate M] | add FILE|URL [--capability C]',
  summary:
    'Lists and searches the catalog; adds agents from a catalog file ' +
    '({agents:[{manifest, endpoint}]}), one {manifest, endpoint} file, or an x402 discovery listing ' +
    "(a file, or a facilitator's URL: its /discovery/resources).",
  options: {
    capability: { type: 'string', help: 'capability or pattern; for add, the capability of every agent of a listing' },
    mandate: { type: 'string', help: "show the mandate's decision for each agent" },
    limit: { type: 'string', help: 'how many allowed (and excluded) agents to show (default 20)' },
    // For add: a listing's resources paid on another chain than this one are left out.
    ...CHAIN_OPTIONS,
  },
  positionals: [1, 2],
  async run(ctx) {
    const [action, arg] = ctx.args;
    if (action === 'list' && arg !== undefined) throw new HolonError('invalid_input', 'usage: holon agents list');
    if (action === 'add') {
      if (!arg) throw new HolonError('invalid_input', 'usage: holon agents add FILE|URL [--capability C]');
      // Read and checked whole before the store opens: a source that does not read adds nothing.
      const chain = chainOf(ctx.opts);
      const from = await readAgentSource(arg, {
        fetch: globalThis.fetch,
        capability: str(ctx.opts, 'capability'),
        chain: chain && { network: chain.network, token: chain.token },
      });
      return withStore(
        open(ctx),
        async (store) => {
          const added = await addAgentSource(store, clock, from);
          const rows = added.map((e) => ({ agent: e.manifest.id, version: e.manifest.version }));
          const lines = added.map((e) => `Added ${e.manifest.id} ${e.manifest.version}`);
          if (from.kind === 'catalog') return print(ctx, rows, lines.join('\n'));
          const skipped = from.skipped.map((s) => `Skipped ${s.resource ?? '(no resource)'}: ${s.reason}`);
          const more = from.truncated ? [`Read the first ${MAX_LISTED} resources of the listing only.`] : [];
          return print(ctx, { added: rows, skipped: from.skipped, truncated: from.truncated }, [...lines, ...skipped, ...more].join('\n'));
        },
        true,
      );
    }
    if (action !== 'list' && action !== 'search')
      throw new HolonError('invalid_input', `unknown action "${action}"; use list, search or add`);
    const limitText = str(ctx.opts, 'limit') ?? '20';
    const limit = Number(limitText);
    if (!Number.isInteger(limit) || limit < 1 || limit > 1000)
      throw new HolonError('invalid_input', '--limit takes a whole number from 1 to 1000');
    return withStore(openExisting(ctx), async (store) => {
      const mandateId = str(ctx.opts, 'mandate') ?? Object.keys(store.state.mandates)[0];
      const capability = str(ctx.opts, 'capability');
      if (!mandateId) {
        const all = Object.values(store.state.agents).filter((a) => !capability || offers(a, capability));
        return print(
          ctx,
          all.map((a) => a.manifest),
          all
            .map(
              (a) =>
                `${a.manifest.id} ${a.manifest.version} ${a.manifest.capabilities.join(',')} ` +
                `${a.manifest.price.per_call} ${a.manifest.price.currency}`,
            )
            .join('\n'),
        );
      }
      const runtime = openRuntime(ctx.stateDir, { clock, logger, store });
      const r = runtime.deps.gateway.search(mandateId, { query: action === 'search' ? arg : undefined, capability, limit });
      const row = (v: (typeof r.agents)[number]): string =>
        `${v.entry.manifest.id.padEnd(28)} ${v.entry.manifest.version.padEnd(7)} ${fmt(v.ranking.expected_cost_per_success).padEnd(13)} ` +
        `per success  worst ${fmt(v.worst_case).padEnd(12)} ${v.decision}`;
      const text = [
        `For mandate ${mandateId} (${r.total.agents} allowed, ${r.total.excluded} excluded):`,
        ...r.agents.map(row),
        ...(r.excluded.length > 0
          ? ['Excluded:', ...r.excluded.map((v) => `${v.entry.manifest.id}: ${denialTexts(v.denials).join('; ')}`)]
          : []),
      ].join('\n');
      return print(
        ctx,
        {
          mandate: mandateId,
          total: r.total,
          agents: r.agents.map((v) => ({
            agent: v.entry.manifest.id,
            version: v.entry.manifest.version,
            worst_case: v.worst_case,
            decision: v.decision,
            ranking: { ...v.ranking, key: undefined },
          })),
          excluded: r.excluded.map((v) => ({ agent: v.entry.manifest.id, reasons: denialTexts(v.denials), denials: v.denials })),
        },
        text,
      );
    });
  },
};

export const commands: Command[] = [agentsCmd];
