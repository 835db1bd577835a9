/**
 * What every toolset module writes its tools with: the annotations, the JSON replies, the arguments a
 * client gave, and the free-form JSON members of an output schema. Written once, so that two toolsets
 * cannot describe the same kind of tool, or the same reply, in two ways.
 */
import type { ToolAnnotations } from '@modelcontextprotocol/server';
import * as z from 'zod';
import { foreignPaths, jsonText } from '../../core/kernel/foreign.ts';
import type { ToolReply } from './toolDef.ts';

/**
 * A tool that only reads Holon's own state (the ledger line a toolset writes for every call aside). The
 * MCP spec gives `destructiveHint` and `idempotentHint` a meaning only when `readOnlyHint` is false, so a
 * read says neither. A read that reaches outside (a seller, a forge, an agent card) spreads this with
 * `openWorldHint: true`.
 */
export const READ = { readOnlyHint: true, openWorldHint: false } as const satisfies ToolAnnotations;

/**
 * A tool that adds to Holon's own state and never overwrites or deletes: two calls do it twice. One whose
 * replay key makes a second call a no-op spreads this with `idempotentHint: true`; one that reaches
 * outside, with `openWorldHint: true`.
 */
export const WRITE = {
  readOnlyHint: false,
  destructiveHint: false,
  idempotentHint: false,
  openWorldHint: false,
} as const satisfies ToolAnnotations;

/**
 * A reply whose text is its output as indented JSON (the office, memory, money and records tools), another
 * party's text in it unable to spell an envelope (core/kernel/foreign.ts).
 */
export function json<O>(output: O): ToolReply<O> {
  return { output, text: jsonText(output, foreignPaths(output), 2) };
}

/** A reply whose text is its output as one line of JSON (the terms and commerce tools), as json writes it. */
export function jsonLine<O>(output: O): ToolReply<O> {
  return { output, text: jsonText(output, foreignPaths(output)) };
}

/** The arguments a client gave: a null (how a strict client leaves an optional one out) is not given. */
export type Given<T> = { [K in keyof T as null extends T[K] ? never : undefined extends T[K] ? never : K]: T[K] } & {
  [K in keyof T as null extends T[K] ? K : undefined extends T[K] ? K : never]?: Exclude<T[K], null | undefined>;
};

/** Drops the arguments a client left out as null, for a core function that takes them as absent. */
export function given<T extends object>(args: T): Given<T> {
  return Object.fromEntries(Object.entries(args).filter(([, v]) => v !== null && v !== undefined)) as Given<T>;
}

/**
 * Any JSON value, described to clients as `json` describes it (z.json() by default), and typed `unknown`
 * for the handler. The core types a free-form member — an event's data, a grant's parameters, a signed
 * payload — as `unknown` or as its own interface, and TypeScript takes neither for zod's JSONType; a reply
 * then needed a cast at every use. The pipeline still checks the value against this schema before the
 * tool replies (pipeline.ts), so nothing that is not JSON goes out.
 */
export function anyJson(json: z.ZodType = z.json()): z.ZodType<unknown> {
  return json;
}

/**
 * A JSON object, described to clients as a record of `json` values, and typed `object` for the handler,
 * so that the core's own interfaces (a hold, a receipt, a signed payment) are replied as they are. Like
 * anyJson, the value is checked against the schema before the tool replies.
 */
export function jsonObject(json: z.ZodType = z.json()): z.ZodType<object> {
  return z.record(z.string(), json) as z.ZodType<object>;
}

/** A capability a mandate grants, with its parameters as the human set them (get_budget, get_mandate, disclose). */
export const GrantSchema = z.object({ name: z.string(), params: z.record(z.string(), anyJson()).optional() });
