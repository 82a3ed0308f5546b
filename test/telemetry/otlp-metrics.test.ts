/**
 * Metrics over OTLP: a real service (`serve guardian`, a child process) with
 * the standard OTEL_* variables sends the figures of its /metrics to an OTLP
 * HTTP protobuf receiver on a free port; with OTEL_METRICS_EXPORTER=none it
 * sends none. Run `npm run build` first.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, waitFor } from '../support/net.js';
import { startService, type Service } from '../support/processes.js';
import { POLICIES } from '../e2e/a2a-support.js';
import { OtlpProtobufReceiver } from './otlp-protobuf-receiver.js';

let receiver: OtlpProtobufReceiver;
let policy: Service;

beforeAll(async () => {
  receiver = new OtlpProtobufReceiver();
  await receiver.start();
  const port = await freePort();
  policy = await startService({ name: 'policy', port, args: ['policy', 'serve', POLICIES, '--addr', `127.0.0.1:${port}`, '--no-watch'], timeoutMs: 45_000 });
}, 60_000);

afterAll(async () => {
  await policy?.stop();
  await receiver?.stop();
});

/** A Guardian child process (answering healthy once its policy engine is). */
async function guardian(name: string, env: Record<string, string>) {
  const port = await freePort();
  return startService({
    name,
    port,
    args: ['serve', 'guardian', '--addr', `127.0.0.1:${port}`, '--opa-url', policy.url],
    env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_TRACES_EXPORTER: 'none', OTEL_METRIC_EXPORT_INTERVAL: '200', OTEL_SERVICE_NAME: name, ...env },
    timeoutMs: 45_000,
  });
}

async function badValidations(url: string, count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    const response = await fetch(`${url}/v1/a2a/validate`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' });
    expect(response.status).toBe(400);
  }
}

describe('OTLP metrics from a service', () => {
  it('exports the figures of /metrics: request durations per route as a histogram, with the same counts', async () => {
    const service = await guardian('guardian-metrics', {});
    try {
      await badValidations(service.url, 3);
      const validate = () =>
        receiver
          .latestPoints('guardian-metrics', 'http_server_request_duration_seconds')
          .find((point) => point.attributes.route === '/v1/a2a/validate' && point.attributes.status_code === '400');
      await waitFor(async () => validate()?.value === 3, 'three validations in an OTLP export', 10_000);
      const point = validate()!;
      expect(point).toMatchObject({ type: 'histogram', attributes: { method: 'POST', route: '/v1/a2a/validate', status_code: '400' } });
      expect(point.bucketCounts!.reduce((a, b) => a + b, 0)).toBe(3);
      expect(point.bucketCounts).toHaveLength(point.bounds!.length + 1);

      // The scraped text says the same of that series: its count, and each cumulative `le` bucket is the sum of OTLP's per-bucket counts.
      const text = await (await fetch(`${service.url}/metrics`)).text();
      const series = 'method="POST",route="/v1/a2a/validate",status_code="400"';
      expect(text.split('\n')).toContain(`http_server_request_duration_seconds_count{${series}} ${point.value}`);
      let cumulative = 0;
      point.bounds!.forEach((bound, i) => {
        cumulative += point.bucketCounts![i]!;
        expect(text.split('\n')).toContain(`http_server_request_duration_seconds_bucket{le="${bound}",${series}} ${cumulative}`);
      });
      expect(receiver.refused).toEqual([]);
    } finally {
      await service.stop();
    }
  }, 90_000);

  it("the policy engine exports OPA's families too: decisions by where they ran, and OPA's request histogram", async () => {
    const port = await freePort();
    const engine = await startService({
      name: 'policy-metrics',
      port,
      args: ['policy', 'serve', POLICIES, '--addr', `127.0.0.1:${port}`, '--no-watch'],
      env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_TRACES_EXPORTER: 'none', OTEL_METRIC_EXPORT_INTERVAL: '200', OTEL_SERVICE_NAME: 'policy-metrics' },
      timeoutMs: 45_000,
    });
    try {
      for (let i = 0; i < 2; i++) {
        const answer = await fetch(`${engine.url}/v1/data/a2a_access/allow`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: '{"input":{}}',
        });
        expect(answer.status).toBe(200);
      }
      const decisions = () => receiver.latestPoints('policy-metrics', 'policy_decisions_total').reduce((sum, point) => sum + point.value, 0);
      await waitFor(async () => decisions() === 2, 'two decisions in an OTLP export', 10_000);
      expect(receiver.latestPoints('policy-metrics', 'policy_decisions_total').every((point) => point.type === 'sum')).toBe(true);
      const requests = receiver
        .latestPoints('policy-metrics', 'http_request_duration_seconds')
        .find((point) => point.attributes.handler === 'v1/data' && point.attributes.code === '200');
      expect(requests).toMatchObject({ type: 'histogram', value: 2, attributes: { method: 'POST' } });
      // The scraped text has the same count.
      const text = await (await fetch(`${engine.url}/metrics`)).text();
      expect(text.split('\n')).toContain('http_request_duration_seconds_count{code="200",handler="v1/data",method="POST"} 2');
    } finally {
      await engine.stop();
    }
  }, 90_000);

  it('sends nothing with OTEL_METRICS_EXPORTER=none, and still serves /metrics', async () => {
    const service = await guardian('guardian-quiet', { OTEL_METRICS_EXPORTER: 'none' });
    try {
      await badValidations(service.url, 1);
      expect((await fetch(`${service.url}/metrics`)).status).toBe(200);
      // Past a few export intervals of the other service.
      await new Promise((resolve) => setTimeout(resolve, 800));
    } finally {
      await service.stop();
    }
    expect(receiver.metricPoints.filter((point) => point.service === 'guardian-quiet')).toEqual([]);
  }, 90_000);
});
