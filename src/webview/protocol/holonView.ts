/**
 * The Holon view (activity bar): the selected mandate and its budget, the approvals that wait for the
 * human, and the calls refused lately. Amounts arrive formatted (`Amount`): the view never does
 * arithmetic on money.
 */
import * as z from 'zod/mini';
import { APPROVAL_KINDS } from '../../shared/approvalKinds.ts';
import { Amount, Id, panelProtocol, ReadyCommand } from './messages.ts';

/** The account a mandate spends from: what it was funded with, what all its mandates spent and hold, what is left. */
export const AccountInfo = z.strictObject({
  id: z.string(),
  funded: Amount,
  spent: Amount,
  held: Amount,
  available: Amount,
  /** What the account's other mandates spent, in this mandate's currency. */
  otherMandatesSpent: Amount,
});
/** The account a mandate spends from. */
export type AccountInfo = z.infer<typeof AccountInfo>;

/** The selected mandate's budget, formatted. */
export const BudgetInfo = z.strictObject({
  mandate: z.string(),
  status: z.string(),
  total: Amount,
  /** What this mandate spent. */
  spent: Amount,
  held: Amount,
  /** What it may still hold: the least of its own room and its account's. */
  remaining: Amount,
  perDay: z.nullable(Amount),
  spentToday: Amount,
  perCall: z.nullable(Amount),
  threshold: Amount,
  account: AccountInfo,
  /** Which of the two bounds `remaining`: the mandate's budget, or what its account has left (others spent from it). */
  limitedBy: z.enum(['mandate', 'account']),
});
/** The selected mandate's budget, formatted. */
export type BudgetInfo = z.infer<typeof BudgetInfo>;

/** What an approval is about: one of the kinds the core declares (src/shared/approvalKinds.ts). */
export const ApprovalKind = z.enum(APPROVAL_KINDS);
/** What an approval is about. */
export type ApprovalKind = z.infer<typeof ApprovalKind>;

/** One kind-specific fact of an approval: a label and its value. */
export const ApprovalFact = z.strictObject({ label: z.string(), value: z.string() });
/** One kind-specific fact of an approval: a label and its value. */
export type ApprovalFact = z.infer<typeof ApprovalFact>;

/** An approval waiting for the human, of any kind, in one shape the view renders without knowing the kind. */
export const PendingApproval = z.strictObject({
  id: z.string(),
  kind: ApprovalKind,
  /** The kind in human words ("Agent call"), as the host words it everywhere. */
  kindLabel: z.string(),
  mandate: z.string(),
  /** One line a busy human can approve, e.g. "Call holon-labs/invoice-pipeline 2.1.0". */
  title: z.string(),
  /** Who or what it is about: the agent id, the payee, the merchant, the slug of the agent a proposal changes. */
  subject: z.string(),
  /** The amount at stake; null where no money is at stake. */
  amount: z.nullable(Amount),
  /** What the amount is called for this kind ("Worst case", "Amount"). */
  amountLabel: z.string(),
  /** The threshold the amount crossed; null where no money is at stake. */
  threshold: z.nullable(Amount),
  /** Kind-specific facts, in order. */
  facts: z.array(ApprovalFact),
  /** Longer text shown collapsed: an input preview, a reason, a diff. Null when none. */
  detail: z.nullable(z.string()),
  /** Lines that remove something (a proposal's lost capabilities): shown in red, with a "Removes N" pill, impossible to miss. */
  removals: z.array(z.string()),
  requestedAt: z.string(),
  expiresAt: z.string(),
  /** When it was asked for and when it expires, in the host's local time: the same words as the Approve command's dialog. */
  requested: z.string(),
  expires: z.string(),
  /** Who asked: the grantee of the mandate, e.g. "Copilot (sandbox)". */
  askedBy: z.string(),
  /** The machine the request came from; null on approvals recorded before machines were. */
  machine: z.nullable(z.string()),
  /** False when the account has a team and this installation is not one of its approvers: shown, not answerable here. */
  mayDecide: z.boolean(),
  /** Who may decide, in words, on a team's account ("You are an approver of account demo."); null when anyone at a channel may. */
  decider: z.nullable(z.string()),
});
/** An approval waiting for the human, of any kind. */
export type PendingApproval = z.infer<typeof PendingApproval>;

/** A call refused lately (by the mandate, a limit, the data rules…), with its reasons in words, newest first. */
export const RefusalRow = z.strictObject({
  /** The journal's sequence number of the refusal, as text. */
  id: z.string(),
  at: z.string(),
  /** `at` in the host's local time. */
  when: z.string(),
  mandate: z.string(),
  /** What was refused: the tool, and the agent a call named. */
  what: z.string(),
  reasons: z.array(z.string()),
});
/** A call refused lately. */
export type RefusalRow = z.infer<typeof RefusalRow>;

/** A payment the wallet signed on a chain, as Holon read it back: landed in block N, or not landed and why. */
export const ChainPaymentRow = z.strictObject({
  /** Its settlement id: what the agent's answer named it by (`holon receipts` and `get_receipt` take it). */
  id: z.string(),
  /** What it pays for, in Holon's words: `call rcpt_…`, `payment pay_…`, `intent int_… (idempotency key …)`, `purchase …`. */
  paysFor: z.string(),
  at: z.string(),
  mandate: z.string(),
  payee: z.string(),
  /** The amount, with its currency (the token's). */
  amount: z.string(),
  status: z.string(),
  /** `landed in block N …`, or `not landed…`. */
  summary: z.string().check(z.maxLength(1000)),
  transaction: z.nullable(z.string()),
});
/** A payment on a chain. */
export type ChainPaymentRow = z.infer<typeof ChainPaymentRow>;

/** New mail that woke a colleague (or was held back by the loop guard), newest first. */
export const MailRow = z.strictObject({
  id: z.string(),
  to: z.string(),
  from: z.string(),
  subject: z.string(),
  woke: z.boolean(),
  at: z.string(),
});
/** New mail that woke a colleague. */
export type MailRow = z.infer<typeof MailRow>;

/** A published artifact, newest first. */
export const ArtifactRow = z.strictObject({ id: z.string(), title: z.string(), kind: z.string(), author: z.string(), at: z.string() });
/** A published artifact. */
export type ArtifactRow = z.infer<typeof ArtifactRow>;

/**
 * Where the ledger is: this workspace's journal, or a team store (shown as `host/database`, never with
 * its credentials); whether it is still being opened; and why the chosen store cannot be used, when it cannot.
 */
export const StoreInfo = z.strictObject({
  kind: z.enum(['journal', 'team']),
  label: z.string().check(z.maxLength(300)),
  error: z.nullable(z.string().check(z.maxLength(2000))),
  /** True until the store has loaded: the view's other sections are then an empty state, not this workspace's. */
  loading: z.boolean(),
});
/** Where the ledger is, and why it cannot be used. */
export type StoreInfo = z.infer<typeof StoreInfo>;

/** A UTC day, `2026-11-29`. */
export const Day = z.string().check(z.regex(/^\d{4}-\d{2}-\d{2}$/));

/** A payee as one key (`agent:acme/table-extract`, `payee:eip155:…`, `merchant:…`), as the chart's bars name it. */
export const PayeeKey = z.string().check(z.minLength(3), z.maxLength(300), z.regex(/^(agent|payee|merchant):/));

/** One day of the spend chart: what was spent (settled) that UTC day, and its bar's height in thousandths of the axis. */
export const SpendDay = z.strictObject({
  day: Day,
  amount: Amount,
  /** Nothing was spent that day: no bar to open. */
  empty: z.boolean(),
  permille: z.number().check(z.minimum(0), z.maximum(1000)),
});
/** One day of the spend chart. */
export type SpendDay = z.infer<typeof SpendDay>;

/** One payee of the spend chart: what the last days' spends paid them, and its bar's length in thousandths of the most paid. */
export const SpendPayee = z.strictObject({
  key: PayeeKey,
  kind: z.enum(['agent', 'payee', 'merchant']),
  id: z.string(),
  amount: Amount,
  permille: z.number().check(z.minimum(0), z.maximum(1000)),
});
/** One payee of the spend chart. */
export type SpendPayee = z.infer<typeof SpendPayee>;

/**
 * The selected mandate's spend at a glance: a bar per day over the last 30 days (today last) against the
 * per-day limit, and a bar per payee. Computed on the host from the fold's day totals; the heights are
 * exact thousandths (the view never does arithmetic on money).
 */
export const SpendInfo = z.strictObject({
  days: z.array(SpendDay),
  payees: z.array(SpendPayee),
  /** What each kind of spend cost over the days, in words ("Agents (market)"). */
  groups: z.array(z.strictObject({ label: z.string(), amount: Amount })),
  total: Amount,
  perDay: z.nullable(Amount),
  /** Where the per-day limit's line is, in thousandths of the day axis; null without a limit. */
  perDayPermille: z.nullable(z.number().check(z.minimum(0), z.maximum(1000))),
  /** Currencies some spends were in that the chart does not add (no rate is applied in a chart). */
  otherCurrencies: z.array(z.string()),
});
/** The selected mandate's spend at a glance. */
export type SpendInfo = z.infer<typeof SpendInfo>;

/** What is set up yet, for the view's first steps when nothing is. */
export const SetupInfo = z.strictObject({
  /** Some account has money. */
  funded: z.boolean(),
  /** How many mandates there are. */
  mandates: z.number(),
});
/** What is set up yet. */
export type SetupInfo = z.infer<typeof SetupInfo>;

/** Everything the view shows. */
export const HolonViewState = z.strictObject({
  mandate: z.nullable(z.string()),
  budget: z.nullable(BudgetInfo),
  approvals: z.array(PendingApproval),
  /** False when the human turned the panel channel off: approvals are shown, not answerable here. */
  panelApprovals: z.boolean(),
  /** The address of this state's wallet, which signs every payment to a seller, or null when there is none. */
  wallet: z.nullable(z.string().check(z.maxLength(64))),
  /**
   * The human's mandate key (ES256): its thumbprint and public JWK, which merchants trust for the AP2
   * mandates Holon signs; null before the first mandate that can buy was saved.
   */
  mandateKey: z.optional(z.nullable(z.strictObject({ kid: z.string().check(z.maxLength(64)), jwk: z.string().check(z.maxLength(400)) }))),
  /**
   * What the wallet holds on the chain the human configured, read from its RPC (exact decimals, with their
   * currencies); null when there is no chain, and `error` when it could not be read.
   */
  holdings: z.nullable(
    z.strictObject({
      network: z.string().check(z.maxLength(40)),
      token: z.string().check(z.maxLength(80)),
      native: z.string().check(z.maxLength(80)),
      error: z.nullable(z.string().check(z.maxLength(500))),
    }),
  ),
  /** The selected mandate's spend over the last days; null without a mandate. */
  spend: z.nullable(SpendInfo),
  setup: SetupInfo,
  /** Calls refused lately: a denial is news the human would otherwise not hear of. */
  refusals: z.array(RefusalRow),
  /** The newest payments signed on a chain, and where Holon read each one (landed in block N, or not). */
  payments: z.array(ChainPaymentRow),
  /** The office: mail waiting to be read, and what the colleagues published. */
  mail: z.array(MailRow),
  artifacts: z.array(ArtifactRow),
  store: StoreInfo,
});
/** Everything the view shows. */
export type HolonViewState = z.infer<typeof HolonViewState>;

/** View → host: the human clicked Approve. */
export const ApproveCommand = z.strictObject({ type: z.literal('approve'), id: Id });
/** View → host: the human clicked Approve. */
export type ApproveCommand = z.infer<typeof ApproveCommand>;

/** View → host: the human clicked Reject. */
export const RejectCommand = z.strictObject({ type: z.literal('reject'), id: Id });
/** View → host: the human clicked Reject. */
export type RejectCommand = z.infer<typeof RejectCommand>;

/** View → host: open the personnel change diff of a proposal, by its approval's id. */
export const OpenProposalCommand = z.strictObject({ type: z.literal('openProposal'), id: Id });
/** View → host: open the personnel change diff of a proposal. */
export type OpenProposalCommand = z.infer<typeof OpenProposalCommand>;

/** View → host: open a published artifact in the editor. */
export const OpenArtifactCommand = z.strictObject({ type: z.literal('openArtifact'), id: Id });
/** View → host: open a published artifact in the editor. */
export type OpenArtifactCommand = z.infer<typeof OpenArtifactCommand>;

/**
 * View → host: open the receipts panel on the spends behind a bar: those of one day (`day`), or of one
 * payee over the chart's days (`payee`).
 */
export const OpenSpendCommand = z.strictObject({ type: z.literal('openSpend'), day: z.nullable(Day), payee: z.nullable(PayeeKey) });
/** View → host: open the receipts panel on the spends behind a bar. */
export type OpenSpendCommand = z.infer<typeof OpenSpendCommand>;

/** The commands the Holon view can run through `RunCommand`. */
export const RUN_COMMANDS = [
  'getStarted',
  'connectClaudeCode',
  'selectMandate',
  'fundAccount',
  'showReceipts',
  'createMandate',
  'editMandate',
  'createWallet',
  'createRunToken',
  'setStorePassword',
] as const;

/** View → host: run one of Holon's commands (select mandate, fund, receipts, create mandate). */
export const RunCommand = z.strictObject({ type: z.literal('run'), command: z.enum(RUN_COMMANDS) });
/** View → host: run one of Holon's commands. */
export type RunCommand = z.infer<typeof RunCommand>;

/** Everything the view may send. */
export const HolonViewCommand = z.discriminatedUnion('type', [
  ReadyCommand,
  ApproveCommand,
  RejectCommand,
  RunCommand,
  OpenProposalCommand,
  OpenArtifactCommand,
  OpenSpendCommand,
]);
/** Everything the view may send. */
export type HolonViewCommand = z.infer<typeof HolonViewCommand>;

/** The Holon view's protocol: its state, its state notification and its commands. */
export const holonViewProtocol = panelProtocol(HolonViewState, HolonViewCommand);
