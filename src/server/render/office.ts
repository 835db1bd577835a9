/**
 * Failures of the office toolset (seed 004). A call the grantee's capabilities do not cover is refused
 * with the seed's sentence, `Not permitted: needs capability X — use approval_request`, naming what a
 * human could grant for a while; any other failure says its reason and what went wrong.
 */
import type { CallToolResult } from '@modelcontextprotocol/server';
import type { Denial } from '../../core/kernel/denials.ts';
import type { HolonError } from '../../core/kernel/errors.ts';
import { denialTexts } from '../../core/kernel/words.ts';

/** The capability a denial says is missing, with what it would have to cover; undefined for other denials. */
function neededCapability(d: Denial): string | undefined {
  if (d.code === 'capability_missing') return d.params.capability;
  if (d.code === 'capability_scope') return `${d.params.capability} (for ${d.params.target})`;
  return undefined;
}

/** The text an office tool answers a failure with. */
export function officeFailureText(err: HolonError): string {
  const needed = err.denials.map(neededCapability).find((c) => c !== undefined);
  if (needed) return `Not permitted: needs capability ${needed} — use approval_request`;
  if (err.denials.length > 0) return `Not permitted: ${denialTexts(err.denials).join('; ')}`;
  return `${err.reason}: ${err.message}`;
}

/** A failure of an office tool. */
export function officeFailure(err: HolonError): CallToolResult {
  return { isError: true, content: [{ type: 'text', text: officeFailureText(err) }] };
}
