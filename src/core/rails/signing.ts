/**
 * Before the wallet signs and before the payment leaves: Holon refuses a payment on any chain but the
 * configured one, and one whose nonce the terms fix (H) when the chain shows it spent or another payment
 * of it may still land (each scheme reads its own nonce space); then it records the signed payment in the
 * journal (`recordSigned`), so that a retry, or the next process after a crash, finds it.
 */
import type { Hash } from 'viem';
import { newId } from '../kernel/ids.ts';
import type { Money } from '../kernel/amount.ts';
import * as M from '../kernel/amount.ts';
import { denial } from '../kernel/denials.ts';
import { HolonError } from '../kernel/errors.ts';
import { denialText } from '../kernel/words.ts';
import type { EventStore, NewEvent } from '../store/store.ts';
import type { HolonState } from '../fold/state.ts';
import { spendEvent } from '../money/spend.ts';
import type { ChainReader } from './chain.ts';
import type { Authorization } from './scheme.ts';
import type { RecordedScheme } from './schemes.ts';
import { recordedScheme, schemeOf } from './schemes.ts';
import type { Settlement, SettlementFor } from './settlement.ts';
import { isOpen, nonceKey, sameNonce, settlementEvent } from './settlement.ts';
import { lapsesAt } from './settlementView.ts';
import type { Wallet } from '../local/wallet.ts';
import { delegationOfMandate } from '../accounts/chainAccount.ts';

/** What a toolset hands over once the wallet signed, before the payment is sent. */
export interface SignedDraft {
  mandate: string;
  for: SettlementFor;
  /** The hold that carries the payment's money. */
  hold: string;
  /** What that hold carries for it, in the mandate's currency. */
  held: Money;
  network: string;
  token: string;
  /** `upto`: a Permit2 witness transfer of at most `authorization.value` (schemes/upto.ts); absent: EIP-3009's exact. */
  scheme?: RecordedScheme;
  authorization: Authorization;
  /** The signed payment as it is sent (kept to send exactly it again). */
  payload: unknown;
  /** What it pays, in the token's currency. */
  amount: Money;
}

/** True when `reader` reads payments of this network and token. */
export function reads(reader: ChainReader | undefined, network: string, token: string): reader is ChainReader {
  return reader !== undefined && reader.config.network === network && reader.config.token.toLowerCase() === token.toLowerCase();
}

/**
 * Where to look for a payment signed from now on: a block at or before the chain's head (its number as
 * read at most a few seconds ago, most often without a round trip to the node); null when the node does
 * not answer. An earlier block only widens the look: a payment is told from any other by its nonce, which
 * is random or, under terms, read unspent at the latest block before anything is signed, so nothing spent
 * before this block can be taken for it. `atHead` reads the head itself, for what is told otherwise.
 */
export async function startBlock(reader: ChainReader | undefined, options: { atHead?: boolean } = {}): Promise<bigint | null> {
  if (!reader) return null;
  try {
    return options.atHead ? (await reader.head()).number : await reader.recentBlock();
  } catch {
    return null;
  }
}

/** A refusal before anything is signed, with its one denial. */
function refusedBeforeSigning(d: ReturnType<typeof denial>): HolonError {
  return new HolonError('denied', denialText(d), {}, [d]);
}

/**
 * Refuses, before the wallet signs, a payment on another network or token than the chain the human
 * configured (or any, where none is): Holon signs only what it reads back from the chain.
 */
export function assertOnConfiguredChain(reader: ChainReader | undefined, network: string, asset: string): asserts reader is ChainReader {
  const configuredChain: ChainReader | undefined = reader;
  if (reads(reader, network, asset)) return;
  const configured = configuredChain ? { network: configuredChain.config.network, asset: configuredChain.config.token } : null;
  // Only what has the form it must have is named: a network id, an address.
  const shown = (text: string, form: RegExp): string => (form.test(text) ? text : 'one Holon cannot read');
  throw refusedBeforeSigning(
    denial('other_chain', {
      network: shown(network, /^[a-z0-9-]{3,8}:[A-Za-z0-9-]{1,32}$/),
      asset: shown(asset, /^0x[0-9a-fA-F]{40}$/),
      configured,
    }),
  );
}

/** A payment about to be signed under a nonce the terms fix (H): who pays, in which scheme's nonces, and to whom. */
export interface NonceToSign {
  scheme?: RecordedScheme;
  /** The payer and the nonce, as its settlement will keep them (32 bytes of hex). */
  authorization: Pick<Authorization, 'from' | 'nonce'>;
}

/**
 * Refuses, before the wallet signs under a nonce the terms fix (H): when the chain shows that nonce spent
 * already (the terms were paid: a new signature could never land), naming where where Holon knows it; or
 * when a payment Holon signed under it may still land (`payment_open`: that one is sent again, never a
 * second). The nonce is read in the payment's scheme's own nonce space (EIP-3009's at the token, or Permit2's).
 */
export async function assertNonceUnspent(s: HolonState, reader: ChainReader, payment: NonceToSign, early?: NonceRead): Promise<void> {
  const key = keyOf(payment);
  const earlier = sameNonce(s, { id: '', ...key });
  const open = earlier.find((r) => isOpen(r));
  if (open) throw refusedBeforeSigning(denial('payment_open', { settlement: open.id, until: lapsesAt(open) }));
  // Read here, after the state's own answer, unless the caller started the same read earlier.
  const spent = early && nonceKey(keyOf(early.payment)) === nonceKey(key) ? early.spent : readNonceSpent(reader, payment).spent;
  if (!(await spent)) return;
  const landed = earlier.find((r) => r.landed)?.landed?.transaction;
  const transaction: Hash | string | null =
    landed ??
    (await schemeOf(payment)
      .spentIn(reader, payment.authorization)
      .catch(() => undefined)) ??
    null;
  throw refusedBeforeSigning(denial('terms_paid', { transaction }));
}

/**
 * Whether the chain shows `payment`'s nonce spent, read now for `assertNonceUnspent` to take later: a
 * caller that knows the nonce before it may sign (the H a seller advertises, while its ATR is fetched)
 * reads it beside its other round trips. What is only read and never taken is no failure of anyone's.
 */
export function readNonceSpent(reader: ChainReader, payment: NonceToSign): NonceRead {
  const spent = (async () => schemeOf(payment).nonceSpent(reader, payment.authorization))();
  spent.catch(() => {});
  return { payment, spent };
}

/** A chain read started by readNonceSpent: taken by the check only for the very payment it was started for. */
export interface NonceRead {
  payment: NonceToSign;
  spent: Promise<boolean>;
}

/** A payment about to be signed, as the settlements' nonce index keys it. */
function keyOf(payment: NonceToSign): Pick<Settlement, 'scheme' | 'authorization'> {
  return { scheme: payment.scheme, authorization: { ...payment.authorization } } as Pick<Settlement, 'scheme' | 'authorization'>;
}

/** The same check for an EIP-3009 (`exact`) payment; `early`, its chain read if started earlier. */
export function assertExactNonceUnspent(
  s: HolonState,
  reader: ChainReader,
  authorization: Pick<Authorization, 'from' | 'nonce'>,
  early?: NonceRead,
): Promise<void> {
  return assertNonceUnspent(s, reader, { authorization }, early);
}

/** The settlement signed under the same nonce as `payment` that may still land, if one is (the one to send again). */
export function openUnderNonce(s: HolonState, payment: NonceToSign): Settlement | undefined {
  return sameNonce(s, { id: '', ...keyOf(payment) }).find((r) => isOpen(r));
}

/**
 * The event that records a signed payment, `signed`: its hold waits for the chain `reader` reads. Only ever
 * on that chain (`assertOnConfiguredChain` refused any other before the wallet signed).
 */
export function signedSettlement(
  draft: SignedDraft,
  reader: ChainReader | undefined,
  fromBlock: bigint | null,
): { id: string; checked: boolean; event: NewEvent } {
  assertOnConfiguredChain(reader, draft.network, draft.token);
  const id = newId('stl');
  const event = settlementEvent('settlement.signed', {
    settlement: {
      id,
      mandate: draft.mandate,
      ...recordedScheme(draft.scheme),
      hold: draft.hold,
      for: { ...draft.for },
      network: draft.network,
      token: draft.token,
      payee: `${draft.network}:${draft.authorization.to}`,
      authorization: { ...draft.authorization },
      amount: M.toJson(draft.amount),
      held: M.toJson(draft.held),
      status: 'signed',
      payload: draft.payload,
      from_block: fromBlock === null ? null : fromBlock.toString(),
    },
  });
  return { id, checked: true, event };
}

/**
 * Records a payment the wallet signed, in one transaction, before it is sent: its settlement and, for a
 * payment drawn from a call's hold (`parent`), a hold of its own that carries it from then on, whatever
 * becomes of the call. Returns the settlement's id. Every payment passes here before it leaves, so here the
 * hot key (`wallet`) draws its float for an EIP-3009 payment from the human's account, when the state has
 * one and the mandate a delegation (delegation/humanAccount.ts); in any other state nothing is drawn.
 */
export async function recordSigned(
  deps: { store: EventStore<HolonState>; chain: ChainReader | undefined; wallet?: Wallet | undefined },
  draft: SignedDraft,
  options: { parent?: string; fromBlock?: bigint | null } = {},
): Promise<{ id: string; checked: boolean }> {
  if (
    deps.wallet &&
    deps.chain &&
    draft.scheme === undefined &&
    draft.authorization.from.toLowerCase() === deps.wallet.address.toLowerCase() &&
    delegationOfMandate(deps.store.state, draft.mandate)
  ) {
    // Loaded only where a mandate has a delegation: the editor's bundle, which folds and decides, never needs it.
    const { floatForPayment } = await import('./delegation/humanAccount.ts');
    await floatForPayment(deps.store, deps.chain, deps.wallet, draft.mandate, BigInt(draft.authorization.value));
  }
  const fromBlock = options.fromBlock !== undefined ? options.fromBlock : await startBlock(deps.chain);
  return deps.store.transact((s) => {
    const signed = signedSettlement(draft, deps.chain, fromBlock);
    const events: NewEvent[] = [];
    if (options.parent !== undefined) {
      const parent = s.holds[options.parent];
      if (!parent || parent.currency !== draft.held.currency || parent.units < draft.held.units)
        throw new Error(`the payment of ${M.toJson(draft.held).amount} is not within what hold ${options.parent} has left`);
      events.push(
        spendEvent('hold.placed', {
          hold: draft.hold,
          mandate: parent.mandate,
          account: parent.account,
          currency: parent.currency,
          amount: M.formatUnits(draft.held.units),
          parent: options.parent,
          payee: { kind: 'payee', id: `${draft.network}:${draft.authorization.to}` },
        }),
      );
    }
    events.push(signed.event);
    return { events, result: { id: signed.id, checked: signed.checked } };
  });
}
