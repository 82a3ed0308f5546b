import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** How a generated project runs the toolkit's command line: its `cli` script (`framework-cli` is not on PATH there). */
export const PROJECT_CLI = 'npm run cli --';

/**
 * The command to tell a user to type inside the project at `root`: `npm run
 * cli --` when its package.json has the `cli` script that `create project`
 * writes (it runs the project's own `node_modules/.bin/framework-cli` at
 * once), else `npx framework-cli` (a project made before that script).
 *
 * @example
 * `${projectCliCommand({ root })} add agent helper`; // 'npm run cli -- add agent helper'
 */
export function projectCliCommand(options: { root: string }): string {
  try {
    const scripts = (JSON.parse(readFileSync(join(options.root, 'package.json'), 'utf8')) as { scripts?: Record<string, unknown> }).scripts;
    if (typeof scripts?.cli === 'string') return PROJECT_CLI;
  } catch {
    // No package.json, or not JSON: the generic form below.
  }
  return 'npx framework-cli';
}
