import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { FrameworkError } from '../core/framework-error.js';

/** Compose file names looked for in a project root, in order. */
export const COMPOSE_FILES = ['compose.yaml', 'compose.yml', 'docker-compose.yaml', 'docker-compose.yml'] as const;

/**
 * Throws a `FrameworkError` (code `docker_unavailable`) when the `docker`
 * command is missing or no engine answers `docker info`.
 *
 * @example
 * await checkDocker();
 */
export async function checkDocker(options: { env?: Readonly<Record<string, string | undefined>> } = {}): Promise<void> {
  const result = await execa('docker', ['info', '--format', '{{.ServerVersion}}'], {
    reject: false,
    shell: false,
    stdin: 'ignore',
    timeout: 20_000,
    ...(options.env ? { env: options.env, extendEnv: false } : {}),
  });
  if (!result.failed) return;
  const fix = 'install and start Docker (or Podman with the docker command), or run without --containers to start the services as processes';
  if (result.exitCode === undefined) {
    throw new FrameworkError({ code: 'docker_unavailable', message: `The docker command was not found on PATH; ${fix}.` });
  }
  const detail = String(result.stderr).trim().split('\n')[0] ?? '';
  throw new FrameworkError({ code: 'docker_unavailable', message: `No Docker engine answers (docker info failed${detail ? `: ${detail}` : ''}); ${fix}.` });
}

/**
 * The compose file of a project root, or a `FrameworkError` (code
 * `compose_file_missing`) naming the files looked for.
 *
 * @example
 * const file = findComposeFile({ root });
 */
export function findComposeFile(options: { root: string }): string {
  for (const name of COMPOSE_FILES) {
    const path = join(options.root, name);
    if (existsSync(path)) return path;
  }
  throw new FrameworkError({
    code: 'compose_file_missing',
    message: `No compose file in ${options.root} (looked for ${COMPOSE_FILES.join(', ')}); generate one with the project scaffolding or run without --containers.`,
  });
}

/**
 * `docker compose -f <file> up` in the project root (`--detach` when asked);
 * its output goes to `output` ('inherit' by default, 'stderr' keeps stdout
 * clean for --json). Throws `FrameworkError` (code `compose_failed`) when it fails.
 *
 * @example
 * await composeUp({ root, file: findComposeFile({ root }), detach: true });
 */
export async function composeUp(options: { root: string; file: string; detach: boolean; output?: 'inherit' | 'stderr' }): Promise<void> {
  const args = ['compose', '-f', options.file, 'up', ...(options.detach ? ['--detach', '--wait'] : [])];
  const output = options.output === 'stderr' ? (['ignore', 2, 2] as const) : (['ignore', 'inherit', 'inherit'] as const);
  const result = await execa('docker', args, { cwd: options.root, shell: false, reject: false, stdio: [...output] });
  if (result.failed && !result.isTerminated) {
    throw new FrameworkError({ code: 'compose_failed', message: `docker ${args.join(' ')} failed: ${result.shortMessage}` });
  }
}
