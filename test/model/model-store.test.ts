import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ModelStore, type ModelManifest } from '../../runtime/model/model-store.js';

let dir: string;
let store: ModelStore;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'model-store-'));
  store = new ModelStore({ dir });
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A model whose weights are `content` at `file` (and any companion files beside it). */
async function add(name: string, file: string, options: { kind?: 'chat' | 'embedding'; companions?: string[] } = {}): Promise<ModelManifest> {
  const content = `weights of ${file}`;
  await mkdir(dirname(join(store.blobsDir, file)), { recursive: true });
  await writeFile(join(store.blobsDir, file), content);
  for (const companion of options.companions ?? []) await writeFile(join(dirname(join(store.blobsDir, file)), companion), '{}');
  const manifest = {
    name,
    kind: options.kind ?? 'chat',
    file,
    size: content.length,
    sha256: createHash('sha256').update(content).digest('hex'),
    modifiedAt: new Date().toISOString(),
  } as const;
  await store.save(manifest);
  return manifest;
}

const exists = (file: string) =>
  stat(join(store.blobsDir, file)).then(
    () => true,
    () => false,
  );

describe('ModelStore delete and copy', () => {
  it('keeps weights a copy still uses, and removes them with the last model', async () => {
    await add('a', 'a.gguf');
    expect(await store.copy('a:latest', 'b:v1')).toMatchObject({ name: 'b:v1', file: 'a.gguf' });
    expect(await store.delete('a')).toMatchObject({ name: 'a' });
    expect(await exists('a.gguf')).toBe(true);
    expect(await store.delete('b:v1')).toMatchObject({ name: 'b:v1' });
    expect(await exists('a.gguf')).toBe(false);
    expect(await store.delete('b:v1')).toBeUndefined();
    expect(await store.list()).toEqual([]);
  });

  it("removes an embedding model's folder with its companions, and only its own file of a shared folder", async () => {
    await add('emb', 'emb-model/model.safetensors', { kind: 'embedding', companions: ['tokenizer.json', 'config.json'] });
    await add('hf-one', 'hf/owner/repo/one.gguf');
    await add('hf-two', 'hf/owner/repo/two.gguf');
    await store.delete('emb');
    expect(await exists('emb-model')).toBe(false);
    await store.delete('hf-one');
    expect(await exists('hf/owner/repo/one.gguf')).toBe(false);
    expect(await exists('hf/owner/repo/two.gguf')).toBe(true);
    expect((await store.list()).map((m) => m.name)).toEqual(['hf-two']);
  });

  it('finds a blob by digest, uploaded or pulled, and keeps an upload only when its digest matches', async () => {
    const pulled = await add('a', 'a.gguf');
    expect(await store.findBlob(pulled.sha256)).toEqual({ file: 'a.gguf', size: pulled.size });
    const body = Buffer.from('uploaded bytes');
    const hex = createHash('sha256').update(body).digest('hex');
    const once = async function* () {
      yield new Uint8Array(body);
    };
    expect(await store.writeBlob('0'.repeat(64), once())).toEqual({ outcome: 'mismatch', actual: hex });
    expect(await readdir(store.blobsDir)).toEqual(['a.gguf']);
    expect(await store.writeBlob(hex, once())).toEqual({ outcome: 'created' });
    expect(await store.writeBlob(hex, once())).toEqual({ outcome: 'exists' });
    expect(await store.findBlob(hex)).toEqual({ file: `sha256-${hex}`, size: body.length });
  });
});
