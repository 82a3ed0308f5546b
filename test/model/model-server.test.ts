import { Ollama } from 'ollama';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { invoke } from '../../runtime/llm/invoke.js';
import { startModelServer, type RunningModelServer } from '../../runtime/model/start-model-server.js';
import { defaultModelStore } from './support/default-model.js';

// Generation shares two cores with the rest of the suite (other real-model tests among it): allow for that.
vi.setConfig({ testTimeout: 60_000 });

// The real default model (SmolLM2-135M) through the official ollama client.
let server: RunningModelServer;
let client: Ollama;
const short = { temperature: 0, num_predict: 8 };

beforeAll(async () => {
  const { store } = await defaultModelStore();
  server = await startModelServer({ store, host: '127.0.0.1', port: 0 });
  client = new Ollama({ host: server.url });
}, 300_000);

afterAll(async () => {
  await server?.close();
});

describe('model server with the ollama client', () => {
  it('lists the model in tags, show and version', async () => {
    const tags = await client.list();
    expect(tags.models.map((m) => m.name)).toContain('smollm2:latest');
    const show = await client.show({ model: 'smollm2' });
    expect(show.details).toMatchObject({ format: 'gguf', family: 'llama', quantization_level: 'Q4_1' });
    expect((await client.version()).version).toMatch(/^\d+\.\d+\.\d+/);
  });

  it("chats without streaming, with Ollama's counts", async () => {
    const reply = await client.chat({ model: 'smollm2', messages: [{ role: 'user', content: 'Say hello.' }], stream: false, options: short });
    expect(reply.message.role).toBe('assistant');
    expect(reply.message.content.length).toBeGreaterThan(0);
    expect(reply.done).toBe(true);
    expect(['stop', 'length']).toContain(reply.done_reason);
    expect(reply.prompt_eval_count).toBeGreaterThan(0);
    expect(reply.eval_count).toBeGreaterThan(0);
    expect(reply.eval_count).toBeLessThanOrEqual(8);
    expect(reply.total_duration).toBeGreaterThan(0);
    const ps = await client.ps();
    expect(ps.models.map((m) => m.name)).toContain('smollm2:latest');
  });

  it('streams chat as chunks then one done line', async () => {
    const stream = await client.chat({ model: 'smollm2:latest', messages: [{ role: 'user', content: 'Count to five.' }], stream: true, options: short });
    const parts = [];
    for await (const part of stream) parts.push(part);
    const last = parts.at(-1)!;
    expect(parts.length).toBeGreaterThan(2);
    expect(parts.slice(0, -1).every((p) => !p.done)).toBe(true);
    expect(last.done).toBe(true);
    expect(last.done_reason).toBe('length');
    expect(last.eval_count).toBe(8);
    expect(parts.map((p) => p.message.content).join('').length).toBeGreaterThan(0);
  });

  it('returns JSON that validates against a format schema', async () => {
    const schema = {
      type: 'object',
      properties: { city: { type: 'string' }, country: { type: 'string' } },
      required: ['city', 'country'],
    } as const;
    const reply = await client.chat({
      model: 'smollm2',
      messages: [{ role: 'user', content: 'Name the capital of France and its country as JSON.' }],
      format: schema,
      stream: false,
      options: { temperature: 0, num_predict: 60 },
    });
    const parsed = z.object({ city: z.string(), country: z.string() }).parse(JSON.parse(reply.message.content));
    expect(typeof parsed.city).toBe('string');
  }, 60_000);

  it('generates from a prompt', async () => {
    const reply = await client.generate({ model: 'smollm2', prompt: 'The sky is', stream: false, options: { ...short, num_predict: 4 } });
    expect(reply.response?.length).toBeGreaterThan(0);
    expect(reply.eval_count).toBeLessThanOrEqual(4);
  });

  it('answers an unknown model with 404 as Ollama does', async () => {
    const error = await client.chat({ model: 'no-such-model', messages: [{ role: 'user', content: 'hi' }], stream: false }).catch((e: unknown) => e);
    expect(error).toMatchObject({ status_code: 404, error: "model 'no-such-model' not found, try pulling it first" });
  });

  it('answers malformed bodies and an over-long prompt with 400', async () => {
    const post = (path: string, body: string) => fetch(`${server.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    const broken = await post('/api/chat', '{"model":');
    expect(broken.status).toBe(400);
    expect(await broken.json()).toEqual({ error: expect.stringContaining('invalid JSON') });
    const noModel = await post('/api/chat', '{"messages":[]}');
    expect(noModel.status).toBe(400);
    const long = await post('/api/generate', JSON.stringify({ model: 'smollm2', prompt: 'word '.repeat(600), options: { num_ctx: 256 } }));
    expect(long.status).toBe(400);
    expect(((await long.json()) as { error: string }).error).toMatch(/context window of 256 tokens/);
    const embed = await post('/api/embed', JSON.stringify({ model: 'smollm2', input: 'hi' }));
    expect(embed.status).toBe(400);
    expect(await embed.json()).toEqual({ error: expect.stringContaining('does not support embeddings') });
  });

  it('stops a generation when its client disconnects, and serves the next request', async () => {
    const controller = new AbortController();
    const response = await fetch(`${server.url}/api/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'smollm2',
        messages: [{ role: 'user', content: 'Write a very long story about a dragon, with many chapters.' }],
        options: { num_predict: 2000, temperature: 0 },
      }),
      signal: controller.signal,
    });
    const reader = response.body!.getReader();
    await reader.read();
    controller.abort();
    const started = Date.now();
    const next = await client.chat({ model: 'smollm2', messages: [{ role: 'user', content: 'Hi' }], stream: false, options: { ...short, num_predict: 2 } });
    expect(next.done).toBe(true);
    // Uncancelled, this prompt at temperature 0 runs all 2000 tokens (about 50 s on two quiet cores, far more on a busy
    // machine); the bound only tells "stopped" from "ran to the end", with room for a loaded CI machine.
    expect(Date.now() - started).toBeLessThan(40_000);
  });
});

describe('model server with the toolkit', () => {
  it('serves more concurrent requests than sequences, all answered', async () => {
    const ask = (content: string) =>
      client.chat({ model: 'smollm2', messages: [{ role: 'user', content }], stream: false, options: { temperature: 0, num_predict: 3 } });
    const replies = await Promise.all([ask('One'), ask('Two'), ask('Three')]);
    expect(replies.every((r) => r.done && r.eval_count! <= 3)).toBe(true);
  });

  it('answers invoke() of the ollama provider, with a JSON schema passed through', async () => {
    const text = await invoke({ provider: 'ollama', model: 'smollm2', temperature: 0, base_url: server.url }, 'Give a fruit name and its colour as JSON.', {
      format: { type: 'object', properties: { fruit: { type: 'string' }, colour: { type: 'string' } }, required: ['fruit', 'colour'] },
    });
    expect(z.object({ fruit: z.string(), colour: z.string() }).safeParse(JSON.parse(text)).success).toBe(true);
  }, 60_000);
});

describe('model server loading', () => {
  it('loads on an empty chat, unloads with keep_alive 0, and loads again on the next request', async () => {
    const loaded = await client.chat({ model: 'smollm2', messages: [], stream: false });
    expect(loaded).toMatchObject({ done: true, done_reason: 'load' });
    const unloaded = await client.chat({ model: 'smollm2', messages: [], keep_alive: 0, stream: false });
    expect(unloaded).toMatchObject({ done: true, done_reason: 'unload' });
    expect((await client.ps()).models).toEqual([]);
    const again = await client.generate({ model: 'smollm2', prompt: 'Hello', stream: false, keep_alive: '0s', options: { temperature: 0, num_predict: 2 } });
    expect(again.done).toBe(true);
    expect(again.load_duration).toBeGreaterThan(0);
    expect((await client.ps()).models).toEqual([]);
  });

  it('keeps a model loaded for keep_alive after the last request, shown as expires_at in ps, then unloads it', async () => {
    await client.generate({ model: 'smollm2', prompt: 'Hi', stream: false, options: { temperature: 0, num_predict: 2 } });
    const byDefault = (await client.ps()).models.find((m) => m.name === 'smollm2:latest')!;
    // Ollama's default keep-alive: 5 minutes.
    expect(Date.parse(String(byDefault.expires_at)) - Date.now()).toBeGreaterThan(4 * 60_000);
    expect(Date.parse(String(byDefault.expires_at)) - Date.now()).toBeLessThanOrEqual(5 * 60_000);
    await client.generate({ model: 'smollm2', prompt: 'Hi', stream: true, keep_alive: '1s', options: { temperature: 0, num_predict: 2 } }).then(async (s) => {
      for await (const _ of s) void _;
    });
    const soon = (await client.ps()).models.find((m) => m.name === 'smollm2:latest')!;
    expect(Date.parse(String(soon.expires_at)) - Date.now()).toBeLessThanOrEqual(1000);
    await new Promise((r) => setTimeout(r, 1500));
    expect((await client.ps()).models).toEqual([]);
    await client.chat({ model: 'smollm2', messages: [], keep_alive: -1, stream: false });
    expect((await client.ps()).models[0]!.expires_at).toMatch(/^9999-/);
    const bad = await client.chat({ model: 'smollm2', messages: [], keep_alive: '10', stream: false }).catch((e: unknown) => e);
    expect(bad).toMatchObject({ status_code: 400, error: expect.stringContaining('invalid keep_alive') });
  });
});

describe('model server queue bound', () => {
  it('answers 503 "server busy" when more requests wait than allowed', async () => {
    const { store } = await defaultModelStore();
    const small = await startModelServer({ store, host: '127.0.0.1', port: 0, numParallel: 2, maxQueue: 1 });
    try {
      const busyClient = new Ollama({ host: small.url });
      const ask = () =>
        busyClient.chat({ model: 'smollm2', messages: [{ role: 'user', content: 'Hi' }], stream: false, options: { temperature: 0, num_predict: 24 } });
      // The first two to arrive take the two sequences (loading the model, then generating for a while),
      // the third waits in the line of one, the others find it full.
      const settled = await Promise.allSettled([ask(), ask(), ask(), ask(), ask()]);
      expect(settled.filter((s) => s.status === 'fulfilled')).toHaveLength(3);
      for (const s of settled.filter((s) => s.status === 'rejected')) {
        expect(s.reason).toMatchObject({ status_code: 503, error: expect.stringContaining('server busy') });
      }
    } finally {
      await small.close();
    }
  }, 120_000);
});
