import { describe, expect, it } from 'vitest';
import { parseStoredSession, StoredSessionSchema } from '../../runtime/sessions/stored-session.js';

/** What the schema answers for a record: the oracle the hand-written check must match. */
function bySchema(raw: string): unknown {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    return undefined;
  }
  const parsed = StoredSessionSchema.safeParse(value);
  return parsed.success ? parsed.data : undefined;
}

const HOSTILE = [
  '{"contextId":"c1","createdAt":1,"expiresAt":2}',
  '{"contextId":"c1","createdAt":1,"expiresAt":2,"extra":{"deep":[1,2]},"admin":true}',
  '{"contextId":"c1","createdAt":1e999,"expiresAt":2}',
  '{"contextId":"c1","createdAt":1,"expiresAt":-1e999}',
  '{"contextId":"c1","createdAt":1.5,"expiresAt":-2}',
  '{"contextId":"c1","createdAt":1,"expiresAt":9007199254740993}',
  '{"contextId":"c1","createdAt":"1","expiresAt":2}',
  '{"contextId":"c1","createdAt":1,"expiresAt":null}',
  '{"contextId":"c1","createdAt":1,"expiresAt":true}',
  '{"contextId":"c1","createdAt":1,"expiresAt":[2]}',
  '{"contextId":1,"createdAt":1,"expiresAt":2}',
  '{"contextId":null,"createdAt":1,"expiresAt":2}',
  '{"contextId":{"toString":"x"},"createdAt":1,"expiresAt":2}',
  '{"createdAt":1,"expiresAt":2}',
  '{"__proto__":{"contextId":"c1"},"createdAt":1,"expiresAt":2}',
  '{"contextId":"c1","createdAt":1,"expiresAt":2,"__proto__":{"expiresAt":"x"}}',
  '{"contextId":"","createdAt":0,"expiresAt":0}',
  '{"contextId":"c1","contextId":5,"createdAt":1,"expiresAt":2}',
  '["c1",1,2]',
  '[]',
  'null',
  '42',
  '"c1"',
  'true',
  '',
  '{',
  '{"contextId":"c1","createdAt":1,"expiresAt":2} trailing',
  `{"contextId":"${'x'.repeat(100_000)}","createdAt":1,"expiresAt":2}`,
];

describe('parseStoredSession', () => {
  it('answers what the schema answers, record by hostile record', () => {
    for (const raw of HOSTILE) expect(parseStoredSession(raw), raw.slice(0, 80)).toEqual(bySchema(raw));
  });

  it('keeps a good record and drops extra keys; rejects huge numbers and wrong types', () => {
    expect(parseStoredSession('{"contextId":"c1","createdAt":1,"expiresAt":2,"admin":true}')).toStrictEqual({ contextId: 'c1', createdAt: 1, expiresAt: 2 });
    expect(parseStoredSession('{"contextId":"c1","createdAt":1,"expiresAt":1e999}')).toBeUndefined();
    expect(parseStoredSession('{"contextId":"c1","createdAt":1,"expiresAt":"2"}')).toBeUndefined();
    expect(parseStoredSession('not json')).toBeUndefined();
  });
});
