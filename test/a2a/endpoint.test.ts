import { randomUUID } from 'node:crypto';
import { TaskState, type Task } from '@a2a-js/sdk';
import { ClientFactory, JsonRpcTransportFactory, type Client } from '@a2a-js/sdk/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PermissionError } from '../../runtime/a2a/errors/permission-error.js';
import { SignatureError } from '../../runtime/a2a/errors/signature-error.js';
import type { RunningAgent } from '../../runtime/agent/run-agent.js';
import {
  collect,
  describeEvent,
  makeKeys,
  message,
  partValue,
  probeAgent,
  runProbe,
  scratchDir,
  sdkClient,
  startStack,
  writeCard,
  type Probe,
} from './support.js';
import { runAgent } from '../../runtime/agent/run-agent.js';

let stack: Awaited<ReturnType<typeof startStack>>;
let scratch: Awaited<ReturnType<typeof scratchDir>>;
let running: RunningAgent;
let probe: Probe;
let client: Client;
let secrets: string[];
let rpcUrl: string;
let keys: ReturnType<typeof makeKeys>;

beforeAll(async () => {
  stack = await startStack();
  scratch = await scratchDir();
  // The card serves JSON-RPC under /rpc/, so the endpoint must follow the card's path.
  const card = await writeCard(scratch.dir, 'probe', { url: 'http://127.0.0.1:0/rpc/' });
  await writeCard(scratch.dir, 'orchestrator');
  keys = makeKeys(['orchestrator', 'probe', 'weather']);
  secrets = keys.secrets;
  const built = probeAgent('probe');
  probe = built.probe;
  running = await runProbe(built.core, built.agent, {
    AGENT_CARD: card,
    A2A_KEYS: keys.json,
    A2A_VALIDATION_MODE: 'strict',
    GUARDIAN_URL: stack.guardian.url,
  });
  rpcUrl = running.a2aUrl!;
  client = await sdkClient(running.url, { source: 'orchestrator', target: 'probe', key: keys.keys.get('orchestrator') });
});

afterAll(async () => {
  await running?.close();
  await stack?.close();
  await scratch?.remove();
});

function send(payload: string | Record<string, unknown>, contextId?: string) {
  return { tenant: '', message: message(payload, contextId === undefined ? {} : { contextId }), configuration: undefined, metadata: undefined };
}

async function sendTask(payload: string | Record<string, unknown>, contextId?: string): Promise<Task> {
  const result = await client.sendMessage(send(payload, contextId));
  if (!('status' in result)) throw new Error(`expected a task, got ${JSON.stringify(result)}`);
  return result;
}

describe('the A2A endpoint, through the official SDK client', () => {
  it('serves the card at the well-known path with the URL it listens on', async () => {
    expect(rpcUrl).toBe(`${running.url}/rpc/`);
    const res = await fetch(`${running.url}/.well-known/agent-card.json`, { headers: { 'A2A-Version': '1.0' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('vary')).toBe('A2A-Version');
    const card = (await res.json()) as { name: string; supportedInterfaces: { url: string; protocolBinding: string }[]; securityRequirements: unknown };
    expect(card.name).toBe('probe');
    const interfaces = [
      { url: rpcUrl, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '1.0' },
      { url: `${rpcUrl}rest`, protocolBinding: 'HTTP+JSON', tenant: '', protocolVersion: '1.0' },
      { url: rpcUrl, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '0.3' },
      { url: rpcUrl, protocolBinding: 'HTTP+JSON', tenant: '', protocolVersion: '0.3' },
    ];
    expect(card.supportedInterfaces).toEqual(interfaces);
    expect(card).not.toHaveProperty('url');
    // Without A2A-Version: the 1.0 card with the 0.3 fields it lacks (as the Python SDK's server serves it: 1.0
    // clients read supportedInterfaces, 0.3 clients the url), dated for caches.
    const plain = await fetch(`${running.url}/.well-known/agent-card.json`);
    const both = (await plain.json()) as Record<string, unknown>;
    expect(both.supportedInterfaces).toEqual(interfaces);
    expect(both).toMatchObject({ protocolVersion: '0.3.0', url: rpcUrl, preferredTransport: 'JSONRPC', securityRequirements: card.securityRequirements });
    expect(Date.parse(plain.headers.get('last-modified') ?? '')).toBeGreaterThan(0);
    const again = await fetch(`${running.url}/.well-known/agent-card.json`, { headers: { 'if-modified-since': plain.headers.get('last-modified')! } });
    expect(again.status).toBe(304);
    // A2A-Version 0.3 (an older SDK): the 0.3 shape, with the 1.0 interfaces embedded.
    const legacy = (await (await fetch(`${running.url}/.well-known/agent-card.json`, { headers: { 'A2A-Version': '0.3' } })).json()) as Record<string, unknown>;
    expect(legacy).toMatchObject({ protocolVersion: '0.3.0', url: rpcUrl, preferredTransport: 'JSONRPC', security: [{ 'fw1-hmac': [] }] });
    expect(legacy.supportedInterfaces).toEqual(interfaces);
  });

  it('puts no key material in the card', async () => {
    for (const version of ['1.0', '0.3']) {
      const text = await (await fetch(`${running.url}/.well-known/agent-card.json`, { headers: { 'A2A-Version': version } })).text();
      for (const secret of secrets) expect(text).not.toContain(secret);
      // The card names the signing scheme (securitySchemes), never a key or its id.
      const { securitySchemes, securityRequirements, security, ...rest } = JSON.parse(text) as Record<string, unknown>;
      expect(JSON.stringify([securitySchemes, securityRequirements, security])).not.toMatch(/orchestrator-1|probe-1/);
      expect(JSON.stringify(rest)).not.toMatch(/secret|orchestrator-1|probe-1|hmac/i);
    }
  });

  it('sendMessage blocks until the task completes with the result artifact', async () => {
    const task = await sendTask('result please');
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(task.artifacts.map((a) => [a.name, partValue(a.parts)])).toEqual([['result', { outcome: 'done', n: 42 }]]);
    expect(task.artifacts[0]?.parts[0]?.content?.$case).toBe('data');
  });

  it('sendMessageStream yields task, working, status text, artifacts, completed in order', async () => {
    const events = await collect(client.sendMessageStream(send('stream now')));
    expect(events.map(describeEvent)).toEqual([
      ['task', 'TASK_STATE_SUBMITTED', undefined],
      ['status', 'TASK_STATE_WORKING', undefined],
      ['status', 'TASK_STATE_WORKING', 'Working on it'],
      ['artifact', 'text', 'half way'],
      ['artifact', 'result', { outcome: 'streamed', n: 3 }],
      ['status', 'TASK_STATE_COMPLETED', undefined],
    ]);
    const ids = new Set(events.map((e) => (e.payload?.$case === 'task' ? e.payload.value.id : (e.payload?.value as { taskId: string }).taskId)));
    expect(ids.size).toBe(1);
  });

  it('ends in input-required with the prompt and action_type plan_confirmation', async () => {
    const task = await sendTask('ask me');
    expect(task.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(partValue(task.status?.message?.parts ?? [])).toBe('Approve the plan?');
    expect(task.status?.message?.metadata).toEqual({ action_type: 'plan_confirmation' });
  });

  it('turns an error response into the failed state with its message', async () => {
    const task = await sendTask('fail now');
    expect(task.status?.state).toBe(TaskState.TASK_STATE_FAILED);
    expect(partValue(task.status?.message?.parts ?? [])).toBe('the thing broke');
    expect(task.status?.message?.metadata).toEqual({ code: 'boom' });
  });

  it('getTask returns the finished task', async () => {
    const sent = await sendTask('result again');
    const got = await client.getTask({ tenant: '', id: sent.id });
    expect(got.id).toBe(sent.id);
    expect(got.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(got.artifacts.map((a) => partValue(a.parts))).toEqual([{ outcome: 'done', n: 42 }]);
  });

  it('cancelTask cancels the slow task and fires its AbortSignal', async () => {
    const before = probe.slowSignals.length;
    const stream = client.sendMessageStream(send('slow work'))[Symbol.asyncIterator]();
    const seen: string[] = [];
    let taskId = '';
    while (!seen.includes('started')) {
      const next = await stream.next();
      if (next.done) throw new Error('stream ended before the task started');
      const [, , value] = describeEvent(next.value);
      if (next.value.payload?.$case === 'task') taskId = next.value.payload.value.id;
      if (typeof value === 'string') seen.push(value);
    }
    expect(probe.slowSignals.length).toBe(before + 1);
    const signal = probe.slowSignals[before]!;
    expect(signal.aborted).toBe(false);
    const canceled = await client.cancelTask({ tenant: '', id: taskId, metadata: undefined });
    expect(canceled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    expect(signal.aborted).toBe(true);
    const rest = (await collect({ [Symbol.asyncIterator]: () => stream })).map(describeEvent);
    expect(rest).toEqual([['status', 'TASK_STATE_CANCELED', undefined]]);
    expect((await client.getTask({ tenant: '', id: taskId })).status?.state).toBe(TaskState.TASK_STATE_CANCELED);
  });

  it('continues an input-required task with the reply and completes it', async () => {
    const asked = await sendTask('ask again');
    const reply = { ...message('yes'), taskId: asked.id, contextId: asked.contextId };
    const result = await client.sendMessage({ tenant: '', message: reply, configuration: undefined, metadata: undefined });
    expect('status' in result && result.id).toBe(asked.id);
    const done = result as Task;
    expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(done.artifacts.map((a) => partValue(a.parts))).toEqual([{ received: 'yes' }]);
    expect(probe.calls.at(-1)).toEqual({ query: 'yes', contextId: asked.contextId });
  });

  it('cancels a task waiting for input instead of hanging', async () => {
    const asked = await sendTask('ask to cancel');
    const canceled = await client.cancelTask({ tenant: '', id: asked.id, metadata: undefined }, { signal: AbortSignal.timeout(3_000) });
    expect(canceled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    expect((await client.getTask({ tenant: '', id: asked.id })).status?.state).toBe(TaskState.TASK_STATE_CANCELED);
  });

  it('refuses to cancel a finished task and leaves it completed', async () => {
    const sent = await sendTask('result to keep');
    await expect(client.cancelTask({ tenant: '', id: sent.id, metadata: undefined })).rejects.toThrow(/cancel/i);
    expect((await client.getTask({ tenant: '', id: sent.id })).status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
  });

  it('getTask of an unknown id is an error, not a hang', async () => {
    await expect(client.getTask({ tenant: '', id: 'no-such-task' })).rejects.toThrow(/not found/i);
  });

  it('delivers the query exactly as sent: JSON text stays a string, a data part an object', async () => {
    const text = '{"action":"book","room":"A"}';
    const data = { action: 'book', rooms: ['A', 'B'], count: 2 };
    const fromText = await sendTask(text);
    const fromData = await sendTask(data);
    const calls = probe.calls.slice(-2).map((c) => c.query);
    expect(calls).toEqual([text, data]);
    expect(typeof calls[0]).toBe('string');
    expect(partValue(fromText.artifacts[0]?.parts ?? [])).toEqual({ received: text });
    expect(partValue(fromData.artifacts[0]?.parts ?? [])).toEqual({ received: data });
  });

  it('makes the A2A contextId the task contextId', async () => {
    const contextId = `ctx-${randomUUID()}`;
    const task = await sendTask('echo with context', contextId);
    expect(task.contextId).toBe(contextId);
    expect(probe.calls.at(-1)).toEqual({ query: 'echo with context', contextId });
  });
});

describe('refusals at the transport edge', () => {
  it('refuses a signed caller the policy does not allow with 403 before the task runs', async () => {
    const before = probe.calls.length;
    const weather = await sdkClient(running.url, { source: 'weather', target: 'probe', key: keys.keys.get('weather') });
    const refusal = await weather.sendMessage(send('result please')).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(PermissionError);
    expect((refusal as PermissionError).reason).toBe('refused by probe: Agent "weather" may not call agent "probe": no policy rule allows this agent pair');
    expect(probe.calls.length).toBe(before);
  });

  it('refuses a plain SDK client without a signature with 401', async () => {
    const before = probe.calls.length;
    const plain = await new ClientFactory({ transports: [new JsonRpcTransportFactory({})] }).createFromUrl(running.url);
    await expect(plain.sendMessage(send('result unsigned'))).rejects.toThrow(/401/);
    const res = await fetch(rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: {} }),
    });
    expect(res.status).toBe(401);
    expect(((await res.json()) as { code: string }).code).toBe('signature_invalid');
    expect(probe.calls.length).toBe(before);
  });

  it('maps the 401 to SignatureError through signingFetch', async () => {
    const unsigned = await sdkClient(running.url, { source: 'orchestrator', target: 'probe', key: undefined });
    await expect(unsigned.sendMessage(send('result unsigned'))).rejects.toSatisfy((error: unknown) => error instanceof SignatureError);
  });

  it('answers a bad content type with 415 and the A2A ContentTypeNotSupportedError (-32005)', async () => {
    const res = await fetch(rpcUrl, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'hello' });
    expect(res.status).toBe(415);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const body = (await res.json()) as { jsonrpc: string; id: null; error: { code: number; message: string; data: { reason: string }[] } };
    expect(body).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32005, data: [{ reason: 'CONTENT_TYPE_NOT_SUPPORTED' }] } });
    expect(body.error.message).toContain('"text/plain"');
  });

  it('answers GET on the JSON-RPC path with 405 and Allow: POST', async () => {
    const res = await fetch(rpcUrl);
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('POST');
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(((await res.json()) as { code: string }).code).toBe('method_not_allowed');
  });
});

describe('an agent in full mode', () => {
  it('serves the front door and the A2A endpoint on one port, with a card built from its configuration', async () => {
    const built = probeAgent('probe');
    const full = await runAgent(built.core, built.agent, {
      port: 0,
      host: '127.0.0.1',
      mode: 'full',
      env: { LOG_LEVEL: 'error', SESSION_BACKEND: 'memory', A2A_KEYS: keys.json, A2A_VALIDATION_MODE: 'strict', GUARDIAN_URL: stack.guardian.url },
    });
    try {
      expect(full.a2aUrl).toBe(`${full.url}/`);
      expect((await fetch(`${full.url}/health`)).status).toBe(200);
      const card = (await (await fetch(`${full.url}/.well-known/agent-card.json`)).json()) as { name: string; description: string };
      expect([card.name, card.description]).toEqual(['probe', 'probe test agent']);
      const fullClient = await sdkClient(full.url, { source: 'orchestrator', target: 'probe', key: keys.keys.get('orchestrator') });
      const task = await fullClient.sendMessage(send('result from full'));
      expect('status' in task && task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
      expect(built.probe.calls).toEqual([{ query: 'result from full', contextId: (task as Task).contextId }]);
    } finally {
      await full.close();
    }
  });
});
