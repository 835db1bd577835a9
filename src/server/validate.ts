import { Ajv } from 'ajv';
import type { SchemaValidator } from '../core/market/gateway.ts';

/**
 * Checks values against agents' JSON Schemas: an input before anything is held or sent (so a malformed
 * input costs nothing), an output before it is charged. Compiled schemas are cached per schema object.
 * A schema Ajv cannot compile checks nothing rather than refusing every call.
 */
export function createSchemaValidator(): SchemaValidator {
  const ajv = new Ajv({ strict: false, allErrors: false });
  const cache = new WeakMap<object, ReturnType<Ajv['compile']> | null>();
  return (schema, value) => {
    let validate = cache.get(schema);
    if (validate === undefined) {
      try {
        validate = ajv.compile(schema);
      } catch {
        validate = null;
      }
      cache.set(schema, validate);
    }
    if (!validate || validate(value)) return [];
    return (validate.errors ?? []).map((e) => `${e.instancePath || '(value)'} ${e.message ?? 'is invalid'}`);
  };
}
