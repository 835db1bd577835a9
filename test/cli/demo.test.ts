/**
 * `holon demo --state DIR` plays the whole session and leaves a state the other commands (and a real
 * MCP client) can use; it replaces its own earlier state and refuses to touch anyone else's.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { before, describe, test } from 'node:test';
import { demoCatalog, priceLine } from '../../examples/merchants/shop.ts';
import * as M from '../../src/core/kernel/amount.ts';
import type { Ap2Evidence } from '../../src/core/commerce/ap2.ts';
import {
  approveAtTerminal,
  ensureBuilt,
  HANG_MS,
  holonIn,
  ledgerBytes,
  json,
  mcpSession,
  readEvents,
  seededState,
  structured,
  openLedger,
  tempDir,
  until,
} from './cliHarness.ts';
import { noChromium } from '../helpers/passkeyBrowser.ts';

before(ensureBuilt);

type Tree = { receipt: string; agent: string; status: string; approval: string | null; children: Tree[] };
/** A row of `holon receipts --json`: a call's tree, or another spend with the payment on a chain that pays it. */
type Spend =
  | (Tree & { kind: 'call' })
  | { kind: 'payment' | 'intent' | 'purchase'; id: string; settlement: { id: string; status: string; summary: string } | null };
/** The calls among the spends `holon receipts --json` lists. */
const callsOf = (rows: Spend[]): Tree[] => rows.filter((r): r is Tree & { kind: 'call' } => r.kind === 'call');
type MoneyJson = { amount: string; currency: string };
type IntentRow = {
  intent: string;
  idempotency_key: string;
  status: string;
  payee: string;
  amount: MoneyJson;
  pending: { approval: string } | null;
  receipt: { rail: string; charged: MoneyJson; approval: string | null } | null;
};

/** A command the demo printed, started as the human would start it; what it printed once ready (JSON), and how to stop it. */
async function started<T>(command: string[]): Promise<{ ready: T; stop: () => Promise<void> }> {
  // A pipe on its standard input, as a terminal would hold it open: the examples end when it closes.
  const child = spawn(process.execPath, command, { stdio: ['pipe', 'pipe', 'pipe'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) child.kill();
    await exited;
  };
  try {
    const ready = await until(
      () => {
        if (child.exitCode !== null) throw new Error(`${command.join(' ')} stopped: ${err}`);
        try {
          return JSON.parse(out) as T;
        } catch {
          return undefined;
        }
      },
      `${command.join(' ')} to print that it is ready`,
    );
    return { ready, stop };
  } catch (e) {
    await stop();
    throw e;
  }
}

/** What an account has received (funded, and credited by settled intents), read from the state folder. */
async function received(state: string, account: string, currency: string): Promise<bigint | undefined> {
  const store = await openLedger(state);
  try {
    return store.state.accounts[account]?.funded[currency];
  } finally {
    store.close();
  }
}

describe('holon demo', { concurrency: true }, () => {
  test(
    'plays the session, and its state serves receipts, verify and an MCP client; a second run replaces it',
    { timeout: HANG_MS },
    async () => {
      const { dir: root, cleanup } = tempDir('holon-cli-demo-');
      const state = path.join(root, 'nested', 'demo-state');
      try {
        const r = await holonIn(state, ['demo']);
        assert.equal(r.code, 0, r.stdout + r.stderr);
        const out = r.stdout;
        assert.match(out, new RegExp(`^Holon demo — state in ${state.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`, 'm'));
        assert.match(out, /MCP 2026-07-28 · tools: search_agents, get_agent, call_agent, check_approval, get_budget, get_receipt/, 'the agents speak the current revision');
        // No team store named: nothing to say about one (with one, test/pg/cli.test.ts).
        assert.doesNotMatch(out, /never the team store/, out.slice(0, 400));
        assert.match(out, /\$ holon approve apr_\S+/, 'the big call is approved from a terminal');
        // The receipt tree: the pipeline and its four delegated calls.
        const treeAt = out.indexOf('5. The receipt tree');
        assert.ok(treeAt > 0, out);
        const tree = out.slice(treeAt).split('\n');
        assert.equal(tree.filter((l) => /^ {5}└─ rcpt_\S+ acme\/table-extract 1\.4\.0 succeeded /.test(l)).length, 4, out.slice(treeAt));
        assert.ok(tree.some((l) => /^ {3}rcpt_\S+ holon-labs\/invoice-pipeline 2\.1\.0 succeeded .* approval apr_/.test(l)));
        assert.match(out, /4 delegated calls under rcpt_/);
        // Money that moves: Holon reads each payment back from the local chain; the balances before and after.
        assert.match(out, /the wallet holds 10\.00 USDC \(before\)/);
        assert.match(out, /Holon's own reading of the chain: landed in block \d+ \(eip155:31337\) \(0x[0-9a-f]{64}\)/);
        assert.match(out, /signed, settled through the facilitator: landed in block \d+ \(eip155:31337\)/);
        // call_agent to a seller priced upto: 0.30 authorized, the 2 pages done (0.10) paid, as Holon read the chain.
        assert.match(
          out,
          /Holon's own reading of the chain: authorized up to 0\.30 USDC, paid 0\.10 USDC, landed in block \d+ \(eip155:31337\)/,
        );
        assert.match(out, /the call cost 0\.092 EUR/);
        // call_agent to a paid MCP tool: it asks in x402's PaymentRequired, and 0.002 USDC is paid and read landed.
        assert.match(
          out,
          /it asked to be paid; Holon paid 0\.002 USDC and called it again.*\n.*Holon's own reading of the chain: landed in block \d+ \(eip155:31337\)/,
        );
        assert.match(out, /the call cost 0\.00184 EUR/);
        assert.match(out, /the wallet now holds 9\.548 USDC \(after\); the seller holds \d+(\.\d+)? USDC \(after\)/);
        assert.match(out, /holon mcp --mandate demo\/buyer .* --rpc-url RPC --chain-id 31337 --token TOKEN --facilitator FACILITATOR/);
        // The passkey decides, on a state of its own: a y typed into `holon approve` at the agent's pseudo-terminal
        // leaves the approval pending; the human's passkey on the page (Chromium's virtual authenticator) approves it.
        if (noChromium) assert.match(out, /Chromium's virtual authenticator as the human's device\) ─*\n {3}skipped: no Chromium/);
        else {
          const guarded = out.slice(out.indexOf("The human's passkey decides"));
          assert.match(guarded, /Added passkey \S+ \(.*\)\. From now on, only your passkey decides for this state\./);
          assert.match(guarded, /it asks for no y: the approval waits on http:\/\/localhost:\d+\/c\/\S+, and is still pending/);
          assert.match(guarded, /│ the page: Done/);
          assert.match(guarded, /│ Approved apr_\S+\. The waiting server goes ahead now\./);
          assert.match(guarded, /Succeeded \(receipt rcpt_\S+\): holon-labs\/invoice-pipeline 2\.1\.0/);
          assert.match(guarded, /the journal holds 1 decision of the passkey \(human\.asserted\)/);
        }

        const list = await holonIn(state, ['receipts']);
        assert.equal(list.code, 0, list.stderr);
        assert.equal(list.stdout.split('\n').filter((l) => l.includes('└─ ')).length, 4);
        const spends = JSON.parse((await holonIn(state, ['receipts', '--json'])).stdout) as Spend[];
        const roots = callsOf(spends);
        assert.equal(roots.length, 4, "the small call, the pipeline, the buyer's call priced upto and its paid tool's");
        // The payment under terms (atr_transact) is found beside the calls, with where it landed.
        const underTerms = spends.find((r) => r.kind === 'payment' && r.settlement !== null);
        assert.match(
          underTerms && 'settlement' in underTerms ? (underTerms.settlement?.summary ?? '') : '',
          /^landed in block \d+ \(eip155:31337\)/,
        );
        const upto = roots.find((t) => t.agent === 'sellers/pages');
        assert.equal(upto?.status, 'succeeded');
        assert.equal(roots.find((t) => t.agent === 'sellers/paid-sum')?.status, 'succeeded');
        const pipeline = roots.find((t) => t.agent === 'holon-labs/invoice-pipeline');
        assert.equal(pipeline?.status, 'succeeded');
        assert.equal(pipeline?.children.length, 4);
        assert.ok(pipeline?.children.every((c) => c.status === 'succeeded'));
        const approvals = JSON.parse((await holonIn(state, ['approvals', '--all', '--json'])).stdout) as {
          id: string;
          kind: string;
          mandate: string;
          status: string;
          channel?: string;
          subject: { intent?: string };
        }[];
        const windowId = /holon approve (apr_\S+) --state .* opens bob's office\.read/.exec(out)?.[1];
        assert.ok(windowId, "the demo names bob's pending approval for the human");
        const shopperIntents = await json<IntentRow[]>(state, ['intents', '--mandate', 'demo/shopper']);
        const parked = shopperIntents.find((i) => i.status === 'pending');
        assert.deepEqual(
          approvals.map((a) => [a.id, a.kind, a.mandate, a.status, a.channel ?? null]),
          [
            [pipeline?.approval, 'agent_call', 'demo/sandbox', 'used', 'cli'],
            [windowId, 'capability_window', 'demo/bob', 'pending', null],
            [parked?.pending?.approval, 'payment_intent', 'demo/shopper', 'pending', null],
          ],
        );
        assert.equal(approvals[2]?.subject.intent, parked?.intent, "the approval is the parked intent's");

        // The office: three colleagues with the office toolset, and what they did through their servers.
        assert.match(out, /── 8\. The office/);
        assert.match(out, /^ {3}Not permitted: needs capability office\.read — use approval_request$/m);
        const mandates = JSON.parse((await holonIn(state, ['mandate', 'list', '--json'])).stdout) as {
          id: string;
          currency: string;
          toolsets: string[];
          grantee: { slug: string };
          capabilities: { name: string; params?: unknown }[];
        }[];
        for (const slug of ['lead', 'ada', 'bob']) {
          const m = mandates.find((x) => x.id === `demo/${slug}`);
          assert.deepEqual([m?.grantee.slug, m?.toolsets], [slug, ['office']], slug);
        }
        const events = await readEvents(state);
        const sent = events
          .filter((e) => e.type === 'mail.sent')
          .map((e) => e.data['thread'] as { id: string; from: string; to: string; subject: string });
        assert.deepEqual(
          sent.map((t) => [t.id, t.from, t.to, t.subject]),
          [['demo/ada#1', 'lead', 'ada', 'Footer links']],
        );
        assert.deepEqual(
          events.filter((e) => e.type === 'mail.opened').map((e) => e.data),
          [{ thread: 'demo/ada#1' }],
        );
        const office = events.filter((e) => (e.type === 'tool.called' || e.type === 'tool.denied') && e.data['toolset'] === 'office');
        assert.deepEqual(
          office.map((e) => [e.type, e.data['actor'], e.data['tool']]),
          [
            ['tool.called', 'lead', 'mail_send'],
            ['tool.called', 'ada', 'mail_read'],
            ['tool.called', 'bob', 'colleagues_list'],
            ['tool.denied', 'bob', 'colleagues_list'],
            ['tool.called', 'bob', 'approval_request'],
          ],
        );
        assert.ok(!JSON.stringify(office).includes('footer links on the site'), 'no mail body in a summary');
        const lead = await mcpSession(state, 'demo/lead');
        try {
          const inbox = structured<{ threads: unknown[] }>(await lead.client.callTool({ name: 'mail_inbox', arguments: {} }));
          assert.deepEqual(inbox.threads, [], "lead's inbox is empty: ada has not answered");
          const who = structured<{ colleagues: { slug: string }[] }>(
            await lead.client.callTool({ name: 'colleagues_list', arguments: {} }),
          );
          assert.deepEqual(
            who.colleagues.map((c) => c.slug),
            ['ada', 'bob'],
            "the office: the account's mandates that offer it",
          );
        } finally {
          await lead.close();
        }

        // 9. The shopper: the four seed-003 toolsets, a journal payment to the studio's account, a parked
        // one, a purchase at each merchant's price (at the UCP business with AP2, paid on the chain) and a
        // memory — read back from the state, not the output. Its mandate is in USD, the AP2 business's
        // currency; the studio and the stationery shop are paid in EUR at the human's rate (1 USD = 0.92 EUR).
        const shopper = mandates.find((x) => x.id === 'demo/shopper');
        assert.equal(shopper?.currency, 'USD');
        assert.deepEqual(shopper?.toolsets, ['money', 'commerce', 'memory', 'records']);
        assert.match(
          out,
          /Merchants will see this \(its AP2 open mandate, signed with your key \S+\): stationery, hardware; up to 1\.50 USD a purchase; no expiry/,
        );
        assert.deepEqual(shopper?.capabilities, [
          { name: 'pay', params: { payees: ['acct:studio'] } },
          { name: 'commerce.buy', params: { merchants: ['stationery', 'hardware'] } },
        ]);
        assert.deepEqual(
          shopperIntents.map((i) => [i.idempotency_key, i.status, i.payee, i.amount]),
          [
            ['studio-final-1', 'pending', 'acct:studio', { amount: '1.80', currency: 'EUR' }],
            ['studio-sketches-1', 'settled', 'acct:studio', { amount: '0.40', currency: 'EUR' }],
          ],
        );
        const sketches = shopperIntents[1];
        assert.deepEqual(
          [sketches?.receipt?.rail, sketches?.receipt?.charged, sketches?.receipt?.approval],
          ['journal', { amount: '0.434783', currency: 'USD' }, null],
          '0.40 EUR at 0.92 EUR a USD, rounded against the payer',
        );
        const shopperEvents = await readEvents(state);
        assert.deepEqual(
          shopperEvents
            .filter((e) => e.type === 'intent.submitted' && e.data['mandate'] === 'demo/shopper')
            .map((e) => e.data['idempotency_key']),
          ['studio-sketches-1', 'studio-final-1'],
          'simulate used no key: the sketches were submitted once, by pay',
        );
        // A Holon account is credited in the journal; the buyer's tip to the seller's chain account was paid on the chain.
        assert.deepEqual(
          shopperEvents
            .filter((e) => e.type === 'intent.settled')
            .map((e) => e.data['credit'] ?? (e.data['receipt'] as { rail: string }).rail),
          ['x402', { account: 'studio', amount: { amount: '0.40', currency: 'EUR' } }],
        );
        assert.equal(await received(state, 'studio', 'EUR'), M.parseUnits('1.40'), 'the studio: funded 1.00, credited 0.40');
        const purchases = shopperEvents
          .filter((e) => e.type === 'purchase.completed')
          .map(
            (e) =>
              e.data as {
                mandate: string;
                merchant: string;
                order: { id: string; lines: { product: string; quantity: number }[]; total: MoneyJson };
                charged: MoneyJson;
              },
          );
        // The ACP merchant's own price: 2 ink refills with its 20 % VAT.
        const ink = demoCatalog('stationery').find((p) => p.id === 'ink-refill');
        assert.ok(ink);
        const price = { amount: M.formatUnits(BigInt(priceLine('li_1', ink, 2, 2000).total) * 10_000n), currency: 'EUR' };
        // The UCP business's own price: 2 sticker packs with its 8 % sales tax, in USD — what the mandate paid, unconverted.
        const sticker = demoCatalog('hardware').find((p) => p.id === 'sticker-pack');
        assert.ok(sticker);
        const stickers = { amount: M.formatUnits(BigInt(priceLine('li_1', sticker, 2, 800).total) * 10_000n), currency: 'USD' };
        assert.deepEqual(
          purchases.map((p) => [p.mandate, p.merchant, p.order.lines.map((l) => [l.product, l.quantity]), p.order.total, p.charged]),
          [
            // 1.08 EUR at 0.92 EUR a USD, rounded against the payer.
            ['demo/shopper', 'stationery', [['ink-refill', 2]], price, { amount: '1.173914', currency: 'USD' }],
            ['demo/shopper', 'hardware', [['sticker-pack', 2]], stickers, stickers],
          ],
        );
        // At the UCP business the human's key signed the purchase's mandates under the open mandate it signed when the
        // mandate was made (its cap in USD, the business's currency), and the wallet paid the x402 payment on the chain.
        assert.match(out, /consent holds: mandate ✓ → checkout ✓ → payment ✓ → transaction ✓/);
        const ledger = await openLedger(state);
        try {
          const bought = ledger.state.purchases['demo/shopper#stickers-1'];
          const evidence = bought?.ap2 as Ap2Evidence | null | undefined;
          assert.deepEqual(evidence?.open.terms, {
            merchants: ['stationery', 'hardware'],
            cap: { amount: 150, currency: 'USD' },
            budget: { amount: 800, currency: 'USD' },
            expires_at: null,
          });
          assert.deepEqual(evidence?.payment_mandate.payment_amount, { amount: 108, currency: 'USD' });
          assert.equal(evidence?.payment_mandate.payment_instrument.type, 'org.x402.exact');
          const paid = Object.values(ledger.state.settlements).find((x) => x?.for.kind === 'purchase' && x.for.id === bought?.id);
          assert.deepEqual([paid?.status, paid?.amount], ['landed', { amount: '1.08', currency: 'USDC' }]);
        } finally {
          ledger.close();
        }
        const memory = await json<{ records: { key: string; content: string }[] }>(state, ['memory', 'demo/shopper']);
        assert.deepEqual(
          memory.records.map((r) => r.key),
          ['suppliers/stationery'],
        );
        assert.ok(memory.records[0]?.content.includes(purchases[0]?.order.id ?? '?'), memory.records[0]?.content);
        // The commands the demo prints for the shopper, followed as a human would: the merchants with --ap2 on this
        // state, `holon mcp` with the flag they print, then the printed buy. The business completes it only once its
        // own verifier (examples/merchants/ap2Verify.ts) has accepted the mandates against what this state publishes.
        const printed = /Money: node '([^']+)' --ap2 '([^']+)' starts the merchants/.exec(out);
        assert.ok(printed?.[1] && printed[2] === state, 'the demo prints how to start the merchants with AP2 on its state');
        assert.ok(out.includes(`holon mcp --mandate demo/shopper --state '${state}' FLAG\n`), "the demo prints the shopper's server");
        const buyArgs = JSON.parse(/buys with AP2 end to end: buy (\{.*\})$/m.exec(out)?.[1] ?? 'null') as Record<string, unknown> | null;
        assert.equal(buyArgs?.['merchant'], 'hardware');
        type Bought = {
          total: MoneyJson;
          charged: MoneyJson;
          settlement: unknown;
          consent: { holds: boolean; steps: { link: string; ok: boolean | null }[] } | null;
        };
        const merchants = await started<{ flag: string }>([printed[1], '--ap2', printed[2]]);
        try {
          const shopperServer = await mcpSession(state, 'demo/shopper', merchants.ready.flag.split(' '));
          try {
            const r = await shopperServer.client.callTool({ name: 'buy', arguments: buyArgs ?? {} });
            assert.notEqual(r.isError, true, `${JSON.stringify(r.structuredContent)}\n${shopperServer.log()}`);
            const order = structured<Bought>(r);
            assert.deepEqual(
              [order.total, order.charged],
              [
                { amount: '0.54', currency: 'USD' },
                { amount: '0.54', currency: 'USD' },
              ],
            );
            assert.equal(order.settlement, null, "no chain named: the business takes Holon's own credential");
            assert.deepEqual(
              order.consent?.steps.map((x) => [x.link, x.ok]),
              [
                ['mandate', true],
                ['checkout', true],
                ['payment', true],
                ['transaction', null],
              ],
            );
          } finally {
            await shopperServer.close();
          }
        } finally {
          await merchants.stop();
        }
        // The same purchase at a business that reads another publication (none) is refused by the business itself.
        const elsewhere = tempDir('holon-cli-demo-elsewhere-');
        const stranger = await started<{ flag: string }>([printed[1], '--ap2', elsewhere.dir]);
        try {
          const shopperServer = await mcpSession(state, 'demo/shopper', stranger.ready.flag.split(' '));
          try {
            const r = await shopperServer.client.callTool({ name: 'buy', arguments: { ...buyArgs, replay_key: 'stickers-elsewhere' } });
            assert.equal(r.isError, true);
            assert.equal(structured<{ data: { code: string } }>(r).data.code, 'agent_missing_key');
          } finally {
            await shopperServer.close();
          }
        } finally {
          await stranger.stop();
          elsewhere.cleanup();
        }

        // The line the demo prints for the human releases the parked payment: the studio is paid 1.80 more.
        assert.ok(
          out.includes(`holon approve ${parked?.pending?.approval ?? '?'} --state`),
          "the demo names the parked payment's approval",
        );
        const released = await approveAtTerminal(state, parked?.pending?.approval ?? '', 'y');
        assert.equal(released.code, 0, released.output);
        const after = await json<IntentRow[]>(state, ['intents', '--mandate', 'demo/shopper']);
        assert.deepEqual(
          after.map((i) => [i.idempotency_key, i.status, i.receipt?.approval ?? null]),
          [
            ['studio-final-1', 'settled', parked?.pending?.approval],
            ['studio-sketches-1', 'settled', null],
          ],
        );
        assert.equal(await received(state, 'studio', 'EUR'), M.parseUnits('3.20'));

        const v = await holonIn(state, ['verify']);
        assert.equal(v.code, 0, v.stdout);
        assert.match(v.stdout, /^OK: /);
        // Both AP2 purchases, the demo's (paid on the chain) and the one by hand (Holon's credential), verified offline.
        assert.deepEqual(
          v.stdout
            .split('\n')
            .filter((l) => l.startsWith('Purchase '))
            .map((l) => l.replace(/^Purchase \S+: /, ''))
            .sort(),
          ['consent holds, mandate → checkout → payment → transaction', 'consent holds, mandate → checkout → payment → transaction (none)'],
        );

        const session = await mcpSession(state, 'demo/sandbox');
        try {
          const tools = await session.client.listTools();
          assert.deepEqual(tools.tools.map((t) => t.name).sort(), [
            'call_agent',
            'check_approval',
            'get_agent',
            'get_budget',
            'get_receipt',
            'search_agents',
          ]);
        } finally {
          await session.close();
        }

        // Again on the same folder: the earlier demo's state is replaced, not added to.
        const firstIds = new Set(roots.map((t) => t.receipt));
        const again = await holonIn(state, ['demo']);
        assert.equal(again.code, 0, again.stdout + again.stderr);
        const roots2 = callsOf(JSON.parse((await holonIn(state, ['receipts', '--json'])).stdout) as Spend[]);
        assert.equal(roots2.length, 4);
        assert.ok(
          roots2.every((t) => !firstIds.has(t.receipt)),
          'fresh receipts',
        );
        assert.deepEqual(
          (await readEvents(state)).filter((e) => e.type === 'account.funded').map((e) => e.data['account']),
          ['demo', 'demo', 'studio'],
          'funded as one demo does, not twice as much',
        );
        assert.equal((await holonIn(state, ['verify'])).code, 0);
      } finally {
        cleanup();
      }
    },
  );

  test('refuses a folder that holds a state that is not a demo’s, and leaves it as it was', async () => {
    const { dir: state, cleanup } = await seededState();
    try {
      const before = await ledgerBytes(state);
      const files = fs.readdirSync(state).sort();
      const r = await holonIn(state, ['demo']);
      assert.ok(r.code !== 0 && r.code !== null, `exit ${r.code}`);
      const lines = r.stderr.split('\n').filter((l) => l.length > 0);
      assert.equal(lines.length, 1, r.stderr);
      assert.match(lines[0] ?? '', /^holon: .*is not empty and holds no earlier demo/);
      assert.ok((await ledgerBytes(state)).equals(before));
      assert.deepEqual(fs.readdirSync(state).sort(), files);
      assert.equal((await holonIn(state, ['verify'])).code, 0);
    } finally {
      cleanup();
    }
  });

  test(
    'never deletes files of a folder that was not empty before the demo',
    {
      timeout: HANG_MS,
    },
    async () => {
      const { dir: root, cleanup } = tempDir('holon-cli-demo-');
      const folder = path.join(root, 'my-project');
      fs.mkdirSync(folder);
      fs.writeFileSync(path.join(folder, 'precious.txt'), 'not the demo’s\n');
      try {
        const first = await holonIn(folder, ['demo']);
        if (first.code === 0) await holonIn(folder, ['demo']);
        assert.ok(fs.existsSync(path.join(folder, 'precious.txt')), 'the user’s file is still there');
      } finally {
        cleanup();
      }
    },
  );
});
