import { describe, expect, it } from 'vitest';
import { encodeNamedSseEvent, encodeSseEvent } from '../../../runtime/core/server/sse.js';

describe('SSE framing', () => {
  it('frames a named event as one string exactly as encodeSseEvent frames its object', () => {
    for (const [event, data] of [
      ['status', 'Planning...'],
      ['text', 'two\nlines'],
      ['input_required', 'a\r\nb\rc'],
      ['custom_name', ''],
    ] as const) {
      expect(encodeNamedSseEvent(event, data)).toBe(encodeSseEvent({ event, data }));
    }
    expect(encodeNamedSseEvent('text', 'a\nb')).toBe('event: text\ndata: a\ndata: b\n\n');
  });

  it('refuses an event name that would inject fields', () => {
    expect(() => encodeNamedSseEvent('status\ndata: forged', 'x')).toThrow(/CR or LF/);
    expect(() => encodeSseEvent({ event: 'x\r', data: 'y' })).toThrow(/CR or LF/);
  });
});
