import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, readdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { canonicalModelName } from './known-models.js';

/** What the store records about each model, in `<dir>/manifests/<name>.json`. */
export const ModelManifestSchema = z.object({
  name: z.string(),
  /** `chat` when absent (manifests written before embedding models). */
  kind: z.enum(['chat', 'embedding']).optional(),
  file: z.string(),
  size: z.number(),
  sha256: z.string(),
  family: z.string().optional(),
  parameterSize: z.string().optional(),
  quantization: z.string().optional(),
  license: z.string().optional(),
  source: z.string().optional(),
  embeddingLength: z.number().int().positive().optional(),
  modifiedAt: z.string(),
});
export type ModelManifest = z.infer<typeof ModelManifestSchema>;

/** A manifest with the absolute path of its weights. */
export interface StoredModel extends ModelManifest {
  path: string;
}

/**
 * The models folder: the explicit option, then `FRAMEWORK_MODELS_DIR`, then
 * `$XDG_CACHE_HOME/framework_core/models` or `~/.cache/framework_core/models`.
 */
export function resolveModelsDir(options: { dir?: string; env?: NodeJS.ProcessEnv } = {}): string {
  const env = options.env ?? process.env;
  if (options.dir) return options.dir;
  if (env.FRAMEWORK_MODELS_DIR) return env.FRAMEWORK_MODELS_DIR;
  return join(env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'framework_core', 'models');
}

/** The sha256 of a file, hex. */
export async function sha256File(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/**
 * Model weights on disk with one JSON manifest per model.
 *
 * @example
 * const store = new ModelStore({ dir: resolveModelsDir() });
 * const model = await store.get('smollm2'); // undefined until pulled
 */
export class ModelStore {
  readonly dir: string;

  constructor(options: { dir: string }) {
    this.dir = options.dir;
  }

  get blobsDir(): string {
    return join(this.dir, 'blobs');
  }

  #manifestPath(name: string): string {
    return join(this.dir, 'manifests', `${encodeURIComponent(canonicalModelName(name))}.json`);
  }

  /** The model when its manifest exists and its file has the recorded size. */
  async get(name: string): Promise<StoredModel | undefined> {
    let text: string;
    try {
      text = await readFile(this.#manifestPath(name), 'utf8');
    } catch {
      return undefined;
    }
    const parsed = ModelManifestSchema.safeParse(JSON.parse(text));
    if (!parsed.success) return undefined;
    const path = join(this.blobsDir, parsed.data.file);
    try {
      if ((await stat(path)).size !== parsed.data.size) return undefined;
    } catch {
      return undefined;
    }
    return { ...parsed.data, path };
  }

  async list(): Promise<StoredModel[]> {
    let entries: string[];
    try {
      entries = await readdir(join(this.dir, 'manifests'));
    } catch {
      return [];
    }
    const models: StoredModel[] = [];
    for (const entry of entries.filter((e) => e.endsWith('.json')).sort()) {
      const model = await this.get(decodeURIComponent(entry.slice(0, -'.json'.length)));
      if (model) models.push(model);
    }
    return models;
  }

  /** Records a manifest (written to a temp file then renamed, so readers never see half of it). */
  async save(manifest: ModelManifest): Promise<StoredModel> {
    const path = this.#manifestPath(manifest.name);
    await mkdir(join(this.dir, 'manifests'), { recursive: true });
    const temp = `${path}.${process.pid}.tmp`;
    await writeFile(temp, `${JSON.stringify(manifest, null, 2)}\n`);
    await rename(temp, path);
    return { ...manifest, path: join(this.blobsDir, manifest.file) };
  }
}
