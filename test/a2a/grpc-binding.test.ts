import { randomUUID } from 'node:crypto';
import type { AgentCard } from '@a2a-js/sdk';
import { GrpcTransportFactory } from '@a2a-js/sdk/client/grpc';
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
