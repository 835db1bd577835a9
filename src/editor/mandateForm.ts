/** The mandate form's text ↔ the core's mandate input, with a problem per field. Pure. */
import type { Mandate } from '../core/model.ts';
import { parseUnits } from '../core/money.ts';
import type { MandateFormValues } from '../webview/protocol/mandateEditor.ts';

type Errors = Partial<Record<keyof MandateFormValues | 'form', string>>;

const list = (v: string): string[] =>
  v
    .split(',')
    .map((x) => x.trim())
    .filter((x) => x.length > 0);

/** The form's values for an existing mandate, or the defaults of a new one. */
export function formValues(m: Mandate | undefined): MandateFormValues {
  if (!m) {
    return {
      id: '',
      grantee: '',
      currency: 'EUR',
      total: '5.00',
      perDay: '',
      perCall: '',
      threshold: '0.50',
      toolsets: ['market'],
      capabilities: '*',
      regions: '',
      retentionDays: '',
      training: false,
      expiresAt: '',
      status: 'active',
    };
  }
  const caps = m.capabilities.find((c) => c.name === 'market.call')?.params?.['capabilities'];
  return {
    id: m.id,
    grantee: m.grantee.name,
    currency: m.currency,
    total: m.budget.total,
    perDay: m.budget.per_day ?? '',
    perCall: m.budget.per_call ?? '',
    threshold: m.approval_threshold,
    toolsets: m.toolsets,
    capabilities: Array.isArray(caps) ? caps.join(', ') : '*',
    regions: m.data.regions?.join(', ') ?? '',
    retentionDays: m.data.retention_days === null ? '' : String(m.data.retention_days),
    training: m.data.training,
    expiresAt: m.expires_at ?? '',
    status: m.status,
  };
}

/** The core's mandate input from the form, or the problems, one per field. */
export function formToInput(v: MandateFormValues, mode: 'create' | 'edit'): { input: Record<string, unknown>; errors: Errors } {
  const errors: Errors = {};
  const amount = (key: keyof MandateFormValues, text: string, optional: boolean): string | null => {
    if (text.trim() === '') {
      if (!optional) errors[key] = 'Required';
      return null;
    }
    try {
      if (parseUnits(text) <= 0n) errors[key] = 'Must be more than zero';
    } catch {
      errors[key] = 'A decimal amount with at most 6 decimals, e.g. 5.00';
    }
    return text.trim();
  };
  if (mode === 'create' && !/^[a-z0-9][a-z0-9_-]{0,62}\/[a-z0-9][a-z0-9_-]{0,62}$/.test(v.id)) errors.id = 'account/name, lower-case letters, digits, - and _';
  if (!/^[A-Z]{3,5}$/.test(v.currency)) errors.currency = 'A currency code such as EUR';
  const total = amount('total', v.total, false);
  const perDay = amount('perDay', v.perDay, true);
  const perCall = amount('perCall', v.perCall, true);
  const threshold = amount('threshold', v.threshold, false);
  if (v.toolsets.length === 0) errors.toolsets = 'Choose at least one toolset';
  let retention: number | null = null;
  if (v.retentionDays.trim() !== '') {
    retention = Number(v.retentionDays);
    if (!Number.isInteger(retention) || retention < 0) errors.retentionDays = 'A whole number of days';
  }
  if (v.expiresAt.trim() !== '' && Number.isNaN(Date.parse(v.expiresAt))) errors.expiresAt = 'A date and time, ISO 8601 (2026-12-31T23:59:00Z)';
  const caps = list(v.capabilities);
  const slug = v.id.split('/')[1] ?? 'agent';
  const input: Record<string, unknown> = {
    currency: v.currency,
    budget: { total, per_day: perDay, per_call: perCall },
    approval_threshold: threshold,
    toolsets: v.toolsets,
    capabilities: [{ name: 'market.call', params: { capabilities: caps.length > 0 ? caps : ['*'] } }],
    data: { regions: list(v.regions).length > 0 ? list(v.regions) : null, retention_days: retention, training: v.training },
    expires_at: v.expiresAt.trim() === '' || errors.expiresAt ? null : new Date(Date.parse(v.expiresAt)).toISOString(),
    grantee: { slug, name: v.grantee.trim() || `Agent on ${v.id}`, role: 'coding agent', manager: null },
  };
  if (mode === 'edit') input['status'] = v.status;
  return { input, errors };
}
