import { afterEach, describe, expect, it, vi } from 'vitest';
import { ModelRuntimeError } from '../../runtime/llm/errors/model-runtime-error.js';
import { invoke, invokeStream } from '../../runtime/llm/invoke.js';
import { OllamaLanguageModel } from '../../runtime/llm/ollama-provider.js';
import { createLanguageModel } from '../../runtime/llm/create-language-model.js';
import type { StandInServer } from './support/http-stand-in.js';
import { startOllamaStandIn } from './support/ollama-stand-in.js';

const SCHEMA = {
  type: 'object',
  properties: { answer: { type: 'string' }, confidence: { type: 'number' } },
  required: ['answer'],
};

describe('Ollama provider wire format', () => {
  let server: StandInServer | undefined;
  afterEach(async () => {
    vi.unstubAllEnvs();
    await server?.close();
    server = undefined;
  });

  it('sends model, messages, temperature and format "json" as given', async () => {
    server = await startOllamaStandIn({ reply: () => '{"ok":true}' });
    const text = await invoke({ provider: 'ollama', model: 'test-model', temperature: 0.3, base_url: server.url }, 'give json', {
      format: 'json',
      system: 'You answer in JSON.',
    });
    expect(JSON.parse(text)).toEqual({ ok: true });
    const { method, path, body } = server.requests[0]!;
    expect([method, path]).toEqual(['POST', '/api/chat']);
    expect(body).toMatchObject({
      model: 'test-model',
      stream: false,
      format: 'json',
      options: { temperature: 0.3 },
      messages: [
        { role: 'system', content: 'You answer in JSON.' },
        { role: 'user', content: 'give json' },
      ],
    });
  });

  it('passes a JSON schema format straight through, streamed or not', async () => {
    server = await startOllamaStandIn({ reply: () => '{"answer":"42"}' });
    const llmConfig = { provider: 'ollama', model: 'test-model', temperature: 0, base_url: server.url } as const;
    await invoke(llmConfig, 'q', { format: SCHEMA });
    let streamed = '';
    for await (const chunk of invokeStream(llmConfig, 'q', { format: SCHEMA })) streamed += chunk;
    expect(streamed).toBe('{"answer":"42"}');
    expect(server.requests.map((r) => r.body.format)).toEqual([SCHEMA, SCHEMA]);
    expect(server.requests.map((r) => r.body.options)).toEqual([{ temperature: 0 }, { temperature: 0 }]);
    expect(server.requests.map((r) => r.body.stream)).toEqual([false, true]);
  });

  it('omits temperature and format when not given', async () => {
    server = await startOllamaStandIn();
    await invoke({ provider: 'ollama', model: 'test-model', base_url: server.url }, 'hi');
    expect(server.requests[0]!.body).not.toHaveProperty('format');
    expect(server.requests[0]!.body).not.toHaveProperty('options');
  });

  it('reports the finish reason and token counts from chat()', async () => {
    server = await startOllamaStandIn();
    const model = new OllamaLanguageModel({ baseUrl: server.url });
    const result = await model.chat({ model: 'test-model', messages: [{ role: 'user', content: 'hi' }] });
    expect(result).toEqual({
      text: 'echo: hi (1 messages)',
      model: 'test-model',
      finishReason: 'stop',
      usage: { promptTokens: 7, completionTokens: 11 },
    });
  });

  it('falls back to OLLAMA_HOST, read when the model is created, then to http://127.0.0.1:11434', async () => {
    server = await startOllamaStandIn();
    vi.stubEnv('OLLAMA_HOST', server.url);
    expect(createLanguageModel({ provider: 'ollama', model: 'test-model' }).baseUrl).toBe(server.url);
    await expect(invoke({ provider: 'ollama', model: 'test-model' }, 'via env')).resolves.toContain('via env');
    vi.stubEnv('OLLAMA_HOST', '');
    expect(createLanguageModel({ provider: 'ollama', model: 'm' }).baseUrl).toBe('http://127.0.0.1:11434');
    expect(new OllamaLanguageModel({ env: { OLLAMA_HOST: '10.0.0.5:11434' } }).baseUrl).toBe('http://10.0.0.5:11434');
  });

  it('the explicit base_url wins over OLLAMA_HOST', () => {
    vi.stubEnv('OLLAMA_HOST', 'http://10.0.0.9:1');
    expect(createLanguageModel({ provider: 'ollama', model: 'm', base_url: 'http://127.0.0.1:4000' }).baseUrl).toBe('http://127.0.0.1:4000');
  });

  it('an error line inside the stream rejects with model_error carrying the runtime message', async () => {
    server = await startOllamaStandIn({ streamError: 'out of memory while loading the model' });
    const run = async () => {
      for await (const _ of invokeStream({ provider: 'ollama', model: 'test-model', base_url: server!.url }, 'hi')) {
        // drain
      }
    };
    const error = await run().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ModelRuntimeError);
    expect((error as ModelRuntimeError).code).toBe('model_error');
    expect((error as Error).message).toContain('out of memory while loading the model');
  });

  it('other HTTP errors are model_error with the runtime message', async () => {
    server = await startOllamaStandIn({
      reply: () => {
        throw new Error('boom in the runtime');
      },
    });
    const error = await invoke({ provider: 'ollama', model: 'test-model', base_url: server.url }, 'hi').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ModelRuntimeError);
    expect((error as ModelRuntimeError).code).toBe('model_error');
    expect((error as Error).message).toContain('500');
    expect((error as Error).message).toContain('boom in the runtime');
  });
});
