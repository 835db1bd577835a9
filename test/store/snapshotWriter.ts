/**
 * The process a kill test kills: writes the snapshot of the state folder in its argument over and over
 * (`snapshot`), or writes it in the monolithic format before and migrates it (`migration`), printing
 * "writing" before each write.
 */
import { holonReducer } from '../../src/core/fold/state.ts';
import { migrateMonolithic } from '../../src/core/store/file/migrate.ts';
import { writeSnapshot } from '../../src/core/store/file/snapshot.ts';
import { loadOrCreateSigner } from '../../src/core/store/keys.ts';
import { readSections, writeMonolithic } from './snapshotFiles.ts';

const [dir, what] = process.argv.slice(2) as [string, 'snapshot' | 'migration'];
const signer = loadOrCreateSigner(dir);
const { header, sections } = readSections(dir);
const list = [...sections].map(([name, text]) => ({ name, version: 1, text }));
const state = holonReducer.deserialize(
  `{${list
    .map((s) => s.text.slice(1, -1))
    .filter((t) => t.length > 0)
    .join(',')}}`,
);
for (;;) {
  process.stdout.write('writing\n');
  if (what === 'snapshot') writeSnapshot(dir, header, list, signer, header.index);
  else {
    writeMonolithic(dir, holonReducer, state, header, header.index, signer);
    const failed = migrateMonolithic(dir, holonReducer.sections!.list, signer);
    if (failed) throw new Error(failed);
  }
}
