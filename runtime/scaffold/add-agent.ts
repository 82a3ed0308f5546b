import { access } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { FrameworkError } from '../core/framework-error.js';
import { PROJECT_FILE } from '../supervisor/project-file.js';
import { buildAgentCard, writeAgentCard, type SkillAnswer } from './agent-card-file.js';
import { addAgentService, COMPOSE_URLS, readCompose, writeCompose } from './compose-file.js';
import { addAgentKey } from './keys-file.js';
import { nextAgentPort, readProjectFile, writeProjectFile } from './project-metadata.js';
import { agentEnvironment, agentService, cardPath, LOCAL_PORTS, LOCAL_URLS, PROJECT_PATHS, type SwarmMemory } from './project-services.js';
import { renderTree } from './render-template.js';
import { camelCase, pascalCase, validateAgentName, validateTaskName } from './scaffold-names.js';
import { toolkitInfo } from './toolkit-root.js';

/** A task as the user describes it. */
export interface TaskAnswer {
  name: string;
  description: string;
}

export interface AddAgentOptions {
  /** The project root (holds `.framework/project.json`). */
  root: string;
  name: string;
  description: string;
  /** Tasks to generate; none gives one task `answer`. */
  tasks: readonly TaskAnswer[];
  /** Skills for the agent card; may be empty. */
  skills: readonly SkillAnswer[];
  /** Also generate `web-interface.ts` (full front door with chat compatibility). */
  withWebInterface: boolean;
}

export interface AddAgentSummary {
  root: string;
  agent: string;
  port: number;
  /** The card, relative to `root`. */
  card: string;
  /** The A2A keys file, relative to `root`, and the id of the agent's key. */
  keysFile: string;
  keyId: string;
  tasks: string[];
  /** Files written, relative to `root`, sorted. */
  created: string[];
  /** Existing files that got the agent added. */
  updated: string[];
}

/** Options of the swarm's agents, beyond what `add agent` asks. */
interface AgentExtras {
  /** Template folders rendered over `templates/agent` (absolute). */
  overlays?: readonly string[];
  /** Serve the A2A endpoint only (an executor). */
  a2aOnly?: boolean;
}

const DEFAULT_TASK: TaskAnswer = { name: 'answer', description: 'Answers the request' };
const RESERVED = new Set(['model', 'policy', 'guardian', 'semantic-layer', 'memory', 'kv', 'lb', 'opa', 'weaviate', 'ollama']);

/**
 * Adds an agent to a project: `agents/<name>/` (app, agent class, steps,
 * tasks with a `route_to_task` router, tools, prompts, config, main,
 * Dockerfile, and `web-interface.ts` when asked), its card in
 * `services/semantic_layer/agent_cards/<name>.json`, an HMAC key in
 * `.framework/secrets/a2a-keys.json` (mode 0600), and its service in
 * `.framework/project.json` and `compose.yaml` on the next free port from
 * 8002. An existing agent is refused. Throws `FrameworkError` (`invalid_request`).
 *
 * @example
 * await addAgent({ root: '.', name: 'helper', description: 'Helps', tasks: [{ name: 'greet', description: 'Greets the user' }], skills: [], withWebInterface: false });
 */
export async function addAgent(options: AddAgentOptions): Promise<AddAgentSummary> {
  return scaffoldAgent(options);
}

/** `addAgent` with the swarm's extras. */
export async function scaffoldAgent(options: AddAgentOptions & AgentExtras): Promise<AddAgentSummary> {
  const name = validateAgentName({ name: options.name });
  const root = resolve(options.root);
  const project = await readProjectFile({ root });
  const description = options.description.replace(/\s+/g, ' ').trim();
  if (description === '') refuse(`The agent "${name}" needs a description: pass --description "<what it does>".`);
  if (RESERVED.has(name)) refuse(`"${name}" is the name of a service of every project; choose another agent name.`);
  if (project.services.some((s) => s.name === name) || (await exists(join(root, PROJECT_PATHS.agents, name)))) {
    refuse(`The agent "${name}" already exists in ${root}; choose another name, or delete agents/${name}/ and its service in ${PROJECT_FILE} first.`);
  }
  const tasks = checkTasks(options.tasks.length > 0 ? options.tasks : [DEFAULT_TASK]);
  const skills = options.skills.map((skill) => ({ name: skill.name.trim(), description: skill.description.trim() }));
  if (skills.some((skill) => skill.name === '')) refuse('A skill needs a name: pass --skill "<name>:<description>".');

  const port = nextAgentPort({ project, from: LOCAL_PORTS.firstAgent });
  const card = buildAgentCard({ name, description, port, skills });
  const toolkit = toolkitInfo();
  const agentDir = join(root, PROJECT_PATHS.agents, name);
  const data = {
    project: project.name,
    name,
    className: `${pascalCase(name)}Agent`,
    displayName: pascalCase(name),
    description,
    port,
    cardPath: cardPath(name),
    tasks: tasks.map((task) => ({ ...task, fn: camelCase(task.name) })),
    withWebInterface: options.withWebInterface,
    a2aOnly: options.a2aOnly ?? false,
  };
  const created: string[] = [];
  for (const from of [join(toolkit.templatesDir, 'agent'), ...(options.overlays ?? [])]) {
    created.push(...(await renderTree({ from, to: agentDir, root, data, names: { name }, exclude: options.withWebInterface ? [] : ['web-interface.ts.eta'] })));
  }

  await writeAgentCard({ path: join(root, cardPath(name)), card });
  created.push(cardPath(name));
  const keysPath = join(root, PROJECT_PATHS.keysFile);
  const keysExisted = await exists(keysPath);
  const keyId = await addAgentKey({ file: keysPath, agent: name });
  if (!keysExisted) created.push(PROJECT_PATHS.keysFile);

  const swarm = project.kind === 'swarm';
  const localMemory: SwarmMemory | undefined = swarm ? { agentMemoryUrl: LOCAL_URLS.memory, contextId: project.name } : undefined;
  project.services.push(
    agentService({
      name,
      port,
      env: agentEnvironment({ name, port, ...(localMemory ? { memory: localMemory } : {}) }),
      a2aOnly: options.a2aOnly ?? false,
      chatCompat: options.withWebInterface,
      ...(swarm && project.services.some((s) => s.kind === 'memory') ? { dependsOn: ['memory'] } : {}),
    }),
  );
  await writeProjectFile({ root, project });

  const composePath = join(root, PROJECT_PATHS.compose);
  const compose = await readCompose({ path: composePath });
  addAgentService({
    compose,
    project: project.name,
    name,
    port,
    a2aOnly: options.a2aOnly ?? false,
    chatCompat: options.withWebInterface,
    ...(swarm ? { memory: { agentMemoryUrl: COMPOSE_URLS.memory, contextId: project.name } } : {}),
  });
  await writeCompose({ path: composePath, compose });

  return {
    root,
    agent: name,
    port,
    card: cardPath(name),
    keysFile: PROJECT_PATHS.keysFile,
    keyId,
    tasks: tasks.map((task) => task.name),
    created: [...new Set(created)].sort(),
    updated: [PROJECT_FILE, PROJECT_PATHS.compose, ...(keysExisted ? [PROJECT_PATHS.keysFile] : [])],
  };
}

function checkTasks(tasks: readonly TaskAnswer[]): TaskAnswer[] {
  const seen = new Set<string>();
  return tasks.map((task) => {
    const name = validateTaskName({ name: task.name.trim() });
    if (seen.has(name)) refuse(`The task "${name}" is given twice; give each task once.`);
    seen.add(name);
    return { name, description: task.description.replace(/\s+/g, ' ').trim() || name };
  });
}

function refuse(message: string): never {
  throw new FrameworkError({ code: 'invalid_request', message });
}

async function exists(path: string): Promise<boolean> {
  try {
    await access(path);
    return true;
  } catch {
    return false;
  }
}
