import { join } from 'node:path';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort, waitFor } from '../support/net.js';
import { REPO_ROOT, startService, type Service } from '../support/processes.js';

/**
 * Services load what a request needs when it first needs it (idle memory,
 * issue 40): each is started from the compiled CLI with a preloaded module
 * that, on SIGUSR2, writes the packages in Node's CommonJS cache (CommonJS
 * packages imported from ESM are there too). Run `npm run build` first.
 */
const REPORT_PACKAGES = `data:text/javascript,${encodeURIComponent(
  `import Module from 'node:module';
process.on('SIGUSR2', () => {
  const names = Object.keys(Module._cache).map((f) => /node_modules\\/((?:@[^/]+\\/)?[^/]+)\\/(?!.*node_modules)/.exec(f)?.[1]).filter(Boolean);
  process.stderr.write('\\nloaded-packages=' + JSON.stringify([...new Set(names)].sort()) + '\\n');
});`,
)}`;

async function loadedPackages(service: Service): Promise<string[]> {
  const before = service.output().length;
  service.process.kill('SIGUSR2');
  let line: string | undefined;
  await waitFor(async () => {
    line = /loaded-packages=(\[.*\])/.exec(service.output().slice(before))?.[1];
    return line !== undefined;
  }, `${service.name}'s list of loaded packages`);
  return JSON.parse(line!) as string[];
}

async function start(name: string, args: (port: number) => string[], env: Record<string, string> = {}): Promise<Service> {
  const port = await freePort();
  return startService({ name, args: args(port), port, env: { NODE_OPTIONS: `--import=${REPORT_PACKAGES}`, ...env }, timeoutMs: 60_000 });
}

describe('an idle service does not hold what only some requests need', () => {
  const services: Service[] = [];
  afterAll(async () => {
    await Promise.all(services.map((s) => s.stop()));
  });

  it('an agent with in-process sessions loads neither ioredis nor prom-client until /metrics is read', async () => {
    const agent = await start('agent', (port) => ['serve', 'agent', '--port', String(port)]);
    services.push(agent);
    const query = await fetch(`${agent.url}/query`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"query":"hello"}' });
    expect(query.status).toBe(200);
    const idle = await loadedPackages(agent);
    expect(idle).toContain('@opentelemetry/api'); // the report itself works (a CommonJS package every service loads)
    expect(idle).not.toContain('ioredis');
    expect(idle).not.toContain('prom-client');

    const metrics = await fetch(`${agent.url}/metrics`);
    expect(metrics.status).toBe(200);
    const text = await metrics.text();
    // A metric declared when its module was imported is listed although nothing used it yet; requests were counted without prom-client.
    expect(text).toContain('# TYPE sse_streams_active gauge');
    expect(text).toContain('http_server_request_duration_seconds_count{method="POST",route="/query",status_code="200"} 1');
    expect(text).toMatch(/http_server_request_duration_seconds_bucket\{le="\+Inf",method="GET",route="\/health",status_code="200"\} [1-9]/);
    // Valid Prometheus text, read by the reference parser.
    const families = new Map(parsePrometheusTextFormat(text).map((family) => [family.name, family]));
    expect(families.get('http_server_request_duration_seconds')?.type).toBe('HISTOGRAM');
    expect(families.get('sse_streams_active')?.type).toBe('GAUGE');
    expect(await loadedPackages(agent)).toContain('prom-client');
  }, 120_000);

  it('the policy engine serving the shipped policies loads no YAML, GraphQL or JSON Schema library, nor prom-client, until asked', async () => {
    const policy = await start('policy', (port) => [
      'policy',
      'serve',
      '--addr',
      `127.0.0.1:${port}`,
      '--no-watch',
      '--allow-writes',
      join(REPO_ROOT, 'policies'),
    ]);
    services.push(policy);
    const decision = await fetch(`${policy.url}/v1/data/a2a_access/allow`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"input":{}}',
    });
    expect(decision.status).toBe(200);
    const idle = await loadedPackages(policy);
    for (const name of ['yaml', 'graphql', 'ajv', 'prom-client', 'ioredis']) expect(idle).not.toContain(name);

    const upload = await fetch(`${policy.url}/v1/policies/lazy.rego`, {
      method: 'PUT',
      body: 'package lazy\n\nimport rego.v1\n\nvalid if yaml.is_valid("a: 1")\n\nmatches if {\n\t[ok, _] := json.match_schema({"a": 1}, {"type": "object"})\n\tok\n}\n',
    });
    expect(upload.status).toBe(200);
    const answer = await fetch(`${policy.url}/v1/data/lazy`).then((r) => r.json() as Promise<{ result: unknown }>);
    expect(answer.result).toEqual({ valid: true, matches: true });
    const metrics = await fetch(`${policy.url}/metrics`).then((r) => r.text());
    expect(metrics).toContain('policy_decisions_total{where="in_process"}');
    const used = await loadedPackages(policy);
    for (const name of ['yaml', 'ajv', 'prom-client']) expect(used).toContain(name);
  }, 120_000);
});
