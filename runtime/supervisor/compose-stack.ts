import { execa } from 'execa';
import { FrameworkError } from '../core/framework-error.js';
import { composeEnv } from './compose-env.js';
import { clearContainerState, composeServicePorts, type ContainerState } from './container-state.js';
import type { ServiceReport, StackStatus } from './stack-status.js';
import type { StopStackResult } from './stop-stack.js';

/** One container of a Compose project, as Docker reports it. */
export interface ContainerInfo {
  id: string;
  /** Container name (`team_planner_1` with Compose v1, `team-planner-1` with v2). */
  name: string;
  service: string;
  /** Replica number within its service, from 1. */
  replica: number;
  /** `running`, `exited`, `restarting`, ... */
  state: string;
  /** `healthy`, `unhealthy`, `starting`, or `none` without a health check. */
  health: string;
  exitCode: number;
  startedAt: string;
  restarts: number;
  /** Its address on the project's network. */
  ip: string | null;
  /** The host port its port is published on, if any. */
  hostPort: number | null;
}

const FORMAT =
  '{{json (index .Config.Labels "com.docker.compose.service")}}\t{{json (index .Config.Labels "com.docker.compose.container-number")}}\t{{.Name}}\t' +
  '{{.State.Status}}\t{{if .State.Health}}{{.State.Health.Status}}{{else}}none{{end}}\t{{.State.ExitCode}}\t{{.State.StartedAt}}\t{{.RestartCount}}\t' +
  '{{range .NetworkSettings.Networks}}{{.IPAddress}} {{end}}\t{{.Id}}\t{{range $p, $c := .NetworkSettings.Ports}}{{if $c}}{{(index $c 0).HostPort}} {{end}}{{end}}';

async function docker(args: string[]): Promise<string> {
  const result = await execa('docker', args, { reject: false, shell: false, stdin: 'ignore', timeout: 60_000 });
  if (result.failed)
    throw new FrameworkError({ code: 'compose_failed', message: `docker ${args.join(' ')} failed: ${String(result.stderr).trim() || result.shortMessage}` });
  return String(result.stdout);
}

/**
 * The containers of a Compose project (any state), by the labels both
 * Compose v1 and v2 put on them, in service then replica order.
 *
 * @example
 * const containers = await containerStatus({ project: 'team' });
 */
export async function containerStatus(options: { project: string }): Promise<ContainerInfo[]> {
  const ids = (await docker(['ps', '--all', '--quiet', '--filter', `label=com.docker.compose.project=${options.project}`])).split('\n').filter(Boolean);
  if (ids.length === 0) return [];
  const rows = (await docker(['inspect', '--format', FORMAT, ...ids])).split('\n').filter(Boolean);
  return rows
    .map((row) => {
      const [service, number, name, state, health, exitCode, startedAt, restarts, ips, id, hostPorts] = row.split('\t');
      return {
        id: id ?? '',
        name: (name ?? '').replace(/^\//, ''),
        service: JSON.parse(service ?? '""') as string,
        replica: Number(JSON.parse(number ?? '"1"')) || 1,
        state: state ?? 'unknown',
        health: health ?? 'none',
        exitCode: Number(exitCode),
        startedAt: startedAt ?? '',
        restarts: Number(restarts) || 0,
        ip: ips?.trim().split(' ')[0] || null,
        hostPort: Number(hostPorts?.trim().split(' ')[0]) || null,
      };
    })
    .filter((c) => !c.name.includes('_run_') && !/-run-[0-9a-f]+$/.test(c.name))
    .sort((a, b) => a.service.localeCompare(b.service) || a.replica - b.replica);
}

/** The last lines a container wrote (stdout and stderr). */
export async function lastContainerLines(options: { id: string; lines: number }): Promise<string[]> {
  const result = await execa('docker', ['logs', '--tail', String(options.lines), options.id], { reject: false, shell: false, stdin: 'ignore', all: true });
  return String(result.all ?? '')
    .split('\n')
    .filter((line) => line !== '');
}

/**
 * `status` of a containers stack, in the shape of the processes' one: a row
 * per container (`planner-2` for a second replica), `pid` null, the URL a
 * user reaches it at (the published port on 127.0.0.1, else its service
 * name), health from its Docker health check, uptime and restarts.
 */
export async function composeStatus(options: { root: string; state: ContainerState }): Promise<StackStatus> {
  const ports = new Map(composeServicePorts({ file: options.state.file }).map((s) => [s.name, s]));
  const containers = await containerStatus({ project: options.state.project });
  const order = [...ports.keys()];
  containers.sort((a, b) => order.indexOf(a.service) - order.indexOf(b.service) || a.replica - b.replica);
  const now = Date.now();
  const services = containers.map((c): ServiceReport => {
    const port = ports.get(c.service);
    const alive = c.state === 'running';
    return {
      name: c.replica > 1 ? `${c.service}-${c.replica}` : c.service,
      pid: null,
      alive,
      port: port?.port ?? 0,
      url: c.hostPort ? `http://127.0.0.1:${c.hostPort}` : `http://${c.service}:${port?.port ?? 0}`,
      health: !alive ? 'down' : c.health === 'healthy' || c.health === 'none' ? 'ok' : 'failing',
      uptimeSeconds: alive && c.startedAt ? Math.max(0, Math.round((now - Date.parse(c.startedAt)) / 1000)) : null,
      restarts: c.restarts,
      log: `docker logs ${c.name}`,
    };
  });
  const running = services.some((s) => s.alive);
  return {
    running,
    supervisorPid: null,
    startedAt: options.state.startedAt,
    status: !running ? 'stopped' : services.every((s) => s.health === 'ok') ? 'healthy' : 'starting',
    services,
  };
}

/**
 * `down` of a containers stack: Compose's `down --remove-orphans` (containers
 * and the network go; named volumes, which hold the model cache, the vector
 * store and Redis's data, stay; `--volumes` removes them too), then the
 * record. Returns the services that had a running container.
 */
export async function composeDown(options: { root: string; state: ContainerState; volumes?: boolean; timeoutSeconds?: number }): Promise<StopStackResult> {
  const running = (await containerStatus({ project: options.state.project })).filter((c) => c.state === 'running');
  const [program, ...lead] = options.state.compose;
  const args = [
    ...lead,
    '--project-name',
    options.state.project,
    '--project-directory',
    options.root,
    '-f',
    options.state.file,
    'down',
    '--remove-orphans',
    '--timeout',
    String(options.timeoutSeconds ?? 10),
  ];
  if (options.volumes) args.push('--volumes');
  const result = await execa(program!, args, {
    cwd: options.root,
    env: composeEnv({ root: options.root }),
    reject: false,
    shell: false,
    stdin: 'ignore',
    all: true,
  });
  if (result.failed) {
    throw new FrameworkError({
      code: 'compose_failed',
      message: `${options.state.compose.join(' ')} ${args.join(' ')} failed: ${
        String(result.all ?? '')
          .trim()
          .split('\n')
          .pop() ?? result.shortMessage
      }`,
    });
  }
  clearContainerState({ root: options.root });
  return { stopped: [...new Set(running.map((c) => (c.replica > 1 ? `${c.service}-${c.replica}` : c.service)))], killed: [] };
}

/** A container's name in `status` and `logs`: its service, `-<n>` for a replica past the first. */
export function containerLabel(container: ContainerInfo): string {
  return container.replica > 1 ? `${container.service}-${container.replica}` : container.service;
}

/**
 * Follows the output of containers (`docker logs --follow`, from now on)
 * until `signal` aborts, line by line.
 */
export async function followContainers(options: {
  containers: readonly ContainerInfo[];
  onLine: (name: string, line: string) => void;
  signal: AbortSignal;
}): Promise<void> {
  await Promise.all(
    options.containers.map(async (container) => {
      const child = execa('docker', ['logs', '--follow', '--tail', '0', container.id], {
        reject: false,
        shell: false,
        stdin: 'ignore',
        all: true,
        buffer: false,
        cancelSignal: options.signal,
      });
      let pending = '';
      child.all?.on('data', (chunk: Buffer) => {
        const lines = (pending + chunk.toString('utf8')).split('\n');
        pending = lines.pop() ?? '';
        for (const line of lines) options.onLine(containerLabel(container), line);
      });
      await child;
    }),
  );
}
