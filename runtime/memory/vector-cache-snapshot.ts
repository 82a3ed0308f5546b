import { randomUUID } from 'node:crypto';
import { closeSync, fstatSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { z } from 'zod';
import { HnswVectorIndex } from '../core/vectors/hnsw-vector-index.js';
import { fileCheck, FileCheckSchema, fileMatches, readFully } from '../core/file-check.js';
import type { MemoryRecord } from './memory-records.js';
import { decodeColumns, encodeColumns, memoryRecords, type Column } from './snapshot-columns.js';
import { VectorCache } from './vector-cache.js';

/**
 * A process's copy of the long-term memories saved beside it, so a restart
 * is ready in about a second instead of reloading every record from Redis
 * and rebuilding the HNSW index (issue 23). Files in `dir`, per store name:
 *
 * - `<name>.json`: the header (format, the store's `epoch`, `ver` and `last`
 *   change-stream id the copy is at, model, dimensions, slots, and the size
 *   and CRC-32 of each data file) naming the random id of its data files;
 *   written last, through a temporary file and a rename, so a reader sees
 *   the old snapshot or the new one, never half of one;
 * - `<name>-<id>.records.json`: the records and their owners by column (see
 *   snapshot-columns.ts), the holes, and the inverted index's tag keys;
 * - `<name>-<id>.data`: one binary file read with one call: the vectors
 *   (float32 rows by slot), which slots the HNSW index holds, the columns'
 *   dictionary codes, and the inverted index's posting lists (uint32);
 * - `<name>-<id>.hnsw`: USearch's own file.
 *
 * A snapshot is only a head start: the caller checks its `epoch`/`ver`
 * against Redis and applies the change stream from `last` (or reloads
 * everything when that history is gone), so a stale snapshot costs time,
 * never correctness. A snapshot of another format, or whose files do not
 * match the sizes and checksums of its header, is refused (with the reason)
 * and the caller loads from Redis. Records are not schema-checked one by one:
 * the files are this code's, and the checksums vouch that they are whole.
 */

export interface SnapshotPosition {
  epoch: string;
  ver: number;
  last: string | undefined;
  model: string;
}

/** The format written and read; a snapshot of any other is ignored. */
export const SNAPSHOT_FORMAT = 4;

const HeaderSchema = z.object({
  format: z.literal(SNAPSHOT_FORMAT),
  id: z.string().regex(/^[0-9a-f-]{36}$/),
  epoch: z.string(),
  ver: z.number().int().min(0),
  last: z.string().nullable(),
  model: z.string(),
  dim: z.number().int().positive(),
  slots: z.number().int().min(0),
  // Format 4: the HNSW file's quantization (format 3 held float32 indexes only).
  files: z.object({ records: FileCheckSchema, data: FileCheckSchema, hnsw: FileCheckSchema.extend({ quantization: z.enum(['i8', 'f32']) }).nullable() }),
});
type Header = z.infer<typeof HeaderSchema>;

const ColumnSchema = z.object({
  name: z.string(),
  kind: z.enum(['plain', 'dict']),
  // Checked for being a list only: its values are checked when decoded (a column of 100k values costs a zod pass otherwise).
  values: z.custom<unknown[]>((value) => Array.isArray(value), 'must be a list'),
  absent: z.array(z.number().int().min(0)),
});

const LayoutSchema = z.object({
  holes: z.array(z.number().int().min(0)),
  records: z.array(ColumnSchema),
  owners: z.array(ColumnSchema),
  tags: z.array(z.tuple([z.string(), z.number().int().min(0)])),
});

const files = (dir: string, name: string, id: string) => ({
  records: join(dir, `${name}-${id}.records.json`),
  data: join(dir, `${name}-${id}.data`),
  hnsw: join(dir, `${name}-${id}.hnsw`),
});

/** The data files of every format so far (format 2 had `.vec` and `.flags`), removed with their snapshot. */
const ALL_SUFFIXES = ['.records.json', '.data', '.hnsw', '.vec', '.flags'];

/** A file-name-safe name for a store (its key prefix). */
export function snapshotName(keyPrefix: string): string {
  return `memory-${Buffer.from(keyPrefix).toString('base64url') || 'default'}`;
}

const check = (bytes: Uint8Array) => ({ bytes: bytes.byteLength, crc32: crc32(bytes) });
const padded = (bytes: number) => Math.ceil(bytes / 4) * 4;
const asBytes = (view: ArrayBufferView) => new Uint8Array(view.buffer, view.byteOffset, view.byteLength);

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
  const previous = readHeaderId(dir, name);
  const slots = state.records.length;
  const holes: number[] = [];
  const present: MemoryRecord[] = [];
  const owners: Array<{ owner: string | null }> = [];
  for (let slot = 0; slot < slots; slot++) {
    const record = state.records[slot];
    if (!record) holes.push(slot);
    else {
      present.push(record);
      owners.push({ owner: state.owners[slot] ?? null });
    }
  }
  const records = encodeColumns(present as unknown as Array<Record<string, unknown>>);
  const ownerColumns = encodeColumns(owners);
  const tags = [...(state.tags ?? new Map<string, Iterable<number>>())].map(([key, labels]) => [key, Uint32Array.from(labels)] as const);
  const layout: z.infer<typeof LayoutSchema> = {
    holes,
    records: records.columns,
    owners: ownerColumns.columns,
    tags: tags.map(([key, labels]) => [key, labels.length]),
  };
  const recordsBytes = Buffer.from(JSON.stringify(layout));
  const sections: Uint8Array[] = [
    asBytes(state.vectors),
    state.indexed,
    ...[...records.codes, ...ownerColumns.codes, ...tags.map(([, labels]) => labels)].map(asBytes),
  ];
  const data = Buffer.alloc(sections.reduce((sum, section) => sum + padded(section.byteLength), 0));
  let at = 0;
  for (const section of sections) {
    data.set(section, at);
    at += padded(section.byteLength);
  }
  writeFileSync(paths.records, recordsBytes);
  writeFileSync(paths.data, data);
  let hnsw: Header['files']['hnsw'] = null;
  if (state.index) {
    state.index.save(paths.hnsw);
    hnsw = { ...fileCheck(paths.hnsw), quantization: state.index.quantization };
  }
  const header: Header = {
    format: SNAPSHOT_FORMAT,
    id,
    epoch: position.epoch,
    ver: position.ver,
    last: position.last ?? null,
    model: position.model,
    dim: state.dim,
    slots,
    files: { records: check(recordsBytes), data: check(data), hnsw },
  };
  const temp = join(dir, `${name}.${id}.tmp`);
  writeFileSync(temp, JSON.stringify(header));
  renameSync(temp, join(dir, `${name}.json`));
  // The files of the snapshot this one replaced (another process's, if it wrote last, are its to remove).
  if (previous !== undefined && previous !== id) removeFiles(dir, name, previous);
  return true;
}

/** The snapshot of `name` for `model`, or the reason there is none usable (`why`). */
export function readSnapshot(options: { dir: string; name: string; model: string }): { cache: VectorCache; position: SnapshotPosition } | { why: string } {
  const { dir, name } = options;
  const read = readHeader(dir, name);
  if ('why' in read) return read;
  const { header } = read;
  if (header.model !== options.model) return { why: `the snapshot holds vectors of model "${header.model}"` };
  const paths = files(dir, name, header.id);
  let cache: VectorCache | undefined;
  try {
    const recordsBytes = readFileSync(paths.records);
    if (!matches(recordsBytes, header.files.records)) return damaged('records');
    if (header.files.hnsw && !fileMatches(paths.hnsw, header.files.hnsw)) return damaged('hnsw');
    const layout = LayoutSchema.parse(JSON.parse(recordsBytes.toString('utf8')));
    const { dim, slots } = header;
    const count = slots - layout.holes.length;
    const vectorBytes = slots * dim * 4;
    // The data file: the vectors go straight into the cache (one read), the rest into a buffer its sections are viewed in.
    const fd = openSync(paths.data, 'r');
    let crc: number;
    let rest: Buffer;
    try {
      if (fstatSync(fd).size !== header.files.data.bytes || header.files.data.bytes < vectorBytes) return damaged('data');
      rest = Buffer.alloc(header.files.data.bytes - vectorBytes);
      readFully(fd, rest, vectorBytes);
      let at = 0;
      const take = <T>(length: number, width: number, make: (offset: number) => T): T => {
        if (at + length * width > rest.byteLength) throw new RangeError('the data file is shorter than its layout');
        const view = make(rest.byteOffset + at);
        at += padded(length * width);
        return view;
      };
      const indexed = take(slots, 1, (offset) => new Uint8Array(rest.buffer, offset, slots));
      const codes = (columns: readonly Column[]) =>
        columns.filter((c) => c.kind === 'dict').map(() => take(count, 4, (offset) => new Uint32Array(rest.buffer, offset, count)));
      const recordCodes = codes(layout.records as Column[]);
      const ownerCodes = codes(layout.owners as Column[]);
      const tags = new Map(layout.tags.map(([key, size]) => [key, take(size, 4, (offset) => new Uint32Array(rest.buffer, offset, size))]));
      if (at !== rest.byteLength) throw new RangeError('the data file is longer than its layout');
      const rows = memoryRecords({ count, columns: layout.records as Column[], codes: recordCodes });
      const ownerRows = decodeColumns({ count, columns: layout.owners as Column[], codes: ownerCodes });
      const { records, owners } = slotted({ slots, holes: layout.holes, rows, ownerRows });
      const index = header.files.hnsw ? HnswVectorIndex.load({ path: paths.hnsw, dimensions: dim, quantization: header.files.hnsw.quantization }) : undefined;
      crc = 0;
      const vectors = (rows: Float32Array) => {
        const bytes = new Uint8Array(rows.buffer, rows.byteOffset, rows.byteLength);
        readFully(fd, bytes, 0);
        crc = crc32(bytes);
      };
      cache = VectorCache.fromState({ dim, records, owners, vectors, indexed, index, tags });
    } finally {
      closeSync(fd);
    }
    // The cache is served only once the whole data file is shown intact.
    if (crc32(rest, crc) !== header.files.data.crc32) {
      cache.close();
      return damaged('data');
    }
    return { cache, position: { epoch: header.epoch, ver: header.ver, last: header.last ?? undefined, model: header.model } };
  } catch (error) {
    cache?.close();
    return { why: `the snapshot could not be read (${error instanceof Error ? error.message : String(error)})` };
  }
}

const damaged = (file: string) => ({ why: `the snapshot ${file} file does not match its header (size or checksum): damaged or cut short` });

/** Records and owners by slot (holes null) from the rows of the present slots, in slot order. */
function slotted(options: {
  slots: number;
  holes: readonly number[];
  rows: ReadonlyArray<MemoryRecord | Record<string, unknown>>;
  ownerRows: ReadonlyArray<Record<string, unknown>>;
}): { records: Array<MemoryRecord | null>; owners: Array<string | null> } {
  const { slots, holes, rows, ownerRows } = options;
  const isHole = new Uint8Array(slots);
  for (const hole of holes) {
    if (hole >= slots) throw new RangeError('a hole past the slots');
    isHole[hole] = 1;
  }
  const records = new Array<MemoryRecord | null>(slots).fill(null);
  const owners = new Array<string | null>(slots).fill(null);
  let row = 0;
  for (let slot = 0; slot < slots; slot++) {
    if (isHole[slot] === 1) continue;
    if (row >= rows.length) throw new RangeError('fewer records than slots');
    records[slot] = rows[row] as unknown as MemoryRecord;
    owners[slot] = (ownerRows[row]?.owner as string | null | undefined) ?? null;
    row++;
  }
  if (row !== rows.length) throw new RangeError('more records than slots');
  return { records, owners };
}

function matches(bytes: Uint8Array, expected: { bytes: number; crc32: number }): boolean {
  return bytes.byteLength === expected.bytes && crc32(bytes) === expected.crc32;
}

function readHeader(dir: string, name: string): { header: Header } | { why: string } {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(join(dir, `${name}.json`), 'utf8'));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { why: 'no snapshot' };
    return { why: 'the snapshot header is unreadable' };
  }
  const format = (raw as { format?: unknown } | null)?.format;
  if (format !== SNAPSHOT_FORMAT) return { why: `the snapshot is of format ${JSON.stringify(format)}, this version reads format ${SNAPSHOT_FORMAT}` };
  const parsed = HeaderSchema.safeParse(raw);
  return parsed.success ? { header: parsed.data } : { why: 'the snapshot header is malformed' };
}

/** The data-file id of the current snapshot, whatever its format (to remove its files once replaced). */
function readHeaderId(dir: string, name: string): string | undefined {
  try {
    const id = (JSON.parse(readFileSync(join(dir, `${name}.json`), 'utf8')) as { id?: unknown }).id;
    return typeof id === 'string' && /^[0-9a-f-]{36}$/.test(id) ? id : undefined;
  } catch {
    return undefined;
  }
}

function removeFiles(dir: string, name: string, id: string): void {
  for (const suffix of ALL_SUFFIXES) rmSync(join(dir, `${name}-${id}${suffix}`), { force: true });
}
