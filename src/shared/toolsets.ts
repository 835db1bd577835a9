/**
 * The toolsets a mandate can offer, by name: the one list the core, the server and the mandate form read.
 * The server must build every toolset named here (its table does not compile otherwise), and the form
 * shows a checkbox for each, so a new toolset cannot be offered by the server and missing from the form.
 * It lives outside both folders because neither may import the other, and it imports nothing.
 */

/** The toolsets a mandate can offer, in the order the form lists them (DESIGN.md §5). */
export const TOOLSETS = ['market', 'terms', 'money', 'commerce', 'memory', 'records', 'office'] as const;

/** A toolset's name. */
export type ToolsetName = (typeof TOOLSETS)[number];
