import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPolicyServer, type RunningPolicyServer } from '../../runtime/policy/server/start-policy-server.js';
import { REPO_ROOT } from '../support/processes.js';

// Attack: a malformed percent-encoding in the path made the policy server
// answer 500 (decodeURIComponent threw). It is the client's error: 400 in
// OPA's error shape, on every route, and the server stays healthy.

let dir: string;
let server: RunningPolicyServer;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fw-sec-policies-'));
  cpSync(join(REPO_ROOT, 'policies'), dir, { recursive: true });
  server = await startPolicyServer({ dir, port: 0, watch: false, allowWrites: true });
});

afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the policy server and malformed percent-encodings', () => {
  it('answers 400 invalid_parameter on every route, never 500', async () => {
    const attempts: Array<[string, string]> = [
      ['POST', '/v1/data/a2a_access/%E0%A4%A'],
      ['GET', '/v1/data/%'],
      ['POST', '/v0/data/a2a_access/%zz'],
      ['GET', '/v1/policies/%E0'],
      ['PUT', '/v1/policies/x%E0.rego'],
      ['DELETE', '/v1/policies/%'],
    ];
    for (const [method, path] of attempts) {
      const response = await fetch(`${server.url}${path}`, { method, ...(method === 'GET' || method === 'DELETE' ? {} : { body: '{"input":{}}' }) });
      expect(response.status, `${method} ${path}`).toBe(400);
      expect(await response.json()).toMatchObject({ code: 'invalid_parameter' });
    }
    expect((await fetch(`${server.url}/health`)).status).toBe(200);
    const decision = await fetch(`${server.url}/v1/data/a2a_access/allow`, {
      method: 'POST',
      body: '{"input":{"source_agent":{"name":"orchestrator"},"target_agent":{"name":"x"}}}',
    });
    expect(await decision.json()).toEqual({ result: true });
  });
});
