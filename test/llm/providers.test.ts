import { afterEach, describe, expect, it } from 'vitest';
import { AbortedError } from '../../runtime/core/errors/aborted-error.js';
import { ModelNotFoundError } from '../../runtime/llm/errors/model-not-found-error.js';
import { ModelRuntimeError } from '../../runtime/llm/errors/model-runtime-error.js';
import type { LlmConfig } from '../../runtime/core/llm-config.js';
import { FrameworkError } from '../../runtime/core/framework-error.js';
import { invoke, invokeStream } from '../../runtime/llm/invoke.js';
import { unusedAddress, type StandInServer } from './support/http-stand-in.js';
import { startOllamaStandIn } from './support/ollama-stand-in.js';
import { startOpenAiStandIn } from './support/openai-stand-in.js';

interface ProviderCase {
  provider: 'ollama' | 'openai';
  start: (options?: { chunkDelayMs?: number; responseDelayMs?: number; reply?: () => string }) => Promise<StandInServer>;
  /** The base_url a client uses for a server root address. */
  baseUrl: (root: string) => string;
  setting: string;
}

const CASES: ProviderCase[] = [
  {
    provider: 'ollama',
    start: (options) => startOllamaStandIn(options),
    baseUrl: (root) => root,
    setting: 'OLLAMA_HOST or llmConfig.base_url',
  },
  {
    provider: 'openai',
    start: (options) => startOpenAiStandIn(options),
    baseUrl: (root) => `${root}/v1`,
    setting: 'OPENAI_BASE_URL or llmConfig.base_url',
  },
];

async function collect(stream: AsyncIterable<string>): Promise<string[]> {
  const chunks: string[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return chunks;
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected the promise to reject');
}

describe.each(CASES)('$provider provider against a real HTTP stand-in', (c) => {
  let server: StandInServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  const config = (model = 'test-model'): LlmConfig => ({ provider: c.provider, model, base_url: c.baseUrl(server!.url) });

  it('invoke returns the model text', async () => {
    server = await c.start();
    await expect(invoke(config(), 'hello there')).resolves.toBe('echo: hello there (1 messages)');
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]!.body.stream).toBe(false);
  });

  it('invokeStream yields the reply in several chunks that join to the full text', async () => {
    server = await c.start();
    const chunks = await collect(invokeStream(config(), 'stream me please'));
    expect(chunks.length).toBeGreaterThan(1);
    expect(chunks.join('')).toBe('echo: stream me please (1 messages)');
    expect(server.requests[0]!.body.stream).toBe(true);
    await expect(server.requests[0]!.settled).resolves.toBe('finished');
  });

  it('an unknown model rejects with ModelNotFoundError and a pull hint', async () => {
    server = await c.start();
    const error = await rejection(invoke(config('no-such-model'), 'hi'));
    expect(error).toBeInstanceOf(ModelNotFoundError);
    expect((error as ModelNotFoundError).code).toBe('model_not_found');
    expect((error as Error).message).toContain('no-such-model');
    expect((error as Error).message).toMatch(/pull no-such-model/);

    const streamed = await rejection(collect(invokeStream(config('no-such-model'), 'hi')));
    expect(streamed).toBeInstanceOf(ModelNotFoundError);
  });

  it('an unreachable runtime rejects with model_runtime_unavailable naming the address and the fix', async () => {
    const address = await unusedAddress();
    const llmConfig: LlmConfig = { provider: c.provider, model: 'test-model', base_url: c.baseUrl(address) };
    for (const attempt of [invoke(llmConfig, 'hi'), collect(invokeStream(llmConfig, 'hi'))]) {
      const error = await rejection(attempt);
      expect(error).toBeInstanceOf(ModelRuntimeError);
      expect((error as ModelRuntimeError).code).toBe('model_runtime_unavailable');
      expect((error as ModelRuntimeError).baseUrl).toBe(c.baseUrl(address));
      const message = (error as Error).message;
      expect(message).toContain(c.baseUrl(address));
      expect(message).toContain('ECONNREFUSED');
      expect(message).toContain('framework-cli model serve');
      expect(message).toContain('ollama serve');
      expect(message).toContain(c.setting);
    }
  });

  it('an AbortSignal fired mid-stream rejects with AbortedError and closes the HTTP request', async () => {
    server = await c.start({ chunkDelayMs: 200, reply: () => 'one two three four five six seven eight nine ten' });
    const controller = new AbortController();
    const chunks: string[] = [];
    const error = await rejection(
      (async () => {
        for await (const chunk of invokeStream(config(), 'slow', { signal: controller.signal })) {
          chunks.push(chunk);
          if (chunks.length === 1) controller.abort();
        }
      })(),
    );
    expect(error).toBeInstanceOf(AbortedError);
    expect(FrameworkError.isInstance(error) && error.code).toBe('aborted');
    expect(chunks.length).toBeLessThan(4);
    await expect(server.requests[0]!.settled).resolves.toBe('closed');
  });

  it('an AbortSignal fired while waiting for a non-streamed reply rejects with AbortedError and closes the request', async () => {
    server = await c.start({ responseDelayMs: 5_000 });
    const controller = new AbortController();
    const pending = invoke(config(), 'slow', { signal: controller.signal });
    await expect.poll(() => server!.requests.length).toBe(1);
    const started = Date.now();
    controller.abort();
    await expect(pending).rejects.toBeInstanceOf(AbortedError);
    expect(Date.now() - started).toBeLessThan(1_000);
    await expect(server.requests[0]!.settled).resolves.toBe('closed');
  });

  it('an already aborted signal rejects without sending anything', async () => {
    server = await c.start();
    await expect(invoke(config(), 'hi', { signal: AbortSignal.abort() })).rejects.toBeInstanceOf(AbortedError);
    await expect(collect(invokeStream(config(), 'hi', { signal: AbortSignal.abort() }))).rejects.toBeInstanceOf(AbortedError);
    expect(server.requests).toHaveLength(0);
  });

  it('a consumer that stops reading early closes the HTTP request', async () => {
    server = await c.start({ chunkDelayMs: 100, reply: () => 'one two three four five six seven eight nine ten' });
    for await (const chunk of invokeStream(config(), 'slow')) {
      expect(chunk).toBe('one ');
      break;
    }
    await expect(server.requests[0]!.settled).resolves.toBe('closed');
  });

  it('a wrong base path is a model_error, not a missing model', async () => {
    server = await c.start();
    const llmConfig: LlmConfig = { provider: c.provider, model: 'test-model', base_url: `${server.url}/wrong` };
    const error = await rejection(invoke(llmConfig, 'hi'));
    expect(error).toBeInstanceOf(ModelRuntimeError);
    expect((error as ModelRuntimeError).code).toBe('model_error');
    expect((error as Error).message).toContain('404');
  });
});
