import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuditListResponseSchema } from '../../runtime/guardian/guardian-responses.js';
import { startStack, validationInput } from './stack.js';

/**
 * `POST /v1/a2a/validate` is answered below Hono, and must answer exactly as
 * the app's route does: each request is sent to the exact path (the direct
 * handler) and with a query string (`?through=app`, which it leaves to the
 * app), and the two answers compared: status, content type, body. Both are
 * audited alike.
 */
let stack: Awaited<ReturnType<typeof startStack>>;
beforeAll(async () => {
  stack = await startStack({ maxBodyBytes: 4096 });
});
afterAll(async () => {
  await stack.close();
});

interface Sent {
  contentType?: string;
  body: string;
}

async function send(path: string, sent: Sent): Promise<{ status: number; type: string | null; body: unknown }> {
  const headers: Record<string, string> = {};
  if (sent.contentType !== undefined) headers['content-type'] = sent.contentType;
  const response = await fetch(`${stack.guardian.url}${path}`, { method: 'POST', headers, body: sent.body });
  const text = await response.text();
  return { status: response.status, type: response.headers.get('content-type'), body: JSON.parse(text) as unknown };
}

const json = (value: unknown): Sent => ({ contentType: 'application/json', body: JSON.stringify(value) });

const CASES: Array<[string, Sent, number]> = [
  ['an allowed call', json(validationInput('orchestrator', 'planner')), 200],
  ['a denied call', json(validationInput('untrusted', 'database')), 200],
  ['a JSON type with parameters', { contentType: 'application/json; charset=utf-8', body: JSON.stringify(validationInput('planner', 'executor')) }, 200],
  ['no content type', { body: JSON.stringify(validationInput('planner', 'executor')) }, 415],
  ['a text body', { contentType: 'text/plain', body: 'hello' }, 415],
  ['an empty body', { contentType: 'application/json', body: '' }, 400],
  ['broken JSON', { contentType: 'application/json', body: '{"source_agent":' }, 400],
  ['an array', json([1, 2]), 400],
  ['a missing field', json({ ...validationInput('planner', 'executor'), communication: undefined }), 400],
  [
    'a hostile number',
    { contentType: 'application/json', body: JSON.stringify(validationInput('planner', 'executor')).replace('"message_length":5', '"message_length":1e400') },
    400,
  ],
  ['a body over the limit', json({ ...validationInput('planner', 'executor'), padding: 'x'.repeat(8192) }), 413],
  // The type is refused before the body is read, so this is a 415, not a 413.
  ['a text body over the limit', { contentType: 'text/plain', body: 'x'.repeat(8192) }, 415],
];

describe('POST /v1/a2a/validate below Hono', () => {
  it.each(CASES)('answers %s as the app does', async (_what, sent, status) => {
    const direct = await send('/v1/a2a/validate', sent);
    expect(direct.status).toBe(status);
    expect(direct).toEqual(await send('/v1/a2a/validate?through=app', sent));
  });

  it('decides as the policy does, and audits each decision as the app does', async () => {
    const before = AuditListResponseSchema.parse(await (await fetch(`${stack.guardian.url}/v1/audit?limit=1000`)).json()).events.length;
    const allowed = await send('/v1/a2a/validate', json(validationInput('orchestrator', 'planner', 'plan the trip')));
    const denied = await send('/v1/a2a/validate', json(validationInput('untrusted', 'database', 'drop it')));
    expect(allowed.body).toMatchObject({ allowed: true });
    expect(denied.body).toMatchObject({ allowed: false });
    const { events } = AuditListResponseSchema.parse(await (await fetch(`${stack.guardian.url}/v1/audit?limit=1000`)).json());
    expect(events.length).toBe(before + 2);
    expect(events.slice(-2).map((e) => [e.source, e.target, e.decision, e.checked_by])).toEqual([
      ['orchestrator', 'planner', 'allowed', 'guardian'],
      ['untrusted', 'database', 'denied', 'guardian'],
    ]);
  });
});
