/**
 * x402's `upto` scheme on an EVM chain, as Holon signs and reads it: the wallet signs a Permit2 witness
 * transfer of at most the worst case to the seller's payee, which only the facilitator the witness names
 * can settle, through x402's upto proxy, for what the work cost. Permit2's nonce is H (the uint256 of the
 * terms' hash), as an `exact` payment's EIP-3009 nonce is: a seller cannot settle it under other terms, and
 * the wallet's Permit2 spends it once. Permit2 must be allowed to move the wallet's token: where it is not
 * yet, the wallet signs an EIP-2612 permit that the facilitator submits with the settlement (x402's
 * `eip2612GasSponsoring`), so the wallet never sends a transaction of its own.
 *
 * Reading it back (`verdict`): Permit2 emits nothing of its own for a transfer, so Holon reads the
 * settling transaction itself — mined and successful, a call of the upto proxy's `settle` (or
 * `settleWithPermit`) for this owner, nonce and payee, for at most what was authorized, and the token's
 * `Transfer` of exactly that amount from the wallet to the payee in it — and Permit2's nonce bitmap for
 * whether the nonce was spent. The value the chain moved is what the payment costs.
 */
import type { Address, Hash, Hex } from 'viem';
import { decodeFunctionData, encodeFunctionData, getAddress, numberToHex, parseAbi } from 'viem';
import type { TypedRequest } from '../../local/wallet.ts';
import type { ChainReader } from '../chain.ts';
import type { Authorization, ChainVerdict, Scheme, SignedPayment } from '../scheme.ts';
import { readVerdict } from '../verdict.ts';

// What `@x402/evm` 2.27 names these (PERMIT2_ADDRESS, x402UptoPermit2ProxyAddress, uptoPermit2WitnessTypes,
// x402UptoPermit2ProxyABI), written here rather than imported: the package has side effects as far as a
// bundler knows, and importing it would carry all of it into every bundle that reads a settlement's words
// (the extension's). test/core/permit2.test.ts holds each to the package's own.

/** Permit2, at the address it has on every chain (on the local chain, placed there: examples/chain/placed.ts). */
export const PERMIT2: Address = '0x000000000022D473030F116dDEE9F6B43aC78BA3';
/** x402's upto proxy, the spender every `upto` permit names (never one a seller names). */
export const UPTO_PROXY: Address = '0x4020A4f3b7b90ccA423B9fabCc0CE57C6C240002';

/** x402's witness types for an `upto` Permit2 transfer: the payee, the one facilitator that may settle, the earliest time. */
export const UPTO_WITNESS_TYPES = {
  PermitWitnessTransferFrom: [
    { name: 'permitted', type: 'TokenPermissions' },
    { name: 'spender', type: 'address' },
    { name: 'nonce', type: 'uint256' },
    { name: 'deadline', type: 'uint256' },
    { name: 'witness', type: 'Witness' },
  ],
  TokenPermissions: [
    { name: 'token', type: 'address' },
    { name: 'amount', type: 'uint256' },
  ],
  Witness: [
    { name: 'to', type: 'address' },
    { name: 'facilitator', type: 'address' },
    { name: 'validAfter', type: 'uint256' },
  ],
} as const;

/** The upto proxy's two ways to settle, as its ABI has them: what a settling transaction is read as. */
export const UPTO_PROXY_SETTLE_ABI = /* @__PURE__ */ parseAbi([
  'struct TokenPermissions { address token; uint256 amount; }',
  'struct PermitTransferFrom { TokenPermissions permitted; uint256 nonce; uint256 deadline; }',
  'struct Witness { address to; address facilitator; uint256 validAfter; }',
  'struct EIP2612Permit { uint256 value; uint256 deadline; bytes32 r; bytes32 s; uint8 v; }',
  'function settle(PermitTransferFrom permit, uint256 amount, address owner, Witness witness, bytes signature)',
  'function settleWithPermit(EIP2612Permit p, PermitTransferFrom permit, uint256 amount, address owner, Witness witness, bytes signature)',
]);

/** Permit2's nonce for H: the 32-byte hash as a uint256 (decimal, as x402's payload carries it). */
export function permit2Nonce(h: string): string {
  return BigInt(h).toString();
}

/** What the wallet signs for an `upto` payment (x402's `permit2Authorization`, every uint256 a decimal string). */
export interface UptoAuthorization {
  from: Address;
  permitted: { token: Address; amount: string };
  spender: Address;
  nonce: string;
  deadline: string;
  witness: { to: Address; facilitator: Address; validAfter: string };
}

/** The authorization for paying at most `amount` of `token` to `to`, settled by `facilitator` before `deadline`, bound to H. */
export function uptoAuthorization(p: {
  from: Address;
  token: string;
  amount: string;
  to: string;
  facilitator: string;
  deadline: string;
  h: string;
}): UptoAuthorization {
  return {
    from: p.from,
    permitted: { token: getAddress(p.token), amount: p.amount },
    spender: UPTO_PROXY,
    nonce: permit2Nonce(p.h),
    deadline: p.deadline,
    witness: { to: getAddress(p.to), facilitator: getAddress(p.facilitator), validAfter: '0' },
  };
}

/** The EIP-712 request the wallet signs for it: Permit2's domain (no version) on `chainId`, x402's witness types. */
export function uptoRequest(a: UptoAuthorization, chainId: number): TypedRequest {
  return {
    domain: { name: 'Permit2', chainId: String(chainId), verifyingContract: PERMIT2 },
    types: UPTO_WITNESS_TYPES,
    primaryType: 'PermitWitnessTransferFrom',
    message: {
      permitted: { ...a.permitted },
      spender: a.spender,
      nonce: a.nonce,
      deadline: a.deadline,
      witness: { ...a.witness },
    },
  };
}

/** EIP-2612's `Permit`. */
const PERMIT_TYPES = {
  Permit: [
    { name: 'owner', type: 'address' },
    { name: 'spender', type: 'address' },
    { name: 'value', type: 'uint256' },
    { name: 'nonce', type: 'uint256' },
    { name: 'deadline', type: 'uint256' },
  ],
} as const;

/**
 * The EIP-2612 permit letting Permit2 move exactly the authorized amount (the proxy refuses any other
 * value), at the token's next permit `nonce`, valid as long as the Permit2 authorization.
 */
export function permitRequest(
  a: UptoAuthorization,
  token: { name: string; version: string; chainId: number },
  nonce: bigint,
): { request: TypedRequest; info: Record<string, string> } {
  const message = { owner: a.from, spender: PERMIT2, value: a.permitted.amount, nonce: nonce.toString(), deadline: a.deadline };
  return {
    request: {
      domain: { name: token.name, version: token.version, chainId: String(token.chainId), verifyingContract: a.permitted.token },
      types: PERMIT_TYPES,
      primaryType: 'Permit',
      message,
    },
    // x402's eip2612GasSponsoring info, without its signature (added once signed).
    info: {
      from: a.from,
      asset: a.permitted.token,
      spender: PERMIT2,
      amount: a.permitted.amount,
      nonce: message.nonce,
      deadline: a.deadline,
      version: '1',
    },
  };
}

/** An `upto` authorization as a settlement keeps it: the EIP-3009 shape every settlement has (`value` the maximum). */
export function uptoSettlementAuthorization(a: UptoAuthorization): Authorization {
  return {
    from: a.from,
    to: a.witness.to,
    value: a.permitted.amount,
    validAfter: a.witness.validAfter,
    validBefore: a.deadline,
    nonce: numberToHex(BigInt(a.nonce), { size: 32 }),
  };
}

/** What a transaction's call of the upto proxy settles, when it is one. */
function proxySettlement(call: {
  to: Address | null;
  input: Hex;
}): { owner: Address; nonce: bigint; to: Address; amount: bigint } | undefined {
  if (!call.to || getAddress(call.to) !== UPTO_PROXY) return undefined;
  try {
    const d = decodeFunctionData({ abi: UPTO_PROXY_SETTLE_ABI, data: call.input });
    const [permit, amount, owner, witness] = (d.functionName === 'settleWithPermit' ? d.args.slice(1) : d.args) as [
      { nonce: bigint },
      bigint,
      Address,
      { to: Address },
    ];
    return { owner: getAddress(owner), nonce: permit.nonce, to: getAddress(witness.to), amount };
  } catch {
    return undefined;
  }
}

/**
 * Holon's own reading of the chain for an `upto` settlement (verdict.ts's `readVerdict`): landed where a
 * transaction succeeded calling the upto proxy for this owner, nonce and payee, for no more than the
 * maximum, and the token's `Transfer` shows that amount moving; spent as Permit2's nonce bitmap says, and
 * then found among the token's transfers from the wallet to the payee since it was signed; never once a
 * block's time is past the permit's deadline (Permit2 refuses it from then on), and once its nonce was spent
 * by nothing that settles it by then (the wallet invalidated it, or it was spent before this was signed).
 */
async function uptoVerdict(reader: ChainReader, r: SignedPayment): Promise<ChainVerdict> {
  const owner = getAddress(r.authorization.from);
  const payee = getAddress(r.authorization.to);
  const nonce = BigInt(r.authorization.nonce);
  const most = BigInt(r.authorization.value);
  const landedIn = async (tx: Hash): Promise<ChainVerdict | undefined> => {
    const mined = await reader.mined(tx);
    if (!mined || mined.status !== 'success') return undefined;
    const call = await reader.called(tx);
    const settled = call ? proxySettlement(call) : undefined;
    if (!settled || settled.owner !== owner || settled.nonce !== nonce || settled.to !== payee || settled.amount > most) return undefined;
    const moved = mined.transfers.find((t) => getAddress(t.from) === owner && getAddress(t.to) === payee && t.value === settled.amount);
    return moved
      ? { kind: 'landed', transaction: mined.transaction, block: mined.block, value: settled.amount, logIndex: moved.logIndex }
      : undefined;
  };
  return readVerdict(reader, r, {
    landedIn,
    spent: (block) => reader.permit2NonceUsed(PERMIT2, owner, nonce, block),
    whereSpent: async () => {
      for (const t of await reader.transfers(owner, payee, BigInt(r.from_block ?? '0'))) {
        const found = await landedIn(t.transaction);
        if (found) return found;
      }
      // Holon's own invalidation of the nonce (a human released it), mined, and no settlement of it before: never.
      const cancel = r.cancel ? await reader.mined(r.cancel.transaction as Hash) : undefined;
      if (cancel?.status === 'success') return { kind: 'never', why: 'cancelled', transaction: cancel.transaction };
      // Spent, and no settlement of it to be read (yet): the logs may not be served yet.
      return undefined;
    },
    expired: (blockTime) => blockTime > BigInt(r.authorization.validBefore),
  });
}

const INVALIDATE_ABI = /* @__PURE__ */ parseAbi(['function invalidateUnorderedNonces(uint256 wordPos, uint256 mask)']);

/** x402 `upto`: a Permit2 witness transfer of at most its amount, settled for what the work cost. */
export const upto = {
  name: 'upto' as const,
  request: (a, token) => uptoRequest(a, Number(token.chainId)),
  recorded: uptoSettlementAuthorization,
  nonceSpent: (reader, a, block) => reader.permit2NonceUsed(PERMIT2, getAddress(a.from), BigInt(a.nonce), block),
  // Permit2 says nothing of where a nonce was spent: only Holon's own record of it can name the transaction.
  spentIn: () => Promise.resolve(undefined),
  verdict: uptoVerdict,
  // Permit2's unordered nonces: bit (nonce & 255) of word (nonce >> 8). Nothing to sign: the wallet sends it.
  cancel: (r, { send }) => {
    const nonce = BigInt(r.authorization.nonce);
    const data = encodeFunctionData({
      abi: INVALIDATE_ABI,
      functionName: 'invalidateUnorderedNonces',
      args: [nonce >> 8n, 1n << (nonce & 0xffn)],
    });
    return send({ to: PERMIT2, data });
  },
} satisfies Scheme<UptoAuthorization>;
