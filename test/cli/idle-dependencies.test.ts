import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { afterAll, describe, expect, it } from 'vitest';
import { LanceVectorStore } from '../../runtime/semantic/lance-vector-store.js';
import { freePort, waitFor } from '../support/net.js';
import { REPO_ROOT, startService, type Service } from '../support/processes.js';
import { REDIS_URL, redisScope } from '../support/redis-scope.js';

/**
 * Services load what a request needs when it first needs it (idle memory,
 * issue 40): each is started from the compiled CLI with a preloaded module
 * that, on SIGUSR2, writes the packages it has loaded: those in Node's
 * CommonJS cache (CommonJS packages imported from ESM are there too) and the
 * ES modules a loader hook saw (the MCP SDK and Apache Arrow are ESM only).
 * Run `npm run build` first.
 */
const ESM_HOOK = `data:text/javascript,${encodeURIComponent(
  `let port;
export function initialize(data) { port = data.port; }
export async function load(url, context, next) { port.postMessage(url); return next(url, context); }`,
)}`;
const REPORT_PACKAGES = `data:text/javascript,${encodeURIComponent(
  `import Module, { register } from 'node:module';
import { MessageChannel } from 'node:worker_threads';
const esm = new Set();
const { port1, port2 } = new MessageChannel();
port1.on('message', (url) => esm.add(url));
port1.unref();
register(${JSON.stringify(ESM_HOOK)}, { data: { port: port2 }, transferList: [port2] });
process.on('SIGUSR2', () => {
  const names = [...Object.keys(Module._cache), ...esm].map((f) => /node_modules\\/((?:@[^/]+\\/)?[^/]+)\\/(?!.*node_modules)/.exec(f)?.[1]).filter(Boolean);
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

async function start(name: string, args: (port: number) => string[], env: Record<string, string> = {}, healthPath?: string): Promise<Service> {
  const port = await freePort();
  return startService({
    name,
    args: args(port),
    port,
    env: { NODE_OPTIONS: `--import=${REPORT_PACKAGES}`, ...env },
    timeoutMs: 60_000,
    ...(healthPath ? { healthPath } : {}),
  });
}

/** An MCP `initialize` request, which opens a session (and loads the MCP SDK). */
const mcpInitialize = (url: string) =>
  fetch(`${url}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'idle-dependencies', version: '1.0.0' } },
    }),
  });

const scope = redisScope();

describe('an idle service does not hold what only some requests need', () => {
  const services: Service[] = [];
  const dirs: string[] = [];
  afterAll(async () => {
    await Promise.all(services.map((s) => s.stop()));
    await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
  });

  // Its /health is 503 (degraded) without a model runtime, so the start waits for /metrics instead.
  const startSemanticLayer = async (dir: string) => {
    const layer = await start(
      'semantic-layer',
      (port) => ['serve', 'semantic-layer', '--addr', `127.0.0.1:${port}`, '--store-dir', join(dir, 'store'), '--cards', join(dir, 'cards')],
      { OLLAMA_HOST: 'http://127.0.0.1:9' },
      '/metrics',
    );
    services.push(layer);
    return layer;
  };

  it('the Semantic Layer opens neither LanceDB nor the MCP SDK until a request needs them, and its health stays truthful', async () => {
    const empty = await mkdtemp(join(tmpdir(), 'idle-semantic-'));
    dirs.push(empty);
    const layer = await startSemanticLayer(empty);
    const health = await fetch(`${layer.url}/health`);
    expect(health.status).toBe(503);
    expect(await health.json()).toMatchObject({ status: 'degraded', vectorized_cards: 0 });
    const idle = await loadedPackages(layer);
    expect(idle).toContain('@hono/node-server'); // the report itself works (the CLI's oclif is bundled, so not a package here)
    for (const name of ['@lancedb/lancedb', 'apache-arrow', '@modelcontextprotocol/sdk', 'ajv']) expect(idle).not.toContain(name);

    expect((await mcpInitialize(layer.url)).status).toBe(200);
    const afterMcp = await loadedPackages(layer);
    expect(afterMcp).toContain('@modelcontextprotocol/sdk');
    expect(afterMcp).toContain('ajv'); // its validator
    expect(afterMcp).not.toContain('@lancedb/lancedb');

    // A store that already holds a card's vector (a restart): health opens it and reports the card.
    const stored = await mkdtemp(join(tmpdir(), 'idle-semantic-'));
    dirs.push(stored);
    const store = await LanceVectorStore.open({ dir: join(stored, 'store') });
    await store.upsert('agent_cards', [{ id: 'c1', vector: [0.6, 0.8], content: '{"name":"planner"}', metadata: { name: 'planner' }, uri: '' }]);
    await store.close();
    const restarted = await startSemanticLayer(stored);
    const healthy = await fetch(`${restarted.url}/health`);
    expect(await healthy.json()).toMatchObject({ status: 'ok', vectorized_cards: 1 });
    expect(healthy.status).toBe(200);
    const opened = await loadedPackages(restarted);
    expect(opened).toContain('@lancedb/lancedb');
    expect(opened).toContain('apache-arrow');
  }, 120_000);

  it("the memory service loads the MCP SDK at the first MCP session, and the model runtime's client at the first embedding", async () => {
    const indexDir = await mkdtemp(join(tmpdir(), 'idle-memory-'));
    dirs.push(indexDir);
    const memory = await start(
      'memory',
      (port) => ['serve', 'memory', '--addr', `127.0.0.1:${port}`, '--kv-url', REDIS_URL, '--ollama-host', 'http://127.0.0.1:9'],
      { KV_PREFIX: scope.prefix, MEMORY_INDEX_DIR: indexDir },
      '/v1/health',
    );
    services.push(memory);
    const idle = await loadedPackages(memory);
    expect(idle).toContain('ioredis'); // its store
    expect(idle).not.toContain('@modelcontextprotocol/sdk');
    expect(idle).not.toContain('ajv');
    expect(idle).not.toContain('@opentelemetry/api'); // tracing is off
    // The ollama client imports a fetch polyfill that loads Node's fetch implementation (about 3 MB idle).
    expect(idle).not.toContain('ollama');
    expect(idle).not.toContain('whatwg-fetch');
    // Health and searches are answered below Hono: the app's HTTP adapter (which loads Node's fetch) is not loaded yet.
    expect(idle).not.toContain('@hono/node-server');
    // The first requests for the app come together while the adapter loads: each gets its answer.
    const listed = await Promise.all(Array.from({ length: 5 }, () => fetch(`${memory.url}/v1/working-memory/`)));
    expect(listed.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    for (const r of listed) expect(await r.json()).toMatchObject({ sessions: [] });
    expect(await loadedPackages(memory)).toContain('@hono/node-server');

    expect((await mcpInitialize(memory.url)).status).toBe(200);
    const afterMcp = await loadedPackages(memory);
    expect(afterMcp).toContain('@modelcontextprotocol/sdk');
    expect(afterMcp).toContain('ajv');

    // A search embeds its text: no model runtime answers at this address, so it fails, and the client was loaded for it.
    const search = await fetch(`${memory.url}/v1/long-term-memory/search`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"text":"what does the user drink?"}',
    });
    expect(search.status).toBe(503);
    expect(await search.json()).toMatchObject({ code: 'model_runtime_unavailable' });
    expect(await loadedPackages(memory)).toContain('ollama');
  }, 120_000);

  it("an agent with in-process sessions loads neither Hono's Node adapter until a request needs the app, nor ioredis nor prom-client until /metrics is read", async () => {
    const agent = await start('agent', (port) => ['serve', 'agent', '--port', String(port)]);
    services.push(agent);
    // Polled for its health only (the start waited for GET /health): answered below Hono, so the app's HTTP adapter,
    // which loads Node's fetch implementation, is not loaded yet.
    expect(await loadedPackages(agent)).not.toContain('@hono/node-server');
    const query = await fetch(`${agent.url}/query`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"query":"hello"}' });
    expect(query.status).toBe(200);
    const idle = await loadedPackages(agent);
    expect(idle).toContain('@hono/node-server'); // the report itself works
    expect(idle).not.toContain('@opentelemetry/api'); // tracing is off: the instrumentation loads no API
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
    for (const name of ['yaml', 'prom-client']) expect(used).toContain(name);
    // A schema is checked by gojsonschema's walk (json-schema-go-errors.ts): ajv is loaded only for a `format`
    // or a schema that walk cannot follow, and this one has neither.
    expect(used).not.toContain('ajv');
  }, 120_000);
});
