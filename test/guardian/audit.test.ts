import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditEvent, type AuditEvent } from '../../runtime/a2a/audit-log.js';
import { AuditTrail } from '../../runtime/guardian/audit-trail.js';
import { AuditListResponseSchema } from '../../runtime/guardian/guardian-responses.js';
import { post, startStack, validationInput } from './stack.js';

function event(source: string, at: string): AuditEvent {
  return auditEvent({ source, target: 't', decision: 'allowed', reason: 'r', checked_by: 'guardian', message: source, now: new Date(at) });
}

describe('AuditTrail', () => {
  it('keeps the newest events up to its capacity, newest last', () => {
    const trail = new AuditTrail({ capacity: 3 });
    for (let i = 1; i <= 5; i++) trail.record(event(`a${i}`, `2026-01-01T00:00:0${i}Z`));
    expect(trail.size).toBe(3);
    expect(trail.recent().map((e) => e.source)).toEqual(['a3', 'a4', 'a5']);
    expect(trail.recent({ limit: 2 }).map((e) => e.source)).toEqual(['a4', 'a5']);
    expect(trail.recent({ since: new Date('2026-01-01T00:00:04Z') }).map((e) => e.source)).toEqual(['a5']);
    expect(new AuditTrail().recent()).toEqual([]);
    expect(() => new AuditTrail({ capacity: 0 })).toThrow(RangeError);
  });

  it('forwards every event to another log', () => {
    const lines: AuditEvent[] = [];
    const trail = new AuditTrail({ forward: { record: (e) => lines.push(e) } });
    trail.record(event('x', '2026-01-01T00:00:00Z'));
    expect(lines.map((e) => e.source)).toEqual(['x']);
  });
});

describe('GET /v1/audit', () => {
  let stack: Awaited<ReturnType<typeof startStack>>;
  beforeAll(async () => {
    stack = await startStack();
  });
  afterAll(async () => stack.close());

  const list = async (query = '') => {
    const res = await fetch(`${stack.guardian.url}/v1/audit${query}`);
    expect(res.status).toBe(200);
    return AuditListResponseSchema.parse(await res.json()).events;
  };

  it('lists decisions newest last, with limit and since', async () => {
    expect(await list()).toEqual([]);
    for (const source of ['orchestrator', 'planner', 'untrusted']) {
      expect((await post(`${stack.guardian.url}/v1/a2a/validate`, validationInput(source, 'database'))).status).toBe(200);
    }
    const all = await list();
    expect(all.map((e) => [e.source, e.decision])).toEqual([
      ['orchestrator', 'allowed'],
      ['planner', 'denied'],
      ['untrusted', 'denied'],
    ]);
    expect((await list('?limit=1')).map((e) => e.source)).toEqual(['untrusted']);
    const before = new Date(Date.parse(all[0]!.timestamp) - 1).toISOString();
    expect(await list(`?since=${encodeURIComponent(before)}&limit=1000`)).toHaveLength(3);
    const later = new Date(Date.now() + 60_000).toISOString();
    expect(await list(`?since=${encodeURIComponent(later)}`)).toEqual([]);
    expect(await list(`?since=${encodeURIComponent('2000-01-01T02:00:00+02:00')}`)).toHaveLength(3);
  });

  it('refuses bad limit and since values with 400', async () => {
    for (const query of ['?limit=0', '?limit=1001', '?limit=ten', '?limit=1.5', '?limit=-1', '?since=yesterday', '?since=2026-13-01T00:00:00Z']) {
      const res = await fetch(`${stack.guardian.url}/v1/audit${query}`);
      expect(res.status, query).toBe(400);
      const body = (await res.json()) as { code: string; message: string };
      expect(body.code).toBe('invalid_request');
      expect(body.message).toMatch(query.startsWith('?limit') ? /limit: must be a whole number from 1 to 1000/ : /since: must be an ISO-8601 timestamp/);
    }
    expect((await fetch(`${stack.guardian.url}/v1/audit`, { method: 'POST' })).status).toBe(405);
  });
});
