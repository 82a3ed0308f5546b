import type { HrTime, Link, SpanContext } from '@opentelemetry/api';
import type { Resource } from '@opentelemetry/resources';
import type { ReadableSpan, TimedEvent } from '@opentelemetry/sdk-trace-base';

/**
 * The OTLP/HTTP JSON body (`ExportTraceServiceRequest`) of a batch of
 * finished spans, written straight into one string: the same text, byte for
 * byte, as the SDK's `JsonTraceSerializer` (which builds the whole request as
 * objects first and then `JSON.stringify`s it), at about a third of the cost.
 * Same grouping (by resource object, then by scope name@version:schemaUrl, in
 * first-seen order), same member order, members left out exactly where the
 * SDK's are `undefined`, attributes in `Object.keys` order, integers as
 * `intValue` and other numbers as `doubleValue` (NaN and ±Infinity as `null`,
 * as `JSON.stringify` writes them), timestamps as decimal strings of
 * nanoseconds. test/telemetry/otlp-json-trace-encoder.test.ts compares the
 * two on every shape a span can take.
 *
 * `spanTexts`, when given, keeps each span's text for the next call: two
 * exporters of the same spans (the user's backend and the local receiver,
 * each with its own queue) then encode each span once. A span does not change
 * once ended, so its text stays right.
 *
 * @example
 * const body = encodeOtlpJsonTraces(spans); // '{"resourceSpans":[…]}'
 */
export function encodeOtlpJsonTraces(spans: readonly ReadableSpan[], options: { spanTexts?: WeakMap<ReadableSpan, string> } = {}): string {
  const spanTexts = options.spanTexts;
  const byResource = new Map<Resource, Map<string, ReadableSpan[]>>();
  for (const span of spans) {
    let scopes = byResource.get(span.resource);
    if (scopes === undefined) byResource.set(span.resource, (scopes = new Map()));
    const scope = span.instrumentationScope;
    const key = `${scope.name}@${scope.version || ''}:${scope.schemaUrl || ''}`;
    const group = scopes.get(key);
    if (group === undefined) scopes.set(key, [span]);
    else group.push(span);
  }
  // Pieces pushed and joined once at the end: one copy into a flat string, where `+=` builds a rope that costs more to flatten than to build.
  const parts: string[] = ['{"resourceSpans":['];
  let firstResource = true;
  for (const [resource, scopes] of byResource) {
    const { text, schemaUrl } = encodedResource(resource);
    parts.push(`${firstResource ? '' : ','}{"resource":${text},"scopeSpans":[`);
    firstResource = false;
    let firstScope = true;
    for (const group of scopes.values()) {
      parts.push(`${firstScope ? '' : ','}{"scope":${scopeJson(group[0]!.instrumentationScope)},"spans":[`);
      firstScope = false;
      for (let i = 0; i < group.length; i++) {
        const span = group[i]!;
        if (i > 0) parts.push(',');
        if (spanTexts === undefined) {
          pushSpan(parts, span);
          continue;
        }
        let text = spanTexts.get(span);
        if (text === undefined) {
          const own: string[] = [];
          pushSpan(own, span);
          spanTexts.set(span, (text = own.join('')));
        }
        parts.push(text);
      }
      parts.push(`]${member('schemaUrl', group[0]!.instrumentationScope.schemaUrl)}}`);
    }
    parts.push(`]${member('schemaUrl', schemaUrl)}}`);
  }
  parts.push(']}');
  return parts.join('');
}

/** The W3C trace-flags byte with OTLP's "has is_remote" bit, and the "is remote" bit when the context came from another process. */
const HAS_IS_REMOTE = 0x100;
const IS_REMOTE = 0x200;

/** Pushes a span's JSON onto `out` in pieces (joined once by the caller: no rope of concatenations to flatten). */
function pushSpan(out: string[], span: ReadableSpan): void {
  const context = span.spanContext();
  const parent = span.parentSpanContext;
  // The members before `kind` may each be left out, so the first comma goes once they are known (the trace id is always there in practice).
  const traceId = json(context.traceId);
  const rest =
    member('spanId', context.spanId) +
    (parent?.spanId ? member('parentSpanId', parent.spanId) : '') +
    member('traceState', context.traceState?.serialize()) +
    member('name', span.name);
  out.push(
    traceId !== undefined ? `{"traceId":${traceId}${rest},` : rest === '' ? '{' : `{${rest.slice(1)},`,
    `"kind":${span.kind == null ? 0 : span.kind + 1},"startTimeUnixNano":"${nanos(span.startTime)}","endTimeUnixNano":"${nanos(span.endTime)}","attributes":`,
  );
  pushAttributes(out, span.attributes);
  out.push(member('droppedAttributesCount', span.droppedAttributesCount), ',"events":[');
  const events: readonly TimedEvent[] = span.events;
  for (let i = 0; i < events.length; i++) {
    const event = events[i]!;
    pushItemStart(out, i, event.attributes);
    out.push(`${member('name', event.name)},"timeUnixNano":"${nanos(event.time)}"${member('droppedAttributesCount', event.droppedAttributesCount || 0)}}`);
  }
  out.push(`]${member('droppedEventsCount', span.droppedEventsCount)},"status":${statusJson(span.status.code, span.status.message)},"links":[`);
  const links: readonly Link[] = span.links;
  for (let i = 0; i < links.length; i++) {
    const link = links[i]!;
    pushItemStart(out, i, link.attributes);
    out.push(
      `${member('spanId', link.context.spanId)}${member('traceId', link.context.traceId)}${member('traceState', link.context.traceState?.serialize())}` +
        `${member('droppedAttributesCount', link.droppedAttributesCount || 0)},"flags":${flags(link.context, link.context.isRemote)}}`,
    );
  }
  out.push(`]${member('droppedLinksCount', span.droppedLinksCount)},"flags":${flags(context, parent?.isRemote)}}`);
}

function statusJson(code: unknown, message: unknown): string {
  const text = member('code', code) + member('message', message);
  return text === '' ? '{}' : `{${text.slice(1)}}`;
}

function flags(context: SpanContext, isRemote: boolean | undefined): number {
  return (context.traceFlags & 0xff) | HAS_IS_REMOTE | (isRemote ? IS_REMOTE : 0);
}

/** A resource's JSON and schema URL, kept while its attributes object stays the same (the SDK memoizes it once settled). */
const resourceCache = new WeakMap<Resource, { attributes: object; schemaUrl: string | undefined; text: string }>();

function encodedResource(resource: Resource): { text: string; schemaUrl: string | undefined } {
  const attributes = resource.attributes;
  const schemaUrl = resource.schemaUrl ? resource.schemaUrl : undefined;
  const cached = resourceCache.get(resource);
  if (cached !== undefined && cached.attributes === attributes && cached.schemaUrl === schemaUrl) return cached;
  const entry = { attributes, schemaUrl, text: `{"attributes":${attributesJson(attributes)},"droppedAttributesCount":0${member('schemaUrl', schemaUrl)}}` };
  resourceCache.set(resource, entry);
  return entry;
}

function scopeJson(scope: ReadableSpan['instrumentationScope']): string {
  const extra = scope as { attributes?: Record<string, unknown>; droppedAttributesCount?: number };
  let text = member('name', scope.name) + member('version', scope.version);
  if (extra.attributes && Object.keys(extra.attributes).length > 0) {
    text += `,"attributes":${attributesJson(extra.attributes)}${member('droppedAttributesCount', extra.droppedAttributesCount ?? 0)}`;
  }
  return text === '' ? '{}' : `{${text.slice(1)}}`;
}

function attributesJson(attributes: Readonly<Record<string, unknown>>): string {
  const out: string[] = [];
  pushAttributes(out, attributes);
  return out.join('');
}

/** The start of an event or a link (the `i`th of its list) up to its attributes, `[]` when it has none. */
function pushItemStart(out: string[], i: number, attributes: Readonly<Record<string, unknown>> | undefined): void {
  out.push(i === 0 ? '{"attributes":' : ',{"attributes":');
  if (attributes) pushAttributes(out, attributes);
  else out.push('[]');
}

function pushAttributes(out: string[], attributes: Readonly<Record<string, unknown>>): void {
  const keys = Object.keys(attributes);
  if (keys.length === 0) {
    out.push('[]');
    return;
  }
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    out.push(i === 0 ? '[' : ',', keyJson(key), anyValueJson(attributes[key]), '}');
  }
  out.push(']');
}

/** `{"key":<key>,"value":` of the attribute names seen most (semantic-convention names repeat on every span). */
const keyTexts = new Map<string, string>();
const MAX_KEY_TEXTS = 4096;

function keyJson(key: string): string {
  let text = keyTexts.get(key);
  if (text === undefined) {
    text = `{"key":${quote(key)},"value":`;
    if (keyTexts.size < MAX_KEY_TEXTS) keyTexts.set(key, text);
  }
  return text;
}

/** OTLP's AnyValue of an attribute value, as the SDK's `toAnyValue` maps it (anything it does not know is `{}`). */
function anyValueJson(value: unknown): string {
  switch (typeof value) {
    case 'string':
      return `{"stringValue":${quote(value)}}`;
    case 'number':
      return Number.isInteger(value) ? `{"intValue":${String(value)}}` : `{"doubleValue":${Number.isFinite(value) ? String(value) : 'null'}}`;
    case 'boolean':
      return value ? '{"boolValue":true}' : '{"boolValue":false}';
    case 'object': {
      if (value === null) return '{}';
      if (value instanceof Uint8Array) return `{"bytesValue":"${Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('base64')}"}`;
      if (Array.isArray(value)) {
        let out = '{"arrayValue":{"values":[';
        for (let i = 0; i < value.length; i++) out += (i === 0 ? '' : ',') + anyValueJson(value[i]);
        return `${out}]}}`;
      }
      const record = value as Record<string, unknown>;
      const keys = Object.keys(record);
      let out = '{"kvlistValue":{"values":[';
      for (let i = 0; i < keys.length; i++) out += `${i === 0 ? '' : ','}{"key":${JSON.stringify(keys[i])},"value":${anyValueJson(record[keys[i]!])}}`;
      return `${out}]}}`;
    }
    default:
      return '{}';
  }
}

/** `,"name":<json>`, or nothing where `JSON.stringify` would leave the member out (undefined, a function, a symbol). */
function member(name: string, value: unknown): string {
  const text = json(value);
  return text === undefined ? '' : `,"${name}":${text}`;
}

/** `JSON.stringify(value)`, with the common leaves (strings needing no escape, numbers) written directly. */
function json(value: unknown): string | undefined {
  if (typeof value === 'string') return quote(value);
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : 'null';
  if (value === undefined) return undefined;
  return JSON.stringify(value) as string | undefined;
}

/** What JSON escapes: `"`, `\\`, control characters, and surrogates (lone ones are escaped; pairs go the slow way, to the same text). */
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;

function quote(text: string): string {
  return NEEDS_ESCAPE.test(text) ? JSON.stringify(text) : `"${text}"`;
}

const NANOS_PER_SECOND = 1_000_000_000n;

/**
 * An hrtime `[seconds, nanoseconds]` as a decimal string of nanoseconds, as
 * the SDK computes it (`BigInt(trunc(s)) * 1e9 + BigInt(trunc(ns))`, throwing
 * as it does on NaN), by plain string work in the usual case.
 */
function nanos(time: HrTime): string {
  const seconds = time[0];
  const fraction = time[1];
  if (Number.isSafeInteger(seconds) && seconds >= 1 && Number.isInteger(fraction) && fraction >= 0 && fraction < 1e9) {
    return String(seconds) + String(fraction + 1e9).slice(1);
  }
  return (BigInt(Math.trunc(seconds)) * NANOS_PER_SECOND + BigInt(Math.trunc(fraction))).toString();
}
