/**
 * W3C trace context over the A2A gRPC binding: our client sends
 * `traceparent` in the call's metadata and our server's span continues it,
 * on the 1.0 service and on the 0.3 one on the same port; the official
 * Python client (a2a-sdk, FRAMEWORK_A2A_PYTHON) sending a `traceparent` gets
 * a server span in its trace. Spans are read from the real SDK with an
 * in-memory exporter (client and server run in this process; the Python
 * client in its own).
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { AgentCard } from '@a2a-js/sdk';
import { GrpcTransportFactory } from '@a2a-js/sdk/client/grpc';
import { SpanKind } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { cardFromConfig } from '../../runtime/a2a/agent-card.js';
import { agentConnection } from '../../runtime/a2a/agent-connection.js';
import { traceContextInterceptor } from '../../runtime/a2a/grpc-trace-context.js';
import type { RunningAgent } from '../../runtime/agent/run-agent.js';
import { inSpan, setTracingEnabled } from '../../runtime/core/telemetry/tracing.js';
import { venvPython } from '../support/python-venv.js';
import { collect, makeKeys, message, probeAgent, runProbe, scratchDir, startStack, writeCard } from './support.js';

const python = venvPython({
  env: 'FRAMEWORK_A2A_PYTHON',
  setup: "python3 -m venv .venv-a2a && .venv-a2a/bin/pip install 'a2a-sdk[http-server,grpc]==1.3.0' uvicorn==0.54.0",
});
const PYTHON_CLIENT = fileURLToPath(new URL('./fixtures/a2a_python_grpc_trace.py', import.meta.url));

const exporter = new InMemorySpanExporter();
const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
let stack: Awaited<ReturnType<typeof startStack>>;
let scratch: Awaited<ReturnType<typeof scratchDir>>;
let running: RunningAgent;
let served: AgentCard;
let keys: ReturnType<typeof makeKeys>;
let env: Record<string, string>;
const caller = cardFromConfig({ name: 'orchestrator', description: 'orchestrator agent', version: '1.0.0', url: 'http://127.0.0.1:1/' });
/** The served card with only its gRPC interface of `version`: a peer that speaks gRPC only, on that protocol version. */
const grpcOnly = (version: '1.0' | '0.3'): AgentCard => ({
  ...served,
  supportedInterfaces: served.supportedInterfaces.filter((i) => i.protocolBinding === 'GRPC' && i.protocolVersion === version),
});

beforeAll(async () => {
  provider.register();
  setTracingEnabled(true);
  stack = await startStack();
  scratch = await scratchDir();
  const cardPath = await writeCard(scratch.dir, 'probe');
  keys = makeKeys(['orchestrator', 'probe']);
  const built = probeAgent('probe');
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
  setTracingEnabled(false);
  await running?.close();
  await stack?.close();
  await scratch?.remove();
  await provider.shutdown();
});

beforeEach(() => exporter.reset());

const rpcSpans = (kind: SpanKind, service: string) =>
  exporter.getFinishedSpans().filter((span) => span.kind === kind && span.name.startsWith(`${service}/`) && span.attributes['rpc.system.name'] === 'grpc');
const parentOf = (span: ReadableSpan) => span.parentSpanContext?.spanId;

describe('trace context over the A2A gRPC binding', () => {
  for (const [version, service] of [
    ['1.0', 'lf.a2a.v1.A2AService'],
    ['0.3', 'a2a.v1.A2AService'],
  ] as const) {
    it(`${version} (${service}): the server span is a child of our client's span, in the caller's trace`, async () => {
      let callerSpan = { traceId: '', spanId: '' };
      await inSpan('caller', {}, async (span) => {
        callerSpan = span.spanContext();
        const chunks = await collect(agentConnection(caller, grpcOnly(version), 'result please', { env }));
        expect(chunks.find((chunk) => chunk.kind === 'artifact')?.data).toEqual({ outcome: 'done', n: 42 });
      });
      const clients = rpcSpans(SpanKind.CLIENT, service);
      const servers = rpcSpans(SpanKind.SERVER, service);
      expect(clients.length).toBeGreaterThan(0);
      expect(servers.length).toBe(clients.length);
      for (const client of clients) {
        expect(client.spanContext().traceId).toBe(callerSpan.traceId);
        expect(parentOf(client)).toBe(callerSpan.spanId);
        expect(client.attributes['rpc.response.status_code']).toBe('OK');
      }
      for (const server of servers) {
        expect(server.spanContext().traceId).toBe(callerSpan.traceId);
        expect(clients.map((client) => client.spanContext().spanId)).toContain(parentOf(server));
        expect(server.parentSpanContext?.isRemote).toBe(true);
        expect(server.attributes).toMatchObject({ 'rpc.method': server.name, 'rpc.response.status_code': 'OK' });
      }
    });
  }

  it('a call refused by the guard still ends its server span, with the refusal status', async () => {
    // An unsigned call (traced, not signed): the guard refuses it before the SDK.
    const transport = await new GrpcTransportFactory({ grpcCallOptions: { interceptors: [traceContextInterceptor()] } }).create(
      grpcOnly('1.0').supportedInterfaces[0]!.url,
      grpcOnly('1.0') as never,
    );
    await inSpan('caller', {}, async () => {
      await expect(transport.sendMessage({ tenant: '', message: message('result please'), configuration: undefined, metadata: undefined })).rejects.toThrow();
    });
    const servers = rpcSpans(SpanKind.SERVER, 'lf.a2a.v1.A2AService');
    expect(servers.length).toBeGreaterThan(0);
    expect(servers.map((span) => span.attributes['rpc.response.status_code'])).toEqual(['UNAUTHENTICATED']);
    const [client] = rpcSpans(SpanKind.CLIENT, 'lf.a2a.v1.A2AService');
    expect(parentOf(servers[0]!)).toBe(client!.spanContext().spanId);
    expect(client!.attributes['rpc.response.status_code']).toBe('UNAUTHENTICATED');
  });

  it.skipIf(!python)("the official Python client's traceparent (a2a-sdk over gRPC, signed): our server span continues it", async () => {
    const traceId = '5bf92f3577b34da6a3ce929d0e0e4737';
    const parent = '10f067aa0ba902b7';
    const secret = (JSON.parse(keys.json) as { keys: { agent: string; secret: string }[] }).keys.find((k) => k.agent === 'orchestrator')!.secret;
    const { stdout } = await promisify(execFile)(
      python!,
      [PYTHON_CLIENT, running.url, 'orchestrator', 'orchestrator-1', secret, 'probe', `00-${traceId}-${parent}-01`],
      { timeout: 60_000, env: { PATH: process.env.PATH ?? '' } },
    );
    expect(JSON.parse(stdout)).toEqual({ state: 'TASK_STATE_COMPLETED' });
    const servers = rpcSpans(SpanKind.SERVER, 'lf.a2a.v1.A2AService').filter((span) => span.name.endsWith('/SendMessage'));
    expect(servers).toHaveLength(1);
    expect(servers[0]!.spanContext().traceId).toBe(traceId);
    expect(parentOf(servers[0]!)).toBe(parent);
    expect(servers[0]!.attributes['rpc.response.status_code']).toBe('OK');
  });
});
