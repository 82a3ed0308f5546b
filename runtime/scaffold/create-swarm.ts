import { randomBytes } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { addMemoryServices, memoryServiceNames, readCompose, writeCompose } from './compose-file.js';
import { scaffoldAgent, type AddAgentSummary } from './add-agent.js';
import { scaffoldProject } from './create-project.js';
import { readProjectFile, writeProjectFile } from './project-metadata.js';
import { memoryService, PROJECT_PATHS } from './project-services.js';
import { renderTree } from './render-template.js';
import { toolkitInfo } from './toolkit-root.js';

export interface CreateSwarmOptions {
  /** The project folder (created when missing; refused when not empty). */
  dir: string;
  name: string;
  force?: boolean;
  /** framework_core from a checkout or an `npm pack` tarball (see `CreateProjectOptions.toolkit`). */
  toolkit?: string;
}

export interface CreateSwarmSummary {
  root: string;
  name: string;
  kind: 'swarm';
  agents: { name: string; port: number; card: string }[];
  /** Compose services of the system memory (`framework-cli up` starts the `memory` service of project.json instead). */
  memoryServices: string[];
  created: string[];
}

/** The three agents of a swarm, in the order they are added (ports 8002, 8003, 8004). */
const SWARM_AGENTS = [
  {
    name: 'orchestrator',
    description: 'Front door of the swarm: hands each request to the planner over A2A and reports the outcome.',
    tasks: [{ name: 'delegate', description: 'Hands the request to the planner and reports its outcome' }],
    skills: [{ name: 'Orchestrate', description: 'Takes a request and has the planner and executor carry it out.' }],
    withWebInterface: true,
  },
  {
    name: 'planner',
    description: 'Turns a request into ordered actions and has the executor carry out each one over A2A.',
    tasks: [{ name: 'plan', description: 'Plans the request as ordered actions and delegates each one to the executor' }],
    skills: [{ name: 'Plan and delegate', description: 'Splits a request into actions and has the executor carry them out.' }],
    withWebInterface: false,
  },
  {
    name: 'executor',
    description: 'Carries out one action per A2A call and reports its outcome. Reachable by A2A only.',
    tasks: [{ name: 'execute', description: 'Carries out one action' }],
    skills: [{ name: 'Execute', description: 'Carries out one plain-text action.' }],
    withWebInterface: false,
    a2aOnly: true,
  },
] as const;

/**
 * Creates a multi-agent project: orchestrator, planner and executor wired
 * over A2A (cards, one HMAC key each, an `a2a_access` policy allowing
 * orchestrator → any agent and planner → executor), plus the system memory
 * (`kv` and `memory`, our memory service over Redis) in `compose.yaml`, and for `framework-cli up`
 * the `memory` service (`serve memory` over the system's Redis) in
 * `.framework/project.json`, which every agent depends on.
 *
 * @example
 * const { agents } = await createSwarm({ dir: './team', name: 'team' });
 */
export async function createSwarm(options: CreateSwarmOptions): Promise<CreateSwarmSummary> {
  const project = await scaffoldProject({ ...options, kind: 'swarm' });
  const { root, name } = project;
  const templates = join(toolkitInfo().templatesDir, 'swarm');
  const created = new Set(project.created);
  for (const file of await renderTree({ from: join(templates, 'project'), to: root, root, data: { project: name } })) created.add(file);

  const composePath = join(root, PROJECT_PATHS.compose);
  const compose = await readCompose({ path: composePath });
  addMemoryServices({ compose, project: name });
  await writeCompose({ path: composePath, compose });
  // The memory service answers only requests bearing this token; the agents read it from the same file.
  const tokenPath = join(root, PROJECT_PATHS.memoryToken);
  await mkdir(dirname(tokenPath), { recursive: true, mode: 0o700 });
  await writeFile(tokenPath, `${randomBytes(32).toString('base64url')}\n`, { mode: 0o600, flag: 'wx' });
  created.add(PROJECT_PATHS.memoryToken);
  const projectFile = await readProjectFile({ root });
  projectFile.services.push(memoryService());
  await writeProjectFile({ root, project: projectFile });

  const agents: AddAgentSummary[] = [];
  for (const agent of SWARM_AGENTS) {
    const overlays = agent.name === 'executor' ? [] : [join(templates, 'a2a'), join(templates, 'agents', agent.name)];
    const added = await scaffoldAgent({
      root,
      name: agent.name,
      description: agent.description,
      tasks: agent.tasks,
      skills: agent.skills,
      withWebInterface: agent.withWebInterface,
      overlays,
      a2aOnly: 'a2aOnly' in agent ? agent.a2aOnly : false,
    });
    for (const file of added.created) created.add(file);
    agents.push(added);
  }
  const memory = memoryServiceNames();
  return {
    root,
    name,
    kind: 'swarm',
    agents: agents.map((a) => ({ name: a.agent, port: a.port, card: a.card })),
    memoryServices: [memory.kv, memory.memory],
    created: [...created].sort(),
  };
}
