/** Headers of every server-sent-event response: no caching, no proxy buffering. */
export const SSE_HEADERS: Readonly<Record<string, string>> = {
  'Content-Type': 'text/event-stream; charset=utf-8',
  'Cache-Control': 'no-cache, no-transform',
  Connection: 'keep-alive',
  'X-Accel-Buffering': 'no',
};

export interface SseEvent {
  /** Event name (`event:` field); omitted for unnamed `message` events. */
  event?: string;
  /** Payload; multi-line text becomes several `data:` lines. */
  data: string;
  id?: string;
}

const LINE_BREAK = /\r\n|\r|\n/;

/** Event names already checked, so a stream's usual names are not scanned on every event. */
const CHECKED_NAMES = new Set(['status', 'text', 'input_required', 'result', 'error', 'message']);

function assertSingleLine(value: string, field: string): void {
  if (/[\r\n]/.test(value)) throw new TypeError(`SSE ${field} must not contain CR or LF`);
}

/**
 * Frames one event as the SSE standard says: optional `event:` and `id:`
 * lines, one `data:` line per line of the payload, then a blank line.
 * CR or LF inside `event` or `id` would let a value inject its own fields, so
 * they are rejected.
 *
 * @example
 * encodeSseEvent({ event: 'status', data: 'a\nb' }) // 'event: status\ndata: a\ndata: b\n\n'
 */
export function encodeSseEvent(event: SseEvent): string {
  let out = '';
  if (event.event !== undefined) {
    if (!CHECKED_NAMES.has(event.event)) assertSingleLine(event.event, 'event');
    out += `event: ${event.event}\n`;
  }
  if (event.id !== undefined) {
    assertSingleLine(event.id, 'id');
    out += `id: ${event.id}\n`;
  }
  return `${out}${dataLines(event.data)}\n`;
}

/**
 * The frame of a named event without an id, as one string:
 * `encodeSseEvent({ event, data })` without making the event object (the
 * front door's hot path writes three per request).
 */
export function encodeNamedSseEvent(event: string, data: string): string {
  if (!CHECKED_NAMES.has(event)) assertSingleLine(event, 'event');
  return `event: ${event}\n${dataLines(data)}\n`;
}

/** One `data:` line per line of the payload. */
function dataLines(data: string): string {
  if (data.indexOf('\n') === -1 && data.indexOf('\r') === -1) return `data: ${data}\n`;
  let out = '';
  for (const line of data.split(LINE_BREAK)) out += `data: ${line}\n`;
  return out;
}

/** A comment line, ignored by clients; used as keep-alive. */
export function encodeSseComment(text: string): string {
  assertSingleLine(text, 'comment');
  return `: ${text}\n\n`;
}
