/**
 * The "done when": a swarm made by `create swarm` runs under
 * `framework-cli up` with its system memory (our memory service over the real
 * Redis, embeddings from the real model runtime), and a past task's results
 * are recalled by a related request after the whole stack was restarted.
 * Run `npm run build` first.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { defaultModelStore } from '../model/support/default-model.js';
import { runCli } from '../support/cli.js';
import { linkDependencies } from '../support/project-deps.js';
import { deleteKeys } from '../support/redis-keys.js';
import { REDIS_URL } from '../support/redis-scope.js';
import { moveSwarmToFreePorts } from '../support/swarm-ports.js';
import { collectSse } from '../support/sse-client.js';

const KV_PREFIX = `fwtest:swarm-${process.pid}-${Date.now()}:`;
let root: string | undefined;

afterAll(async () => {
  if (root) {
    await runCli(['down', '--dir', root, '--json'], { timeoutMs: 60_000 });
    await rm(join(root, '..'), { recursive: true, force: true });
  }
  const redis = new Redis(REDIS_URL);
  await deleteKeys(redis, KV_PREFIX);
  await redis.quit();
});

async function up(projectRoot: string): Promise<string[]> {
  const result = await runCli(['up', '--detach', '--dir', projectRoot, '--json'], { timeoutMs: 240_000 });
  expect(result.code, `${result.stdout}\n${result.stderr}`).toBe(0);
  const stack = JSON.parse(result.stdout) as { services: { name: string; state: string }[] };
  expect(
    stack.services.every((s) => s.state === 'healthy'),
    result.stdout,
  ).toBe(true);
  return stack.services.map((s) => s.name);
}

describe('a swarm with system memory under framework-cli up', () => {
  it('remembers a finished task and recalls it for a related request after a restart', async () => {
    await defaultModelStore();
    const base = await mkdtemp(join(tmpdir(), 'fw-swarm-memory-'));
    root = join(base, 'team');
    const created = await runCli(['create', 'swarm', 'team', '--dir', root, '--json']);
    expect(created.code, created.stderr).toBe(0);
    await linkDependencies(root);
    const ports = await moveSwarmToFreePorts({ root, kvPrefix: KV_PREFIX });
    const planner = `http://127.0.0.1:${ports[8003]}`;

    expect(await up(root)).toEqual(['model', 'policy', 'guardian', 'semantic-layer', 'memory', 'orchestrator', 'planner', 'executor']);
    const first = await collectSse(`${planner}/stream`, { body: { query: 'Book the conference room; send the invitations to the team' }, timeoutMs: 60_000 });
    const firstResult = JSON.parse(first.events.find((e) => e.event === 'result')?.data ?? 'null') as { actions: string[]; outcomes: string[] } | null;
    expect(firstResult, JSON.stringify(first.events)).toMatchObject({ actions: ['Book the conference room', 'send the invitations to the team'] });
    expect(first.events.filter((e) => e.event === 'status').map((e) => e.data)).not.toContain('Recalled 1 related past result(s) from system memory');
    expect(
      first.events
        .filter((e) => e.event === 'status')
        .map((e) => e.data)
        .join('\n'),
    ).not.toMatch(/System memory could not/);

    const down = await runCli(['down', '--dir', root, '--json'], { timeoutMs: 60_000 });
    expect(down.code).toBe(0);
    await up(root);

    const again = await collectSse(`${planner}/stream`, { body: { query: 'Reserve the conference room and invite the team' }, timeoutMs: 60_000 });
    const statuses = again.events.filter((e) => e.event === 'status').map((e) => e.data);
    expect(statuses, JSON.stringify(again.events)).toContain('Recalled 1 related past result(s) from system memory');
    const againResult = JSON.parse(again.events.find((e) => e.event === 'result')!.data) as { actions: string[] };
    expect(againResult.actions).toEqual(['Reserve the conference room and invite the team']);
  }, 600_000);
});
