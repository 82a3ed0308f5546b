import { copyFile, mkdir, readdir, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { FrameworkError } from '../core/framework-error.js';
import { PROJECT_FILE, type ProjectFile } from '../supervisor/project-file.js';
import { baseCompose, writeCompose } from './compose-file.js';
import { writeProjectFile } from './project-metadata.js';
import { BUILD_COMMAND, coreServices, PROJECT_PATHS } from './project-services.js';
import { renderTree } from './render-template.js';
import { validateProjectName } from './scaffold-names.js';
import { toolkitDependency } from './toolkit-dependency.js';
import { toolkitInfo } from './toolkit-root.js';

export interface CreateProjectOptions {
  /** The project folder (created when missing). */
  dir: string;
  /** Project name: lower case letters, digits, ".", "_", "-". */
  name: string;
  /** Write into a folder that is not empty (files of the scaffold are replaced). */
  force?: boolean;
  /**
   * framework_core from a checkout (folder) or an `npm pack` tarball, as a
   * `file:` dependency, for work on the toolkit itself; default: the
   * registry release of this toolkit's version (`^<version>`).
   */
  toolkit?: string;
}

export interface CreateProjectSummary {
  /** Absolute project folder. */
  root: string;
  name: string;
  kind: ProjectFile['kind'];
  /** Files written, relative to `root`, sorted. */
  created: string[];
}

/**
 * Creates an agent project: `agents/`, `services/` (policies copied from the
 * toolkit, `semantic_layer/agent_cards/`), `compose.yaml`,
 * `.framework/project.json` (the services `framework-cli up` starts),
 * `package.json` (framework_core `^<this version>` from the registry, or
 * `file:` the `toolkit` folder or tarball), `tsconfig.json`,
 * `.env.example`, `README.md`, `.gitignore`. Refuses a folder that is not
 * empty unless `force`. Throws `FrameworkError` (`invalid_request`).
 *
 * @example
 * const { created } = await createProject({ dir: './demo', name: 'demo' });
 */
export async function createProject(options: CreateProjectOptions): Promise<CreateProjectSummary> {
  return scaffoldProject({ ...options, kind: 'project' });
}

/** `createProject` for a project or a swarm (the swarm adds its own files afterwards). */
export async function scaffoldProject(options: CreateProjectOptions & { kind: ProjectFile['kind'] }): Promise<CreateProjectSummary> {
  const name = validateProjectName({ name: options.name });
  const root = resolve(options.dir);
  await ensureEmptyFolder({ root, force: options.force ?? false });
  const toolkit = toolkitInfo();
  const dependency = toolkitDependency({ version: toolkit.version, ...(options.toolkit === undefined ? {} : { toolkit: options.toolkit }) });
  const swarm = options.kind === 'swarm';

  const created = await renderTree({
    from: join(toolkit.templatesDir, 'project'),
    to: root,
    root,
    names: { dot: '.' },
    data: {
      project: name,
      swarm,
      description: swarm ? `A multi-agent swarm made with framework-cli.` : `An agent project made with framework-cli.`,
      toolkitDependency: dependency,
      toolkitVersion: toolkit.version,
      typescriptVersion: toolkit.typescriptVersion,
      typesNodeVersion: toolkit.typesNodeVersion,
    },
  });

  const policiesDir = join(root, PROJECT_PATHS.policies);
  await mkdir(policiesDir, { recursive: true });
  for (const file of (await readdir(toolkit.policiesDir)).filter((f) => f.endsWith('.rego')).sort()) {
    await copyFile(join(toolkit.policiesDir, file), join(policiesDir, file));
    created.push(`${PROJECT_PATHS.policies}/${file}`);
  }

  await mkdir(join(root, '.framework'), { recursive: true });
  await writeProjectFile({ root, project: { name, toolkitVersion: toolkit.version, kind: options.kind, build: BUILD_COMMAND, services: coreServices() } });
  created.push(PROJECT_FILE);
  await writeCompose({ path: join(root, PROJECT_PATHS.compose), compose: baseCompose({ project: name }) });
  created.push(PROJECT_PATHS.compose);

  return { root, name, kind: options.kind, created: [...new Set(created)].sort() };
}

async function ensureEmptyFolder(options: { root: string; force: boolean }): Promise<void> {
  const { root, force } = options;
  let entries: string[];
  try {
    if (!(await stat(root)).isDirectory()) {
      throw new FrameworkError({ code: 'invalid_request', message: `${root} exists and is not a folder; choose another place with --dir.` });
    }
    entries = await readdir(root);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    await mkdir(root, { recursive: true });
    return;
  }
  if (entries.length > 0 && !force) {
    throw new FrameworkError({
      code: 'invalid_request',
      message: `${root} is not empty; choose an empty or new folder with --dir, or pass --force to write the project files into it (files with the same names are replaced).`,
    });
  }
}
