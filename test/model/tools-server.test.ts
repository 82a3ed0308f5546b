import { Ollama, type Tool } from 'ollama';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { startModelServer, type RunningModelServer } from '../../runtime/model/start-model-server.js';
import { defaultModelStore } from './support/default-model.js';

// Generation shares two cores with the rest of the suite: allow for that.
vi.setConfig({ testTimeout: 120_000 });

// The real default chat model (SmolLM2-135M) asked for tool calls. It never calls a tool on its own, so
// the server forces a call where the wire format allows it (forceToolCall on /api/chat, tool_choice on /v1).
let server: RunningModelServer;
let ollama: Ollama;

beforeAll(async () => {
  const { store } = await defaultModelStore();
  server = await startModelServer({ store, host: '127.0.0.1', port: 0, forceToolCall: true });
  ollama = new Ollama({ host: server.url });
}, 300_000);

afterAll(async () => {
  await server?.close();
});

const weatherTool: Tool = {
  type: 'function',
  function: {
    name: 'get_weather',
    description: 'Get the current weather for a city',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
};
const WeatherArguments = z.object({ city: z.string() }).strict();
const question = { role: 'user', content: 'What is the weather in Paris?' } as const;

describe('tools on /api/chat with the ollama client', () => {
  it('answers with a tool call whose arguments match the schema', async () => {
    const reply = await ollama.chat({ model: 'smollm2', messages: [question], tools: [weatherTool], options: { temperature: 0 } });
    expect(reply.done_reason).toBe('stop');
    expect(reply.message.content).toBe('');
    expect(reply.message.tool_calls).toHaveLength(1);
    const call = reply.message.tool_calls![0]!;
    expect(call.function.name).toBe('get_weather');
    expect(WeatherArguments.parse(call.function.arguments).city.length).toBeGreaterThan(0);
  });

  it('streams the tool call as a line of its own', async () => {
    const stream = await ollama.chat({ model: 'smollm2', messages: [question], tools: [weatherTool], options: { temperature: 0 }, stream: true });
    const parts = [];
    for await (const part of stream) parts.push(part);
    const calls = parts.flatMap((p) => p.message.tool_calls ?? []);
    expect(calls).toHaveLength(1);
    expect(calls[0]!.function.name).toBe('get_weather');
    WeatherArguments.parse(calls[0]!.function.arguments);
    expect(parts.at(-1)).toMatchObject({ done: true, done_reason: 'stop' });
    expect(parts.map((p) => p.message.content).join('')).toBe('');
  });

  it('answers with text once the tool result is in the conversation', async () => {
    const first = await ollama.chat({ model: 'smollm2', messages: [question], tools: [weatherTool], options: { temperature: 0 } });
    const reply = await ollama.chat({
      model: 'smollm2',
      messages: [question, first.message, { role: 'tool', tool_name: 'get_weather', content: JSON.stringify({ temperature: 18, sky: 'sunny' }) }],
      tools: [weatherTool],
      options: { temperature: 0, num_predict: 40 },
    });
    expect(reply.message.tool_calls ?? []).toEqual([]);
    expect(reply.message.content.trim().length).toBeGreaterThan(0);
  });
});
