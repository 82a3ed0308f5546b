import { generateKeyPairSync } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultModelStore } from '../model/support/default-model.js';
import { linkedStore } from '../model/support/linked-store.js';
import { startModelServer, type RunningModelServer } from '../../runtime/model/start-model-server.js';
import { currentPlatform, nativeRuntimeDir, nativeRuntimePackages } from '../../runtime/core/native-runtime.js';
import { TraceStore } from '../../runtime/telemetry/trace-store.js';
import { runCli, type CliResult } from '../support/cli.js';
import { freePort } from '../support/net.js';
import { REPO_ROOT } from '../support/processes.js';
import type { RunningAgent } from '../../runtime/agent/run-agent.js';
import { createFixtureAgent } from '../http/agent-fixture.js';
import { runAgent } from '../../runtime/agent/run-agent.js';

/**
 * Every command, run with --json, prints exactly one JSON document on
 * standard output (a `serve` command: JSON lines, `{"event":"listening"}`
 * first) and nothing else; a failure is `{"error":{"code","message"}}` with a
 * non-zero exit code. The commands are listed from the built CLI, so a new
 * command without a case here fails the coverage test.
 */

const COMMANDS_DIR = join(REPO_ROOT, 'dist/cli/commands');

// oclif's own help command from its plugin, which the build bundles beside ours (scripts/bundle-cli.mjs).
const OCLIF_COMMANDS = new Set(['help']);

/** `model list`, `serve agent`, `doctor`, ... from dist/cli/commands. */
function builtCommands(dir = COMMANDS_DIR): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((entry) => {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) return builtCommands(path);
      return entry.name.endsWith('.js') ? [relative(COMMANDS_DIR, path).slice(0, -'.js'.length).split('/').join(' ')] : [];
    })
    .filter((command) => !OCLIF_COMMANDS.has(command))
    .sort();
}

const temp = (prefix: string) => mkdtempSync(join(tmpdir(), `fw-json-${prefix}-`));

type Doc = Record<string, unknown>;

/** A case: the arguments (without --json), its environment, and for streams the line to stop at. */
interface Case {
  args: () => Promise<string[]> | string[];
  env?: () => Record<string, string>;
  /** JSON lines until this matches, then SIGTERM. */
  stopWhen?: RegExp;
  /** Extra checks on the parsed document. */
  check?: (doc: Doc) => void;
  /** Extra checks on the parsed lines of a stream; default: a `serve` stream. */
  checkStream?: (docs: Doc[]) => void;
  /** Prints JSON lines and ends by itself (`chat`). */
  lines?: boolean;
}

let closedUrl: string;
let taken: Server;
let takenPort: number;
/** A one-service project (the policy engine) running detached, for status, logs and down. */
let detached: string;
/** An echo agent's front door, for `chat`. */
let agent: RunningAgent;
/** A model server over a store of its own (the real SmolLM2 linked in), for the `model` commands that talk to one. */
let modelServer: RunningModelServer;
let removeModelStore: (() => Promise<void>) | undefined;

beforeAll(async () => {
  const fixture = createFixtureAgent();
  agent = await runAgent(fixture.core, fixture.agent, { port: 0, a2a: false, env: { AGENT_NAME: 'fixture', LOG_LEVEL: 'error' } });
  await defaultModelStore(); // `model pull smollm2` is then a no-op.
  const linked = await linkedStore();
  removeModelStore = linked.remove;
  modelServer = await startModelServer({ store: linked.store, host: '127.0.0.1', port: 0 });
  await warmShortModel();
  closedUrl = `http://127.0.0.1:${await freePort()}`;
  taken = createServer();
  await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
  takenPort = (taken.address() as { port: number }).port;
  // A free port can be taken by a parallel test before `up` binds it: try again with new ports then.
  let up;
  for (let attempt = 0; attempt < 3; attempt += 1) {
    detached = await tinyProject();
    up = await runCli(['up', '--detach', '--dir', detached, '--json'], { timeoutMs: 60_000 });
    if (up.code === 0 || !up.stdout.includes('"port_in_use"')) break;
  }
  expect(up?.code, `${up?.stdout}${up?.stderr}`).toBe(0);
}, 300_000);

afterAll(async () => {
  await agent?.close();
  await modelServer?.close();
  await removeModelStore?.();
  if (detached) await runCli(['down', '--dir', detached]);
  await new Promise<void>((resolve) => taken?.close(() => resolve()));
});

const STOP_AT_LISTENING = /\{"event":"listening"/;

/** `{"event":"listening","url"}` first, `{url, stopped: true}` last. */
function serveStream(docs: Doc[]): void {
  expect(docs[0]).toEqual({ event: 'listening', url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/) });
  expect(docs.at(-1)).toEqual({ url: docs[0]!.url, stopped: true });
}

/** A project whose only service is the policy engine on a free port (light enough to start in tests). */
async function tinyProject(): Promise<string> {
  const dir = temp('tiny');
  const port = await freePort();
  mkdirSync(join(dir, '.framework'));
  const service = { name: 'policy', kind: 'policy', port, args: ['policy', 'serve', join(REPO_ROOT, 'policies'), '--addr', `127.0.0.1:${port}`] };
  writeFileSync(join(dir, '.framework', 'project.json'), JSON.stringify({ name: 'tiny', toolkitVersion: '0.1.0', services: [service] }));
  return dir;
}

function cardsAndStore(): string[] {
  const dir = temp('semantic');
  mkdirSync(join(dir, 'cards'));
  return ['--cards', join(dir, 'cards'), '--store-dir', join(dir, 'store')];
}

async function newProject(): Promise<string> {
  const dir = join(temp('project'), 'demo');
  const made = await runCli(['create', 'project', 'demo', '--dir', dir, '--json']);
  expect(made.code, made.stdout + made.stderr).toBe(0);
  return dir;
}

/** An EC key pair and a signed and an unsigned A2A card, for `a2a card sign|verify`. */
function cardFiles(): { key: string; pub: string; card: string; signed: string } {
  const dir = temp('card');
  const pair = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const write = (name: string, text: string) => (writeFileSync(join(dir, name), text), join(dir, name));
  const card = {
    name: 'x',
    description: 'd',
    version: '1.0.0',
    supportedInterfaces: [{ url: 'http://127.0.0.1:1/', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
  };
  return {
    key: write('key.pem', pair.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString()),
    pub: write('key.pub.pem', pair.publicKey.export({ type: 'spki', format: 'pem' }).toString()),
    card: write('card.json', JSON.stringify(card)),
    signed: join(dir, 'signed.json'),
  };
}

async function signedCard(): Promise<{ pub: string; signed: string }> {
  const files = cardFiles();
  const made = await runCli(['a2a', 'card', 'sign', '--card', files.card, '--key', files.key, '--kid', 'k', '--out', files.signed, '--json']);
  expect(made.code, made.stdout + made.stderr).toBe(0);
  return files;
}

/** A directory with a file `policy fmt` would change and one that does not parse. */
function unformattedPolicies(): string {
  const dir = temp('fmt');
  writeFileSync(join(dir, 'unformatted.rego'), 'package a\nallow if { input.x; input.y }\n');
  writeFileSync(join(dir, 'unparsable.rego'), 'package a\nallow if {\n');
  return dir;
}

function brokenPolicies(): string {
  const dir = temp('policies');
  writeFileSync(join(dir, 'bad.rego'), 'package bad\n\nimport rego.v1\n\nallow if { x > 1 }\n');
  return dir;
}

/** A model on the test's model server, made from SmolLM2 through its API (short answers for `model run`). */
async function serverModel(name: string, parameters: Record<string, unknown> = {}): Promise<string> {
  const response = await fetch(`${modelServer.url}/api/create`, {
    method: 'POST',
    body: JSON.stringify({ model: name, from: 'smollm2', parameters, stream: false }),
  });
  expect(response.status, await response.clone().text()).toBe(200);
  return name;
}

const onModelServer = () => ({ OLLAMA_HOST: modelServer.url });

/** The model `model run` chats with: four tokens an answer. */
const SHORT_MODEL = 'json-short';

/**
 * Makes SHORT_MODEL and loads it on the test's model server, kept loaded
 * (keep_alive -1): node-llama-cpp's import and native library, the weights
 * and a context, which the first chat loads in this test process. On the
 * `model run` case's own clock that took 5 s at load 9 and passed the 20 s
 * test timeout on a loaded machine; `beforeAll` has the time. The case still
 * chats through the CLI (a 4-token generation).
 */
async function warmShortModel(): Promise<void> {
  await serverModel(SHORT_MODEL, { num_predict: 4, temperature: 0 });
  const response = await fetch(`${modelServer.url}/api/generate`, {
    method: 'POST',
    body: JSON.stringify({ model: SHORT_MODEL, prompt: 'Say hello.', stream: false, keep_alive: -1 }),
  });
  expect(response.status, await response.clone().text()).toBe(200);
  expect(await response.json()).toMatchObject({ done: true, eval_count: 4 });
}

/** A runtime folder holding (the manifests of) everything `runtime install` would put there: the command has nothing to do. */
function installedRuntime(): string {
  const base = temp('runtimes');
  const dir = nativeRuntimeDir({ env: { FRAMEWORK_RUNTIMES_DIR: base } });
  for (const [pkg, version] of Object.entries(nativeRuntimePackages(currentPlatform()))) {
    mkdirSync(join(dir, 'node_modules', pkg), { recursive: true });
    writeFileSync(join(dir, 'node_modules', pkg, 'package.json'), JSON.stringify({ name: pkg, version }));
  }
  return base;
}

/** A project folder whose local trace store holds one trace of two spans, as `up`'s receiver writes them. */
function projectWithTrace(): string {
  const root = temp('trace');
  const span = { kind: 'SERVER', status: 'ok' as const, attributes: {}, events: [], links: [] };
  new TraceStore({ root }).append([
    { ...span, traceId: 'a'.repeat(32), spanId: '1'.repeat(16), service: 'planner', name: 'POST /stream', startMs: 1_000, durationMs: 12 },
    {
      ...span,
      traceId: 'a'.repeat(32),
      spanId: '2'.repeat(16),
      parentSpanId: '1'.repeat(16),
      service: 'guardian',
      name: 'POST /v1/a2a/validate',
      startMs: 1_002,
      durationMs: 3,
    },
  ]);
  return root;
}

/** A success for every command. */
const SUCCESS: Record<string, Case> = {
  trace: {
    args: () => ['trace', '--dir', projectWithTrace()],
    check: (doc) => expect(JSON.stringify(doc)).toContain('a'.repeat(32)),
  },
  'a2a card sign': {
    args: () => {
      const files = cardFiles();
      return ['a2a', 'card', 'sign', '--card', files.card, '--key', files.key, '--kid', 'k1'];
    },
    check: (doc) => expect(doc.signatures).toBe(1),
  },
  'a2a card verify': {
    args: async () => {
      const files = await signedCard();
      return ['a2a', 'card', 'verify', '--card', files.signed, '--key', files.pub];
    },
    check: (doc) => expect(doc).toEqual({ ok: true, name: 'x', keyIds: ['k'] }),
  },
  chat: {
    args: () => ['chat', agent.url, '--message', 'hello'],
    env: () => ({ XDG_CONFIG_HOME: temp('chat-config') }),
    lines: true,
    checkStream: (docs) => {
      expect(docs.map((d) => d.event)).toEqual(['session', 'result', 'done']);
      expect(docs.at(-1)).toMatchObject({ event: 'done', data: { status: 'ok', agent: agent.url } });
    },
  },
  doctor: { args: () => ['doctor'], env: () => ({ KV_URL: 'redis://127.0.0.1:6379' }), check: (doc) => expect(doc.ok).toBe(true) },
  version: {
    args: () => ['version', '--verbose'],
    check: (doc) => expect(doc).toMatchObject({ cliVersion: expect.stringMatching(/^framework_core\/\d/), nodeVersion: `node-${process.version}` }),
  },
  'model list': { args: () => ['model', 'list'], env: () => ({ FRAMEWORK_MODELS_DIR: temp('models') }), check: (doc) => expect(doc.models).toEqual([]) },
  'model pull': { args: () => ['model', 'pull', 'smollm2'], env: () => ({ OLLAMA_HOST: closedUrl }), check: (doc) => expect(doc.name).toBe('smollm2') },
  'model serve': { args: () => ['model', 'serve', '--addr', '127.0.0.1:0'], stopWhen: STOP_AT_LISTENING },
  'model show': { args: () => ['model', 'show', 'smollm2'], env: onModelServer, check: (doc) => expect(doc.details).toMatchObject({ format: 'gguf' }) },
  'model cp': {
    args: () => ['model', 'cp', 'smollm2', 'json-copy'],
    env: onModelServer,
    check: (doc) => expect(doc).toEqual({ source: 'smollm2', destination: 'json-copy' }),
  },
  'model rm': {
    args: async () => ['model', 'rm', await serverModel('json-doomed')],
    env: onModelServer,
    check: (doc) => expect(doc.deleted).toEqual(['json-doomed']),
  },
  'model ps': { args: () => ['model', 'ps'], env: onModelServer, check: (doc) => expect(doc.models).toBeInstanceOf(Array) },
  'model create': {
    args: () => {
      const file = join(temp('modelfile'), 'Modelfile');
      writeFileSync(file, 'FROM smollm2\nSYSTEM Answer in one word.\nPARAMETER num_predict 8\n');
      return ['model', 'create', 'json-created', '-f', file];
    },
    env: onModelServer,
    check: (doc) => expect(doc).toMatchObject({ model: 'json-created', statuses: expect.arrayContaining(['success']) }),
  },
  'model run': {
    // Made and loaded by beforeAll (warmShortModel): making it again here would unload it.
    args: () => ['model', 'run', SHORT_MODEL, 'Say hello.'],
    env: onModelServer,
    check: (doc) => expect(doc).toMatchObject({ model: SHORT_MODEL, response: expect.any(String), eval_count: 4 }),
  },
  'runtime install': {
    args: () => ['runtime', 'install'],
    env: () => ({ FRAMEWORK_RUNTIMES_DIR: installedRuntime() }),
    check: (doc) => expect(doc).toMatchObject({ installed: false, packages: nativeRuntimePackages(currentPlatform()) }),
  },
  'policy check': { args: () => ['policy', 'check', 'policies'], check: (doc) => expect(doc.ok).toBe(true) },
  'policy fmt': { args: () => ['policy', 'fmt', '--check', 'policies'], check: (doc) => expect(doc).toMatchObject({ ok: true, changed: [] }) },
  'policy eval': { args: () => ['policy', 'eval', '-d', 'policies', 'data.a2a_access.allow'], check: (doc) => expect(doc.result).toBeDefined() },
  'policy test': { args: () => ['policy', 'test', 'policies'], check: (doc) => expect(doc.results).toBeInstanceOf(Array) },
  'policy serve': { args: () => ['policy', 'serve', 'policies', '--addr', '127.0.0.1:0'], stopWhen: STOP_AT_LISTENING },
  'policy bench': { args: () => ['policy', 'bench', '-d', 'policies', '--count', '10', 'data.a2a_access.allow'], check: (doc) => expect(doc.samples).toBe(10) },
  'policy compile': {
    args: () => ['policy', 'compile', '-d', 'policies', '--unknowns', 'input.rows', 'data.a2a_access.allow'],
    check: (doc) => expect(doc).toEqual({ query: null }),
  },
  'serve agent': { args: () => ['serve', 'agent', '--port', '0'], stopWhen: STOP_AT_LISTENING },
  'serve guardian': { args: () => ['serve', 'guardian', '--addr', '127.0.0.1:0', '--opa-url', closedUrl], stopWhen: STOP_AT_LISTENING },
  'serve semantic-layer': {
    args: () => ['serve', 'semantic-layer', '--addr', '127.0.0.1:0', ...cardsAndStore()],
    env: () => ({ OLLAMA_HOST: closedUrl }),
    stopWhen: STOP_AT_LISTENING,
  },
  // It starts without Redis and the model runtime (its health says so); nothing is written.
  'serve memory': {
    args: () => ['serve', 'memory', '--addr', '127.0.0.1:0', '--kv-url', closedUrl.replace('http', 'redis'), '--ollama-host', closedUrl],
    stopWhen: STOP_AT_LISTENING,
  },
  'serve traces': { args: () => ['serve', 'traces', '--addr', '127.0.0.1:0', '--dir', temp('traces')], stopWhen: STOP_AT_LISTENING },
  'create project': { args: () => ['create', 'project', 'demo', '--dir', join(temp('create'), 'demo')], check: (doc) => expect(doc.name).toBe('demo') },
  'create swarm': { args: () => ['create', 'swarm', 'flock', '--dir', join(temp('swarm'), 'flock')] },
  'add agent': { args: async () => ['add', 'agent', 'helper', '--description', 'Answers questions', '--no-interactive', '--dir', await newProject()] },
  'deploy kubernetes': {
    args: async () => ['deploy', 'kubernetes', '--dir', await newProject(), '--out', temp('k8s')],
    check: (doc) => expect(doc.objects).toContain('Deployment/guardian'),
  },
  // Nothing deployed: removing the stack is a no-op (on an engine in a swarm or not).
  'deploy swarm': {
    args: async () => ['deploy', 'swarm', '--down', '--dir', await newProject()],
    check: (doc) => expect(doc).toMatchObject({ stack: 'demo', removed: { services: [], secrets: [] } }),
  },
  up: {
    args: async () => ['up', '--dir', await tinyProject()],
    stopWhen: /"type":"ready"/,
    checkStream: (docs) => {
      expect(docs.map((d) => d.type)).toContain('ready');
      expect(docs.at(-1)).toMatchObject({ detached: false, stopped: true });
    },
  },
  status: {
    args: () => ['status', '--dir', detached],
    check: (doc) => expect(doc).toMatchObject({ running: true, services: [{ name: 'policy', health: 'ok' }] }),
  },
  logs: { args: () => ['logs', 'policy', '--dir', detached, '-n', '5'], check: (doc) => expect(doc.lines).toBeInstanceOf(Array) },
  // Last: it stops the detached stack the cases above read.
  down: { args: () => ['down', '--dir', detached], check: (doc) => expect(doc.stopped).toEqual(['policy']) },
};

/** Failures with an error document (beyond the bad flag every command gets). */
const FAILURE: Record<string, Case> = {
  'a2a card verify': {
    args: () => {
      const files = cardFiles();
      return ['a2a', 'card', 'verify', '--card', files.card, '--key', files.pub];
    },
    check: (doc) => expect(doc).toMatchObject({ error: { code: 'invalid_agent_card' } }),
  },
  chat: {
    args: () => ['chat', closedUrl, '--message', 'hello'],
    env: () => ({ XDG_CONFIG_HOME: temp('chat-config') }),
    check: (doc) => expect(doc).toMatchObject({ error: { code: 'agent_not_ready' } }),
  },
  'model pull': { args: () => ['model', 'pull', 'no-such-model'], env: () => ({ OLLAMA_HOST: closedUrl }) },
  'model serve': { args: () => ['model', 'serve', '--addr', `127.0.0.1:${takenPort}`] },
  'model show': {
    args: () => ['model', 'show', 'smollm2'],
    env: () => ({ OLLAMA_HOST: closedUrl }),
    check: (doc) => expect(doc).toMatchObject({ error: { code: 'model_runtime_unavailable' } }),
  },
  // npm cannot reach the registry it is given: the install fails, and says so.
  'runtime install': {
    args: () => ['runtime', 'install'],
    env: () => ({ FRAMEWORK_RUNTIMES_DIR: temp('runtimes'), npm_config_registry: `${closedUrl}/`, npm_config_fetch_retries: '0' }),
    check: (doc) => expect(doc).toMatchObject({ error: { code: 'build_failed', message: expect.stringContaining('npm install of node-llama-cpp') } }),
  },
  'policy check': { args: () => ['policy', 'check', join(tmpdir(), 'fw-json-no-such-dir')] },
  'policy fmt': {
    args: () => ['policy', 'fmt', join(unformattedPolicies(), 'unparsable.rego')],
    check: (doc) => expect(doc).toMatchObject({ error: { code: 'rego_parse_error', exit: 1 } }),
  },
  'policy eval': {
    args: () => ['policy', 'eval', '-d', 'policies', 'data.x['],
    check: (doc) => expect(doc).toMatchObject({ error: { code: 'rego_parse_error' } }),
  },
  'policy test': {
    args: () => ['policy', 'test', brokenPolicies()],
    check: (doc) => expect(doc).toMatchObject({ error: { code: 'policy_compile_error', message: expect.stringContaining('rego_unsafe_var_error') } }),
  },
  'policy serve': { args: () => ['policy', 'serve', 'policies', '--addr', `127.0.0.1:${takenPort}`] },
  'policy bench': {
    args: () => ['policy', 'bench', '-d', 'policies', 'data.x['],
    check: (doc) => expect(doc).toMatchObject({ error: { code: 'rego_parse_error' } }),
  },
  'policy compile': {
    args: () => ['policy', 'compile', '-d', 'policies', 'data.x['],
    check: (doc) => expect(doc).toMatchObject({ error: { code: 'rego_parse_error' } }),
  },
  'serve agent': { args: () => ['serve', 'agent', '--port', String(takenPort)] },
  'serve guardian': { args: () => ['serve', 'guardian', '--addr', `127.0.0.1:${takenPort}`] },
  'serve semantic-layer': {
    args: () => ['serve', 'semantic-layer', '--addr', `127.0.0.1:${takenPort}`, ...cardsAndStore()],
    env: () => ({ OLLAMA_HOST: closedUrl }),
  },
  'serve memory': { args: () => ['serve', 'memory', '--addr', `127.0.0.1:${takenPort}`] },
  'serve traces': {
    args: () => ['serve', 'traces', '--addr', '0.0.0.0:0'],
    check: (doc) => expect(doc).toMatchObject({ error: { code: 'invalid_config', message: expect.stringContaining('--allow-remote') } }),
  },
  'create project': { args: () => ['create', 'project', 'Not A Name', '--dir', temp('badname')] },
  'add agent': { args: () => ['add', 'agent', 'helper', '--description', 'x', '--no-interactive', '--dir', temp('not-a-project')] },
  up: { args: () => ['up', '--dir', temp('not-a-project')], check: (doc) => expect(doc).toMatchObject({ error: { code: 'project_not_found' } }) },
  'deploy kubernetes': {
    args: () => ['deploy', 'kubernetes', '--dir', temp('not-a-project')],
    check: (doc) => expect(doc).toMatchObject({ error: { code: 'project_not_found' } }),
  },
  'deploy swarm': {
    args: () => ['deploy', 'swarm', '--dir', temp('not-a-project')],
    check: (doc) => expect(doc).toMatchObject({ error: { code: 'project_not_found' } }),
  },
  logs: { args: () => ['logs', 'no-such-service', '--dir', detached], check: (doc) => expect(doc).toMatchObject({ error: { code: 'unknown_service' } }) },
  status: { args: () => ['status', '--dir', join(tmpdir(), 'fw-json-no-such-dir')] },
  trace: { args: () => ['trace', '--dir', temp('no-traces')] },
};

/** Failures that are still the command's normal document (a report), with exit code 1. */
const FAILED_REPORT: Record<string, Case> = {
  doctor: { args: () => ['doctor'], env: () => ({ KV_URL: closedUrl.replace('http', 'redis') }), check: (doc) => expect(doc.ok).toBe(false) },
  'policy check': { args: () => ['policy', 'check', brokenPolicies()], check: (doc) => expect(doc.ok).toBe(false) },
  'policy fmt': {
    args: () => ['policy', 'fmt', '--check', join(unformattedPolicies(), 'unformatted.rego')],
    check: (doc) => expect(doc).toMatchObject({ ok: false, changed: [expect.stringContaining('unformatted.rego')] }),
  },
};

async function run(c: Case): Promise<CliResult> {
  return runCli([...(await c.args()), '--json'], { ...(c.env ? { env: c.env() } : {}), ...(c.stopWhen ? { stopWhen: c.stopWhen } : {}), timeoutMs: 60_000 });
}

/** The whole of stdout as one JSON document (throws, with stdout, when it is not). */
function oneDocument(result: CliResult): Doc {
  try {
    return JSON.parse(result.stdout) as Doc;
  } catch {
    throw new Error(`stdout is not one JSON document (exit ${result.code}):\n${result.stdout}\n--- stderr:\n${result.stderr}`);
  }
}

function expectErrorDocument(result: CliResult): Doc {
  const doc = oneDocument(result);
  expect(result.code, result.stdout).not.toBe(0);
  expect(doc).toMatchObject({ error: { code: expect.stringMatching(/^[a-z][a-z0-9_]*$/), message: expect.any(String), exit: result.code } });
  const error = doc.error as Doc;
  expect((error.message as string).length).toBeGreaterThan(0);
  // Not oclif's default document, which dumps the parser's context and the whole configuration.
  expect(Object.keys(error)).not.toContain('oclif');
  expect(Object.keys(error)).not.toContain('parse');
  return doc;
}

const commands = builtCommands();

describe('--json on every command', () => {
  it('has a success case for every built command', () => {
    expect(commands.length).toBeGreaterThan(10);
    expect(commands.filter((id) => !(id in SUCCESS))).toEqual([]);
  });

  // Independent of each other and of the cases below: run a few at once.
  it.concurrent.each(commands)('%s: a bad flag is one error document with code invalid_arguments, exit 2', async (id) => {
    const result = await runCli([...id.split(' '), '--json', '--no-such-flag']);
    expect(expectErrorDocument(result)).toMatchObject({ error: { code: 'invalid_arguments', message: 'Nonexistent flag: --no-such-flag' } });
    expect(result.code).toBe(2);
  });

  it.each(Object.keys(SUCCESS).filter((id) => commands.includes(id)))('%s: success', async (id) => {
    const c = SUCCESS[id]!;
    const result = await run(c);
    expect(result.code, result.stderr).toBe(0);
    if (!c.stopWhen && !c.lines) {
      c.check?.(oneDocument(result));
      return;
    }
    // NDJSON: every line one document, nothing else.
    const docs = result.stdout
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => {
        try {
          return JSON.parse(line) as Doc;
        } catch {
          throw new Error(`not a JSON line: ${line}\n--- stdout:\n${result.stdout}`);
        }
      });
    (c.checkStream ?? serveStream)(docs);
  });

  it.each(Object.keys(FAILURE).filter((id) => commands.includes(id)))('%s: failure is one error document', async (id) => {
    const c = FAILURE[id]!;
    const doc = expectErrorDocument(await run(c));
    c.check?.(doc);
  });

  it.each(Object.keys(FAILED_REPORT).filter((id) => commands.includes(id)))('%s: a failed check is one report document with exit code 1', async (id) => {
    const c = FAILED_REPORT[id]!;
    const result = await run(c);
    expect(result.code).toBe(1);
    c.check?.(oneDocument(result));
  });
});
