/**
 * The local trace receiver keeps a batch in which an attribute is NaN or
 * ±Infinity (the SDK's JSON exporter writes them as `null`), losing only
 * those attributes; values spelled as the protobuf JSON mapping spells them
 * are kept by name.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ExportResultCode } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { JsonTraceSerializer } from '@opentelemetry/otlp-transformer';
import type { SpanExporter } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOtlpJsonSpanExporter } from '../../runtime/telemetry/otlp-json-span-exporter.js';
import { startTraceReceiver } from '../../runtime/telemetry/trace-receiver.js';
import { TraceStore } from '../../runtime/telemetry/trace-store.js';
import { exportWith, spansWithNaN } from '../support/otel-spans.js';

/** The SDK's OTLP/HTTP JSON exporter and ours: the receiver must keep the batch from either. */
const EXPORTERS: Array<[string, (url: string) => SpanExporter]> = [
  ["the SDK's exporter", (url) => new OTLPTraceExporter({ url, headers: {} })],
  ['our exporter', (url) => createOtlpJsonSpanExporter({ url, headers: {} })],
];

let root: string;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'fw-receiver-nan-'));
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('the local receiver', () => {
  it.each(EXPORTERS)(
    'keeps a batch in which an attribute is NaN or Infinity (written as null), losing only those attributes: %s',
    async (name, exporterFor) => {
      const store = new TraceStore({ root: join(root, name.replace(/\W+/g, '-')) });
      const receiver = await startTraceReceiver({ store });
      try {
        const spans = spansWithNaN();
        // The SDK's own serializer writes NaN as null: that body is what a receiver gets.
        expect(Buffer.from(JsonTraceSerializer.serializeRequest(spans)!).toString()).toContain('"score.value","value":{"doubleValue":null}');
        const exporter = exporterFor(receiver.tracesUrl);
        expect(await exportWith(exporter, spans)).toEqual({ code: ExportResultCode.SUCCESS });
        await exporter.shutdown();
        const stored = store.read();
        expect(stored.map((span) => span.name).sort()).toEqual(['child', 'score']);
        const score = stored.find((span) => span.name === 'score')!;
        expect(score.attributes).toEqual({ 'score.name': 'cosine', 'score.k': 5, 'score.ratio': 0.5 });
        expect(score.events).toEqual([expect.objectContaining({ name: 'scored', attributes: { ok: 'yes' } })]);
        expect(stored.find((span) => span.name === 'child')!.attributes).toEqual({ list: [1, 3] });
        // The protobuf JSON mapping's spellings are kept by name (JSON has no number for them).
        const posted = await fetch(receiver.tracesUrl, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            resourceSpans: [
              {
                scopeSpans: [
                  {
                    spans: [
                      {
                        traceId: 'ab'.repeat(16),
                        spanId: 'cd'.repeat(8),
                        name: 'spelled',
                        startTimeUnixNano: '1700000000000000000',
                        endTimeUnixNano: '1700000000000000001',
                        attributes: [
                          { key: 'nan', value: { doubleValue: 'NaN' } },
                          { key: 'inf', value: { doubleValue: '-Infinity' } },
                          { key: 'junk', value: { intValue: 'twelve' } },
                          { key: 'wrongType', value: { stringValue: 5 } },
                          { key: 'big', value: { intValue: '12' } },
                        ],
                      },
                    ],
                  },
                ],
              },
            ],
          }),
        });
        expect(posted.status).toBe(200);
        expect(store.read().find((span) => span.name === 'spelled')!.attributes).toEqual({ nan: 'NaN', inf: '-Infinity', big: 12 });
      } finally {
        await receiver.close();
      }
    },
  );
});
