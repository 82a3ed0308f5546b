import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { z } from 'zod';
import { HnswVectorIndex } from '../core/vectors/hnsw-vector-index.js';
import type { CollectionMirror } from './collection-mirror.js';

/** What is saved beside an index file: the store version it matches, and the record id of each label. */
const MirrorManifestSchema = z.object({
  // Format 2: the index's quantization (format 1 held float32 indexes only, and is rebuilt).
  format: z.literal(2),
  quantization: z.enum(['i8', 'f32']),
  version: z.number().int(),
  dimensions: z.number().int().positive(),
  ids: z.array(z.string().nullable()),
});
export type MirrorManifest = z.infer<typeof MirrorManifestSchema>;

/** Where the ANN index of a collection is saved inside the store's folder. */
export function mirrorPaths(dir: string, collection: string): { index: string; manifest: string } {
  return { index: `${dir}/${collection}.hnsw`, manifest: `${dir}/${collection}.hnsw.json` };
}

/**
 * The saved index of a collection when it matches store version `version`
 * and `dimensions`; `undefined` when there is none, it is stale (the store
 * was written since, or a save was cut short) or unreadable: the caller
 * rebuilds it from the store.
 */
export function loadSavedIndex(options: {
  dir: string;
  collection: string;
  version: number;
  dimensions: number;
}): { index: HnswVectorIndex; ids: Array<string | null> } | undefined {
  const paths = mirrorPaths(options.dir, options.collection);
  try {
    const manifest = MirrorManifestSchema.parse(JSON.parse(readFileSync(paths.manifest, 'utf8')));
    if (manifest.version !== options.version || manifest.dimensions !== options.dimensions) return undefined;
    const index = HnswVectorIndex.load({ path: paths.index, dimensions: options.dimensions, quantization: manifest.quantization });
    return { index, ids: manifest.ids };
  } catch {
    return undefined;
  }
}

/** Saves the mirror's index and manifest for store version `version`, each through a temporary file and a rename. */
export function saveIndex(options: { dir: string; collection: string; version: number; mirror: CollectionMirror }): void {
  const paths = mirrorPaths(options.dir, options.collection);
  const index = options.mirror.index;
  // loadSavedIndex opens an HnswVectorIndex: another index is not saved this way.
  if (!(index instanceof HnswVectorIndex)) throw new TypeError('saveIndex saves an HnswVectorIndex only');
  // The manifest goes first so a crash between the two leaves a mismatch (rebuild), never a wrong pairing.
  rmSync(paths.manifest, { force: true });
  index.save(`${paths.index}.tmp`);
  renameSync(`${paths.index}.tmp`, paths.index);
  const manifest: MirrorManifest = {
    format: 2,
    quantization: index.quantization,
    version: options.version,
    dimensions: index.dimensions,
    ids: options.mirror.labelIds().map((id) => id ?? null),
  };
  writeFileSync(`${paths.manifest}.tmp`, JSON.stringify(manifest));
  renameSync(`${paths.manifest}.tmp`, paths.manifest);
}
