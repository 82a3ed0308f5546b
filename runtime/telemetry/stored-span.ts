import { z } from 'zod';

const AttributeValueSchema = z.union([z.string(), z.number(), z.boolean(), z.array(z.union([z.string(), z.number(), z.boolean()]))]);

/** One finished span as the local trace store keeps it: a line of its JSONL file. */
export const StoredSpanSchema = z.object({
  traceId: z.string().regex(/^[0-9a-f]{32}$/),
  spanId: z.string().regex(/^[0-9a-f]{16}$/),
  parentSpanId: z
    .string()
    .regex(/^[0-9a-f]{16}$/)
    .optional(),
  service: z.string(),
  name: z.string(),
  /** SERVER, CLIENT, INTERNAL, PRODUCER or CONSUMER. */
  kind: z.string(),
  /** Milliseconds since the epoch (fractional). */
  startMs: z.number(),
  durationMs: z.number(),
  status: z.enum(['unset', 'ok', 'error']),
  statusMessage: z.string().optional(),
  attributes: z.record(z.string(), AttributeValueSchema),
  events: z.array(z.object({ name: z.string(), timeMs: z.number(), attributes: z.record(z.string(), AttributeValueSchema) })),
  links: z.array(z.object({ traceId: z.string(), spanId: z.string() })),
});

export type StoredSpan = z.infer<typeof StoredSpanSchema>;
export type SpanAttributeValue = z.infer<typeof AttributeValueSchema>;
