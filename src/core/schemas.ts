/**
 * Shapes the human's inputs must have (manifests, mandates), checked before anything is appended.
 */
import { z } from 'zod';
import { parseUnits } from './money.ts';

/** A decimal amount string, e.g. "0.0276". */
export const Amount = z
  .string()
  .regex(/^\d{1,15}(\.\d{1,6})?$/, 'a decimal amount with at most 6 decimals, as a string')
  .describe('A decimal amount, as a string (never a float), e.g. "0.50"');

/** A currency code. */
export const CurrencyCode = z.string().regex(/^[A-Z]{3,5}$/, 'a currency code such as EUR');

/** An amount with its currency. */
export const MoneySchema = z.object({ amount: Amount, currency: CurrencyCode });

const Slug = z.string().regex(/^[a-z0-9][a-z0-9_-]{0,62}$/, 'lower-case letters, digits, - and _');

/** `account/name`. */
export const MandateId = z.string().regex(/^[a-z0-9][a-z0-9_-]{0,62}\/[a-z0-9][a-z0-9_-]{0,62}$/, 'a mandate id: account/name, lower case');

/** An agent id `publisher/name`. */
export const AgentId = z.string().regex(/^[a-z0-9][a-z0-9_.-]{0,62}\/[a-z0-9][a-z0-9_.-]{0,62}$/, 'an agent id: publisher/name');

const JsonObject = z.record(z.string(), z.unknown());

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
  examples: z.array(z.object({ input: z.unknown(), output: z.unknown().optional() })),
});

export const EndpointSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('stdio'), command: z.string().min(1), args: z.array(z.string()), cwd: z.string().optional(), tool: z.string().min(1) }),
  z.object({ type: z.literal('http'), url: z.string().url(), tool: z.string().min(1) }),
]);

export const CatalogSchema = z.object({
  agents: z.array(z.object({ manifest: ManifestSchema, endpoint: EndpointSchema })),
});

export const CapabilityGrantSchema = z.object({ name: z.string().min(1), params: z.record(z.string(), z.unknown()).optional() });

/** What a human gives to create or edit a mandate; everything but the id has a default. */
export const MandateInputSchema = z.object({
  grantee: z
    .object({ slug: Slug, name: z.string().min(1), role: z.string(), manager: z.string().nullable() })
    .optional(),
  currency: CurrencyCode.optional(),
  budget: z.object({ total: Amount, per_day: Amount.nullable(), per_call: Amount.nullable() }).partial().optional(),
  approval_threshold: Amount.optional(),
  toolsets: z.array(z.enum(['market', 'terms', 'money', 'commerce', 'memory', 'records', 'office'])).min(1).optional(),
  capabilities: z.array(CapabilityGrantSchema).optional(),
  data: z
    .object({ regions: z.array(z.string().min(1)).nullable(), retention_days: z.number().int().min(0).nullable(), training: z.boolean() })
    .partial()
    .optional(),
  expires_at: z.iso.datetime().nullable().optional(),
  status: z.enum(['active', 'suspended', 'revoked']).optional(),
});

export type MandateInput = z.infer<typeof MandateInputSchema>;

/** The first problem zod found, as one readable line. */
export function firstIssue(err: z.ZodError): string {
  const i = err.issues[0];
  if (!i) return 'invalid input';
  return `${i.path.length > 0 ? i.path.join('.') + ': ' : ''}${i.message}`;
}
