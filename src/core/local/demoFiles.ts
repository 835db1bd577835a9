import * as fs from 'node:fs';
import * as path from 'node:path';

/**
 * Copies the demo catalog's invoices into `<state>/files/examples/`, where the demo's
 * holon://files/examples/… handles resolve. Returns the folder.
 */
export function copyExampleFiles(examplesDir: string, stateDir: string): string {
  const from = path.join(examplesDir, 'files');
  const to = path.join(stateDir, 'files', 'examples');
  fs.mkdirSync(to, { recursive: true });
  for (const f of fs.readdirSync(from)) {
    if (f.endsWith('.pdf') || f.endsWith('.txt')) fs.copyFileSync(path.join(from, f), path.join(to, f));
  }
  return to;
}
