/**
 * Failures of the terms toolset (seed 002): `{decline: {code, detail}}`, the result's JSON both on
 * `structuredContent` and in its one text block. Holon's own refusals (the mandate, the budget, an
 * approval) decline with their code in the seed's kebab-case, and the sentence as the detail.
 */
import type { CallToolResult } from '@modelcontextprotocol/server';
import type { HolonError } from '../../core/kernel/errors.ts';
import { denialTexts } from '../../core/kernel/words.ts';

/** A decline as seed 002 returns it. */
export interface Decline {
  decline: { code: string; detail: string };
}

const kebab = (code: string): string => code.replace(/[_.]/g, '-');

/** Any expected failure as a decline: the first denial's code when it was refused, else the reason. */
export function declineOf(err: HolonError): Decline {
  const first = err.denials[0];
  if (first) return { decline: { code: kebab(first.code), detail: denialTexts(err.denials).join('; ') } };
  return { decline: { code: kebab(err.reason), detail: err.message } };
}

/** A failure of a terms tool. */
export function termsFailure(err: HolonError): CallToolResult {
  // Where a payment was sent before the decline (an agreement that may settle yet), the agent is told what moved.
  const moved = (err.details as { moved?: unknown }).moved;
  const d = { ...declineOf(err), ...(moved ? { moved } : {}) };
  return {
    isError: true,
    structuredContent: d as unknown as Record<string, unknown>,
    content: [{ type: 'text', text: JSON.stringify(d) }],
  };
}
