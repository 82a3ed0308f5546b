import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { FrameworkError } from '../runtime/core/framework-error.js';
import { loadProject } from '../runtime/supervisor/load-project.js';
import { PROJECT_FILE } from '../runtime/supervisor/project-file.js';
import { isAlive, readRunState, RUN_STATE_FILE, type RunState } from '../runtime/supervisor/run-state.js';
import { DEFAULT_PORTS } from '../runtime/core/defaults.js';

/** The tutorial planner, which `framework-cli up --example tutorial` starts. */
export const DEFAULT_CHAT_URL = 'http://127.0.0.1:8100';

export interface ResolvedAgent {
  url: string;
  /** How it was found: the default, a URL given, the running stack's state, or the project file. */
  source: 'default' | 'url' | 'running-stack' | 'project';
  name?: string;
}

/** The built-in examples' chat agents, to tell a user how to start the one they named. */
const EXAMPLE_AGENTS: Readonly<Record<string, { example: string; port: number }>> = {
  planner: { example: 'tutorial', port: DEFAULT_PORTS.planner },
  trader: { example: 'trading', port: DEFAULT_PORTS.trader },
};

/**
 * Where `framework-cli chat [agent]` talks to: a URL as given; a name looked
 * up in the running stack recorded in `.framework/run/` (a project's, or a
 * built-in example's started with `up --example` in that folder; its real
 * ports) or else in `.framework/project.json`, searching upwards from `cwd`.
 * With nothing given: the agent of the stack running there (its planner, or
 * its only agent), else the tutorial planner. An unknown name is an error
 * that lists the names there are, or says how to start the example it names.
 *
 * @example
 * resolveAgentUrl({ cwd: process.cwd() }).url; // 'http://127.0.0.1:8100'
 * resolveAgentUrl({ agent: 'planner', cwd: '/work/demo' }).url; // 'http://127.0.0.1:8002'
 */
export function resolveAgentUrl(options: { agent?: string; cwd: string }): ResolvedAgent {
  const agent = options.agent?.trim();
  if (!agent) return defaultAgent(options.cwd);
  if (/^https?:\/\//i.test(agent)) {
    let url: URL;
    try {
      url = new URL(agent);
    } catch {
      throw invalid(`"${agent}" is not a valid URL (for example http://127.0.0.1:8100).`);
    }
    return { url: url.toString().replace(/\/+$/, ''), source: 'url' };
  }
  if (!/^[a-z0-9][a-z0-9._-]*$/i.test(agent)) {
    throw invalid(`"${agent}" is neither a URL (http://host:port) nor an agent name of the project.`);
  }
  const root = findStackRoot(options.cwd);
  const state = root ? readRunState({ root }) : undefined;
  const running = state?.services.find((service) => service.name === agent);
  if (running) return { url: running.url.replace(/\/+$/, ''), source: 'running-stack', name: agent };
  if (!root || !existsSync(join(root, PROJECT_FILE))) throw unknownOutsideProject({ agent, cwd: options.cwd, root, state });
  const project = loadProject({ root });
  const agents = project.services.filter((service) => service.kind === 'agent');
  const found = agents.find((service) => service.name === agent);
  if (found) return { url: `http://127.0.0.1:${found.port}`, source: 'project', name: agent };
  const names = agents.map((service) => service.name);
  throw new FrameworkError({
    code: 'agent_not_found',
    message: `Project "${project.name}" has no agent "${agent}"${names.length ? `; its agents: ${names.join(', ')}` : ' (it has no agents yet: framework-cli add agent <name>)'}.`,
  });
}

/** With no agent named: the running stack's planner or only agent, when a live one is recorded here or above; else the tutorial planner. */
function defaultAgent(cwd: string): ResolvedAgent {
  const root = findStackRoot(cwd);
  const state = root ? readRunState({ root }) : undefined;
  if (!state || !isAlive(state.supervisorPid)) return { url: DEFAULT_CHAT_URL, source: 'default' };
  const agents = state.services.filter((service) => service.kind === 'agent');
  const pick = agents.find((service) => service.name === 'planner') ?? (agents.length === 1 ? agents[0] : undefined);
  if (pick) return { url: pick.url.replace(/\/+$/, ''), source: 'running-stack', name: pick.name };
  if (agents.length > 1) {
    throw new FrameworkError({
      code: 'agent_not_found',
      message: `The stack running from ${root} has several agents (${agents.map((a) => a.name).join(', ')}): name one, for example framework-cli chat ${agents[0]!.name}.`,
    });
  }
  return { url: DEFAULT_CHAT_URL, source: 'default' };
}

/** A name that no running stack here knows, with no project to look it up in either. */
function unknownOutsideProject(options: { agent: string; cwd: string; root: string | undefined; state: RunState | undefined }): FrameworkError {
  const { agent, state } = options;
  if (state) {
    return new FrameworkError({
      code: 'agent_not_found',
      message: `The stack running from ${options.root} has no agent "${agent}" (its services: ${state.services.map((s) => s.name).join(', ')}). Name one of them, or pass the agent's URL.`,
    });
  }
  const example = EXAMPLE_AGENTS[agent];
  const start = example
    ? `"${agent}" is the ${example.example} example's agent: start it with framework-cli up --example ${example.example} (then run chat from that folder, or pass its URL, http://127.0.0.1:${example.port} by default)`
    : `Start a stack here (framework-cli up in a project, or up --example tutorial|trading), run chat from its folder, or pass the agent's URL (for example ${DEFAULT_CHAT_URL})`;
  return new FrameworkError({
    code: 'agent_not_found',
    message: `No running stack or project in ${options.cwd} or above knows an agent "${agent}". ${start}.`,
  });
}

/** The nearest folder, from `start` upwards, with a project file or a recorded running stack. */
function findStackRoot(start: string): string | undefined {
  for (let dir = resolve(start); ; dir = dirname(dir)) {
    if (existsSync(join(dir, PROJECT_FILE)) || existsSync(join(dir, RUN_STATE_FILE))) return dir;
    if (dirname(dir) === dir) return undefined;
  }
}

function invalid(message: string): FrameworkError {
  return new FrameworkError({ code: 'invalid_arguments', message });
}

/** The nearest folder, from `start` upwards, with a project file (`.framework/project.json`). */
export function findProjectRoot(start: string): string | undefined {
  for (let dir = resolve(start); ; dir = dirname(dir)) {
    if (existsSync(join(dir, PROJECT_FILE))) return dir;
    if (dirname(dir) === dir) return undefined;
  }
}
