import { Ajv } from 'ajv';
import type { InputValidator } from '../core/gateway.ts';

/**
 * Checks a call's input against the agent's JSON Schema before anything is held or sent, so a malformed
 * input costs nothing. Compiled schemas are cached per manifest object.
 */
export function createInputValidator(): InputValidator {
  const ajv = new Ajv({ strict: false, allErrors: false });
  const cache = new WeakMap<object, ReturnType<Ajv['compile']>>();
  return (schema, input) => {
    let validate = cache.get(schema);
    if (!validate) {
      try {
        validate = ajv.compile(schema);
      } catch {
        return [];
      }
      cache.set(schema, validate);
    }
    if (validate(input)) return [];
    return (validate.errors ?? []).map((e) => `${e.instancePath || '(input)'} ${e.message ?? 'is invalid'}`);
  };
}
