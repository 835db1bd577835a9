/**
 * The local chain's token, on a real node, signs and settles as USDC does: its EIP-712 domain, type
 * hashes and decimals; EIP-3009 transfer, receive and cancel, each nonce once, within its validity
 * window, only by the authorizer's canonical signature; EIP-2612 permit. (That the token deployed is
 * what its source compiles to is artifact.test.ts.)
 */
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import type { Address, Hex, WalletClient } from 'viem';
import {
  createWalletClient,
  domainSeparator,
  keccak256,
  parseEther,
  parseEventLogs,
  parseSignature,
  serializeSignature,
  toHex,
} from 'viem';
import type { PrivateKeyAccount } from 'viem/accounts';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { knownAsset } from '../../src/core/rails/assets.ts';
import { TRANSFER_TYPES } from '../../src/server/terms/x402Exact.ts';
import type { LocalChain } from '../../examples/chain/chain.ts';
import { localChain } from '../../examples/chain/chain.ts';
import { CHAIN_ID, localChainDefinition, localTransport, NETWORK, TOKEN } from '../../examples/chain/network.ts';
import { TEST_USDC_ABI } from '../../examples/chain/testUsdcArtifact.ts';

const abi = TEST_USDC_ABI;
const domain = { name: 'USD Coin', version: '2', chainId: CHAIN_ID, verifyingContract: TOKEN as Address } as const;
const AUTHORIZATION = TRANSFER_TYPES.TransferWithAuthorization;

let chain: LocalChain;
/** Holds the token; signs authorizations and permits, never sends a transaction. */
let payer: PrivateKeyAccount;
/** Holds gas only: submits what others signed, as a facilitator does. */
let relayer: WalletClient;
let relayerAccount: PrivateKeyAccount;
const payee = privateKeyToAccount(generatePrivateKey());
/**
 * The clock in seconds. The chain keeps to it (blocks may share a timestamp), to within a second either
 * way: a time meant to be past or future is minutes away from it, never one second.
 */
const now = (): bigint => BigInt(Math.floor(Date.now() / 1000));

before(async () => {
  chain = await localChain();
  payer = privateKeyToAccount(generatePrivateKey());
  relayerAccount = privateKeyToAccount(generatePrivateKey());
  relayer = createWalletClient({
    account: relayerAccount,
    chain: localChainDefinition(chain.rpcUrl),
    transport: localTransport(chain.rpcUrl),
  });
  await chain.fund(payer.address, { usdc: 10_000_000n });
  await chain.fund(relayerAccount.address, { eth: parseEther('1') });
  await chain.fund(payee.address, { eth: parseEther('1') });
});

type Authorization = { from: Address; to: Address; value: bigint; validAfter: bigint; validBefore: bigint; nonce: Hex };
const authorization = (over: Partial<Authorization> = {}): Authorization => ({
  from: payer.address,
  to: payee.address,
  value: 250_000n,
  validAfter: 0n,
  validBefore: now() + 300n,
  nonce: keccak256(toHex(generatePrivateKey())),
  ...over,
});
const signTransfer = (
  a: Authorization,
  primaryType: 'TransferWithAuthorization' | 'ReceiveWithAuthorization' = 'TransferWithAuthorization',
): Promise<Hex> =>
  payer.signTypedData({ domain, types: { [primaryType]: AUTHORIZATION }, primaryType, message: a } as Parameters<
    PrivateKeyAccount['signTypedData']
  >[0]);
const args = (a: Authorization) => [a.from, a.to, a.value, a.validAfter, a.validBefore, a.nonce] as const;
const vrs = (signature: Hex) => {
  const { v, r, s } = parseSignature(signature);
  return [Number(v), r, s] as const;
};

/** Sends a call from `from` and waits for it to be mined; rejects with the revert reason when it would revert. */
async function send(
  from: WalletClient,
  functionName: string,
  callArgs: readonly unknown[],
): Promise<{ status: string; logs: ReturnType<typeof parseEventLogs<typeof abi>> }> {
  const account = from.account;
  assert.ok(account);
  const { request } = await chain.client.simulateContract({ address: TOKEN, abi, functionName, args: callArgs, account } as never);
  const hash = await from.writeContract(request as never);
  const receipt = await chain.client.waitForTransactionReceipt({ hash });
  return { status: receipt.status, logs: parseEventLogs({ abi, logs: receipt.logs }) };
}
const read = <T>(functionName: string, callArgs: readonly unknown[] = []): Promise<T> =>
  chain.client.readContract({ address: TOKEN, abi, functionName, args: callArgs } as never) as Promise<T>;

describe("the local chain's token", () => {
  test("USDC's face: name, version, decimals, the EIP-712 domain and type hashes; Holon counts it as USDC", async () => {
    assert.deepEqual(
      [await read('name'), await read('symbol'), await read('decimals'), await read('version'), await read('currency')],
      ['USD Coin', 'USDC', 6, '2', 'USD'],
    );
    assert.equal(await read('DOMAIN_SEPARATOR'), domainSeparator({ domain }));
    // USDC's constants, as FiatTokenV2 declares them.
    assert.equal(await read('TRANSFER_WITH_AUTHORIZATION_TYPEHASH'), '0x7c7c6cdb67a18743f49ec6fa9b35f50d52ed05cbed4cc592e13b44501c1a2267');
    assert.equal(await read('RECEIVE_WITH_AUTHORIZATION_TYPEHASH'), '0xd099cc98ef71107a616c4f0f941f04c322d8e254fe26b3c6668db87aae413de8');
    assert.equal(await read('CANCEL_AUTHORIZATION_TYPEHASH'), '0x158b0a9edf7a828aad02f63cd515c68ef2f50ba807396f6d12842833a1597429');
    assert.equal(await read('PERMIT_TYPEHASH'), '0x6e71edae12b1b97f4d1f60370fef10105fa2faae0126114a169c64845d6126c9');
    assert.equal(chain.network, NETWORK);
    // The address Holon's table knows, under the EIP-712 domain the token itself reports.
    assert.deepEqual(knownAsset(NETWORK, TOKEN), { currency: 'USDC', decimals: 6, name: await read('name'), version: await read('version') });
  });

  test('transferWithAuthorization: the payer signs, anyone submits, the nonce is spent once; both signature forms', async () => {
    const a = authorization();
    const signature = await signTransfer(a);
    const before = [await chain.usdcOf(payer.address), await chain.usdcOf(payee.address)];
    const r = await send(relayer, 'transferWithAuthorization', [...args(a), ...vrs(signature)]);
    assert.equal(r.status, 'success');
    assert.deepEqual(
      r.logs.map((l) => [l.eventName, l.args]),
      [
        ['AuthorizationUsed', { authorizer: payer.address, nonce: a.nonce }],
        ['Transfer', { from: payer.address, to: payee.address, value: a.value }],
      ],
    );
    assert.deepEqual([await chain.usdcOf(payer.address), await chain.usdcOf(payee.address)], [before[0]! - a.value, before[1]! + a.value]);
    assert.equal(await read('authorizationState', [payer.address, a.nonce]), true);
    await assert.rejects(send(relayer, 'transferWithAuthorization', [...args(a), ...vrs(signature)]), /authorization is used or canceled/);
    await assert.rejects(send(relayer, 'transferWithAuthorization', [...args(a), signature]), /authorization is used or canceled/);

    const b = authorization();
    assert.equal(
      (await send(relayer, 'transferWithAuthorization', [...args(b), await signTransfer(b)])).status,
      'success',
      'a bytes signature',
    );
  });

  test('refused: outside its window, a changed amount or payee, another signer, a malleable signature; nothing moves', async () => {
    const before = await chain.usdcOf(payer.address);
    const expired = authorization({ validBefore: now() - 600n });
    await assert.rejects(
      send(relayer, 'transferWithAuthorization', [...args(expired), await signTransfer(expired)]),
      /authorization is expired/,
    );
    const early = authorization({ validAfter: now() + 3600n });
    await assert.rejects(
      send(relayer, 'transferWithAuthorization', [...args(early), await signTransfer(early)]),
      /authorization is not yet valid/,
    );
    const a = authorization();
    const signature = await signTransfer(a);
    await assert.rejects(
      send(relayer, 'transferWithAuthorization', [...args({ ...a, value: a.value + 1n }), signature]),
      /invalid signature/,
    );
    await assert.rejects(
      send(relayer, 'transferWithAuthorization', [...args({ ...a, to: relayerAccount.address }), signature]),
      /invalid signature/,
    );
    const stranger = await privateKeyToAccount(generatePrivateKey()).signTypedData({
      domain,
      types: { TransferWithAuthorization: AUTHORIZATION },
      primaryType: 'TransferWithAuthorization',
      message: a,
    });
    await assert.rejects(send(relayer, 'transferWithAuthorization', [...args(a), stranger]), /invalid signature/);
    // The same signature with s flipped to the upper half of the curve order recovers the same signer: USDC refuses it.
    const { r, s, yParity } = parseSignature(signature);
    const n = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
    const flipped = serializeSignature({ r, s: toHex(n - BigInt(s), { size: 32 }), yParity: yParity === 0 ? 1 : 0 });
    await assert.rejects(send(relayer, 'transferWithAuthorization', [...args(a), flipped]), /invalid signature 's' value/);
    assert.equal(await chain.usdcOf(payer.address), before);
    assert.equal(await read('authorizationState', [payer.address, a.nonce]), false);
    // Still good as signed.
    assert.equal((await send(relayer, 'transferWithAuthorization', [...args(a), signature])).status, 'success');
  });

  test('receiveWithAuthorization is submitted by the payee only; cancelAuthorization spends a nonce unused', async () => {
    const a = authorization();
    const signature = await signTransfer(a, 'ReceiveWithAuthorization');
    await assert.rejects(send(relayer, 'receiveWithAuthorization', [...args(a), signature]), /caller must be the payee/);
    const payeeWallet = createWalletClient({
      account: payee,
      chain: localChainDefinition(chain.rpcUrl),
      transport: localTransport(chain.rpcUrl),
    });
    assert.equal((await send(payeeWallet, 'receiveWithAuthorization', [...args(a), ...vrs(signature)])).status, 'success');

    const c = authorization();
    const cancel = await payer.signTypedData({
      domain,
      types: {
        CancelAuthorization: [
          { name: 'authorizer', type: 'address' },
          { name: 'nonce', type: 'bytes32' },
        ],
      },
      primaryType: 'CancelAuthorization',
      message: { authorizer: payer.address, nonce: c.nonce },
    });
    const canceled = await send(relayer, 'cancelAuthorization', [payer.address, c.nonce, cancel]);
    assert.deepEqual(
      canceled.logs.map((l) => [l.eventName, l.args]),
      [['AuthorizationCanceled', { authorizer: payer.address, nonce: c.nonce }]],
    );
    await assert.rejects(
      send(relayer, 'transferWithAuthorization', [...args(c), await signTransfer(c)]),
      /authorization is used or canceled/,
    );
  });

  test('permit (EIP-2612): a signed allowance, its nonce counted, refused when replayed or expired', async () => {
    const spender = relayerAccount.address;
    const nonce = await read<bigint>('nonces', [payer.address]);
    const deadline = now() + 300n;
    const permit = { owner: payer.address, spender, value: 1_000_000n, nonce, deadline };
    const signature = await payer.signTypedData({
      domain,
      types: {
        Permit: [
          { name: 'owner', type: 'address' },
          { name: 'spender', type: 'address' },
          { name: 'value', type: 'uint256' },
          { name: 'nonce', type: 'uint256' },
          { name: 'deadline', type: 'uint256' },
        ],
      },
      primaryType: 'Permit',
      message: permit,
    });
    const r = await send(relayer, 'permit', [payer.address, spender, permit.value, deadline, ...vrs(signature)]);
    assert.deepEqual(
      r.logs.map((l) => [l.eventName, l.args]),
      [['Approval', { owner: payer.address, spender, value: permit.value }]],
    );
    assert.equal(await read('allowance', [payer.address, spender]), permit.value);
    assert.equal(await read('nonces', [payer.address]), nonce + 1n);
    await assert.rejects(
      send(relayer, 'permit', [payer.address, spender, permit.value, deadline, signature]),
      /EIP2612: invalid signature/,
    );
    await assert.rejects(send(relayer, 'permit', [payer.address, spender, permit.value, now() - 600n, signature]), /permit is expired/);
  });
});
