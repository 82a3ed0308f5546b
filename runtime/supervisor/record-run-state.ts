import type { Supervisor } from './supervisor.js';
import { writeRunState, type RunState } from './run-state.js';

/**
 * Writes `.framework/run/state.json` from what `supervisor` reports now:
 * every service's pid, port, URL, log file and state.
 *
 * @example
 * recordRunState({ root, supervisor, startedAt, status: 'healthy', detached: true });
 */
export function recordRunState(options: {
  root: string;
  supervisor: Supervisor;
  startedAt: string;
  status: RunState['status'];
  detached: boolean;
  error?: RunState['error'];
}): void {
  writeRunState({
    root: options.root,
    state: {
      supervisorPid: process.pid,
      startedAt: options.startedAt,
      status: options.status,
      detached: options.detached,
      ...(options.error ? { error: options.error } : {}),
      services: options.supervisor.status().map((s) => ({
        name: s.name,
        kind: s.kind,
        pid: s.pid ?? null,
        port: s.port,
        url: s.url,
        healthUrl: s.healthUrl,
        log: s.log,
        state: s.state,
        startedAt: s.startedAt === undefined ? null : new Date(s.startedAt).toISOString(),
        restarts: s.restarts,
      })),
    },
  });
}
