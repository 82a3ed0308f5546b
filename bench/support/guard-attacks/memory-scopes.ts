/**
 * Guard attack class "memory-scopes" (issue 33, memory in token mode): a
 * real memory service with two tokens (Alice's and Mallory's), and two
 * swarms made by `create swarm` whose memory services start as `up` starts
 * them, all over a private redis-server. Mallory, from outside, tries to
 * read, list, overwrite and delete Alice's working memory (REST and the MCP
 * tools), to read, search, edit and delete the records promoted from it, to
 * learn through deduplication that Alice stored a text, and to read or
 * replace Alice's task; the second swarm's token looks for what the first
 * swarm remembered. Extraction needs a generation model and is left to
 * test/security/memory-scopes.test.ts (a scripted model).
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createSwarm } from '../../../runtime/scaffold/create-swarm.js';
import { loadProject } from '../../../runtime/supervisor/load-project.js';
import { Supervisor } from '../../../runtime/supervisor/supervisor.js';
import { REPO_ROOT, RedisChild, freePort, startCli, type ChildService } from '../child-services.js';
import { attackTally, type GuardAttackClass, type GuardAttackContext, type GuardAttackResult } from './guard-attack.js';

const ALICE = 'guard-alice-token-0123456789abcdef';
const MALLORY = 'guard-mallory-token-0123456789abcdef';

type Answer = { status: number; body: any };

/** A request to `url` as the holder of `token`; the status and the JSON answer (undefined when not JSON). */
async function as(token: string, url: string, method: string, path: string, body?: unknown): Promise<Answer> {
  const res = await fetch(`${url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    signal: AbortSignal.timeout(60_000),
  });
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = text === '' ? undefined : JSON.parse(text);
  } catch {
    parsed = text;
  }
  return { status: res.status, body: parsed };
}

async function mcp(url: string, token: string): Promise<Client> {
  const client = new Client({ name: 'guard-memory-scopes', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  return client;
}

const tool = async (client: Client, name: string, args: Record<string, unknown>): Promise<string> =>
  JSON.stringify((await client.callTool({ name, arguments: args })).structuredContent ?? {});

export const memoryScopes: GuardAttackClass = {
  name: 'memory-scopes',
  async run(context: GuardAttackContext): Promise<GuardAttackResult> {
    const tally = attackTally();
    const redis = new RedisChild(await freePort(), context.scratch);
    await redis.start();
    const services: ChildService[] = [];
    const supervisors: Supervisor[] = [];
    try {
      const modelPort = await freePort();
      const model = await startCli({ name: 'model runtime', args: ['model', 'serve', '--addr', `127.0.0.1:${modelPort}`], port: modelPort, healthPath: '/' });
      services.push(model);
      const memoryPort = await freePort();
      const memory = await startCli({
        name: 'memory service',
        args: ['serve', 'memory', '--addr', `127.0.0.1:${memoryPort}`, '--kv-url', redis.url, '--ollama-host', model.url],
        port: memoryPort,
        healthPath: '/v1/health',
        env: { MEMORY_AUTH_TOKENS: `${ALICE},${MALLORY}`, KV_PREFIX: 'guard-scopes:', MEMORY_INDEX_DIR: join(context.scratch, 'memory-index') },
      });
      services.push(memory);
      await workingMemoryAttacks(memory.url, tally);
      await recordAttacks(memory.url, tally);
      await taskAttacks(memory.url, tally);
      await projectAttack({ context, redisUrl: redis.url, modelUrl: model.url, supervisors, tally });
    } finally {
      await Promise.all(supervisors.map((s) => s.stop()));
      for (const service of services.reverse()) await service.stop();
      await redis.kill();
    }
    return tally.result();
  },
};

type Tally = ReturnType<typeof attackTally>;

async function workingMemoryAttacks(url: string, tally: Tally): Promise<void> {
  const alice = (method: string, path: string, body?: unknown) => as(ALICE, url, method, path, body);
  const mallory = (method: string, path: string, body?: unknown) => as(MALLORY, url, method, path, body);
  const secret = 'My locker code is 4711';
  const aliceHas = async () => JSON.stringify((await alice('GET', '/v1/working-memory/alice-wm')).body).includes(secret);
  await alice('PUT', '/v1/working-memory/alice-wm', { messages: [{ role: 'user', content: secret }] });

  const read = await mallory('GET', '/v1/working-memory/alice-wm');
  tally.check(read.status === 404 && !JSON.stringify(read.body).includes(secret), `REST: another token read a session's working memory (${read.status})`);
  const listed = await mallory('GET', '/v1/working-memory/');
  tally.check(!JSON.stringify(listed.body).includes('alice-wm'), "REST: another token's session listing named the session");
  await mallory('PUT', '/v1/working-memory/alice-wm', { messages: [{ role: 'user', content: 'pwned' }] });
  tally.check(await aliceHas(), "REST: another token's PUT overwrote the session's working memory");
  await mallory('DELETE', '/v1/working-memory/alice-wm');
  tally.check(await aliceHas(), "REST: another token's DELETE removed the session's working memory");

  const a = await mcp(url, ALICE);
  const m = await mcp(url, MALLORY);
  try {
    const pin = 'My bank PIN is 8080';
    await tool(a, 'set_working_memory', { session_id: 'alice-mcp', messages: [{ role: 'user', content: pin }] });
    tally.check(!(await tool(m, 'get_working_memory', { session_id: 'alice-mcp' })).includes(pin), 'MCP: get_working_memory read another token’s session');
    const prompt = await tool(m, 'memory_prompt', { query: 'What is my PIN?', session_id: { eq: 'alice-mcp' }, include_long_term_search: false });
    tally.check(!prompt.includes(pin), "MCP: memory_prompt put another token's session in the prompt");
    await tool(m, 'set_working_memory', { session_id: 'alice-mcp', messages: [{ role: 'user', content: 'pwned' }] });
    tally.check((await tool(a, 'get_working_memory', { session_id: 'alice-mcp' })).includes(pin), "MCP: set_working_memory overwrote another token's session");
  } finally {
    await a.close();
    await m.close();
  }
}

async function recordAttacks(url: string, tally: Tally): Promise<void> {
  const alice = (method: string, path: string, body?: unknown) => as(ALICE, url, method, path, body);
  const mallory = (method: string, path: string, body?: unknown) => as(MALLORY, url, method, path, body);
  const text = 'Alice keeps the safe code 9876 in her wallet';
  await alice('PUT', '/v1/working-memory/promote-wm', { memories: [{ id: 'promoted-1', text }] });
  const aliceHas = async () => (await alice('GET', '/v1/long-term-memory/promoted-1')).body?.text === text;

  tally.check((await mallory('GET', '/v1/long-term-memory/promoted-1')).status === 404, 'a record promoted from working memory was read by another token');
  const found = await mallory('POST', '/v1/long-term-memory/search', { text: 'safe code', limit: 10 });
  tally.check(!JSON.stringify(found.body).includes('9876'), 'a record promoted from working memory was found by another token’s search');
  await mallory('PATCH', '/v1/long-term-memory/promoted-1', { text: 'pwned' });
  tally.check(await aliceHas(), 'a record promoted from working memory was edited by another token');
  await mallory('DELETE', '/v1/long-term-memory?memory_ids=promoted-1');
  tally.check(await aliceHas(), 'a record promoted from working memory was deleted by another token');

  const peanuts = 'The user is allergic to peanuts';
  await alice('POST', '/v1/long-term-memory/', { memories: [{ id: 'alice-peanuts', text: peanuts }] });
  const probe = await mallory('POST', '/v1/long-term-memory/', { memories: [{ id: 'mallory-peanuts', text: peanuts }], deduplicate: true });
  tally.check(
    !JSON.stringify(probe.body).includes('alice-peanuts') && probe.body?.deduplicated?.[0] !== true,
    `deduplication answered another token's record id (${JSON.stringify(probe.body)})`,
  );
}

async function taskAttacks(url: string, tally: Tally): Promise<void> {
  const view = await as(ALICE, url, 'POST', '/v1/summary-views', { source: 'long_term', group_by: ['user_id'] });
  await as(ALICE, url, 'POST', `/v1/summary-views/${view.body?.id}/run`, { task_id: 'alice-task' });
  const peek = await as(MALLORY, url, 'GET', '/v1/tasks/alice-task');
  tally.check(peek.status === 404, `GET /v1/tasks/{id} answered another token's task (${peek.status})`);
  const other = await as(MALLORY, url, 'POST', '/v1/summary-views', { source: 'long_term', group_by: ['namespace'] });
  await as(MALLORY, url, 'POST', `/v1/summary-views/${other.body?.id}/run`, { task_id: 'alice-task' });
  const mine = await as(ALICE, url, 'GET', '/v1/tasks/alice-task');
  tally.check(mine.body?.view_id === view.body?.id, "another token's run replaced a task by its id");
}

/** Two swarms on one Redis, each memory service started as `up` does; the second's token looks for what the first remembered. */
async function projectAttack(options: {
  context: GuardAttackContext;
  redisUrl: string;
  modelUrl: string;
  supervisors: Supervisor[];
  tally: Tally;
}): Promise<void> {
  const start = async (folder: string) => {
    const root = join(options.context.scratch, folder, 'team');
    await createSwarm({ dir: root, name: 'team' });
    const spec = loadProject({ root }).services.find((s) => s.kind === 'memory')!;
    const port = await freePort();
    const supervisor = new Supervisor({
      root,
      cliPath: join(REPO_ROOT, 'cli/bin/run.js'),
      services: [
        {
          ...spec,
          port,
          args: ['serve', 'memory', '--addr', `127.0.0.1:${port}`],
          env: { ...spec.env, KV_URL: options.redisUrl, OLLAMA_HOST: options.modelUrl },
          dependsOn: [],
        },
      ],
    });
    options.supervisors.push(supervisor);
    await supervisor.start();
    const token = (await readFile(join(root, '.framework/secrets/memory-token'), 'utf8')).trim();
    return { url: `http://127.0.0.1:${port}`, token };
  };
  const first = await start('first');
  const put = await as(first.token, first.url, 'PUT', '/v1/working-memory/team', {
    memories: [{ id: 'team-peanuts', text: 'The user is allergic to peanuts' }],
  });
  const own = await as(first.token, first.url, 'GET', '/v1/long-term-memory/team-peanuts');
  if (put.status !== 200 || own.status !== 200)
    throw new Error(`memory-scopes: the first swarm could not remember (${put.status}, ${own.status}): ${JSON.stringify(put.body)}`);
  const second = await start('second');
  const found = await as(second.token, second.url, 'POST', '/v1/long-term-memory/search', { text: 'What is the user allergic to?', limit: 10 });
  options.tally.check(
    found.status === 200 && !JSON.stringify(found.body).includes('peanuts'),
    `a new swarm's memory service answered another project's record (${found.status} ${JSON.stringify(found.body).slice(0, 120)})`,
  );
}
