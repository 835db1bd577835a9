/**
 * The domain's wire types: what the journal stores and the tools return. Amounts are decimal strings
 * with their currency; the fold keeps running totals as bigint (see state.ts).
 */
import type { Denial } from './denials.ts';
import type { MoneyJson } from './amountJson.ts';
import type { ToolsetName } from '../../shared/toolsets.ts';

// The toolsets' names are declared once, where the mandate form reads them too.
export { TOOLSETS } from '../../shared/toolsets.ts';
export type { ToolsetName };

/** One capability a mandate grants, with its parameters, e.g. `market.call {capabilities: ["extraction.*"]}`. */
export interface CapabilityGrant {
  name: string;
  params?: Record<string, unknown> | undefined;
}

/** The person or agent a mandate is for — its personnel file (seed 004). */
export interface Grantee {
  slug: string;
  name: string;
  role: string;
  manager: string | null;
  /** Office fields of the personnel file; absent on mandates made before the office. */
  department?: string | null;
  model?: string | null;
}

/** Where an agent's data may go and what may be done with it. */
export interface DataRules {
  /** Regions data may be processed in; null allows any. */
  regions: string[] | null;
  /** The longest retention allowed, in days; null allows any. */
  retention_days: number | null;
  /** Whether the data may be used to train models. */
  training: boolean;
}

/** The one policy object: who may spend what, on what, until when. */
export interface Mandate {
  id: string;
  account: string;
  name: string;
  grantee: Grantee;
  currency: string;
  budget: { total: string; per_day: string | null; per_call: string | null };
  approval_threshold: string;
  toolsets: ToolsetName[];
  capabilities: CapabilityGrant[];
  data: DataRules;
  expires_at: string | null;
  status: 'active' | 'suspended' | 'revoked';
  created_at: string;
  updated_at: string;
}

/** How a call is priced: a fixed part, and optionally a part per unit the agent reports. */
export interface Price {
  currency: string;
  per_call: string;
  per_unit?: { unit: string; amount: string; max_units: number };
}

/** A failure an agent declares, and whether the caller pays for it. */
export interface DeclaredError {
  code: string;
  description: string;
  charged: boolean;
}

/** What an agent's publisher declares (seed 000's get_agent). */
export interface Manifest {
  id: string;
  version: string;
  name: string;
  description: string;
  publisher: string;
  capabilities: string[];
  input_schema: Record<string, unknown>;
  output_schema: Record<string, unknown>;
  errors: DeclaredError[];
  price: Price;
  data_policy: { regions: string[]; retention_days: number; training: boolean };
  models: string[];
  delegated_calls: { capability: string; max_count: number }[];
  record?: { runs: number; success_rate: string; mean_cost: string };
  /** How long one call may take before Holon gives up on it; absent means the default (schemas.ts). */
  timeout_seconds?: number;
  examples: { input: unknown; output?: unknown }[];
}

/**
 * How Holon reaches an agent: an MCP server over stdio or Streamable HTTP and the tool to call, or an HTTP
 * resource. Any of them may answer that it wants paying (an x402 402, or a paid MCP tool's `PaymentRequired`);
 * Holon pays only to `payee` (CAIP-10), the address the human added the agent with. One without a payee is
 * never paid (catalog entries from before payees were declared).
 */
export type Endpoint =
  | { type: 'stdio'; command: string; args: string[]; cwd?: string; tool: string; payee?: string }
  | { type: 'http'; url: string; tool: string; payee?: string }
  /**
   * An HTTP resource: the call's input becomes its request as `method` and `input` say (a JSON body, the
   * default, or the query string; a GET or DELETE takes only the query). A 402 is paid on seed 002's terms
   * where the seller advertises them, or as a plain x402 payment where it does not (and the mandate allows it).
   */
  | { type: 'x402'; url: string; payee?: string; method?: HttpMethod; input?: 'json' | 'query' };

/** The HTTP methods an x402 resource may be reached with. */
export const HTTP_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

/** A catalog entry. */
export interface AgentEntry {
  manifest: Manifest;
  endpoint: Endpoint;
  /** Where the manifest came from: the demo catalog, a registry, or a human's `agents add`. */
  source: string;
  added_at: string;
}

/** What Holon measured of an agent from its receipts, in the agent's price currency. */
export interface MeasuredRecord {
  runs: number;
  succeeded: number;
  cost_units: bigint;
  duration_ms: number;
}

/** `interrupted`: the process running the call died before it settled; its hold was released. */
export type ReceiptStatus = 'pending_approval' | 'running' | 'succeeded' | 'failed' | 'denied' | 'rejected' | 'interrupted';

/** The record of one call, allowed or denied; delegated calls are its children. */
export interface Receipt {
  id: string;
  parent: string | null;
  mandate: string;
  agent: string | null;
  version: string | null;
  capability: string | null;
  status: ReceiptStatus;
  worst_case: MoneyJson | null;
  /** What was charged for this call alone (children carry their own). */
  cost: MoneyJson | null;
  /** Why it was denied, rejected or waits for a human; rendered into words at each edge. */
  denials: Denial[];
  error: { code: string; message: string; charged: boolean } | null;
  approval: string | null;
  input_summary: string;
  output_summary: string | null;
  started_at: string;
  ended_at: string | null;
  duration_ms: number | null;
  children: string[];
  /** H of the seller's terms, when the call was paid through the terms toolset (an agent that answered 402). */
  terms_hash?: string | null;
}

/** How long an agent call may take (a manifest's timeout_seconds), in seconds. */
export const AGENT_TIMEOUT = { default_seconds: 120, max_seconds: 900 } as const;
