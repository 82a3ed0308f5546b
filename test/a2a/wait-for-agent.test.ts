import { createServer, type Server } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { cardFromConfig } from '../../runtime/a2a/agent-card.js';
import { agentConnection } from '../../runtime/a2a/agent-connection.js';
import { A2AValidator } from '../../runtime/a2a/validator.js';
import { agentBase, waitForAgent } from '../../runtime/a2a/wait-for-agent.js';
import { AgentNotReadyError } from '../../runtime/core/errors/agent-not-ready-error.js';
import { freePort } from '../support/net.js';
import { collect, makeKeys, probeAgent, runProbe } from './support.js';

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(
    servers.splice(0).map((server) => {
      const closed = new Promise((resolve) => server.close(resolve));
      server.closeAllConnections();
      return closed;
    }),
  );
});

/** A plain HTTP server whose /health answers `status` (or never answers, for `hang`), counting the requests. */
async function healthServer(port: number, status: number | 'hang'): Promise<{ hits: () => number }> {
  let hits = 0;
  const server = createServer((req, res) => {
    hits++;
    if (status !== 'hang') res.writeHead(req.url === '/health' ? status : 404, { 'content-type': 'application/json' }).end('{}');
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return { hits: () => hits };
}

describe('waitForAgent', () => {
  it('resolves once GET /health answers, taking only the origin of the URL', async () => {
    const port = await freePort();
    const server = await healthServer(port, 200);
    expect(agentBase(`http://127.0.0.1:${port}/a2a/?x=1`)).toBe(`http://127.0.0.1:${port}`);
    await waitForAgent(`http://127.0.0.1:${port}/a2a/`, { timeoutMs: 2_000 });
    expect(server.hits()).toBe(1);
  });

  it('waits for an agent that starts late', async () => {
    const port = await freePort();
    const waiting = waitForAgent(`http://127.0.0.1:${port}`, { timeoutMs: 5_000, intervalMs: 20 });
    await new Promise((resolve) => setTimeout(resolve, 200));
    await healthServer(port, 200);
    await expect(waiting).resolves.toBeUndefined();
  });

  it('resolves for a real A2A-only agent', async () => {
    const { core, agent } = probeAgent('probe');
    const running = await runProbe(core, agent, { A2A_VALIDATION_MODE: 'disabled' });
    try {
      await waitForAgent(running.a2aUrl!, { timeoutMs: 2_000 });
    } finally {
      await running.close();
    }
  });

  it('rejects with AgentNotReadyError when nothing listens', async () => {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const started = Date.now();
    const error = await waitForAgent(url, { timeoutMs: 300, intervalMs: 50 }).catch((e: unknown) => e);
    expect(Date.now() - started).toBeGreaterThanOrEqual(300);
    expect(error).toBeInstanceOf(AgentNotReadyError);
    expect((error as AgentNotReadyError).code).toBe('agent_not_ready');
    expect((error as AgentNotReadyError).url).toBe(url);
    expect((error as Error).message.startsWith(`target agent not ready at http://127.0.0.1:${port}`)).toBe(true);
    expect((error as Error).message).toContain('ECONNREFUSED');
  });

  it('rejects naming the status when /health keeps failing', async () => {
    const port = await freePort();
    await healthServer(port, 503);
    const error = await waitForAgent(`http://127.0.0.1:${port}`, { timeoutMs: 200, intervalMs: 50 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AgentNotReadyError);
    expect((error as Error).message).toBe(
      `target agent not ready at http://127.0.0.1:${port} (GET /health answered 503). Start it, or wait for its GET /health to answer.`,
    );
  });

  it('says nobody answered when /health hangs past the deadline', async () => {
    const port = await freePort();
    await healthServer(port, 'hang');
    const error = await waitForAgent(`http://127.0.0.1:${port}`, { timeoutMs: 200 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AgentNotReadyError);
    expect((error as Error).message).toMatch(new RegExp(`^target agent not ready at http://127\\.0\\.0\\.1:${port} \\(no answer within \\d+ ms\\)`));
  });

  it('stops a hanging attempt as soon as its signal is aborted', async () => {
    const port = await freePort();
    await healthServer(port, 'hang');
    const controller = new AbortController();
    const started = Date.now();
    setTimeout(() => controller.abort(new Error('stop waiting')), 50);
    await expect(waitForAgent(`http://127.0.0.1:${port}`, { timeoutMs: 10_000, signal: controller.signal })).rejects.toThrow('stop waiting');
    expect(Date.now() - started).toBeLessThan(1_500);
  });

  it('stops at once when its signal is aborted', async () => {
    const port = await freePort();
    const controller = new AbortController();
    const waiting = waitForAgent(`http://127.0.0.1:${port}`, { timeoutMs: 10_000, intervalMs: 20, signal: controller.signal });
    controller.abort(new Error('stop'));
    await expect(waiting).rejects.toThrow('stop');
  });
});

describe('agentConnection to a target that is down', () => {
  it('rejects with AgentNotReadyError naming the target', async () => {
    const port = await freePort();
    const keys = makeKeys(['orchestrator']);
    const source = cardFromConfig({ name: 'orchestrator', description: 'o', version: '1.0.0', url: 'http://127.0.0.1:1/' });
    const target = cardFromConfig({ name: 'executor', description: 'e', version: '1.0.0', url: `http://127.0.0.1:${port}/` });
    // An explicit allow-all validator: the refusal must come from the connection, not the policy.
    const validator = new A2AValidator({ mode: 'disabled' });
    const error = await collect(agentConnection(source, target, 'hello', { validator, keys: keys.ring, keyId: 'orchestrator-1', env: {} })).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(AgentNotReadyError);
    expect((error as Error).message.startsWith(`target agent not ready at http://127.0.0.1:${port}`)).toBe(true);
  });
});
