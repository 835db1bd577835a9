/** The mandate form's text ↔ the core's mandate input, with a problem per field. Pure. */
import { CAP } from '../core/kernel/capabilities.ts';
import { CURRENCY_CODE, ID_RULES, MANDATE_ID } from '../core/kernel/ids.ts';
import type { Mandate } from '../core/kernel/model.ts';
import { parseUnits } from '../core/kernel/amount.ts';
import { parseCapabilityLines } from '../shared/capabilityLines.ts';
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
  const caps = m.capabilities.find((c) => c.name === CAP.marketCall)?.params?.['capabilities'];
  return {
    id: m.id,
    grantee: m.grantee.name,
    currency: m.currency,
    total: m.budget.total,
    perDay: m.budget.per_day ?? '',
    perCall: m.budget.per_call ?? '',
    threshold: m.approval_threshold,
    toolsets: m.toolsets,
    // One per line, as the form reads it back (parseCapabilityLines).
    capabilities: Array.isArray(caps) ? caps.join('\n') : '*',
    regions: m.data.regions?.join(', ') ?? '',
    retentionDays: m.data.retention_days === null ? '' : String(m.data.retention_days),
    training: m.data.training,
    expiresAt: m.expires_at ?? '',
    status: m.status,
  };
}

/**
 * The core's input from the form, or the problems, one per field. Creating gives the whole mandate;
 * editing gives a patch of only the fields the human changed, so what the form does not show (other
 * grants, the grantee's role and manager) stays as it was.
 */
export function formToInput(
  v: MandateFormValues,
  mode: 'create' | 'edit',
  old?: Mandate,
): { input: Record<string, unknown>; errors: Errors } {
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
  // An empty field is "Required", never the format it failed: the human left it out, they did not misspell it.
  const required = (key: 'id' | 'grantee' | 'currency'): boolean => {
    if (v[key].trim() !== '') return true;
    errors[key] = 'Required';
    return false;
  };
  if (mode === 'create' && required('id') && !MANDATE_ID.test(v.id)) errors.id = ID_RULES.mandate;
  required('grantee');
  if (required('currency') && !CURRENCY_CODE.test(v.currency)) errors.currency = ID_RULES.currency;
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
  if (v.expiresAt.trim() !== '' && Number.isNaN(Date.parse(v.expiresAt)))
    errors.expiresAt = 'A date and time, ISO 8601 (2026-12-31T23:59:00Z)';
  // The webview checks the field with the same parser before it sends it; what it sent is checked again here.
  const caps = parseCapabilityLines(v.capabilities);
  if (!caps.ok) errors.capabilities = caps.problem;
  const marketCall = { name: CAP.marketCall, params: { capabilities: caps.ok ? caps.capabilities : [] } };
  const regions = list(v.regions).length > 0 ? list(v.regions) : null;
  const expires = v.expiresAt.trim() === '' || errors.expiresAt ? null : new Date(Date.parse(v.expiresAt)).toISOString();
  const name = v.grantee.trim();
  if (mode === 'create' || !old) {
    return {
      input: {
        currency: v.currency,
        budget: { total, per_day: perDay, per_call: perCall },
        approval_threshold: threshold,
        toolsets: v.toolsets,
        capabilities: [marketCall],
        data: { regions, retention_days: retention, training: v.training },
        expires_at: expires,
        grantee: { name },
      },
      errors,
    };
  }
  return { input: patchOf(v, old, { name, total, perDay, perCall, threshold, marketCall, regions, retention, expires }), errors };
}

/** What the form's fields read as, checked (see formToInput). */
interface ReadFields {
  name: string;
  total: string | null;
  perDay: string | null;
  perCall: string | null;
  threshold: string | null;
  marketCall: { name: string; params: { capabilities: string[] } };
  regions: string[] | null;
  retention: number | null;
  expires: string | null;
}

/** A patch of only the fields the human changed from `old`, so what the form does not show stays as it was. */
function patchOf(v: MandateFormValues, old: Mandate, f: ReadFields): Record<string, unknown> {
  const { name, total, perDay, perCall, threshold, marketCall, regions, retention, expires } = f;
  const was = formValues(old);
  const changed = (k: keyof MandateFormValues): boolean => JSON.stringify(v[k]) !== JSON.stringify(was[k]);
  const patch: Record<string, unknown> = {};
  const budget: Record<string, string | null> = {};
  const data: Record<string, unknown> = {};
  if (changed('grantee')) patch['grantee'] = { name };
  if (changed('currency')) patch['currency'] = v.currency;
  if (changed('total')) budget['total'] = total;
  if (changed('perDay')) budget['per_day'] = perDay;
  if (changed('perCall')) budget['per_call'] = perCall;
  if (changed('threshold')) patch['approval_threshold'] = threshold;
  if (changed('toolsets')) patch['toolsets'] = v.toolsets;
  if (changed('capabilities')) patch['grants'] = [marketCall];
  if (changed('regions')) data['regions'] = regions;
  if (changed('retentionDays')) data['retention_days'] = retention;
  if (changed('training')) data['training'] = v.training;
  if (changed('expiresAt')) patch['expires_at'] = expires;
  if (changed('status')) patch['status'] = v.status;
  if (Object.keys(budget).length > 0) patch['budget'] = budget;
  if (Object.keys(data).length > 0) patch['data'] = data;
  return patch;
}
