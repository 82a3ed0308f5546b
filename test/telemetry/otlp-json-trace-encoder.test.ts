/**
 * Our OTLP/JSON trace encoder against the SDK's own `JsonTraceSerializer`:
 * the same ReadableSpans (made by the real SDK, and hand-made for the shapes
 * the SDK's API never produces) must give the same bytes.
 */
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, TraceFlags, trace, type Attributes, type Link, type SpanContext } from '@opentelemetry/api';
import { TraceState } from '@opentelemetry/core';
import { JsonTraceSerializer } from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes, type Resource } from '@opentelemetry/resources';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { describe, expect, it } from 'vitest';
import { encodeOtlpJsonTraces } from '../../runtime/telemetry/otlp-json-trace-encoder.js';

/** Both encodings of `spans`, as text (the SDK's bytes decoded; ours encoded to UTF-8 and back, so a byte difference shows). */
function both(spans: ReadableSpan[]): { ours: string; sdk: string } {
  const sdk = JsonTraceSerializer.serializeRequest(spans)!;
  const ours = Buffer.from(encodeOtlpJsonTraces(spans), 'utf8');
  expect(Buffer.compare(ours, Buffer.from(sdk)), `${ours.toString()}\n${Buffer.from(sdk).toString()}`).toBe(0);
  return { ours: ours.toString(), sdk: Buffer.from(sdk).toString() };
}

/** Spans from the real SDK: `record` runs with a tracer of each scope; the limits make it drop attributes, events and links. */
function recorded(options: { resource: Resource; record: (tracers: ReturnType<typeof tracersOf>) => void }): ReadableSpan[] {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({
    resource: options.resource,
    spanLimits: { attributeCountLimit: 12, eventCountLimit: 2, linkCountLimit: 2, attributePerEventCountLimit: 1, attributePerLinkCountLimit: 1 },
    spanProcessors: [new SimpleSpanProcessor(exporter)],
  });
  options.record(tracersOf(provider));
  return exporter.getFinishedSpans();
}

function tracersOf(provider: BasicTracerProvider) {
  return {
    plain: provider.getTracer('framework'),
    versioned: provider.getTracer('framework', '1.2.3', { schemaUrl: 'https://opentelemetry.io/schemas/1.30.0' }),
    other: provider.getTracer('@opentelemetry/instrumentation-undici', '0.33.0'),
  };
}

const EVERY_ATTRIBUTE: Attributes = {
  text: 'plain',
  escapes: 'quote " backslash \\ newline \n tab \t nul \u0000 del \u007f',
  unicode: 'é 日本 😀 \u2028 \u2029',
  loneSurrogate: 'a\ud800b\udc00',
  '': 'empty key',
  '10': 'integer-like keys come first in Object.keys order',
  '2': 'and in numeric order',
  'key "quoted"': true,
  int: 42,
  negative: -7,
  minusZero: -0,
  double: 3.14159,
  tiny: 5e-324,
  huge: 1e21,
  unsafe: 2 ** 53 + 2,
  nan: Number.NaN,
  inf: Number.POSITIVE_INFINITY,
  negInf: Number.NEGATIVE_INFINITY,
  yes: true,
  no: false,
  strings: ['a', '', 'ü'],
  numbers: [1, 2.5, Number.NaN, -0],
  bools: [true, false],
  holes: ['a', null, undefined, 'b'] as string[],
  empty: [],
};

describe('encodeOtlpJsonTraces', () => {
  it('writes the same bytes as the SDK for real spans: kinds, statuses, events, links, remote parents, trace state, every attribute type, dropped counts, three scopes', () => {
    const resource = resourceFromAttributes({ 'service.name': 'planner', 'service.version': '0.1.0', 'deployment.environment': 'test', pid: 1234 });
    const remote: SpanContext = {
      traceId: '0af7651916cd43dd8448eb211c80319c',
      spanId: 'b7ad6b7169203331',
      traceFlags: TraceFlags.SAMPLED,
      isRemote: true,
      traceState: new TraceState('vendor=value,other=x'),
    };
    const linked: Link[] = [
      {
        context: { traceId: '4bf92f3577b34da6a3ce929d0e0e4736', spanId: '00f067aa0ba902b7', traceFlags: TraceFlags.NONE },
        attributes: { reason: 'approval', extra: 1 },
      },
      { context: { ...remote, spanId: '1111111111111111' } },
      { context: { ...remote, spanId: '2222222222222222' }, attributes: { dropped: 'by the link limit' } },
    ];
    const spans = recorded({
      resource,
      record: ({ plain, versioned, other }) => {
        // No context manager here: parents are passed explicitly.
        const remoteParent = trace.setSpanContext(ROOT_CONTEXT, remote);
        const server = plain.startSpan('POST /stream', { kind: SpanKind.SERVER, attributes: EVERY_ATTRIBUTE, links: linked }, remoteParent);
        server.addEvent('approval.granted', { by: 'alice', dropped: 'by the per-event limit' });
        server.addEvent('plain event');
        server.addEvent('dropped by the event limit');
        server.setStatus({ code: SpanStatusCode.ERROR, message: 'denied: "policy" \n said no' });
        for (const kind of [SpanKind.INTERNAL, SpanKind.CLIENT, SpanKind.PRODUCER, SpanKind.CONSUMER]) {
          const child = (kind === SpanKind.CLIENT ? other : versioned).startSpan(`child ${kind}`, { kind }, trace.setSpan(remoteParent, server));
          child.setStatus({ code: kind === SpanKind.CLIENT ? SpanStatusCode.OK : SpanStatusCode.UNSET });
          child.end();
        }
        server.end();
        plain.startSpan('root, no parent', { attributes: { only: 'one' } }).end();
      },
    });
    expect(spans).toHaveLength(6);
    const server = spans.find((span) => span.name === 'POST /stream')!;
    expect(server.droppedAttributesCount).toBeGreaterThan(0);
    expect(server.droppedEventsCount).toBe(1);
    expect(server.droppedLinksCount).toBe(1);
    expect(server.parentSpanContext?.isRemote).toBe(true);
    expect(spans.find((span) => span.name === 'child 2')!.parentSpanContext?.spanId).toBe(server.spanContext().spanId);
    const { ours } = both(spans);
    const request = JSON.parse(ours) as { resourceSpans: { scopeSpans: { scope: { name: string } }[] }[] };
    expect(request.resourceSpans[0]!.scopeSpans.map((scope) => scope.scope.name)).toEqual(['framework', '@opentelemetry/instrumentation-undici', 'framework']);
  });

  it('groups by resource object in first-seen order, with schema URLs on resources and scopes', () => {
    const a = recorded({ resource: resourceFromAttributes({ 'service.name': 'a' }), record: ({ plain }) => plain.startSpan('a1').end() });
    const withSchema = resourceFromAttributes({ 'service.name': 'b' }, { schemaUrl: 'https://opentelemetry.io/schemas/1.30.0' });
    const b = recorded({ resource: withSchema, record: ({ versioned }) => versioned.startSpan('b1').end() });
    const a2 = recorded({ resource: a[0]!.resource, record: ({ plain }) => plain.startSpan('a2').end() });
    const { ours } = both([a[0]!, b[0]!, a2[0]!]);
    expect((JSON.parse(ours) as { resourceSpans: unknown[] }).resourceSpans).toHaveLength(2);
    expect(ours).toContain('"schemaUrl":"https://opentelemetry.io/schemas/1.30.0"');
  });

  it('writes an empty batch as the SDK does', () => {
    expect(both([]).ours).toBe('{"resourceSpans":[]}');
  });

  it('writes the same nanoseconds for every hrtime shape, and throws where the SDK throws', () => {
    const times: [number, number][] = [
      [0, 0],
      [0, 5],
      [1, 0],
      [1, 999_999_999],
      [1_700_000_000, 123_456_789],
      [1_700_000_000.9, 123_456_789.7],
      [1, 1_000_000_000],
      [1, 2_500_000_000],
      [-1, 5],
      [5, -3],
      [2 ** 53 - 1, 1],
      [2 ** 53, 1],
      [2 ** 60, 7],
      [1e21, 3],
    ];
    const [template] = recorded({ resource: resourceFromAttributes({}), record: ({ plain }) => plain.startSpan('t').end() });
    const spans = times.map((time, i) => handMade(template!, { startTime: time, endTime: times[times.length - 1 - i]!, events: [{ name: 'e', time }] }));
    both(spans);
    for (const bad of [
      [Number.NaN, 0],
      [0, Number.POSITIVE_INFINITY],
    ] as [number, number][]) {
      const span = handMade(template!, { startTime: bad });
      expect(() => JsonTraceSerializer.serializeRequest([span])).toThrow(RangeError);
      expect(() => encodeOtlpJsonTraces([span])).toThrow(RangeError);
    }
  });

  it('writes the same bytes for shapes only hand-made spans have: bytes, nested values, nulls, missing members, scope attributes', () => {
    const [template] = recorded({ resource: resourceFromAttributes({ 'service.name': 's' }), record: ({ plain }) => plain.startSpan('t').end() });
    const bytes = new Uint8Array([0, 1, 2, 250, 255]);
    const odd = {
      bytes,
      slice: Buffer.from('hello world').subarray(6),
      nested: { a: 1, b: [true, { c: 'd' }], e: null, f: undefined },
      nothing: null,
      missing: undefined,
      fn: () => 1,
      symbol: Symbol('s'),
      big: 10n,
      date: new Date(0),
      mixed: [1, 'a', [2, [3]], bytes],
    } as unknown as Attributes;
    const spans = [
      handMade(template!, { attributes: odd, droppedAttributesCount: undefined as unknown as number, droppedEventsCount: 3, droppedLinksCount: 0 }),
      handMade(template!, {
        status: { code: SpanStatusCode.UNSET },
        kind: undefined as unknown as SpanKind,
        name: undefined as unknown as string,
        events: [
          { name: 'no attributes', time: [1, 2] },
          { name: 'counted', time: [1, 3], attributes: {}, droppedAttributesCount: 4 },
        ],
        links: [{ context: { traceId: 'ab'.repeat(16), spanId: 'cd'.repeat(8), traceFlags: 3, isRemote: false }, droppedAttributesCount: 2 }],
        instrumentationScope: {
          name: 'scoped',
          version: undefined,
          attributes: { team: 'core', n: 2 },
          droppedAttributesCount: 1,
        } as ReadableSpan['instrumentationScope'],
      }),
      handMade(template!, {
        instrumentationScope: { name: 'scoped', attributes: {} } as ReadableSpan['instrumentationScope'],
        parentSpanContext: { ...template!.spanContext(), spanId: '' },
      }),
    ];
    both(spans);
  });

  it('follows a resource whose attributes change (not settled yet) instead of reusing its first text', () => {
    const [template] = recorded({ resource: resourceFromAttributes({}), record: ({ plain }) => plain.startSpan('t').end() });
    let attributes: Attributes = { 'service.name': 'first' };
    const resource = {
      get attributes() {
        return attributes;
      },
      schemaUrl: undefined,
    } as unknown as Resource;
    const span = handMade(template!, { resource });
    expect(both([span]).ours).toContain('"first"');
    attributes = { 'service.name': 'second' };
    expect(both([span]).ours).toContain('"second"');
  });

  it('writes the same bytes as the SDK for 500 random spans', () => {
    let seed = 36;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
    const value = (depth: number): unknown =>
      pick([
        () => pick(['', 'x', 'é😀', '"\\\n', String(random())]),
        () => Math.floor(random() * 2 ** 40) - 2 ** 39,
        () => (random() - 0.5) * 10 ** Math.floor(random() * 40 - 20),
        () => pick([Number.NaN, Number.POSITIVE_INFINITY, -0, 0]),
        () => random() < 0.5,
        () => (depth > 2 ? null : Array.from({ length: Math.floor(random() * 4) }, () => value(depth + 1))),
        () => undefined,
      ])();
    const [template] = recorded({ resource: resourceFromAttributes({ 'service.name': 'fuzz' }), record: ({ plain }) => plain.startSpan('t').end() });
    const resources = [template!.resource, resourceFromAttributes({ 'service.name': 'other' })];
    const spans = Array.from({ length: 500 }, (_, i) => {
      const attributes: Record<string, unknown> = {};
      for (let k = Math.floor(random() * 8); k > 0; k--) attributes[pick(['a', 'b.c', '7', 'gen_ai.usage.input_tokens', `k${k}`])] = value(0);
      const start: [number, number] = [1_700_000_000 + Math.floor(random() * 1000), Math.floor(random() * 1e9)];
      return handMade(template!, {
        name: `span ${i}`,
        kind: pick([SpanKind.INTERNAL, SpanKind.SERVER, SpanKind.CLIENT]),
        resource: pick(resources),
        instrumentationScope: pick([{ name: 'a' }, { name: 'a', version: '1' }, { name: 'b', schemaUrl: 'u' }]),
        attributes: attributes as Attributes,
        startTime: start,
        endTime: [start[0] + 1, start[1]],
        status: pick([{ code: SpanStatusCode.UNSET }, { code: SpanStatusCode.OK }, { code: SpanStatusCode.ERROR, message: `failed ${i}` }]),
        events: random() < 0.3 ? [{ name: 'ev', time: start, attributes: attributes as Attributes }] : [],
      });
    });
    both(spans);
  });
});

/** A span with `template`'s members except `changes`, as a plain object (the serializer reads only the ReadableSpan members). */
function handMade(template: ReadableSpan, changes: Partial<Omit<ReadableSpan, 'spanContext'>>): ReadableSpan {
  const members: ReadableSpan = {
    name: template.name,
    kind: template.kind,
    spanContext: () => template.spanContext(),
    parentSpanContext: template.parentSpanContext,
    startTime: template.startTime,
    endTime: template.endTime,
    status: template.status,
    attributes: template.attributes,
    links: template.links,
    events: template.events,
    duration: template.duration,
    ended: true,
    resource: template.resource,
    instrumentationScope: template.instrumentationScope,
    droppedAttributesCount: template.droppedAttributesCount,
    droppedEventsCount: template.droppedEventsCount,
    droppedLinksCount: template.droppedLinksCount,
  };
  return { ...members, ...changes };
}
