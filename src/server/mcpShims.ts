/**
 * The MCP SDK's runtime seam (the `_shims` subpath its client and server import), as the package carries
 * it: dist/sdk.js resolves both packages' seams here (esbuild.mjs). The SDK's own seam brings a copy of
 * Ajv with its formats inside each package, twice the validator the package already has; this one checks
 * the same JSON Schemas (2020-12, the dialect of every schema Holon writes and MCP's default) with the
 * one Ajv dist/sdk.js carries.
 */
import process from 'node:process';
import { Ajv2020 } from 'ajv/dist/2020.js';

/** In Node a failed fetch is a network error, never CORS. */
export const CORS_IS_POSSIBLE = false;

type Validated = { valid: true; data: unknown; errorMessage: undefined } | { valid: false; data: undefined; errorMessage: string };

/** The validator the SDK uses when it is given none: tool output schemas (client), elicitation answers (server). */
export class DefaultJsonSchemaValidator {
  private ajvInstance: Ajv2020 | undefined;

  // Built on first use: a client or server that never checks a schema never pays for the engine.
  private get ajv(): Ajv2020 {
    return (this.ajvInstance ??= new Ajv2020({ strict: false, validateSchema: false, allErrors: true }));
  }

  getValidator(schema: Record<string, unknown>): (input: unknown) => Validated {
    const ajv = this.ajv;
    const id = typeof schema['$id'] === 'string' ? schema['$id'] : undefined;
    const validate = (id !== undefined ? ajv.getSchema(id) : undefined) ?? ajv.compile(schema);
    return (input) =>
      validate(input)
        ? { valid: true, data: input, errorMessage: undefined }
        : { valid: false, data: undefined, errorMessage: ajv.errorsText(validate.errors) };
  }
}

export { process };
