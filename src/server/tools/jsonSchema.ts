/**
 * A tool's zod schemas as the JSON Schema its clients read, written the most portable way: what strict
 * function-calling consumers accept for inputs (no `$schema`, `additionalProperties: false` on objects with
 * known properties, every property required, the optional ones nullable and described as optional, since
 * the server takes them absent as well as null), nullable values as `anyOf` rather than `type` arrays, and
 * no empty `{}` schemas — so the MCP Inspector's portability report finds nothing.
 * Free-form objects (an agent's own input, a manifest's schemas) stay free-form: `{type: "object"}`.
 */
import { z } from 'zod';

type Json = Record<string, unknown>;

/**
 * What the description of an input property the tool does not need says: strict clients read every
 * property as required, so this is how the others learn they may leave it out.
 */
export const OPTIONAL = 'optional: pass null or leave it out';

/** Keywords that only annotate: a schema with nothing else accepts any value. */
const ANNOTATIONS = new Set(['description', 'title', 'default', 'examples', '$comment', 'deprecated', 'readOnly', 'writeOnly']);
/** Where subschemas live, by how they hold them. */
const CHILD_MAPS = ['properties', '$defs', 'definitions', 'patternProperties'];
const CHILD_LISTS = ['anyOf', 'oneOf', 'allOf', 'prefixItems'];
const CHILD_ONE = ['items', 'additionalProperties', 'not', 'contains', 'propertyNames'];

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const isNullable = (s: Json): boolean =>
  s['type'] === 'null' || (Array.isArray(s['anyOf']) && s['anyOf'].some((b) => isObject(b) && b['type'] === 'null'));

/** Any JSON value, spelled so that every client reads it as a constraint. */
function anyJson(annotations: Json): Json {
  return { ...annotations, anyOf: ['string', 'number', 'boolean', 'null', 'object', 'array'].map((type) => ({ type })) };
}

function portable(node: Json, input: boolean): Json {
  const s: Json = { ...node };
  delete s['$schema'];
  for (const k of CHILD_MAPS) {
    const m = s[k];
    if (isObject(m))
      s[k] = Object.fromEntries(Object.entries(m).map(([name, child]) => [name, isObject(child) ? portable(child, input) : child]));
  }
  for (const k of CHILD_LISTS) {
    const l = s[k];
    if (Array.isArray(l)) s[k] = l.map((child) => (isObject(child) ? portable(child, input) : child));
  }
  for (const k of CHILD_ONE) {
    const child = s[k];
    if (!isObject(child)) continue;
    // A free-form object's values: any JSON value, said as `true` (an empty `{}` reads as "no constraint").
    s[k] = k === 'additionalProperties' && Object.keys(child).length === 0 ? true : portable(child, input);
  }
  // The safe-integer bounds zod writes on every integer say nothing a client needs.
  if (s['minimum'] === Number.MIN_SAFE_INTEGER) delete s['minimum'];
  if (s['maximum'] === Number.MAX_SAFE_INTEGER) delete s['maximum'];
  // `type: ["string", "null"]` → `anyOf: [{type: "string", …constraints}, {type: "null"}]`.
  if (Array.isArray(s['type'])) {
    const types = s['type'] as string[];
    const annotations: Json = {};
    const constraints: Json = {};
    for (const [k, v] of Object.entries(s)) {
      if (k === 'type') continue;
      if (ANNOTATIONS.has(k)) annotations[k] = v;
      else constraints[k] = v;
    }
    return { ...annotations, anyOf: types.map((type) => (type === 'null' ? { type } : { type, ...constraints })) };
  }
  if (Object.keys(s).every((k) => ANNOTATIONS.has(k))) return anyJson(s);
  // A nullable value says what it is once, beside its anyOf, where every client shows it.
  if (Array.isArray(s['anyOf']) && s['description'] === undefined) {
    const described = s['anyOf'].filter((b): b is Json => isObject(b) && typeof b['description'] === 'string');
    if (described.length === 1 && described[0]) {
      const { description, ...rest } = described[0];
      s['description'] = description;
      s['anyOf'] = s['anyOf'].map((b) => (b === described[0] ? rest : b));
    }
  }
  if (input && s['type'] === 'object' && isObject(s['properties'])) {
    const props = s['properties'];
    const required = new Set(Array.isArray(s['required']) ? (s['required'] as string[]) : []);
    for (const [name, child] of Object.entries(props)) {
      if (required.has(name) || !isObject(child)) continue;
      // Listed as required below, for strict clients: its words tell every other client it may be left out.
      const { description, ...rest } = child;
      const said = typeof description === 'string' && description.length > 0 ? `${description} (${OPTIONAL})` : OPTIONAL;
      props[name] = { description: said, ...(isNullable(child) ? rest : { anyOf: [rest, { type: 'null' }] }) };
    }
    s['required'] = Object.keys(props);
    if (s['additionalProperties'] === undefined) s['additionalProperties'] = false;
  }
  return s;
}

/** The JSON Schema of a tool's input, for strict function-calling clients. */
export function inputJsonSchema(schema: z.ZodObject): Json & { type: 'object' } {
  return portable(z.toJSONSchema(schema, { io: 'input' }) as Json, true) as Json & { type: 'object' };
}

/** The JSON Schema of a tool's structured output. */
export function outputJsonSchema(schema: z.ZodObject): Json & { type: 'object' } {
  return portable(z.toJSONSchema(schema, { io: 'output' }) as Json, false) as Json & { type: 'object' };
}
