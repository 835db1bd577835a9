// The results the MCP App views read, as far as they read them: each tool's output as the server sends it
// (src/server/tools). An app may not import the server, so the shapes the views rely on are written here.

/** An amount as the server sends it: a decimal string and its currency (never a float). */
export interface MoneyJson {
  amount: string;
  currency: string;
}

/** One node of get_receipt's tree (its output schema, as far as the view reads it). */
export interface ReceiptNodeJson {
  receipt: string;
  agent: string | null;
  version: string | null;
  capability: string | null;
  status: string;
  worst_case: MoneyJson | null;
  cost: MoneyJson | null;
  total_cost: MoneyJson | null;
  reasons: string[];
  error: { code: string; message: string; charged: boolean } | null;
  approval: string | null;
  duration_ms: number | null;
  terms_hash?: string | null;
  /** The payment on a chain that paid this call, as Holon read the chain: where it landed, or why not. */
  settlement?: PaymentJson | null;
  children: ReceiptNodeJson[];
}

/** A payment on a chain, as every receipt carries it (the server's SettlementSchema, as far as the view reads it). */
export interface PaymentJson {
  id: string;
  status: string;
  /** Holon's own words: `landed in block N (network)`, or not landed and why. */
  summary: string;
  network: string;
  payee: string;
  amount: MoneyJson;
  /** The transaction Holon read the payment in, on the chain itself; null until it landed. */
  transaction: string | null;
  block: string | null;
  /** The transaction the payee named: as named when it has a transaction's form, else marked as the payee's data. */
  claimed_transaction: string | null;
}

/** A payment on a chain, as get_receipt returns it for a settlement id: the payment, and what it pays for. */
export interface SettlementJson extends PaymentJson {
  for: { kind: string; id: string; idempotency_key: string | null };
  held: MoneyJson;
}

/** get_receipt's result: a call's receipt tree, or a payment by its settlement id. */
export interface ReceiptJson {
  tree?: ReceiptNodeJson;
  total_cost?: MoneyJson | null;
  settlement?: SettlementJson;
}

/** The spend figures the server adds for the spend view (apps.ts, `holon/spend`). */
export interface SpendChartJson {
  mandate: string;
  currency: string;
  days: { day: string; spent: MoneyJson; permille: number }[];
  payees: { kind: string; id: string; spent: MoneyJson; permille: number }[];
  groups: { group: string; label: string; spent: MoneyJson }[];
  total: MoneyJson;
  per_day: MoneyJson | null;
  day_scale: MoneyJson;
  per_day_permille: number | null;
  budget: { total: MoneyJson; spent: MoneyJson; held: MoneyJson; remaining: MoneyJson };
  other_currencies: string[];
}

/** get_budget's or get_mandate's result, as far as the view reads them. */
export interface BudgetJson {
  mandate: string;
  currency?: string;
  limits?: { total: MoneyJson; per_day: MoneyJson | null; per_call: MoneyJson | null; approval_threshold: MoneyJson };
  caps?: { cap: string; limit: MoneyJson; drawn?: MoneyJson; remaining?: MoneyJson }[];
  approval_threshold?: MoneyJson;
  spent?: MoneyJson;
  held?: MoneyJson;
  remaining?: MoneyJson;
  spent_today?: MoneyJson;
}

/** One agent of search_agents. */
export interface AgentJson {
  agent: string;
  version: string;
  name: string;
  description: string;
  worst_case: MoneyJson | null;
  expected_cost_per_success: MoneyJson | null;
  success_rate: string | null;
  record_basis: string;
  mandate_decision: string;
  reasons: string[];
}

/** search_agents's result. */
export interface SearchJson {
  mandate: string;
  currency: string;
  agents: AgentJson[];
  excluded: { agent: string; version: string; reasons: string[] }[];
  total: { agents: number; excluded: number };
}

/** call_agent's result. */
export interface CallJson {
  receipt: string;
  status: string;
  agent: string | null;
  version: string | null;
  worst_case: MoneyJson | null;
  cost: MoneyJson | null;
  delegated_calls: number;
  approval: string | null;
  reasons: string[];
  error: { code: string; message: string } | null;
}

/** check_approval's result. */
export interface ApprovalJson {
  approval: string;
  status: 'pending' | 'approved' | 'rejected' | 'used' | 'expired';
  worst_case: MoneyJson;
  threshold: MoneyJson;
  expires_at: string;
  channel: string | null;
}
