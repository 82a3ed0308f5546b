import { TaskState, type Task } from '@a2a-js/sdk';
import { ClientFactory, JsonRpcTransportFactory, RestTransportFactory, type Client } from '@a2a-js/sdk/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PermissionError } from '../../runtime/a2a/errors/permission-error.js';
import type { RunningAgent } from '../../runtime/agent/run-agent.js';
import { signingFetch } from '../../runtime/a2a/signing-fetch.js';
import { signRequest } from '../../runtime/a2a/signing/request-signature.js';
import { collect, describeEvent, makeKeys, message, partValue, probeAgent, runProbe, scratchDir, startStack, writeCard, type Probe } from './support.js';

let stack: Awaited<ReturnType<typeof startStack>>;
let scratch: Awaited<ReturnType<typeof scratchDir>>;
let running: RunningAgent;
let probe: Probe;
let keys: ReturnType<typeof makeKeys>;
let rest: Client;
let restUrl: string;

/** The official SDK client over the REST transport only, signing as `source` (unsigned without a key). */
function restClient(source: string, signed = true): Promise<Client> {
  const fetchImpl = signingFetch({ source, target: 'probe', key: signed ? keys.keys.get(source) : undefined });
  return new ClientFactory({ transports: [new RestTransportFactory({ fetchImpl })], preferredTransports: ['HTTP+JSON'] }).createFromUrl(running.url);
}

function send(payload: string | Record<string, unknown>) {
  return { tenant: '', message: message(payload), configuration: undefined, metadata: undefined };
}

async function sendTask(client: Client, payload: string): Promise<Task> {
  const result = await client.sendMessage(send(payload));
  if (!('status' in result)) throw new Error(`expected a task, got ${JSON.stringify(result)}`);
  return result;
}

/** A raw request to the REST binding, signed as the orchestrator when `signed`. */
function restFetch(path: string, init: { method?: string; body?: string; signed?: boolean; contentType?: string } = {}): Promise<Response> {
  const method = init.method ?? 'GET';
  const url = new URL(`${restUrl}${path}`);
  const body = init.body ?? '';
  const headers: Record<string, string> = { 'A2A-Version': '1.0' };
  if (init.body !== undefined) headers['content-type'] = init.contentType ?? 'application/json';
  if (init.signed !== false)
    Object.assign(
      headers,
      signRequest({ method, path: `${url.pathname}${url.search}`, body, source: 'orchestrator', target: 'probe', key: keys.keys.get('orchestrator')! }),
    );
  return fetch(url, { method, headers, ...(method === 'GET' || method === 'DELETE' ? {} : { body }) });
}

beforeAll(async () => {
  stack = await startStack();
  scratch = await scratchDir();
  const card = await writeCard(scratch.dir, 'probe', { url: 'http://127.0.0.1:0/rpc/' });
  await writeCard(scratch.dir, 'orchestrator');
  keys = makeKeys(['orchestrator', 'probe', 'weather']);
  const built = probeAgent('probe');
  probe = built.probe;
  running = await runProbe(built.core, built.agent, { AGENT_CARD: card, A2A_KEYS: keys.json, A2A_VALIDATION_MODE: 'strict', GUARDIAN_URL: stack.guardian.url });
  restUrl = `${running.a2aUrl!}rest`;
  rest = await restClient('orchestrator');
});

afterAll(async () => {
  await running?.close();
  await stack?.close();
  await scratch?.remove();
});

describe('the HTTP+JSON (REST) binding, through the official SDK REST client', () => {
  it('is declared in the card beside JSON-RPC', async () => {
    const card = (await (await fetch(`${running.url}/.well-known/agent-card.json`, { headers: { 'A2A-Version': '1.0' } })).json()) as {
      supportedInterfaces: { url: string; protocolBinding: string; protocolVersion: string }[];
    };
    expect(card.supportedInterfaces.filter((i) => i.protocolVersion === '1.0').map((i) => [i.protocolBinding, i.url])).toEqual([
      ['JSONRPC', running.a2aUrl],
      ['HTTP+JSON', restUrl],
    ]);
  });

  it('sendMessage completes the task with its result artifact', async () => {
    const task = await sendTask(rest, 'result please');
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(task.artifacts.map((a) => [a.name, partValue(a.parts)])).toEqual([['result', { outcome: 'done', n: 42 }]]);
  });

  it('sendMessageStream yields the same events as JSON-RPC, in order', async () => {
    const events = await collect(rest.sendMessageStream(send('stream now')));
    expect(events.map(describeEvent)).toEqual([
      ['task', 'TASK_STATE_SUBMITTED', undefined],
      ['status', 'TASK_STATE_WORKING', undefined],
      ['status', 'TASK_STATE_WORKING', 'Working on it'],
      ['artifact', 'text', 'half way'],
      ['artifact', 'result', { outcome: 'streamed', n: 3 }],
      ['status', 'TASK_STATE_COMPLETED', undefined],
    ]);
  });

  it('getTask returns a task, including one created over JSON-RPC by the same caller', async () => {
    const viaRest = await sendTask(rest, 'result again');
    expect((await rest.getTask({ tenant: '', id: viaRest.id })).status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    const rpc = await new ClientFactory({
      transports: [new JsonRpcTransportFactory({ fetchImpl: signingFetch({ source: 'orchestrator', target: 'probe', key: keys.keys.get('orchestrator') }) })],
    }).createFromUrl(running.url);
    const viaRpc = await sendTask(rpc, 'result over rpc');
    const got = await rest.getTask({ tenant: '', id: viaRpc.id });
    expect([got.id, got.status?.state, got.artifacts.map((a) => partValue(a.parts))]).toEqual([
      viaRpc.id,
      TaskState.TASK_STATE_COMPLETED,
      [{ outcome: 'done', n: 42 }],
    ]);
  });

  it('cancelTask cancels a slow task and fires its AbortSignal', async () => {
    const before = probe.slowSignals.length;
    const stream = rest.sendMessageStream(send('slow work'))[Symbol.asyncIterator]();
    let taskId = '';
    for (let started = false; !started;) {
      const next = await stream.next();
      if (next.done) throw new Error('stream ended before the task started');
      if (next.value.payload?.$case === 'task') taskId = next.value.payload.value.id;
      started = describeEvent(next.value)[2] === 'started';
    }
    const canceled = await rest.cancelTask({ tenant: '', id: taskId, metadata: undefined });
    expect(canceled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    expect(probe.slowSignals[before]?.aborted).toBe(true);
    await collect({ [Symbol.asyncIterator]: () => stream });
  });

  it('getTask of an unknown id is a 404 with the SDK error body', async () => {
    await expect(rest.getTask({ tenant: '', id: 'no-such-task' })).rejects.toThrow(/not found/i);
    const res = await restFetch('/tasks/no-such-task');
    expect(res.status).toBe(404);
    expect(((await res.json()) as { error: { status: string } }).error.status).toBe('NOT_FOUND');
  });
});

describe('the REST binding is guarded exactly like JSON-RPC (fail closed)', () => {
  it('refuses an unsigned REST send with 401 and a challenge, before the task runs', async () => {
    const before = probe.calls.length;
    const res = await restFetch('/message:send', { method: 'POST', body: JSON.stringify(send('result unsigned')), signed: false });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(/^FW1-HMAC-SHA256 /i);
    expect(((await res.json()) as { code: string }).code).toBe('signature_invalid');
    const unsigned = await restClient('orchestrator', false);
    await expect(unsigned.sendMessage(send('result unsigned'))).rejects.toThrow();
    expect(probe.calls.length).toBe(before);
  });

  it('refuses unsigned reads too: get, list, cancel, push configs', async () => {
    for (const [method, path] of [
      ['GET', '/tasks/x'],
      ['GET', '/tasks'],
      ['POST', '/tasks/x:cancel'],
      ['GET', '/tasks/x/pushNotificationConfigs'],
      ['GET', '/tenant-a/tasks/x'],
    ] as const) {
      const res = await restFetch(path, { method, signed: false, ...(method === 'POST' ? { body: '{}' } : {}) });
      expect([path, res.status, res.status === 401 ? '' : await res.text()]).toEqual([path, 401, '']);
    }
  });

  it('refuses a request whose signature covers another path', async () => {
    const url = new URL(`${restUrl}/tasks/a`);
    const headers = signRequest({
      method: 'GET',
      path: `${url.pathname.replace(/a$/, 'b')}`,
      body: '',
      source: 'orchestrator',
      target: 'probe',
      key: keys.keys.get('orchestrator')!,
    });
    expect((await fetch(url, { headers: { ...headers, 'A2A-Version': '1.0' } })).status).toBe(401);
  });

  it('refuses a signed caller the policy does not allow with 403', async () => {
    const before = probe.calls.length;
    const weather = await restClient('weather');
    await expect(weather.sendMessage(send('result please'))).rejects.toSatisfy((error: unknown) => error instanceof PermissionError);
    expect(probe.calls.length).toBe(before);
  });
});

describe('bad REST requests get a clear error', () => {
  it('an unknown path is a 404, a wrong method a 405 with Allow', async () => {
    const missing = await restFetch('/nothing/here/at/all');
    expect(missing.status).toBe(404);
    const wrong = await restFetch('/message:send');
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get('allow')).toBe('POST');
  });

  it('a malformed percent-encoding in a task id or tenant is a 400, never a 500', async () => {
    for (const path of ['/tasks/%E0%A4%A', '/tasks/%E0:cancel', '/%E0/tasks/x']) {
      const bad = await restFetch(path, path.endsWith(':cancel') ? { method: 'POST', body: '{}' } : {});
      expect(bad.status, path).toBe(400);
      expect(((await bad.json()) as { error: { message: string } }).error.message).toMatch(/percent-encoding/);
    }
  });

  it('invalid JSON, a non-object body and a missing message are 400 INVALID_ARGUMENT', async () => {
    for (const body of ['{not json', '[1,2]', '{}']) {
      const res = await restFetch('/message:send', { method: 'POST', body });
      expect([body, res.status]).toEqual([body, 400]);
      expect(((await res.json()) as { error: { status: string } }).error.status).toBe('INVALID_ARGUMENT');
    }
  });

  it('an unsupported content type is a 415 before the body is read; answers are application/json', async () => {
    const res = await restFetch('/message:send', { method: 'POST', body: 'hi', contentType: 'text/plain' });
    expect(res.status).toBe(415);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(((await res.json()) as { error: { details: { reason: string }[] } }).error.details[0]?.reason).toBe('CONTENT_TYPE_NOT_SUPPORTED');
  });

  it('a bad pageSize is a 400', async () => {
    expect((await restFetch('/tasks?pageSize=0')).status).toBe(400);
  });
});
