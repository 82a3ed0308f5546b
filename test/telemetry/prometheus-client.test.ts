/**
 * The Prometheus text of the services, read by the official Python parser
 * (prometheus_client, PyPI; FRAMEWORK_PROMETHEUS_PYTHON names a venv with it,
 * .ci/run makes it): the policy engine and a Guardian as child processes,
 * each family parsed with its type, the request histogram's series complete
 * (`_bucket` with `le`, `_sum`, `_count`). Run `npm run build` first.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { POLICIES } from '../e2e/a2a-support.js';
import { freePort } from '../support/net.js';
import { startService, type Service } from '../support/processes.js';
import { venvPython } from '../support/python-venv.js';

const python = venvPython({
  env: 'FRAMEWORK_PROMETHEUS_PYTHON',
  setup: 'python3 -m venv .venv-prometheus && .venv-prometheus/bin/pip install prometheus-client==0.23.1',
});
const PARSER = fileURLToPath(new URL('./fixtures/parse_prometheus_text.py', import.meta.url));

interface Family {
  name: string;
  type: string;
  samples: [string, Record<string, string>, number][];
}

/** The families of `text` as prometheus_client reads them. */
function parse(text: string): Promise<Map<string, Family>> {
  return new Promise((resolve, reject) => {
    const child = execFile(python!, [PARSER], { timeout: 30_000, env: { PATH: process.env.PATH ?? '' } }, (error, stdout, stderr) => {
      if (error) reject(new Error(`prometheus_client refused the text: ${stderr}`));
      else resolve(new Map((JSON.parse(stdout) as Family[]).map((family) => [family.name, family])));
    });
    child.stdin!.end(text);
  });
}

describe.skipIf(!python)('/metrics read by prometheus_client', () => {
  let policy: Service;
  let guardian: Service;

  beforeAll(async () => {
    const policyPort = await freePort();
    policy = await startService({
      name: 'policy',
      port: policyPort,
      args: ['policy', 'serve', POLICIES, '--addr', `127.0.0.1:${policyPort}`, '--no-watch'],
      timeoutMs: 45_000,
    });
    const guardianPort = await freePort();
    guardian = await startService({
      name: 'guardian',
      port: guardianPort,
      args: ['serve', 'guardian', '--addr', `127.0.0.1:${guardianPort}`, '--opa-url', policy.url],
      timeoutMs: 45_000,
    });
  }, 100_000);

  afterAll(async () => {
    await guardian?.stop();
    await policy?.stop();
  });

  it('the Guardian: the request histogram per route and status, complete', async () => {
    const bad = await fetch(`${guardian.url}/v1/a2a/validate`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' });
    expect(bad.status).toBe(400);
    const families = await parse(await (await fetch(`${guardian.url}/metrics`)).text());
    const requests = families.get('http_server_request_duration_seconds');
    expect(requests?.type).toBe('histogram');
    const series = requests!.samples.filter(([, labels]) => labels.route === '/v1/a2a/validate' && labels.status_code === '400');
    expect(series.find(([name]) => name.endsWith('_count'))?.[2]).toBe(1);
    expect(series.find(([name, labels]) => name.endsWith('_bucket') && labels.le === '+Inf')?.[2]).toBe(1);
    expect(series.some(([name]) => name.endsWith('_sum'))).toBe(true);
  });

  it("the policy engine: OPA's families and the shared ones, in one text", async () => {
    const families = await parse(await (await fetch(`${policy.url}/metrics`)).text());
    // prometheus_client names a counter family without its `_total`.
    expect(families.get('http_request_duration_seconds')?.type).toBe('histogram');
    expect(families.get('policy_decisions')?.type).toBe('counter');
  });
});
