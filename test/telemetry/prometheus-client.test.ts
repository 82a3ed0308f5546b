/**
 * The Prometheus text of every service, read by the official Python parser
 * (prometheus_client, PyPI; FRAMEWORK_PROMETHEUS_PYTHON names a venv with it,
 * .ci/run makes it): the policy engine, a Guardian, the model runtime (with
 * the machine's all-minilm and SmolLM2), the memory service, the Semantic
 * Layer and an agent's front door (sessions in the real Redis), each a child
 * process; each family the observability issue names is parsed with its
 * type and labels, the request histogram's series complete (`_bucket` with
 * `le`, `_sum`, `_count`). Run `npm run build` first.
 */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { POLICIES } from '../e2e/a2a-support.js';
import { freePort } from '../support/net.js';
import { startService, type Service } from '../support/processes.js';
import { venvPython } from '../support/python-venv.js';
import { deleteKeys } from '../support/redis-keys.js';
import { MCPToolkit } from '../../runtime/semantic/mcp-toolkit.js';
import { DEFAULT_CHAT_MODEL } from '../../runtime/model/known-models.js';
import { defaultEmbeddingStore, defaultModelStore } from '../model/support/default-model.js';
import { tempProject } from '../semantic/support.js';
import { validationInput } from '../guardian/stack.js';

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

  it("the policy engine: OPA's families under OPA's names", async () => {
    const families = await parse(await (await fetch(`${policy.url}/metrics`)).text());
    // prometheus_client names a counter family without its `_total`.
    expect(families.get('http_request_duration_seconds')?.type).toBe('histogram');
    expect(families.get('policy_decisions')?.type).toBe('counter');
  });

  it('the Guardian: decisions by result and by who decided', async () => {
    const allowed = await fetch(`${guardian.url}/v1/a2a/validate`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(validationInput('orchestrator', 'planner')),
    });
    expect(allowed.status).toBe(200);
    const families = await parse(await (await fetch(`${guardian.url}/metrics`)).text());
    const decisions = families.get('decisions');
    expect(decisions?.type).toBe('counter');
    expect(decisions!.samples.length).toBeGreaterThan(0);
    for (const [, labels] of decisions!.samples) expect(Object.keys(labels).sort()).toEqual(['decided_by', 'result']);
  });
});

/** The samples of `family` named `name` (the family's own for counters and gauges: `<name>_total` for a counter). */
const samplesOf = (family: Family | undefined, name: string) => (family?.samples ?? []).filter(([sample]) => sample === name);

/** The family every service has: request durations (so rate and errors) per route, method and status. */
function expectShared(families: Map<string, Family>, route: string): void {
  const requests = families.get('http_server_request_duration_seconds');
  expect(requests?.type).toBe('histogram');
  const series = requests!.samples.filter(([, labels]) => labels.route === route);
  expect(series.length, `a series for ${route}`).toBeGreaterThan(0);
  for (const [, labels] of series) expect(labels).toMatchObject({ method: expect.any(String), status_code: expect.stringMatching(/^\d{3}$/) });
  expect(series.some(([name]) => name.endsWith('_count'))).toBe(true);
}

describe.skipIf(!python)('/metrics of the model runtime, memory, Semantic Layer and front door, read by prometheus_client', () => {
  const prefix = `fwtest:${randomUUID()}:`;
  const redis = new Redis('redis://127.0.0.1:6379');
  let model: Service;
  let memory: Service;
  let semantic: Service;
  let agent: Service;
  let project: Awaited<ReturnType<typeof tempProject>>;

  beforeAll(async () => {
    // The machine's models (pulled once; CI pulls them before the tests), served by `model serve` as a child process.
    await defaultModelStore();
    await defaultEmbeddingStore();
    project = await tempProject();
    const modelPort = await freePort();
    model = await startService({
      name: 'model',
      port: modelPort,
      args: ['model', 'serve', '--addr', `127.0.0.1:${modelPort}`],
      healthPath: '/api/version',
      timeoutMs: 60_000,
    });
    const [memoryPort, semanticPort, agentPort] = await Promise.all([freePort(), freePort(), freePort()]);
    [memory, semantic, agent] = await Promise.all([
      startService({
        name: 'memory',
        port: memoryPort,
        args: ['serve', 'memory', '--addr', `127.0.0.1:${memoryPort}`, '--kv-url', 'redis://127.0.0.1:6379', '--ollama-host', model.url],
        env: { KV_PREFIX: `${prefix}memory:` },
        timeoutMs: 60_000,
      }),
      startService({
        name: 'semantic-layer',
        port: semanticPort,
        args: ['serve', 'semantic-layer', '--addr', `127.0.0.1:${semanticPort}`, '--cards', project.cardsDir, '--store-dir', project.storeDir],
        env: { OLLAMA_HOST: model.url },
        timeoutMs: 120_000,
      }),
      startService({
        name: 'agent',
        port: agentPort,
        args: ['serve', 'agent', '--port', String(agentPort)],
        env: { SESSION_BACKEND: 'kv', SESSION_KV_URL: 'redis://127.0.0.1:6379', KV_PREFIX: `${prefix}agent:` },
        timeoutMs: 60_000,
      }),
    ]);
  }, 300_000);

  afterAll(async () => {
    await Promise.all([agent?.stop(), semantic?.stop(), memory?.stop()]);
    await model?.stop();
    await project?.remove();
    await deleteKeys(redis, prefix);
    await redis.quit();
  });

  it('the model runtime: tokens counted (tokens/s is their rate) and the queue depth', async () => {
    const generated = await fetch(`${model.url}/api/generate`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ model: DEFAULT_CHAT_MODEL, prompt: 'Say hi.', stream: false, options: { num_predict: 3, temperature: 0 } }),
    });
    expect(generated.status).toBe(200);
    const { eval_count: outputTokens } = (await generated.json()) as { eval_count: number };
    const families = await parse(await (await fetch(`${model.url}/metrics`)).text());
    expectShared(families, '/api/generate');
    expect(families.get('model_output_tokens')?.type).toBe('counter');
    expect(samplesOf(families.get('model_output_tokens'), 'model_output_tokens_total')[0]?.[2]).toBeGreaterThanOrEqual(outputTokens);
    expect(families.get('model_prompt_tokens')?.type).toBe('counter');
    expect(samplesOf(families.get('model_prompt_tokens'), 'model_prompt_tokens_total')[0]?.[2]).toBeGreaterThan(0);
    expect(families.get('model_queue_depth')?.type).toBe('gauge');
    expect(samplesOf(families.get('model_queue_depth'), 'model_queue_depth')[0]?.[2]).toBe(0);
  }, 180_000);

  it('the memory service: the records it holds', async () => {
    const families = await parse(await (await fetch(`${memory.url}/metrics`)).text());
    expect(families.get('memory_records')?.type).toBe('gauge');
    expect(samplesOf(families.get('memory_records'), 'memory_records')[0]?.[2]).toBe(0);
    expectShared(families, '/health');
  });

  it('the Semantic Layer: search latency by store and the index size by collection', async () => {
    const toolkit = new MCPToolkit({ url: `${semantic.url}/mcp` });
    try {
      expect((await toolkit.findAgent('weather forecast for a city'))?.name).toBe('weather');
    } finally {
      await toolkit.close();
    }
    const families = await parse(await (await fetch(`${semantic.url}/metrics`)).text());
    const searches = families.get('vector_search_duration_seconds');
    expect(searches?.type).toBe('histogram');
    const counts = searches!.samples.filter(([name]) => name === 'vector_search_duration_seconds_count');
    expect(counts.length).toBeGreaterThan(0);
    for (const [, labels] of counts) expect(Object.keys(labels)).toEqual(['store']);
    expect(counts.reduce((sum, [, , value]) => sum + value, 0)).toBeGreaterThanOrEqual(1);
    const index = families.get('vector_index_records');
    expect(index?.type).toBe('gauge');
    expect(index!.samples.some(([, labels, value]) => typeof labels.collection === 'string' && value === 3)).toBe(true);
    expectShared(families, '/mcp');
  }, 120_000);

  it('the front door: sessions in Redis and the waits for a person, by kind', async () => {
    const started = await Promise.all(
      [0, 1].map(() => fetch(`${agent.url}/session/start`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' })),
    );
    expect(started.map((response) => response.status)).toEqual([200, 200]);
    const families = await parse(await (await fetch(`${agent.url}/metrics`)).text());
    expect(families.get('sessions_active')?.type).toBe('gauge');
    expect(families.get('sessions_active')!.samples).toEqual([['sessions_active', { backend: 'kv' }, 2]]);
    const waits = families.get('approvals_pending');
    expect(waits?.type).toBe('gauge');
    expect(new Map(waits!.samples.map(([, labels, value]) => [labels.kind, value]))).toEqual(
      new Map([
        ['tool_call', 0],
        ['plan', 0],
      ]),
    );
    expectShared(families, '/session/start');
    expect(families.get('sse_streams_active')?.type).toBe('gauge');
  });
});
