/**
 * Shapes the human's inputs must have (manifests, mandates, patches), checked before anything is appended.
 */
import { isObjectMemberName } from './capabilities.ts';
import { AGENT_TIMEOUT, HTTP_METHODS, TOOLSETS } from './model.ts';
import { z } from 'zod';
import { ACCOUNT_ID, AGENT_ID, CURRENCY_CODE, ID_RULES, MANDATE_ID } from './ids.ts';
import { parseUnits } from './amount.ts';

/** A decimal amount string, e.g. "0.0276". */
export const Amount = z
  .string()
  .regex(/^\d{1,15}(\.\d{1,6})?$/, 'a decimal amount with at most 6 decimals, as a string')
  .describe('A decimal amount, as a string (never a float), e.g. "0.50"');

/** A currency code. */
export const CurrencyCode = z.string().regex(CURRENCY_CODE, ID_RULES.currency);

/** An amount with its currency. */
export const MoneySchema = z.object({ amount: Amount, currency: CurrencyCode });

/** An account, or the slug of a grantee. */
export const Slug = z.string().regex(ACCOUNT_ID, ID_RULES.account);

/** `account/name`. */
export const MandateId = z.string().regex(MANDATE_ID, ID_RULES.mandate);

/** An agent id `publisher/name`. */
export const AgentId = z.string().regex(AGENT_ID, ID_RULES.agent);

const JsonObject = z.record(z.string(), z.unknown());

/** The longest an agent may take for one call when its manifest says nothing, and the most it may ask for. */
export { AGENT_TIMEOUT };

export const ManifestSchema = z.object({
  id: AgentId,
  version: z.string().regex(/^\d+\.\d+\.\d+([-+][0-9A-Za-z.-]+)?$/, 'a semantic version'),
  name: z.string().min(1),
  description: z.string(),
  publisher: z.string().min(1),
  capabilities: z.array(z.string().regex(/^[a-z0-9_-]+(\.[a-z0-9_-]+)*$/)).min(1),
  input_schema: JsonObject,
  output_schema: JsonObject,
  errors: z.array(z.object({ code: z.string().min(1), description: z.string(), charged: z.boolean() })),
  price: z.object({
    currency: CurrencyCode,
    per_call: Amount,
    per_unit: z.object({ unit: z.string().min(1), amount: Amount, max_units: z.number().int().min(1).max(1_000_000) }).optional(),
  }),
  data_policy: z.object({ regions: z.array(z.string()), retention_days: z.number().int().min(0), training: z.boolean() }),
  models: z.array(z.string()),
  delegated_calls: z.array(z.object({ capability: z.string().min(1), max_count: z.number().int().min(1).max(100) })),
  record: z
    .object({
      runs: z.number().int().min(0),
      success_rate: Amount.refine((v) => parseUnits(v) <= 1_000_000n, 'a rate between 0 and 1'),
      mean_cost: Amount,
    })
    .optional(),
  /** How long one call may take before Holon gives up on it (and releases its hold). */
  timeout_seconds: z.number().int().min(1).max(AGENT_TIMEOUT.max_seconds).optional(),
  examples: z.array(z.object({ input: z.unknown(), output: z.unknown().optional() })),
});

// Who an agent is paid: the one address (CAIP-10, on an EVM chain) Holon signs its payments to.
const Payee = z.string().regex(/^eip155:[0-9]{1,12}:0x[0-9a-fA-F]{40}$/, 'must be a CAIP-10 EVM account, eip155:<chain id>:<address>');

export const EndpointSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('stdio'),
    command: z.string().min(1),
    args: z.array(z.string()),
    cwd: z.string().optional(),
    tool: z.string().min(1),
    payee: Payee.optional(),
  }),
  z.object({ type: z.literal('http'), url: z.string().url(), tool: z.string().min(1), payee: Payee.optional() }),
  z
    .object({
      type: z.literal('x402'),
      url: z.string().url(),
      payee: Payee.optional(),
      method: z.enum(HTTP_METHODS).optional(),
      input: z.enum(['json', 'query']).optional(),
    })
    .refine((e) => !(e.input === 'json' && (e.method === 'GET' || e.method === 'DELETE')), {
      message: 'a GET or DELETE carries no body: its input goes in the query ("input": "query")',
      path: ['input'],
    }),
]);

export const CatalogSchema = z.object({
  agents: z.array(z.object({ manifest: ManifestSchema, endpoint: EndpointSchema })),
});

const CapabilityName = z
  .string()
  .min(1)
  .max(100)
  .refine((n) => !isObjectMemberName(n), 'a name every object already carries (constructor, toString…) names no capability');

export const CapabilityGrantSchema = z.object({ name: CapabilityName, params: z.record(z.string(), z.unknown()).optional() }).strict();

/** Grants, each capability named once. */
const Grants = z
  .array(CapabilityGrantSchema)
  .refine((gs) => new Set(gs.map((g) => g.name)).size === gs.length, 'a capability is named twice');

const GranteeSchema = z.object({
  slug: Slug,
  name: z.string().min(1).max(200),
  role: z.string().max(200),
  manager: z.string().max(200).nullable(),
  department: z.string().max(200).nullable().optional(),
  model: z.string().max(200).nullable().optional(),
});
const BudgetSchema = z.object({ total: Amount, per_day: Amount.nullable(), per_call: Amount.nullable() });
const DataSchema = z.object({
  regions: z.array(z.string().min(1)).nullable(),
  retention_days: z.number().int().min(0).nullable(),
  training: z.boolean(),
});
const StatusSchema = z.enum(['active', 'suspended', 'revoked']);

/** What a human gives to create a mandate; everything but the id has a default. */
export const MandateInputSchema = z.object({
  grantee: GranteeSchema.partial().optional(),
  currency: CurrencyCode.optional(),
  budget: BudgetSchema.partial().optional(),
  approval_threshold: Amount.optional(),
  toolsets: z.array(z.enum(TOOLSETS)).min(1).optional(),
  capabilities: Grants.optional(),
  data: DataSchema.partial().optional(),
  expires_at: z.iso.datetime().nullable().optional(),
  status: StatusSchema.optional(),
});

export type MandateInput = z.infer<typeof MandateInputSchema>;

/**
 * A change to a mandate: only what it names changes. `grants` sets grants by name (keeping the others),
 * `revoke` removes grants by name, `capabilities` replaces the whole list.
 */
export const MandatePatchSchema = z
  .object({
    grantee: GranteeSchema.omit({ slug: true }).partial().strict().optional(),
    currency: CurrencyCode.optional(),
    budget: BudgetSchema.partial().strict().optional(),
    approval_threshold: Amount.optional(),
    toolsets: z.array(z.enum(TOOLSETS)).min(1).optional(),
    grants: Grants.optional(),
    revoke: z.array(z.string().min(1)).optional(),
    capabilities: Grants.optional(),
    data: DataSchema.partial().strict().optional(),
    expires_at: z.iso.datetime().nullable().optional(),
    status: StatusSchema.optional(),
  })
  .strict();

export type MandatePatch = z.infer<typeof MandatePatchSchema>;

/** The first problem zod found, as one readable line. */
export function firstIssue(err: z.ZodError): string {
  const i = err.issues[0];
  if (!i) return 'invalid input';
  return `${i.path.length > 0 ? i.path.join('.') + ': ' : ''}${i.message}`;
}
