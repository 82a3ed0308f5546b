import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { execa } from 'execa';
import { parse, stringify } from 'yaml';
import { FrameworkError } from '../core/framework-error.js';
import type { ComposeCommand } from './compose-command.js';
import { composeServices, writeContainerState, type ContainerState } from './container-state.js';
import { RUN_DIR } from './project-file.js';
import { containerStatus, lastContainerLines } from './compose-stack.js';
import { composeEnv } from './compose-env.js';
import { addTraceReceiver } from './compose-traces.js';
import { TRACES_DIR } from '../telemetry/trace-store.js';
import { SupervisorError } from './supervisor-error.js';

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

/** Options of `composeUp`. */
export interface ComposeUpOptions {
  root: string;
  file: string;
  compose: ComposeCommand;
  /** Compose's project name (its containers' label and name prefix). */
  project: string;
  detach: boolean;
  /** Replicas per service (`--scale planner=2`). */
  scale?: Record<string, number>;
  /** 'inherit' by default; 'stderr' keeps stdout clean for --json. */
  output?: 'inherit' | 'stderr';
  /** How long every container may take to be healthy after start (default 300 s). */
  healthTimeoutMs?: number;
  env?: NodeJS.ProcessEnv;
}

/**
 * Builds the images (one build per distinct image: every toolkit service
 * shares one), then `up`: attached, Compose's own `up` until Ctrl+C;
 * detached, `up --detach`, then waits until every container is running and
 * healthy (Compose v1 has no `--wait`), and records the stack in
 * `.framework/run/containers.json` for `status`, `logs` and `down`.
 * Throws `FrameworkError` (`compose_failed`) or `SupervisorError`
 * (`service_gave_up`, with the container's last log lines).
 *
 * @example
 * await composeUp({ root, file, compose: await findCompose(), project: 'team', detach: true });
 */
export async function composeUp(options: ComposeUpOptions): Promise<ContainerState> {
  const env = composeEnv({ root: options.root, ...(options.env ? { env: options.env } : {}) });
  const file = stackComposeFile({ root: options.root, file: options.file, scale: options.scale ?? {} });
  const base = [...options.compose.argv.slice(1), '--project-name', options.project, '--project-directory', options.root, '-f', file];
  const stdio = options.output === 'stderr' ? (['ignore', 2, 2] as const) : (['ignore', 'inherit', 'inherit'] as const);
  const run = async (args: string[]) => {
    const all = [...base, ...args];
    const result = await execa(options.compose.argv[0]!, all, { cwd: options.root, env, shell: false, reject: false, stdio: [...stdio] });
    if (result.failed && !result.isTerminated) {
      throw new FrameworkError({ code: 'compose_failed', message: `${options.compose.argv.join(' ')} ${all.join(' ')} failed: ${result.shortMessage}` });
    }
  };
  await run(['build', ...buildTargets(file)]);
  const scale = Object.entries(options.scale ?? {}).flatMap(([service, n]) => ['--scale', `${service}=${n}`]);
  const state: ContainerState = {
    project: options.project,
    file,
    compose: options.compose.argv,
    startedAt: new Date().toISOString(),
    scale: options.scale ?? {},
  };
  if (!options.detach) {
    writeContainerState({ root: options.root, state });
    await run(['up', '--no-build', ...scale]);
    return state;
  }
  await run(['up', '--detach', '--no-build', ...scale]);
  writeContainerState({ root: options.root, state });
  await waitHealthy({ project: options.project, services: composeServices({ file }), timeoutMs: options.healthTimeoutMs ?? 300_000 });
  return state;
}

/**
 * The Compose file the stack runs: a copy of the project's in
 * `.framework/run/`, with the stack's trace receiver added (see
 * `addTraceReceiver`) and, with replicas, the scaled services publishing
 * their port on a free host port each (a fixed host port can be bound only
 * once; `status` shows which). Inside the network a service name reaches any
 * replica (Compose's own round robin), and a swarm's sessions are in Redis.
 * The project's own file when there is nothing to add.
 */
function stackComposeFile(options: { root: string; file: string; scale: Record<string, number> }): string {
  const data = parse(readFileSync(options.file, 'utf8')) as { services?: Record<string, { ports?: unknown[] }> };
  const scaled = Object.entries(options.scale).filter(([, n]) => n > 1);
  for (const [name] of scaled) {
    const service = data.services?.[name];
    if (!service) throw new FrameworkError({ code: 'invalid_request', message: `--scale names "${name}", which is not a service of ${options.file}.` });
    if (Array.isArray(service.ports)) service.ports = service.ports.map((port) => String(port).split(':').pop()!);
  }
  const traced = addTraceReceiver(data);
  if (traced) mkdirSync(join(options.root, TRACES_DIR), { recursive: true, mode: 0o700 });
  if (!traced && scaled.length === 0) return options.file;
  const dir = join(options.root, RUN_DIR);
  mkdirSync(dir, { recursive: true });
  const stackFile = join(dir, 'compose.stack.yaml');
  writeFileSync(stackFile, stringify(data, { lineWidth: 0 }));
  return stackFile;
}

/** One service per distinct image, so the toolkit image is built once (the others find it cached and tagged). */
function buildTargets(file: string): string[] {
  const compose = parse(readFileSync(file, 'utf8')) as { services?: Record<string, { image?: string; build?: unknown }> };
  const seen = new Map<string, string>();
  for (const [name, service] of Object.entries(compose.services ?? {})) {
    if (!service.build) continue;
    const key = service.image ?? name;
    if (!seen.has(key)) seen.set(key, name);
  }
  return [...seen.values()];
}

/** Waits until every container of the project runs and is healthy; a container that exits or turns unhealthy fails at once. */
async function waitHealthy(options: { project: string; services: string[]; timeoutMs: number }): Promise<void> {
  const deadline = Date.now() + options.timeoutMs;
  for (;;) {
    const containers = await containerStatus({ project: options.project });
    const bad = containers.find((c) => c.state === 'exited' || c.state === 'dead' || c.health === 'unhealthy');
    if (bad) {
      throw new SupervisorError({
        code: 'service_gave_up',
        message: `The container of ${bad.service} ${bad.health === 'unhealthy' ? 'is unhealthy' : `stopped (exit code ${bad.exitCode})`}; see framework-cli logs ${bad.service}.`,
        service: bad.service,
        lastLines: await lastContainerLines({ id: bad.id, lines: 20 }),
      });
    }
    const missing = options.services.filter((s) => !containers.some((c) => c.service === s));
    if (missing.length === 0 && containers.every((c) => c.state === 'running' && (c.health === 'healthy' || c.health === 'none'))) return;
    if (Date.now() > deadline) {
      const waiting = containers.filter((c) => c.health !== 'healthy').map((c) => c.name);
      throw new SupervisorError({
        code: 'service_gave_up',
        message: `Not every container was healthy within ${Math.round(options.timeoutMs / 1000)} s (waiting for ${[...missing, ...waiting].join(', ')}).`,
        lastLines: [],
      });
    }
    await sleep(1000);
  }
}
