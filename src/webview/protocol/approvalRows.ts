/**
 * An approval's lines as a person reads them, apart from the view's schemas: the extension's Approve dialog
 * shows the same lines, and importing them from here does not bring zod into the extension's bundle.
 */
import type { PendingApproval } from './holonView.ts';

/** One line of an approval as a person reads it: which line it is, its label and its words. */
export interface ApprovalRow {
  key: 'subject' | 'amount' | 'fact' | 'mandate' | 'askedBy' | 'requested' | 'expires';
  label: string;
  text: string;
}

/**
 * Between who asked and the machine they asked from, with the view's separator: "Buying agent · machine
 * vm". A grantee's name may end in "on …" (the default names did), so " on vm" would not read as a machine.
 */
export const MACHINE_SEPARATOR = ' · machine ';

/**
 * An approval's lines, in order, as both the view's card and the Approve command's dialog show them: one
 * presentation, whichever the human decides in (the same labels, the same names, the same local times).
 */
export function approvalRows(a: PendingApproval): ApprovalRow[] {
  const rows: ApprovalRow[] = [{ key: 'subject', label: 'About', text: a.subject }];
  if (a.amount !== null)
    rows.push({ key: 'amount', label: a.amountLabel, text: a.threshold ? `${a.amount.text} above ${a.threshold.text}` : a.amount.text });
  rows.push(...a.facts.map((f): ApprovalRow => ({ key: 'fact', label: f.label, text: f.value })));
  rows.push(
    { key: 'mandate', label: 'Mandate', text: a.mandate },
    { key: 'askedBy', label: 'Asked by', text: a.machine === null ? a.askedBy : `${a.askedBy}${MACHINE_SEPARATOR}${a.machine}` },
    { key: 'requested', label: 'Requested', text: a.requested },
    { key: 'expires', label: 'Expires', text: a.expires },
  );
  return rows;
}
