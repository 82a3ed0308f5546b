/**
 * Tracing across the tutorial swarm, started the way `up` starts it (the
 * Supervisor, one child process per service): a plan approved at the
 * planner's front door is ONE trace through planner → Guardian → policy
 * engine → executor, received by a real OTLP/HTTP protobuf receiver and kept
 * by the stack's own store for `framework-cli trace`; the caller's
 * `traceparent` is continued and returned; every service's /metrics is
 * Prometheus text. Run `npm run build` first.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { FrontDoorClient } from '../../runtime/http/front-door-client.js';
import { lastTurnTrace } from '../../repl/last-turn-trace.js';
import { runCli } from '../support/cli.js';
import { freePort, waitFor } from '../support/net.js';
import { startService } from '../support/processes.js';
import { OtlpProtobufReceiver, type ReceivedSpan } from '../telemetry/otlp-protobuf-receiver.js';
import { runTutorialPlan, startTracedSwarm, type TracedSwarm } from './traced-swarm.js';

const SERVER = 2;
const CLIENT = 3;

let receiver: OtlpProtobufReceiver;
let swarm: TracedSwarm;
let urls: TracedSwarm['urls'];
let workspace: TracedSwarm['workspace'];

beforeAll(async () => {
  receiver = new OtlpProtobufReceiver();
  await receiver.start();
  // The user's backend, as one would point the stack at it: the standard variables only.
  swarm = await startTracedSwarm({
    otel: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf', OTEL_BSP_SCHEDULE_DELAY: '200' },
  });
  ({ urls, workspace } = swarm);
}, 90_000);

afterAll(async () => {
  await swarm?.stop({ keepWorkspace: Boolean(process.env.KEEP_TRACING_WORKSPACE) });
  await receiver?.stop();
  if (process.env.KEEP_TRACING_WORKSPACE) console.log(workspace.dir);
});

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const CALLER_SPAN = '00f067aa0ba902b7';

describe('one trace per request across the swarm', () => {
  let spans: ReceivedSpan[];

  it('continues the caller traceparent through planner, Guardian, policy engine and executor, with correct parents', async () => {
    const approved = await runTutorialPlan({ plannerUrl: urls.planner, traceparent: `00-${TRACE_ID}-${CALLER_SPAN}-01` });
    // The same trace, a span of the planner's own.
    expect(approved.response.headers.get('traceparent')).toMatch(new RegExp(`^00-${TRACE_ID}-(?!${CALLER_SPAN})[0-9a-f]{16}-01$`));

    const services = ['planner', 'guardian', 'policy', 'executor'];
    await waitFor(
      async () => services.every((service) => receiver.trace(TRACE_ID).some((span) => span.service === service)),
      'spans of all four services',
      15_000,
    ).catch((error: Error) => {
      const got = receiver.spans.map((span) => `${span.traceId.slice(0, 8)} ${span.service} ${span.kind} ${span.name}`).join('\n');
      throw new Error(`${error.message}; received:\n${got}`);
    });
    // Let the last batches in (a span ends after its children are exported).
    await new Promise((resolve) => setTimeout(resolve, 600));
    spans = receiver.trace(TRACE_ID);
    expect(receiver.refused).toEqual([]);

    const byId = new Map(spans.map((span) => [span.spanId, span]));
    const parentOf = (span: ReceivedSpan) => (span.parentSpanId ? byId.get(span.parentSpanId) : undefined);
    // One root: the planner's server span, child of the caller's span; every other span's parent is in the trace.
    const roots = spans.filter((span) => !byId.has(span.parentSpanId ?? ''));
    expect(roots.map((span) => [span.service, span.kind, span.name, span.parentSpanId])).toEqual([['planner', SERVER, 'POST /query', CALLER_SPAN]]);

    const task = spans.find((span) => span.name === 'task route_to_task' && span.service === 'planner')!;
    expect(parentOf(task)).toBe(roots[0]);
    expect(task.attributes['framework.context_id']).toEqual(expect.any(String));

    // Across processes: a server span's parent is a client span of the calling service.
    const hops = spans
      .filter((span) => span.kind === SERVER && span !== roots[0])
      .map((span) => `${parentOf(span)?.service}:${parentOf(span)?.kind} → ${span.service}`);
    expect(new Set(hops)).toEqual(
      new Set([`planner:${CLIENT} → guardian`, `guardian:${CLIENT} → policy`, `planner:${CLIENT} → executor`, `executor:${CLIENT} → guardian`]),
    );

    // The Guardian's decisions and the caller-side checks say what was decided.
    const validations = spans.filter((span) => span.service === 'guardian' && span.name === 'POST /v1/a2a/validate');
    expect(validations.length).toBeGreaterThan(0);
    for (const span of validations) expect(span.attributes).toMatchObject({ 'framework.decision': 'allow', 'framework.decided_by': 'guardian' });
    const checks = spans.filter((span) => span.name === 'a2a.validate');
    expect(checks.length).toBeGreaterThan(0);
    expect(checks.every((span) => span.attributes['framework.decision'] === 'allow')).toBe(true);
    const evaluations = spans.filter((span) => span.service === 'policy' && span.kind === SERVER);
    expect(evaluations.every((span) => typeof span.attributes['opa.path'] === 'string')).toBe(true);
  }, 60_000);

  it('keeps the trace in the stack store: framework-cli trace draws it, and --json gives the same spans', async () => {
    await waitFor(async () => (await runCli(['trace', TRACE_ID, '--dir', workspace.dir, '--json'])).code === 0, 'the trace in the local store', 10_000);
    const json = await runCli(['trace', TRACE_ID, '--dir', workspace.dir, '--json']);
    const view = JSON.parse(json.stdout) as { traceId: string; services: string[]; spans: { spanId: string; depth: number; service: string }[] };
    expect(view.traceId).toBe(TRACE_ID);
    expect(new Set(view.services)).toEqual(new Set(['planner', 'guardian', 'policy', 'executor']));
    expect(new Set(view.spans.map((span) => span.spanId))).toEqual(new Set(spans.map((span) => span.spanId)));
    expect(view.spans[0]).toMatchObject({ service: 'planner', depth: 0 });

    const text = await runCli(['trace', '--last', '--dir', workspace.dir]);
    expect(text.code).toBe(0);
    const lines = text.stdout.trim().split('\n');
    expect(lines[0]).toMatch(new RegExp(`^trace ${TRACE_ID} .* ${spans.length} spans`));
    expect(text.stdout).toMatch(/^planner +POST \/query +█/m);
    expect(text.stdout).toMatch(/^guardian +.*POST \/v1\/a2a\/validate .*decision=allow/m);
    expect(text.stdout).toMatch(/^executor /m);

    // What the REPL's Ctrl-T shows: the chat client keeps the trace id of the agent's last answer.
    const client = new FrontDoorClient({ url: urls.planner });
    await client.startSession();
    const lastTraceId = client.lastTraceId;
    expect(lastTraceId).toMatch(/^[0-9a-f]{32}$/);
    await waitFor(async () => lastTurnTrace({ traceId: lastTraceId, root: workspace.dir }).startsWith('trace '), 'the last turn in the store', 10_000);
    expect(lastTurnTrace({ traceId: lastTraceId, root: workspace.dir })).toMatch(/^planner +POST \/session\/start/m);

    const missing = await runCli(['trace', 'ffffffffffffffffffffffffffffffff', '--dir', workspace.dir, '--json']);
    expect(missing.code).toBe(1);
    expect(JSON.parse(missing.stdout)).toMatchObject({ error: { code: 'trace_not_found' } });
    const bad = await runCli(['trace', 'not-a-trace', '--dir', workspace.dir]);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toMatch(/not a trace id \(32 hex digits/);
  }, 30_000);

  it('serves Prometheus text at /metrics on every service, with the request, stream and policy families', async () => {
    for (const [name, url] of Object.entries(urls)) {
      const response = await fetch(`${url}/metrics`);
      expect(response.status, name).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/^text\/plain/);
      const families = new Map(parsePrometheusTextFormat(await response.text()).map((family) => [family.name, family]));
      // The policy engine counts its requests under OPA's name (below).
      const requests = families.get(name === 'policy' ? 'http_request_duration_seconds' : 'http_server_request_duration_seconds');
      expect(requests?.type, name).toBe('HISTOGRAM');
      expect(requests!.metrics.some((metric) => Number(metric.buckets?.['+Inf']) > 0)).toBe(true);
      if (name === 'planner' || name === 'executor') expect(families.get('sse_streams_active')?.type).toBe('GAUGE');
    }
    // The policy engine keeps OPA's names.
    const policy = new Map(parsePrometheusTextFormat(await (await fetch(`${urls.policy}/metrics`)).text()).map((family) => [family.name, family]));
    expect(policy.get('http_request_duration_seconds')?.type).toBe('HISTOGRAM');
    expect(policy.get('policy_decisions_total')?.type).toBe('COUNTER');
  }, 30_000);
});

describe('with nothing configured', () => {
  it('creates no exporter: no span, no traceparent in the answer, the log line has no trace id', async () => {
    const port = await freePort();
    const guardian = await startService({ name: 'guardian', port, args: ['serve', 'guardian', '--addr', `127.0.0.1:${port}`, '--opa-url', urls.policy] });
    try {
      const response = await fetch(`${guardian.url}/v1/a2a/validate`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', traceparent: `00-${TRACE_ID}-${CALLER_SPAN}-01` },
        body: '{}',
      });
      expect(response.status).toBe(400);
      expect(response.headers.get('traceparent')).toBeNull();
    } finally {
      await guardian.stop();
    }
  }, 30_000);
});
