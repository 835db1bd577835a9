/**
 * The account's keys follow the passkeys, and the chain is what `holon verify` holds them against. The
 * human (Chromium's virtual authenticator on Holon's pages) adds a second passkey and removes the first,
 * at the command line with a chain: the account takes the new key and drops the old one, as the chain
 * itself says. Then an agent with a shell rewrites a journal from its first line with a passkey of its
 * own, every seal made again with the installation key: the fold admits it, and only the chain tells.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { HybridDeleGator } from '@metamask/delegation-abis';
import type { Abi, AbiEvent, Address, Hex } from 'viem';
import { getAddress, parseEther, toEventSignature } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import type { LocalChain } from '../../examples/chain/chain.ts';
import { localChain } from '../../examples/chain/chain.ts';
import { decisionSubject, registrationSubject } from '../../src/core/accounts/passkeys.ts';
import { saveWallet } from '../../src/core/local/wallet.ts';
import { challengeOf } from '../../src/core/passkey/challenge.ts';
import type { PasskeyCredential } from '../../src/core/passkey/types.ts';
import { ACCOUNT_ABI, credentialPoint } from '../../src/core/rails/delegation/account.ts';
import { INDEX_FILE } from '../../src/core/store/file/journalIndex.ts';
import { SNAPSHOT_FILE } from '../../src/core/store/file/snapshot.ts';
import { loadOrCreateSigner } from '../../src/core/store/keys.ts';
import type { JournalEvent, NewEvent } from '../../src/core/store/store.ts';
import { eventLine, linkEvents, seal } from '../../src/core/store/store.ts';
import { atPage, decidedAt, ensureBuilt, holonIn, journalFile, readEvents, seededState } from '../cli/cliHarness.ts';
import type { PasskeyBrowser, VirtualCredential } from '../helpers/passkeyBrowser.ts';
import { noChromium, openPasskeyBrowser } from '../helpers/passkeyBrowser.ts';
import { softPasskey } from '../helpers/softPasskey.ts';
import { chainFlags } from './support.ts';

const ERC1271_MAGIC = '0x1626ba7e';

test('the key events Holon reads are the ones HybridDeleGator emits', () => {
  const declared = (HybridDeleGator as Abi).filter((i): i is AbiEvent => i.type === 'event').map((e) => toEventSignature(e));
  const read = (ACCOUNT_ABI as Abi).filter((i): i is AbiEvent => i.type === 'event');
  assert.equal(read.length, 2);
  for (const e of read) assert.ok(declared.includes(toEventSignature(e)), toEventSignature(e));
});

describe("the account's keys follow the passkeys, and verify holds the journal against them", { skip: noChromium }, () => {
  let chain: LocalChain;
  let browser: PasskeyBrowser;
  const cleanups: (() => void)[] = [];

  before(async () => {
    await ensureBuilt();
    chain = await localChain();
    browser = await openPasskeyBrowser();
  });
  after(async () => {
    await browser?.close();
    for (const c of cleanups) c();
  });

  /** A seeded state with a hot key that has gas, and its first passkey added with the chain: its account deployed. */
  async function guardedOnChain(): Promise<{ state: string; first: VirtualCredential; account: Address }> {
    const { dir: state, cleanup } = await seededState();
    cleanups.push(cleanup);
    const hotKey = generatePrivateKey();
    saveWallet(state, hotKey);
    await chain.fund(privateKeyToAccount(hotKey).address, { eth: parseEther('1') });
    const add = atPage(state, ['passkey', 'add', '--label', 'laptop', ...chainFlags(chain)]);
    const first = await browser.registerAt(await add.url);
    const added = await add.done;
    assert.equal(added.code, 0, added.stderr);
    const listed = JSON.parse((await holonIn(state, ['passkey', 'list', '--json'])).stdout) as { accounts: { address: string }[] };
    return { state, first, account: getAddress(listed.accounts[0]!.address) };
  }

  /** Runs `args`, answering its `pages` pages with `credential`; requires exit 0. */
  const decided = async (state: string, credential: VirtualCredential, args: string[], pages = 1): Promise<string> =>
    (await decidedAt(browser, state, credential, args, pages)).stdout;

  /** The passkeys the journal registered, oldest first. */
  const registered = async (state: string): Promise<PasskeyCredential[]> =>
    (await readEvents(state))
      .filter((e) => e.type === 'passkey.registered')
      .map((e) => (e.data as { credential: PasskeyCredential }).credential);

  /** The newest mandate delegation: the passkey's signature of its digest, as the account reads one. */
  const newestDelegation = async (state: string): Promise<{ digest: Hex; signature: Hex }> =>
    (await readEvents(state)).filter((e) => e.type === 'mandate.delegated').at(-1)!.data as { digest: Hex; signature: Hex };

  /** What the account answers to `signature` of `digest` (ERC-1271); a revert is a refusal too. */
  async function accountSays(account: Address, d: { digest: Hex; signature: Hex }): Promise<string> {
    try {
      return await chain.client.readContract({
        address: account,
        abi: ACCOUNT_ABI,
        functionName: 'isValidSignature',
        args: [d.digest, d.signature],
      });
    } catch (err) {
      return `reverted: ${(err as Error).message.split('\n')[0]}`;
    }
  }

  const keyCount = async (account: Address): Promise<number> =>
    (await chain.client.readContract({ address: account, abi: ACCOUNT_ABI, functionName: 'getKeyIdHashes' })).length;

  const createMandate = (name: string): string[] => [
    'mandate',
    'create',
    name,
    '--total',
    '12',
    '--per-day',
    '5',
    '--threshold',
    '3',
    ...chainFlags(chain),
  ];

  test('a second passkey becomes a key of the account and signs for it; the first, removed, no longer does', async () => {
    const { state, first, account } = await guardedOnChain();
    await decided(state, first, ['fx', 'USDC', 'EUR', '1.00']);
    await decided(state, first, createMandate('demo/one'), 2);
    const byFirst = await newestDelegation(state);
    assert.equal(await accountSays(account, byFirst), ERC1271_MAGIC, "the first passkey's signature, while it is the account's key");

    // The second: registered on its page, confirmed by the first, then the first signs the account's addKey.
    const add = atPage(state, ['passkey', 'add', '--label', 'phone', ...chainFlags(chain)]);
    const second = await browser.registerAt(await add.page(0));
    for (const n of [1, 2]) assert.equal((await browser.decideAt(await add.page(n), first, 'confirm')).state, 'done', `page ${n + 1}`);
    const added = await add.done;
    assert.equal(added.code, 0, added.stderr);
    const [firstKey, secondKey] = await registered(state);
    assert.equal(await keyCount(account), 2, 'the account holds two keys');
    assert.deepEqual(
      await chain.client.readContract({ address: account, abi: ACCOUNT_ABI, functionName: 'getKey', args: [secondKey!.id] }),
      [credentialPoint(secondKey!).x, credentialPoint(secondKey!).y],
      "the second passkey's key, read from the chain",
    );
    await decided(state, second, createMandate('demo/two'), 2);
    assert.equal(await accountSays(account, await newestDelegation(state)), ERC1271_MAGIC, 'a delegation the second passkey signed');

    // The first removed: the second confirms it, and signs the account's removeKey. A credential id is
    // base64url and may begin with '-': after `--` it is never read as an option.
    await decided(state, second, ['passkey', 'remove', ...chainFlags(chain), '--', firstKey!.id], 2);
    assert.equal(await keyCount(account), 1);
    assert.notEqual(await accountSays(account, byFirst), ERC1271_MAGIC, "the removed passkey's signature is refused on chain");

    const verify = await holonIn(state, ['verify', ...chainFlags(chain)]);
    assert.equal(verify.code, 0, verify.stdout + verify.stderr);
    assert.match(verify.stdout, new RegExp(`checked against the keys account ${account} has held on eip155:${chain.chainId}`));
  });

  test("a journal rewritten from its first line with the agent's own passkey: verify with the chain names it", async () => {
    const { state, first, account } = await guardedOnChain();
    await decided(state, first, ['fx', 'USDC', 'EUR', '1.00']);
    assert.equal((await holonIn(state, ['verify', ...chainFlags(chain)])).code, 0, 'the journal as the human made it');

    // The agent: its own passkey in every registration and assertion, every transaction sealed again.
    const agent = softPasskey();
    const events = (await readEvents(state)) as unknown as JournalEvent[];
    const signer = loadOrCreateSigner(state);
    const lines: string[] = [];
    let head = { seq: 0, hash: '' };
    let tx: JournalEvent[] = [];
    for (const e of events) {
      tx.push(e);
      if (!e.tx) continue;
      const rewritten = rewrite(tx, agent);
      const linked = linkEvents(rewritten, head, tx[0]!.time);
      seal(
        linked.map((l) => l.e),
        signer,
      );
      lines.push(...linked.map(eventLine));
      head = { seq: linked.at(-1)!.e.seq, hash: linked.at(-1)!.e.hash };
      tx = [];
    }
    fs.writeFileSync(journalFile(state), lines.map((l) => `${l}\n`).join(''));
    for (const f of [SNAPSHOT_FILE, INDEX_FILE]) fs.rmSync(path.join(state, f), { force: true });
    const registration = (await readEvents(state)).find((e) => e.type === 'passkey.registered')!;
    assert.equal((registration.data as { credential: PasskeyCredential }).credential.id, agent.credential.id);

    const offline = await holonIn(state, ['verify']);
    assert.equal(offline.code, 0, `the fold admits it: ${offline.stdout}${offline.stderr}`);
    assert.match(offline.stdout, /checked against the journal's own keys only \(trust on first use\)/);

    const onChain = await holonIn(state, ['verify', ...chainFlags(chain)]);
    assert.equal(onChain.code, 1, onChain.stdout + onChain.stderr);
    assert.match(
      onChain.stdout,
      new RegExp(
        `credential_not_on_chain: event ${registration.seq} \\(passkey.registered\\): passkey ${agent.credential.id} is not a key account ${account}`,
      ),
    );
    assert.match(onChain.stdout, /credential_not_on_chain: event \d+ \(human.asserted\)/);
    const json = JSON.parse((await holonIn(state, ['verify', '--json', ...chainFlags(chain)])).stdout) as {
      passkeys: { against: string; problems: { code: string; seq?: number }[] };
    };
    assert.equal(json.passkeys.against, 'chain');
    assert.ok(json.passkeys.problems.some((p) => p.code === 'credential_not_on_chain' && p.seq === registration.seq));
  });
});

/** One transaction as the agent writes it again: its passkey in place of the human's, and its assertion over what follows. */
function rewrite(tx: JournalEvent[], agent: ReturnType<typeof softPasskey>): NewEvent[] {
  const out: NewEvent[] = tx.map((e) => {
    const data = structuredClone(e.data) as Record<string, unknown>;
    if (e.type === 'passkey.registered') {
      data['credential'] = agent.credential;
      data['proof'] = agent.assert(challengeOf(registrationSubject(agent.credential)));
    }
    if (e.type === 'account.created') data['credential'] = agent.credential.id;
    return { type: e.type, data };
  });
  const head = out[0]!;
  if (head.type === 'human.asserted') {
    const nonce = (head.data as { nonce: string }).nonce;
    head.data = { nonce, assertion: agent.assert(challengeOf(decisionSubject(nonce, out.slice(1)))) };
  }
  return out;
}
