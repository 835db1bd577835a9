/**
 * The personnel change diff panel: one HR proposal, its removals first, the personnel file side by side
 * (old | new), and Merge / Reject for the human. Everything in it was written by an agent (titles,
 * reasons, file contents): it is rendered as text, never as markup.
 */
import * as z from 'zod/mini';
import { Id, panelProtocol, ReadyCommand } from './messages.ts';

/** One line of the side-by-side diff. */
export const DiffRow = z.strictObject({
  kind: z.enum(['same', 'removed', 'added', 'changed']),
  left: z.nullable(z.string()),
  right: z.nullable(z.string()),
});
/** One line of the side-by-side diff. */
export type DiffRow = z.infer<typeof DiffRow>;

/** What the panel shows. */
export const ProposalState = z.strictObject({
  /** The proposal's id, or null when it is gone (the panel then says so). */
  id: z.nullable(z.string()),
  approval: z.nullable(z.string()),
  kind: z.enum(['hire', 'change']),
  title: z.string(),
  /** The agent whose file it is. */
  slug: z.string(),
  /** Who proposed it, and under which mandate. */
  proposer: z.string(),
  reason: z.string(),
  status: z.enum(['open', 'merged', 'rejected', 'expired', 'missing']),
  /** The capabilities it takes away: shown first, in red. */
  removals: z.array(z.string()),
  gains: z.array(z.string()),
  changes: z.array(z.string()),
  rows: z.array(DiffRow),
  /** False when the human turned the panel channel off, or the proposal is no longer open. */
  decidable: z.boolean(),
});
/** What the panel shows. */
export type ProposalState = z.infer<typeof ProposalState>;

/** View → host: the human clicked Merge. */
export const MergeCommand = z.strictObject({ type: z.literal('merge'), approval: Id });
/** View → host: the human clicked Reject. */
export const RejectProposalCommand = z.strictObject({ type: z.literal('reject'), approval: Id });

/** Everything the panel may send. */
export const ProposalCommand = z.discriminatedUnion('type', [ReadyCommand, MergeCommand, RejectProposalCommand]);
/** Everything the panel may send. */
export type ProposalCommand = z.infer<typeof ProposalCommand>;

/** The diff panel's protocol. */
export const proposalProtocol = panelProtocol(ProposalState, ProposalCommand);
