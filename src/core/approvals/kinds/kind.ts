/**
 * What every kind of approval declares about itself: what its approval is bound to, how long it lives, and
 * how a human is shown it. One file per kind beside this one; registry.ts collects them in one table.
 *
 * A declaration is pure — it imports no subject module (office, market, the spends and intents, …),
 * only amounts and their words, and lint holds it to that: approvals/model.ts reads it to bind and time
 * every approval, and the subjects ask for approvals through that module, so a declaration that imported
 * one would close a circle. What a decision does to its subject is the one part that must import
 * subjects; it is decisions/effects.ts, read only by the decision itself (decisions/decide.ts).
 */

/** How long an approval of a spend can be used after it was asked for. */
export const APPROVAL_TTL_MS = 30 * 60 * 1000;
/**
 * How long an office request (an action, a window, an override, a proposal) waits for a human: the agent
 * does not wait for it, and a person may answer tomorrow.
 */
export const OFFICE_APPROVAL_TTL_MS = 7 * 24 * 3600 * 1000;

/** What a kind's view may read of its approval besides the subject. */
export interface ApprovalFrame {
  mandate: string;
}

/** How a kind shows its subject; the amount and the threshold are added the same way for every kind. */
export interface KindView {
  /** One line a busy human can approve. */
  title: string;
  /** Who or what it is about. */
  subject: string;
  facts: { label: string; value: string }[];
  /** Longer text, shown collapsed: an input preview, a reason. */
  detail: string | null;
  /** What it takes away (a proposal's lost capabilities), for the human not to miss. */
  removals: string[];
}

/**
 * One kind of approval, for subjects of shape `S` (whose `kind` names it). Its members are methods so that
 * the registry can hold every kind's declaration in one table keyed by kind.
 */
export interface KindSpec<S extends { kind: string }> {
  kind: S['kind'];
  /** The kind in human words ("Agent call"), the same in the panel, the terminal and a form. */
  label: string;
  /** What the approval's amount is called when it is shown ("Worst case" for a call). */
  amountLabel: string;
  /** How long after it was asked for an approval can still be decided and used. */
  ttlMs: number;
  /**
   * The fields of the subject an approval is bound to (the mandate is bound for every kind): what must be
   * exactly the same when the approval is presented. Display-only parts (previews, titles) are not.
   */
  binds(subject: S): Record<string, string>;
  view(subject: S, approval: ApprovalFrame): KindView;
}
