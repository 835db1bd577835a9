/**
 * Writes docs/tools.md, the tool reference, from what the server itself lists: every toolset of the
 * server's table, in its order, and each tool as tools/list gives it to a real MCP client (name, title,
 * read-only, arguments, description). test/docs/tools.test.ts builds the page again and fails when the
 * committed one differs, so the reference cannot drift from the code.
 *
 *   npm run docs:tools
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import type { Tool } from '@modelcontextprotocol/client';
import { generatePrivateKey } from 'viem/accounts';
import { silentLogger } from '../src/core/kernel/deps.ts';
import { createMandate } from '../src/core/accounts/mandates.ts';
import type { ToolsetName } from '../src/core/kernel/model.ts';
import { walletFromKey } from '../src/core/local/wallet.ts';
import { openRuntime } from '../src/server/runtime.ts';
import { createHolonServer, TOOLSETS } from '../src/server/server.ts';

/** Where the page lives, and the command that writes it. */
export const TOOL_DOCS = path.join(__dirname, '..', 'docs', 'tools.md');
export const TOOL_DOCS_COMMAND = 'npm run docs:tools';

/** What strict function-calling clients write after an argument a tool can do without. */
const OPTIONAL = /\s*\(?optional: pass null or leave it out\)?$/;

type Schema = Record<string, unknown>;

/** Whether a JSON Schema lets anything through somewhere: an object whose keys are not all declared. */
export function freeForm(s: unknown): boolean {
  if (typeof s !== 'object' || s === null) return false;
  const o = s as Schema;
  if (o['type'] === 'object' && o['additionalProperties'] !== false) return true;
  return Object.values(o).some((v) => (Array.isArray(v) ? v.some(freeForm) : freeForm(v)));
}

/** A schema's type in a few words: `string`, `"acp" \| "ucp"`, `{amount, currency}`, `string[]`, `JSON`. */
function typeOf(s: Schema): string {
  if (typeof s['$ref'] === 'string') return 'JSON';
  if (Array.isArray(s['anyOf'])) {
    const branches = (s['anyOf'] as Schema[]).filter((b) => b['type'] !== 'null').map(typeOf);
    return [...new Set(branches)].join(' \\| ');
  }
  if (Array.isArray(s['enum'])) return (s['enum'] as unknown[]).map((v) => JSON.stringify(v)).join(' \\| ');
  if (s['const'] !== undefined) return JSON.stringify(s['const']);
  if (s['type'] === 'array') {
    const items = typeOf((s['items'] as Schema | undefined) ?? {});
    return items.includes(' ') ? `(${items})[]` : `${items}[]`;
  }
  if (s['type'] === 'object') {
    const keys = Object.keys((s['properties'] as Schema | undefined) ?? {});
    if (keys.length > 0) return `{${keys.join(', ')}}`;
    return 'JSON object';
  }
  if (s['type'] === 'string' && typeof s['format'] === 'string') return `string (${s['format']})`;
  return typeof s['type'] === 'string' ? s['type'] : 'JSON';
}

/** Whether the client may leave an argument out: strict schemas list every argument as required, the optional ones nullable. */
const optional = (s: Schema): boolean => Array.isArray(s['anyOf']) && (s['anyOf'] as Schema[]).some((b) => b['type'] === 'null');

/** Prose as markdown shows it: a tag such as <agent_output> is text, not HTML a renderer drops. */
const prose = (text: string): string => text.replace(/</g, '&lt;');

/** Text for one cell of a markdown table: on one line, its bars escaped. */
const cell = (text: string): string => prose(text).replace(/\s+/g, ' ').replace(/\|/g, '\\|').trim();

function argumentsTable(tool: Tool): string[] {
  const props = (tool.inputSchema.properties ?? {}) as Record<string, Schema>;
  const names = Object.keys(props);
  if (names.length === 0) return ['No arguments.'];
  const rows = names.map((name) => {
    const s = props[name] ?? {};
    const description = typeof s['description'] === 'string' ? s['description'].replace(OPTIONAL, '') : '';
    return `| \`${name}\` | ${typeOf(s)} | ${optional(s) ? 'no' : 'yes'} | ${cell(description)} |`;
  });
  return ['| argument | type | required | description |', '|---|---|---|---|', ...rows];
}

/** The tools a real server lists to a client, for a mandate that offers every toolset. */
async function listed(options: { wallet: boolean }): Promise<{ all: Tool[]; alone: Map<ToolsetName, Tool[]> }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'holon-tool-docs-'));
  const runtime = openRuntime(dir, {
    clock: { now: () => Date.parse('2026-01-01T00:00:00Z') },
    logger: silentLogger,
    durable: false,
    ...(options.wallet ? { wallet: walletFromKey(generatePrivateKey()) } : {}),
  });
  const list = async (mandate: string): Promise<Tool[]> => {
    const client = new Client({ name: 'tool-docs', version: '1.0.0' });
    const [c, s] = InMemoryTransport.createLinkedPair();
    await createHolonServer(runtime.deps, mandate).connect(s);
    await client.connect(c);
    try {
      return (await client.listTools()).tools;
    } finally {
      await client.close();
    }
  };
  try {
    const names = Object.keys(TOOLSETS) as ToolsetName[];
    await createMandate(runtime.store, runtime.deps.clock, 'docs/all', { toolsets: names });
    const all = await list('docs/all');
    // Each toolset alone shows what a mandate offering only it also lists (seed 003's money lists commerce's tools).
    const alone = new Map<ToolsetName, Tool[]>();
    for (const name of names) {
      await createMandate(runtime.store, runtime.deps.clock, `docs/${name}`, { toolsets: [name] });
      alone.set(name, await list(`docs/${name}`));
    }
    return { all, alone };
  } finally {
    await runtime.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** The page, built from the server's table and its tools/list. The same code gives the same bytes. */
export async function toolDocs(): Promise<string> {
  const withWallet = await listed({ wallet: true });
  const without = new Set((await listed({ wallet: false })).all.map((t) => t.name));
  const byName = new Map(withWallet.all.map((t) => [t.name, t]));
  const free = withWallet.all.filter((t) => freeForm(t.inputSchema)).map((t) => `\`${t.name}\``);
  const sets = Object.values(TOOLSETS);
  const out: string[] = [
    '# Tools',
    '',
    `<!-- Written by \`${TOOL_DOCS_COMMAND}\` (scripts/toolDocs.ts) from the server's own tool list. Do not edit by hand:`,
    '     test/docs/tools.test.ts fails when this page differs from what the server lists. -->',
    '',
    'One Holon server serves one mandate, and lists the tools of the toolsets that mandate offers. Within a',
    'toolset every tool is always listed, so a model plans against a stable list; each call is checked',
    "against the mandate's capabilities when it is made. No tool approves, widens or switches a mandate.",
    '',
    `Toolsets: ${sets.map((s) => `[\`${s.name}\`](#${s.name})`).join(' · ')}.`,
    '',
    'Input schemas are written for strict function-calling clients: an object whose keys are declared is',
    'closed (`additionalProperties: false`), and every argument is listed as required,',
    'and one a tool can do without is nullable, its description ending with "(optional: pass null or leave',
    'it out)". The tables below say "no" for those; the server takes them absent as well as null.',
    "Output schemas write nullable values as `anyOf`: the MCP Inspector's portability report",
    '(`--cli … --method tools/list --strict`, Inspector 2.12) finds nothing.',
    `Not every input is closed, though: ${free.length} of ${withWallet.all.length} tools take free-form JSON`,
    "somewhere (an agent's input, a seller's payment document, a signed disclosure or artifact, personnel",
    `capabilities), and a client in OpenAI's strict mode refuses these: ${free.join(', ')}.`,
  ];
  for (const set of sets) {
    out.push('', `## ${set.name}`, '');
    const also = (withWallet.alone.get(set.name) ?? []).filter((t) => !set.tools.some((d) => d.name === t.name));
    if (also.length > 0) {
      const owners = [...new Set(also.map((t) => sets.find((s) => s.tools.some((d) => d.name === t.name))?.name))];
      const names = also.map((t) => `\`${t.name}\``).join(' and ');
      out.push(
        `A mandate that offers \`${set.name}\` lists ${names} too (${owners.map((o) => `\`${o}\``).join(', ')}); without that toolset they answer \`not_found\`.`,
        '',
      );
    }
    const told = set.instructions.split('\n').map((l) => `> ${prose(l)}`);
    out.push('What the server tells the agent about it:', '', told.join('\n>\n'));
    for (const def of set.tools) {
      const tool = byName.get(def.name);
      if (!tool) throw new Error(`${def.name} is in the ${set.name} toolset but the server does not list it`);
      const facts = [
        tool.annotations?.readOnlyHint === true ? 'read-only' : 'not read-only',
        def.capability === null
          ? 'every grantee may call it'
          : `needs ${[def.capability]
              .flat()
              .map((c) => `\`${c}\``)
              .join(' or ')}`,
        ...(without.has(def.name) ? [] : ["listed only where the server has the human's wallet"]),
      ];
      out.push('', `### \`${tool.name}\` — ${tool.title ?? tool.name}`, '', `${facts.join(' · ')}.`, '', prose(tool.description ?? ''), '');
      out.push(...argumentsTable(tool));
    }
  }
  return out.join('\n') + '\n';
}

if (require.main === module) {
  void toolDocs().then((page) => {
    fs.writeFileSync(TOOL_DOCS, page);
    process.stdout.write(`wrote ${path.relative(process.cwd(), TOOL_DOCS)}\n`);
  });
}
