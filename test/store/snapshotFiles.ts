/**
 * Reading and writing snapshot files as a test (or the bench) needs to: a snapshot's sections as text,
 * one signed again after an edit, and one written in the monolithic format of before (v4), to migrate.
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { IndexCover, Position, SnapshotHeader } from '../../src/core/store/file/snapshot.ts';
import { MONOLITHIC_VERSION, SNAPSHOT_FILE, writeSnapshot } from '../../src/core/store/file/snapshot.ts';
import { monolithicMessage } from '../../src/core/store/file/snapshot.ts';
import type { Reducer, Signer } from '../../src/core/store/store.ts';

/** The snapshot's header and its sections' text, by name. */
export function readSections(dir: string): { header: SnapshotHeader; sections: Map<string, string>; bodyAt: number } {
  const buf = fs.readFileSync(path.join(dir, SNAPSHOT_FILE));
  const nl = buf.indexOf(10);
  const header = JSON.parse(buf.toString('utf8', 0, nl)) as SnapshotHeader;
  const sections = new Map<string, string>();
  for (const s of header.sections) sections.set(s.name, buf.toString('utf8', nl + 1 + s.offset, nl + 1 + s.offset + s.length));
  return { header, sections, bodyAt: nl + 1 };
}

/** Writes `sections` as a snapshot at the header's position, signed by `signer`. */
export function resign(dir: string, header: SnapshotHeader, sections: Map<string, string>, signer: Signer): void {
  const pos: Position = { offset: header.offset, seq: header.seq, hash: header.hash, legacy: header.legacy };
  const list = [...sections].map(([name, text]) => ({ name, version: header.sections.find((s) => s.name === name)?.version ?? 1, text }));
  writeSnapshot(dir, pos, list, signer, header.index);
}

/** Writes `state` as a snapshot in the monolithic format of before (v4), signed by `signer`. */
export function writeMonolithic<S>(
  dir: string,
  reducer: Reducer<S>,
  state: S,
  pos: Position,
  index: IndexCover | null,
  signer: Signer,
): void {
  const body = reducer.serialize(state);
  const fields = Object.keys(reducer.initial() as object)
    .sort()
    .join(',');
  const unsigned = {
    version: MONOLITHIC_VERSION,
    offset: pos.offset,
    seq: pos.seq,
    hash: pos.hash,
    legacy: pos.legacy,
    fields,
    body_sha256: createHash('sha256').update(body).digest('hex'),
    index,
    key: signer.publicKey,
  };
  const header = { ...unsigned, sig: signer.sign(monolithicMessage(unsigned)) };
  fs.writeFileSync(path.join(dir, SNAPSHOT_FILE), `${JSON.stringify(header)}\n${body}`, { mode: 0o600 });
}
