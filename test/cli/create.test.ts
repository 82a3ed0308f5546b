import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProjectFileSchema } from '../../runtime/supervisor/project-file.js';
import { runCliInProcess } from '../support/cli.js';
import { validateComposeText } from '../support/compose-schema.js';
import { freePort } from '../support/net.js';
import { startService, type Service } from '../support/processes.js';
import { collectSse } from '../support/sse-client.js';
import { linkDependencies } from '../support/project-deps.js';
import { toolCallingReply } from '../llm/support/http-stand-in.js';
import { startOllamaStandIn } from '../llm/support/ollama-stand-in.js';

/** `tsc -p .` in `root` with the linked TypeScript. */
function compile(root: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', '.'], { cwd: root, shell: false });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    child.on('close', (code) => resolve({ code, output }));
  });
}

function json<T>(text: string): T {
  return JSON.parse(text) as T;
}

let base: string;
/** The project the first test makes and builds; the next test serves its agent again. */
let demoRoot: string;
const services: Service[] = [];
beforeAll(async () => {
  base = await mkdtemp(join(tmpdir(), 'fw-cli-create-'));
});
afterAll(async () => {
  await Promise.all(services.map((s) => s.stop()));
  await rm(base, { recursive: true, force: true });
});

describe('framework-cli create project / add agent', () => {
  it('creates a project and an agent that compiles and answers on /stream', { timeout: 90_000 }, async () => {
    const created = await runCliInProcess(['create', 'project', 'demo', '--json'], { cwd: base });
    expect(created.code, created.stderr).toBe(0);
    const project = json<{ root: string; created: string[] }>(created.stdout);
    expect(project.created).toContain('.framework/project.json');
    const root = project.root;
    demoRoot = root;

    const added = await runCliInProcess(
      ['add', 'agent', 'helper', '--description', 'Helps people', '--task', 'greet:Greets the user', '--no-interactive', '--json'],
      { cwd: root },
    );
    expect(added.code, added.stderr).toBe(0);
    const agent = json<{ agent: string; port: number; created: string[]; updated: string[] }>(added.stdout);
    expect(agent).toMatchObject({ agent: 'helper', port: 8002, updated: ['.framework/project.json', 'compose.yaml'] });
    expect(agent.created).toContain('agents/helper/app.ts');
    ProjectFileSchema.parse(JSON.parse(await readFile(join(root, '.framework/project.json'), 'utf8')));

    await linkDependencies(root);
    const built = await compile(root);
    expect(built.output).toBe('');
    expect(built.code).toBe(0);

    const port = await freePort();
    const helper = await startService({
      name: 'helper',
      cwd: root,
      port,
      args: ['serve', 'agent', '--module', 'dist/agents/helper/app.js', '--port', String(port)],
    });
    services.push(helper);
    const { events, status } = await collectSse(`${helper.url}/stream`, { body: { query: 'greet: hello there' } });
    expect(status).toBe(200);
    expect(events.map((e) => e.event)).toEqual(['status', 'result']);
    expect(json<Record<string, unknown>>(events[1]?.data ?? '{}')).toMatchObject({ task: 'greet', answer: 'Greets the user: hello there', model: null });
    await helper.stop();
  });

  it('gives the generated agent its tools through the model, each call gated by TOOL_POLICIES', { timeout: 90_000 }, async () => {
    // The helper made by the test above; its model is a stand-in that speaks Ollama's /api/chat and asks for current_time.
    const root = demoRoot;
    const model = await startOllamaStandIn({ reply: toolCallingReply([{ name: 'current_time', arguments: {} }]) });
    try {
      const serve = async (env: Record<string, string>) => {
        const port = await freePort();
        const helper = await startService({
          name: 'helper',
          cwd: root,
          port,
          args: ['serve', 'agent', '--module', 'dist/agents/helper/app.js', '--port', String(port)],
          env: { MODEL_NAME: 'test-model', OLLAMA_HOST: model.url, ...env },
        });
        services.push(helper);
        return helper;
      };
      const ungated = await serve({});
      const asked = await collectSse(`${ungated.url}/stream`, { body: { query: 'greet: what time is it?' } });
      expect(asked.status).toBe(200);
      const calls = asked.events.filter((e) => e.event === 'status').map((e) => e.data);
      expect(calls.some((text) => text.startsWith('Calling tool current_time'))).toBe(true);
      const result = json<{ task: string; answer: string; model: string }>(asked.events.find((e) => e.event === 'result')?.data ?? '{}');
      expect(result).toMatchObject({ task: 'greet', model: 'test-model' });
      expect(result.answer).toMatch(/^answer: \{"now":"\d{4}-\d\d-\d\dT/); // the tool ran and its result went back to the model
      // The task's prompt template shaped the user message the model got.
      const userMessages = model.requests
        .flatMap((r) => (r.body as { messages: { role: string; content: string }[] }).messages)
        .filter((m) => m.role === 'user');
      expect(userMessages.at(-1)?.content).toContain('what time is it?');
      await ungated.stop();

      // Gated, strict, and no Guardian to ask: the call is refused and never runs.
      const gated = await serve({ TOOL_POLICIES: '*:tools', A2A_VALIDATION_MODE: 'strict' });
      const refused = await collectSse(`${gated.url}/stream`, { body: { query: 'greet: what time is it?' } });
      const statuses = refused.events.filter((e) => e.event === 'status').map((e) => e.data);
      expect(statuses.some((text) => /^Tool current_time refused: .*Guardian/.test(text))).toBe(true);
      const answer = json<{ answer: string }>(refused.events.find((e) => e.event === 'result')?.data ?? '{}').answer;
      expect(answer).toContain('refused by policy');
      expect(answer).not.toContain('"now"');
      await gated.stop();
    } finally {
      await model.close();
    }
  });

  it('reports refusals as one JSON document with a code, and exit code 1', async () => {
    const dir = join(base, 'busy');
    await mkdir(dir);
    await writeFile(join(dir, 'notes.txt'), 'mine');
    const refused = await runCliInProcess(['create', 'project', 'busy', '--dir', dir, '--json']);
    expect(refused.code).toBe(1);
    const { error } = json<{ error: { code: string; message: string } }>(refused.stdout);
    expect(error.code).toBe('invalid_request');
    expect(error.message).toMatch(/--force/);

    const bad = await runCliInProcess(['create', 'project', 'Bad/Name']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('path separator');
  });

  it('asks for --task or --no-interactive when standard input is not a terminal', async () => {
    const created = await runCliInProcess(['create', 'project', 'quiet', '--json'], { cwd: base });
    const { root } = json<{ root: string }>(created.stdout);
    const asked = await runCliInProcess(['add', 'agent', 'helper', '--description', 'Helps', '--json'], { cwd: root });
    expect(asked.code).toBe(1);
    const { error } = json<{ error: { code: string; message: string } }>(asked.stdout);
    expect(error).toMatchObject({ code: 'invalid_request' });
    expect(error.message).toMatch(/--task name:description.*--no-interactive/);
  });
});

describe('framework-cli create swarm', () => {
  it('creates a swarm whose agents call each other over signed, policy-checked A2A', { timeout: 120_000 }, async () => {
    const created = await runCliInProcess(['create', 'swarm', 'team', '--json'], { cwd: base });
    expect(created.code, created.stderr).toBe(0);
    const swarm = json<{ root: string; agents: { name: string; port: number; card: string }[]; memoryServices: string[] }>(created.stdout);
    expect(swarm.agents.map((a) => a.name)).toEqual(['orchestrator', 'planner', 'executor']);
    expect(swarm.memoryServices).toEqual(['kv', 'memory']);
    const root = swarm.root;
    expect(validateComposeText(await readFile(join(root, 'compose.yaml'), 'utf8')).errors).toEqual([]);
    const project = ProjectFileSchema.parse(JSON.parse(await readFile(join(root, '.framework/project.json'), 'utf8')));

    await linkDependencies(root);
    const built = await compile(root);
    expect(built.output).toBe('');

    // The stack of project.json on free ports (the defaults may be taken on a test machine): cards follow the ports.
    const ports = { policy: await freePort(), guardian: await freePort() } as Record<string, number>;
    for (const agent of swarm.agents) {
      ports[agent.name] = await freePort();
      const card = json<Record<string, unknown>>(await readFile(join(root, agent.card), 'utf8'));
      await writeFile(join(root, agent.card), JSON.stringify({ ...card, url: `http://127.0.0.1:${ports[agent.name]}/` }));
    }
    const opaUrl = `http://127.0.0.1:${ports.policy}`;
    services.push(
      await startService({
        name: 'policy',
        cwd: root,
        port: ports.policy!,
        args: ['policy', 'serve', 'services/guardian/policies', '--addr', `127.0.0.1:${ports.policy}`],
      }),
    );
    services.push(
      await startService({
        name: 'guardian',
        cwd: root,
        port: ports.guardian!,
        args: ['serve', 'guardian', '--addr', `127.0.0.1:${ports.guardian}`, '--opa-url', opaUrl],
      }),
    );
    for (const name of ['executor', 'planner', 'orchestrator']) {
      const spec = project.services.find((s) => s.name === name)!;
      const args = (spec.args ?? []).map((arg, i, all) => (all[i - 1] === '--port' ? String(ports[name]) : arg));
      const env = { ...spec.env, MODEL_NAME: '', AGENT_MEMORY_URL: '', GUARDIAN_URL: `http://127.0.0.1:${ports.guardian}`, OPA_URL: opaUrl };
      services.push(await startService({ name, cwd: root, port: ports[name]!, args, env }));
    }

    const { events } = await collectSse(`http://127.0.0.1:${ports.orchestrator}/stream`, {
      body: { query: 'Book the room; send the invitations' },
      timeoutMs: 30_000,
    });
    const result = events.find((e) => e.event === 'result');
    expect(result, JSON.stringify(events)).toBeDefined();
    const answer = json<{ delegatedTo: string; answer: string }>(result!.data);
    expect(answer.delegatedTo).toBe('planner');
    expect(answer.answer).toContain('1. Book the room: Carries out one action: Book the room');
    expect(answer.answer).toContain('2. send the invitations: Carries out one action: send the invitations');
  });
});
