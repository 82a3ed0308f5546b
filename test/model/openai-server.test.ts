import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { invoke, invokeStream } from '../../runtime/llm/invoke.js';
import { startModelServer, type RunningModelServer } from '../../runtime/model/start-model-server.js';
import { defaultEmbeddingStore, defaultModelStore } from './support/default-model.js';

// Generation shares two cores with the rest of the suite (and a JSON reply runs to 60 tokens): allow for that.
vi.setConfig({ testTimeout: 120_000 });

// The real default models (SmolLM2-135M, all-MiniLM-L6-v2) through the official openai client, on /v1.
let server: RunningModelServer;
let client: OpenAI;

beforeAll(async () => {
  await defaultEmbeddingStore();
  const { store } = await defaultModelStore();
  server = await startModelServer({ store, host: '127.0.0.1', port: 0 });
  client = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: 'unused', maxRetries: 0 });
}, 300_000);

afterAll(async () => {
  await server?.close();
});

const dot = (a: readonly number[], b: readonly number[]) => a.reduce((sum, x, i) => sum + x * b[i]!, 0);
const post = (path: string, body: unknown) =>
  fetch(`${server.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
const OpenAiErrorBody = z.object({
  error: z.object({ message: z.string().min(1), type: z.string(), param: z.string().nullable(), code: z.string().nullable() }).strict(),
});

describe('chat completions with the openai client', () => {
  it('answers without streaming, with usage and the finish reason', async () => {
    const reply = await client.chat.completions.create({
      model: 'smollm2',
      messages: [
        { role: 'system', content: 'You are terse.' },
        { role: 'user', content: 'Say hello.' },
      ],
      temperature: 0,
      max_tokens: 8,
    });
    expect(reply).toMatchObject({ object: 'chat.completion', model: 'smollm2' });
    expect(reply.id).toMatch(/^chatcmpl-/);
    expect(reply.choices).toHaveLength(1);
    expect(reply.choices[0]!.message.role).toBe('assistant');
    expect(reply.choices[0]!.message.content!.length).toBeGreaterThan(0);
    expect(['stop', 'length']).toContain(reply.choices[0]!.finish_reason);
    expect(reply.usage!.prompt_tokens).toBeGreaterThan(0);
    expect(reply.usage!.completion_tokens).toBeGreaterThan(0);
    expect(reply.usage!.completion_tokens).toBeLessThanOrEqual(8);
    expect(reply.usage!.total_tokens).toBe(reply.usage!.prompt_tokens + reply.usage!.completion_tokens);
  });

  it('streams chunks, then a finish reason, usage when asked, and [DONE]', async () => {
    const stream = await client.chat.completions.create({
      model: 'smollm2:latest',
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Count to five.' }] }],
      temperature: 0,
      max_completion_tokens: 8,
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks.every((c) => c.object === 'chat.completion.chunk')).toBe(true);
    const text = chunks.map((c) => c.choices[0]?.delta.content ?? '').join('');
    expect(text.length).toBeGreaterThan(0);
    const finishes = chunks.flatMap((c) => c.choices.map((choice) => choice.finish_reason)).filter(Boolean);
    expect(finishes).toEqual(['length']);
    const last = chunks.at(-1)!;
    expect(last.choices).toEqual([]);
    expect(last.usage).toMatchObject({ completion_tokens: 8 });
  });

  it('ends the raw event stream with data: [DONE]', async () => {
    const response = await post('/v1/chat/completions', { model: 'smollm2', messages: [{ role: 'user', content: 'Hi' }], max_tokens: 2, stream: true });
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const events = (await response.text()).split('\n\n').filter(Boolean);
    expect(events.at(-1)).toBe('data: [DONE]');
    expect(events.slice(0, -1).every((e) => e.startsWith('data: {'))).toBe(true);
  });

  it('returns JSON that validates against a json_schema response_format', async () => {
    const reply = await client.chat.completions.create({
      model: 'smollm2',
      messages: [{ role: 'user', content: 'Name the capital of France and its country as JSON.' }],
      response_format: {
        type: 'json_schema',
        json_schema: {
          name: 'capital',
          strict: true,
          schema: { type: 'object', properties: { city: { type: 'string' }, country: { type: 'string' } }, required: ['city', 'country'] },
        },
      },
      temperature: 0,
      max_tokens: 60,
    });
    const parsed = z.object({ city: z.string(), country: z.string() }).strict().safeParse(JSON.parse(reply.choices[0]!.message.content!));
    expect(parsed.success).toBe(true);
  });

  it('returns a JSON object for response_format json_object', async () => {
    const reply = await client.chat.completions.create({
      model: 'smollm2',
      messages: [{ role: 'user', content: 'Describe a cat as JSON.' }],
      response_format: { type: 'json_object' },
      temperature: 0,
      max_tokens: 60,
    });
    const content = reply.choices[0]!.message.content!;
    expect(reply.choices[0]!.finish_reason).toBe('stop');
    expect(typeof JSON.parse(content)).toBe('object');
  });

  it('gives the same text for the same seed at temperature 1, and stops at a stop sequence', async () => {
    const ask = (seed: number) =>
      client.chat.completions.create({ model: 'smollm2', messages: [{ role: 'user', content: 'Tell me a story.' }], temperature: 1, seed, max_tokens: 16 });
    const [a, b] = [await ask(7), await ask(7)];
    expect(a.choices[0]!.message.content).toBe(b.choices[0]!.message.content);
    const stopped = await client.chat.completions.create({
      model: 'smollm2',
      messages: [{ role: 'user', content: 'Tell me a story.' }],
      temperature: 0,
      max_tokens: 40,
      stop: [' '],
    });
    expect(stopped.choices[0]!.message.content).not.toContain(' ');
    expect(stopped.choices[0]!.finish_reason).toBe('stop');
  });
});

describe('completions with the openai client', () => {
  it('completes a prompt, streamed or not', async () => {
    const reply = await client.completions.create({ model: 'smollm2', prompt: 'The sky is', temperature: 0, max_tokens: 4 });
    expect(reply.object).toBe('text_completion');
    expect(reply.id).toMatch(/^cmpl-/);
    expect(reply.choices[0]!.text.length).toBeGreaterThan(0);
    expect(reply.usage!.completion_tokens).toBeLessThanOrEqual(4);
    const stream = await client.completions.create({ model: 'smollm2', prompt: 'The sky is', temperature: 0, max_tokens: 4, stream: true });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.text ?? '';
    expect(text).toBe(reply.choices[0]!.text);
  });
});

describe('embeddings with the openai client', () => {
  it('embeds a batch (the client asks for base64) and a string as floats, as /api/embed does', async () => {
    const batch = await client.embeddings.create({ model: 'all-minilm', input: ['A man is eating food.', 'A man is eating a piece of bread.'] });
    expect(batch.object).toBe('list');
    expect(batch.data.map((d) => d.index)).toEqual([0, 1]);
    const [food, bread] = batch.data.map((d) => d.embedding) as [number[], number[]];
    expect(food).toHaveLength(384);
    expect(Math.sqrt(dot(food, food))).toBeCloseTo(1, 5);
    expect(dot(food, bread)).toBeCloseTo(0.7553, 2);
    expect(batch.usage.prompt_tokens).toBeGreaterThan(0);
    const single = await client.embeddings.create({ model: 'all-minilm', input: 'A man is eating food.', encoding_format: 'float' });
    expect(dot(single.data[0]!.embedding, food)).toBeCloseTo(1, 5);
    const ollama = (await (await post('/api/embed', { model: 'all-minilm', input: 'A man is eating food.' })).json()) as { embeddings: number[][] };
    expect(single.data[0]!.embedding).toEqual(ollama.embeddings[0]);
  });

  it('refuses dimensions it cannot give with a 400 naming the parameter', async () => {
    const error = await client.embeddings.create({ model: 'all-minilm', input: 'hi', dimensions: 128 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect(error).toMatchObject({ status: 400, param: 'dimensions', type: 'invalid_request_error' });
    expect((error as Error).message).toMatch(/384/);
    const same = await client.embeddings.create({ model: 'all-minilm', input: 'hi', dimensions: 384 });
    expect(same.data[0]!.embedding).toHaveLength(384);
  });
});

describe('models with the openai client', () => {
  it('lists and retrieves the models', async () => {
    const ids = [];
    for await (const model of client.models.list()) ids.push(model.id);
    expect(ids).toEqual(expect.arrayContaining(['smollm2:latest', 'all-minilm:latest']));
    const model = await client.models.retrieve('smollm2');
    expect(model).toMatchObject({ id: 'smollm2:latest', object: 'model', owned_by: 'library' });
    expect(model.created).toBeGreaterThan(1_600_000_000);
    await expect(client.models.retrieve('no-such-model')).rejects.toBeInstanceOf(OpenAI.NotFoundError);
  });
});

describe("OpenAI's error shape", () => {
  it('answers an unknown model with 404 model_not_found', async () => {
    const error = await client.chat.completions.create({ model: 'no-such-model', messages: [{ role: 'user', content: 'hi' }] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.NotFoundError);
    expect(error).toMatchObject({ status: 404, code: 'model_not_found', type: 'invalid_request_error' });
    const raw = await post('/v1/embeddings', { model: 'no-such-model', input: 'hi' });
    expect(raw.status).toBe(404);
    expect(OpenAiErrorBody.parse(await raw.json()).error.code).toBe('model_not_found');
  });

  it('answers a model name with a malformed percent-encoding with 400, never a 500', async () => {
    const raw = await fetch(`${server.url}/v1/models/%E0%A4%A`);
    expect(raw.status).toBe(400);
    const body = OpenAiErrorBody.parse(await raw.json());
    expect(body.error).toMatchObject({ type: 'invalid_request_error' });
    expect(body.error.message).toMatch(/percent-encoding/);
  });

  it('answers malformed requests with 400 and the parameter at fault', async () => {
    const cases: Array<[path: string, body: unknown, param: string | null]> = [
      ['/v1/chat/completions', { model: 'smollm2' }, 'messages'],
      ['/v1/chat/completions', { model: 'smollm2', messages: [{ role: 'wizard', content: 'hi' }] }, 'messages.0.role'],
      [
        '/v1/chat/completions',
        { model: 'smollm2', messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'x' } }] }] },
        'messages.0.content.0',
      ],
      ['/v1/chat/completions', { model: 'smollm2', messages: [{ role: 'user', content: 'hi' }], n: 2 }, 'n'],
      ['/v1/chat/completions', { model: 'all-minilm', messages: [{ role: 'user', content: 'hi' }] }, null],
      ['/v1/embeddings', { model: 'all-minilm', input: [] }, 'input'],
      ['/v1/embeddings', { model: 'all-minilm', input: [1, 2, 3] }, 'input'],
      ['/v1/embeddings', { model: 'smollm2', input: 'hi' }, null],
      ['/v1/completions', { model: 'smollm2', prompt: 'hi', echo: true }, 'echo'],
      // Found before the first token, so a stream still gets a status code.
      ['/v1/chat/completions', { model: 'smollm2', messages: [{ role: 'user', content: 'word '.repeat(2500) }], stream: true }, null],
    ];
    for (const [path, body, param] of cases) {
      const response = await post(path, body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      const { error } = OpenAiErrorBody.parse(await response.json());
      expect(error).toMatchObject({ type: 'invalid_request_error', param });
    }
    const broken = await fetch(`${server.url}/v1/chat/completions`, { method: 'POST', body: '{"model":' });
    expect(broken.status).toBe(400);
    expect(OpenAiErrorBody.parse(await broken.json()).error.message).toMatch(/invalid JSON/);
    const noRoute = await fetch(`${server.url}/v1/assistants`, { method: 'POST', body: '{}' });
    expect(noRoute.status).toBe(404);
    OpenAiErrorBody.parse(await noRoute.json());
  });

  it('takes null as not set', async () => {
    const response = await post('/v1/chat/completions', {
      model: 'smollm2',
      messages: [{ role: 'user', content: 'Hi' }],
      max_tokens: 2,
      temperature: null,
      top_p: null,
      stop: null,
      seed: null,
      response_format: null,
      stream_options: null,
    });
    expect(response.status).toBe(200);
    expect((await response.json()) as unknown).toMatchObject({ object: 'chat.completion' });
  });
});

describe("the toolkit's openai provider against /v1", () => {
  it('answers invoke() and invokeStream() with a JSON schema', async () => {
    const llm = { provider: 'openai' as const, model: 'smollm2', temperature: 0, base_url: `${server.url}/v1`, api_key: 'unused' };
    const format = { type: 'object', properties: { fruit: { type: 'string' }, colour: { type: 'string' } }, required: ['fruit', 'colour'] };
    const Fruit = z.object({ fruit: z.string(), colour: z.string() });
    const text = await invoke(llm, 'Give a fruit name and its colour as JSON.', { format });
    expect(Fruit.safeParse(JSON.parse(text)).success).toBe(true);
    let streamed = '';
    for await (const chunk of invokeStream(llm, 'Give a fruit name and its colour as JSON.', { format })) streamed += chunk;
    expect(streamed).toBe(text);
  });

  it('reports an unknown model as a missing model', async () => {
    const error = await invoke({ provider: 'openai', model: 'no-such-model', base_url: `${server.url}/v1`, api_key: 'unused' }, 'hi').catch((e: unknown) => e);
    expect((error as Error).message).toMatch(/no-such-model/);
    expect(error).toMatchObject({ code: 'model_not_found' });
  });
});
