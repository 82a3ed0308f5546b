import { afterAll, describe, expect, it } from 'vitest';
import type { RunningAgent } from '../../runtime/agent/run-agent.js';
import { createHelloAgent } from '../../runtime/examples/hello-agent.js';
import { freePort } from '../support/net.js';
import { runAgent } from '../../runtime/agent/run-agent.js';

let running: RunningAgent | undefined;
afterAll(async () => {
  await running?.close();
});

describe('WEB_INTERFACE_PORT', () => {
  it('gives the front door its own port while A2A stays on the agent port', async () => {
    const webPort = await freePort();
    const { core, agent } = createHelloAgent();
    running = await runAgent(core, agent, { port: 0, env: { WEB_INTERFACE_PORT: String(webPort), LOG_LEVEL: 'error' } });
    expect(running.port).toBe(webPort);
    expect(running.a2aUrl).toBeDefined();
    const a2aOrigin = new URL(running.a2aUrl!).origin;
    expect(a2aOrigin).not.toBe(running.url);

    const stream = await fetch(`${running.url}/query`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"query":"hi there"}' });
    expect(stream.status).toBe(200);
    expect(((await stream.json()) as { result: { answer: string } }).result.answer).toBe('You said: hi there');

    const card = await fetch(`${a2aOrigin}/.well-known/agent-card.json`);
    expect(card.status).toBe(200);
    expect(((await card.json()) as { supportedInterfaces: { url: string }[] }).supportedInterfaces[0]?.url).toBe(running.a2aUrl);
    expect((await fetch(`${a2aOrigin}/health`)).status).toBe(200);

    const noFrontDoorOnA2A = await fetch(`${a2aOrigin}/query`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"query":"x"}' });
    expect(noFrontDoorOnA2A.status).toBe(404);
    const noCardOnFrontDoor = await fetch(`${running.url}/.well-known/agent-card.json`);
    expect(noCardOnFrontDoor.status).toBe(404);
  });
});
