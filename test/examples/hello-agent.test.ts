import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../support/net.js';
import { startAgentProcess, type ChildAgent } from '../support/processes.js';
import { collectSse } from '../support/sse-client.js';
import { startOllamaStandIn } from '../llm/support/ollama-stand-in.js';
import type { StandInServer } from '../llm/support/http-stand-in.js';

// The README's main job: `framework-cli serve agent` (the example agent) as a real
// process, talking to a model runtime that speaks the Ollama chat API (a stand-in
// until the model-runtime issue brings a real local model).

let model: StandInServer;
let agent: ChildAgent;

beforeAll(async () => {
  model = await startOllamaStandIn({ models: ['test-model'] });
  agent = await startAgentProcess({ env: { MODEL_NAME: 'test-model', OLLAMA_HOST: model.url } });
});
afterAll(async () => {
  await agent?.stop();
  await model?.close();
});

describe('the example agent', () => {
  it('answers /stream with correctly framed status and result events', async () => {
    const { events } = await collectSse(`${agent.url}/stream`, { body: { query: 'count these four words' } });
    expect(events.map((e) => e.event)).toEqual(['status', 'status', 'result']);
    expect(JSON.parse(events[2]!.data)).toMatchObject({ answer: 'You said: count these four words', words: 4, turn: 1 });
  });

  it('asks the model with the conversation as its thread, per session', async () => {
    const start = await fetch(`${agent.url}/session/start`, { method: 'POST' });
    const { session_token: token } = (await start.json()) as { session_token: string };
    const headers = { Authorization: `Bearer ${token}` };

    const first = await collectSse(`${agent.url}/stream`, { body: { query: 'ask: My name is Ada.' }, headers });
    expect(first.events.map((e) => e.event)).toEqual(['status', 'result']);
    expect(JSON.parse(first.events[1]!.data)).toEqual({ answer: 'echo: My name is Ada. (2 messages)' });

    const second = await collectSse(`${agent.url}/stream`, { body: { query: 'ask: What is my name?' }, headers });
    expect(JSON.parse(second.events[1]!.data)).toEqual({ answer: 'echo: What is my name? (4 messages)' });
    const sent = model.requests.at(-1)!.body as { model: string; messages: { role: string; content: string }[] };
    expect(sent.model).toBe('test-model');
    expect(sent.messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user']);
    expect(sent.messages[1]!.content).toBe('My name is Ada.');

    // Another conversation starts fresh.
    const other = await collectSse(`${agent.url}/stream`, { body: { query: 'ask: Hello?' } });
    expect(JSON.parse(other.events[1]!.data)).toEqual({ answer: 'echo: Hello? (2 messages)' });
  });

  it('cancels the model call when the client disconnects', async () => {
    const slowModel = await startOllamaStandIn({ models: ['test-model'], responseDelayMs: 10_000 });
    const slowAgent = await startAgentProcess({ env: { MODEL_NAME: 'test-model', OLLAMA_HOST: slowModel.url } });
    try {
      const response = await fetch(`${slowAgent.url}/stream`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ query: 'ask: take your time' }),
      });
      const reader = response.body!.getReader();
      expect(new TextDecoder().decode((await reader.read()).value)).toBe('event: status\ndata: Asking test-model...\n\n');
      await waitFor(async () => slowModel.requests.length === 1, 'the model request');
      await reader.cancel();
      // The model runtime sees its request closed long before it would have answered.
      await expect(slowModel.requests[0]!.settled).resolves.toBe('closed');
    } finally {
      await slowAgent.stop();
      await slowModel.close();
    }
  });

  it('reports a model that is not pulled as an error event that says how to pull it', async () => {
    const other = await startAgentProcess({ env: { MODEL_NAME: 'missing-model', OLLAMA_HOST: model.url } });
    try {
      const { events } = await collectSse(`${other.url}/stream`, { body: { query: 'ask: hi' } });
      const error = events.find((e) => e.event === 'error');
      expect(JSON.parse(error!.data)).toMatchObject({ code: 'model_not_found' });
      expect(error!.data).toContain('framework-cli model pull missing-model');
    } finally {
      await other.stop();
    }
  });
});
