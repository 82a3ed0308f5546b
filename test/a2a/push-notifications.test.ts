import { randomUUID } from 'node:crypto';
import { TaskState, type Task, type TaskPushNotificationConfig } from '@a2a-js/sdk';
import { ClientFactory, JsonRpcTransportFactory, RestTransportFactory, type Client } from '@a2a-js/sdk/client';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningAgent } from '../../runtime/agent/run-agent.js';
import { signingFetch } from '../../runtime/a2a/signing-fetch.js';
import { makeKeys, message, probeAgent, runProbe, scratchDir, startStack, writeCard } from './support.js';
import { startWebhookReceiver, type Delivery } from './webhook-receiver.js';

let stack: Awaited<ReturnType<typeof startStack>>;
let scratch: Awaited<ReturnType<typeof scratchDir>>;
let keys: ReturnType<typeof makeKeys>;
let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;
let card: string;
let running: RunningAgent;
let rpc: Client;
let rest: Client;

const REDIS_URL = 'redis://127.0.0.1:6379';

function clientFor(agent: RunningAgent, binding: 'JSONRPC' | 'HTTP+JSON'): Promise<Client> {
  const fetchImpl = signingFetch({ source: 'orchestrator', target: 'probe', key: keys.keys.get('orchestrator') });
  const transport = binding === 'JSONRPC' ? new JsonRpcTransportFactory({ fetchImpl }) : new RestTransportFactory({ fetchImpl });
  return new ClientFactory({ transports: [transport], preferredTransports: [binding] }).createFromUrl(agent.url);
}

function pushConfig(taskId: string, path: string, extra: Partial<TaskPushNotificationConfig> = {}): TaskPushNotificationConfig {
  return { tenant: '', id: '', taskId, url: receiver.url(path), token: '', authentication: undefined, ...extra };
}

async function sendTask(client: Client, text: string, extra: { taskId?: string; contextId?: string; push?: TaskPushNotificationConfig } = {}): Promise<Task> {
  const msg = { ...message(text), taskId: extra.taskId ?? '', contextId: extra.contextId ?? '' };
  const configuration = extra.push ? { acceptedOutputModes: [], taskPushNotificationConfig: extra.push, returnImmediately: false } : undefined;
  const result = await client.sendMessage({ tenant: '', message: msg, configuration, metadata: undefined });
  if (!('status' in result)) throw new Error(`expected a task, got ${JSON.stringify(result)}`);
  return result;
}

/** The task states a webhook was told, in order. */
function states(got: Delivery[]): string[] {
  return got.map((d) => {
    const body = d.body as { statusUpdate?: { status?: { state?: string } }; task?: { status?: { state?: string } } };
    return body.statusUpdate?.status?.state ?? body.task?.status?.state ?? Object.keys(body as object)[0] ?? '';
  });
}

function startAgent(env: Record<string, string> = {}): Promise<RunningAgent> {
  const built = probeAgent('probe');
  return runProbe(built.core, built.agent, {
    AGENT_CARD: card,
    A2A_KEYS: keys.json,
    A2A_VALIDATION_MODE: 'strict',
    GUARDIAN_URL: stack.guardian.url,
    A2A_PUSH_ALLOWED_HOSTS: `127.0.0.1:${receiver.port}`,
    ...env,
  });
}

beforeAll(async () => {
  stack = await startStack();
  scratch = await scratchDir();
  receiver = await startWebhookReceiver({ failFirst: { '/flaky': 2 } });
  card = await writeCard(scratch.dir, 'probe', { capabilities: { streaming: true, pushNotifications: true } });
  await writeCard(scratch.dir, 'orchestrator');
  keys = makeKeys(['orchestrator', 'probe']);
  running = await startAgent();
  rpc = await clientFor(running, 'JSONRPC');
  rest = await clientFor(running, 'HTTP+JSON');
});

afterAll(async () => {
  await running?.close();
  await receiver?.close();
  await stack?.close();
  await scratch?.remove();
});

describe('push notifications, through the official JS SDK clients', () => {
  it('the card declares them', async () => {
    const served = (await (await fetch(`${running.url}/.well-known/agent-card.json`, { headers: { 'A2A-Version': '1.0' } })).json()) as {
      capabilities: { pushNotifications: boolean };
    };
    expect(served.capabilities.pushNotifications).toBe(true);
  });

  it('set, get, list and delete a task config over JSON-RPC; updates reach the webhook with its auth, in order', async () => {
    const asked = await sendTask(rpc, 'ask first');
    expect(asked.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const created = await rpc.createTaskPushNotificationConfig(
      pushConfig(asked.id, '/rpc-hook', { token: 'tok-1', authentication: { scheme: 'Bearer', credentials: 'hook-secret' } }),
    );
    expect(created.id).not.toBe('');
    expect(created.url).toBe(receiver.url('/rpc-hook'));
    const got = await rpc.getTaskPushNotificationConfig({ tenant: '', taskId: asked.id, id: created.id });
    // The webhook's secrets are write-only: shown as set, never returned.
    expect([got.url, got.token, got.authentication]).toEqual([receiver.url('/rpc-hook'), '[redacted]', { scheme: 'Bearer', credentials: '[redacted]' }]);
    expect((await rpc.listTaskPushNotificationConfig({ tenant: '', taskId: asked.id, pageSize: 0, pageToken: '' })).configs.map((c) => c.id)).toEqual([
      created.id,
    ]);

    await sendTask(rpc, 'yes', { taskId: asked.id, contextId: asked.contextId });
    const delivered = await receiver.waitFor('/rpc-hook', (d) => states(d).includes('TASK_STATE_COMPLETED'));
    expect(states(delivered).at(-1)).toBe('TASK_STATE_COMPLETED');
    expect(states(delivered)).toContain('TASK_STATE_WORKING');
    for (const d of delivered) {
      expect(d.headers['content-type']).toBe('application/a2a+json');
      expect(d.headers.authorization).toBe('Bearer hook-secret');
      expect(d.headers['x-a2a-notification-token']).toBe('tok-1');
    }
    const taskIds = new Set(
      delivered.map((d) => {
        const body = d.body as Record<string, { taskId?: string; id?: string }>;
        const [value] = Object.values(body);
        return value?.taskId ?? value?.id;
      }),
    );
    expect([...taskIds]).toEqual([asked.id]);

    await rpc.deleteTaskPushNotificationConfig({ tenant: '', taskId: asked.id, id: created.id });
    expect((await rpc.listTaskPushNotificationConfig({ tenant: '', taskId: asked.id, pageSize: 0, pageToken: '' })).configs).toEqual([]);
  });

  it('never returns a webhook token or credentials: create, get and list over JSON-RPC, the REST client and raw REST', async () => {
    const secret = { token: 'tok-leak', authentication: { scheme: 'Basic', credentials: 'dXNlcjpwYXNz' } };
    const leaks = (value: unknown) => JSON.stringify(value).includes('tok-leak') || JSON.stringify(value).includes('dXNlcjpwYXNz');
    for (const client of [rpc, rest]) {
      const asked = await sendTask(client, 'ask first');
      const created = await client.createTaskPushNotificationConfig(pushConfig(asked.id, '/never-sent', secret));
      const got = await client.getTaskPushNotificationConfig({ tenant: '', taskId: asked.id, id: created.id });
      const listed = await client.listTaskPushNotificationConfig({ tenant: '', taskId: asked.id, pageSize: 0, pageToken: '' });
      for (const answer of [created, got, ...listed.configs]) {
        expect(leaks(answer)).toBe(false);
        expect([answer.token, answer.authentication]).toEqual(['[redacted]', { scheme: 'Basic', credentials: '[redacted]' }]);
      }
      // The JSON on the wire, as any HTTP client reads it, holds no secret either.
      const signed = signingFetch({ source: 'orchestrator', target: 'probe', key: keys.keys.get('orchestrator') });
      const wire = await signed(`${running.a2aUrl!}rest/tasks/${asked.id}/pushNotificationConfigs`);
      expect(wire.status).toBe(200);
      const text = await wire.text();
      expect(text).toContain('[redacted]');
      expect(text).not.toContain('tok-leak');
      expect(text).not.toContain('dXNlcjpwYXNz');
    }
  });

  it('a config given with the message over REST gets every update of the new task', async () => {
    const task = await sendTask(rest, 'stream please', { push: pushConfig('', '/rest-hook', { token: 'tok-2' }) });
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    const delivered = await receiver.waitFor('/rest-hook', (d) => states(d).includes('TASK_STATE_COMPLETED'));
    expect(delivered.every((d) => d.headers['x-a2a-notification-token'] === 'tok-2')).toBe(true);
    expect(delivered.some((d) => 'artifactUpdate' in (d.body as object))).toBe(true);
    const configs = await rest.listTaskPushNotificationConfig({ tenant: '', taskId: task.id, pageSize: 0, pageToken: '' });
    expect(configs.configs.map((c) => c.url)).toEqual([receiver.url('/rest-hook')]);
  });

  it('retries a webhook answering 503 with back-off until it takes the notification', async () => {
    const asked = await sendTask(rpc, 'ask again');
    await rpc.createTaskPushNotificationConfig(pushConfig(asked.id, '/flaky'));
    await rpc.createTaskPushNotificationConfig(pushConfig(asked.id, '/steady'));
    await sendTask(rpc, 'yes', { taskId: asked.id, contextId: asked.contextId });
    const steady = await receiver.waitFor('/steady', (d) => states(d).includes('TASK_STATE_COMPLETED'));
    const flaky = await receiver.waitFor('/flaky', (d) => states(d).includes('TASK_STATE_COMPLETED'));
    // The first two POSTs got 503 and were retried: the flaky hook got every event the steady one got, in the same order.
    expect(states(flaky)).toEqual(states(steady));
    expect(flaky.map((d) => d.body)).toEqual(steady.map((d) => d.body));
    expect(receiver.attempts.get('/flaky')).toBe(flaky.length + 2);
  });

  it('refuses a webhook host that is not allowed, a non-http URL and a URL with credentials (no SSRF)', async () => {
    const asked = await sendTask(rpc, 'ask to refuse');
    for (const url of [
      'http://127.0.0.1:6379/',
      'http://169.254.169.254/latest/meta-data',
      `http://localhost:${receiver.port}/x`,
      'file:///etc/passwd',
      `http://user:pw@127.0.0.1:${receiver.port}/x`,
    ]) {
      await expect(rpc.createTaskPushNotificationConfig({ ...pushConfig(asked.id, '/x'), url })).rejects.toThrow(/push notification|not allowed|http/i);
    }
    await expect(sendTask(rest, 'result with bad hook', { push: { ...pushConfig('', '/x'), url: 'http://10.0.0.1/' } })).rejects.toThrow(/not allowed/);
    expect((await rpc.listTaskPushNotificationConfig({ tenant: '', taskId: asked.id, pageSize: 0, pageToken: '' })).configs).toEqual([]);
  });

  it('a config for an unknown task is a not-found error', async () => {
    await expect(rpc.createTaskPushNotificationConfig(pushConfig('no-such-task', '/x'))).rejects.toThrow(/not found/i);
  });
});

describe('push configs in Redis (SESSION_BACKEND=kv)', () => {
  it('are shared by replicas: set on one, listed and used by another', async () => {
    const prefix = `test-push-${randomUUID()}:`;
    const env = { SESSION_BACKEND: 'kv', SESSION_KV_URL: REDIS_URL, KV_PREFIX: prefix };
    const a = await startAgent(env);
    const b = await startAgent(env);
    const redis = new Redis(REDIS_URL);
    try {
      const onA = await clientFor(a, 'JSONRPC');
      const onB = await clientFor(b, 'HTTP+JSON');
      const asked = await sendTask(onA, 'ask in kv');
      const created = await onA.createTaskPushNotificationConfig(pushConfig(asked.id, '/kv-hook', { token: 'tok-kv' }));
      const listed = await onB.listTaskPushNotificationConfig({ tenant: '', taskId: asked.id, pageSize: 0, pageToken: '' });
      expect(listed.configs.map((c) => [c.id, c.url, c.token])).toEqual([[created.id, receiver.url('/kv-hook'), '[redacted]']]);
      const keysWritten = await redis.keys(`${prefix}a2a:push:*`);
      expect(keysWritten).toHaveLength(1);
      expect(await redis.ttl(keysWritten[0]!)).toBeGreaterThan(0);
      await sendTask(onB, 'yes', { taskId: asked.id, contextId: asked.contextId });
      const delivered = await receiver.waitFor('/kv-hook', (d) => states(d).includes('TASK_STATE_COMPLETED'));
      // Redacted in answers, kept in Redis for sending: the webhook still gets the token given on create.
      expect(delivered.every((d) => d.headers['x-a2a-notification-token'] === 'tok-kv')).toBe(true);
      await onB.deleteTaskPushNotificationConfig({ tenant: '', taskId: asked.id, id: created.id });
      expect((await onA.listTaskPushNotificationConfig({ tenant: '', taskId: asked.id, pageSize: 0, pageToken: '' })).configs).toEqual([]);
    } finally {
      const left = await redis.keys(`${prefix}*`);
      if (left.length > 0) await redis.del(...left);
      redis.disconnect();
      await a.close();
      await b.close();
    }
  });
});
