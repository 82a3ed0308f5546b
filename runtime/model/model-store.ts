import { createHash, randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
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
  /** A Modelfile's SYSTEM: the system message of a request that has none. */
  system: z.string().optional(),
  /** A Modelfile's TEMPLATE (a Go template): stored and shown, not used for generation (the GGUF's own chat template is). */
  template: z.string().optional(),
  /** A Modelfile's PARAMETER lines, with Ollama's option names and types: defaults a request's `options` override. */
  parameters: z.record(z.string(), z.unknown()).optional(),
  /** A Modelfile's MESSAGE lines: put before a chat request's messages. */
  messages: z.array(z.object({ role: z.enum(['system', 'user', 'assistant']), content: z.string() })).optional(),
  /** The model this one was created from (`details.parent_model`). */
  parent: z.string().optional(),
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
    const manifest = await this.#manifest(name);
    if (!manifest) return undefined;
    const path = join(this.blobsDir, manifest.file);
    try {
      if ((await stat(path)).size !== manifest.size) return undefined;
    } catch {
      return undefined;
    }
    return { ...manifest, path };
  }

  /** The model's manifest even when its weights are missing. */
  async #manifest(name: string): Promise<ModelManifest | undefined> {
    try {
      const parsed = ModelManifestSchema.safeParse(JSON.parse(await readFile(this.#manifestPath(name), 'utf8')));
      return parsed.success ? parsed.data : undefined;
    } catch {
      return undefined;
    }
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

  /** Every manifest, whether or not its weights are there. */
  async #manifests(): Promise<ModelManifest[]> {
    let entries: string[];
    try {
      entries = await readdir(join(this.dir, 'manifests'));
    } catch {
      return [];
    }
    const all = await Promise.all(entries.filter((e) => e.endsWith('.json')).map((e) => this.#manifest(decodeURIComponent(e.slice(0, -'.json'.length)))));
    return all.filter((m): m is ModelManifest => m !== undefined);
  }

  /**
   * Removes a model's manifest, then its weights unless another model uses
   * them (weights in a folder, with their tokenizer and config, go with the
   * folder). Resolves to the removed manifest, or undefined when there was none.
   */
  async delete(name: string): Promise<ModelManifest | undefined> {
    const manifest = await this.#manifest(name);
    if (!manifest) return undefined;
    await rm(this.#manifestPath(name), { force: true });
    const unit = weightsUnit(manifest);
    const others = await this.#manifests();
    const used = others.some((m) => m.file === manifest.file || (unit !== manifest.file && m.file.startsWith(`${unit}/`)));
    if (!used) await rm(join(this.blobsDir, unit), { recursive: true, force: true });
    return manifest;
  }

  /** Records `source`'s manifest under `destination` too (the weights are shared); undefined when `source` is not there. */
  async copy(source: string, destination: string): Promise<StoredModel | undefined> {
    const manifest = await this.get(source);
    if (!manifest) return undefined;
    const { path: _path, ...fields } = manifest;
    return this.save({ ...fields, name: canonicalModelName(destination), modifiedAt: new Date().toISOString() });
  }

  /**
   * The weights file (relative to `blobsDir`) whose sha256 is `hex`: an
   * uploaded blob (`sha256-<hex>`), or the file of a model with that digest.
   */
  async findBlob(hex: string): Promise<{ file: string; size: number } | undefined> {
    const uploaded = `sha256-${hex}`;
    try {
      return { file: uploaded, size: (await stat(join(this.blobsDir, uploaded))).size };
    } catch {
      // Not uploaded: a pulled model may have it under its own file name.
    }
    for (const m of await this.#manifests()) {
      if (m.sha256 !== hex) continue;
      try {
        const size = (await stat(join(this.blobsDir, m.file))).size;
        if (size === m.size) return { file: m.file, size };
      } catch {
        // Its manifest outlived its file.
      }
    }
    return undefined;
  }

  /**
   * Writes `body` as the blob `sha256-<hex>`: into a temporary file while
   * hashing, renamed into place only when the digest is `hex`. Resolves to
   * `created`, `exists` (the body is not read), or the digest it got.
   */
  async writeBlob(hex: string, body: AsyncIterable<Uint8Array>): Promise<{ outcome: 'created' | 'exists' } | { outcome: 'mismatch'; actual: string }> {
    if (await this.findBlob(hex)) return { outcome: 'exists' };
    await mkdir(this.blobsDir, { recursive: true });
    const temp = join(this.blobsDir, `.upload-${randomUUID()}.partial`);
    const hash = createHash('sha256');
    const file = createWriteStream(temp);
    try {
      await pipeline(
        body,
        new Writable({
          write(chunk: Buffer, _encoding, done) {
            hash.update(chunk);
            if (file.write(chunk)) done();
            else file.once('drain', () => done());
          },
          final(done) {
            file.end(done);
          },
        }),
      );
      const actual = hash.digest('hex');
      if (actual !== hex) {
        await rm(temp, { force: true });
        return { outcome: 'mismatch', actual };
      }
      await rename(temp, join(this.blobsDir, `sha256-${hex}`));
      return { outcome: 'created' };
    } catch (error) {
      file.destroy();
      await rm(temp, { force: true });
      throw error;
    }
  }
}

/** What deleting a model's weights removes: its file, or for an embedding model the folder holding it with its tokenizer and config. */
function weightsUnit(manifest: ModelManifest): string {
  const folder = dirname(manifest.file);
  return manifest.kind === 'embedding' && folder !== '.' ? folder : manifest.file;
}
