import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPolicyServer, type RunningPolicyServer } from '../../../runtime/policy/server/start-policy-server.js';
import { oracleDir } from '../differential/differ.js';

// OPA writes its answers with Go's encoder: `<`, `>`, `&`, U+2028 and U+2029 as \u escapes, and object keys that are not
// strings as their own (escaped) JSON text. The bytes of our answers are compared with OPA's own (the pylib oracle).

const here = dirname(fileURLToPath(import.meta.url));
const POLICY = 'package p\n\nhtml := {"c": "x&y<z>\u2028\u2029", ["a&b"]: 1, {"k": "<"}: [">"]}\n';
const EXPECTED = String.raw`{"[\"a\\u0026b\"]":1,"c":"x\u0026y\u003cz\u003e\u2028\u2029","{\"k\":\"\\u003c\"}":["\u003e"]}`;

let dir: string;
let server: RunningPolicyServer;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fw-opa-json-text-'));
  writeFileSync(join(dir, 'p.rego'), POLICY);
  server = await startPolicyServer({ dir, port: 0, watch: false });
});
afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('JSON text of the answers, as OPA writes it', () => {
  it('escapes HTML characters and writes non-string keys as escaped JSON text (POST, the direct route)', async () => {
    const response = await fetch(`${server.url}/v1/data/p/html`, { method: 'POST', body: '{}' });
    expect(await response.text()).toBe(`{"result":${EXPECTED}}`);
  });

  it('does the same on the routes of the app (GET, ?pretty, the Query API, errors)', async () => {
    expect(await (await fetch(`${server.url}/v1/data/p/html`)).text()).toBe(`{"result":${EXPECTED}}`);
    const query = await fetch(`${server.url}/v1/query?q=${encodeURIComponent('x := "<&>"')}`);
    expect(await query.text()).toBe('{"result":[{"x":"\\u003c\\u0026\\u003e"}]}');
    const error = await fetch(`${server.url}/v1/query?q=${encodeURIComponent('x := <&>')}`);
    expect(error.status).toBe(400);
    expect(await error.text()).not.toMatch(/[<>&]/);
    const pretty = await (await fetch(`${server.url}/v1/data/p/html?pretty`)).text();
    expect(JSON.parse(pretty)).toEqual(JSON.parse(`{"result":${EXPECTED}}`));
    expect(pretty).not.toMatch(/[<>&\u2028\u2029]/);
  });

  const pylib = oracleDir();
  it.skipIf(pylib === undefined)('writes the same bytes as OPA v1.20.2 (set FRAMEWORK_OPA_PYLIB to compare)', () => {
    const group = JSON.stringify({ modules: [['p.rego', POLICY]], data: '{}', evals: [{ query: 'x = data.p.html', input: null }] });
    const proc = spawnSync(process.env.FRAMEWORK_OPA_PYTHON ?? 'python3', [join(here, '..', 'differential', 'opa_oracle.py'), pylib!], {
      input: `${group}\n`,
      encoding: 'utf8',
    });
    expect(proc.status, proc.stderr).toBe(0);
    expect(proc.stdout).toContain(`"bindings":{"x":${EXPECTED}}`);
  });
});
