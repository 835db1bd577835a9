/**
 * A snapshot of the format before sections (v4: the whole state as one JSON body, signed by this
 * installation) turned into today's without folding the journal again, and without parsing the state:
 * its body is checked against the hash its header signed, its top-level fields are found by a small
 * scanner (strings and escapes respected), grouped into their slices' sections, and signed anew.
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { installationPublicKey } from '../keys.ts';
import type { Section, Signer } from '../store.ts';
import type { MonolithicHeader, SectionBody } from './snapshot.ts';
import { MONOLITHIC_VERSION, monolithicSigned, readHeaderLine, SNAPSHOT_FILE, writeSnapshot } from './snapshot.ts';

/**
 * Rewrites the v4 snapshot beside the journal as sections, signed by `signer`, when it is this
 * installation's and its body is what it signed. A slice none of whose fields the old body holds gets
 * no section (it is folded from the journal when first used). Returns why it could not, or undefined.
 */
export function migrateMonolithic(dir: string, sections: Section[], signer: Signer): string | undefined {
  const file = path.join(dir, SNAPSHOT_FILE);
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch {
    return 'there is none';
  }
  try {
    const first = readHeaderLine(fd);
    let h: MonolithicHeader;
    try {
      h = JSON.parse(first?.toString('utf8') ?? '') as MonolithicHeader;
    } catch {
      return 'its header is unreadable';
    }
    const key = installationPublicKey(dir);
    if (h.version !== MONOLITHIC_VERSION || !key || h.key !== key || key !== signer.publicKey)
      return 'it is not a v4 snapshot of this installation';
    if (!monolithicSigned(h, key)) return 'its signature is invalid';
    const start = (first as Buffer).length + 1;
    const body = Buffer.allocUnsafe(fs.fstatSync(fd).size - start);
    for (let read = 0; read < body.length;) {
      const n = fs.readSync(fd, body, read, body.length - read, start + read);
      if (n === 0) return 'its body is cut short';
      read += n;
    }
    if (createHash('sha256').update(body).digest('hex') !== h.body_sha256) return 'its body is not the one it signed';
    const spans = topLevelSpans(body);
    if (!spans) return 'its body is not a JSON object';
    const out: SectionBody[] = [];
    for (const s of sections) {
      if (!s.fields.every((f) => spans.has(f))) continue;
      const parts = s.fields.map(
        (f, i) => `${i > 0 ? ',' : ''}${JSON.stringify(f)}:${body.toString('utf8', ...(spans.get(f) as [number, number]))}`,
      );
      out.push({ name: s.name, version: 1, text: `{${parts.join('')}}` });
    }
    writeSnapshot(dir, { offset: h.offset, seq: h.seq, hash: h.hash, legacy: h.legacy === true }, out, signer, h.index);
    return undefined;
  } finally {
    fs.closeSync(fd);
  }
}

const WS = new Set([0x20, 0x09, 0x0a, 0x0d]);

/** Each top-level field of the JSON object in `buf`: where its value starts and ends; undefined if it is not one. */
export function topLevelSpans(buf: Buffer): Map<string, [number, number]> | undefined {
  const out = new Map<string, [number, number]>();
  const ws = (i: number): number => {
    while (i < buf.length && WS.has(buf[i] as number)) i++;
    return i;
  };
  let i = ws(0);
  if (buf[i] !== 0x7b) return undefined;
  i = ws(i + 1);
  if (buf[i] === 0x7d) return out;
  for (;;) {
    if (buf[i] !== 0x22) return undefined;
    const keyEnd = stringEnd(buf, i);
    if (keyEnd < 0) return undefined;
    const key = JSON.parse(buf.toString('utf8', i, keyEnd)) as string;
    i = ws(keyEnd);
    if (buf[i] !== 0x3a) return undefined;
    const from = ws(i + 1);
    const to = valueEnd(buf, from);
    if (to < 0) return undefined;
    out.set(key, [from, to]);
    i = ws(to);
    if (buf[i] === 0x2c) i = ws(i + 1);
    else if (buf[i] === 0x7d) return out;
    else return undefined;
  }
}

/** Just after the string that starts (with its quote) at `i`, or -1. */
function stringEnd(buf: Buffer, i: number): number {
  for (let j = i + 1; j < buf.length; j++) {
    const c = buf[j];
    if (c === 0x5c) j++;
    else if (c === 0x22) return j + 1;
  }
  return -1;
}

/** Just after the JSON value that starts at `i`, or -1. */
function valueEnd(buf: Buffer, i: number): number {
  const c = buf[i];
  if (c === 0x22) return stringEnd(buf, i);
  if (c === 0x7b || c === 0x5b) {
    let depth = 0;
    for (let j = i; j < buf.length; j++) {
      const d = buf[j];
      if (d === 0x22) {
        j = stringEnd(buf, j) - 1;
        if (j < 0) return -1;
      } else if (d === 0x7b || d === 0x5b) depth++;
      else if (d === 0x7d || d === 0x5d) {
        depth--;
        if (depth === 0) return j + 1;
      }
    }
    return -1;
  }
  let j = i;
  while (j < buf.length && !WS.has(buf[j] as number) && buf[j] !== 0x2c && buf[j] !== 0x7d && buf[j] !== 0x5d) j++;
  return j > i ? j : -1;
}
