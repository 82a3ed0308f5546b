import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadAgentCard } from '../../runtime/a2a/agent-card.js';
import { loadKeyRing } from '../../runtime/a2a/signing/load-key-ring.js';
import { FrameworkError } from '../../runtime/core/framework-error.js';
import { addAgent } from '../../runtime/scaffold/add-agent.js';
import { createProject } from '../../runtime/scaffold/create-project.js';
import { ProjectFileSchema } from '../../runtime/supervisor/project-file.js';
import { validateComposeText } from '../support/compose-schema.js';

let root: string;
beforeEach(async () => {
  root = join(await mkdtemp(join(tmpdir(), 'fw-agent-')), 'demo');
  await createProject({ dir: root, name: 'demo' });
});
afterEach(async () => {
  await rm(join(root, '..'), { recursive: true, force: true });
});

const HELPER = {
  name: 'helper',
  description: 'Helps people',
  tasks: [
    { name: 'greet', description: 'Greets the user' },
    { name: 'sum-up', description: "Sums up 'text'" },
  ],
  skills: [{ name: 'Greeting', description: 'Says hello' }],
  withWebInterface: false,
};

async function project() {
  return ProjectFileSchema.parse(JSON.parse(await readFile(join(root, '.framework/project.json'), 'utf8')));
}

describe('addAgent', () => {
  it('generates the agent folder, its card and its key', async () => {
    const summary = await addAgent({ root, ...HELPER });
    expect(summary).toMatchObject({
      agent: 'helper',
      port: 8002,
      card: 'services/semantic_layer/agent_cards/helper.json',
      tasks: ['greet', 'sum-up'],
      keyId: 'helper-1',
    });
    for (const file of ['app.ts', 'agent-helper.ts', 'steps.ts', 'tasks.ts', 'tools.ts', 'prompts.ts', 'config/config.ts', 'main.ts', 'Dockerfile']) {
      expect(summary.created).toContain(`agents/helper/${file}`);
    }
    expect(summary.created).not.toContain('agents/helper/web-interface.ts');
    const app = await readFile(join(root, 'agents/helper/app.ts'), 'utf8');
    expect(app).toContain("from 'framework_core'");
    expect(app).toMatch(/export const core = new FrameworkCore\(\)/);
    expect(app).toMatch(/export const agent = new HelperAgent\(\)/);
    const tasks = await readFile(join(root, 'agents/helper/tasks.ts'), 'utf8');
    expect(tasks).toContain('ROUTE_TO_TASK');
    expect(tasks).toContain("{ name: 'sum-up', description: \"Sums up 'text'\", prompt: sumUpPrompt }");
    expect(tasks).not.toMatch(/throw new Error\(['"]not implemented/i);
    expect(await readFile(join(root, 'agents/helper/prompts.ts'), 'utf8')).toContain('export function greetPrompt(request: string): string');
  });

  it('writes a card that the toolkit loads, with the skills asked for', async () => {
    await addAgent({ root, ...HELPER });
    const path = join(root, 'services/semantic_layer/agent_cards/helper.json');
    const raw = JSON.parse(await readFile(path, 'utf8')) as Record<string, unknown>;
    expect(raw).toMatchObject({
      name: 'helper',
      url: 'http://127.0.0.1:8002/',
      version: '0.1.0',
      capabilities: { streaming: 'True', pushNotifications: 'False' },
    });
    const [card] = await loadAgentCard(path);
    expect(card.name).toBe('helper');
    expect(card.skills.map((s) => [s.id, s.name, s.description])).toEqual([['greeting', 'Greeting', 'Says hello']]);
  });

  it('keeps the keys file private and outside agent_cards', async () => {
    await addAgent({ root, ...HELPER });
    const keys = join(root, '.framework/secrets/a2a-keys.json');
    expect((await stat(keys)).mode & 0o777).toBe(0o600);
    expect((await stat(join(root, '.framework/secrets'))).mode & 0o077).toBe(0);
    const ring = loadKeyRing({ env: { A2A_KEYS_FILE: keys } });
    expect(ring.warnings).toEqual([]);
    expect(ring.signingKeyFor('helper').id).toBe('helper-1');
    const cards = await readFile(join(root, 'services/semantic_layer/agent_cards/helper.json'), 'utf8');
    expect(cards).not.toMatch(/secret/i);
  });

  it('adds the agent to project.json with its configuration, on the next free port', async () => {
    await addAgent({ root, ...HELPER });
    const second = await addAgent({ root, name: 'web', description: 'Chats', tasks: [], skills: [], withWebInterface: true });
    expect(second.port).toBe(8003);
    expect(second.tasks).toEqual(['answer']);
    expect(second.created).toContain('agents/web/web-interface.ts');
    const services = (await project()).services;
    const helper = services.find((s) => s.name === 'helper');
    expect(helper).toMatchObject({
      kind: 'agent',
      port: 8002,
      dependsOn: ['guardian'],
      args: ['serve', 'agent', '--module', 'dist/agents/helper/app.js', '--port', '8002'],
    });
    expect(helper?.env).toMatchObject({
      AGENT_NAME: 'helper',
      AGENT_CARD: 'services/semantic_layer/agent_cards/helper.json',
      GUARDIAN_URL: 'http://127.0.0.1:11438',
      OPA_URL: 'http://127.0.0.1:8181',
      A2A_VALIDATION_MODE: 'strict',
      A2A_KEYS_FILE: '.framework/secrets/a2a-keys.json',
      OLLAMA_HOST: 'http://127.0.0.1:11434',
      SESSION_BACKEND: 'memory',
    });
    expect(helper?.env.MODEL_NAME).toBeTruthy();
    expect(helper?.env).not.toHaveProperty('AGENT_MEMORY_URL');
    expect(services.find((s) => s.name === 'web')?.args).toContain('--chat-compat');
  });

  it('adds the agent to compose.yaml, which still validates', async () => {
    await addAgent({ root, ...HELPER });
    const text = await readFile(join(root, 'compose.yaml'), 'utf8');
    expect(validateComposeText(text).errors).toEqual([]);
    const compose = parse(text) as { services: Record<string, Record<string, unknown>>; secrets: Record<string, unknown> };
    expect(compose.services.helper).toMatchObject({
      image: 'demo-toolkit:latest',
      build: { context: '.', dockerfile: 'services/Dockerfile' },
      command: ['serve', 'agent', '--module', 'dist/agents/helper/app.js', '--port', '8002'],
      ports: ['8002:8002'],
      depends_on: { guardian: { condition: 'service_healthy' } },
      secrets: ['a2a_keys'],
      environment: { A2A_KEYS_FILE: '/run/secrets/a2a_keys', GUARDIAN_URL: 'http://guardian:11438' },
    });
    expect(compose.services.helper?.healthcheck).toBeDefined();
    expect(compose.secrets).toEqual({ a2a_keys: { file: './.framework/secrets/a2a-keys.json' } });
  });

  it('refuses an agent that exists, a reserved name and a folder that is no project', async () => {
    await addAgent({ root, ...HELPER });
    const again = await addAgent({ root, ...HELPER }).catch((e: unknown) => e);
    expect(FrameworkError.isInstance(again) && again.code).toBe('invalid_request');
    expect((again as Error).message).toMatch(/already exists/);
    await expect(addAgent({ root, ...HELPER, name: 'guardian' })).rejects.toThrow(/service of every project/);
    await expect(addAgent({ root, ...HELPER, name: 'x', tasks: [HELPER.tasks[0]!, HELPER.tasks[0]!] })).rejects.toThrow(/given twice/);
    await expect(addAgent({ ...HELPER, root: join(root, 'agents') })).rejects.toThrow(/not a framework project.*--dir/);
    expect((await project()).services.filter((s) => s.kind === 'agent')).toHaveLength(1);
  });
});
