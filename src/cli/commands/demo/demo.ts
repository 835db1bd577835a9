/**
 * `holon demo`: plays a typical session on a fresh state, one scenario after another (session.ts, terms.ts,
 * office.ts, shopper.ts, passkey.ts), each with real MCP clients on their own `holon mcp` servers, and leaves the
 * state for the human to try.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { HolonError } from '../../../core/kernel/errors.ts';
import type { Command } from '../../args.ts';
import { str } from '../../args.ts';
import { office } from './office.ts';
import { passkeyScenario } from './passkey.ts';
import type { Demo, DemoProtocol, Scenario } from './play.ts';
import { DEMO_PROTOCOLS, section, shq, withState } from './play.ts';
import { session } from './session.ts';
import { shopper } from './shopper.ts';
import { terms } from './terms.ts';

/** The scenarios, in the order they are set up and played. */
const SCENARIOS: Scenario[] = [session, terms, office, shopper, { play: passkeyScenario }];

const MARKER = '.holon-demo';

/** The demo catalog, beside the bundle (dist/../examples) or the sources (src/cli/commands/demo/../../../../examples). */
function examplesDir(): string {
  const candidates = [path.resolve(__dirname, '..', 'examples'), path.resolve(__dirname, '..', '..', '..', '..', 'examples')];
  const found = candidates.find((d) => fs.existsSync(path.join(d, 'catalog.json')));
  if (!found) throw new HolonError('not_found', `the demo catalog (examples/catalog.json) was not found near ${__dirname}`);
  return found;
}

/** A fresh state folder: a new temporary one, or DIR if it is empty or holds an earlier demo's state. */
function freshState(dir: string | undefined): string {
  if (!dir) return fs.mkdtempSync(path.join(os.tmpdir(), 'holon-demo-'));
  const abs = path.resolve(dir);
  if (fs.existsSync(abs) && fs.readdirSync(abs).length > 0) {
    if (!fs.existsSync(path.join(abs, MARKER))) {
      throw new HolonError('conflict', `${abs} is not empty and holds no earlier demo; choose an empty folder`);
    }
    fs.rmSync(abs, { recursive: true, force: true });
  }
  fs.mkdirSync(abs, { recursive: true });
  return abs;
}

const demoCmd: Command = {
  name: 'demo',
  usage: 'demo [--state DIR] [--protocol 2026-07-28|2025-11-25]',
  summary:
    'Plays a typical session on a fresh state: funds demo with 5 EUR, creates demo/sandbox, and drives the MCP server with a real ' +
    'client, approving the big call from the CLI; then buys under terms, leaves an office of three colleagues (demo/lead, demo/ada, ' +
    'demo/bob) to try, and a shopper (demo/shopper) that pays, buys from the local merchants (at one with AP2 mandates, paid on a ' +
    "chain) and remembers, with one payment left for you to approve; last, on a state of its own, a passkey (Chromium's virtual " +
    'authenticator) decides what a terminal cannot.',
  options: {
    protocol: { type: 'string', help: "the MCP revision the demo's agents speak: 2026-07-28 (the default) or 2025-11-25" },
  },
  positionals: [0, 0],
  async run(ctx) {
    const started = Date.now();
    const protocol = str(ctx.opts, 'protocol') ?? DEMO_PROTOCOLS[0];
    if (!(DEMO_PROTOCOLS as readonly string[]).includes(protocol))
      throw new HolonError('invalid_input', `--protocol is one of ${DEMO_PROTOCOLS.join(', ')}, not "${protocol}"`);
    const out = ctx.out;
    const holonBin = path.resolve(process.argv[1] ?? '');
    if (!holonBin.endsWith('.js')) throw new HolonError('invalid_input', 'run the demo from the built CLI: node dist/holon.js demo');
    const stateDir = freshState(typeof ctx.opts['state'] === 'string' ? ctx.stateDir : undefined);
    fs.writeFileSync(path.join(stateDir, MARKER), 'state made by `holon demo`; the next demo may replace it\n');
    const examples = examplesDir();
    out(`Holon demo — state in ${stateDir}`);
    // A team member's shell may name the team's store: the demo's money never goes there.
    const at = `--state ${shq(stateDir)}${ctx.store !== undefined ? " --store ''" : ''}`;
    if (ctx.store !== undefined) {
      out(
        '   The demo keeps its own journal there, never the team store (--store, HOLON_STORE); ' +
          "the commands it suggests say --store '' to read it.",
      );
    }
    const demo: Demo = { out, holonBin, stateDir, examples, at, protocol: protocol as DemoProtocol };

    section(out, 'The human sets up (CLI)');
    await withState(stateDir, async (store) => {
      for (const s of SCENARIOS) await s.setUp?.(store, demo);
    });
    const tries: string[] = [];
    for (const s of SCENARIOS) tries.push(...(await s.play(demo)));
    section(out, 'Done');
    for (const line of tries) out(line);
    out(`   ${((Date.now() - started) / 1000).toFixed(1)} s`);
    return 0;
  },
};

export const commands: Command[] = [demoCmd];
