import { randomUUID } from 'node:crypto';
import type { AgentCard } from '@a2a-js/sdk';
import { GrpcTransportFactory } from '@a2a-js/sdk/client/grpc';
import { LegacyA2AService } from '@a2a-js/sdk/compat/v0_3/server/grpc';
import * as grpc from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cardFromConfig } from '../../runtime/a2a/agent-card.js';
import { agentConnection } from '../../runtime/a2a/agent-connection.js';
import { PermissionError } from '../../runtime/a2a/errors/permission-error.js';
import { signingInterceptor } from '../../runtime/a2a/signing-grpc.js';
import type { RunningAgent } from '../../runtime/agent/run-agent.js';
import { freePort } from '../support/net.js';
import { collect, makeKeys, message, probeAgent, runProbe, scratchDir, startStack, writeCard, type Probe } from './support.js';

let stack: Awaited<ReturnType<typeof startStack>>;
let scratch: Awaited<ReturnType<typeof scratchDir>>;
let running: RunningAgent;
let probe: Probe;
let served: AgentCard;
let keys: ReturnType<typeof makeKeys>;
let env: Record<string, string>;
const caller = (name: string) => cardFromConfig({ name, description: `${name} agent`, version: '1.0.0', url: 'http://127.0.0.1:1/' });
/** The served card with only the interfaces of `bindings`, in that order: a peer that speaks only those. */
const only = (...bindings: string[]): AgentCard => ({
  ...served,
  supportedInterfaces: bindings.flatMap((binding) => served.supportedInterfaces.filter((i) => i.protocolBinding === binding && i.protocolVersion === '1.0')),
});
const grpcUrl = () => served.supportedInterfaces.find((i) => i.protocolBinding === 'GRPC')!.url;
/** The served card with only its 0.3 gRPC interface: a peer on an A2A 0.3 SDK that speaks gRPC. */
const legacyGrpcOnly = (): AgentCard => ({
  ...served,
  supportedInterfaces: served.supportedInterfaces.filter((i) => i.protocolBinding === 'GRPC' && i.protocolVersion === '0.3'),
});
/** A raw 0.3 `a2a.v1.A2AService/SendMessage` call (the 0.3 proto, as an a2a-sdk 0.3 client sends it), signed by `source` or unsigned. */
async function legacyGrpcSend(
  source: string | undefined,
  text: string,
): Promise<{ payload?: { $case: string; value: { id?: string; status?: { state: number } } } }> {
  const key = source ? keys.ring.signingKeyFor(source) : undefined;
  const method = LegacyA2AService.sendMessage;
  const client = new grpc.Client(grpcUrl(), grpc.credentials.createInsecure(), {
    interceptors: [signingInterceptor({ source: source ?? 'nobody', target: 'probe', key })],
  });
  const request = {
    request: {
      messageId: randomUUID(),
      contextId: '',
      taskId: '',
      role: 1,
      content: [{ part: { $case: 'text', value: text } }],
      metadata: undefined,
      extensions: [],
    },
    configuration: undefined,
    metadata: undefined,
  };
  try {
    return await new Promise((resolve, reject) =>
      client.makeUnaryRequest(
        method.path,
        method.requestSerialize as (r: object) => Buffer,
        method.responseDeserialize as (b: Buffer) => object,
        request,
        (error, answer) => (error ? reject(error) : resolve(answer as never)),
      ),
    );
  } finally {
    client.close();
  }
}

beforeAll(async () => {
  stack = await startStack();
  scratch = await scratchDir();
  const cardPath = await writeCard(scratch.dir, 'probe');
  keys = makeKeys(['orchestrator', 'planner', 'probe']);
  const built = probeAgent('probe');
  probe = built.probe;
  running = await runProbe(built.core, built.agent, {
    AGENT_CARD: cardPath,
    A2A_KEYS: keys.json,
    A2A_VALIDATION_MODE: 'strict',
    GUARDIAN_URL: stack.guardian.url,
    A2A_GRPC_PORT: '0',
  });
  served = (await (await fetch(`${running.url}/.well-known/agent-card.json`, { headers: { 'A2A-Version': '1.0' } })).json()) as AgentCard;
  env = { A2A_KEYS: keys.json, A2A_VALIDATION_MODE: 'strict', GUARDIAN_URL: stack.guardian.url };
});

afterAll(async () => {
  await running?.close();
  await stack?.close();
  await scratch?.remove();
});

/** One SendMessage over gRPC with the SDK's transport, signed by `source` (or unsigned). */
async function grpcSend(source: string | undefined, text: string): Promise<unknown> {
  const key = source ? keys.ring.signingKeyFor(source) : undefined;
  const interceptors = [signingInterceptor({ source: source ?? 'nobody', target: 'probe', key })];
  const transport = await new GrpcTransportFactory({ grpcCallOptions: { interceptors } }).create(grpcUrl(), only('GRPC') as never);
  return transport.sendMessage({ tenant: '', message: message(text), configuration: undefined, metadata: undefined });
}

describe('the A2A gRPC binding (A2A_GRPC_PORT)', () => {
  it('is declared in the card as GRPC at host:port, beside the HTTP bindings', () => {
    const grpcInterface = served.supportedInterfaces.find((i) => i.protocolBinding === 'GRPC');
    expect(grpcInterface).toMatchObject({ protocolVersion: '1.0' });
    expect(grpcInterface!.url).toMatch(/^127\.0\.0\.1:\d+$/);
    expect(grpcInterface!.url).not.toBe(new URL(running.a2aUrl!).host);
  });

  it('serves the 0.3 proto too (a2a.v1.A2AService) on the same port, declared as a GRPC 0.3 interface', async () => {
    expect(legacyGrpcOnly().supportedInterfaces).toEqual([{ url: grpcUrl(), protocolBinding: 'GRPC', tenant: '', protocolVersion: '0.3' }]);
    // The 0.3 card shape (what an a2a-sdk 0.3 client reads) lists it among its additional interfaces.
    const legacyCard = (await (await fetch(`${running.url}/.well-known/agent-card.json`, { headers: { 'A2A-Version': '0.3' } })).json()) as {
      additionalInterfaces?: { url: string; transport: string }[];
    };
    expect(legacyCard.additionalInterfaces).toContainEqual({ url: grpcUrl(), transport: 'GRPC' });
    const before = probe.calls.length;
    const answer = await legacyGrpcSend('orchestrator', 'result over grpc 0.3');
    expect(probe.calls.slice(before).map((call) => call.query)).toEqual(['result over grpc 0.3']);
    // The 0.3 proto's answer: a Task (TASK_STATE_COMPLETED is 3 in both protos).
    expect(answer.payload?.$case).toBe('task');
    expect(answer.payload?.value.status?.state).toBe(3);
    // agentConnection to a peer that declares only the 0.3 gRPC interface goes through the SDK's v0.3 gRPC transport.
    const chunks = await collect(agentConnection(caller('orchestrator'), legacyGrpcOnly(), 'result please', { env }));
    expect(chunks.find((chunk) => chunk.kind === 'artifact')?.data).toEqual({ outcome: 'done', n: 42 });
  });

  it('the 0.3 service has the same guard: unsigned is UNAUTHENTICATED, a denied caller PERMISSION_DENIED, neither runs', async () => {
    const before = probe.calls.length;
    const unsigned = (await legacyGrpcSend(undefined, 'result unsigned 0.3').catch((e: unknown) => e)) as { code?: number };
    expect(unsigned.code).toBe(grpc.status.UNAUTHENTICATED);
    const denied = (await legacyGrpcSend('planner', 'result denied').catch((e: unknown) => e)) as { code?: number };
    expect(denied.code).toBe(grpc.status.PERMISSION_DENIED);
    expect(probe.calls.length).toBe(before);
  });

  it('a gRPC-only peer: agentConnection streams the answer over gRPC, signed and allowed by the policy', async () => {
    const before = probe.calls.length;
    const chunks = await collect(agentConnection(caller('orchestrator'), only('GRPC'), 'stream over grpc', { env }));
    expect(probe.calls.slice(before).map((call) => call.query)).toEqual(['stream over grpc']);
    expect(chunks.map((chunk) => chunk.kind)).toContain('artifact');
    expect(chunks.find((chunk) => chunk.kind === 'artifact' && chunk.artifactName === 'result')?.data).toEqual({ outcome: 'streamed', n: 3 });
  });

  it('a REST-only peer and a JSON-RPC-only peer: the same answer over each', async () => {
    for (const binding of ['HTTP+JSON', 'JSONRPC']) {
      const chunks = await collect(agentConnection(caller('orchestrator'), only(binding), 'result please', { env }));
      expect(chunks.find((chunk) => chunk.kind === 'artifact')?.data, binding).toEqual({ outcome: 'done', n: 42 });
    }
  });

  it('A2A_PREFERRED_TRANSPORTS picks gRPC among the declared bindings; a dead first binding falls through to the next', async () => {
    const preferred = await collect(agentConnection(caller('orchestrator'), served, 'result preferred', { env: { ...env, A2A_PREFERRED_TRANSPORTS: 'GRPC' } }));
    expect(preferred.find((chunk) => chunk.kind === 'artifact')?.data).toEqual({ outcome: 'done', n: 42 });
    // A card whose gRPC address has nothing listening, then JSON-RPC: the call goes over JSON-RPC, once.
    const dead = `127.0.0.1:${await freePort()}`;
    const target = { ...served, supportedInterfaces: [{ ...only('GRPC').supportedInterfaces[0]!, url: dead }, ...only('JSONRPC').supportedInterfaces] };
    const before = probe.calls.length;
    const chunks = await collect(agentConnection(caller('orchestrator'), target, 'result fallback', { env }));
    expect(chunks.find((chunk) => chunk.kind === 'artifact')?.data).toEqual({ outcome: 'done', n: 42 });
    expect(probe.calls.slice(before).map((call) => call.query)).toEqual(['result fallback']);
  });

  it('stream: false is one blocking SendMessage over each binding: the same chunks, signed, a server denial still PermissionError', async () => {
    // The caller's own check allows everything here, so that the server's guard is the one that refuses.
    const allowAll = { mode: 'strict', validateA2AAccess: async () => [true, ''] } as never;
    for (const binding of ['GRPC', 'HTTP+JSON', 'JSONRPC']) {
      const before = probe.calls.length;
      const chunks = await collect(agentConnection(caller('orchestrator'), only(binding), 'stream blocking', { env, stream: false }));
      expect(
        chunks.map((chunk) => [chunk.kind, chunk.artifactName ?? chunk.state]),
        binding,
      ).toEqual([
        ['artifact', 'text'],
        ['artifact', 'result'],
        ['task', 'completed'],
      ]);
      expect(chunks[1]?.data, binding).toEqual({ outcome: 'streamed', n: 3 });
      expect(
        probe.calls.slice(before).map((call) => call.query),
        binding,
      ).toEqual(['stream blocking']);
      const error = await collect(agentConnection(caller('planner'), only(binding), 'result denied', { env, stream: false, validator: allowAll })).catch(
        (e: unknown) => e,
      );
      expect(error, binding).toBeInstanceOf(PermissionError);
      expect(probe.calls.length, binding).toBe(before + 1);
    }
    // A dead first binding falls through to the next as a streamed call does (nothing was sent over it).
    const target = {
      ...served,
      supportedInterfaces: [{ ...only('GRPC').supportedInterfaces[0]!, url: `127.0.0.1:${await freePort()}` }, ...only('JSONRPC').supportedInterfaces],
    };
    const before = probe.calls.length;
    const chunks = await collect(agentConnection(caller('orchestrator'), target, 'result blocking fallback', { env, stream: false }));
    expect(chunks.find((chunk) => chunk.kind === 'artifact')?.data).toEqual({ outcome: 'done', n: 42 });
    expect(probe.calls.slice(before).map((call) => call.query)).toEqual(['result blocking fallback']);
  });

  it('refuses an unsigned call (UNAUTHENTICATED) and a signed call the policy denies (PERMISSION_DENIED); neither runs', async () => {
    const before = probe.calls.length;
    const unsigned = (await grpcSend(undefined, 'result unsigned').catch((e: unknown) => e)) as { status?: number; message: string };
    expect(unsigned.status).toBe(grpc.status.UNAUTHENTICATED);
    expect(unsigned.message).toMatch(/sign/i);
    const denied = (await grpcSend('planner', 'result denied').catch((e: unknown) => e)) as { status?: number; message: string };
    expect(denied.status).toBe(grpc.status.PERMISSION_DENIED);
    expect(probe.calls.length).toBe(before);
    // Through agentConnection the server's denial is our PermissionError (the caller's own check is skipped here by
    // a validator that allows everything, so that the server is the one that refuses).
    const error = await collect(
      agentConnection(caller('planner'), only('GRPC'), 'result denied', {
        env,
        validator: { mode: 'strict', validateA2AAccess: async () => [true, ''] } as never,
      }),
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PermissionError);
    expect(probe.calls.length).toBe(before);
  });

  it("a protocol version it does not serve is UNIMPLEMENTED (the spec's gRPC mapping of VersionNotSupportedError)", async () => {
    const key = keys.ring.signingKeyFor('orchestrator');
    const transport = await new GrpcTransportFactory({
      grpcCallOptions: { interceptors: [signingInterceptor({ source: 'orchestrator', target: 'probe', key })] },
    }).create(grpcUrl(), only('GRPC') as never);
    const error = (await transport
      .sendMessage(
        { tenant: '', message: message('result v99'), configuration: undefined, metadata: undefined },
        { serviceParameters: { 'A2A-Version': '99.0' } },
      )
      .catch((e: unknown) => e)) as { status?: number };
    expect(error.status).toBe(grpc.status.UNIMPLEMENTED);
  });

  it('a signature covers the message bytes: metadata signed for one message does not pass with another', async () => {
    const key = keys.ring.signingKeyFor('orchestrator');
    // An interceptor that signs the first message it sees, then sends a different one under that signature.
    const swap: grpc.Interceptor = (options, nextCall) =>
      new grpc.InterceptingCall(nextCall(options), {
        sendMessage(sent: { message: { parts: unknown[] } }, next) {
          next({ ...sent, message: { ...sent.message, messageId: randomUUID(), parts: message('result swapped').parts } });
        },
      });
    const transport = await new GrpcTransportFactory({
      grpcCallOptions: { interceptors: [signingInterceptor({ source: 'orchestrator', target: 'probe', key }), swap] },
    }).create(grpcUrl(), only('GRPC') as never);
    const before = probe.calls.length;
    const error = (await transport
      .sendMessage({ tenant: '', message: message('result signed'), configuration: undefined, metadata: undefined })
      .catch((e: unknown) => e)) as { status?: number };
    expect(error.status).toBe(grpc.status.UNAUTHENTICATED);
    expect(probe.calls.length).toBe(before);
  });
});
