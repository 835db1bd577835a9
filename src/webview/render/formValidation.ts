// Client-side validation of a form field, from its JSON schema. The host validates again: this is for the
// human, so a mistake is shown next to the field before anything is sent.
import type { FieldSchema } from '../protocol/holonView.ts';

/** A field's typed value (undefined: left empty, not sent), or why it is refused. */
export type FieldResult = { ok: true; value: string | number | boolean | undefined } | { ok: false; message: string };

const NUMBER = /^[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?$/;
const EMAIL = /^[^\s@]+@[^\s@]+$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/i;

/** Validates one raw value (a control's text, or a checkbox's state) against its schema. */
export function validateField(schema: FieldSchema, raw: string | boolean, required: boolean): FieldResult {
  if (schema.type === 'boolean') return { ok: true, value: raw === true };
  const text = typeof raw === 'string' ? raw : '';
  if (text === '') return required ? { ok: false, message: 'Required.' } : { ok: true, value: undefined };
  return schema.type === 'string' ? validateString(schema, text) : validateNumber(schema, text);
}

function validateString(schema: Extract<FieldSchema, { type: 'string' }>, text: string): FieldResult {
  if (schema.enum) return schema.enum.includes(text) ? { ok: true, value: text } : { ok: false, message: 'Choose one of the options.' };
  // JSON Schema counts code points, not UTF-16 units.
  const length = [...text].length;
  if (schema.minLength !== undefined && length < schema.minLength) {
    return { ok: false, message: `At least ${schema.minLength} character${schema.minLength === 1 ? '' : 's'}.` };
  }
  if (schema.maxLength !== undefined && length > schema.maxLength) {
    return { ok: false, message: `At most ${schema.maxLength} character${schema.maxLength === 1 ? '' : 's'}.` };
  }
  if (schema.pattern !== undefined) {
    const pattern = compile(schema.pattern);
    // A pattern this browser cannot compile is left to the host's validation.
    if (pattern && !pattern.test(text)) return { ok: false, message: `Must match the pattern ${schema.pattern}` };
  }
  const formatError = checkFormat(schema.format, text);
  if (formatError) return { ok: false, message: formatError };
  return { ok: true, value: text };
}

function validateNumber(schema: Extract<FieldSchema, { type: 'number' | 'integer' }>, text: string): FieldResult {
  const trimmed = text.trim();
  const value = Number(trimmed);
  if (!NUMBER.test(trimmed) || !Number.isFinite(value)) return { ok: false, message: schema.type === 'integer' ? 'Enter a whole number.' : 'Enter a number.' };
  if (schema.type === 'integer' && !Number.isInteger(value)) return { ok: false, message: 'Enter a whole number.' };
  if (schema.minimum !== undefined && value < schema.minimum) return { ok: false, message: `At least ${schema.minimum}.` };
  if (schema.maximum !== undefined && value > schema.maximum) return { ok: false, message: `At most ${schema.maximum}.` };
  return { ok: true, value };
}

function compile(pattern: string): RegExp | null {
  for (const flags of ['u', '']) {
    try {
      return new RegExp(pattern, flags);
    } catch {
      // try the next flags
    }
  }
  return null;
}

function checkFormat(format: string | undefined, text: string): string | null {
  switch (format) {
    case 'email':
      return EMAIL.test(text) ? null : 'Enter an email address.';
    case 'uri':
      try {
        new URL(text);
        return null;
      } catch {
        return 'Enter a full URL (https://…).';
      }
    case 'date':
      return DATE.test(text) && !Number.isNaN(Date.parse(text)) ? null : 'Enter a date as YYYY-MM-DD.';
    case 'date-time':
      return DATE_TIME.test(text) && !Number.isNaN(Date.parse(text)) ? null : 'Enter a date and time as YYYY-MM-DDThh:mm:ssZ.';
    default:
      return null;
  }
}
