import { describe, expect, it } from 'vitest';
import { createFrontDoor, createMinimalFrontDoor } from '../../runtime/http/index.js';
import { InProcessSessionStore } from '../../runtime/index.js';
import { createFixtureAgent } from './agent-fixture.js';

// The front door without sockets (Hono's app.request()): the Web-stream path,
// used when the app is not served by @hono/node-server.

function app(maxBodyBytes = 1024) {
  const { core } = createFixtureAgent();
  const sessions = new InProcessSessionStore({ ttlSeconds: 60 });
  core.useSessions(sessions);
  return { app: createFrontDoor({ core, sessions, agent: { name: 'fixture', version: '1.0.0' }, maxBodyBytes, keepAliveMs: 30 }), sessions };
}

const json = (body: unknown) => ({ method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });

describe('front door through app.request()', () => {
  it('streams the same framed events', async () => {
    const { app: door, sessions } = app();
    const response = await door.request('/stream', json({ query: 'multi' }));
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(await response.text()).toBe(
      'event: status\ndata: Planning...\n\n' +
        'event: input_required\ndata: Plan:\ndata: 1. first\ndata: 2. second\ndata: Approve?\n\n' +
        'event: text\ndata: plain text\n\n' +
        'event: result\ndata: {"actions":["a","b"],"outcomes":[1,2]}\n\n',
    );
    await sessions.close();
  });

  it('sends keep-alive comments while the task is quiet', async () => {
    const { app: door, sessions } = app();
    const text = await (await door.request('/stream', json({ query: 'quiet' }))).text();
    expect(text).toMatch(/^(: keep-alive\n\n)+event: result\ndata: \{"done":true\}\n\n$/);
    await sessions.close();
  });

  it('aborts the task when the reader cancels', async () => {
    // The Web stream pulls lazily: the task waits at its yield, and is closed there.
    const { core, probe } = createFixtureAgent();
    const sessions = new InProcessSessionStore({ ttlSeconds: 60 });
    const door = createFrontDoor({ core, sessions, agent: { name: 'f', version: '1' } });
    const response = await door.request('/stream', json({ query: 'slow web-cancel' }));
    const reader = response.body!.getReader();
    await reader.read();
    await reader.cancel();
    expect(probe.signals.get('slow web-cancel')?.aborted).toBe(true);
    await sessions.close();
  });

  it('enforces the body limit and content type', async () => {
    const { app: door, sessions } = app(64);
    expect((await door.request('/stream', json({ query: 'x'.repeat(100) }))).status).toBe(413);
    expect((await door.request('/stream', { method: 'POST', body: '{}' })).status).toBe(415);
    await sessions.close();
  });

  it('minimal mode works the same way', async () => {
    const { core } = createFixtureAgent();
    const door = createMinimalFrontDoor({ core });
    const text = await (await door.request('/stream', json({ query: 'echo' }))).text();
    expect(text).toMatch(/^data: \{"message":\{"echo":"echo","context_id":"[0-9a-f-]{36}"\}\}\n\n$/);
  });
});
