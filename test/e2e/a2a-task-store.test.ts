/**
 * End to end: A2A tasks outlive the executor process with SESSION_BACKEND=kv
 * (Redis at 127.0.0.1:6379), and do not with the memory backend. The
 * executor is a real process, restarted on the same port; the caller is the
 * official SDK client over a signing fetch. Run `npm run build` first.
 */
import { randomUUID } from 'node:crypto';
import type { Task } from '@a2a-js/sdk';
import { ClientFactory, JsonRpcTransportFactory, type Client } from '@a2a-js/sdk/client';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stateName } from '../../runtime/a2a/a2a-chunk.js';
import { partsData, userMessage } from '../../runtime/a2a/a2a-parts.js';
import { signingFetch } from '../../runtime/a2a/signing-fetch.js';
import { deleteKeys, scanKeys } from '../support/redis-keys.js';
import { createWorkspace, freePort, Processes, startPolicyEngine, testKey, type Service, type Workspace } from './a2a-support.js';

const REDIS_URL = 'redis://127.0.0.1:6379';
const processes = new Processes();
const planner = testKey('planner-1', 'planner');
const prefix = `fwtest:e2e-tasks:${randomUUID()}:`;

let workspace: Workspace;
let policyUrl: string;
let redis: Redis;

beforeAll(async () => {
  workspace = await createWorkspace({ ports: { planner: await freePort(), executor: await freePort() }, keys: [planner] });
  policyUrl = (await startPolicyEngine(processes)).url;
  redis = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1 });
  await redis.connect();
}, 60_000);

afterAll(async () => {
  await processes.stopAll();
  expect(processes.allStopped()).toBe(true);
  if (redis) {
    await deleteKeys(redis, prefix);
    await redis.quit();
  }
  await workspace?.remove();
});

/** The executor as a process on `port`, strict, asking the policy engine directly (OPA_URL). */
function startExecutor(port: number, backend: Record<string, string>): Promise<Service> {
  return processes.start({
    name: `executor (${backend.SESSION_BACKEND ?? 'memory'})`,
    port,
    args: ['serve', 'agent', '--example', 'executor', '--a2a-only', '--port', String(port)],
    env: { AGENT_CARD: workspace.cardPath('executor'), A2A_KEYS_FILE: workspace.keysFile, A2A_VALIDATION_MODE: 'strict', OPA_URL: policyUrl, ...backend },
  });
}

/** The official SDK client, from the served card, signing as the planner. */
function client(url: string): Promise<Client> {
  const fetchImpl = signingFetch({ source: 'planner', target: 'executor', key: planner.key });
  return new ClientFactory({ transports: [new JsonRpcTransportFactory({ fetchImpl })] }).createFromUrl(url);
}

/** Sends one action and returns the completed task the executor answered with. */
async function sendAction(url: string, action: string): Promise<Task> {
  const answer = await (
    await client(url)
  ).sendMessage({ tenant: '', message: userMessage({ payload: action }), configuration: undefined, metadata: undefined });
  expect('status' in answer, 'SendMessage answers with a task').toBe(true);
  return answer as Task;
}

function resultOf(task: Task): Record<string, unknown> | undefined {
  return partsData(task.artifacts.find((artifact) => artifact.name === 'result')?.parts ?? []);
}

describe('A2A tasks across an executor restart', () => {
  it('kv backend: getTask after the restart returns the completed task with its result artifact', async () => {
    const port = await freePort();
    const backend = { SESSION_BACKEND: 'kv', SESSION_KV_URL: REDIS_URL, KV_PREFIX: prefix };
    const first = await startExecutor(port, backend);
    const sent = await sendAction(first.url, 'Book the room');
    expect(stateName(sent.status?.state)).toBe('completed');
    expect(resultOf(sent)).toMatchObject({ action: 'Book the room', outcome: 'Done: Book the room' });
    expect((await scanKeys(redis, prefix)).length).toBeGreaterThan(0);

    await first.stop();
    expect(first.process.exitCode).toBe(0);
    const second = await startExecutor(port, backend);
    const task = await (await client(second.url)).getTask({ tenant: '', id: sent.id });
    expect(task.id).toBe(sent.id);
    expect(task.contextId).toBe(sent.contextId);
    expect(stateName(task.status?.state)).toBe('completed');
    expect(resultOf(task)).toEqual(resultOf(sent));
    await second.stop();
  });

  it('memory backend: the task is gone after the restart', async () => {
    const port = await freePort();
    const first = await startExecutor(port, { SESSION_BACKEND: 'memory' });
    const sent = await sendAction(first.url, 'Send the invitations');
    expect(stateName(sent.status?.state)).toBe('completed');
    // Still there while the process lives.
    expect((await (await client(first.url)).getTask({ tenant: '', id: sent.id })).id).toBe(sent.id);

    await first.stop();
    const second = await startExecutor(port, { SESSION_BACKEND: 'memory' });
    await expect((await client(second.url)).getTask({ tenant: '', id: sent.id })).rejects.toThrow(/not found/i);
    await second.stop();
  });
});
