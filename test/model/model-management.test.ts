import { createHash } from 'node:crypto';
import { lstat, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { Ollama } from 'ollama';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { ModelStore, StoredModel } from '../../runtime/model/model-store.js';
import { startModelServer, type RunningModelServer } from '../../runtime/model/start-model-server.js';
import { linkedStore } from './support/linked-store.js';

// Generation shares two cores with other engineers' tests: allow for that.
vi.setConfig({ testTimeout: 120_000 });

// The real SmolLM2 in a store of the test's own, served by our model server, driven by the official ollama client.
let server: RunningModelServer;
let client: Ollama;
let store: ModelStore;
let base: StoredModel;
let remove: () => Promise<void>;

beforeAll(async () => {
  ({ store, model: base, remove } = await linkedStore());
  server = await startModelServer({ store, host: '127.0.0.1', port: 0 });
  client = new Ollama({ host: server.url });
}, 300_000);

afterAll(async () => {
  await server?.close();
  await remove?.();
});

const post = (path: string, body: unknown) =>
  fetch(`${server.url}${path}`, {
    method: 'POST',
    body: typeof body === 'string' ? body : body instanceof Uint8Array ? new Uint8Array(body) : JSON.stringify(body),
  });

describe('create, show and generation defaults', () => {
  it('creates a model from smollm2 with a system prompt and parameters, streaming Ollama status lines', async () => {
    const progress = await client.create({
      model: 'terse',
      from: 'smollm2',
      system: 'You are a pirate. Answer in one short sentence.',
      parameters: { num_predict: 3, temperature: 0, stop: ['<|im_end|>', 'User:'] },
      stream: true,
    });
    const statuses: string[] = [];
    for await (const line of progress) statuses.push(line.status);
    expect(statuses).toEqual([`using existing layer sha256:${base.sha256}`, 'writing manifest', 'success']);
    expect((await client.list()).models.map((m) => m.name)).toEqual(expect.arrayContaining(['smollm2:latest', 'terse:latest']));
  });

  it("show reflects the created model's system, parameters and parent", async () => {
    const show = await client.show({ model: 'terse:latest' });
    expect(show.system).toBe('You are a pirate. Answer in one short sentence.');
    expect(show.parameters.split('\n')).toEqual([
      `${'num_predict'.padEnd(30)} 3`,
      `${'temperature'.padEnd(30)} 0`,
      `${'stop'.padEnd(30)} "<|im_end|>"`,
      `${'stop'.padEnd(30)} "User:"`,
    ]);
    expect(show.details).toMatchObject({ parent_model: 'smollm2:latest', format: 'gguf', family: 'llama', quantization_level: 'Q4_1' });
    expect(show.modelfile).toContain(`FROM ${join(store.blobsDir, base.file)}`);
    expect(show.modelfile).toContain('SYSTEM You are a pirate. Answer in one short sentence.');
    expect(show.modelfile).toContain('PARAMETER num_predict 3');
    expect(show.capabilities).toEqual(['completion', 'tools']);
    expect(show.license).toBe('Apache-2.0');
  });

  it('chats with the manifest parameters as defaults that request options override, and its system prompt', async () => {
    const question = [{ role: 'user' as const, content: 'Count from one to twenty, in words.' }];
    const byDefault = await client.chat({ model: 'terse', messages: question, stream: false });
    expect(byDefault.eval_count).toBeLessThanOrEqual(3);
    expect(byDefault.done_reason).toBe('length');
    const overridden = await client.chat({ model: 'terse', messages: question, stream: false, options: { num_predict: 12 } });
    expect(overridden.eval_count).toBeGreaterThan(3);
    // The model's SYSTEM is put before the conversation: the same question costs more prompt tokens than on the base model.
    const plain = await client.chat({ model: 'smollm2', messages: question, stream: false, options: { num_predict: 1 } });
    const withSystem = await client.chat({ model: 'terse', messages: question, stream: false, options: { num_predict: 1 } });
    const ownSystem = await client.chat({
      model: 'terse',
      messages: [{ role: 'system', content: 'Hi.' }, ...question],
      stream: false,
      options: { num_predict: 1 },
    });
    expect(withSystem.prompt_eval_count).toBeGreaterThan(plain.prompt_eval_count + 8);
    expect(ownSystem.prompt_eval_count).toBeLessThan(withSystem.prompt_eval_count);
    const generated = await client.generate({ model: 'terse', prompt: 'Count from one to twenty, in words.', stream: false });
    expect(generated.eval_count).toBeLessThanOrEqual(3);
    expect(generated.prompt_eval_count).toBe(withSystem.prompt_eval_count);
  });

  it('keeps a Go TEMPLATE, license list and messages, shown back', async () => {
    await client.create({
      model: 'templated:v1',
      from: 'terse',
      template: '{{ .System }} {{ .Prompt }}',
      license: ['MIT', 'Apache-2.0'],
      messages: [
        { role: 'user', content: 'Ahoy?' },
        { role: 'assistant', content: 'Arr.' },
      ],
      parameters: { num_predict: 2 },
    });
    const show = await client.show({ model: 'templated:v1' });
    expect(show.template).toBe('{{ .System }} {{ .Prompt }}');
    expect(show.license).toBe('MIT\nApache-2.0');
    expect(show.messages).toEqual([
      { role: 'user', content: 'Ahoy?' },
      { role: 'assistant', content: 'Arr.' },
    ]);
    // Parameters merge over the base model's.
    expect(show.parameters).toContain(`${'num_predict'.padEnd(30)} 2`);
    expect(show.parameters).toContain(`${'temperature'.padEnd(30)} 0`);
    expect(show.system).toBe('You are a pirate. Answer in one short sentence.');
    expect((await client.list()).models.map((m) => m.name)).toContain('templated:v1');
    const reply = await client.chat({ model: 'templated:v1', messages: [{ role: 'user', content: 'Hello' }], stream: false });
    expect(reply.eval_count).toBeLessThanOrEqual(2);
  });

  it("refuses what it cannot do, in Ollama's error shape", async () => {
    const failure = (p: Promise<unknown>) =>
      p.then(
        () => undefined,
        (e: { status_code?: number; error?: string }) => ({ status: e.status_code, error: e.error }),
      );
    expect(await failure(client.create({ model: 'q', from: 'smollm2', quantize: 'q4_K_M' }))).toMatchObject({
      status: 400,
      error: expect.stringMatching(/quantize is not supported/),
    });
    expect(await failure(client.create({ model: 'nothing' }))).toEqual({ status: 400, error: "neither 'from' or 'files' was specified" });
    expect(await failure(client.create({ model: 'bad name!', from: 'smollm2' }))).toEqual({ status: 400, error: 'invalid model name' });
    expect(await failure(client.create({ model: 'x', from: 'no-such-model' }))).toMatchObject({ status: 404 });
    expect(await failure(client.create({ model: 'x', from: 'smollm2', parameters: { temprature: 1 } }))).toEqual({
      status: 400,
      error: "unknown parameter 'temprature'",
    });
    expect(await failure(client.create({ model: 'x', from: 'smollm2', parameters: { num_ctx: 'lots' } }))).toMatchObject({
      status: 400,
      error: expect.stringMatching(/num_ctx.*invalid int value/),
    });
    expect((await client.list()).models.map((m) => m.name)).not.toContain('x:latest');
  });
});

describe('blobs and create from files', () => {
  it('HEAD is 404 for an unknown blob; a wrong digest is a 400 and nothing is kept; the right one is 201, then 200', async () => {
    const body = Buffer.from('not a model, just bytes');
    const hex = createHash('sha256').update(body).digest('hex');
    expect((await fetch(`${server.url}/api/blobs/sha256:${hex}`, { method: 'HEAD' })).status).toBe(404);
    const wrong = await post(`/api/blobs/sha256:${'0'.repeat(64)}`, body.toString());
    expect(wrong.status).toBe(400);
    expect(await wrong.json()).toEqual({ error: `digest mismatch, expected "sha256:${'0'.repeat(64)}", got "sha256:${hex}"` });
    expect((await fetch(`${server.url}/api/blobs/sha256:${'0'.repeat(64)}`, { method: 'HEAD' })).status).toBe(404);
    const bad = await post('/api/blobs/md5:abc', body.toString());
    expect(bad.status).toBe(400);
    expect(await bad.json()).toEqual({ error: 'invalid digest format' });
    expect((await post(`/api/blobs/sha256:${hex}`, body.toString())).status).toBe(201);
    expect((await fetch(`${server.url}/api/blobs/sha256:${hex}`, { method: 'HEAD' })).status).toBe(200);
    expect((await post(`/api/blobs/sha256:${hex}`, body.toString())).status).toBe(200);
    // Uploaded bytes that are no GGUF cannot make a model.
    const notGguf = await post('/api/create', { model: 'junk', files: { 'junk.gguf': `sha256:${hex}` }, stream: false });
    expect(notGguf.status).toBe(400);
    expect(await notGguf.json()).toEqual({ error: 'supplied file was not in GGUF format' });
  });

  it('a pulled model answers HEAD for its digest, and create from files reads the GGUF header', async () => {
    expect((await fetch(`${server.url}/api/blobs/sha256:${base.sha256}`, { method: 'HEAD' })).status).toBe(200);
    const created = await post('/api/create', { model: 'from-file', files: { 'smol.gguf': `sha256:${base.sha256}` }, system: 'Be brief.', stream: true });
    expect(created.status).toBe(200);
    expect(
      (await created.text())
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).status),
    ).toEqual(['parsing GGUF', `using existing layer sha256:${base.sha256}`, 'writing manifest', 'success']);
    const show = await client.show({ model: 'from-file' });
    expect(show.details).toMatchObject({ family: 'llama', parameter_size: '135M', quantization_level: 'Q4_1', parent_model: '' });
    expect(show.system).toBe('Be brief.');
    const missing = await post('/api/create', { model: 'y', files: { 'y.gguf': `sha256:${'1'.repeat(64)}` }, stream: false });
    expect(missing.status).toBe(400);
    expect((await missing.json()).error).toMatch(/not found: upload it first with POST \/api\/blobs\/sha256:1{64}/);
    const escaping = await post('/api/create', { model: 'y', files: { '../y.gguf': `sha256:${base.sha256}` } });
    expect(await escaping.json()).toEqual({ error: 'file path must be relative' });
    const safetensors = await post('/api/create', { model: 'y', files: { 'model.safetensors': `sha256:${base.sha256}` } });
    expect(safetensors.status).toBe(400);
  });
});

describe('copy, delete and push', () => {
  it('copies a model (404 for an unknown source) and the copy chats', async () => {
    await client.copy({ source: 'terse', destination: 'terse-copy:2' });
    const show = await client.show({ model: 'terse-copy:2' });
    expect(show.system).toBe('You are a pirate. Answer in one short sentence.');
    const reply = await client.chat({ model: 'terse-copy:2', messages: [{ role: 'user', content: 'Hi' }], stream: false });
    expect(reply.model).toBe('terse-copy:2');
    const missing = await client.copy({ source: 'nope', destination: 'nope2' }).catch((e: { status_code: number; error: string }) => e);
    expect(missing).toMatchObject({ status_code: 404, error: 'model "nope" not found' });
    const invalid = await post('/api/copy', { source: 'terse', destination: 'a b' });
    expect(invalid.status).toBe(400);
    expect(await invalid.json()).toEqual({ error: 'destination "a b" is invalid' });
  });

  it('deletes a loaded model (unloading it) and keeps the weights another model uses', async () => {
    await client.chat({ model: 'terse-copy:2', messages: [{ role: 'user', content: 'Hi' }], stream: false, options: { num_predict: 1 } });
    expect((await client.ps()).models.map((m) => m.name)).toContain('terse-copy:2');
    expect(await client.delete({ model: 'terse-copy:2' })).toEqual({ status: 'success' });
    expect((await client.ps()).models.map((m) => m.name)).not.toContain('terse-copy:2');
    expect((await client.list()).models.map((m) => m.name)).not.toContain('terse-copy:2');
    const again = await client.delete({ model: 'terse-copy:2' }).catch((e: { status_code: number; error: string }) => e);
    expect(again).toMatchObject({ status_code: 404, error: "model 'terse-copy:2' not found" });
    // Shared weights stay while a model uses them.
    await client.delete({ model: 'terse' });
    expect((await lstat(join(store.blobsDir, base.file))).isSymbolicLink()).toBe(true);
    const still = await client.chat({ model: 'smollm2', messages: [{ role: 'user', content: 'Hi' }], stream: false, options: { num_predict: 1 } });
    expect(still.done).toBe(true);
  });

  it('uploads a GGUF blob, creates a model from it, and deleting that model removes the blob', async () => {
    // The weights with one byte more: another digest, still a GGUF header to read.
    const gguf = Buffer.concat([await readFile(base.path), Buffer.from([0])]);
    const hex = createHash('sha256').update(gguf).digest('hex');
    expect((await fetch(`${server.url}/api/blobs/sha256:${hex}`, { method: 'HEAD' })).status).toBe(404);
    expect((await post(`/api/blobs/sha256:${hex}`, gguf)).status).toBe(201);
    expect((await stat(join(store.blobsDir, `sha256-${hex}`))).size).toBe(gguf.length);
    // The npm client's types lack `files` (its CLI-less create): sent as Ollama's CLI sends it.
    expect((await post('/api/create', { model: 'uploaded', files: { 'w.gguf': `sha256:${hex}` }, stream: false })).status).toBe(200);
    expect((await client.show({ model: 'uploaded' })).details).toMatchObject({ family: 'llama', quantization_level: 'Q4_1' });
    await client.copy({ source: 'uploaded', destination: 'uploaded-too' });
    await client.delete({ model: 'uploaded' });
    await expect(stat(join(store.blobsDir, `sha256-${hex}`))).resolves.toBeDefined();
    await client.delete({ model: 'uploaded-too' });
    await expect(stat(join(store.blobsDir, `sha256-${hex}`))).rejects.toThrow(/ENOENT/);
    expect((await fetch(`${server.url}/api/blobs/sha256:${hex}`, { method: 'HEAD' })).status).toBe(404);
  });

  it("answers push with Ollama's error shape: not supported", async () => {
    const error = await client.push({ model: 'smollm2', stream: false }).catch((e: { status_code: number; error: string }) => e);
    expect(error).toMatchObject({ status_code: 501, error: expect.stringMatching(/^push is not supported by this server/) });
    const streamed = await client.push({ model: 'smollm2', stream: true }).catch((e: { status_code: number }) => e);
    expect(streamed).toMatchObject({ status_code: 501 });
    const empty = await post('/api/push', {});
    expect(empty.status).toBe(400);
    expect(await empty.json()).toEqual({ error: 'model is required' });
  });
});
