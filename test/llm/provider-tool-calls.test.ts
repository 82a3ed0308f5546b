import { afterEach, describe, expect, it } from 'vitest';
import type { ChatRequest, ChatStreamEvent, LanguageModel } from '../../runtime/llm/language-model.js';
import { OllamaLanguageModel } from '../../runtime/llm/ollama-provider.js';
import { OpenAiLanguageModel } from '../../runtime/llm/openai-provider.js';
import { startStandIn, type ReplyScript, type StandInServer } from './support/http-stand-in.js';
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

describe('Ollama tool calls without ids (older Ollama versions)', () => {
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

  it('reads whole calls in one chunk, with or without index, split at arbitrary byte boundaries', async () => {
    server = await startStandIn(async (_request, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const chunk = (delta: unknown, finish: string | null = null) =>
        `data: ${JSON.stringify({ choices: [{ index: 0, delta, finish_reason: finish }] })}\r\n\r\n`;
      const wire =
        chunk({ role: 'assistant', content: '' }) +
        // As Ollama's /v1 sends them: complete calls, indexed, in one delta.
        chunk({
          tool_calls: [
            { index: 0, id: 'o1', type: 'function', function: { name: 'lookup', arguments: '{"word":"ü"}' } },
            { index: 1, id: 'o2', type: 'function', function: { name: 'lookup', arguments: '{"word":"b"}' } },
          ],
        }) +
        chunk({}, 'tool_calls') +
        'data: [DONE]\n\n';
      const bytes = Buffer.from(wire, 'utf8');
      for (let i = 0; i < bytes.length; i += 5) {
        res.write(bytes.subarray(i, i + 5));
        await new Promise((resolve) => setImmediate(resolve));
      }
      res.end();
    });
    const model = new OpenAiLanguageModel({ baseUrl: server.url });
    const events = await collect(model.chatEvents(REQUEST));
    expect(events.find((e) => e.type === 'tool-calls')).toEqual({
      type: 'tool-calls',
      toolCalls: [
        { id: 'o1', name: 'lookup', arguments: '{"word":"ü"}' },
        { id: 'o2', name: 'lookup', arguments: '{"word":"b"}' },
      ],
    });
  });

  it('takes a call without index as the one at its position in the delta', async () => {
    server = await startStandIn((_request, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const chunk = (delta: unknown, finish: string | null = null) => `data: ${JSON.stringify({ choices: [{ delta, finish_reason: finish }] })}\n\n`;
      res.end(
        chunk({ tool_calls: [{ id: 'n1', function: { name: 'lookup', arguments: '{"wo' } }] }) +
          chunk({ tool_calls: [{ function: { arguments: 'rd":"z"}' } }] }) +
          chunk({}, 'tool_calls') +
          'data: [DONE]\n\n',
      );
    });
    const events = await collect(new OpenAiLanguageModel({ baseUrl: server.url }).chatEvents(REQUEST));
    expect(events.find((e) => e.type === 'tool-calls')).toEqual({
      type: 'tool-calls',
      toolCalls: [{ id: 'n1', name: 'lookup', arguments: '{"word":"z"}' }],
    });
  });
});
