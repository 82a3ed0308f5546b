import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadAgentCard } from '../../runtime/a2a/agent-card.js';
import { loadKeyRing } from '../../runtime/a2a/signing/load-key-ring.js';
import { loadPolicySet } from '../../runtime/policy/tools/load-policies.js';
import { runPolicyTests } from '../../runtime/policy/tools/run-policy-tests.js';
import { createSwarm, type CreateSwarmSummary } from '../../runtime/scaffold/create-swarm.js';
import { ProjectFileSchema } from '../../runtime/supervisor/project-file.js';
import { validateComposeText } from '../support/compose-schema.js';

let root: string;
let summary: CreateSwarmSummary;
beforeAll(async () => {
  root = join(await mkdtemp(join(tmpdir(), 'fw-swarm-')), 'team');
  summary = await createSwarm({ dir: root, name: 'team' });
});
afterAll(async () => {
  await rm(join(root, '..'), { recursive: true, force: true });
});

describe('createSwarm', () => {
  it('creates orchestrator, planner and executor with cards and keys', async () => {
    expect(summary.agents.map((a) => [a.name, a.port])).toEqual([
      ['orchestrator', 8002],
      ['planner', 8003],
      ['executor', 8004],
    ]);
    const keys = join(root, '.framework/secrets/a2a-keys.json');
    expect((await stat(keys)).mode & 0o777).toBe(0o600);
    const ring = loadKeyRing({ env: { A2A_KEYS_FILE: keys } });
    for (const agent of summary.agents) {
      const [card] = await loadAgentCard(join(root, agent.card));
      expect(card.name).toBe(agent.name);
      expect(ring.signingKeyFor(agent.name).agent).toBe(agent.name);
    }
    expect(summary.created).toEqual(
      expect.arrayContaining(['agents/orchestrator/peers.ts', 'agents/planner/peers.ts', 'agents/orchestrator/web-interface.ts']),
    );
    expect(summary.created).not.toContain('agents/executor/peers.ts');
    expect(await readFile(join(root, 'agents/planner/tasks.ts'), 'utf8')).toContain("EXECUTOR = 'executor'");
  });

  it('writes an a2a_access policy allowing orchestrator → anyone and planner → executor, with passing tests', async () => {
    const report = runPolicyTests(await loadPolicySet([join(root, 'services/guardian/policies')]));
    const swarmTests = report.results.filter((r) => r.name.startsWith('data.a2a_access_test.')).map((r) => r.name);
    expect(swarmTests).toEqual(
      expect.arrayContaining(['data.a2a_access_test.test_orchestrator_may_call_anyone', 'data.a2a_access_test.test_planner_may_call_executor']),
    );
    expect(report.results.filter((r) => r.outcome !== 'pass')).toEqual([]);
  });

  it('puts the system memory in project.json (for up) and compose.yaml, and its address in every agent', async () => {
    const project = ProjectFileSchema.parse(JSON.parse(await readFile(join(root, '.framework/project.json'), 'utf8')));
    expect(project.kind).toBe('swarm');
    expect(project.services.map((s) => s.name)).toEqual(['model', 'policy', 'guardian', 'semantic-layer', 'memory', 'orchestrator', 'planner', 'executor']);
    expect(project.services.find((s) => s.name === 'memory')).toMatchObject({
      kind: 'memory',
      port: 8000,
      healthPath: '/v1/health',
      args: ['serve', 'memory', '--addr', '127.0.0.1:8000'],
      env: { KV_URL: 'redis://127.0.0.1:6379', OLLAMA_HOST: 'http://127.0.0.1:11434' },
      dependsOn: ['model'],
    });
    for (const agent of project.services.filter((s) => s.kind === 'agent')) {
      expect(agent.env).toMatchObject({ AGENT_MEMORY_URL: 'http://127.0.0.1:8000', CONTEXT_ID: 'team' });
      expect(agent.dependsOn).toEqual(['guardian', 'memory']);
    }
    expect(project.services.find((s) => s.name === 'executor')?.args).toContain('--a2a-only');

    const text = await readFile(join(root, 'compose.yaml'), 'utf8');
    expect(validateComposeText(text).errors).toEqual([]);
    const compose = parse(text) as { services: Record<string, { image?: string; environment?: Record<string, string>; depends_on?: Record<string, unknown> }> };
    // Our memory service over Redis from Debian's packages: no cloud key, no Redis 8.
    expect(compose.services.kv).toMatchObject({ image: 'team-redis:latest', build: { dockerfile: 'services/redis/Dockerfile' } });
    expect(compose.services.memory).toMatchObject({
      image: 'team-toolkit:latest',
      command: ['serve', 'memory', '--addr', '0.0.0.0:8000'],
      environment: { KV_URL: 'redis://kv:6379', OLLAMA_HOST: 'http://model:11434', MEMORY_AUTH_TOKENS_FILE: '/run/secrets/memory_token' },
    });
    expect(JSON.stringify(compose.services.memory)).not.toMatch(/OPENAI/);
    for (const name of ['orchestrator', 'planner', 'executor']) {
      expect(compose.services[name]?.environment).toMatchObject({
        AGENT_MEMORY_URL: 'http://memory:8000',
        CONTEXT_ID: 'team',
        SESSION_BACKEND: 'kv',
        KV_URL: 'redis://kv:6379',
      });
      expect(compose.services[name]?.depends_on).toHaveProperty('memory');
    }
    expect(summary.memoryServices).toEqual(['kv', 'memory']);
    // Only what a user talks to is published: the orchestrator and the planner, not the executor (A2A only).
    expect(
      Object.entries(compose.services)
        .filter(([, s]) => 'ports' in s)
        .map(([n]) => n),
    ).toEqual(['orchestrator', 'planner']);
    expect(await readFile(join(root, 'README.md'), 'utf8')).toMatch(/the `memory` service of `\.framework\/project\.json`/);
  });
});
