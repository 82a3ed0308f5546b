import { isAlive, readRunState, type RunState } from './run-state.js';
import { checkHealth } from './wait-for-health.js';

/** One service as `framework-cli status` reports it. */
export interface ServiceReport {
  name: string;
  pid: number | null;
  alive: boolean;
  port: number;
  url: string;
  /** `ok`: GET /health answered 2xx just now; `failing`: it answered otherwise or not at all while the process lives; `down`: no process. */
  health: 'ok' | 'failing' | 'down';
  /** Seconds since its current process started; null without one. */
  uptimeSeconds: number | null;
  restarts: number;
  log: string;
}

/** A stack as `framework-cli status` reports it. */
export interface StackStatus {
  running: boolean;
  supervisorPid: number | null;
  startedAt: string | null;
  status: RunState['status'] | 'stopped';
  error?: RunState['error'];
  services: ServiceReport[];
}

/**
 * The stack of `root` right now: whether its supervisor lives, and for each
 * service its pid, port, health (asked now) and uptime.
 *
 * @example
 * const { running, services } = await stackStatus({ root: process.cwd() });
 */
export async function stackStatus(options: { root: string }): Promise<StackStatus> {
  const state = readRunState({ root: options.root });
  if (!state) return { running: false, supervisorPid: null, startedAt: null, status: 'stopped', services: [] };
  const now = Date.now();
  const services = await Promise.all(
    state.services.map(async (s): Promise<ServiceReport> => {
      const alive = isAlive(s.pid);
      const healthy = alive && (await checkHealth({ url: s.healthUrl ?? `${s.url}/health` }));
      return {
        name: s.name,
        pid: s.pid,
        alive,
        port: s.port,
        url: s.url,
        health: healthy ? 'ok' : alive ? 'failing' : 'down',
        uptimeSeconds: alive && s.startedAt ? Math.max(0, Math.round((now - Date.parse(s.startedAt)) / 1000)) : null,
        restarts: s.restarts,
        log: s.log,
      };
    }),
  );
  const running = isAlive(state.supervisorPid);
  return {
    running,
    supervisorPid: state.supervisorPid,
    startedAt: state.startedAt,
    status: running ? state.status : state.status === 'failed' ? 'failed' : 'stopped',
    ...(state.error ? { error: state.error } : {}),
    services,
  };
}
