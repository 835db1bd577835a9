/**
 * A mandate's limits held by the chain, not by Holon: the human's account is a HybridDeleGator owned only by
 * a passkey (test/helpers/softPasskey.ts, a software authenticator), which signs a delegation of 5 USDC a day, 12 in all,
 * to the hot key. The hot key then does what an agent holding `<state>/keys/wallet.key` could: it redeems
 * within the caps and past them, rewrites the terms, signs for the account itself, moves the money
 * elsewhere. Each attempt is a transaction the chain mines; the balances, read back with viem, move by
 * exactly what succeeded. A file of its own: it moves the chain's time.
 */
import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import type { Address, Hex } from 'viem';
import { encodeFunctionData, hashStruct, hashTypedData, hexToBytes, parseAbi, parseEther, toHex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { HTTPFacilitatorClient } from '@x402/core/server';
import type { LocalChain } from '../../examples/chain/chain.ts';
import { localChain } from '../../examples/chain/chain.ts';
import { TEST_USDC_ABI } from '../../examples/chain/testUsdcArtifact.ts';
import { HolonError } from '../../src/core/kernel/errors.ts';
import type { Wallet } from '../../src/core/local/wallet.ts';
import { walletFromKey } from '../../src/core/local/wallet.ts';
import { chainReader } from '../../src/core/rails/chain.ts';
import { accountAddress, accountInitCode, ACCOUNT_ABI, deployAccount } from '../../src/core/rails/delegation/account.ts';
import type { Framework } from '../../src/core/rails/delegation/addresses.ts';
import { frameworkOn } from '../../src/core/rails/delegation/addresses.ts';
import type { Call, MandateLimits } from '../../src/core/rails/delegation/caveats.ts';
import { caveatsOf, DAY, oneCallCaveats, utcMidnight } from '../../src/core/rails/delegation/caveats.ts';
import type { Delegation } from '../../src/core/rails/delegation/delegation.ts';
import {
  DELEGATION_MANAGER_ABI,
  delegationDigest,
  delegationTypedData,
  redeemTransaction,
  revokeCall,
  ROOT_AUTHORITY,
} from '../../src/core/rails/delegation/delegation.ts';
import { deleGatorSignature } from '../../src/core/rails/delegation/webauthnSignature.ts';
import type { SoftPasskey } from '../helpers/softPasskey.ts';
import { softPasskey } from '../helpers/softPasskey.ts';
import { sendAsAgent } from './support.ts';
import { TRANSFER_TYPES } from '../../src/core/rails/schemes/exact.ts';
import { chainOf } from './support.ts';

const USDC = 1_000_000n;
let chain: LocalChain;
let framework: Framework;
let passkey: SoftPasskey;
let hotKey: Hex;
let hot: Wallet;
let account: Address;
let limits: MandateLimits;

before(async () => {
  chain = await localChain();
  framework = frameworkOn(chain.chainId);
  passkey = softPasskey();
  hotKey = generatePrivateKey();
  hot = walletFromKey(hotKey);
  await chain.fund(hot.address, { eth: parseEther('1') });
  // The hot key deploys the passkey's account and pays its gas, through Holon's own chain reader.
  const deployed = await deployAccount(chainReader(chainOf(chain)), hot, passkey.credential, toHex('holon:test-account', { size: 32 }));
  assert.equal((await chain.client.waitForTransactionReceipt({ hash: deployed.transaction })).status, 'success');
  account = deployed.address;
  await chain.fund(account, { usdc: 20n * USDC });
  const now = (await chain.client.getBlock()).timestamp;
  limits = {
    token: chain.token,
    perDay: 5n * USDC,
    total: 12n * USDC,
    startOfDay: utcMidnight(now),
    expiresAt: utcMidnight(now) + 30n * DAY,
    hotKey: hot.address,
  };
});

/** The passkey's signature of `delegation`, as the account checks it. `highS`: the authenticator gave the high s. */
function signed(delegation: Delegation, highS = false): Hex {
  const digest = delegationDigest(delegation, chain.chainId, framework);
  return deleGatorSignature(passkey.assert(hexToBytes(digest), { highS }), digest);
}

function mandate(salt: bigint, of: MandateLimits = limits): Delegation {
  return { delegate: hot.address, delegator: account, authority: ROOT_AUTHORITY, caveats: caveatsOf(of, framework), salt };
}

const transfer = (to: Address, value: bigint): Call => ({
  target: chain.token,
  value: 0n,
  data: encodeFunctionData({ abi: TEST_USDC_ABI, functionName: 'transfer', args: [to, value] }),
});

/** The hot key redeems `delegation` for `call` as an agent holding its key would (support.ts's sendAsAgent). */
function redeem(delegation: Delegation, signature: Hex, call: Call): Promise<string | null> {
  return sendAsAgent(chain, hotKey, redeemTransaction(framework, delegation, signature, call));
}

async function balances(): Promise<{ account: bigint; hot: bigint }> {
  return { account: await chain.usdcOf(account), hot: await chain.usdcOf(hot.address) };
}

async function nextDay(): Promise<void> {
  await chain.client.request({ method: 'evm_increaseTime' as never, params: [Number(DAY)] as never });
  await chain.client.request({ method: 'evm_mine' as never, params: [] as never });
}

test('the local chain has the framework where Holon says, and the account is the passkey alone', async () => {
  const { SCL_RIP7212: _library, HybridDeleGator, ...rest } = chain.framework;
  assert.deepEqual({ ...rest, HybridDeleGatorImpl: HybridDeleGator }, framework);
  const read = (address: Address, functionName: 'NAME' | 'VERSION'): Promise<string> =>
    chain.client.readContract({
      address,
      abi: parseAbi(['function NAME() view returns (string)', 'function VERSION() view returns (string)']),
      functionName,
    });
  assert.deepEqual(
    [await read(framework.DelegationManager, 'NAME'), await read(framework.HybridDeleGatorImpl, 'NAME'), await read(account, 'VERSION')],
    ['DelegationManager', 'HybridDeleGator', '1.3.0'],
  );
  assert.equal(
    account,
    accountAddress(accountInitCode(passkey.credential, framework), toHex('holon:test-account', { size: 32 }), framework),
  );
  assert.equal(
    await chain.client.readContract({ address: account, abi: ACCOUNT_ABI, functionName: 'owner' }),
    '0x0000000000000000000000000000000000000000',
  );
  const [x, y] = await chain.client.readContract({
    address: account,
    abi: ACCOUNT_ABI,
    functionName: 'getKey',
    args: [passkey.credential.id],
  });
  assert.deepEqual(
    [toHex(x, { size: 32 }), toHex(y, { size: 32 })],
    [passkey.credential.x, passkey.credential.y].map((c) => toHex(Buffer.from(c, 'base64url'))),
  );
  // The digest the passkey signs is the one the manager computes.
  const d = mandate(1n);
  const onChain = await chain.client.readContract({
    address: framework.DelegationManager,
    abi: DELEGATION_MANAGER_ABI,
    functionName: 'getDelegationHash',
    args: [{ ...d, signature: '0x' }],
  });
  const typed = delegationTypedData(d, chain.chainId, framework);
  assert.equal(hashStruct({ data: typed.message, types: typed.types, primaryType: 'Delegation' }), onChain);
});

test('an EIP-3009 authorization the passkey signs as the account settles through the official x402 facilitator', async () => {
  const payee = privateKeyToAccount(generatePrivateKey()).address;
  const before = await balances();
  const validBefore = BigInt(Math.max(Math.floor(Date.now() / 1000), Number((await chain.client.getBlock()).timestamp)) + 600);
  const authorization = {
    from: account,
    to: payee,
    value: USDC,
    validAfter: 0n,
    validBefore,
    nonce: toHex('holon:test-3009', { size: 32 }),
  };
  const domain = { name: 'USD Coin', version: '2', chainId: chain.chainId, verifyingContract: chain.token } as const;
  const digest = hashTypedData({ domain, types: TRANSFER_TYPES, primaryType: 'TransferWithAuthorization', message: authorization });
  const requirements = {
    scheme: 'exact',
    network: chain.network,
    asset: chain.token,
    amount: String(USDC),
    payTo: payee,
    maxTimeoutSeconds: 600,
    extra: { name: 'USD Coin', version: '2' },
  };
  const payment = (signature: Hex) => ({
    x402Version: 2,
    accepted: requirements,
    payload: { signature, authorization: { ...authorization, value: String(USDC), validAfter: '0', validBefore: String(validBefore) } },
  });
  const facilitator = new HTTPFacilitatorClient({ url: chain.facilitator.url });
  // The hot key's own signature for the account is not the account's.
  const forged = await privateKeyToAccount(hotKey).signTypedData({
    domain,
    types: TRANSFER_TYPES,
    primaryType: 'TransferWithAuthorization',
    message: authorization,
  });
  assert.equal((await facilitator.verify(payment(forged) as never, requirements as never)).isValid, false);
  const signature = deleGatorSignature(passkey.assert(hexToBytes(digest), { highS: true }), digest);
  assert.equal((await facilitator.verify(payment(signature) as never, requirements as never)).isValid, true);
  const settled = await facilitator.settle(payment(signature) as never, requirements as never);
  assert.equal(settled.success, true, JSON.stringify(settled));
  assert.equal(await chain.usdcOf(payee), USDC);
  assert.deepEqual(await balances(), { account: before.account - USDC, hot: before.hot });
  await chain.fund(account, { usdc: USDC });
});

test('the hot key moves no more than the passkey signed: per day, in all, to itself, by transfer only, until revoked', async () => {
  const m = mandate(1n);
  const signature = signed(m, true);
  const start = await balances();
  const moved = async (): Promise<bigint> => (await balances()).hot - start.hot;
  const kept = async (): Promise<void> => assert.equal((await balances()).account, start.account - (await moved()));

  assert.equal(await redeem(m, signature, transfer(hot.address, 3n * USDC)), null);
  assert.equal(await redeem(m, signature, transfer(hot.address, 2n * USDC)), null);
  assert.equal(await moved(), 5n * USDC);
  assert.equal(await redeem(m, signature, transfer(hot.address, 1n)), 'ERC20PeriodTransferEnforcer:transfer-amount-exceeded');

  // Elsewhere than the hot key, another method, other terms under the same signature, the hot key's own signature.
  const payee = privateKeyToAccount(generatePrivateKey()).address;
  assert.equal(await redeem(m, signature, transfer(payee, 1n)), 'AllowedCalldataEnforcer:invalid-calldata');
  const approve = encodeFunctionData({ abi: TEST_USDC_ABI, functionName: 'approve', args: [hot.address, 10n ** 12n] });
  assert.equal(await redeem(m, signature, { target: chain.token, value: 0n, data: approve }), 'AllowedMethodsEnforcer:method-not-allowed');
  const rewritten = { ...m, caveats: caveatsOf({ ...limits, perDay: 500n * USDC, total: 500n * USDC }, framework) };
  assert.equal(await redeem(rewritten, signature, transfer(hot.address, USDC)), 'InvalidERC1271Signature');
  const byHotKey = await privateKeyToAccount(hotKey).signTypedData(delegationTypedData(rewritten, chain.chainId, framework));
  assert.equal(await redeem(rewritten, byHotKey, transfer(hot.address, USDC)), 'InvalidERC1271Signature');
  assert.equal(await chain.usdcOf(payee), 0n);
  assert.equal(await moved(), 5n * USDC);
  await kept();

  await nextDay();
  assert.equal(await redeem(m, signature, transfer(hot.address, 5n * USDC)), null);
  assert.equal(await redeem(m, signature, transfer(hot.address, 1n)), 'ERC20PeriodTransferEnforcer:transfer-amount-exceeded');
  await nextDay();
  assert.equal(await redeem(m, signature, transfer(hot.address, 2n * USDC)), null);
  assert.equal(await moved(), 12n * USDC);
  assert.equal(await redeem(m, signature, transfer(hot.address, 1n)), 'ERC20TransferAmountEnforcer:allowance-exceeded');
  assert.equal(await moved(), 12n * USDC);
  await kept();
});

test('a mandate revoked by the passkey (a one-call delegation the hot key redeems) moves nothing more', async () => {
  const m = mandate(2n);
  const signature = signed(m);
  const start = await balances();
  assert.equal(await redeem(m, signature, transfer(hot.address, USDC)), null);

  const revoke = revokeCall(m, framework);
  const oneCall: Delegation = {
    delegate: hot.address,
    delegator: account,
    authority: ROOT_AUTHORITY,
    caveats: oneCallCaveats(revoke, framework),
    salt: 3n,
  };
  const oneCallSignature = signed(oneCall);
  assert.equal(await redeem(oneCall, oneCallSignature, revoke), null);
  assert.equal(await redeem(m, signature, transfer(hot.address, 1n)), 'CannotUseADisabledDelegation');
  assert.equal(await redeem(oneCall, oneCallSignature, revoke), 'LimitedCallsEnforcer:limit-exceeded');
  assert.deepEqual(await balances(), { account: start.account - USDC, hot: start.hot + USDC });
});

test('a mandate past its expiry moves nothing', async () => {
  const now = (await chain.client.getBlock()).timestamp;
  const m = mandate(4n, { ...limits, expiresAt: now + 3600n });
  const signature = signed(m);
  const start = await balances();
  assert.equal(await redeem(m, signature, transfer(hot.address, USDC)), null);
  await chain.client.request({ method: 'evm_increaseTime' as never, params: [3600] as never });
  await chain.client.request({ method: 'evm_mine' as never, params: [] as never });
  assert.equal(await redeem(m, signature, transfer(hot.address, 1n)), 'TimestampEnforcer:expired-delegation');
  assert.deepEqual(await balances(), { account: start.account - USDC, hot: start.hot + USDC });
});

test('bad limits and a signature over another digest are refused before anything is sent', () => {
  const refused = (f: () => unknown, field?: string): void =>
    assert.throws(f, (e: unknown) => HolonError.is(e, 'invalid_input') && (field === undefined || e.details['field'] === field));
  refused(() => caveatsOf({ ...limits, perDay: 0n }, framework), 'perDay');
  refused(() => caveatsOf({ ...limits, startOfDay: limits.startOfDay + 1n }, framework), 'startOfDay');
  refused(() => caveatsOf({ ...limits, expiresAt: limits.startOfDay }, framework), 'expiresAt');
  refused(() => caveatsOf({ ...limits, hotKey: '0x1234' as Address }, framework), 'hotKey');
  refused(() => frameworkOn(1));
  const digest = delegationDigest(mandate(9n), chain.chainId, framework);
  const other = delegationDigest(mandate(10n), chain.chainId, framework);
  refused(() => deleGatorSignature(passkey.assert(hexToBytes(other)), digest));
});
