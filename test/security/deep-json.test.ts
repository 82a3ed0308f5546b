import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningAgent } from '../../runtime/agent/run-agent.js';
import { signRequest } from '../../runtime/a2a/signing/request-signature.js';
import { startModelServer, type RunningModelServer } from '../../runtime/model/start-model-server.js';
import { ModelStore } from '../../runtime/model/model-store.js';
import { makeKeys, probeAgent, runProbe, scratchDir, writeCard } from '../a2a/support.js';
import { nested, nestedRpc } from './support.js';

// Attack: JSON nested thousands deep, which overflowed the stack of a
// validator or handler (a 500). Every service refuses it with a 4xx and
// stays up.

describe('a signed A2A request nested 5,000 deep', () => {
  let scratch: Awaited<ReturnType<typeof scratchDir>>;
  let running: RunningAgent;
  let keys: ReturnType<typeof makeKeys>;

  beforeAll(async () => {
    scratch = await scratchDir();
    const card = await writeCard(scratch.dir, 'probe');
    keys = makeKeys(['orchestrator', 'probe']);
    const built = probeAgent('probe');
    running = await runProbe(built.core, built.agent, { AGENT_CARD: card, A2A_KEYS: keys.json, A2A_VALIDATION_MODE: 'disabled' });
  });

  afterAll(async () => {
    await running?.close();
    await scratch?.remove();
  });

  it('is a JSON-RPC Invalid Request (400), not a stack overflow, and the agent still answers', async () => {
    const url = new URL(running.a2aUrl!);
    for (const depth of [65, 5_000, 50_000]) {
      const body = nestedRpc(depth);
      const headers = signRequest({ method: 'POST', path: url.pathname, body, source: 'orchestrator', target: 'probe', key: keys.keys.get('orchestrator')! });
      const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
      expect(response.status, `depth ${depth}`).toBe(400);
      expect(await response.json()).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600 } });
    }
    const fine = nestedRpc(10);
    const headers = signRequest({
      method: 'POST',
      path: url.pathname,
      body: fine,
      source: 'orchestrator',
      target: 'probe',
      key: keys.keys.get('orchestrator')!,
    });
    const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', 'A2A-Version': '1.0', ...headers }, body: fine });
    expect(response.status).toBe(200);
    const answer = (await response.json()) as Record<string, unknown>;
    expect(answer).toMatchObject({ jsonrpc: '2.0', id: 1 });
    expect(answer.error).toBeUndefined();
    expect((await fetch(new URL('/health', running.url))).status).toBe(200);
  });
});

describe('the model runtime', () => {
  let server: RunningModelServer;
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'fw-sec-models-'));
    server = await startModelServer({ store: new ModelStore({ dir }), host: '127.0.0.1', port: 0 });
  });

  afterAll(async () => {
    await server?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('refuses a body nested 5,000 deep with 400 on every JSON endpoint, and stays up', async () => {
    for (const path of ['/api/chat', '/api/generate', '/api/embed', '/api/show', '/api/pull']) {
      const response = await fetch(`${server.url}${path}`, { method: 'POST', body: `{"model":"x","messages":${nested(5_000)}}` });
      expect(response.status, path).toBe(400);
      expect(await response.json()).toHaveProperty('error');
    }
    expect((await fetch(`${server.url}/api/version`)).status).toBe(200);
  });
});
