import { execa } from 'execa';
import { FrameworkError } from '../core/framework-error.js';

/** How Compose is run here: `docker compose` (v2) or `docker-compose` (v1). */
export interface ComposeCommand {
  /** The program and the arguments before Compose's own (`['docker', 'compose']` or `['docker-compose']`). */
  argv: string[];
  version: 1 | 2;
}

async function answers(file: string, args: string[]): Promise<boolean> {
  const result = await execa(file, args, { reject: false, shell: false, stdin: 'ignore', timeout: 20_000 });
  return !result.failed && result.exitCode === 0;
}

/**
 * Finds Compose: `docker compose` (v2, the plugin) first, else the
 * standalone `docker-compose` (v1). Neither: a `FrameworkError`
 * (`docker_unavailable`) naming both.
 *
 * @example
 * const compose = await findCompose(); // { argv: ['docker-compose'], version: 1 }
 */
export async function findCompose(): Promise<ComposeCommand> {
  if (await answers('docker', ['compose', 'version'])) return { argv: ['docker', 'compose'], version: 2 };
  if (await answers('docker-compose', ['version'])) return { argv: ['docker-compose'], version: 1 };
  throw new FrameworkError({
    code: 'docker_unavailable',
    message:
      'Neither `docker compose` (Compose v2, the Docker CLI plugin) nor `docker-compose` (Compose v1) is installed; install one (for example the docker-compose-plugin or docker-compose package), or run without --containers to start the services as processes.',
  });
}
