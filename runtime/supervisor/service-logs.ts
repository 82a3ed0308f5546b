import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { loadProject } from './load-project.js';
import { RUN_DIR } from './project-file.js';
import { readRunState } from './run-state.js';

/** A service's log file. */
export interface ServiceLog {
  name: string;
  file: string;
}

/**
 * The log files of a project's services, `<root>/.framework/run/logs/<name>.log`:
 * the services of the running stack first (in start order), then those of
 * `project.json`, then any other log file left from an earlier run.
 *
 * @example
 * serviceLogs({ root }).map((l) => l.name); // ['policy', 'guardian', 'planner']
 */
export function serviceLogs(options: { root: string }): ServiceLog[] {
  const dir = join(options.root, RUN_DIR, 'logs');
  const names: string[] = [];
  const add = (name: string) => {
    if (!names.includes(name)) names.push(name);
  };
  for (const service of readRunState(options)?.services ?? []) add(service.name);
  try {
    for (const service of loadProject(options).services) add(service.name);
  } catch {
    // No project file (e.g. the tutorial): the logs directory tells.
  }
  try {
    for (const file of readdirSync(dir).sort()) if (file.endsWith('.log')) add(file.slice(0, -'.log'.length));
  } catch {
    // No logs yet.
  }
  return names.map((name) => ({ name, file: join(dir, `${name}.log`) }));
}
