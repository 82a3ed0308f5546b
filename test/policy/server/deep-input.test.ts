/**
 * `policy serve` over a real HTTP server with inputs and documents nested as
 * deep as OPA takes them (issue 35): 9,999 levels are evaluated, answered,
 * stored and logged; a body past Go's 10,000 is a 400 with Go's words (the
 * server refused anything past 256 levels before, and deeper values
 * exhausted JS's stack in the evaluator: a 500).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPolicyServer, type RunningPolicyServer } from '../../../runtime/policy/server/start-policy-server.js';

const POLICY = `package p

echo := input
same := input == input
walked := count([1 | walk(input, [p, v])])
keyed := {input: 1}
doc := data.stored
`;

const array = (n: number): string => '['.repeat(n) + ']'.repeat(n);
const object = (n: number): string => '{"a":'.repeat(n) + '1' + '}'.repeat(n);

let dir: string;
let server: RunningPolicyServer;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fw-deep-input-'));
  writeFileSync(join(dir, 'p.rego'), POLICY);
  server = await startPolicyServer({ dir, port: 0, watch: false, allowWrites: true, decisionLog: join(dir, 'decisions.log') });
});
afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

const post = (path: string, body: string): Promise<Response> => fetch(`${server.url}${path}`, { method: 'POST', body });

/** The answer's text without the `decision_id` the decision log adds. */
const answer = async (response: Response | Promise<Response>): Promise<string> => (await (await response).text()).replace(/^\{"decision_id":"[^"]*",/, '{');

/** Compares texts some tens of kilobytes long without printing them whole. */
function expectText(actual: string, expected: string): void {
  expect(actual === expected, `${actual.slice(0, 80)}… (${actual.length} characters) against ${expected.slice(0, 80)}… (${expected.length})`).toBe(true);
}

describe('policy serve with values nested 10,000 deep', () => {
  it('evaluates an input 9,999 deep (a body 10,000 deep) and writes the answer back whole', async () => {
    for (const deep of [array(9_999), object(9_999)]) {
      const echo = await post('/v1/data/p/echo', `{"input":${deep}}`);
      expect(echo.status).toBe(200);
      expectText(await answer(echo), `{"result":${deep}}`);
      expect(await answer(post('/v1/data/p/same', `{"input":${deep}}`))).toBe('{"result":true}');
      // A key that is a deep value is written as its JSON text, as OPA writes it.
      expectText(await answer(post('/v1/data/p/keyed', `{"input":${deep}}`)), `{"result":{${JSON.stringify(deep)}:1}}`);
    }
  });

  it('walks an input 3,000 deep (walk makes a path per node: its cost grows with the square of the depth)', async () => {
    expect(await answer(post('/v1/data/p/walked', `{"input":${array(3_000)}}`))).toBe('{"result":3000}');
    expect(await answer(post('/v1/data/p/walked', `{"input":${object(3_000)}}`))).toBe('{"result":3001}');
  });

  it('takes the whole body as input 10,000 deep on the default decision route and the Query API', async () => {
    const query = await post('/v1/query', `{"query":"x := count([1 | walk(input, [p, v])])","input":${array(9_999)}}`);
    expect(query.status).toBe(200);
    expect(await query.text()).toBe('{"result":[{"x":9999}]}');
    // A binding as deep as the input: the answer nests deeper than the body (result, row, binding), and is written whole.
    const echo = await post('/v1/query', `{"query":"x := [input]","input":${array(9_999)}}`);
    expectText(await echo.text(), `{"result":[{"x":[${array(9_999)}]}]}`);
    const get = await fetch(`${server.url}/v1/data/p/same?input=${array(3_000)}`);
    expect(await answer(get)).toBe('{"result":true}');
  });

  it('refuses a body past 10,000 deep with 400 and Go’s words, never a 500, and keeps answering', async () => {
    for (const [deep, bracket] of [
      // The body is {"input": ...}: one level more than the input.
      [array(10_000), '['],
      [object(10_000), '{'],
      [array(100_000), '['],
    ] as const) {
      const response = await post('/v1/data/p/echo', `{"input":${deep}}`);
      expect(response.status).toBe(400);
      const body = (await response.json()) as { message: string };
      expect(body.message).toContain(`invalid character '${bracket}' exceeded max depth`);
    }
    const put = await fetch(`${server.url}/v1/data/stored`, { method: 'PUT', body: array(10_001) });
    expect(put.status).toBe(400);
    expect(await put.text()).toContain('exceeded max depth');
    expect((await fetch(`${server.url}/health`)).status).toBe(200);
  });

  it('stores a document 9,999 deep through the Data API, evaluates over it and logs deep decisions', async () => {
    const deep = object(9_999);
    const put = await fetch(`${server.url}/v1/data/stored`, { method: 'PUT', body: deep });
    expect(put.status).toBe(204);
    expectText(await answer(fetch(`${server.url}/v1/data/stored`)), `{"result":${deep}}`);
    expectText(await answer(fetch(`${server.url}/v1/data/p/doc`)), `{"result":${deep}}`);
    // Below a path: the stored tree nests deeper than any one body, as OPA's store takes it.
    const below = await fetch(`${server.url}/v1/data/stored2/x/y`, { method: 'PUT', body: deep });
    expect(below.status).toBe(204);
    expectText(await answer(fetch(`${server.url}/v1/data/stored2`)), `{"result":{"x":{"y":${deep}}}}`);
    const logged = readFileSync(join(dir, 'decisions.log'), 'utf8')
      .split('\n')
      .filter((line) => line.includes(`"input":${array(9_999)}`));
    expect(logged.length).toBeGreaterThan(0);
  });
});
