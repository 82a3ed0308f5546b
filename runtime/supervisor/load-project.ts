import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError } from '../core/errors/config-error.js';
import { FrameworkError } from '../core/framework-error.js';
import { PROJECT_FILE, ProjectFileSchema, type ProjectFile } from './project-file.js';

/**
 * Reads and checks `<root>/.framework/project.json`. Throws a
 * `FrameworkError` (code `project_not_found`) when there is none and a
 * `ConfigError` listing every problem when it is malformed.
 *
 * @example
 * const project = loadProject({ root: process.cwd() });
 * project.services.map((s) => s.name); // ['policy', 'guardian', 'planner']
 */
export function loadProject(options: { root: string }): ProjectFile {
  const path = join(options.root, PROJECT_FILE);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    throw new FrameworkError({
      code: 'project_not_found',
      message: `No ${PROJECT_FILE} in ${options.root}. Run it in a project (framework-cli create project <name>), pass --dir <project root>, or try --example tutorial.`,
    });
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new ConfigError({ issues: [{ variable: PROJECT_FILE, message: 'is not valid JSON' }], context: `Invalid ${path}` });
  }
  const parsed = ProjectFileSchema.safeParse(value);
  if (!parsed.success) {
    throw new ConfigError({
      issues: parsed.error.issues.map((issue) => ({ variable: issue.path.map(String).join('.') || PROJECT_FILE, message: issue.message })),
      context: `Invalid ${path}`,
    });
  }
  return parsed.data;
}
