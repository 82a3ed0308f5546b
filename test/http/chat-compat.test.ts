import { Ollama } from 'ollama';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningAgent } from '../../runtime/index.js';
import { createFixtureAgent } from './agent-fixture.js';
import { runAgent } from '../../runtime/agent/run-agent.js';

let running: RunningAgent;
let client: Ollama;
const API_KEY = 'test-chat-key-0123456789abcdef';

beforeAll(async () => {
  const fixture = createFixtureAgent('helper');
  running = await runAgent(fixture.core, fixture.agent, {
    port: 0,
    chatCompat: true,
    env: { AGENT_NAME: 'helper', LOG_LEVEL: 'error', CHAT_API_KEYS: API_KEY },
  });
  // The official client, as a chat interface configured with the agent's API key.
  client = new Ollama({ host: running.url, headers: { Authorization: `Bearer ${API_KEY}` } });
});
afterAll(() => running.close());

describe('chat-UI compatibility (the Ollama chat API, through the official ollama client)', () => {
  it('lists the agent as a model and answers version', async () => {
    const { models } = await client.list();
    expect(models.map((m) => m.name)).toEqual(['helper:latest']);
    const { version } = await client.version();
    expect(version).toMatch(/^\d+\.\d+\.\d+$/);
  });

  it('streams the agent events as assistant text', async () => {
    const stream = await client.chat({ model: 'helper', messages: [{ role: 'user', content: 'multi' }], stream: true });
    const parts: string[] = [];
    let done = false;
    for await (const part of stream) {
      parts.push(part.message.content);
      if (part.done) done = true;
    }
    expect(done).toBe(true);
    const text = parts.join('');
    expect(text).toContain('_Planning..._');
    expect(text).toContain('Plan:\n1. first');
    expect(text).toContain('"actions"');
  });

  it('maps each conversation to its own context, and continues one when its history comes back', async () => {
    const ask = async (messages: { role: string; content: string }[]) =>
      (await client.chat({ model: 'helper:latest', messages, stream: false })).message.content;
    const turnOf = (reply: string) => JSON.parse(/```json\n([\s\S]*?)\n```/.exec(reply)![1]!) as { turns: number; context_id: string };

    const a1 = await ask([{ role: 'user', content: 'turn' }]);
    const b1 = await ask([{ role: 'user', content: 'turn' }]);
    expect(turnOf(a1).turns).toBe(1);
    expect(turnOf(b1).turns).toBe(1);
    expect(turnOf(a1).context_id).not.toBe(turnOf(b1).context_id);

    // Chat windows send the whole history back; the trailing blank lines may be trimmed.
    const a2 = await ask([
      { role: 'system', content: 'be nice' },
      { role: 'user', content: 'turn' },
      { role: 'assistant', content: a1.trim() },
      { role: 'user', content: 'turn' },
    ]);
    expect(turnOf(a2)).toEqual({ turns: 2, context_id: turnOf(a1).context_id });
  });

  it('answers an unknown model and a bad request as Ollama does', async () => {
    await expect(client.chat({ model: 'other', messages: [{ role: 'user', content: 'x' }] })).rejects.toThrow(/model 'other' not found/);
    const bad = await fetch(`${running.url}/api/chat`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${API_KEY}` },
      body: '{"model":"helper"}',
    });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: string }).error).toMatch(/messages/);
  });
});
