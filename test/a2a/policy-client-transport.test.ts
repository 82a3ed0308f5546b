import { afterAll, describe, expect, it } from 'vitest';
import { GuardianAccessChecker } from '../../runtime/a2a/access-checker.js';
import { PolicyUnavailableError } from '../../runtime/a2a/errors/policy-unavailable-error.js';
import { JSON_CALL_MAX_BYTES } from '../../runtime/a2a/http-fetch.js';
import { OpaPolicyClient } from '../../runtime/a2a/policy-client.js';
import { endlessAnswer, freePort, httpPeers } from '../support/net.js';
import { tracingOnInSpans } from '../support/otel-spans.js';
import { validationInput } from '../guardian/stack.js';

/**
 * The Guardian's client of the policy engine and an agent's client of the
 * Guardian call over `node:http` (`jsonCallFetch`) rather than Node's
 * `fetch` when tracing is off. What they promised over `fetch` still holds,
 * against real servers: a peer that never answers, or stops mid-answer,
 * fails the call within its timeout; a refused connection says so; the
 * caller's abort ends the call; an answer arrives whole.
 */
const peers = httpPeers();
afterAll(() => peers.closeAll());
const serve = peers.serve;

/** A peer whose answer never ends, past the largest answer a policy call takes. */
function serveOversized(): Promise<string> {
  return serve(endlessAnswer());
}

/** A peer that promises 100 bytes, sends 10 and closes the connection. */
function serveCutOff(): Promise<string> {
  return serve((_request, response) => {
    response.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
    response.write('{"result":', () => response.destroy());
  });
}

async function failure(call: Promise<unknown>): Promise<PolicyUnavailableError> {
  const error = await call.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(PolicyUnavailableError);
  return error as PolicyUnavailableError;
}

const INPUT = validationInput('planner', 'executor');

describe('the policy engine and Guardian clients over node:http', () => {
  it('get a whole answer, with the request as sent', async () => {
    const seen: Array<{ method?: string; url?: string; type?: string; body: string }> = [];
    const url = await serve((request, response) => {
      let body = '';
      request.setEncoding('utf8');
      request.on('data', (chunk: string) => (body += chunk));
      request.on('end', () => {
        seen.push({ method: request.method, url: request.url, type: request.headers['content-type'], body });
        const answer = request.url === '/v1/a2a/validate' ? '{"allowed":true,"reason":"allowed by policy"}' : '{"result":true}';
        response.writeHead(200, { 'content-type': 'application/json' }).end(answer);
      });
    });
    await expect(new OpaPolicyClient({ url }).evaluate('a2a_access/allow', { n: 1 })).resolves.toBe(true);
    await expect(new GuardianAccessChecker({ url }).check(INPUT)).resolves.toEqual({ allowed: true, reason: 'allowed by policy' });
    expect(seen).toEqual([
      { method: 'POST', url: '/v1/data/a2a_access/allow', type: 'application/json', body: '{"input":{"n":1}}' },
      { method: 'POST', url: '/v1/a2a/validate', type: 'application/json', body: JSON.stringify(INPUT) },
    ]);
  });

  it('fail within their timeout when the peer never answers', async () => {
    const url = await serve(() => undefined);
    const started = Date.now();
    expect((await failure(new OpaPolicyClient({ url, timeoutMs: 300 }).evaluate('a2a_access/allow', {}))).message).toContain('no answer within 300 ms');
    expect((await failure(new GuardianAccessChecker({ url, timeoutMs: 300 }).check(INPUT))).message).toContain('no answer within 300 ms');
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('fail within their timeout when the peer stops in the middle of its answer', async () => {
    const url = await serve((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
      response.write('{"result":');
    });
    await failure(new OpaPolicyClient({ url, timeoutMs: 300 }).evaluate('a2a_access/allow', {}));
    await failure(new GuardianAccessChecker({ url, timeoutMs: 300 }).check(INPUT));
  });

  it('say an answer broken off by the peer was cut off', async () => {
    const url = await serveCutOff();
    expect((await failure(new OpaPolicyClient({ url }).evaluate('a2a_access/allow', {}))).message).toContain('the answer was cut off');
    expect((await failure(new GuardianAccessChecker({ url }).check(INPUT))).message).toContain('the answer was cut off');
  });

  it('refuse an answer larger than any decision, rather than hold it', async () => {
    const url = await serveOversized();
    expect((await failure(new OpaPolicyClient({ url }).evaluate('a2a_access/allow', {}))).message).toContain(`over ${JSON_CALL_MAX_BYTES} bytes`);
  });

  it('read an answer as text as fetch does (UTF-8, a leading BOM dropped)', async () => {
    const url = await serve((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' }).end('\uFEFF{"result":"Zoë ✓"}');
    });
    await expect(new OpaPolicyClient({ url }).evaluate('a2a_access/allow', {})).resolves.toBe('Zoë ✓');
  });

  it('say a refused connection is refused', async () => {
    const url = `http://127.0.0.1:${await freePort()}`;
    expect((await failure(new OpaPolicyClient({ url }).evaluate('a2a_access/allow', {}))).message).toContain('ECONNREFUSED');
    expect((await failure(new GuardianAccessChecker({ url }).check(INPUT))).message).toContain('ECONNREFUSED');
  });

  it("end the call at the caller's abort, long before the timeout", async () => {
    const url = await serve(() => undefined);
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('the caller gave up')), 100);
    const started = Date.now();
    await failure(new OpaPolicyClient({ url, timeoutMs: 30_000 }).evaluate('a2a_access/allow', {}, { signal: controller.signal }));
    expect(Date.now() - started).toBeLessThan(10_000);
  });
});

describe('the same clients within a span while tracing is on (over the instrumented fetch)', () => {
  const traced = tracingOnInSpans();

  it('send the trace context and get the whole answer', async () => {
    const seen: Array<string | undefined> = [];
    const url = await serve((request, response) => {
      seen.push(request.headers.traceparent as string | undefined);
      request.resume();
      request.on('end', () => response.writeHead(200, { 'content-type': 'application/json' }).end('\uFEFF{"result":true}'));
    });
    await expect(traced(() => new OpaPolicyClient({ url }).evaluate('a2a_access/allow', {}))).resolves.toBe(true);
    expect(seen).toEqual([expect.stringMatching(/^00-[0-9a-f]{32}-[0-9a-f]{16}-0[01]$/)]);
  });

  it('refuse a redirect rather than ask elsewhere', async () => {
    const elsewhere: string[] = [];
    const other = await serve((request, response) => {
      elsewhere.push(request.url ?? '');
      response.writeHead(200, { 'content-type': 'application/json' }).end('{"allowed":true,"reason":"from elsewhere"}');
    });
    const url = await serve((_request, response) => response.writeHead(307, { location: `${other}/v1/a2a/validate` }).end());
    await failure(traced(() => new GuardianAccessChecker({ url }).check(INPUT)));
    await failure(new GuardianAccessChecker({ url }).check(INPUT));
    expect(elsewhere).toEqual([]);
  });

  it('refuse an answer larger than any decision, and say an answer broken off was cut off', async () => {
    const big = await serveOversized();
    expect((await failure(traced(() => new OpaPolicyClient({ url: big }).evaluate('a2a_access/allow', {})))).message).toContain(
      `the answer is over ${JSON_CALL_MAX_BYTES} bytes`,
    );
    const cut = await serveCutOff();
    expect((await failure(traced(() => new OpaPolicyClient({ url: cut }).evaluate('a2a_access/allow', {})))).message).toContain('the answer was cut off');
  });
});
