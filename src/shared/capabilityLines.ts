/**
 * The mandate form's Capabilities field: the agents' capabilities a mandate may hire, one per line. The
 * form checks it before it sends anything and the host checks it again before it saves (a webview's
 * message is untrusted input), with this one parser: what the help text promises is exactly what is read.
 * It lives outside both folders because the webview may not import the editor, and it imports nothing.
 */

/** A capability an agent offers (`extraction.table`), a family of them (`extraction.*`), or `*` for any. */
export const CAPABILITY_PATTERN = /^(\*|[a-z0-9_-]+(\.[a-z0-9_-]+)*(\.\*)?)$/;

/** What the field's help text says, the same in the form and in its errors. */
export const CAPABILITY_LINES_HELP = 'One per line, e.g. extraction.* or pipeline.invoices; * allows any agent.';

/** The capabilities the field names, or why it names none that can be saved. */
export type CapabilityLines = { ok: true; capabilities: string[] } | { ok: false; problem: string };

/** Reads the field: one capability per line, each trimmed, empty lines dropped, a repeated one kept once. */
export function parseCapabilityLines(text: string): CapabilityLines {
  const capabilities: string[] = [];
  const lines = text.split(/\r\n|\r|\n/);
  for (const [i, raw] of lines.entries()) {
    const line = raw.trim();
    if (line === '') continue;
    if (!CAPABILITY_PATTERN.test(line)) {
      const where = lines.length > 1 ? `Line ${i + 1}, "${line.slice(0, 80)}",` : `"${line.slice(0, 80)}"`;
      // Two names on one line are the likeliest slip (the form once read commas): say so.
      const why = /[\s,;]/.test(line) ? 'holds more than one capability: put each on its own line' : 'is not a capability';
      return { ok: false, problem: `${where} ${why}. ${CAPABILITY_LINES_HELP}` };
    }
    if (!capabilities.includes(line)) capabilities.push(line);
  }
  if (capabilities.length === 0) return { ok: false, problem: `Name at least one capability. ${CAPABILITY_LINES_HELP}` };
  return { ok: true, capabilities };
}
