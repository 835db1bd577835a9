/**
 * The office tools and the capabilities each needs (seed 004), in one place: the server checks a call
 * against it, and `Connect Claude Code` writes the harness's allow and deny lists from it.
 */
import { CAP } from '../kernel/capabilities.ts';
import type { Mandate } from '../kernel/model.ts';

/** Tool → the capabilities any one of which lets an agent call it; null: every agent may. */
export const OFFICE_TOOL_CAPABILITIES = {
  whoami: null,
  mail_inbox: [CAP.mailRead],
  mail_read: [CAP.mailRead],
  mail_reply: [CAP.mailRead],
  mail_close: [CAP.mailRead],
  mail_send: [CAP.mailSend],
  colleagues_list: [CAP.officeRead],
  office_overview: [CAP.officeRead],
  approval_request: [CAP.approvalRequest],
  artifact_publish: [CAP.artifactPublish],
  artifact_list: [CAP.artifactPublish],
  forge_list_prs: [CAP.forgeRead, CAP.forgeWrite],
  forge_open_pr: [CAP.forgeWrite],
  hr_agent_personnel: [CAP.hrPropose],
  hr_propose_hire: [CAP.hrPropose],
  hr_propose_change: [CAP.hrPropose],
} as const satisfies Record<string, readonly string[] | null>;

export type OfficeTool = keyof typeof OFFICE_TOOL_CAPABILITIES;

/**
 * Claude Code's permission lists for a mandate's office tools on server `server`: the tools its own
 * capabilities allow, and the others denied, so the harness refuses them before they leave the sandbox.
 * A capability a human lends for a while (a window) is not in them: the office still checks every call.
 */
export function harnessPermissions(server: string, mandate: Mandate): { allow: string[]; deny: string[] } {
  const has = new Set(mandate.capabilities.map((c) => c.name));
  const allow: string[] = [];
  const deny: string[] = [];
  for (const [tool, caps] of Object.entries(OFFICE_TOOL_CAPABILITIES) as [OfficeTool, readonly string[] | null][]) {
    (caps === null || caps.some((c) => has.has(c)) ? allow : deny).push(`mcp__${server}__${tool}`);
  }
  return { allow, deny };
}
