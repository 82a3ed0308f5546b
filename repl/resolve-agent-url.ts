import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { FrameworkError } from '../runtime/core/framework-error.js';
import { loadProject } from '../runtime/supervisor/load-project.js';
import { PROJECT_FILE } from '../runtime/supervisor/project-file.js';
import { readRunState } from '../runtime/supervisor/run-state.js';

/** The tutorial planner, which `framework-cli up --example tutorial` starts. */
export const DEFAULT_CHAT_URL = 'http://127.0.0.1:8100';

export interface ResolvedAgent {
  url: string;
  /** How it was found: the default, a URL given, the running stack's state, or the project file. */
  source: 'default' | 'url' | 'running-stack' | 'project';
  name?: string;
}

/**
 * Where `framework-cli chat [agent]` talks to: a URL as given; a name looked
 * up in the running stack of the project (its real ports, `.framework/run/`)
 * or else in `.framework/project.json`, searching upwards from `cwd`; the
 * tutorial planner when nothing is given. An unknown name is an error that
 * lists the names there are.
 *
 * @example
 * resolveAgentUrl({ cwd: process.cwd() }).url; // 'http://127.0.0.1:8100'
 * resolveAgentUrl({ agent: 'planner', cwd: '/work/demo' }).url; // 'http://127.0.0.1:8002'
 */
export function resolveAgentUrl(options: { agent?: string; cwd: string }): ResolvedAgent {
  const agent = options.agent?.trim();
  if (!agent) return { url: DEFAULT_CHAT_URL, source: 'default' };
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
  const root = findProjectRoot(options.cwd);
  if (!root) {
    throw new FrameworkError({
      code: 'agent_not_found',
      message: `No ${PROJECT_FILE} in ${options.cwd} or above to look up agent "${agent}". Run it inside a project, or pass the agent's URL (for example http://127.0.0.1:8100).`,
    });
  }
  const running = readRunState({ root })?.services.find((service) => service.name === agent);
  if (running) return { url: running.url.replace(/\/+$/, ''), source: 'running-stack', name: agent };
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

export function findProjectRoot(start: string): string | undefined {
  for (let dir = resolve(start); ; dir = dirname(dir)) {
    if (existsSync(join(dir, PROJECT_FILE))) return dir;
    if (dirname(dir) === dir) return undefined;
  }
}

function invalid(message: string): FrameworkError {
  return new FrameworkError({ code: 'invalid_arguments', message });
}
