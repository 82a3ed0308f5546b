/**
 * Tracing into a third-party OpenTelemetry backend: Arize Phoenix (PyPI
 * `arize-phoenix`, its own OTLP/HTTP endpoint at /v1/traces) runs as a child
 * process; the tutorial swarm exports to it by the standard variables only
 * (OTEL_EXPORTER_OTLP_ENDPOINT = Phoenix); the tutorial plan is run, and the
 * spans are read back from Phoenix's REST API: ONE trace across the planner,
 * the Guardian, the policy engine and the executor, with the parents of the
 * caller's spans, the same tree the stack's own store kept.
 *
 * Phoenix keeps a span's attributes but not its resource (so not
 * `service.name`) nor its OpenTelemetry kind: a server span is told by its
 * `url.path` (a client span has `url.full`), its service by its
 * `server.port` (the port the service listens on), and every other span
 * belongs to the service of its nearest server-span ancestor.
 * Needs FRAMEWORK_PHOENIX_PYTHON (set by .ci/run); run `npm run build` first.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TraceStore } from '../../runtime/telemetry/trace-store.js';
import { freePort, waitFor } from '../support/net.js';
import { startService, type Service } from '../support/processes.js';
import { venvPython } from '../support/python-venv.js';
import { runTutorialPlan, startTracedSwarm, type SwarmService, type TracedSwarm } from './traced-swarm.js';

const python = venvPython({ env: 'FRAMEWORK_PHOENIX_PYTHON', setup: 'pip install arize-phoenix==20.26.1' });

/** A span as Phoenix's `GET /v1/projects/{project}/spans` gives it. */
interface PhoenixSpan {
  name: string;
  context: { trace_id: string; span_id: string };
  parent_id: string | null;
  attributes: Record<string, unknown>;
}

let phoenix: Service;
let phoenixDir: string;
let swarm: TracedSwarm;

beforeAll(async () => {
  if (!python) return;
  phoenixDir = await mkdtemp(join(tmpdir(), 'fw-phoenix-'));
  const port = await freePort();
  phoenix = await startService({
    name: 'phoenix',
    program: python,
    args: ['-m', 'phoenix.server.main', 'serve'],
    port,
    cwd: phoenixDir,
    env: {
      PHOENIX_HOST: '127.0.0.1',
      PHOENIX_PORT: String(port),
      PHOENIX_GRPC_PORT: String(await freePort()),
      PHOENIX_WORKING_DIR: phoenixDir,
      PHOENIX_TELEMETRY_ENABLED: 'false',
    },
    healthPath: '/healthz',
    // Its first start imports a large app and migrates a new SQLite database: over a minute on a busy machine.
    timeoutMs: 240_000,
  });
  // Only the standard variables: the endpoint (protobuf by default, what Phoenix takes) and a short batch delay.
  swarm = await startTracedSwarm({ otel: { OTEL_EXPORTER_OTLP_ENDPOINT: phoenix.url, OTEL_BSP_SCHEDULE_DELAY: '200' } });
}, 400_000);

afterAll(async () => {
  await swarm?.stop();
  await phoenix?.stop();
  if (phoenixDir) await rm(phoenixDir, { recursive: true, force: true });
});

async function phoenixSpans(traceId: string): Promise<PhoenixSpan[]> {
  const response = await fetch(`${phoenix.url}/v1/projects/default/spans?trace_id=${traceId}&limit=1000`);
  if (response.status === 404) return []; // no project until the first span lands
  expect(response.status).toBe(200);
  return ((await response.json()) as { data: PhoenixSpan[] }).data;
}

describe.skipIf(!python)('one trace in Arize Phoenix, exported by the standard OTEL_* variables', () => {
  it('holds the tutorial plan as one trace across planner, Guardian, policy engine and executor, with correct parents', async () => {
    const traceId = randomBytes(16).toString('hex');
    const callerSpan = randomBytes(8).toString('hex');
    await runTutorialPlan({ plannerUrl: swarm.urls.planner, traceparent: `00-${traceId}-${callerSpan}-01` });

    // What the stack's own receiver kept of the trace (with service names and kinds) is what Phoenix must hold too.
    const store = new TraceStore({ root: swarm.workspace.dir });
    const kept = () => store.read().filter((span) => span.traceId === traceId);
    let spans: PhoenixSpan[] = [];
    await waitFor(
      async () => {
        spans = await phoenixSpans(traceId);
        const expected = kept();
        return new Set(expected.map((span) => span.service)).size === 4 && expected.every((span) => spans.some((s) => s.context.span_id === span.spanId));
      },
      'the trace in Phoenix',
      30_000,
    ).catch((error: Error) => {
      throw new Error(`${error.message}; Phoenix has ${spans.length} spans, the local store ${kept().length}`);
    });
    // Let the last batches in (a parent span ends, and is exported, after its children).
    await new Promise((resolve) => setTimeout(resolve, 600));
    spans = await phoenixSpans(traceId);
    expect(spans.every((span) => span.context.trace_id === traceId)).toBe(true);
    expect(new Map(spans.map((span) => [span.context.span_id, span.parent_id ?? undefined]))).toEqual(
      new Map(kept().map((span) => [span.spanId, span.parentSpanId])),
    );

    const byId = new Map(spans.map((span) => [span.context.span_id, span]));
    const isServer = (span: PhoenixSpan) => typeof span.attributes['url.path'] === 'string' && span.attributes['url.full'] === undefined;
    const serviceAt = new Map(Object.entries(swarm.ports).map(([service, port]) => [port, service as SwarmService]));
    /** The service a span ran in: that of its nearest server span (itself included). */
    const serviceOf = (span: PhoenixSpan | undefined): SwarmService | undefined => {
      for (let at = span; at; at = at.parent_id ? byId.get(at.parent_id) : undefined) {
        if (isServer(at)) return serviceAt.get(Number(at.attributes['server.port']));
      }
      return undefined;
    };

    // One root: the planner's server span, child of the caller's span.
    const roots = spans.filter((span) => !byId.has(span.parent_id ?? ''));
    expect(roots.map((span) => [serviceOf(span), span.name, span.parent_id])).toEqual([['planner', 'POST /query', callerSpan]]);
    // Every span belongs to one of the four services, and all four are in the trace.
    expect(new Set(spans.map(serviceOf))).toEqual(new Set(['planner', 'guardian', 'policy', 'executor']));

    // Across processes: each server span's parent is a client span of the calling service, calling that server's port.
    const hops = spans
      .filter((span) => isServer(span) && span !== roots[0])
      .map((span) => {
        const parent = byId.get(span.parent_id!)!;
        expect(new URL(String(parent.attributes['url.full'])).port, parent.name).toBe(String(span.attributes['server.port']));
        return `${serviceOf(parent)} → ${serviceOf(span)}`;
      });
    expect(new Set(hops)).toEqual(new Set(['planner → guardian', 'guardian → policy', 'planner → executor', 'executor → guardian']));

    // The Guardian's decisions, as the backend shows them.
    const validations = spans.filter((span) => serviceOf(span) === 'guardian' && span.name === 'POST /v1/a2a/validate');
    expect(validations.length).toBeGreaterThan(0);
    for (const span of validations) expect(span.attributes).toMatchObject({ 'framework.decision': 'allow', 'framework.decided_by': 'guardian' });
  }, 120_000);
});
