import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messageDigest } from '../../runtime/a2a/audit-log.js';
import { AuditListResponseSchema, ValidateResponseSchema } from '../../runtime/guardian/guardian-responses.js';
import { post, startStack, validationInput } from './stack.js';

let stack: Awaited<ReturnType<typeof startStack>>;
let validateUrl: string;

beforeAll(async () => {
  stack = await startStack({ maxBodyBytes: 4096 });
  validateUrl = `${stack.guardian.url}/v1/a2a/validate`;
});
afterAll(async () => stack.close());

async function decide(source: string, target: string): Promise<{ allowed: boolean; reason: string }> {
  const res = await post(validateUrl, validationInput(source, target));
  expect(res.status).toBe(200);
  return ValidateResponseSchema.parse(await res.json());
}

async function expectError(res: Response, status: number, code: string): Promise<string> {
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  const body = (await res.json()) as { code: string; message: string };
  expect(body.code).toBe(code);
  expect(body.message).toEqual(expect.any(String));
  return body.message;
}

describe('POST /v1/a2a/validate against the example access policy', () => {
  it('allows the orchestrator to call any agent', async () => {
    for (const target of ['planner', 'executor', 'database']) {
      expect(await decide('orchestrator', target)).toEqual({ allowed: true, reason: 'allowed by policy' });
    }
  });

  it('allows the planner to call the orchestrator, not the database', async () => {
    expect((await decide('planner', 'orchestrator')).allowed).toBe(true);
    const denied = await decide('planner', 'database');
    expect(denied.allowed).toBe(false);
    expect(denied.reason).toBe('no policy rule allows this agent pair');
  });

  it('allows any agent to call the semantic layer', async () => {
    for (const source of ['planner', 'executor', 'someone-new']) expect((await decide(source, 'semantic-layer')).allowed).toBe(true);
  });

  it('denies untrusted → database with the policy reason', async () => {
    expect(await decide('untrusted', 'database')).toEqual({ allowed: false, reason: 'untrusted agents may not call the database' });
  });

  it('denies an unknown pair with a reason', async () => {
    const denied = await decide('weather', 'billing');
    expect(denied.allowed).toBe(false);
    expect(denied.reason).not.toBe('');
  });

  it('audits every decision, digesting only the message preview', async () => {
    await post(validateUrl, validationInput('executor', 'semantic-layer', 'preview text'));
    await post(validateUrl, validationInput('untrusted', 'database', 'drop tables'));
    const res = await fetch(`${stack.guardian.url}/v1/audit?limit=2`);
    const { events } = AuditListResponseSchema.parse(await res.json());
    expect(events).toEqual([
      expect.objectContaining({
        source: 'executor',
        target: 'semantic-layer',
        decision: 'allowed',
        checked_by: 'guardian',
        message_sha256: messageDigest('preview text'),
      }),
      expect.objectContaining({
        source: 'untrusted',
        target: 'database',
        decision: 'denied',
        reason: 'untrusted agents may not call the database',
        checked_by: 'guardian',
        message_sha256: messageDigest('drop tables'),
      }),
    ]);
  });
});

describe('POST /v1/a2a/validate with a bad request', () => {
  it('names a missing field', async () => {
    const input: Record<string, unknown> = { ...validationInput('planner', 'orchestrator') };
    delete input.target_agent;
    const message = await expectError(await post(validateUrl, input), 400, 'invalid_request');
    expect(message).toContain('target_agent: is required');
  });

  it('names a field of the wrong type, with its path', async () => {
    const input = validationInput('planner', 'orchestrator');
    const bad = { ...input, communication: { ...input.communication, message_length: 'long' } };
    const message = await expectError(await post(validateUrl, bad), 400, 'invalid_request');
    expect(message).toContain('communication.message_length: must be a number');
    const mode = await expectError(await post(validateUrl, { ...input, validation_mode: 'lenient' }), 400, 'invalid_request');
    expect(mode).toContain('validation_mode: must be one of strict, permissive, disabled');
  });

  it('refuses a body that is not JSON, not an object, of another type, or too big', async () => {
    await expectError(await post(validateUrl, undefined, { raw: '{"source_agent": ' }), 400, 'invalid_json');
    await expectError(await post(validateUrl, []), 400, 'invalid_request');
    await expectError(
      await post(validateUrl, undefined, { raw: 'source=planner', contentType: 'application/x-www-form-urlencoded' }),
      415,
      'unsupported_media_type',
    );
    const big = validationInput('planner', 'orchestrator', 'x'.repeat(5000));
    await expectError(await post(validateUrl, big), 413, 'payload_too_large');
  });

  it('answers 405 with Allow for a wrong method and 404 for an unknown path', async () => {
    const res = await fetch(validateUrl);
    await expectError(res, 405, 'method_not_allowed');
    expect(res.headers.get('allow')).toBe('POST');
    const health = await fetch(`${stack.guardian.url}/health`, { method: 'DELETE' });
    expect(health.headers.get('allow')).toBe('GET');
    await expectError(health, 405, 'method_not_allowed');
    await expectError(await fetch(`${stack.guardian.url}/v1/nothing`), 404, 'not_found');
  });
});
