import { FrameworkError } from '../core/framework-error.js';
import type { ProjectFile } from './project-file.js';
import { projectCliCommand } from './project-cli-command.js';

/**
 * Refuses to build and start a project that has no agent yet (what `create
 * project` makes): its build has nothing to compile (tsc's `TS18003 No inputs
 * were found`). The error names the command that adds one. A project without
 * a build step (only services of the toolkit) starts as it is.
 *
 * @example
 * requireAgents({ project: loadProject({ root }), root });
 */
export function requireAgents(options: { project: ProjectFile; root: string }): void {
  const { project } = options;
  if (!project.build || project.services.some((service) => service.kind === 'agent')) return;
  const cli = projectCliCommand({ root: options.root });
  throw new FrameworkError({
    code: 'agent_not_found',
    message: `Project "${project.name}" has no agent yet, so there is nothing to build or start. Add an agent first: ${cli} add agent <name> --description "<what it does>" (in ${options.root}), then run up again.`,
  });
}
