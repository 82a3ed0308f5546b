import { z } from 'zod';
import { BadRequestError } from '../core/errors/bad-request-error.js';
import type { SpanAttributeValue, StoredSpan } from './stored-span.js';

/**
 * OTLP/HTTP JSON (`ExportTraceServiceRequest` in the protobuf JSON mapping):
 * only the fields the store keeps. Ids are hex, as the OTLP JSON encoding has
 * them; 64-bit integers may come as strings. An attribute's value is read
 * leniently (`plainValue`): one value the store cannot keep (the SDK writes
 * NaN and ±Infinity as `null`) loses that attribute, not the batch.
 */
const KeyValuesSchema = z.array(z.object({ key: z.string(), value: z.unknown() })).optional();
const NanosSchema = z.union([z.string().regex(/^\d{1,20}$/), z.number().nonnegative()]);
const HexId = (length: number) => z.string().regex(new RegExp(`^[0-9a-fA-F]{${length}}$`));

const ExportRequestSchema = z.object({
  resourceSpans: z
    .array(
      z.object({
        resource: z.object({ attributes: KeyValuesSchema }).optional(),
        scopeSpans: z
          .array(
            z.object({
              spans: z
                .array(
                  z.object({
                    traceId: HexId(32),
                    spanId: HexId(16),
                    parentSpanId: z.union([HexId(16), z.literal('')]).optional(),
                    name: z.string().max(1024),
                    kind: z.number().int().optional(),
                    startTimeUnixNano: NanosSchema,
                    endTimeUnixNano: NanosSchema,
                    attributes: KeyValuesSchema,
                    events: z.array(z.object({ name: z.string(), timeUnixNano: NanosSchema, attributes: KeyValuesSchema })).optional(),
                    links: z.array(z.object({ traceId: HexId(32), spanId: HexId(16) })).optional(),
                    status: z.object({ code: z.number().int().optional(), message: z.string().optional() }).optional(),
                  }),
                )
                .optional(),
            }),
          )
          .optional(),
      }),
    )
    .optional(),
});

const KINDS = ['UNSPECIFIED', 'INTERNAL', 'SERVER', 'CLIENT', 'PRODUCER', 'CONSUMER'];
/** Longest string attribute kept: the store is for reading in a terminal, not an archive. */
const MAX_TEXT = 512;

/**
 * The spans of an OTLP/HTTP JSON export request, flattened for the store.
 * A body that is not such a request is a `invalid_request` error saying which field is wrong.
 */
export function spansFromOtlpJson(body: unknown): StoredSpan[] {
  const parsed = ExportRequestSchema.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new BadRequestError({
      code: 'invalid_request',
      message: `Not an OTLP JSON trace export: ${issue?.path.join('.') || 'body'}: ${issue?.message ?? 'invalid'}.`,
    });
  }
  const spans: StoredSpan[] = [];
  for (const resourceSpans of parsed.data.resourceSpans ?? []) {
    const resource = attributesOf(resourceSpans.resource?.attributes);
    const service = typeof resource['service.name'] === 'string' ? resource['service.name'] : 'unknown_service';
    for (const scope of resourceSpans.scopeSpans ?? []) {
      for (const span of scope.spans ?? []) {
        const startMs = nanosToMs(span.startTimeUnixNano);
        const code = span.status?.code ?? 0;
        spans.push({
          traceId: span.traceId.toLowerCase(),
          spanId: span.spanId.toLowerCase(),
          ...(span.parentSpanId ? { parentSpanId: span.parentSpanId.toLowerCase() } : {}),
          service,
          name: span.name,
          kind: KINDS[span.kind ?? 0] ?? 'UNSPECIFIED',
          startMs,
          durationMs: Math.max(0, nanosToMs(span.endTimeUnixNano) - startMs),
          status: code === 2 ? 'error' : code === 1 ? 'ok' : 'unset',
          ...(span.status?.message ? { statusMessage: span.status.message.slice(0, MAX_TEXT) } : {}),
          attributes: attributesOf(span.attributes),
          events: (span.events ?? []).map((event) => ({ name: event.name, timeMs: nanosToMs(event.timeUnixNano), attributes: attributesOf(event.attributes) })),
          links: (span.links ?? []).map((link) => ({ traceId: link.traceId.toLowerCase(), spanId: link.spanId.toLowerCase() })),
        });
      }
    }
  }
  return spans;
}

function nanosToMs(value: string | number): number {
  if (typeof value === 'number') return value / 1e6;
  // Beyond 2^53 ns: split so the milliseconds keep their microseconds.
  const whole = value.length > 6 ? Number(value.slice(0, -6)) : 0;
  const rest = Number(value.slice(-6));
  return whole + rest / 1e6;
}

function attributesOf(list: z.infer<typeof KeyValuesSchema>): Record<string, SpanAttributeValue> {
  const out: Record<string, SpanAttributeValue> = {};
  for (const { key, value } of list ?? []) {
    const plain = plainValue(value);
    if (plain !== undefined) out[key] = plain;
  }
  return out;
}

/** A value of OTLP's AnyValue as the store keeps it; undefined for what it cannot keep (kvlist, bytes, null, non-numbers). */
function plainValue(value: unknown): SpanAttributeValue | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const any = value as Record<string, unknown>;
  if (typeof any.stringValue === 'string') return any.stringValue.slice(0, MAX_TEXT);
  if (typeof any.boolValue === 'boolean') return any.boolValue;
  if (any.intValue !== undefined) return integer(any.intValue);
  if (any.doubleValue !== undefined) return double(any.doubleValue);
  if (typeof any.arrayValue === 'object' && any.arrayValue !== null) {
    const values = (any.arrayValue as { values?: unknown }).values;
    return (Array.isArray(values) ? values : [])
      .map((item) => plainValue(item))
      .filter((item): item is string | number | boolean => item !== undefined && !Array.isArray(item));
  }
  return undefined;
}

function integer(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isInteger(value) ? value : undefined;
  return typeof value === 'string' && /^-?\d{1,20}$/.test(value) ? Number(value) : undefined;
}

/** A double; NaN and ±Infinity (strings in the protobuf JSON mapping) kept by those names, since JSON has no number for them. */
function double(value: unknown): number | string | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (value === 'NaN' || value === 'Infinity' || value === '-Infinity') return value;
  if (typeof value !== 'string' || value.trim() === '') return undefined;
  const number = Number(value);
  return Number.isFinite(number) ? number : undefined;
}
