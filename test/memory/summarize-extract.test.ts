import { describe, expect, it } from 'vitest';
import { createMemoryService } from '../../runtime/memory/create-memory-service.js';
import { EXTRACTION_SCHEMA, type MemoryLanguageModel } from '../../runtime/memory/memory-model.js';
import { SystemMemory } from '../../runtime/memory/system-memory.js';
import { OllamaLanguageModel } from '../../runtime/llm/ollama-provider.js';
import { ScriptedLanguageModel } from '../../runtime/testing/scripted-language-model.js';
import { redisScope } from '../support/redis-scope.js';
import { call, modelRuntime, openMemory, search } from './support.js';

// Working-memory summarisation (AMS `_summarize_working_memory`) and
// discrete memory extraction, through a scripted model (the logic) and once
// through the real SmolLM2 of our model runtime.

const scope = redisScope();
const models = modelRuntime();

function withModel(lm: MemoryLanguageModel) {
  const opened = scope.track(openMemory({ keyPrefix: scope.prefix, ollamaHost: models.url() }));
  const memory = new SystemMemory({ store: opened.store, embedder: opened.memory.embedder, languageModel: lm });
  return { app: createMemoryService({ memory }), memory, plain: opened.app };
}

const turn = (i: number) => ({
  role: i % 2 === 0 ? 'user' : 'assistant',
  content: `Message number ${i}: ${'we talked about the garden and the roses '.repeat(3)}`,
});

describe('working-memory summarisation', () => {
  it('folds the older messages into context past 70% of context_window_max, keeping the recent ones, counting tokens', async () => {
    // The scripted model answers extraction with no memories, and the summary with a fixed text.
    const model = new ScriptedLanguageModel({
      replies: [(request) => (request.format ? '{"memories": []}' : 'The user and the assistant discussed the garden and its roses.')],
    });
    const { app } = withModel({ model, name: 'scripted', contextTokens: 8192 });
    const messages = Array.from({ length: 10 }, (_, i) => turn(i));
    const put = await call(app, 'PUT', '/v1/working-memory/long-talk?context_window_max=200', { messages });
    expect(put.status).toBe(200);
    expect(put.body.context).toBe('The user and the assistant discussed the garden and its roses.');
    // 10 messages of ~38 tokens: 40% of 200 tokens keeps the last two.
    expect(put.body.messages.map((m: { content: string }) => m.content.slice(0, 17))).toEqual(['Message number 8:', 'Message number 9:']);
    expect(put.body.tokens).toBeGreaterThan(0);
    expect(put.body.context_percentage_total_used).toBeGreaterThan(0);
    expect(put.body.context_percentage_until_summarization).toBeLessThanOrEqual(100);
    const summaryRequest = model.requests.find((r) => !r.format)!;
    expect(summaryRequest.messages[0]!.content).toContain('user: Message number 0:');
    expect(summaryRequest.messages[0]!.content).not.toContain('Message number 8:');
    // It is stored: the prompt starts with the summary, AMS's wording.
    const prompt = await call(app, 'POST', '/v1/memory/prompt', { query: 'What did we discuss?', session: { session_id: 'long-talk' } });
    expect(prompt.body.messages[0].content.text).toBe(
      '## A summary of the conversation so far:\nThe user and the assistant discussed the garden and its roses.',
    );
    expect(prompt.body.messages).toHaveLength(4);
  });

  it('leaves a session under the threshold alone, truncates on read, and says when it has no model to summarise', async () => {
    const model = new ScriptedLanguageModel({ replies: ['{"memories": []}'] });
    const { app, plain } = withModel({ model, name: 'scripted' });
    const short = await call(app, 'PUT', '/v1/working-memory/short?context_window_max=100000', { messages: [turn(0), turn(1)] });
    expect(short.body.context).toBeNull();
    expect(short.body.messages).toHaveLength(2);
    const read = await call(app, 'GET', '/v1/working-memory/short?context_window_max=50');
    expect(read.body.messages).toHaveLength(1);
    expect(read.body.context_percentage_total_used).toBeGreaterThan(50);
    expect((await call(app, 'GET', '/v1/working-memory/short?model_name=gpt-4o-mini')).body.context_percentage_total_used).toBeLessThan(1);
    const unknown = await call(app, 'GET', '/v1/working-memory/short?model_name=my-model');
    expect(unknown.status).toBe(400);
    expect(unknown.body.message).toContain('context_window_max');
    const noModel = await call(plain, 'PUT', '/v1/working-memory/nomodel?context_window_max=50', { messages: [turn(0), turn(1), turn(2)] });
    expect(noModel.status).toBe(400);
    expect(noModel.body.message).toContain('needs a language model');
  });
});

describe('memory extraction', () => {
  it('extracts discrete memories with topics and entities (JSON-schema format), scoped to the session, and marks the messages', async () => {
    const model = new ScriptedLanguageModel({
      replies: [
        JSON.stringify({
          memories: [
            { type: 'semantic', text: 'User prefers window seats when flying', topics: ['travel'], entities: ['User', 'window seat'] },
            {
              type: 'episodic',
              text: 'User flew to Lisbon in March 2025',
              topics: ['travel, trips'],
              entities: ['Lisbon'],
              event_date: '2025-03-10T00:00:00Z',
            },
          ],
        }),
      ],
    });
    const { app, memory } = withModel({ model, name: 'scripted' });
    const put = await call(app, 'PUT', '/v1/working-memory/trip?namespace=ex&user_id=ana', {
      messages: [
        { role: 'user', content: 'I always pick a window seat.' },
        { role: 'user', content: 'Last March I flew to Lisbon.' },
      ],
    });
    expect(put.status).toBe(200);
    await memory.settled();
    expect(model.requests[0]!.format).toEqual(EXTRACTION_SCHEMA);
    expect(model.requests[0]!.messages[0]!.content).toContain('user: Last March I flew to Lisbon.');
    const found = await search(app, {
      text: 'Where does the user like to sit on planes?',
      namespace: { eq: 'ex' },
      user_id: { eq: 'ana' },
      recency_boost: false,
    });
    expect(found.memories.map((m) => m.text)).toEqual(['User prefers window seats when flying', 'User flew to Lisbon in March 2025']);
    expect(found.memories[1]).toMatchObject({
      memory_type: 'episodic',
      topics: ['travel trips'],
      entities: ['Lisbon'],
      event_date: '2025-03-10T00:00:00.000Z',
      session_id: 'trip',
      discrete_memory_extracted: 't',
    });
    expect(found.memories[0]!.extracted_from).toEqual(put.body.messages.map((m: { id: string }) => m.id));
    const after = await call(app, 'GET', '/v1/working-memory/trip?namespace=ex&user_id=ana');
    expect(after.body.messages.map((m: { discrete_memory_extracted: string }) => m.discrete_memory_extracted)).toEqual(['t', 't']);
    // A second write does not extract the same messages again.
    await call(app, 'PUT', '/v1/working-memory/trip?namespace=ex&user_id=ana', { messages: after.body.messages });
    await memory.settled();
    expect(model.requests).toHaveLength(1);
  });

  it('keeps the messages unmarked when the model answers something else', async () => {
    const model = new ScriptedLanguageModel({ replies: ['Sure! Here are some memories: the user likes tea.'] });
    const { app, memory } = withModel({ model, name: 'scripted' });
    await call(app, 'PUT', '/v1/working-memory/bad-output', { messages: [{ role: 'user', content: 'I like tea.' }] });
    await memory.settled();
    expect((await call(app, 'GET', '/v1/working-memory/bad-output')).body.messages[0].discrete_memory_extracted).toBe('f');
  });

  it('extracts with the real SmolLM2 of the model runtime, in the schema', async () => {
    const model = new OllamaLanguageModel({ baseUrl: models.url() });
    const { app, memory } = withModel({ model, name: 'smollm2' });
    await call(app, 'PUT', '/v1/working-memory/real?namespace=real', {
      messages: [{ role: 'user', content: 'My favourite drink is green tea and I live in Lyon.' }],
    });
    await memory.settled();
    const after = await call(app, 'GET', '/v1/working-memory/real?namespace=real');
    // SmolLM2 is small: what it extracts varies, but the reply is schema-shaped, so the messages are marked and each memory is well formed.
    expect(after.body.messages[0].discrete_memory_extracted).toBe('t');
    const found = await search(app, { text: 'drink', namespace: { eq: 'real' }, limit: 20 });
    for (const m of found.memories) {
      expect(['episodic', 'semantic']).toContain(m.memory_type);
      expect(m.session_id).toBe('real');
      expect(m.text.length).toBeGreaterThan(0);
    }
    console.log('SmolLM2 extracted:', JSON.stringify(found.memories.map((m) => [m.memory_type, m.text, m.topics, m.entities])));
  }, 180_000);
});

describe('optimize_query', () => {
  it('rewrites a semantic query through the model, and leaves it (saying so) without a model or in keyword mode', async () => {
    const model = new ScriptedLanguageModel({ replies: ['green tea morning drink'] });
    const { app, plain } = withModel({ model, name: 'scripted' });
    const res = await app.request('/v1/long-term-memory/search?optimize_query=true', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ text: 'Can you tell me what I drink in the morning?' }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-query-optimized')).toBe('true');
    expect(model.requests[0]!.messages[0]!.content).toContain('Original query: Can you tell me what I drink in the morning?');
    const keyword = await app.request('/v1/long-term-memory/search?optimize_query=true', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ text: 'tea', search_mode: 'keyword' }),
    });
    expect(keyword.headers.get('x-query-optimized')).toMatch(/^false/);
    const none = await plain.request('/v1/long-term-memory/search?optimize_query=true', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ text: 'tea' }),
    });
    expect(none.status).toBe(200);
    expect(none.headers.get('x-query-optimized')).toMatch(/^false/);
    expect(model.requests).toHaveLength(1);
  });
});
