import { randomUUID } from 'node:crypto';
import { TaskState, type Task } from '@a2a-js/sdk';
import { LegacyRestTransport } from '@a2a-js/sdk/compat/v0_3/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signingFetch } from '../../runtime/a2a/signing-fetch.js';
import { signRequest } from '../../runtime/a2a/signing/request-signature.js';
import type { RunningAgent } from '../../runtime/agent/run-agent.js';
import { collect, describeEvent, makeKeys, message, partValue, probeAgent, runProbe, scratchDir, startStack, writeCard, type Probe } from './support.js';

let stack: Awaited<ReturnType<typeof startStack>>;
let scratch: Awaited<ReturnType<typeof scratchDir>>;
let running: RunningAgent;
let probe: Probe;
let keys: ReturnType<typeof makeKeys>;

/** The official JS SDK's v0.3 HTTP+JSON client transport (what agents on 0.3-era SDKs send), signing as `source`. */
function legacyRest(source: string, signed = true): LegacyRestTransport {
  const fetchImpl = signingFetch({ source, target: 'probe', key: signed ? keys.keys.get(source) : undefined });
  return new LegacyRestTransport({ endpoint: running.a2aUrl!.replace(/\/$/, ''), fetchImpl });
}

/** A raw v0.3 REST call (proto JSON body), signed as `source` unless null. */
function raw(method: string, path: string, body: unknown, source: string | null = 'orchestrator', headers: Record<string, string> = {}): Promise<Response> {
  const text = body === undefined ? '' : JSON.stringify(body);
  const all: Record<string, string> = { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers };
  if (source) Object.assign(all, signRequest({ method, path, body: text, source, target: 'probe', key: keys.keys.get(source)! }));
  return fetch(new URL(path, running.a2aUrl!), { method, headers: all, ...(body === undefined ? {} : { body: text }) });
}

const send = (text: string) => ({ tenant: '', message: message(text), configuration: undefined, metadata: undefined });

beforeAll(async () => {
  stack = await startStack();
  scratch = await scratchDir();
  const card = await writeCard(scratch.dir, 'probe', { capabilities: { streaming: 'True', pushNotifications: 'True' } });
  await writeCard(scratch.dir, 'orchestrator');
  keys = makeKeys(['orchestrator', 'probe', 'weather']);
  const built = probeAgent('probe');
  probe = built.probe;
  running = await runProbe(built.core, built.agent, {
    AGENT_CARD: card,
    A2A_KEYS: keys.json,
    A2A_VALIDATION_MODE: 'strict',
    GUARDIAN_URL: stack.guardian.url,
    A2A_PUSH_ALLOWED_HOSTS: 'hooks.example.com',
  });
});

afterAll(async () => {
  await running?.close();
  await stack?.close();
  await scratch?.remove();
});

describe('the v0.3 HTTP+JSON binding (SDK v0.3 REST client transport)', () => {
  it('the 0.3 card declares it as an additional interface at the card URL', async () => {
    const card = (await (await fetch(new URL('/.well-known/agent-card.json', running.a2aUrl!), { headers: { 'A2A-Version': '0.3' } })).json()) as {
      url: string;
      additionalInterfaces?: Array<{ url: string; transport: string }>;
    };
    expect(card.additionalInterfaces).toContainEqual({ url: card.url, transport: 'HTTP+JSON' });
  });

  it('sends, streams, gets and cancels', async () => {
    const client = legacyRest('orchestrator');
    const result = await client.sendMessage(send('result please'));
    const task = result as Task;
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(task.artifacts.map((a) => partValue(a.parts))).toEqual([{ outcome: 'done', n: 42 }]);
    const events = (await collect(client.sendMessageStream(send('stream now')))).map(describeEvent);
    expect(events.at(0)?.[0]).toBe('task');
    expect(events.at(-1)).toEqual(['status', 'TASK_STATE_COMPLETED', undefined]);
    expect(events.filter((e) => e[0] === 'artifact').map((e) => e[2])).toEqual(['half way', { outcome: 'streamed', n: 3 }]);
    const got = await client.getTask({ tenant: '', id: task.id, historyLength: 1 });
    expect(got.id).toBe(task.id);
    expect(got.history.length).toBeLessThanOrEqual(1);
    const asked = (await client.sendMessage(send('ask me'))) as Task;
    const cancelled = await client.cancelTask({ tenant: '', id: asked.id, metadata: undefined });
    expect(cancelled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    // Cancelling it again: TaskNotCancelableError (both specs), on this binding and on v0.3 and 1.0 JSON-RPC.
    await expect(client.cancelTask({ tenant: '', id: asked.id, metadata: undefined })).rejects.toThrow();
    const again = await raw('POST', `/v1/tasks/${asked.id}:cancel`, undefined);
    expect(again.status).toBe(400);
    expect(((await again.json()) as { code: number }).code).toBe(-32002);
  });

  it('sets, gets, lists and deletes push notification configs', async () => {
    const client = legacyRest('orchestrator');
    const task = (await client.sendMessage(send('ask me'))) as Task;
    const config = { tenant: '', taskId: task.id, id: 'cfg-1', url: 'https://hooks.example.com/a2a', token: 'tok', authentication: undefined };
    const created = await client.createTaskPushNotificationConfig(config);
    // The token is write-only: accepted, and answered redacted on create, get and list.
    expect([created.taskId, created.id, created.url, created.token]).toEqual([task.id, 'cfg-1', 'https://hooks.example.com/a2a', '[redacted]']);
    const got = await client.getTaskPushNotificationConfig({ tenant: '', taskId: task.id, id: 'cfg-1' });
    expect([got.url, got.token]).toEqual(['https://hooks.example.com/a2a', '[redacted]']);
    const listed = await client.listTaskPushNotificationConfig({ tenant: '', taskId: task.id, pageSize: 0, pageToken: '' });
    expect(listed.configs.map((c) => [c.id, c.token])).toEqual([['cfg-1', '[redacted]']]);
    await client.deleteTaskPushNotificationConfig({ tenant: '', taskId: task.id, id: 'cfg-1' });
    expect((await client.listTaskPushNotificationConfig({ tenant: '', taskId: task.id, pageSize: 0, pageToken: '' })).configs).toEqual([]);
    // The webhook host list applies here too.
    await expect(client.createTaskPushNotificationConfig({ ...config, id: 'cfg-2', url: 'http://169.254.169.254/' })).rejects.toThrow();
  });

  it('reads the proto JSON of other 0.3 clients (snake_case names) and answers lowerCamelCase with 0.3 enums', async () => {
    const body = { message: { message_id: randomUUID(), role: 'ROLE_USER', content: [{ text: 'result raw' }] }, configuration: { blocking: true } };
    const res = await raw('POST', '/v1/message:send', body);
    expect(res.status).toBe(200);
    const json = (await res.json()) as { task: { id: string; contextId: string; status: { state: string }; artifacts: Array<{ parts: unknown[] }> } };
    expect(json.task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(json.task.contextId).toEqual(expect.any(String));
    expect(json.task.artifacts[0]!.parts).toEqual([{ data: { data: { outcome: 'done', n: 42 } } }]);
    const got = await raw('GET', `/v1/tasks/${json.task.id}`, undefined);
    expect(((await got.json()) as { id: string }).id).toBe(json.task.id);
    const missing = await raw('GET', '/v1/tasks/no-such-task', undefined);
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { code: number }).code).toBe(-32001);
  });

  it('refuses bad input with a clear error, never a crash', async () => {
    const noParts = await raw('POST', '/v1/message:send', { message: { messageId: 'm', role: 'ROLE_USER', content: [] } });
    expect(noParts.status).toBe(400);
    expect(((await noParts.json()) as { message: string }).message).toMatch(/at least one part/);
    const badRole = await raw('POST', '/v1/message:send', { message: { messageId: 'm', role: 'ROLE_X', content: [{ text: 'x' }] } });
    expect(badRole.status).toBe(400);
    expect(((await badRole.json()) as { message: string }).message).toMatch(/role/);
    const badPart = await raw('POST', '/v1/message:send', { message: { messageId: 'm', role: 'ROLE_USER', content: [{ nothing: 1 }] } });
    expect(badPart.status).toBe(400);
    expect((await raw('POST', '/v1/message:send', [1, 2])).status).toBe(400);
    expect((await raw('DELETE', '/v1/message:send', undefined)).status).toBe(405);
    expect((await raw('GET', '/v1/nowhere', undefined)).status).toBe(404);
    const badId = await raw('GET', '/v1/tasks/%E0%A4%A', undefined);
    expect(badId.status).toBe(400);
    expect(((await badId.json()) as { message: string }).message).toMatch(/percent-encoding/);
    const v1 = await raw('POST', '/v1/message:send', { message: { messageId: 'm', role: 'ROLE_USER', content: [{ text: 'x' }] } }, 'orchestrator', {
      'A2A-Version': '1.0',
    });
    expect(v1.status).toBe(400);
  });

  it('refuses an unsigned call with 401 and a policy-denied one with 403, before the task runs', async () => {
    const before = probe.calls.length;
    const body = { message: { messageId: randomUUID(), role: 'ROLE_USER', content: [{ text: 'result unsigned' }] } };
    const unsigned = await raw('POST', '/v1/message:send', body, null);
    expect(unsigned.status).toBe(401);
    expect(unsigned.headers.get('www-authenticate')).toMatch(/^FW1-HMAC-SHA256 /);
    expect((await raw('GET', '/v1/tasks/anything', undefined, null)).status).toBe(401);
    await expect(legacyRest('orchestrator', false).sendMessage(send('x'))).rejects.toThrow();
    const denied = await raw('POST', '/v1/message:send', body, 'weather');
    expect(denied.status).toBe(403);
    expect(probe.calls.length).toBe(before);
  });
});
