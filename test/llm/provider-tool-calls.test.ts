import { afterEach, describe, expect, it } from 'vitest';
import type { ChatRequest, ChatStreamEvent, LanguageModel } from '../../runtime/llm/language-model.js';
import { OllamaLanguageModel } from '../../runtime/llm/ollama-provider.js';
import { OpenAiLanguageModel } from '../../runtime/llm/openai-provider.js';
import type { ReplyScript, StandInServer } from './support/http-stand-in.js';
import { startOllamaStandIn } from './support/ollama-stand-in.js';
import { startOpenAiStandIn } from './support/openai-stand-in.js';

const TOOL = { name: 'lookup', description: 'Looks a word up', inputSchema: { type: 'object', properties: { word: { type: 'string' } } } };
const REQUEST: ChatRequest = { model: 'test-model', messages: [{ role: 'user', content: 'Define "agent"' }], tools: [TOOL] };

const PROVIDERS = [
  {
    wire: 'ollama',
    start: (reply: ReplyScript) => startOllamaStandIn({ reply }),
    open: (server: StandInServer): LanguageModel => new OllamaLanguageModel({ baseUrl: server.url }),
  },
  {
    wire: 'openai',
    start: (reply: ReplyScript) => startOpenAiStandIn({ reply }),
    open: (server: StandInServer): LanguageModel => new OpenAiLanguageModel({ baseUrl: `${server.url}/v1` }),
  },
] as const;

async function collect(events: AsyncIterable<ChatStreamEvent>): Promise<ChatStreamEvent[]> {
  const all: ChatStreamEvent[] = [];
  for await (const event of events) all.push(event);
  return all;
}

describe.each(PROVIDERS)('$wire provider tool calls', ({ wire, start, open }) => {
  let server: StandInServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  const twoCalls: ReplyScript = () => ({
    content: 'Looking up.',
    toolCalls: [
      { id: 'c1', name: 'lookup', arguments: { word: 'agent' } },
      { id: 'c2', name: 'lookup', arguments: { word: 'tool', limit: 3 } },
    ],
  });
  /** What each wire carries as arguments: parsed objects on Ollama, JSON text on OpenAI. */
  const args = (value: Record<string, unknown>) => (wire === 'openai' ? JSON.stringify(value) : value);

  it('chat() returns the tool calls of the reply beside its text', async () => {
    server = await start(twoCalls);
    const result = await open(server).chat(REQUEST);
    expect(result.text).toBe('Looking up.');
    expect(result.toolCalls).toEqual([
      { id: 'c1', name: 'lookup', arguments: args({ word: 'agent' }) },
      { id: 'c2', name: 'lookup', arguments: args({ word: 'tool', limit: 3 }) },
    ]);
  });

  it('chatEvents() yields the text, then the tool calls whole, then finish', async () => {
    server = await start(twoCalls);
    const events = await collect(open(server).chatEvents!(REQUEST));
    const text = events.flatMap((e) => (e.type === 'text' ? [e.text] : [])).join('');
    expect(text).toBe('Looking up.');
    const nonText = events.filter((e) => e.type !== 'text');
    expect(nonText[0]).toEqual({
      type: 'tool-calls',
      toolCalls: [
        { id: 'c1', name: 'lookup', arguments: args({ word: 'agent' }) },
        { id: 'c2', name: 'lookup', arguments: args({ word: 'tool', limit: 3 }) },
      ],
    });
    expect(nonText[1]).toMatchObject({ type: 'finish', finishReason: wire === 'openai' ? 'tool_calls' : 'stop' });
    expect(nonText).toHaveLength(2);
  });

  it('chatStream() still yields only text when the reply asks for tools', async () => {
    server = await start(twoCalls);
    let text = '';
    for await (const chunk of open(server).chatStream(REQUEST)) text += chunk;
    expect(text).toBe('Looking up.');
  });

  it('sends tools as function definitions, and no tools key without them', async () => {
    server = await start(() => 'plain');
    const model = open(server);
    await model.chat(REQUEST);
    await model.chat({ ...REQUEST, tools: [] });
    expect(server.requests[0]!.body.tools).toEqual([
      { type: 'function', function: { name: 'lookup', description: 'Looks a word up', parameters: TOOL.inputSchema } },
    ]);
    expect(server.requests[1]!.body).not.toHaveProperty('tools');
  });
});

describe('Ollama tool calls without ids (Ollama before 0.12)', () => {
  let server: StandInServer | undefined;
  afterEach(async () => {
    await server?.close();
  });

  it('get distinct generated ids, streamed or not', async () => {
    server = await startOllamaStandIn({
      reply: () => ({
        toolCalls: [
          { name: 'lookup', arguments: { word: 'a' } },
          { name: 'lookup', arguments: { word: 'b' } },
        ],
      }),
    });
    const model = new OllamaLanguageModel({ baseUrl: server.url });
    const { toolCalls } = await model.chat(REQUEST);
    const streamed = (await collect(model.chatEvents(REQUEST))).find((e) => e.type === 'tool-calls');
    for (const calls of [toolCalls!, streamed?.type === 'tool-calls' ? streamed.toolCalls : []]) {
      expect(calls.map((c) => c.arguments)).toEqual([{ word: 'a' }, { word: 'b' }]);
      expect(calls[0]!.id).toMatch(/^call_/);
      expect(new Set(calls.map((c) => c.id)).size).toBe(2);
    }
  });
});

describe('OpenAI streamed tool-call deltas', () => {
  let server: StandInServer | undefined;
  afterEach(async () => {
    await server?.close();
  });

  it('joins arguments text split over several chunks, per call index', async () => {
    const long = { word: 'x'.repeat(50), note: 'split me' };
    server = await startOpenAiStandIn({
      reply: () => ({
        toolCalls: [
          { id: 'k1', name: 'lookup', arguments: long },
          { id: 'k2', name: 'lookup', arguments: { word: 'y' } },
        ],
      }),
    });
    const events = await collect(new OpenAiLanguageModel({ baseUrl: `${server.url}/v1` }).chatEvents(REQUEST));
    expect(events.filter((e) => e.type === 'text')).toEqual([]);
    expect(events.find((e) => e.type === 'tool-calls')).toEqual({
      type: 'tool-calls',
      toolCalls: [
        { id: 'k1', name: 'lookup', arguments: JSON.stringify(long) },
        { id: 'k2', name: 'lookup', arguments: '{"word":"y"}' },
      ],
    });
  });
});
