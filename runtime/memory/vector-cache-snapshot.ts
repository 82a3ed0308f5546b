import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { HnswVectorIndex } from '../core/vectors/hnsw-vector-index.js';
import type { MemoryRecord } from './memory-records.js';
import { VectorCache } from './vector-cache.js';

/**
 * A process's copy of the long-term memories saved beside it, so a restart
 * is ready in about a second instead of reloading every record from Redis
 * and rebuilding the HNSW index (issue 23). Files in `dir`, per store name:
 *
 * - `<name>.json`: the header (format, the store's `epoch`, `ver` and `last`
 *   change-stream id the copy is at, model, dimensions, slots) and the
 *   random id of the data files it belongs to, written last (by rename);
 * - `<name>-<id>.records.json` (records and their owners by slot), `.vec` (float32 rows by slot), `.flags`
 *   (1 for the slots in the index), `.hnsw` (USearch's own file).
 *
 * A snapshot is only a head start: the caller checks its `epoch`/`ver`
 * against Redis and applies the change stream from `last` (or reloads
 * everything when that history is gone), so a stale snapshot costs time,
 * never correctness. Records are read with `JSON.parse` alone (no schema
 * check per record: this file is written by this code; a damaged file
 * fails to parse, or to match its header's sizes, and is ignored).
 */

export interface SnapshotPosition {
  epoch: string;
  ver: number;
  last: string | undefined;
  model: string;
}

const HeaderSchema = z.object({
  format: z.literal(2),
  id: z.string().regex(/^[0-9a-f-]{36}$/),
  epoch: z.string(),
  ver: z.number().int().min(0),
  last: z.string().nullable(),
  model: z.string(),
  dim: z.number().int().positive(),
  slots: z.number().int().min(0),
  hnsw: z.boolean(),
});

const files = (dir: string, name: string, id: string) => ({
  records: join(dir, `${name}-${id}.records.json`),
  vec: join(dir, `${name}-${id}.vec`),
  flags: join(dir, `${name}-${id}.flags`),
  hnsw: join(dir, `${name}-${id}.hnsw`),
});

/** A file-name-safe name for a store (its key prefix). */
export function snapshotName(keyPrefix: string): string {
  return `memory-${Buffer.from(keyPrefix).toString('base64url') || 'default'}`;
}

/**
 * Writes `cache` at `position` (synchronously: the copy must not change
 * while it is written). Answers false when the cache is empty (nothing to save).
 */
export function writeSnapshot(options: { dir: string; name: string; cache: VectorCache; position: SnapshotPosition }): boolean {
  const state = options.cache.exportState();
  if (!state) return false;
  const { dir, name, position } = options;
  mkdirSync(dir, { recursive: true });
  const id = randomUUID();
  const paths = files(dir, name, id);
  const previous = readHeader(dir, name)?.id;
  writeFileSync(paths.records, JSON.stringify({ records: state.records.map((r) => r ?? null), owners: state.owners.map((o) => o ?? null) }));
  writeFileSync(paths.vec, new Uint8Array(state.vectors.buffer, state.vectors.byteOffset, state.vectors.byteLength));
  writeFileSync(paths.flags, state.indexed);
  if (state.index) state.index.save(paths.hnsw);
  const header: z.infer<typeof HeaderSchema> = {
    format: 2,
    id,
    epoch: position.epoch,
    ver: position.ver,
    last: position.last ?? null,
    model: position.model,
    dim: state.dim,
    slots: state.records.length,
    hnsw: state.index !== undefined,
  };
  const temp = join(dir, `${name}.${id}.tmp`);
  writeFileSync(temp, JSON.stringify(header));
  renameSync(temp, join(dir, `${name}.json`));
  // The files of the snapshot this one replaced (another process's, if it wrote last, are its to remove).
  if (previous !== undefined && previous !== id) removeFiles(dir, name, previous);
  return true;
}

/** The snapshot of `name` for `model`, or undefined when there is none or it is unreadable (the reason in `why`). */
export function readSnapshot(options: { dir: string; name: string; model: string }): { cache: VectorCache; position: SnapshotPosition } | { why: string } {
  const { dir, name } = options;
  const header = readHeader(dir, name);
  if (!header) return { why: 'no snapshot' };
  if (header.model !== options.model) return { why: `the snapshot holds vectors of model "${header.model}"` };
  const paths = files(dir, name, header.id);
  try {
    const { records, owners } = JSON.parse(readFileSync(paths.records, 'utf8')) as { records: Array<MemoryRecord | null>; owners: Array<string | null> };
    if (!Array.isArray(records) || records.length !== header.slots || !Array.isArray(owners) || owners.length !== header.slots) {
      return { why: 'the snapshot records do not match its header' };
    }
    if (statSync(paths.vec).size !== header.slots * header.dim * 4 || statSync(paths.flags).size !== header.slots) {
      return { why: 'the snapshot vectors do not match its header' };
    }
    const raw = readFileSync(paths.vec);
    // A large file is read into its own (aligned) buffer: viewed, not copied.
    const vectors = raw.byteOffset % 4 === 0 ? new Float32Array(raw.buffer, raw.byteOffset, raw.byteLength / 4) : new Float32Array(new Uint8Array(raw).buffer);
    const indexed = new Uint8Array(readFileSync(paths.flags));
    const index = header.hnsw && existsSync(paths.hnsw) ? HnswVectorIndex.load({ path: paths.hnsw, dimensions: header.dim }) : undefined;
    const cache = VectorCache.fromState({ dim: header.dim, records, owners, vectors, indexed, index });
    return { cache, position: { epoch: header.epoch, ver: header.ver, last: header.last ?? undefined, model: header.model } };
  } catch (error) {
    return { why: `the snapshot could not be read (${error instanceof Error ? error.message : String(error)})` };
  }
}

function readHeader(dir: string, name: string): z.infer<typeof HeaderSchema> | undefined {
  try {
    const parsed = HeaderSchema.safeParse(JSON.parse(readFileSync(join(dir, `${name}.json`), 'utf8')));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

function removeFiles(dir: string, name: string, id: string): void {
  for (const path of Object.values(files(dir, name, id))) rmSync(path, { force: true });
}
