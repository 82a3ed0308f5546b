import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { lastTurnTrace } from '../../repl/last-turn-trace.js';
import { TraceStore } from '../../runtime/telemetry/trace-store.js';

describe('lastTurnTrace', () => {
  it('draws the stored trace of the last answer, or says where it looked', async () => {
    const root = await mkdtemp(join(tmpdir(), 'fw-last-turn-'));
    try {
      const traceId = 'ab'.repeat(16);
      expect(lastTurnTrace({ traceId, root })).toMatch(new RegExp(`^Trace ${traceId} is not in ${root}/\\.framework/traces`));
      new TraceStore({ root }).append([
        {
          traceId,
          spanId: '1'.repeat(16),
          service: 'planner',
          name: 'POST /stream',
          kind: 'SERVER',
          startMs: 1_000,
          durationMs: 40,
          status: 'unset',
          attributes: {},
          events: [],
          links: [],
        },
        {
          traceId,
          spanId: '2'.repeat(16),
          parentSpanId: '1'.repeat(16),
          service: 'planner',
          name: 'tool_gate place_trade',
          kind: 'INTERNAL',
          startMs: 1_010,
          durationMs: 5,
          status: 'error',
          statusMessage: 'boom',
          attributes: { 'framework.decision': 'deny' },
          events: [],
          links: [],
        },
      ]);
      const drawn = lastTurnTrace({ traceId, root }).split('\n');
      expect(drawn[0]).toBe(`trace ${traceId}  40.0 ms  2 spans  services: planner`);
      expect(drawn[2]).toMatch(/^planner +tool_gate place_trade +█+ +5\.0 ms {2}decision=deny {2}ERROR boom$/);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});
