/**
 * The office's HR tools (seed 004): reading a personnel file, proposing a hire and proposing a change.
 * Nothing proposed takes effect until a human merges it.
 */
import * as z from 'zod';
import { colleagueOf } from '../../core/office/colleagues.ts';
import { OFFICE_TOOL_CAPABILITIES } from '../../core/office/tools.ts';
import { personnelOf } from '../../core/office/personnel.ts';
import { proposeChange, proposeHire, ROLE_TEMPLATES } from '../../core/office/proposals.ts';
import type { Proposal } from '../../core/office/slice.ts';
import { Slug } from '../../core/kernel/schemas.ts';
import { foreignFields } from '../../core/kernel/foreign.ts';
import type { ToolDef } from './toolDef.ts';
import { defineTool } from './toolDef.ts';
import { given, json, READ, WRITE } from './toolKit.ts';
import { Body, Capability, capabilityName, Colleague, NAMED, officeName, OneLine, personnelOut, personnelWords } from './officeKit.ts';

const UsdPerDay = z
  .union([z.string().regex(/^\d{1,9}(\.\d{1,2})?$/), z.number().positive().max(1e9)])
  .transform((v) => (typeof v === 'number' ? String(v) : v))
  .describe('Daily budget in USD, e.g. "5.00"');
const Manager = z.string().regex(/^(human:[^\s@]+@[^\s@]+|agent:[a-z0-9][a-z0-9_-]{0,62})$/, 'human:<email> or agent:<slug>');

// A personnel file is a colleague as colleagues_list shows them, and what they may do, run on and spend.
const PersonnelOut = Colleague.extend({
  capabilities: z.array(z.union([z.string(), z.record(z.string(), z.json())])),
  run: z.object({ model: z.string().nullable(), toolsets: z.array(z.string()) }),
  budget: z.object({ currency: z.string(), total: z.string(), per_day: z.string().nullable(), per_call: z.string().nullable() }),
});

const hrAgentPersonnel = defineTool({
  name: 'hr_agent_personnel',
  title: 'Read a personnel file',
  description:
    "An agent's current personnel file: role, department, manager, status, capabilities (personnel.yaml form), run settings and " +
    'budget. Read it before proposing a change. Its name, role, department, manager and model may be a ' +
    `colleague's words: they are ${NAMED}.`,
  toolset: 'office',
  capability: OFFICE_TOOL_CAPABILITIES.hr_agent_personnel,
  input: z.object({ slug: Slug }),
  output: PersonnelOut,
  annotations: READ,
  summary: (a) => ({ slug: a.slug }),
  handler: async (args, ctx) => {
    const p = personnelOf(colleagueOf(ctx.deps.store.state, args.slug, officeName(ctx.deps, ctx.mandate)));
    const run = foreignFields(p.slug, { ...p.run }, ['model']);
    return json(personnelOut(p.slug, { ...p, ...personnelWords(p), run } as z.infer<typeof PersonnelOut>));
  },
});

const ProposalOut = z.object({
  proposal: z.string(),
  approval: z.string(),
  title: z.string(),
  body: z.string(),
  gains: z.array(z.string()),
  loses: z.array(z.string()),
  changes: z.array(z.string()),
  warning: z.string().nullable(),
  status: z.literal('open'),
});
const proposalOut = (p: Proposal, warning: string | null): z.infer<typeof ProposalOut> => ({
  proposal: p.id,
  approval: p.approval,
  title: p.title,
  body: p.body,
  gains: p.change.gains,
  loses: p.change.losses,
  changes: p.change.changes,
  warning,
  status: 'open',
});

const hrProposeHire = defineTool({
  name: 'hr_propose_hire',
  title: 'Propose a hire',
  description:
    `Opens a proposal to hire a new agent: its personnel file from a role template (${Object.keys(ROLE_TEMPLATES).join(', ')}), with ` +
    `\`capabilities\` merged into the role's defaults by name. Nothing is provisioned until a human merges it.`,
  toolset: 'office',
  capability: OFFICE_TOOL_CAPABILITIES.hr_propose_hire,
  input: z.object({
    slug: Slug,
    name: OneLine(200),
    role: z.string().max(100).describe('A role template id'),
    reason: Body(5000).min(1),
    department: OneLine(200).nullish(),
    manager: Manager.describe('Default: your own manager').nullish(),
    capabilities: z.array(Capability).max(100).nullish(),
    budget_usd_per_day: UsdPerDay.nullish(),
    charter: Body(50_000).nullish(),
  }),
  output: ProposalOut,
  annotations: WRITE,
  summary: (a) => ({
    slug: a.slug,
    role: a.role,
    capabilities: (a.capabilities ?? []).map(capabilityName),
    charter_length: a.charter?.length ?? 0,
  }),
  handler: async (args, ctx) => {
    const p = await proposeHire(ctx.deps.store, ctx.deps.clock, ctx.mandate, given(args), ctx.deps.signer);
    return json(proposalOut(p, null));
  },
});

const hrProposeChange = defineTool({
  name: 'hr_propose_change',
  title: 'Propose a change to a personnel file',
  description:
    "Opens a proposal changing an agent's personnel file (yours included), with a plain-English list: gains, loses, and changes (old " +
    '→ new). Prefer add_capabilities / remove_capabilities; a full `capabilities` list that removes more than half of the current ones ' +
    'is refused unless confirm_removals is true. Removals are flagged in the title (⚠ removes N) and the result. Takes effect only ' +
    'when a human merges it.',
  toolset: 'office',
  capability: OFFICE_TOOL_CAPABILITIES.hr_propose_change,
  input: z.object({
    slug: Slug,
    reason: Body(5000).min(1),
    add_capabilities: z.array(Capability).max(100).nullish(),
    remove_capabilities: z.array(z.string().max(100)).max(100).nullish(),
    capabilities: z.array(Capability).max(100).nullish(),
    confirm_removals: z.boolean().nullish(),
    status: z.enum(['hired', 'suspended', 'retired']).nullish(),
    manager: Manager.nullish(),
    budget_usd_per_day: UsdPerDay.nullish(),
    model: z.string().max(200).nullish(),
  }),
  output: ProposalOut,
  annotations: WRITE,
  summary: (a) => ({
    slug: a.slug,
    add: (a.add_capabilities ?? []).map(capabilityName),
    remove: a.remove_capabilities ?? [],
    replace: a.capabilities ? a.capabilities.length : null,
    status: a.status ?? null,
  }),
  handler: async (args, ctx) => {
    const { proposal, warning } = await proposeChange(ctx.deps.store, ctx.deps.clock, ctx.mandate, given(args), ctx.deps.signer);
    return json(proposalOut(proposal, warning));
  },
});

/** The HR tools, in the order clients list them. */
export const HR_TOOLS: ToolDef[] = [hrAgentPersonnel, hrProposeHire, hrProposeChange];
