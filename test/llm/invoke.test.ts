import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AbortedError } from '../../runtime/core/errors/aborted-error.js';
import { ConfigError } from '../../runtime/core/errors/config-error.js';
import { ModelNotFoundError } from '../../runtime/llm/errors/model-not-found-error.js';
import type { LlmConfig } from '../../runtime/core/llm-config.js';
import { setDefaultThreadHistory } from '../../runtime/llm/create-thread-history.js';
import { invoke, invokeStream } from '../../runtime/llm/invoke.js';
import { KvThreadHistory } from '../../runtime/llm/kv-thread-history.js';
import type { ChatRequest, LanguageModel } from '../../runtime/llm/language-model.js';
import { InProcessThreadHistory } from '../../runtime/llm/in-process-thread-history.js';
import type { StandInServer } from './support/http-stand-in.js';
import { startOllamaStandIn } from './support/ollama-stand-in.js';
import { startOpenAiStandIn } from './support/openai-stand-in.js';

const REDIS_URL = 'redis://127.0.0.1:6379';

async function drain(stream: AsyncIterable<string>): Promise<string> {
  let text = '';
  for await (const chunk of stream) text += chunk;
  return text;
}

describe('invoke and thread history', () => {
  let server: StandInServer;
  let llmConfig: LlmConfig;
  beforeAll(async () => {
    server = await startOllamaStandIn();
    llmConfig = { provider: 'ollama', model: 'test-model', temperature: 0, base_url: server.url };
  });
  afterEach(() => {
    server.requests.length = 0;
  });
  afterAll(async () => {
    await server.close();
  });

  const sentMessages = (i: number) => server.requests[i]!.body.messages as Array<{ role: string; content: string }>;

  it('the same threadId sends the earlier exchange with the next prompt', async () => {
    const history = new InProcessThreadHistory({ maxMessages: 10 });
    const first = await invoke(llmConfig, 'My name is Ada.', { threadId: 't1', history });
    expect(first).toBe('echo: My name is Ada. (1 messages)');
    const second = await invoke(llmConfig, 'What is my name?', { threadId: 't1', history });
    expect(second).toBe('echo: What is my name? (3 messages)');
    expect(sentMessages(1)).toEqual([
      { role: 'user', content: 'My name is Ada.' },
      { role: 'assistant', content: first },
      { role: 'user', content: 'What is my name?' },
    ]);
    expect(await history.load('t1')).toHaveLength(4);
  });

  it('a different threadId starts a fresh conversation', async () => {
    const history = new InProcessThreadHistory({ maxMessages: 10 });
    await invoke(llmConfig, 'My name is Ada.', { threadId: 'a', history });
    await invoke(llmConfig, 'What is my name?', { threadId: 'b', history });
    expect(sentMessages(1)).toEqual([{ role: 'user', content: 'What is my name?' }]);
  });

  it('without a threadId each call is independent and nothing is stored', async () => {
    const history = new InProcessThreadHistory({ maxMessages: 10 });
    await invoke(llmConfig, 'one', { history });
    await drain(invokeStream(llmConfig, 'two', { history }));
    await invoke(llmConfig, 'three', { history });
    expect(sentMessages(2)).toEqual([{ role: 'user', content: 'three' }]);
    expect(history.size).toBe(0);
  });

  it('sends at most maxMessages of history, the most recent ones', async () => {
    const history = new InProcessThreadHistory({ maxMessages: 4 });
    for (const prompt of ['p1', 'p2', 'p3', 'p4']) await invoke(llmConfig, prompt, { threadId: 'capped', history });
    expect(sentMessages(3).map((m) => m.content)).toEqual(['p2', 'echo: p2 (3 messages)', 'p3', 'echo: p3 (5 messages)', 'p4']);
    expect(await history.load('capped')).toHaveLength(4);
  });

  it('sends the system prompt first on every call but never stores it', async () => {
    const history = new InProcessThreadHistory({ maxMessages: 10 });
    await invoke(llmConfig, 'hi', { threadId: 's', history, system: 'Be brief.' });
    await invoke(llmConfig, 'again', { threadId: 's', history, system: 'Be brief.' });
    expect(sentMessages(1).map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user']);
    expect((await history.load('s')).map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
  });

  it('invokeStream stores the exchange once the stream completes', async () => {
    const history = new InProcessThreadHistory({ maxMessages: 10 });
    const reply = await drain(invokeStream(llmConfig, 'streamed question', { threadId: 'st', history }));
    expect(await history.load('st')).toEqual([
      { role: 'user', content: 'streamed question' },
      { role: 'assistant', content: reply },
    ]);
    await invoke(llmConfig, 'follow-up', { threadId: 'st', history });
    expect(sentMessages(1).map((m) => m.content)).toEqual(['streamed question', reply, 'follow-up']);
  });

  it('a failed call stores nothing', async () => {
    const history = new InProcessThreadHistory({ maxMessages: 10 });
    const missing = { ...llmConfig, model: 'missing-model' };
    await expect(invoke(missing, 'hi', { threadId: 'f', history })).rejects.toBeInstanceOf(ModelNotFoundError);
    await expect(drain(invokeStream(missing, 'hi', { threadId: 'f', history }))).rejects.toBeInstanceOf(ModelNotFoundError);
    expect(await history.load('f')).toEqual([]);
  });

  it('uses the default thread history when none is passed', async () => {
    const history = new InProcessThreadHistory({ maxMessages: 10 });
    setDefaultThreadHistory(history);
    try {
      await invoke(llmConfig, 'remember me', { threadId: 'default-memory' });
      expect(await history.load('default-memory')).toHaveLength(2);
    } finally {
      setDefaultThreadHistory(undefined);
    }
  });

  it('the memory backend loses history when a new instance is created (a restart)', async () => {
    await invoke(llmConfig, 'My name is Ada.', { threadId: 'r', history: new InProcessThreadHistory({ maxMessages: 10 }) });
    await invoke(llmConfig, 'What is my name?', { threadId: 'r', history: new InProcessThreadHistory({ maxMessages: 10 }) });
    expect(sentMessages(1)).toEqual([{ role: 'user', content: 'What is my name?' }]);
  });

  it('invalid llmConfig rejects with ConfigError naming the field', async () => {
    const cases: Array<[unknown, string]> = [
      [{ provider: 'gemini', model: 'm' }, 'llmConfig.provider'],
      [{ provider: 'ollama', model: '' }, 'llmConfig.model'],
      [{ provider: 'ollama', model: 'm', temperature: 7 }, 'llmConfig.temperature'],
      [{ provider: 'openai', model: 'm', base_url: 'not a url' }, 'llmConfig.base_url'],
      [{ provider: 'ollama' }, 'llmConfig.model'],
    ];
    for (const [bad, field] of cases) {
      for (const call of [invoke(bad as LlmConfig, 'hi'), drain(invokeStream(bad as LlmConfig, 'hi'))]) {
        const error = await call.catch((e: unknown) => e);
        expect(error).toBeInstanceOf(ConfigError);
        expect((error as ConfigError).code).toBe('invalid_config');
        expect((error as ConfigError).issues.map((i) => i.variable)).toContain(field);
        expect((error as Error).message).toContain(field);
      }
    }
    expect(server.requests).toHaveLength(0);
  });

  it('an empty threadId is refused', async () => {
    await expect(invoke(llmConfig, 'hi', { threadId: '' })).rejects.toThrow(/threadId/);
  });
});

describe('invokeStream and abort with thread history', () => {
  let server: StandInServer;
  beforeAll(async () => {
    server = await startOllamaStandIn({ chunkDelayMs: 150, reply: () => 'a b c d e f g h' });
  });
  afterAll(async () => {
    await server.close();
  });

  it('an aborted stream rejects with AbortedError and stores nothing', async () => {
    const history = new InProcessThreadHistory({ maxMessages: 10 });
    const controller = new AbortController();
    const llmConfig: LlmConfig = { provider: 'ollama', model: 'test-model', base_url: server.url };
    const run = async () => {
      for await (const _chunk of invokeStream(llmConfig, 'slow', { threadId: 'ab', history, signal: controller.signal })) {
        controller.abort();
      }
    };
    await expect(run()).rejects.toBeInstanceOf(AbortedError);
    expect(await history.load('ab')).toEqual([]);
  });

  it('a consumer that stops early stores nothing', async () => {
    const history = new InProcessThreadHistory({ maxMessages: 10 });
    const llmConfig: LlmConfig = { provider: 'ollama', model: 'test-model', base_url: server.url };
    for await (const _chunk of invokeStream(llmConfig, 'slow', { threadId: 'early', history })) break;
    expect(await history.load('early')).toEqual([]);
  });
});

describe('threads with the OpenAI-compatible provider', () => {
  it('sends the earlier exchange in order', async () => {
    const server = await startOpenAiStandIn();
    try {
      const llmConfig: LlmConfig = { provider: 'openai', model: 'test-model', base_url: `${server.url}/v1` };
      const history = new InProcessThreadHistory({ maxMessages: 10 });
      const first = await drain(invokeStream(llmConfig, 'first', { threadId: 'o', history }));
      await invoke(llmConfig, 'second', { threadId: 'o', history, system: 'sys' });
      expect(server.requests[1]!.body.messages).toEqual([
        { role: 'system', content: 'sys' },
        { role: 'user', content: 'first' },
        { role: 'assistant', content: first },
        { role: 'user', content: 'second' },
      ]);
    } finally {
      await server.close();
    }
  });
});

describe('kv thread history through invoke', () => {
  const prefix = `fw-test-${randomUUID()}:`;
  let server: StandInServer;
  let admin: Redis;
  beforeAll(async () => {
    server = await startOllamaStandIn();
    admin = new Redis(REDIS_URL);
  });
  afterAll(async () => {
    const keys = await admin.keys(`${prefix}*`);
    if (keys.length > 0) await admin.del(...keys);
    await admin.quit();
    await server.close();
  });

  it('survives a restart: a new KvThreadHistory continues the thread', async () => {
    const llmConfig: LlmConfig = { provider: 'ollama', model: 'test-model', base_url: server.url };
    const before = new KvThreadHistory({ url: REDIS_URL, maxMessages: 10, keyPrefix: prefix });
    const first = await invoke(llmConfig, 'My name is Ada.', { threadId: 'kv-thread', history: before });
    await before.close();

    const after = new KvThreadHistory({ url: REDIS_URL, maxMessages: 10, keyPrefix: prefix });
    try {
      await invoke(llmConfig, 'What is my name?', { threadId: 'kv-thread', history: after });
    } finally {
      await after.close();
    }
    expect(server.requests[1]!.body.messages).toEqual([
      { role: 'user', content: 'My name is Ada.' },
      { role: 'assistant', content: first },
      { role: 'user', content: 'What is my name?' },
    ]);
  });
});

describe('invoke with an injected LanguageModel', () => {
  it('calls it with the model name, temperature, format and signal', async () => {
    const calls: ChatRequest[] = [];
    const scripted: LanguageModel = {
      provider: 'scripted',
      baseUrl: 'memory:',
      async chat(request) {
        calls.push(request);
        return { text: 'scripted reply', model: request.model };
      },
      async *chatStream(request) {
        calls.push(request);
        yield 'scripted ';
        yield 'stream';
      },
    };
    const signal = new AbortController().signal;
    const llmConfig: LlmConfig = { provider: 'ollama', model: 'x', temperature: 1.5 };
    expect(await invoke(llmConfig, 'hi', { languageModel: scripted, format: 'json', signal })).toBe('scripted reply');
    expect(await drain(invokeStream(llmConfig, 'hi', { languageModel: scripted }))).toBe('scripted stream');
    expect(calls[0]).toEqual({
      model: 'x',
      temperature: 1.5,
      format: 'json',
      signal,
      messages: [{ role: 'user', content: 'hi' }],
    });
  });
});
