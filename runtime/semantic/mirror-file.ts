import { closeSync, fstatSync, openSync, readFileSync, renameSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { crc32 } from 'node:zlib';
import { z } from 'zod';
import { HnswVectorIndex } from '../core/vectors/hnsw-vector-index.js';
import { fileCheck, FileCheckSchema, fileMatches, readFully } from '../core/file-check.js';
import { CollectionMirror, type MirroredRecord } from './collection-mirror.js';

/**
 * The saved mirror of a collection, so a restart loads its HNSW graph and
 * unit vectors instead of rebuilding the graph and reading every vector
 * back from LanceDB (at 100k: 3-4 s, most of it the vectors read,
 * normalised and copied twice). Files beside the tables:
 *
 * - `<collection>.hnsw`: USearch's own file (the graph and its byte vectors);
 * - `<collection>.vectors`: the float32 unit vectors by label, read with one
 *   call straight into the mirror's slab: a 16-byte head (`fwmirvec`, the
 *   dimensions and the number of rows as 32-bit words), then the rows;
 * - `<collection>.hnsw.json`: the manifest: format, the table version the
 *   files match, the index's quantization, the record id of each label, and
 *   the size and CRC-32 of both files; removed first and written last, so a
 *   save cut short leaves no manifest (rebuild), never a wrong pairing.
 *
 * A manifest of another format, table version or dimensions, or files whose
 * size or checksum differ from it (a truncated or corrupted file), are not
 * loaded: the caller logs why and rebuilds from the table. The checksum is
 * CRC-32 (damage, not tampering: whoever can write these files can write
 * the tables), checked before USearch reads its file, since a damaged graph
 * could crash the native code.
 */

/** The format written and read; a manifest of any other (format 2 had no vectors file) is rebuilt. */
export const MIRROR_FORMAT = 3;

const MirrorManifestSchema = z.object({
  format: z.literal(MIRROR_FORMAT),
  quantization: z.enum(['i8', 'f32']),
  version: z.number().int(),
  dimensions: z.number().int().positive(),
  // Checked by a loop: a zod pass over 100k ids took 0.14 s of a restart.
  ids: z.custom<Array<string | null>>(
    (value) => Array.isArray(value) && value.every((id) => id === null || typeof id === 'string'),
    'must be a list of ids or nulls',
  ),
  files: z.object({ index: FileCheckSchema, vectors: FileCheckSchema }),
});
type MirrorManifest = z.infer<typeof MirrorManifestSchema>;

/** The vectors file's head: a magic word, then the dimensions and the rows. */
const VECTORS_MAGIC = 'fwmirvec';
const VECTORS_HEAD_BYTES = 16;
const CHECK_CHUNK = 1 << 20;

/** Where a collection's saved mirror lives inside the store's folder. */
export function mirrorPaths(dir: string, collection: string): { index: string; vectors: string; manifest: string } {
  return { index: `${dir}/${collection}.hnsw`, vectors: `${dir}/${collection}.vectors`, manifest: `${dir}/${collection}.hnsw.json` };
}

/** A manifest that matches the table: the ids to look up in it before `restoreMirror`. */
export interface SavedMirror {
  manifest: MirrorManifest;
  paths: ReturnType<typeof mirrorPaths>;
}

/**
 * The manifest of the collection's saved mirror when it matches table
 * version `version` and `dimensions`, else why not (`why`; `none` when
 * nothing was saved, which is no news; `damaged` when the manifest is unreadable).
 */
export function readSavedMirror(options: {
  dir: string;
  collection: string;
  version: number;
  dimensions: number;
}): SavedMirror | { why: string; none?: true; damaged?: true } {
  const paths = mirrorPaths(options.dir, options.collection);
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(paths.manifest, 'utf8'));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { why: 'no saved index', none: true };
    return { why: 'its manifest is unreadable', damaged: true };
  }
  const format = (raw as { format?: unknown } | null)?.format;
  if (format !== MIRROR_FORMAT) return { why: `its manifest is of format ${JSON.stringify(format)}, this version reads format ${MIRROR_FORMAT}` };
  const parsed = MirrorManifestSchema.safeParse(raw);
  if (!parsed.success) return { why: 'its manifest is malformed', damaged: true };
  const manifest = parsed.data;
  if (manifest.dimensions !== options.dimensions) return { why: `it holds ${manifest.dimensions}-dimensional vectors, the table ${options.dimensions}` };
  if (manifest.version !== options.version) return { why: `it was saved at table version ${manifest.version}, the table is at ${options.version}` };
  return { manifest, paths };
}

/**
 * The mirror of a saved index, its labels' records taken from `records` (by
 * id, read from the table), or why it cannot be (a record missing, a file
 * of the wrong size or checksum, USearch refusing its file).
 */
export function restoreMirror(options: { saved: SavedMirror; records: ReadonlyMap<string, MirroredRecord> }): CollectionMirror | { why: string } {
  const { manifest, paths } = options.saved;
  const missing = manifest.ids.find((id) => id !== null && !options.records.has(id));
  if (missing !== undefined) return { why: `the table has no record "${missing}" of the saved index` };
  try {
    if (!fileMatches(paths.index, manifest.files.index)) return damaged('index');
    const index = HnswVectorIndex.load({ path: paths.index, dimensions: manifest.dimensions, quantization: manifest.quantization });
    const mirror = new CollectionMirror({ index });
    mirror.restore({ ids: manifest.ids, records: options.records, readRows: (rows) => readVectors(paths.vectors, rows, manifest) });
    return mirror;
  } catch (error) {
    return { why: `it could not be read (${error instanceof Error ? error.message : String(error)})` };
  }
}

const damaged = (file: string) => ({ why: `its ${file} file does not match the manifest (size or checksum): damaged or cut short` });

/** Saves the mirror's index, vectors and manifest for table version `version`, each through a temporary file and a rename. */
export function saveMirror(options: { dir: string; collection: string; version: number; mirror: CollectionMirror }): void {
  const paths = mirrorPaths(options.dir, options.collection);
  const { mirror } = options;
  const index = mirror.index;
  // restoreMirror opens an HnswVectorIndex: another index is not saved this way.
  if (!(index instanceof HnswVectorIndex)) throw new TypeError('saveMirror saves an HnswVectorIndex only');
  rmSync(paths.manifest, { force: true });
  index.save(`${paths.index}.tmp`);
  renameSync(`${paths.index}.tmp`, paths.index);
  const ids = mirror.labelIds().map((id) => id ?? null);
  const rows = mirror.vectorRows();
  const head = Buffer.alloc(VECTORS_HEAD_BYTES);
  head.write(VECTORS_MAGIC, 0, 'latin1');
  head.writeUInt32LE(index.dimensions, 8);
  head.writeUInt32LE(ids.length, 12);
  const body = new Uint8Array(rows.buffer, rows.byteOffset, rows.byteLength);
  const fd = openSync(`${paths.vectors}.tmp`, 'w');
  try {
    writeFully(fd, head);
    writeFully(fd, body);
  } finally {
    closeSync(fd);
  }
  renameSync(`${paths.vectors}.tmp`, paths.vectors);
  const manifest: MirrorManifest = {
    format: MIRROR_FORMAT,
    quantization: index.quantization,
    version: options.version,
    dimensions: index.dimensions,
    ids,
    files: { index: fileCheck(paths.index), vectors: { bytes: head.byteLength + body.byteLength, crc32: crc32(body, crc32(head)) } },
  };
  writeFileSync(`${paths.manifest}.tmp`, JSON.stringify(manifest));
  renameSync(`${paths.manifest}.tmp`, paths.manifest);
}

/** Reads the vectors file into `rows` (`manifest.ids.length` rows), checking its head, size and checksum; throws when any differs. */
function readVectors(path: string, rows: Float32Array, manifest: MirrorManifest): void {
  const expected = manifest.files.vectors;
  if (expected.bytes !== VECTORS_HEAD_BYTES + rows.byteLength) throw new RangeError('the vectors file of the manifest has the wrong size for its labels');
  const fd = openSync(path, 'r');
  try {
    if (fstatSync(fd).size !== expected.bytes) throw new RangeError(damaged('vectors').why);
    const head = Buffer.alloc(VECTORS_HEAD_BYTES);
    readFully(fd, head, 0);
    if (head.toString('latin1', 0, 8) !== VECTORS_MAGIC || head.readUInt32LE(8) !== manifest.dimensions || head.readUInt32LE(12) !== manifest.ids.length)
      throw new RangeError('the vectors file has another head than its manifest');
    const body = new Uint8Array(rows.buffer, rows.byteOffset, rows.byteLength);
    // Checked a megabyte at a time as it is read, while it is still in the CPU's caches (0.8× the CPU of one pass after the read at 100k).
    let crc = crc32(head);
    for (let at = 0; at < body.byteLength; at += CHECK_CHUNK) {
      const chunk = body.subarray(at, Math.min(body.byteLength, at + CHECK_CHUNK));
      readFully(fd, chunk, VECTORS_HEAD_BYTES + at);
      crc = crc32(chunk, crc);
    }
    if (crc !== expected.crc32) throw new RangeError(damaged('vectors').why);
  } finally {
    closeSync(fd);
  }
}

function writeFully(fd: number, bytes: Uint8Array): void {
  let done = 0;
  while (done < bytes.byteLength) done += writeSync(fd, bytes, done, bytes.byteLength - done);
}
