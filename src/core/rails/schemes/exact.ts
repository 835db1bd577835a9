/**
 * x402's `exact` scheme on an EVM chain: an EIP-3009 `transferWithAuthorization` of exactly the amount,
 * signed by the wallet under the token's own EIP-712 domain, its nonce at the token (H, where there are
 * terms; random for `pay`). A channel's deposit is one too (an exact transfer to the escrow, its nonce H),
 * read back the same way. It is the scheme of every settlement whose record names none.
 *
 * Reading it back (`verdict`): the transaction shows its status, the token's `AuthorizationUsed` for this
 * payer and nonce, and the `Transfer` of the amount from the payer to the payee after it; where the
 * transaction calls `transferWithAuthorization` itself, this authorization's own validity. It is spent as
 * the token's authorization state says, and never once cancelled, once its nonce was spent by something
 * else, or once a block's time reaches `validBefore` (the token refuses it from then on).
 */
import type { Address, Hash, Hex } from 'viem';
import { decodeFunctionData, encodeFunctionData, getAddress, parseAbi, parseSignature } from 'viem';
import type { MinedTransfers } from '../chain.ts';
import type { ChainReader } from '../chain.ts';
import type { Authorization, ChainVerdict, Scheme, SignedPayment } from '../scheme.ts';
import { readVerdict } from '../verdict.ts';

/** EIP-3009's `transferWithAuthorization`, as EIP-712 types: what every x402 payment Holon makes on an EVM chain signs first. */
export const TRANSFER_TYPES = {
  TransferWithAuthorization: [
    { name: 'from', type: 'address' },
    { name: 'to', type: 'address' },
    { name: 'value', type: 'uint256' },
    { name: 'validAfter', type: 'uint256' },
    { name: 'validBefore', type: 'uint256' },
    { name: 'nonce', type: 'bytes32' },
  ],
} as const;

/** EIP-3009's two ways to move a signed authorization: what an `exact` payment's transaction is read as. */
const TRANSFER_WITH_AUTHORIZATION_ABI = /* @__PURE__ */ parseAbi([
  'function transferWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, ' +
    'uint8 v, bytes32 r, bytes32 s)',
  'function transferWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, ' +
    'bytes signature)',
]);

const CANCEL_ABI = /* @__PURE__ */ parseAbi([
  'function cancelAuthorization(address authorizer, bytes32 nonce, uint8 v, bytes32 r, bytes32 s)',
]);

/** EIP-3009's `CancelAuthorization`, as EIP-712 types. */
const CANCEL_TYPES = {
  CancelAuthorization: [
    { name: 'authorizer', type: 'address' },
    { name: 'nonce', type: 'bytes32' },
  ],
} as const;

/**
 * The `Transfer` a mined transaction shows for an authorization, when it shows it: the token's
 * `AuthorizationUsed` for this payer and nonce, and the first `Transfer` after it from the payer to the
 * payee of the amount (the token emits them in that order), so that a transaction settling two payments
 * of one amount pairs each with its own.
 */
function shows(m: MinedTransfers, a: { from: Address; to: Address; nonce: Hex; value: bigint }): number | undefined {
  if (m.status !== 'success') return undefined;
  const used = m.used.find((u) => getAddress(u.authorizer) === a.from && u.nonce.toLowerCase() === a.nonce.toLowerCase());
  if (!used) return undefined;
  const moved = m.transfers
    .filter((t) => t.logIndex > used.logIndex && getAddress(t.from) === a.from && getAddress(t.to) === a.to && t.value === a.value)
    .sort((x, y) => x.logIndex - y.logIndex)[0];
  return moved?.logIndex;
}

/**
 * False when transaction `tx` calls the token's `transferWithAuthorization` with another validity than
 * `a`'s (so it carries another authorization of the same nonce); true when it carries `a`, or calls
 * something else (a facilitator's contract, a batch), where the logs alone are read.
 */
async function carries(reader: ChainReader, tx: Hash, a: Authorization): Promise<boolean> {
  const call = await reader.called(tx);
  if (!call?.to || getAddress(call.to) !== reader.config.token) return true;
  try {
    const d = decodeFunctionData({ abi: TRANSFER_WITH_AUTHORIZATION_ABI, data: call.input });
    const [, , , validAfter, validBefore] = d.args as readonly [Address, Address, bigint, bigint, bigint, Hex, ...unknown[]];
    return validAfter === BigInt(a.validAfter) && validBefore === BigInt(a.validBefore);
  } catch {
    return true;
  }
}

/** Holon's reading of an `exact` payment on the chain (see the file's head). */
async function exactVerdict(reader: ChainReader, r: SignedPayment): Promise<ChainVerdict> {
  const a = {
    from: getAddress(r.authorization.from),
    to: getAddress(r.authorization.to),
    nonce: r.authorization.nonce as Hex,
    value: BigInt(r.authorization.value),
  };
  const landedIn = async (tx: Hash): Promise<ChainVerdict | undefined> => {
    const mined = await reader.mined(tx);
    const logIndex = mined ? shows(mined, a) : undefined;
    if (!mined || logIndex === undefined) return undefined;
    // Two authorizations of one nonce (the same terms signed twice) show the same Transfer: the call tells
    // which of them the transaction carried, where it is the token's own.
    if (!(await carries(reader, tx, r.authorization))) return { kind: 'never', why: 'spent_elsewhere', transaction: mined.transaction };
    return { kind: 'landed', transaction: mined.transaction, block: mined.block, value: a.value, logIndex };
  };
  return readVerdict(reader, r, {
    landedIn,
    spent: (block) => reader.authorizationSpent(a.from, a.nonce, block),
    whereSpent: async () => {
      const tx = await reader.spentIn(a.from, a.nonce, BigInt(r.from_block ?? '0'));
      if (!tx) return undefined;
      const found = await landedIn(tx);
      if (found) return found;
      const mined = await reader.mined(tx);
      // Not served yet: read again later.
      if (!mined) return undefined;
      const cancelled = mined.canceled.some((c) => getAddress(c.authorizer) === a.from && c.nonce.toLowerCase() === a.nonce.toLowerCase());
      return { kind: 'never', why: cancelled ? 'cancelled' : 'spent_elsewhere', transaction: mined.transaction };
    },
    expired: (blockTime) => blockTime >= BigInt(r.authorization.validBefore),
  });
}

/** x402 `exact`: EIP-3009, exactly its amount. */
export const exact = {
  name: 'exact' as const,
  request: (a, token) => ({
    domain: { name: token.name, version: token.version, chainId: String(token.chainId), verifyingContract: getAddress(token.token) },
    types: TRANSFER_TYPES,
    primaryType: 'TransferWithAuthorization',
    message: { ...a },
  }),
  recorded: (a) => ({ ...a }),
  nonceSpent: (reader, a, block) => reader.authorizationSpent(getAddress(a.from), a.nonce as Hex, block),
  spentIn: (reader, a) => reader.spentIn(getAddress(a.from), a.nonce as Hex, 0n),
  verdict: exactVerdict,
  cancel: async (r, { wallet, reader, send }) => {
    const config = reader.config;
    const signature = await wallet.signTypedData({
      domain: { name: config.asset.name, version: config.asset.version, chainId: String(config.chainId), verifyingContract: config.token },
      types: CANCEL_TYPES,
      primaryType: 'CancelAuthorization',
      message: { authorizer: getAddress(r.authorization.from), nonce: r.authorization.nonce },
    });
    const { v, r: sr, s: ss, yParity } = parseSignature(signature);
    const data = encodeFunctionData({
      abi: CANCEL_ABI,
      functionName: 'cancelAuthorization',
      args: [getAddress(r.authorization.from), r.authorization.nonce as Hex, Number(v ?? BigInt(27 + yParity)), sr, ss],
    });
    return send({ to: config.token, data });
  },
} satisfies Scheme<Authorization>;
