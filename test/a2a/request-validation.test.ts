import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningAgent } from '../../runtime/agent/run-agent.js';
import { probeAgent, runProbe } from './support.js';

let running: RunningAgent;

/** One raw JSON-RPC POST (a body we choose, valid or not) to the agent's A2A URL; the answer's status and JSON. */
async function rpc(body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; json: Record<string, any> }> {
  const res = await fetch(running.a2aUrl!, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  return { status: res.status, json: (await res.json()) as Record<string, any> };
}

const sendParams = (text: string) => ({ message: { messageId: `m-${text}`, role: 'ROLE_USER', parts: [{ text }] } });

beforeAll(async () => {
  const built = probeAgent('probe');
  // Request validation is what is tested: unsigned calls are accepted, no policy is asked.
  running = await runProbe(built.core, built.agent, { A2A_VALIDATION_MODE: 'disabled' });
});

afterAll(async () => {
  await running?.close();
});

describe('JSON-RPC request objects (JSON-RPC 2.0 §4, over real HTTP)', () => {
  it.each([
    ['"jsonrpc" other than "2.0"', { jsonrpc: '1.0', id: 'r1', method: 'SendMessage', params: sendParams('a') }, 'r1'],
    ['"jsonrpc" missing', { id: 2, method: 'SendMessage', params: sendParams('b') }, 2],
    ['an object as id', { jsonrpc: '2.0', id: { bad: 'type' }, method: 'SendMessage', params: {} }, null],
    ['no method', { jsonrpc: '2.0', id: 'r4', params: {} }, 'r4'],
    ['params that are a string', { jsonrpc: '2.0', id: 'r5', method: 'GetTask', params: 'x' }, 'r5'],
    ['a v0.3 method with jsonrpc "2"', { jsonrpc: '2', id: 'r6', method: 'tasks/get', params: { id: 'x' } }, 'r6'],
  ])('%s is -32600 Invalid Request (HTTP 200), with the id echoed when it is valid', async (_name, body, id) => {
    const { status, json } = await rpc(body);
    expect(status).toBe(200);
    expect(json.jsonrpc).toBe('2.0');
    expect(json.id).toBe(id);
    expect(json.error.code).toBe(-32600);
    expect(json.error.message).toMatch(/^Invalid Request: /);
    expect(json.result).toBeUndefined();
  });

  it('a valid request is still answered, and an unknown method is still -32601', async () => {
    const sent = await rpc({ jsonrpc: '2.0', id: 9, method: 'SendMessage', params: sendParams('result now') });
    expect(sent.json.error).toBeUndefined();
    expect(sent.json.result.task.status.state).toBe('TASK_STATE_COMPLETED');
    expect((await rpc({ jsonrpc: '2.0', id: 10, method: 'SendMessageXXX', params: {} })).json.error.code).toBe(-32601);
  });
});

describe('task query parameters the spec bounds (every binding)', () => {
  it('ListTasks refuses a negative historyLength and a statusTimestampAfter that is not RFC 3339 with -32602', async () => {
    for (const params of [{ historyLength: -1 }, { historyLength: 1.5 }, { statusTimestampAfter: '-1' }, { statusTimestampAfter: 'yesterday' }]) {
      const { json } = await rpc({ jsonrpc: '2.0', id: 'l', method: 'ListTasks', params }, { 'A2A-Version': '1.0' });
      expect(json.error?.code, JSON.stringify(params)).toBe(-32602);
    }
  });

  it('ListTasks takes historyLength 0 and an RFC 3339 timestamp with an offset', async () => {
    const sent = await rpc({ jsonrpc: '2.0', id: 's', method: 'SendMessage', params: sendParams('result listed') });
    const id = sent.json.result.task.id as string;
    const { json } = await rpc(
      { jsonrpc: '2.0', id: 'l', method: 'ListTasks', params: { historyLength: 0, statusTimestampAfter: '2000-01-01T00:00:00.000+00:00' } },
      { 'A2A-Version': '1.0' },
    );
    expect(json.error).toBeUndefined();
    const listed = (json.result.tasks as Array<{ id: string; history?: unknown[] }>).find((task) => task.id === id);
    expect(listed).toBeDefined();
    expect(listed!.history ?? []).toEqual([]);
  });

  it('GetTask refuses a negative historyLength on JSON-RPC 1.0, v0.3 and REST', async () => {
    const sent = await rpc({ jsonrpc: '2.0', id: 's', method: 'SendMessage', params: sendParams('result got') });
    const id = sent.json.result.task.id as string;
    expect((await rpc({ jsonrpc: '2.0', id: 'g', method: 'GetTask', params: { id, historyLength: -2 } })).json.error?.code).toBe(-32602);
    expect((await rpc({ jsonrpc: '2.0', id: 'g', method: 'tasks/get', params: { id, historyLength: -2 } })).json.error?.code).toBe(-32602);
    expect((await rpc({ jsonrpc: '2.0', id: 'g', method: 'GetTask', params: { id, historyLength: 1 } })).json.result.id).toBe(id);
    const rest = await fetch(`${running.a2aUrl!.replace(/\/$/, '')}/rest/tasks/${id}?historyLength=-2`);
    expect(rest.status).toBe(400);
    const listed = await fetch(`${running.a2aUrl!.replace(/\/$/, '')}/rest/tasks?statusTimestampAfter=-1`);
    expect(listed.status).toBe(400);
  });
});

describe('a message needs at least one part (every binding)', () => {
  it('an empty parts array is -32602 on JSON-RPC 1.0 and v0.3 (send and stream), 400 on REST; no task is made', async () => {
    const empty = { messageId: 'm-empty', role: 'ROLE_USER', parts: [] };
    const sent = await rpc({ jsonrpc: '2.0', id: 'SendMessage', method: 'SendMessage', params: { message: empty } }, { 'A2A-Version': '1.0' });
    expect(sent.json.error?.code).toBe(-32602);
    expect(sent.json.error.message).toMatch(/at least one part/);
    const streamed = await rpc({ jsonrpc: '2.0', id: 'st', method: 'SendStreamingMessage', params: { message: empty } }, { 'A2A-Version': '1.0' });
    expect(streamed.json.error?.code).toBe(-32602);
    const legacy = { kind: 'message', messageId: 'm-empty-03', role: 'user', parts: [] };
    expect((await rpc({ jsonrpc: '2.0', id: 'ms', method: 'message/send', params: { message: legacy } })).json.error?.code).toBe(-32602);
    expect((await rpcStream({ jsonrpc: '2.0', id: 'mst', method: 'message/stream', params: { message: legacy } })).events[0]?.error?.code).toBe(-32602);
    const rest = await fetch(`${running.a2aUrl!.replace(/\/$/, '')}/rest/message:send`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'A2A-Version': '1.0' },
      body: JSON.stringify({ message: empty }),
    });
    expect(rest.status).toBe(400);
    const { json } = await rpc({ jsonrpc: '2.0', id: 'l', method: 'ListTasks', params: {} }, { 'A2A-Version': '1.0' });
    const made = (json.result.tasks as Array<{ history?: Array<{ messageId: string }> }>).filter((task) =>
      (task.history ?? []).some((m) => m.messageId.startsWith('m-empty')),
    );
    expect(made).toEqual([]);
  });
});

describe('a message needs its REQUIRED messageId and role (every binding; TCK test_missing_required_message_fields)', () => {
  it('no role or an unspecified one is -32602 on JSON-RPC 1.0 and v0.3, 400 on REST; no message id the same; nothing runs', async () => {
    const before = (await rpc({ jsonrpc: '2.0', id: 'l0', method: 'ListTasks', params: {} }, { 'A2A-Version': '1.0' })).json.result.tasks.length as number;
    const cases: [string, Record<string, unknown>][] = [
      ['no role', { messageId: 'm-no-role', parts: [{ text: 'no role' }] }],
      ['ROLE_UNSPECIFIED', { messageId: 'm-unspecified', role: 'ROLE_UNSPECIFIED', parts: [{ text: 'unspecified' }] }],
      ['no messageId', { role: 'ROLE_USER', parts: [{ text: 'no id' }] }],
    ];
    for (const [name, message] of cases) {
      const { json } = await rpc({ jsonrpc: '2.0', id: name, method: 'SendMessage', params: { message } }, { 'A2A-Version': '1.0' });
      expect(json.error?.code, name).toBe(-32602);
      expect(json.error.message, name).toMatch(/message\.(role|messageId) is required/);
      const rest = await fetch(`${running.a2aUrl!.replace(/\/$/, '')}/rest/message:send`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'A2A-Version': '1.0' },
        body: JSON.stringify({ message }),
      });
      expect(rest.status, name).toBe(400);
    }
    const legacy = await rpc({
      jsonrpc: '2.0',
      id: 'v03',
      method: 'message/send',
      params: { message: { kind: 'message', messageId: 'm-03', parts: [{ kind: 'text', text: 'x' }] } },
    });
    expect(legacy.json.error?.code).toBe(-32602);
    const after = (await rpc({ jsonrpc: '2.0', id: 'l1', method: 'ListTasks', params: {} }, { 'A2A-Version': '1.0' })).json.result.tasks.length as number;
    expect(after).toBe(before);
    const ok = await rpc({ jsonrpc: '2.0', id: 'ok', method: 'SendMessage', params: sendParams('result role kept') });
    expect(ok.json.error).toBeUndefined();
  });
});

/** A streaming JSON-RPC call: the answer's status, content type and the JSON of each `data:` line. */
async function rpcStream(body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; type: string; events: Record<string, any>[] }> {
  const res = await fetch(running.a2aUrl!, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream', ...headers },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  const events = text
    .split('\n')
    .filter((line) => line.startsWith('data:'))
    .map((line) => JSON.parse(line.slice(5)) as Record<string, any>);
  return { status: res.status, type: res.headers.get('content-type') ?? '', events };
}

describe('a streaming method that fails before its first event', () => {
  it('with no A2A-Version, or 0.3: HTTP 200 text/event-stream whose one event is the error (0.3 §3.3.1; the TCK main branch, the Python 0.3 SDK)', async () => {
    const current = await rpcStream({ jsonrpc: '2.0', id: 's', method: 'SubscribeToTask', params: { id: 'no-such-task' } });
    const legacy = await rpcStream({ jsonrpc: '2.0', id: 'r', method: 'tasks/resubscribe', params: { id: 'no-such-task' } });
    for (const answer of [current, legacy]) {
      expect(answer.status).toBe(200);
      expect(answer.type).toMatch(/^text\/event-stream/);
      expect(answer.events).toHaveLength(1);
      expect(answer.events[0]!.error.code).toBe(-32001);
      expect(answer.events[0]!.error.message).toMatch(/not found/i);
    }
    expect(current.events[0]!.id).toBe('s');
    expect(legacy.events[0]!.id).toBe('r');
    const refused = await rpcStream({
      jsonrpc: '2.0',
      id: 'st',
      method: 'SendStreamingMessage',
      params: { message: { messageId: 'm-st', parts: [{ text: 'x' }] } },
    });
    expect(refused.type).toMatch(/^text\/event-stream/);
    expect(refused.events.map((event) => event.error?.code)).toEqual([-32602]);
  });

  it('with A2A-Version 1.0: a plain JSON-RPC error (what the 1.0 Python SDK server sends and the 1.0 TCK reads)', async () => {
    const { status, json } = await rpc({ jsonrpc: '2.0', id: 's1', method: 'SubscribeToTask', params: { id: 'no-such-task' } }, { 'A2A-Version': '1.0' });
    expect(status).toBe(200);
    expect(json).toMatchObject({ jsonrpc: '2.0', id: 's1', error: { code: -32001 } });
  });
});
