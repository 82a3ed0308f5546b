import { afterAll, describe, expect, it } from 'vitest';
import { runAgent, type RunningAgent } from '../../runtime/agent/run-agent.js';
import { createHelloAgent } from '../../runtime/examples/hello-agent.js';
import { freePort } from '../support/net.js';

/**
 * An agent's `GET /health` is answered below Hono (so a service that is only
 * polled for its health never loads the app's HTTP adapter), with what the
 * app's own route answers: compared here with `/health?through=app`, which
 * the direct handler leaves to the app. Where the app has no such route (the
 * minimal front door), neither answers it.
 */
const running: RunningAgent[] = [];
afterAll(async () => {
  await Promise.all(running.map((agent) => agent.close()));
});

async function start(options: Parameters<typeof runAgent>[2]): Promise<RunningAgent> {
  const { core, agent } = createHelloAgent();
  const started = await runAgent(core, agent, { port: 0, ...options, env: { LOG_LEVEL: 'error', ...options?.env } });
  running.push(started);
  return started;
}

async function answer(url: string, method = 'GET'): Promise<{ status: number; type: string | null; body: string }> {
  const response = await fetch(url, { method });
  return { status: response.status, type: response.headers.get('content-type'), body: await response.text() };
}

async function expectAsTheApp(origin: string): Promise<void> {
  const direct = await answer(`${origin}/health`);
  expect(direct).toEqual(await answer(`${origin}/health?through=app`));
  expect(direct.status).toBe(200);
  expect(JSON.parse(direct.body)).toEqual({ status: 'ok', name: 'hello', version: '0.1.0' });
}

describe("an agent's GET /health below Hono", () => {
  it('answers as the app does on the full front door, and leaves HEAD to the app', async () => {
    const agent = await start({});
    await expectAsTheApp(agent.url);
    const head = await answer(`${agent.url}/health`, 'HEAD');
    expect([head.status, head.body]).toEqual([200, '']);
  });

  it('answers as the app does on both ports when the front door has its own (WEB_INTERFACE_PORT)', async () => {
    const agent = await start({ env: { WEB_INTERFACE_PORT: String(await freePort()) } });
    await expectAsTheApp(agent.url);
    await expectAsTheApp(new URL(agent.a2aUrl!).origin);
  });

  it('answers as the app does on an A2A-only agent (an executor)', async () => {
    const agent = await start({ mode: 'a2a' });
    await expectAsTheApp(new URL(agent.a2aUrl ?? agent.url).origin);
  });

  it('is not made up where the app has no health route (the minimal front door)', async () => {
    const agent = await start({ mode: 'minimal', a2a: false });
    const direct = await answer(`${agent.url}/health`);
    expect(direct.status).toBe(404);
    expect(direct).toEqual(await answer(`${agent.url}/health?through=app`).then((a) => ({ ...a, body: a.body.replace('?through=app', '') })));
  });
});
