import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { knownPort } from '../../runtime/doctor/known-ports.js';
import { runDoctor } from '../../runtime/doctor/run-doctor.js';
import { startPolicyServer, type RunningPolicyServer } from '../../runtime/policy/server/start-policy-server.js';
import { closedPort, holdPort } from './support.js';

const POLICIES = fileURLToPath(new URL('../../policies', import.meta.url));
let policy: RunningPolicyServer;

beforeAll(async () => {
  policy = await startPolicyServer({ dir: POLICIES, port: 0, watch: false });
});
afterAll(async () => policy?.close());

describe('runDoctor', () => {
  it('is ok when every required check passes; warnings do not count', async () => {
    const report = await runDoctor({ env: { KV_URL: 'redis://127.0.0.1:6379', OPA_URL: policy.url, HOME: process.env.HOME ?? '' }, ports: [knownPort(8181)!] });
    expect(report.ok).toBe(true);
    const names = report.checks.map((c) => c.name);
    expect(names).toEqual([
      'node',
      'redis',
      'model runtime',
      'model store',
      'policy engine',
      'semantic layer',
      'memory service',
      'vector store',
      'docker',
      'port 8181',
    ]);
    expect(report.checks.find((c) => c.name === 'policy engine')?.status).toBe('ok');
  });

  it('fails when a required check is missing, and adds the Guardian when GUARDIAN_URL is set', async () => {
    const report = await runDoctor({ env: { KV_URL: `redis://127.0.0.1:${await closedPort()}`, GUARDIAN_URL: policy.url }, ports: [] });
    expect(report.ok).toBe(false);
    expect(report.checks.find((c) => c.name === 'redis')).toMatchObject({ status: 'missing', required: true });
    expect(report.checks.map((c) => c.name)).toContain('guardian');
  });

  it('runs the checks in parallel, each within its time limit', async () => {
    const silent = await holdPort({ silent: true });
    const url = `http://127.0.0.1:${silent.port}`;
    try {
      const report = await runDoctor({
        env: { OPA_URL: url, OLLAMA_HOST: url, GUARDIAN_URL: url, SEMANTIC_LAYER_URL: `${url}/mcp`, AGENT_MEMORY_URL: url },
        timeoutMs: 800,
        ports: [],
      });
      const slow = report.checks.filter((c) => c.detail.includes('no answer within 800 ms'));
      expect(slow.map((c) => c.name).sort()).toEqual(['guardian', 'memory service', 'model runtime', 'policy engine', 'semantic layer']);
    } finally {
      await silent.close();
    }
  });

  it('probes the services at the same time, not one after another', async () => {
    // Answers nobody until all five probes are connected: one at a time, the first would wait in vain.
    const barrier = await holdPort({ answerOnceConnected: 5 });
    const url = `http://127.0.0.1:${barrier.port}`;
    try {
      const report = await runDoctor({
        env: { OPA_URL: url, OLLAMA_HOST: url, GUARDIAN_URL: url, SEMANTIC_LAYER_URL: `${url}/mcp`, AGENT_MEMORY_URL: url },
        timeoutMs: 30_000,
        ports: [],
      });
      const probed = report.checks.filter((c) => ['guardian', 'memory service', 'model runtime', 'policy engine', 'semantic layer'].includes(c.name));
      expect(probed).toHaveLength(5);
      for (const check of probed) expect(check.detail).not.toContain('no answer within');
    } finally {
      await barrier.close();
    }
  }, 60_000);
});
