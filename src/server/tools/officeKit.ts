/**
 * What the office's tools share: the shapes of their words (one line, a body, a capability as in
 * personnel.yaml), a colleague as every tool shows one, and how another party's words are named.
 */
import * as z from 'zod';
import { mandateOf } from '../../core/accounts/mandates.ts';
import { FOREIGN_META_KEY, foreignFields } from '../../core/kernel/foreign.ts';
import type { ServerDeps } from '../serverDeps.ts';

/** A single line of at most `max` characters: subjects, names, titles. */
export const OneLine = (max: number) =>
  z
    .string()
    .min(1)
    .max(max)
    .regex(/^[^\r\n]*$/, 'one line');
/** Free text of at most `max` characters: mail bodies, charters, descriptions. */
export const Body = (max: number) => z.string().max(max);
export const Capability = z
  .union([
    z.string().max(100),
    z.record(
      z.string().max(100),
      z.union([z.array(z.string().max(200)).max(100), z.record(z.string().max(100), z.json()), z.null(), z.boolean()]),
    ),
  ])
  .describe('A capability as in personnel.yaml: a name ("mail.read") or {name: parameters}, e.g. {"forge.write": {"repos": ["site"]}}');

/** A personnel file's words: name, role, department, manager. */
export function personnelWords(g: { name: string; role: string; department?: string | null | undefined; manager: string | null }): {
  name: string;
  role: string;
  department: string | null;
  manager: string | null;
} {
  return { name: g.name, role: g.role, department: g.department ?? null, manager: g.manager };
}

/**
 * `out`, its personnel words noted as `slug`'s file's: a colleague may have written them in a hire a human
 * merged, so the agent is told whose they are.
 */
export function personnelOut<T extends { name: string; role: string; department: string | null; manager: string | null }>(
  slug: string,
  out: T,
): T {
  return foreignFields(slug, out, ['name', 'role', 'department', 'manager']);
}

/** Where the office's results say another party's text is named. */
export const NAMED = `named in the result's _meta "${FOREIGN_META_KEY}" with whoever wrote them`;

/** The name of a capability in personnel.yaml form, for a ledger summary. */
export const capabilityName = (c: string | Record<string, unknown>): string => (typeof c === 'string' ? c : (Object.keys(c)[0] ?? ''));

/** The office is the account its mandates draw on. */
export const officeName = (deps: ServerDeps, mandate: string): string => mandateOf(deps.store.state, mandate).account;

/** A colleague as colleagues_list shows them. */
export const Status = z.enum(['hired', 'suspended', 'retired']);
export const Colleague = z.object({
  slug: z.string(),
  name: z.string(),
  role: z.string(),
  department: z.string().nullable(),
  manager: z.string().nullable(),
  status: Status,
});
