/**
 * Failures of the market toolset (seed 000): a tool error whose last line is the problem as JSON with a
 * stable `reason` (and, for a refusal, its denials beside their words). It carries no structuredContent,
 * since that must match the tool's output schema and a failure does not. (A denied call_agent is not a
 * failure: it returns its receipt, with `reasons`.)
 */
import type { CallToolResult } from '@modelcontextprotocol/server';
import type { HolonError } from '../../core/kernel/errors.ts';
import { denialsJson, denialTexts } from '../../core/kernel/words.ts';

/** A failure of a market tool. */
export function marketFailure(err: HolonError): CallToolResult {
  const problem = {
    error: {
      reason: err.reason,
      message: err.message,
      ...err.details,
      ...(err.denials.length > 0 ? { reasons: denialTexts(err.denials), denials: denialsJson(err.denials) } : {}),
    },
  };
  return { isError: true, content: [{ type: 'text', text: `${err.reason}: ${err.message}\n${JSON.stringify(problem)}` }] };
}
