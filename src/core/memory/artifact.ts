/**
 * Assembled contexts: the records of a snapshot fitted into a budget (bytes, or tokens estimated as
 * ceil(UTF-8 bytes / 4)), rendered as one text, and signed with the installation's Ed25519 key over the
 * RFC 8785 form of everything else in the artifact. Verifying needs nothing but the artifact: its shape,
 * its signature, its arithmetic, and that the context is exactly the records it names (each block's
 * content hashes to the record's recorded hash) — one byte changed anywhere fails.
 */
import { canonicalize } from 'json-canonicalize';
import * as z from 'zod';
import { verifySignature } from '../store/keys.ts';
import type { Signer } from '../store/store.ts';
import type { MemoryStoreView, SnapshotQuery } from './memory.ts';
import { contentHash, readContents, snapshotEntries, snapshotTotal } from './memory.ts';
import type { MemoryVersion } from './slice.ts';

/** The type tag an assembled context is signed with. */
export const ARTIFACT_TYPE = 'holon.memory.context/v1';

/** How a budget is counted, said in every artifact. */
export const BUDGET_ESTIMATES = { bytes: 'utf8_bytes', tokens: 'ceil(utf8_bytes / 4)' } as const;
/** The largest budget an assembly may ask for, per unit (both are 256 KiB of context). */
export const BUDGET_MAX = { bytes: 256 * 1024, tokens: 64 * 1024 } as const;

/** A budget's unit. */
export type BudgetUnit = keyof typeof BUDGET_ESTIMATES;

/** The estimated tokens of `bytes` UTF-8 bytes. */
export const tokensOf = (bytes: number): number => Math.ceil(bytes / 4);

const Iso = z.string().min(1).max(40);
const Sha256 = z.string().regex(/^[0-9a-f]{64}$/);

/** A record as an artifact names it: which version, and the hash of the content its block carries. */
export const MemoryRefSchema = z.strictObject({
  id: z.string().min(1).max(100),
  key: z.string().min(1).max(1024),
  valid_from: Iso,
  valid_to: Iso.nullable(),
  recorded_at: Iso,
  system_seq: z.number().int().min(1),
  bytes: z.number().int().min(0),
  sha256: Sha256,
});
export type MemoryRef = z.infer<typeof MemoryRefSchema>;

/** A signed, assembled context, exactly as memory_assemble returns it and memory_verify checks it. */
export const MemoryArtifactSchema = z.strictObject({
  type: z.literal(ARTIFACT_TYPE),
  mandate: z.string().min(1).max(200),
  assembled_at: Iso,
  snapshot: z.strictObject({ system_seq: z.number().int().min(0), system_as_of: Iso, valid_as_of: Iso }),
  budget: z.strictObject({ unit: z.enum(['bytes', 'tokens']), limit: z.number().int().min(1), estimate: z.string() }),
  /** What the context takes, in the budget's unit. */
  used: z.number().int().min(0),
  used_bytes: z.number().int().min(0),
  records: z.array(MemoryRefSchema),
  /** How many records of the snapshot did not fit. */
  omitted: z.number().int().min(0),
  context: z.string(),
  alg: z.literal('Ed25519'),
  public_key: z.string(),
  signature: z.string(),
});
export type MemoryArtifact = z.infer<typeof MemoryArtifactSchema>;

const attr = (v: string): string => v.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
// Content is escaped so that nothing inside a block can close it or open another.
const escapeContent = (v: string): string => v.replace(/&/g, '&amp;').replace(/</g, '&lt;');
const unescapeContent = (v: string): string => v.replace(/&(lt|amp);/g, (_m, n: string) => (n === 'lt' ? '<' : '&'));

/** One record's block in a context. */
export function renderBlock(r: Pick<MemoryRef, 'id' | 'key' | 'valid_from' | 'valid_to' | 'recorded_at'>, content: string): string {
  return (
    `<memory key="${attr(r.key)}" id="${attr(r.id)}" valid_from="` +
    `${attr(r.valid_from)}" valid_to="${attr(r.valid_to ?? '')}" recorded_at="` +
    `${attr(r.recorded_at)}">\n${escapeContent(content)}\n</memory>`
  );
}

const SEPARATOR = '\n';
const BLOCK = /<memory [^\n]*>\n([^<]*)\n<\/memory>/g;

const refOf = (v: MemoryVersion): MemoryRef => ({
  id: v.id,
  key: v.key,
  valid_from: v.valid_from,
  valid_to: v.valid_to,
  recorded_at: v.recorded_at,
  system_seq: v.system_seq,
  bytes: v.bytes,
  sha256: v.sha256,
});

/** The message an artifact's signature is over: the RFC 8785 form of everything but the signature. */
export function artifactMessage(a: Omit<MemoryArtifact, 'signature'> & { signature?: unknown }): string {
  const { signature: _signature, ...unsigned } = a;
  return canonicalize(unsigned);
}

/** What an assembly fitted, and what it left out. */
export interface Assembly {
  artifact: MemoryArtifact;
  /** The first records that did not fit, in snapshot order (at most the `listed` asked for; the artifact counts them all). */
  omitted: Pick<MemoryRef, 'id' | 'key' | 'bytes'>[];
}

/** The fewest bytes any record's block takes: its markup with every field empty. */
const LEAST_BLOCK = Buffer.byteLength(renderBlock({ id: '', key: '', valid_from: '', valid_to: null, recorded_at: '' }, ''), 'utf8');

/**
 * Fits the records of a snapshot into `budget`, in the snapshot's order (the keys' order when it names
 * keys), skipping any that would not fit whole — a record is never cut — and signs the result. Once the
 * first `listed` records left out are named, a key whose every version weighs more than the room left
 * is passed over unread (it could not fit either): the artifact counts every record left out, from the
 * snapshot's total.
 */
export async function assembleContext(
  store: MemoryStoreView,
  signer: Signer,
  q: SnapshotQuery,
  budget: { unit: BudgetUnit; limit: number },
  now: number,
  listed = 100,
): Promise<Assembly> {
  const limitBytes = budget.unit === 'bytes' ? budget.limit : budget.limit * 4;
  const blocks: string[] = [];
  const included: MemoryRef[] = [];
  const omitted: Assembly['omitted'] = [];
  let usedBytes = 0;
  const sep = (): number => (blocks.length > 0 ? SEPARATOR.length : 0);
  const room = (): number => (omitted.length < listed ? Infinity : limitBytes - usedBytes - sep() - LEAST_BLOCK);
  for (const e of snapshotEntries(store.state, q, { offset: 0 }, room)) {
    // Its weight and the markup are a lower bound of its block (escaping only adds): a record that cannot
    // fit is never read, its version nor its content.
    if (usedBytes + sep() + LEAST_BLOCK + e.weight > limitBytes) {
      if (omitted.length < listed) omitted.push({ id: e.id, key: e.key, bytes: e.bytes });
      continue;
    }
    const v = e.version();
    const content = (await readContents(store, q.mandate, [v])).get(v.id) ?? '';
    const block = renderBlock(v, content);
    const size = usedBytes + sep() + Buffer.byteLength(block, 'utf8');
    if (size > limitBytes) {
      if (omitted.length < listed) omitted.push({ id: v.id, key: v.key, bytes: v.bytes });
      continue;
    }
    blocks.push(block);
    included.push(refOf(v));
    usedBytes = size;
  }
  const context = blocks.join(SEPARATOR);
  const unsigned: Omit<MemoryArtifact, 'signature'> = {
    type: ARTIFACT_TYPE,
    mandate: q.mandate,
    assembled_at: new Date(now).toISOString(),
    snapshot: { system_seq: q.system_seq, system_as_of: q.system_as_of, valid_as_of: q.valid_as_of },
    budget: { unit: budget.unit, limit: budget.limit, estimate: BUDGET_ESTIMATES[budget.unit] },
    used: budget.unit === 'bytes' ? usedBytes : tokensOf(usedBytes),
    used_bytes: usedBytes,
    records: included,
    // Every record of the snapshot is in the context or left out.
    omitted: snapshotTotal(store.state, q) - included.length,
    context,
    alg: 'Ed25519',
    public_key: signer.publicKey,
  };
  return { artifact: { ...unsigned, signature: signer.sign(artifactMessage(unsigned)) }, omitted };
}

/** What verifying an artifact found. */
export interface ArtifactCheck {
  valid: boolean;
  /** Why it is not valid (empty when it is). */
  reasons: string[];
  /** The artifact's own claims, when it is well formed enough to read them. */
  mandate: string | null;
  public_key: string | null;
  records: number | null;
}

/** Strict base64 of exactly `bytes` bytes: a string that does not re-encode to itself is refused. */
function strictBase64(text: string, bytes: number): boolean {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text)) return false;
  const b = Buffer.from(text, 'base64');
  return b.length === bytes && b.toString('base64') === text;
}

/**
 * Checks an artifact offline: well formed, signed by the key it names over exactly what it holds, its
 * arithmetic right (bytes, tokens, within the budget), and its context exactly the blocks of the records
 * it names, each content hashing to the recorded hash. A JSON text is parsed first.
 */
export function verifyArtifact(input: unknown): ArtifactCheck {
  let value = input;
  if (typeof input === 'string') {
    try {
      value = JSON.parse(input) as unknown;
    } catch {
      return { valid: false, reasons: ['the artifact is not JSON'], mandate: null, public_key: null, records: null };
    }
  }
  const parsed = MemoryArtifactSchema.safeParse(value);
  if (!parsed.success) {
    const reasons = parsed.error.issues
      .slice(0, 10)
      .map((i) => `malformed: ${i.path.length > 0 ? `${i.path.join('.')}: ` : ''}${i.message}`);
    return { valid: false, reasons, mandate: null, public_key: null, records: null };
  }
  const a = parsed.data;
  const reasons: string[] = [];
  if (!strictBase64(a.public_key, 32)) reasons.push('public_key is not a base64 Ed25519 public key (32 bytes)');
  if (!strictBase64(a.signature, 64)) reasons.push('signature is not a base64 Ed25519 signature (64 bytes)');
  if (reasons.length === 0 && !verifySignature(a.public_key, artifactMessage(a), a.signature))
    reasons.push('the signature does not match the artifact (it was changed after signing, or signed by another key)');
  const bytes = Buffer.byteLength(a.context, 'utf8');
  if (a.used_bytes !== bytes) reasons.push(`used_bytes says ${a.used_bytes}; the context is ${bytes} bytes`);
  if (a.budget.estimate !== BUDGET_ESTIMATES[a.budget.unit])
    reasons.push(`budget.estimate must be "${BUDGET_ESTIMATES[a.budget.unit]}" for ${a.budget.unit}`);
  const used = a.budget.unit === 'bytes' ? bytes : tokensOf(bytes);
  if (a.used !== used) reasons.push(`used says ${a.used} ${a.budget.unit}; the context is ${used}`);
  if (used > a.budget.limit) reasons.push(`the context (${used} ${a.budget.unit}) is over its budget (${a.budget.limit})`);
  const contents = [...a.context.matchAll(BLOCK)].map((m) => unescapeContent(m[1] ?? ''));
  if (contents.length !== a.records.length)
    reasons.push(`the context has ${contents.length} record blocks; the artifact names ${a.records.length} records`);
  else {
    a.records.forEach((r, i) => {
      const c = contents[i] ?? '';
      if (contentHash(c) !== r.sha256 || Buffer.byteLength(c, 'utf8') !== r.bytes)
        reasons.push(`record ${r.id}: the context's content does not hash to the recorded ${r.sha256}`);
    });
    if (a.records.map((r, i) => renderBlock(r, contents[i] ?? '')).join(SEPARATOR) !== a.context)
      reasons.push('the context is not exactly the blocks of the records it names');
  }
  return { valid: reasons.length === 0, reasons, mandate: a.mandate, public_key: a.public_key, records: a.records.length };
}
