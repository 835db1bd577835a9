/**
 * The in-host suite's entry (`extensionTestsPath`, as @vscode/test-electron expects): mocha over
 * extension.test.js in this folder. Under @vscode/test-cli the same test file runs with the CLI's mocha.
 * Besides mocha's own report it prints one line per test prefixed with [holon-suite], with the failure
 * and its stack, so that the launcher can pick the results out of the workbench's console (code-server
 * forwards the extension host's console to the page).
 */
import * as path from 'node:path';
import Mocha from 'mocha';

const PREFIX = '[holon-suite]';

export async function run(): Promise<void> {
  const mocha = new Mocha({ ui: 'bdd', timeout: 120_000, color: false, reporter: 'spec' });
  mocha.addFile(path.join(__dirname, 'extension.test.js'));
  const failures = await new Promise<number>((resolve) => {
    const runner = mocha.run(resolve);
    runner.on('pass', (t) => console.log(`${PREFIX} ✔ ${t.fullTitle()} (${t.duration ?? 0} ms)`));
    runner.on('fail', (t, err: Error) => console.log(`${PREFIX} ✖ ${t.fullTitle()}\n${err.stack ?? err.message}`.replaceAll('\n', `\n${PREFIX}     `)));
    runner.on('end', () => console.log(`${PREFIX} ${runner.stats?.passes ?? 0} passing, ${runner.stats?.failures ?? 0} failing`));
  });
  if (failures > 0) throw new Error(`${failures} in-host test(s) failed`);
}
