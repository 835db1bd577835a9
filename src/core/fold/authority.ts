/**
 * Who may write what: the rule the fold applies to every transaction before it folds it, and every
 * writer applies to its own before it appends it. A transaction counts only if its signer's role (see
 * team.ts) allows every one of its events, so a row written straight into a shared table, or a journal
 * line an agent forged, decides nothing: a decision counts only from an approver; funds, mandates,
 * teams, rates, the catalog and settings only from an owner; requests and spends only from a member of
 * the account they are in. What a decision does (a window opens, a proposal merges, an override raises
 * the day's limit) counts only beside that decision, and only as the decision implies it. Some facts are
 * checked whoever writes them: a request never arrives decided, and a payment credits its payee exactly
 * what it was for, once.
 */
import { canonicalize } from 'json-canonicalize';
import type { Approval } from '../approvals/model.ts';
import { ACCOUNT_ID } from '../kernel/ids.ts';
import { parseUnits } from '../kernel/amount.ts';
import type { Mandate } from '../kernel/model.ts';
import { mergeEvents } from '../office/merge.ts';
import type { ApprovalsFields } from '../approvals/slice.ts';
import type { ReceiptsFields } from '../market/receipts.ts';
import type { MandatesFields } from '../accounts/mandates.ts';
import type { MoneyFields } from '../money/slice.ts';
import type { SpendFields } from '../money/spend.ts';
import type { OfficeFields } from '../office/slice.ts';
import type { PresenceFields } from '../accounts/presence.ts';
import type { SettlementFields } from '../rails/settlement.ts';
import type { RunTokensFields } from '../accounts/runTokens.ts';
import type { JournalEvent, Refusal } from '../store/store.ts';
import type { TeamFields, TeamRole } from '../accounts/team.ts';
import { hasRole, WHOLE_STORE } from '../accounts/team.ts';
import type { PasskeysFields } from '../accounts/passkeys.ts';
import { decisionSubject, isGuarded, registrationSubject } from '../accounts/passkeys.ts';
import { verifyAssertion } from '../passkey/assertion.ts';
import { isCredential } from '../passkey/credential.ts';
import { base64url, challengeOf } from '../passkey/challenge.ts';
import type { AssertionJson } from '../passkey/types.ts';
import type { ChainAccountFields, PaymentAuthorized } from '../accounts/chainAccount.ts';
import { accountOn, delegationRefusal, paymentAuthorizedRefusal } from '../accounts/chainAccount.ts';
import { FRAMEWORKS } from '../rails/delegation/addresses.ts';

/** The slices the rule reads: who is who, and what earlier events made. */
type AuthorityFields = TeamFields &
  MandatesFields &
  ApprovalsFields &
  SpendFields &
  MoneyFields &
  OfficeFields &
  ReceiptsFields &
  RunTokensFields &
  PresenceFields &
  SettlementFields &
  PasskeysFields &
  ChainAccountFields;

/** What writing one event takes. */
type Need =
  /** At least this role in this account (`*`: in the whole store). */
  | { role: TeamRole; account: string }
  /** Being the installation the event is about (its own registration, which it signs). */
  | { self: string }
  /** Nothing: the event decides nothing this build folds (a checkpoint of before, a repair note, a newer build's kind). */
  | 'anyone'
  /** Nobody: the event is refused whoever sealed it. */
  | Refusal;

/** What checking one transaction keeps as it goes through its events. */
interface Scope {
  s: AuthorityFields;
  signer: string;
  /** The root the roles are read with: the state's, or the signer when this is the store's first transaction. */
  root: string;
  /** What earlier events of the transaction made (a hold, an intent, a thread…), by `kind:id`: its account and data. */
  made: Map<string, { account: string; data: unknown }>;
  /** The decisions earlier in the transaction that its signer may make, by approval id. */
  decided: Map<string, { a: Approval; decision: 'approved' | 'rejected' }>;
  /** Intents already settled by this transaction (a payment is credited once). */
  settled: Set<string>;
  /** The transaction's events, in order. */
  events: readonly JournalEvent[];
  /** True once its first event, the human's assertion over the rest, verified. */
  asserted: boolean;
}

const refuse = (code: string, message: string): Refusal => ({ code, message });
const member = (account: string): Need => ({ role: 'member', account });
const approver = (account: string): Need => ({ role: 'approver', account });
const owner = (account: string): Need => ({ role: 'owner', account });
const same = (a: unknown, b: unknown): boolean => canonicalize(a) === canonicalize(b);

/** The account a mandate id is in (`account/name`); '' for anything that is not one. */
function accountOfMandate(id: unknown): string {
  if (typeof id !== 'string') return '';
  const account = id.split('/')[0] ?? '';
  return ACCOUNT_ID.test(account) ? account : '';
}

/** A need on the account of a mandate, or a refusal when the id is not a mandate's. */
function onMandate(id: unknown, need: (account: string) => Need): Need {
  const account = accountOfMandate(id);
  return account ? need(account) : refuse('malformed', `${JSON.stringify(id)} is not a mandate`);
}

/** The account of something an event refers to: in the state, or made earlier in the same transaction. */
function accountOf(x: Scope, kind: string, id: unknown, inState: (id: string) => string | undefined): string | undefined {
  if (typeof id !== 'string') return undefined;
  return inState(id) ?? x.made.get(`${kind}:${id}`)?.account;
}

/** A need on the account of what an event refers to; refused when it refers to nothing there is. */
function onRef(x: Scope, kind: string, id: unknown, inState: (id: string) => string | undefined, need: (account: string) => Need): Need {
  const account = accountOf(x, kind, id, inState);
  return account ? need(account) : refuse('unknown', `it refers to ${kind} ${JSON.stringify(id)}, which does not exist`);
}

/** The decision of this transaction on approval `id`, if its signer may make it and it went `decision`. */
function decision(x: Scope, id: unknown, decision: 'approved' | 'rejected'): Approval | undefined {
  const d = typeof id === 'string' ? x.decided.get(id) : undefined;
  return d?.decision === decision ? d.a : undefined;
}

const notDecided = (what: string): Refusal =>
  refuse('not_decided', `${what} is what a human's decision does, and no decision its signer may make is beside it`);

/**
 * The mandate a decided proposal in this transaction merges into `m`'s place, as the merge computes it at
 * `m`'s time; undefined if none does.
 */
function mergedAs(x: Scope, m: Mandate): boolean {
  for (const { a, decision } of x.decided.values()) {
    if (decision !== 'approved' || a.subject.kind !== 'proposal') continue;
    const p = x.s.office.proposals[a.subject.proposal];
    if (!p || p.target !== m.id || p.status !== 'open') continue;
    try {
      const expected = mergeEvents(x.s, p, Date.parse(m.updated_at)).find(
        (e) => e.type === 'mandate.created' || e.type === 'mandate.updated',
      );
      if (expected && same((expected.data as { mandate: Mandate }).mandate, m)) return true;
    } catch {
      // The merge would be refused (the file changed since): nothing it implies can be beside it.
    }
  }
  return false;
}

type Rule = (d: never, x: Scope, e: JournalEvent) => Need;
const rule = <D>(fn: (d: D, x: Scope, e: JournalEvent) => Need): Rule => fn as Rule;

/** What every kind of event takes to write. A kind not here decides nothing this build folds. */
const RULES: Record<string, Rule> = {
  // Money in and the catalog, rates and settings everyone decides by: owners.
  'account.funded': rule<{ account: unknown }>((d) =>
    typeof d.account === 'string' && ACCOUNT_ID.test(d.account) ? owner(d.account) : refuse('malformed', 'it funds no account'),
  ),
  'fx.set': rule(() => owner(WHOLE_STORE)),
  'agent.added': rule(() => owner(WHOLE_STORE)),
  'settings.updated': rule(() => owner(WHOLE_STORE)),
  'meter.limits.set': rule<{ mandate: unknown }>((d) => onMandate(d.mandate, owner)),
  'workspace.bound': rule<{ mandate: unknown }>((d) => onMandate(d.mandate, owner)),
  'team.member.set': rule<{ account: unknown; by: unknown }>((d, x) => {
    if (d.by !== x.signer) return refuse('mismatch', 'it names another installation than the one that sealed it as its author');
    return typeof d.account === 'string' && (d.account === WHOLE_STORE || ACCOUNT_ID.test(d.account))
      ? owner(d.account)
      : refuse('malformed', 'it names no account');
  }),
  'installation.registered': rule<{ key: unknown }>((d) =>
    typeof d.key === 'string' ? { self: d.key } : refuse('malformed', 'it names no key'),
  ),
  // A mandate: its account's owners, or a merged proposal exactly as the merge writes it.
  'mandate.created': rule<{ mandate: Mandate }>((d, x) => mandateChange(d, x)),
  'mandate.updated': rule<{ mandate: Mandate }>((d, x) => mandateChange(d, x)),

  // Asking and spending: members.
  'approval.requested': rule<{ approval: Approval }>((d) => {
    const a = d.approval as Partial<Approval> | undefined;
    if (!a || typeof a.id !== 'string') return refuse('malformed', 'it requests no approval');
    if (
      a.status !== 'pending' ||
      a.decided_at !== undefined ||
      a.channel !== undefined ||
      a.decided_by !== undefined ||
      a.used_by !== undefined ||
      a.released !== undefined
    ) {
      return refuse(
        'arrived_decided',
        `approval ${a.id} arrives already ${String(a.status)}: a request is only ever pending, and only a decision decides it`,
      );
    }
    return onMandate(a.mandate, member);
  }),
  'approval.released': rule<{ id: unknown }>((d, x) =>
    onRef(x, 'approval', d.id, (id) => accountOfMandate(x.s.approvals[id]?.mandate) || undefined, member),
  ),
  'approval.used': rule<{ id: unknown }>((d, x) =>
    onRef(x, 'approval', d.id, (id) => accountOfMandate(x.s.approvals[id]?.mandate) || undefined, member),
  ),
  'hold.placed': rule<{ account: unknown; mandate: unknown }>((d) =>
    d.account === accountOfMandate(d.mandate) && d.account !== ''
      ? member(d.account as string)
      : refuse('inconsistent', 'it holds money of one account for a mandate of another'),
  ),
  'hold.settled': rule<{ hold: unknown }>((d, x) => onRef(x, 'hold', d.hold, (id) => x.s.holds[id]?.account, member)),
  'hold.released': rule<{ hold: unknown }>((d, x) => onRef(x, 'hold', d.hold, (id) => x.s.holds[id]?.account, member)),
  'call.denied': rule<{ receipt: { mandate?: unknown } }>((d) => onMandate(d.receipt?.mandate, member)),
  'call.pending': rule<{ receipt: { mandate?: unknown } }>((d) => onMandate(d.receipt?.mandate, member)),
  'call.started': rule<{ receipt: { mandate?: unknown } }>((d) => onMandate(d.receipt?.mandate, member)),
  'call.finished': rule<{ receipt: unknown }>((d, x) =>
    onRef(x, 'receipt', d.receipt, (id) => accountOfMandate(x.s.open_receipts[id]?.mandate) || undefined, member),
  ),
  'call.settled': rule<{ receipt: unknown }>((d, x) =>
    onRef(x, 'receipt', d.receipt, (id) => accountOfMandate(x.s.open_receipts[id]?.mandate) || undefined, member),
  ),
  'tool.called': rule<{ mandate: unknown }>((d) => onMandate(d.mandate, member)),
  'tool.denied': rule<{ mandate: unknown }>((d) => onMandate(d.mandate, member)),
  'usage.metered': rule<{ mandate: unknown }>((d) => onMandate(d.mandate, member)),
  'memory.remembered': rule<{ mandate: unknown }>((d) => onMandate(d.mandate, member)),
  'token.created': rule<{ mandate: unknown }>((d) => onMandate(d.mandate, member)),
  'token.ended': rule<{ id: unknown }>((d, x) =>
    onRef(x, 'token', d.id, (id) => accountOfMandate(x.s.run_tokens[id]?.mandate) || undefined, member),
  ),
  'server.started': rule<{ mandate: unknown }>((d) => onMandate(d.mandate, member)),
  'server.stopped': rule<{ id: unknown }>((d, x) =>
    onRef(x, 'server', d.id, (id) => accountOfMandate(x.s.servers[id]?.mandate) || undefined, member),
  ),
  'purchase.started': rule<{ mandate: unknown }>((d) => onMandate(d.mandate, member)),
  'purchase.mandated': rule<{ mandate: unknown }>((d) => onMandate(d.mandate, member)),
  'purchase.completed': rule<{ mandate: unknown }>((d) => onMandate(d.mandate, member)),
  'purchase.failed': rule<{ mandate: unknown }>((d) => onMandate(d.mandate, member)),
  'intent.submitted': rule<{ mandate: unknown }>((d) => onMandate(d.mandate, member)),
  'intent.settled': rule<{ intent: unknown; credit?: { account?: unknown; amount?: unknown } }>((d, x) => intentSettled(d, x)),
  ...Object.fromEntries(
    ['intent.retried', 'intent.authorized', 'intent.denied', 'intent.parked', 'intent.failed', 'intent.rejected', 'intent.expired'].map(
      (t) => [
        t,
        rule<{ intent: unknown }>((d, x) =>
          onRef(x, 'intent', d.intent, (id) => accountOfMandate(x.s.intents[id]?.mandate) || undefined, member),
        ),
      ],
    ),
  ),
  // A signed payment's record, and what the chain showed of it: written by the process that signed or read it.
  'settlement.signed': rule<{ settlement: { mandate?: unknown; hold?: unknown } }>((d, x) => {
    const account = accountOfMandate(d.settlement?.mandate);
    const hold = accountOf(x, 'hold', d.settlement?.hold, (id) => x.s.holds[id]?.account);
    if (!account || (hold !== undefined && hold !== account))
      return refuse('inconsistent', 'it records a payment of one account against a hold of another');
    return member(account);
  }),
  ...Object.fromEntries(
    [
      'settlement.claimed',
      'settlement.landed',
      'settlement.expired',
      'settlement.flagged',
      'settlement.refund_expected',
      'settlement.cancel_sent',
    ].map((t) => [
      t,
      rule<{ settlement: unknown }>((d, x) =>
        onRef(x, 'settlement', d.settlement, (id) => accountOfMandate(x.s.settlements[id]?.mandate) || undefined, member),
      ),
    ]),
  ),
  // A refund credits the mandate back: once, for a landed deposit, never more than the deposit's share.
  'settlement.refunded': rule<{ settlement: unknown; value: unknown; credit?: { mandate?: unknown; account?: unknown; amount?: unknown } }>(
    (d, x) => refundCredit(d, x),
  ),
  'mail.sent': rule<{ thread: { office?: unknown; from_mandate?: unknown } }>((d) => {
    const office = d.thread?.office;
    if (typeof office !== 'string' || !ACCOUNT_ID.test(office)) return refuse('malformed', 'it sends mail in no office');
    if (d.thread.from_mandate !== null && accountOfMandate(d.thread.from_mandate) !== office)
      return refuse('inconsistent', 'it sends mail from a mandate of another office');
    return member(office);
  }),
  ...Object.fromEntries(
    ['mail.opened', 'mail.replied', 'mail.closed', 'mail.loop_guard'].map((t) => [
      t,
      rule<{ thread: unknown }>((d, x) => onRef(x, 'thread', d.thread, (id) => x.s.office.threads[id]?.office, member)),
    ]),
  ),
  'artifact.published': rule<{ artifact: { mandate?: unknown } }>((d) => onMandate(d.artifact?.mandate, member)),
  'forge.pr.opened': rule<{ pr: { mandate?: unknown } }>((d) => onMandate(d.pr?.mandate, member)),
  'policy.proposed': rule<{ proposal: { proposer?: { mandate?: unknown }; target?: unknown } }>((d) => {
    const account = accountOfMandate(d.proposal?.proposer?.mandate);
    if (!account || accountOfMandate(d.proposal.target) !== account)
      return refuse('inconsistent', "it proposes a personnel file in another office than its proposer's");
    return member(account);
  }),

  // Deciding, and what a decision does: approvers, beside the decision.
  'approval.decided': rule<{ id: unknown; by?: unknown }>((d, x) => {
    if (d.by !== undefined && d.by !== x.signer)
      return refuse('mismatch', 'it names another installation than the one that sealed it as the decider');
    return onRef(x, 'approval', d.id, (id) => accountOfMandate(x.s.approvals[id]?.mandate) || undefined, approver);
  }),
  'capability.window.closed': rule<{ approval: unknown }>((d, x) =>
    onRef(
      x,
      'window',
      d.approval,
      (id) => accountOfMandate(x.s.office.windows.find((w) => w.approval === id)?.mandate) || undefined,
      approver,
    ),
  ),
  'capability.window.opened': rule<{ approval: unknown; mandate: unknown; capability: unknown; opens_at: unknown; closes_at: unknown }>(
    (d, x) => {
      const a = decision(x, d.approval, 'approved');
      if (!a || a.subject.kind !== 'capability_window') return notDecided('opening a capability window');
      const span = Date.parse(String(d.closes_at)) - Date.parse(String(d.opens_at));
      if (d.mandate !== a.mandate || !same(d.capability, a.subject.capability) || span !== Math.round(a.subject.hours * 3600_000))
        return refuse('inconsistent', `it opens another window than approval ${a.id} allowed`);
      return onMandate(a.mandate, approver);
    },
  ),
  'budget.override.granted': rule<{ approval: unknown; mandate: unknown; amount: unknown; currency: unknown }>((d, x) => {
    const a = decision(x, d.approval, 'approved');
    if (!a || a.subject.kind !== 'budget_override') return notDecided("raising the day's limit");
    if (d.mandate !== a.mandate || d.amount !== a.subject.amount.amount || d.currency !== a.subject.amount.currency)
      return refuse('inconsistent', `it raises the limit by another amount than approval ${a.id} allowed`);
    return onMandate(a.mandate, approver);
  }),
  // What a human decided of a payment that did not land: only beside that decision, and only as decided.
  'settlement.decided': rule<{ settlement: unknown; approval: unknown; outcome: unknown }>((d, x) => {
    const a = decision(x, d.approval, d.outcome === 'released' ? 'approved' : 'rejected');
    if (
      !a ||
      a.subject.kind !== 'unlanded_payment' ||
      a.subject.settlement !== d.settlement ||
      (d.outcome !== 'released' && d.outcome !== 'kept')
    )
      return notDecided('deciding a payment that did not land');
    return onMandate(a.mandate, approver);
  }),
  // A human's release of a payment that did not land: only beside their approval of its card.
  'settlement.release_asked': rule<{ settlement: unknown; approval: unknown }>((d, x) => {
    const a = decision(x, d.approval, 'approved');
    if (!a || a.subject.kind !== 'unlanded_payment' || a.subject.settlement !== d.settlement)
      return notDecided('releasing a payment that did not land');
    return onMandate(a.mandate, approver);
  }),
  'policy.merged': rule<{ id: unknown; mandate: unknown }>((d, x) => {
    const a = [...x.decided.values()].find(
      (v) => v.decision === 'approved' && v.a.subject.kind === 'proposal' && v.a.subject.proposal === d.id,
    )?.a;
    if (!a || x.s.office.proposals[String(d.id)]?.target !== d.mandate) return notDecided('merging a proposal');
    return onMandate(a.mandate, approver);
  }),
  'policy.rejected': rule<{ id: unknown }>((d, x) => {
    const a = [...x.decided.values()].find(
      (v) => v.decision === 'rejected' && v.a.subject.kind === 'proposal' && v.a.subject.proposal === d.id,
    )?.a;
    return a ? onMandate(a.mandate, approver) : notDecided('rejecting a proposal');
  }),

  // The human's passkeys: an owner adds the first (after which only the passkeys decide, this included).
  'passkey.registered': rule<{ credential: unknown; proof: unknown }>((d, x) => {
    if (!isCredential(d.credential)) return refuse('malformed', 'it registers no P-256 passkey');
    if (x.s.passkeys.credentials[d.credential.id]) return refuse('conflict', `passkey ${d.credential.id} is registered already`);
    const held = verifyAssertion(d.credential, d.proof as AssertionJson, challengeOf(registrationSubject(d.credential)));
    if (held) return refuse(held.code, `the new passkey's own assertion does not verify: ${held.message}`);
    return owner(WHOLE_STORE);
  }),
  'passkey.removed': rule<{ id: unknown }>((d, x) => {
    const r = typeof d.id === 'string' ? x.s.passkeys.credentials[d.id] : undefined;
    if (!r || r.removed_at !== undefined) return refuse('unknown', `it removes passkey ${JSON.stringify(d.id)}, which is not registered`);
    const left = Object.values(x.s.passkeys.credentials).filter((c) => c.removed_at === undefined && c !== r);
    if (left.length === 0) return refuse('last_passkey', 'it removes the last passkey: the state would have no one left to decide');
    return owner(WHOLE_STORE);
  }),
  'human.asserted': rule<{ nonce: unknown; assertion: unknown }>((d, x, e) => humanAsserted(d, x, e)),

  // The passkey's account on a chain: an owner's decision, at the address its passkey and salt give.
  'account.created': rule<{ address: unknown; chain_id: unknown; credential: unknown; salt: unknown; factory: unknown }>((d, x) =>
    accountCreated(d, x),
  ),
  // A mandate's delegation and the floats drawn under it: records of what the chain judges, by its members.
  'mandate.delegated': rule<{ mandate: unknown; delegation: unknown; digest: unknown }>(
    (d, x) => delegationRefusal(x.s, d) ?? onMandate(d.mandate, member),
  ),
  'float.funded': rule<{ mandate: unknown }>((d) => onMandate(d.mandate, member)),
  // The account disabled one: the record only narrows what Holon draws under, and the chain said so first.
  'mandate.undelegated': rule<{ mandate: unknown }>((d) => onMandate(d.mandate, member)),
  // The passkey's signature of a payment as the account: only beside the approval of exactly that payment.
  'payment.authorized': rule<PaymentAuthorized>((d, x) => {
    const a = decision(x, d.approval, 'approved');
    return paymentAuthorizedRefusal(x.s, d, a) ?? onMandate(a?.mandate, approver);
  }),

  // Nothing to decide.
  checkpoint: rule(() => 'anyone'),
  'journal.repaired': rule(() => 'anyone'),
};

/**
 * The human's assertion, first in its transaction, over every event after it: from a passkey that
 * decides now, on a challenge never answered before. Its verdict holds for the whole transaction.
 */
function humanAsserted(d: { nonce: unknown; assertion: unknown }, x: Scope, e: JournalEvent): Need {
  if (x.events[0] !== e) return refuse('malformed', "the human's assertion comes first in its transaction");
  if (typeof d.nonce !== 'string' || d.nonce.length < 16 || d.nonce.length > 64) return refuse('malformed', 'it carries no nonce');
  const a = d.assertion as AssertionJson | undefined;
  const r = typeof a?.credential === 'string' ? x.s.passkeys.credentials[a.credential] : undefined;
  if (!a || !r || r.removed_at !== undefined) return refuse('unknown_credential', 'it is signed by no passkey this state has registered');
  const challenge = challengeOf(decisionSubject(d.nonce, x.events.slice(1)));
  if (x.s.passkeys.used[base64url(challenge)])
    return refuse('assertion_replayed', 'its assertion was answered already: a touch decides once');
  const bad = verifyAssertion(r.credential, a, challenge);
  if (bad) return bad;
  x.asserted = true;
  return 'anyone';
}

/**
 * The account a passkey of this state owns: that passkey registered (before, or earlier in the same
 * transaction), on a chain where Holon knows the framework, through the framework's factory. Whether the
 * address is that passkey's is the chain's to say (its deployment reads it there): the
 * fold stays free of the chain's encoders, which the editor's bundle need not carry.
 */
function accountCreated(d: { address: unknown; chain_id: unknown; credential: unknown; salt: unknown; factory: unknown }, x: Scope): Need {
  const chainId = typeof d.chain_id === 'number' ? d.chain_id : NaN;
  const framework = FRAMEWORKS[chainId];
  if (!framework) return refuse('malformed', `it names chain ${String(d.chain_id)}, where Holon knows no Delegation Framework`);
  if (accountOn(x.s, chainId)) return refuse('conflict', `the human has an account on chain ${chainId} already`);
  const id = typeof d.credential === 'string' ? d.credential : '';
  const r = x.s.passkeys.credentials[id];
  const registered = x.events.some(
    (e) => e.type === 'passkey.registered' && (e.data as { credential?: { id?: unknown } }).credential?.id === id,
  );
  if (!registered && (!r || r.removed_at !== undefined))
    return refuse('unknown_credential', 'it names no passkey this state has registered as the owner');
  if (typeof d.salt !== 'string' || !HEX32.test(d.salt)) return refuse('malformed', 'its salt is not 32 bytes of hex');
  if (typeof d.address !== 'string' || !ADDRESS.test(d.address)) return refuse('malformed', 'it names no address');
  if (typeof d.factory !== 'string' || d.factory.toLowerCase() !== framework.SimpleFactory.toLowerCase())
    return refuse('inconsistent', "it names another factory than the framework's");
  return owner(WHOLE_STORE);
}

const HEX32 = /^0x[0-9a-fA-F]{64}$/;
const ADDRESS = /^0x[0-9a-fA-F]{40}$/;

function mandateChange(d: { mandate: Mandate }, x: Scope): Need {
  const m = d.mandate as Partial<Mandate> | undefined;
  if (!m || typeof m.id !== 'string') return refuse('malformed', 'it names no mandate');
  const account = accountOfMandate(m.id);
  if (!account || m.account !== account) return refuse('inconsistent', `mandate ${m.id} is said to be in account ${String(m.account)}`);
  if (hasRole(x.s, account, x.signer, 'owner', x.root)) return owner(account);
  // Not an owner: only an approver merging a proposal, and only the mandate that merge writes.
  return mergedAs(x, d.mandate) ? approver(account) : owner(account);
}

function intentSettled(d: { intent: unknown; credit?: { account?: unknown; amount?: unknown } }, x: Scope): Need {
  const id = typeof d.intent === 'string' ? d.intent : '';
  const r =
    (x.s.intents[id] as { mandate: string; payee: string; amount: unknown; status: string } | undefined) ??
    (x.made.get(`intent:${id}`)?.data as { mandate: string; payee: string; amount: unknown; status?: string } | undefined);
  if (!r) return refuse('unknown', `it settles intent ${JSON.stringify(d.intent)}, which does not exist`);
  if (r.status === 'settled' || x.settled.has(id))
    return refuse('inconsistent', `intent ${id} is settled already: a payment is credited once`);
  // A Holon account is credited exactly what the intent pays; a chain account is paid on the chain, never in the journal.
  const account = r.payee.startsWith('acct:') ? r.payee.slice(5) : undefined;
  if (account ? d.credit?.account !== account || !same(d.credit?.amount, r.amount) : d.credit !== undefined) {
    return refuse('inconsistent', `it credits another account or amount than intent ${id} pays`);
  }
  x.settled.add(id);
  return onMandate(r.mandate, member);
}

function refundCredit(
  d: { settlement: unknown; value: unknown; credit?: { mandate?: unknown; account?: unknown; amount?: unknown } },
  x: Scope,
): Need {
  const r = typeof d.settlement === 'string' ? x.s.settlements[d.settlement] : undefined;
  if (!r) return refuse('unknown', `it refunds settlement ${JSON.stringify(d.settlement)}, which does not exist`);
  const expected = r.refund;
  if (r.status !== 'landed' || !expected || expected.transaction !== null || d.value !== expected.value)
    return refuse('inconsistent', `settlement ${r.id} has no refund of ${String(d.value)} waiting to be credited`);
  const share = (BigInt(refundHeldUnits(r.held.amount)) * BigInt(expected.value)) / BigInt(r.authorization.value || '1');
  const amount = d.credit?.amount as { amount?: unknown; currency?: unknown } | undefined;
  if (
    d.credit?.mandate !== r.mandate ||
    d.credit.account !== accountOfMandate(r.mandate) ||
    amount?.currency !== r.held.currency ||
    typeof amount.amount !== 'string' ||
    refundHeldUnits(amount.amount) !== share.toString()
  )
    return refuse('inconsistent', `it credits another mandate or amount than settlement ${r.id}'s refund`);
  return onMandate(r.mandate, member);
}

/** An amount's fixed-point units, as a string ('' for one that does not read). */
function refundHeldUnits(amount: string): string {
  try {
    return parseUnits(amount).toString();
  } catch {
    return '';
  }
}

/** What an event makes that later events of the same transaction may refer to: `kind:id`, its account and data. */
function made(e: JournalEvent): [string, { account: string; data: unknown }] | undefined {
  const d = e.data as Record<string, unknown>;
  const on = (kind: string, id: unknown, mandate: unknown, data: unknown = d): [string, { account: string; data: unknown }] | undefined =>
    typeof id === 'string' && accountOfMandate(mandate) ? [`${kind}:${id}`, { account: accountOfMandate(mandate), data }] : undefined;
  switch (e.type) {
    case 'hold.placed':
      return on('hold', d['hold'], d['mandate']);
    case 'approval.requested': {
      const a = d['approval'] as Approval | undefined;
      return on('approval', a?.id, a?.mandate, a);
    }
    case 'call.denied':
    case 'call.pending':
    case 'call.started': {
      const r = d['receipt'] as { id?: unknown; mandate?: unknown } | undefined;
      return on('receipt', r?.id, r?.mandate, r);
    }
    case 'intent.submitted':
      return on('intent', d['intent'], d['mandate']);
    case 'settlement.signed': {
      const r = d['settlement'] as { id?: unknown; mandate?: unknown } | undefined;
      return on('settlement', r?.id, r?.mandate, r);
    }
    case 'token.created':
      return on('token', d['id'], d['mandate']);
    case 'capability.window.opened':
      return on('window', d['approval'], d['mandate']);
    case 'mail.sent': {
      const t = d['thread'] as { id?: unknown; office?: unknown } | undefined;
      return typeof t?.id === 'string' && typeof t.office === 'string' ? [`thread:${t.id}`, { account: t.office, data: t }] : undefined;
    }
    default:
      return undefined;
  }
}

/** The words for a role a transaction needed and its signer does not hold. */
function lacking(need: { role: TeamRole; account: string }, signer: string): Refusal {
  const where = need.account === WHOLE_STORE ? 'the whole store' : `account ${need.account}`;
  const what = need.role === 'owner' ? 'an owner' : need.role === 'approver' ? 'an approver' : 'a member';
  return refuse(
    `not_${need.role === 'owner' ? 'an_owner' : need.role === 'approver' ? 'an_approver' : 'a_member'}`,
    `it needs ${what} of ${where}, and ${signer} is not one`,
  );
}

/**
 * Why the installation `signer` may not have written `events` as one transaction on state `s` (the state
 * before it), or undefined when every event is one it may write. The store's first transaction makes its
 * signer the root.
 */
export function admitTransaction(s: AuthorityFields, events: readonly JournalEvent[], signer: string): Refusal | undefined {
  const x: Scope = {
    s,
    signer,
    root: s.team.root ?? signer,
    made: new Map(),
    decided: new Map(),
    settled: new Set(),
    events,
    asserted: false,
  };
  // Once the human has a passkey, what only a human decides counts only with its assertion.
  const guarded = isGuarded(s);
  for (const e of events) {
    const check = RULES[e.type];
    let need: Need;
    try {
      need = check ? check(e.data as never, x, e) : 'anyone';
    } catch {
      // A field missing or of the wrong type in a hand-written row: nothing it says can be relied on.
      need = refuse('malformed', 'it is not an event of its kind');
    }
    let problem: Refusal | undefined;
    if (need === 'anyone') problem = undefined;
    else if ('code' in need) problem = need;
    else if ('self' in need)
      problem = need.self === signer ? undefined : refuse('mismatch', `it registers ${need.self}, which did not seal it`);
    else if (!hasRole(s, need.account, signer, need.role, x.root)) problem = lacking(need, signer);
    else if (guarded && need.role !== 'member' && !x.asserted)
      problem = refuse('not_asserted', "only the human's passkey decides this, and no assertion of one is beside it");
    if (problem) return { code: problem.code, message: `event ${e.seq} (${e.type}): ${problem.message}` };
    if (e.type === 'approval.decided') {
      const d = e.data as { id: string; decision: 'approved' | 'rejected' };
      const a = s.approvals[d.id];
      if (a && a.status === 'pending' && (d.decision === 'approved' || d.decision === 'rejected'))
        x.decided.set(d.id, { a, decision: d.decision });
    }
    const m = made(e);
    if (m) x.made.set(m[0], m[1]);
  }
  return undefined;
}

/** Records who sealed a transaction about to be folded: the first one makes its signer the store's root. */
export function sealedBy(s: AuthorityFields, signer: string): void {
  s.team.root ??= signer;
}
