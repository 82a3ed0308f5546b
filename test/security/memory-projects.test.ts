/**
 * Issue 33: two projects on the same Redis shared the memory service's
 * default key prefix (`fw:`), so a new swarm's memory service answered
 * another project's records ("The user is allergic to peanuts"). Each
 * project's services now get their own prefix from `up` (the Supervisor),
 * derived from the project; an explicit KV_PREFIX still wins. Real
 * `framework-cli serve memory` children (run `npm run build` first).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { createSwarm } from '../../runtime/scaffold/create-swarm.js';
import { loadProject } from '../../runtime/supervisor/load-project.js';
import { projectKeyPrefix } from '../../runtime/supervisor/project-key-prefix.js';
import { Supervisor, type ServiceSpecInput } from '../../runtime/supervisor/supervisor.js';
import { modelRuntime } from '../memory/support.js';
import { freePort } from '../support/net.js';
import { CLI, startService } from '../support/processes.js';
import { deleteKeys } from '../support/redis-keys.js';
import { REDIS_URL } from '../support/redis-scope.js';

const models = modelRuntime();
const dirs: string[] = [];
const prefixes: string[] = [];
const running: Supervisor[] = [];

afterAll(async () => {
  await Promise.all(running.map((s) => s.stop()));
  const redis = new Redis(REDIS_URL);
  for (const prefix of prefixes) await deleteKeys(redis, prefix);
  await redis.quit();
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

/** A new swarm named "team" in its own folder (the same name twice: only the path tells them apart). */
async function swarm(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'fw-projects-'));
  dirs.push(dir);
  const root = join(dir, 'team');
  await createSwarm({ dir: root, name: 'team' });
  prefixes.push(projectKeyPrefix({ root }));
  return root;
}

/** The project's own memory service, as `up` starts it (on a free port, embedding with the test's model runtime, without tokens). */
async function upMemory(root: string, env: Record<string, string> = {}): Promise<string> {
  const spec = loadProject({ root }).services.find((s) => s.kind === 'memory')!;
  const port = await freePort();
  const { MEMORY_AUTH_TOKENS_FILE: _tokens, ...specEnv } = spec.env;
  const service: ServiceSpecInput = {
    ...spec,
    port,
    args: ['serve', 'memory', '--addr', `127.0.0.1:${port}`],
    env: { ...specEnv, KV_URL: REDIS_URL, OLLAMA_HOST: models.url(), ...env },
    dependsOn: [],
  };
  const supervisor = new Supervisor({ root, services: [service], cliPath: CLI });
  running.push(supervisor);
  await supervisor.start();
  return `http://127.0.0.1:${port}`;
}

const post = async (url: string, path: string, body: unknown) => {
  const res = await fetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as any };
};

describe('projects sharing a Redis', () => {
  it("never see each other's memory: each project's services get their own key prefix", async () => {
    const first = await swarm();
    const second = await swarm();
    expect(projectKeyPrefix({ root: first })).not.toBe(projectKeyPrefix({ root: second }));
    expect(projectKeyPrefix({ root: first })).toMatch(/^fw:team-[0-9a-f]{12}:$/);

    const a = await upMemory(first);
    const id = `peanuts-${Date.now()}`;
    try {
      expect((await post(a, '/v1/long-term-memory/', { memories: [{ id, text: 'The user is allergic to peanuts' }] })).status).toBe(200);
      const b = await upMemory(second);
      const found = await post(b, '/v1/long-term-memory/search', { text: 'What is the user allergic to?', limit: 10 });
      expect(found.status).toBe(200);
      expect(JSON.stringify(found.body)).not.toContain('peanuts');
      expect((await fetch(`${b}/v1/long-term-memory/${id}`)).status).toBe(404);
      // Where it is: under the first project's prefix.
      const redis = new Redis(REDIS_URL);
      try {
        expect(await redis.exists(`${projectKeyPrefix({ root: first })}mem:rec:${id}`)).toBe(1);
      } finally {
        await redis.quit();
      }
    } finally {
      await fetch(`${a}/v1/long-term-memory?memory_ids=${id}`, { method: 'DELETE' });
    }
  });

  it('an explicit KV_PREFIX in the service env still wins', async () => {
    const root = await swarm();
    const explicit = `fwtest:explicit-${Date.now()}:`;
    prefixes.push(explicit);
    const url = await upMemory(root, { KV_PREFIX: explicit });
    const id = `explicit-${Date.now()}`;
    expect((await post(url, '/v1/long-term-memory/', { memories: [{ id, text: 'The user likes the sea' }] })).status).toBe(200);
    const redis = new Redis(REDIS_URL);
    try {
      expect(await redis.exists(`${explicit}mem:rec:${id}`)).toBe(1);
    } finally {
      await redis.quit();
    }
  });

  it('serve memory started by hand in a project folder uses the same prefix as up', async () => {
    const root = await swarm();
    const port = await freePort();
    const service = await startService({
      name: 'memory by hand',
      args: ['serve', 'memory', '--addr', `127.0.0.1:${port}`],
      port,
      cwd: root,
      env: { KV_URL: REDIS_URL, OLLAMA_HOST: models.url() },
      timeoutMs: 60_000,
    });
    const id = `by-hand-${Date.now()}`;
    try {
      expect((await post(service.url, '/v1/long-term-memory/', { memories: [{ id, text: 'The user likes the mountains' }] })).status).toBe(200);
      const redis = new Redis(REDIS_URL);
      try {
        expect(await redis.exists(`${projectKeyPrefix({ root })}mem:rec:${id}`)).toBe(1);
      } finally {
        await redis.quit();
      }
    } finally {
      await fetch(`${service.url}/v1/long-term-memory?memory_ids=${id}`, { method: 'DELETE' });
      await service.stop();
    }
  });
});
