import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { TaskState, type AgentCard, type Task } from '@a2a-js/sdk';
import { ClientFactory, JsonRpcTransportFactory, type Client } from '@a2a-js/sdk/client';
import { LegacyJsonRpcTransportHandler } from '@a2a-js/sdk/compat/v0_3/server';
import { AgentEvent, DefaultRequestHandler, InMemoryTaskStore, ServerCallContext, type AgentExecutor } from '@a2a-js/sdk/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentConnection } from '../../runtime/a2a/agent-connection.js';
import { loadAgentCard } from '../../runtime/a2a/agent-card.js';
import { signingFetch } from '../../runtime/a2a/signing-fetch.js';
import { signRequest } from '../../runtime/a2a/signing/request-signature.js';
import type { RunningAgent } from '../../runtime/agent/run-agent.js';
import { collect, describeEvent, makeKeys, message, partValue, probeAgent, runProbe, scratchDir, startStack, writeCard, type Probe } from './support.js';

let stack: Awaited<ReturnType<typeof startStack>>;
let scratch: Awaited<ReturnType<typeof scratchDir>>;
let running: RunningAgent;
let probe: Probe;
let keys: ReturnType<typeof makeKeys>;

/** Our agent's card as a v0.3-only client sees it: one v0.3 JSON-RPC interface. */
function legacyView(): AgentCard {
  return { ...running.card!, supportedInterfaces: running.card!.supportedInterfaces.filter((i) => i.protocolVersion === '0.3') };
}

/** The official JS SDK client forced onto its v0.3 transport (what agents on older SDKs send), signing as `source`. */
async function legacyClient(source: string, signed = true): Promise<Client> {
  const fetchImpl = signingFetch({ source, target: 'probe', key: signed ? keys.keys.get(source) : undefined });
  return new ClientFactory({ transports: [new JsonRpcTransportFactory({ fetchImpl, legacyCompat: { enabled: true } })] }).createFromAgentCard(legacyView());
}

/** A raw v0.3 JSON-RPC call (no A2A-Version header, v0.3 method and part shapes). */
function legacyRpc(method: string, params: unknown, source: string | null = 'orchestrator'): Promise<Response> {
  const body = JSON.stringify({ jsonrpc: '2.0', id: 7, method, params });
  const url = new URL(running.a2aUrl!);
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (source) Object.assign(headers, signRequest({ method: 'POST', path: url.pathname, body, source, target: 'probe', key: keys.keys.get(source)! }));
  return fetch(url, { method: 'POST', headers, body });
}

const v03Message = (text: string) => ({ kind: 'message', messageId: randomUUID(), role: 'user', parts: [{ kind: 'text', text }] });

beforeAll(async () => {
  stack = await startStack();
  scratch = await scratchDir();
  const card = await writeCard(scratch.dir, 'probe');
  await writeCard(scratch.dir, 'orchestrator');
  keys = makeKeys(['orchestrator', 'probe', 'weather']);
  const built = probeAgent('probe');
  probe = built.probe;
  running = await runProbe(built.core, built.agent, { AGENT_CARD: card, A2A_KEYS: keys.json, A2A_VALIDATION_MODE: 'strict', GUARDIAN_URL: stack.guardian.url });
});

afterAll(async () => {
  await running?.close();
  await stack?.close();
  await scratch?.remove();
});

describe('serving v0.3 peers (the SDK compatibility layer)', () => {
  it('the SDK v0.3 transport sends, streams, gets and cancels', async () => {
    const client = await legacyClient('orchestrator');
    const send = (text: string) => ({ tenant: '', message: message(text), configuration: undefined, metadata: undefined });
    const task = (await client.sendMessage(send('result please'))) as Task;
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(task.artifacts.map((a) => partValue(a.parts))).toEqual([{ outcome: 'done', n: 42 }]);
    const events = (await collect(client.sendMessageStream(send('stream now')))).map(describeEvent);
    expect(events.at(0)?.[0]).toBe('task');
    expect(events.at(-1)).toEqual(['status', 'TASK_STATE_COMPLETED', undefined]);
    expect(events.filter((e) => e[0] === 'artifact').map((e) => e[2])).toEqual(['half way', { outcome: 'streamed', n: 3 }]);
    expect((await client.getTask({ tenant: '', id: task.id })).status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    const asked = (await client.sendMessage(send('ask me'))) as Task;
    expect((await client.cancelTask({ tenant: '', id: asked.id, metadata: undefined })).status?.state).toBe(TaskState.TASK_STATE_CANCELED);
  });

  it('answers a raw v0.3 message/send in the v0.3 shape', async () => {
    const res = await legacyRpc('message/send', { message: v03Message('result raw') });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { result: { kind: string; status: { state: string }; artifacts: { parts: { kind: string; data?: unknown }[] }[] } };
    expect(body.result.kind).toBe('task');
    expect(body.result.status.state).toBe('completed');
    expect(body.result.artifacts[0]?.parts[0]).toMatchObject({ kind: 'data', data: { outcome: 'done', n: 42 } });
    const unknown = (await (await legacyRpc('tasks/get', { id: 'no-such-task' })).json()) as { error: { code: number } };
    expect(unknown.error.code).toBe(-32001);
  });

  it('without A2A-Version, a 1.0 method name still reaches the 1.0 handler (0.3 has no such name)', async () => {
    const res = await legacyRpc('SendMessage', { message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: 'result no header' }] } });
    const body = (await res.json()) as { result?: { task?: { status?: { state?: string } } } };
    expect(body.result?.task?.status?.state).toBe('TASK_STATE_COMPLETED');
  });

  it('refuses an unsigned v0.3 call with 401 and a policy-denied one with 403, before the task runs', async () => {
    const before = probe.calls.length;
    const unsigned = await legacyRpc('message/send', { message: v03Message('result unsigned') }, null);
    expect(unsigned.status).toBe(401);
    expect(unsigned.headers.get('www-authenticate')).toMatch(/^FW1-HMAC-SHA256 /);
    await expect(
      (await legacyClient('orchestrator', false)).sendMessage({ tenant: '', message: message('x'), configuration: undefined, metadata: undefined }),
    ).rejects.toThrow();
    const denied = await legacyRpc('message/send', { message: v03Message('result denied') }, 'weather');
    expect(denied.status).toBe(403);
    expect(probe.calls.length).toBe(before);
  });
});

describe('calling a v0.3 peer (an agent on an older SDK)', () => {
  let peer: Server;
  const methods: string[] = [];

  beforeAll(async () => {
    const executor: AgentExecutor = {
      execute: async (ctx, bus) => {
        const text = ctx.userMessage.parts.map((p) => (p.content?.$case === 'text' ? p.content.value : '')).join('');
        const base = { id: ctx.taskId, contextId: ctx.contextId, history: [], artifacts: [], metadata: undefined };
        bus.publish(AgentEvent.task({ ...base, status: { state: TaskState.TASK_STATE_SUBMITTED, message: undefined, timestamp: undefined } }));
        bus.publish(
          AgentEvent.statusUpdate({
            taskId: ctx.taskId,
            contextId: ctx.contextId,
            status: {
              state: TaskState.TASK_STATE_COMPLETED,
              timestamp: undefined,
              message: { ...message(`old peer got: ${text}`), role: 2, taskId: ctx.taskId, contextId: ctx.contextId },
            },
            metadata: undefined,
          }),
        );
        bus.finished();
      },
      cancelTask: async () => {},
    };
    // A peer that speaks v0.3 only: every request goes to the SDK's v0.3 JSON-RPC handler (what an older SDK serves).
    const state: { handler?: LegacyJsonRpcTransportHandler } = {};
    peer = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        void (async () => {
          const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { method?: string };
          methods.push(`${req.headers['a2a-version'] ?? '-'} ${body.method}`);
          const outcome = await state.handler!.handle(body, new ServerCallContext({ requestedVersion: '0.3' }));
          if (Symbol.asyncIterator in outcome) {
            res.writeHead(200, { 'content-type': 'text/event-stream' });
            for await (const event of outcome) res.write(`data: ${JSON.stringify(event)}\n\n`);
            res.end();
          } else {
            res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(outcome));
          }
        })();
      });
    });
    await new Promise<void>((resolve) => peer.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(peer.address() as AddressInfo).port}/`;
    const card: AgentCard = {
      ...running.card!,
      name: 'oldpeer',
      supportedInterfaces: [{ url, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '0.3' }],
    };
    state.handler = new LegacyJsonRpcTransportHandler(new DefaultRequestHandler(card, new InMemoryTaskStore(), executor));
  });

  afterAll(async () => {
    await new Promise<void>((resolve) => peer?.close(() => resolve()));
  });

  it('detects v0.3 from the card file (protocolVersion 0.3.0) and talks v0.3', async () => {
    const port = (peer.address() as AddressInfo).port;
    const peerFile = await writeCard(scratch.dir, 'oldpeer', { url: `http://127.0.0.1:${port}/`, protocolVersion: '0.3.0' });
    const [peerCard] = await loadAgentCard(peerFile);
    const [source] = await loadAgentCard(await writeCard(scratch.dir, 'caller'));
    const chunks = await collect(agentConnection(source, peerCard, 'hello old friend', { env: { A2A_VALIDATION_MODE: 'disabled' } }));
    expect(chunks.at(-1)).toMatchObject({ state: 'completed', text: 'old peer got: hello old friend' });
    expect(methods).toEqual(['0.3 message/stream']);
  });

  it('with stream: false sends v0.3 message/send and ends on the final task, as the stream did', async () => {
    const port = (peer.address() as AddressInfo).port;
    const peerFile = await writeCard(scratch.dir, 'oldpeer', { url: `http://127.0.0.1:${port}/`, protocolVersion: '0.3.0' });
    const [peerCard] = await loadAgentCard(peerFile);
    const [source] = await loadAgentCard(await writeCard(scratch.dir, 'caller'));
    const before = methods.length;
    const chunks = await collect(agentConnection(source, peerCard, 'hello again', { env: { A2A_VALIDATION_MODE: 'disabled' }, stream: false }));
    expect(chunks.at(-1)).toMatchObject({ kind: 'task', state: 'completed', text: 'old peer got: hello again' });
    expect(methods.slice(before)).toEqual(['0.3 message/send']);
  });
});
