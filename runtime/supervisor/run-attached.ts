import { recordRunState } from './record-run-state.js';
import { clearRunState, type RunState } from './run-state.js';
import { Supervisor, type ServiceSpecInput, type ServiceStatus, type SupervisorOutcome } from './supervisor.js';
import { SupervisorError } from './supervisor-error.js';
import type { SupervisorEvent } from './supervisor-event.js';

/**
 * Runs a stack in this process until SIGINT or SIGTERM (or until the
 * supervisor gives up on a service): starts the services, records
 * `.framework/run/state.json` (so `status`, `logs` and `down` work from
 * another terminal), calls `onReady` once all are healthy, and stops
 * everything in reverse order at the end. Throws `SupervisorError` when the
 * stack cannot start; a signal during the start is a normal stop.
 *
 * @example
 * const outcome = await runAttached({ root, cliPath, services, onEvent: print, onReady: (services) => printTable(services) });
 */
export async function runAttached(options: {
  root: string;
  cliPath: string;
  services: readonly ServiceSpecInput[];
  healthTimeoutMs?: number;
  onEvent?: (event: SupervisorEvent) => void;
  onReady?: (services: ServiceStatus[]) => void;
}): Promise<SupervisorOutcome & { services: ServiceStatus[] }> {
  const { root } = options;
  const startedAt = new Date().toISOString();
  let status: RunState['status'] = 'starting';
  let started = false;
  const record = () => {
    if (started) recordRunState({ root, supervisor, startedAt, status, detached: false });
  };
  const supervisor: Supervisor = new Supervisor({
    root,
    services: options.services,
    cliPath: options.cliPath,
    ...(options.healthTimeoutMs ? { healthTimeoutMs: options.healthTimeoutMs } : {}),
    onEvent: (event) => {
      options.onEvent?.(event);
      if (event.type !== 'log' && event.type !== 'stopped') record();
    },
  });
  let signalled = false;
  const stop = () => {
    signalled = true;
    void supervisor.stop();
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  try {
    started = true;
    record();
    try {
      await supervisor.start();
    } catch (error) {
      if (signalled && SupervisorError.isInstance(error) && error.code === 'supervisor_stopped') return { reason: 'stopped', services: supervisor.status() };
      throw error;
    }
    status = 'healthy';
    record();
    options.onReady?.(supervisor.status());
    const outcome = await supervisor.finished;
    return { ...outcome, services: supervisor.status() };
  } finally {
    started = false;
    await supervisor.stop();
    clearRunState({ root });
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
  }
}
