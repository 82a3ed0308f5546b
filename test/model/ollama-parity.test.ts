import { Ollama } from 'ollama';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startModelServer, type RunningModelServer } from '../../runtime/model/start-model-server.js';
import { defaultEmbeddingStore, defaultModelStore } from './support/default-model.js';

// Generation shares two cores with the rest of the suite: allow for that.
vi.setConfig({ testTimeout: 60_000 });

// What Ollama's clients and its curl examples send, against the real default models.
let server: RunningModelServer;
let client: Ollama;

beforeAll(async () => {
  await defaultEmbeddingStore();
  const { store } = await defaultModelStore();
  server = await startModelServer({ store, host: '127.0.0.1', port: 0 });
  client = new Ollama({ host: server.url });
}, 300_000);

afterAll(async () => {
  await server?.close();
});

const postJson = (path: string, body: unknown) =>
  fetch(`${server.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
const generate = async (options: Record<string, unknown>, prompt = 'List the numbers from 1 to 30.') => {
  const response = await postJson('/api/generate', { model: 'smollm2', prompt, stream: false, options: { temperature: 0, num_predict: 20, ...options } });
  expect(response.status).toBe(200);
  return (await response.json()) as { response: string; done_reason: string; eval_count: number; prompt_eval_count: number };
};

describe('the root route', () => {
  it('answers GET / and HEAD / as Ollama does', async () => {
    const get = await fetch(`${server.url}/`);
    expect(get.status).toBe(200);
    expect(await get.text()).toBe('Ollama is running');
    const head = await fetch(`${server.url}/`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
  });
});

describe('request bodies as Ollama reads them', () => {
  it('takes a JSON body sent with no Content-Type or as text/plain', async () => {
    const body = new TextEncoder().encode(JSON.stringify({ model: 'all-minilm', input: 'hello' }));
    const bare = await fetch(`${server.url}/api/embed`, { method: 'POST', body });
    expect(bare.status).toBe(200);
    expect(((await bare.json()) as { embeddings: number[][] }).embeddings[0]).toHaveLength(384);
    const plain = await fetch(`${server.url}/api/generate`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: JSON.stringify({ model: 'smollm2', prompt: 'Hi', stream: false, options: { temperature: 0, num_predict: 2 } }),
    });
    expect(plain.status).toBe(200);
    expect(await plain.json()).toMatchObject({ done: true });
  });

  it("takes null as not set, as LangChain's OllamaEmbeddings sends it", async () => {
    const options = {
      mirostat: null,
      mirostat_eta: null,
      mirostat_tau: null,
      num_ctx: null,
      num_gpu: null,
      num_thread: null,
      repeat_last_n: null,
      repeat_penalty: null,
      temperature: null,
      stop: null,
      tfs_z: null,
      top_k: null,
      top_p: null,
    };
    const embed = await postJson('/api/embed', { model: 'all-minilm', input: ['hello'], options, keep_alive: null, truncate: null });
    expect(embed.status).toBe(200);
    const legacy = await postJson('/api/embeddings', { model: 'all-minilm', prompt: 'hello', options, keep_alive: null });
    expect(legacy.status).toBe(200);
    expect(((await legacy.json()) as { embedding: number[] }).embedding).toHaveLength(384);
    const reply = await client.chat({
      model: 'smollm2',
      messages: [{ role: 'user', content: 'Hi' }],
      stream: false,
      // The ollama client passes these through as JSON nulls.
      options: { ...options, num_predict: 3 } as unknown as Record<string, number>,
      keep_alive: null as unknown as number,
      format: null as unknown as string,
    });
    expect(reply.done).toBe(true);
    expect(reply.eval_count).toBeLessThanOrEqual(3);
  });

  it('accepts every field Ollama accepts on chat, generate and embed', async () => {
    const options = {
      num_keep: 4,
      typical_p: 1,
      penalize_newline: true,
      mirostat: 0,
      mirostat_tau: 5,
      mirostat_eta: 0.1,
      num_batch: 512,
      num_gpu: 0,
      main_gpu: 0,
      num_thread: 2,
      use_mmap: true,
      use_mlock: false,
      numa: false,
      low_vram: false,
      vocab_only: false,
      temperature: 0,
      num_predict: 2,
    };
    const chat = await postJson('/api/chat', {
      model: 'smollm2',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Hi' },
        { role: 'assistant', content: 'Hello.', thinking: '' },
        { role: 'tool', content: '42', tool_name: 'answer' },
        { role: 'user', content: 'Again' },
      ],
      stream: false,
      think: false,
      truncate: true,
      shift: true,
      options,
    });
    expect(chat.status).toBe(200);
    const generated = await postJson('/api/generate', {
      model: 'smollm2',
      prompt: 'Hi',
      suffix: '',
      system: 'Be brief.',
      template: '',
      context: [],
      raw: false,
      think: false,
      stream: false,
      options,
    });
    expect(generated.status).toBe(200);
    const embedded = await postJson('/api/embed', { model: 'all-minilm', input: 'hi', dimensions: 384, options: { num_ctx: 256 } });
    expect(embedded.status).toBe(200);
  });

  it('refuses what no model here can do, as Ollama refuses it', async () => {
    const chat = (extra: Record<string, unknown>, message: Record<string, unknown> = {}) =>
      postJson('/api/chat', { model: 'smollm2', messages: [{ role: 'user', content: 'Hi', ...message }], stream: false, ...extra });
    const cases: Array<[Promise<Response>, RegExp]> = [
      [chat({ think: true }), /"smollm2" does not support thinking/],
      [chat({ think: 'high' }), /does not support thinking/],
      [chat({}, { images: ['aGVsbG8='] }), /does not support image input/],
      [postJson('/api/generate', { model: 'smollm2', prompt: 'def f(', suffix: 'return 1' }), /"smollm2" does not support insert/],
      [postJson('/api/generate', { model: 'smollm2', prompt: 'Hi', template: '{{ .Prompt }}' }), /template is not supported/],
      [postJson('/api/generate', { model: 'smollm2', prompt: 'Hi', context: [1, 2, 3] }), /context is not supported/],
    ];
    for (const [pending, message] of cases) {
      const response = await pending;
      expect(response.status).toBe(400);
      expect(((await response.json()) as { error: string }).error).toMatch(message);
    }
    const unknown = await postJson('/api/chat', { model: 'no-such-model', messages: [], think: true });
    expect(unknown.status).toBe(404);
  });

  it('refuses an option of the wrong type, and a dimensions the model cannot give', async () => {
    const typed = await postJson('/api/chat', { model: 'smollm2', messages: [{ role: 'user', content: 'Hi' }], options: { temperature: 'hot' } });
    expect(typed.status).toBe(400);
    expect(((await typed.json()) as { error: string }).error).toMatch(/temperature/);
    const shorter = await postJson('/api/embed', { model: 'all-minilm', input: 'hi', dimensions: 128 });
    expect(shorter.status).toBe(400);
    expect(((await shorter.json()) as { error: string }).error).toMatch(/384/);
  });
});

describe('raw generation', () => {
  it('sends a raw prompt without the chat template', async () => {
    const prompt = 'The capital of France is';
    const templated = await generate({ num_predict: 4 }, prompt);
    const response = await postJson('/api/generate', { model: 'smollm2', prompt, raw: true, stream: false, options: { temperature: 0, num_predict: 4 } });
    expect(response.status).toBe(200);
    const raw = (await response.json()) as { response: string; prompt_eval_count: number };
    // The template adds a default system prompt and role markers around these 5 words.
    expect(raw.prompt_eval_count).toBeLessThan(10);
    expect(templated.prompt_eval_count).toBeGreaterThan(raw.prompt_eval_count + 5);
    expect(raw.response).toMatch(/Paris/);
  });
});

describe('sampling as Ollama does it', () => {
  // At temperature 0 the output is deterministic, but which tokens a small model picks depends on the CPU's llama.cpp
  // kernels, so a penalty is checked over a few open-ended prompts at once: it must change at least one of them.
  const PROMPTS = ['List the numbers from 1 to 30.', 'Write a poem about the sea.', 'Tell me a story.'];
  const generateAll = async (options: Record<string, unknown>) => {
    const texts: string[] = [];
    for (const prompt of PROMPTS) texts.push((await generate({ num_predict: 40, ...options }, prompt)).response);
    return texts.join('\n---\n');
  };

  it("applies Ollama's repeat penalty (1.1 over the last 64 tokens) unless told otherwise", async () => {
    const byDefault = await generateAll({});
    const explicit = await generateAll({ repeat_penalty: 1.1, repeat_last_n: 64 });
    const none = await generateAll({ repeat_penalty: 1 });
    const off = await generateAll({ repeat_penalty: 1.1, repeat_last_n: 0 });
    expect(byDefault).toBe(explicit);
    expect(none).not.toBe(byDefault);
    expect(off).toBe(none);
  }, 240_000);

  it('honours presence_penalty and frequency_penalty', async () => {
    const none = await generateAll({ repeat_penalty: 1 });
    const presence = await generateAll({ repeat_penalty: 1, presence_penalty: 1 });
    const frequency = await generateAll({ repeat_penalty: 1, frequency_penalty: 1 });
    expect(presence).not.toBe(none);
    expect(frequency).not.toBe(none);
  }, 240_000);

  it('honours seed at a temperature above 0, stop and num_predict', async () => {
    const seeded = (seed: number) => generate({ temperature: 1, seed, num_predict: 16 }, 'Tell me a story.');
    const first = (await seeded(11)).response;
    expect((await seeded(11)).response).toBe(first);
    expect((await seeded(12)).response).not.toBe(first);
    // Stop at the third word of the unstopped answer: the answer ends just before it.
    const full = (await generate({})).response;
    const third = [...full.matchAll(/\S+/g)][2];
    expect(third).toBeDefined();
    const at = third!.index;
    const stopped = await generate({ stop: [full.slice(at - 1, at + third![0].length)] });
    expect(stopped.response).toBe(full.slice(0, at - 1));
    expect(stopped.done_reason).toBe('stop');
    const short = await generate({ num_predict: 3 });
    expect(short).toMatchObject({ done_reason: 'length', eval_count: 3 });
    // Six generations: on a loaded 2-core machine one took 120 s in CI (load average 17).
  }, 300_000);
});
