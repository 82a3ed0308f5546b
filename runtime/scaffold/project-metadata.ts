import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { FrameworkError } from '../core/framework-error.js';
import { PROJECT_FILE, ProjectFileSchema, type ProjectFile, type ServiceSpec } from '../supervisor/project-file.js';

/**
 * Reads and validates `.framework/project.json` under `root`. Throws
 * `FrameworkError` (`invalid_request`) when `root` is not a project or the
 * file does not validate.
 *
 * @example
 * const project = await readProjectFile({ root: '.' });
 */
export async function readProjectFile(options: { root: string }): Promise<ProjectFile> {
  const path = join(options.root, PROJECT_FILE);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch {
    throw new FrameworkError({
      code: 'invalid_request',
      message: `${options.root} is not a framework project (no ${PROJECT_FILE}); run the command in a project folder, pass --dir <project root>, or create one with "framework-cli create project <name>".`,
    });
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (cause) {
    throw new FrameworkError({ code: 'invalid_request', message: `${path} is not valid JSON (${(cause as Error).message}); fix or restore it.`, cause });
  }
  const parsed = ProjectFileSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new FrameworkError({
      code: 'invalid_request',
      message: `${path} is not a valid project file: ${issue?.path.join('.') || '(root)'} ${issue?.message ?? 'is invalid'}; fix or restore it.`,
    });
  }
  return parsed.data;
}

/**
 * Validates `project` against `ProjectFileSchema` and writes it (2-space JSON).
 * Throws `FrameworkError` (`internal_error`) if it does not validate: that is a bug of the scaffold.
 *
 * @example
 * await writeProjectFile({ root, project: { name: 'demo', toolkitVersion: '0.1.0', kind: 'project', services: [] } });
 */
export async function writeProjectFile(options: { root: string; project: ProjectFile }): Promise<void> {
  const parsed = ProjectFileSchema.safeParse(options.project);
  if (!parsed.success) {
    throw new FrameworkError({
      code: 'internal_error',
      message: `The scaffold produced an invalid project file: ${parsed.error.issues[0]?.message ?? 'unknown problem'}`,
    });
  }
  await writeFile(join(options.root, PROJECT_FILE), `${JSON.stringify(parsed.data, null, 2)}\n`);
}

/**
 * The first port from `from` upward that no service of `project` uses.
 *
 * @example
 * nextAgentPort({ project, from: 8002 }); // 8003 when an agent already has 8002
 */
export function nextAgentPort(options: { project: ProjectFile; from: number }): number {
  const used = new Set(options.project.services.map((s: ServiceSpec) => s.port));
  let port = options.from;
  while (used.has(port)) port += 1;
  return port;
}
