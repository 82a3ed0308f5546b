import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningAgent } from '../../runtime/index.js';
import { collectSse } from '../support/sse-client.js';
import { createFixtureAgent } from './agent-fixture.js';
import { runAgent } from '../../runtime/agent/run-agent.js';

let running: RunningAgent;

beforeAll(async () => {
  const fixture = createFixtureAgent();
  running = await runAgent(fixture.core, fixture.agent, { port: 0, mode: 'minimal', env: { AGENT_NAME: 'fixture', LOG_LEVEL: 'error' } });
});
afterAll(() => running.close());

describe('minimal front door', () => {
  it('sends data-only events whose payload is {message}', async () => {
    const text = await (
      await fetch(`${running.url}/stream`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"query":"multi"}' })
    ).text();
    expect(text).not.toContain('event:');
    const payloads = text
      .split('\n\n')
      .filter(Boolean)
      .map((block) => JSON.parse(block.replace(/^data: /, '')) as { message: unknown });
    expect(payloads).toEqual([
      { message: 'Planning...' },
      { message: 'Plan:\n1. first\n2. second\r\nApprove?' },
      { message: 'plain text' },
      { message: { actions: ['a', 'b'], outcomes: [1, 2] } },
    ]);
  });

  it('gives every request a fresh context and ignores the Authorization header', async () => {
    const contexts: unknown[] = [];
    for (let i = 0; i < 2; i++) {
      const { events } = await collectSse(`${running.url}/stream`, {
        body: { query: 'echo' },
        headers: { Authorization: 'Bearer whatever' },
      });
      contexts.push((JSON.parse(events[0]!.data) as { message: { context_id: string } }).message.context_id);
    }
    expect(contexts[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(contexts[0]).not.toBe(contexts[1]);
  });

  it('has no other routes, and rejects bad bodies with JSON errors', async () => {
    expect((await fetch(`${running.url}/health`)).status).toBe(404);
    expect((await fetch(`${running.url}/session/start`, { method: 'POST' })).status).toBe(404);
    const bad = await fetch(`${running.url}/stream`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ code: 'invalid_request' });
  });
});
