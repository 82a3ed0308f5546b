import { Ollama } from 'ollama';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startModelServer, type RunningModelServer } from '../../runtime/model/start-model-server.js';
import { defaultEmbeddingStore, defaultModelStore } from './support/default-model.js';

// The real default embedding model (all-MiniLM-L6-v2) through the official ollama client.
let server: RunningModelServer;
let client: Ollama;

beforeAll(async () => {
  await defaultModelStore();
  const { store } = await defaultEmbeddingStore();
  server = await startModelServer({ store, host: '127.0.0.1', port: 0 });
  client = new Ollama({ host: server.url });
}, 300_000);

afterAll(async () => {
  await server?.close();
});

const dot = (a: readonly number[], b: readonly number[]) => a.reduce((sum, x, i) => sum + x * b[i]!, 0);
const post = (path: string, body: unknown) =>
  fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });

describe('embeddings with the ollama client', () => {
  it('embeds one input as a normalised 384-dimension vector, with counts', async () => {
    const reply = await client.embed({ model: 'all-minilm', input: 'A man is eating food.' });
    expect(reply.model).toBe('all-minilm:latest');
    expect(reply.embeddings).toHaveLength(1);
    const [vector] = reply.embeddings;
    expect(vector).toHaveLength(384);
    expect(Math.sqrt(dot(vector!, vector!))).toBeCloseTo(1, 5);
    expect(reply.prompt_eval_count).toBe(8);
    expect(reply.total_duration).toBeGreaterThan(0);
    expect((await client.ps()).models.map((m) => m.name)).toContain('all-minilm:latest');
  });

  it('embeds a batch, one vector per input, paraphrases closer than an unrelated sentence', async () => {
    const reply = await client.embed({
      model: 'all-minilm:latest',
      input: ['A man is eating food.', 'A man is eating a piece of bread.', 'The new movie is awesome.'],
    });
    expect(reply.embeddings).toHaveLength(3);
    const [food, bread, movie] = reply.embeddings as [number[], number[], number[]];
    // sentence-transformers gives 0.7553 for this pair with all-MiniLM-L6-v2.
    expect(dot(food, bread)).toBeCloseTo(0.7553, 2);
    expect(dot(food, bread)).toBeGreaterThan(dot(food, movie) + 0.4);
    // The same text alone and in a batch gives the same vector.
    const alone = await client.embed({ model: 'all-minilm', input: 'A man is eating food.' });
    expect(dot(alone.embeddings[0]!, food)).toBeCloseTo(1, 5);
  });

  it('answers the legacy /api/embeddings endpoint', async () => {
    const reply = await client.embeddings({ model: 'all-minilm', prompt: 'The cat sits on the mat.' });
    expect(reply.embedding).toHaveLength(384);
    expect(Math.sqrt(dot(reply.embedding, reply.embedding))).toBeCloseTo(1, 5);
  });

  it('truncates long input unless truncate is false', async () => {
    const long = 'word '.repeat(400);
    const truncated = await client.embed({ model: 'all-minilm', input: long });
    expect(truncated.prompt_eval_count).toBe(256);
    const refused = await post('/api/embed', { model: 'all-minilm', input: long, truncate: false });
    expect(refused.status).toBe(400);
    expect(await refused.json()).toEqual({ error: 'input exceeds maximum context length' });
  });

  it('lists and shows the embedding model', async () => {
    const tags = await client.list();
    expect(tags.models.map((m) => m.name)).toContain('all-minilm:latest');
    const show = await client.show({ model: 'all-minilm' });
    expect(show.capabilities).toEqual(['embedding']);
    expect(show.details).toMatchObject({ family: 'bert', format: 'safetensors' });
  });

  it('answers unknown models with 404 and malformed bodies with 400', async () => {
    await expect(client.embed({ model: 'no-such-model', input: 'hi' })).rejects.toMatchObject({
      status_code: 404,
      error: expect.stringContaining("model 'no-such-model' not found"),
    });
    const legacy = await post('/api/embeddings', { model: 'no-such-model', prompt: 'hi' });
    expect(legacy.status).toBe(404);
    for (const body of ['{"model":', { input: 'hi' }, { model: 'all-minilm', input: 42 }, { model: 'all-minilm', input: ['a', 1] }]) {
      const response = await post('/api/embed', body);
      expect(response.status).toBe(400);
      expect(await response.json()).toEqual({ error: expect.any(String) });
    }
  });

  it('refuses chat with an embedding model, and embeddings with a chat model', async () => {
    await expect(client.chat({ model: 'all-minilm', messages: [{ role: 'user', content: 'hi' }], stream: false })).rejects.toMatchObject({
      status_code: 400,
      error: expect.stringContaining('does not support chat'),
    });
    const generate = await post('/api/generate', { model: 'all-minilm', prompt: 'hi', stream: false });
    expect(generate.status).toBe(400);
    await expect(client.embed({ model: 'smollm2', input: 'hi' })).rejects.toMatchObject({
      status_code: 400,
      error: expect.stringContaining('does not support embeddings'),
    });
  });
});
