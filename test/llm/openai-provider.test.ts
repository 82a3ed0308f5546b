import { afterEach, describe, expect, it, vi } from 'vitest';
import { ModelRuntimeError } from '../../runtime/llm/errors/model-runtime-error.js';
import { createLanguageModel } from '../../runtime/llm/create-language-model.js';
import { invoke, invokeStream } from '../../runtime/llm/invoke.js';
import { OpenAiLanguageModel } from '../../runtime/llm/openai-provider.js';
import { startStandIn, type StandInServer } from './support/http-stand-in.js';
import { startOpenAiStandIn } from './support/openai-stand-in.js';

const SCHEMA = {
  type: 'object',
  properties: { answer: { type: 'string' } },
  required: ['answer'],
  additionalProperties: false,
};

async function drain(stream: AsyncIterable<string>): Promise<string> {
  let text = '';
  for await (const chunk of stream) text += chunk;
  return text;
}

describe('OpenAI-compatible provider wire format', () => {
  let server: StandInServer | undefined;
  afterEach(async () => {
    vi.unstubAllEnvs();
    await server?.close();
    server = undefined;
  });

  it('sends model, messages, temperature and response_format json_object', async () => {
    server = await startOpenAiStandIn({ reply: () => '{"ok":true}' });
    const llmConfig = { provider: 'openai', model: 'test-model', temperature: 0.7, base_url: `${server.url}/v1` } as const;
    expect(await invoke(llmConfig, 'give json', { format: 'json', system: 'JSON only.' })).toBe('{"ok":true}');
    const { method, path, headers, body } = server.requests[0]!;
    expect([method, path]).toEqual(['POST', '/v1/chat/completions']);
    expect(headers['content-type']).toBe('application/json');
    expect(body).toEqual({
      model: 'test-model',
      stream: false,
      temperature: 0.7,
      response_format: { type: 'json_object' },
      messages: [
        { role: 'system', content: 'JSON only.' },
        { role: 'user', content: 'give json' },
      ],
    });
  });

  it('sends a JSON schema as response_format json_schema, streamed or not', async () => {
    server = await startOpenAiStandIn({ reply: () => '{"answer":"42"}' });
    const llmConfig = { provider: 'openai', model: 'test-model', base_url: `${server.url}/v1` } as const;
    expect(await invoke(llmConfig, 'q', { format: SCHEMA })).toBe('{"answer":"42"}');
    expect(await drain(invokeStream(llmConfig, 'q', { format: SCHEMA }))).toBe('{"answer":"42"}');
    const expected = { type: 'json_schema', json_schema: { name: 'response', schema: SCHEMA, strict: true } };
    expect(server.requests.map((r) => r.body.response_format)).toEqual([expected, expected]);
    expect(server.requests.map((r) => r.body.stream)).toEqual([false, true]);
    expect(server.requests[0]!.body).not.toHaveProperty('temperature');
  });

  it('sends Authorization: Bearer from api_key, else OPENAI_API_KEY, else no header', async () => {
    server = await startOpenAiStandIn();
    const base = `${server.url}/v1`;
    vi.stubEnv('OPENAI_API_KEY', '');
    await invoke({ provider: 'openai', model: 'test-model', base_url: base }, 'a');
    vi.stubEnv('OPENAI_API_KEY', 'sk-from-env');
    await invoke({ provider: 'openai', model: 'test-model', base_url: base }, 'b');
    await invoke({ provider: 'openai', model: 'test-model', base_url: base, api_key: 'sk-explicit' }, 'c');
    expect(server.requests.map((r) => r.headers.authorization)).toEqual([undefined, 'Bearer sk-from-env', 'Bearer sk-explicit']);
  });

  it('a rejected key is a model_error carrying the server message, never the key', async () => {
    server = await startOpenAiStandIn({ apiKey: 'sk-right' });
    const error = await invoke({ provider: 'openai', model: 'test-model', base_url: `${server.url}/v1`, api_key: 'sk-wrong-secret' }, 'hi').catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ModelRuntimeError);
    expect((error as ModelRuntimeError).code).toBe('model_error');
    expect((error as Error).message).toContain('401');
    expect((error as Error).message).toContain('Incorrect API key provided.');
    expect((error as Error).message).not.toContain('sk-wrong-secret');
  });

  it('falls back to OPENAI_BASE_URL, then to https://api.openai.com/v1', async () => {
    server = await startOpenAiStandIn();
    vi.stubEnv('OPENAI_BASE_URL', `${server.url}/v1/`);
    await expect(invoke({ provider: 'openai', model: 'test-model' }, 'via env')).resolves.toContain('via env');
    vi.stubEnv('OPENAI_BASE_URL', '');
    expect(createLanguageModel({ provider: 'openai', model: 'm' }).baseUrl).toBe('https://api.openai.com/v1');
  });

  it('reports the finish reason and usage from chat()', async () => {
    server = await startOpenAiStandIn();
    const model = new OpenAiLanguageModel({ baseUrl: `${server.url}/v1` });
    expect(await model.chat({ model: 'test-model', messages: [{ role: 'user', content: 'hi' }] })).toEqual({
      text: 'echo: hi (1 messages)',
      model: 'test-model',
      finishReason: 'stop',
      usage: { promptTokens: 7, completionTokens: 11 },
    });
  });

  it('rejects a reply that does not have the completion shape', async () => {
    server = await startStandIn((_request, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ choices: 'not an array' }));
    });
    const error = await invoke({ provider: 'openai', model: 'm', base_url: server.url }, 'hi').catch((e: unknown) => e);
    expect((error as ModelRuntimeError).code).toBe('model_error');
    expect((error as Error).message).toContain('unexpected reply shape');
  });

  it('parses SSE split at arbitrary byte boundaries, with comments and CRLF, and stops at [DONE]', async () => {
    server = await startStandIn(async (_request, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const chunk = (content: string) => `data: ${JSON.stringify({ choices: [{ delta: { content }, finish_reason: null }] })}\r\n\r\n`;
      const wire = `: keep-alive\n\n${chunk('Hel')}${chunk('lo ')}${chunk('wörld')}data: [DONE]\n\n${chunk('after done')}`;
      const bytes = Buffer.from(wire, 'utf8');
      for (let i = 0; i < bytes.length; i += 7) {
        res.write(bytes.subarray(i, i + 7));
        await new Promise((resolve) => setImmediate(resolve));
      }
      res.end();
    });
    expect(await drain(invokeStream({ provider: 'openai', model: 'm', base_url: server.url }, 'hi'))).toBe('Hello wörld');
  });

  it('an error event inside the stream rejects with model_error', async () => {
    server = await startStandIn((_request, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(`data: ${JSON.stringify({ choices: [{ delta: { content: 'partial' } }] })}\n\n`);
      res.end(`data: ${JSON.stringify({ error: { message: 'the model crashed' } })}\n\n`);
    });
    const error = await drain(invokeStream({ provider: 'openai', model: 'm', base_url: server.url }, 'hi')).catch((e: unknown) => e);
    expect((error as ModelRuntimeError).code).toBe('model_error');
    expect((error as Error).message).toContain('the model crashed');
  });

  it('a stream cut off before [DONE] or a finish reason rejects with model_error', async () => {
    server = await startStandIn((_request, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(`data: ${JSON.stringify({ choices: [{ delta: { content: 'partial' } }] })}\n\n`);
    });
    const error = await drain(invokeStream({ provider: 'openai', model: 'm', base_url: server.url }, 'hi')).catch((e: unknown) => e);
    expect((error as ModelRuntimeError).code).toBe('model_error');
  });
});
