import { Ajv } from 'ajv';
import type { SchemaValidator } from '../core/market/gateway.ts';

/**
 * Checks values against agents' JSON Schemas: an input before anything is held or sent (so a malformed
 * input costs nothing), an output before it is charged. Compiling a schema costs about a millisecond,
 * so compiled schemas are kept per schema object and, for a copy of one (an outcome is a copy of the
 * state it was decided on), per schema text. A schema Ajv cannot compile checks nothing rather than
 * refusing every call.
 */
export function createSchemaValidator(): SchemaValidator {
  const ajv = new Ajv({ strict: false, allErrors: false });
  type Compiled = ReturnType<Ajv['compile']> | null;
  const byObject = new WeakMap<object, Compiled>();
  const byText = new Map<string, Compiled>();
  const compiled = (schema: object): Compiled => {
    const text = JSON.stringify(schema);
    let validate = byText.get(text);
    if (validate === undefined) {
      try {
        validate = ajv.compile(schema);
      } catch {
        validate = null;
      }
      // A catalog is bounded, but a long-running server may see many versions of it: keep the newest.
      if (byText.size >= 2000) byText.delete(byText.keys().next().value as string);
      byText.set(text, validate);
    }
    return validate;
  };
  return (schema, value) => {
    let validate = byObject.get(schema);
    if (validate === undefined) {
      validate = compiled(schema);
      byObject.set(schema, validate);
    }
    if (!validate || validate(value)) return [];
    return (validate.errors ?? []).map((e) => `${e.instancePath || '(value)'} ${e.message ?? 'is invalid'}`);
  };
}
