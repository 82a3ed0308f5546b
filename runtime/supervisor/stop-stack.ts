import { setTimeout as sleep } from 'node:timers/promises';
import { clearRunState, isAlive, readRunState } from './run-state.js';

/** What `stopStack` did. */
export interface StopStackResult {
  /** Services that had a live process when asked to stop. */
  stopped: string[];
  /** Pids that did not go on SIGTERM and were killed. */
  killed: number[];
}

/**
 * Stops the stack recorded in `<root>/.framework/run/state.json`: SIGTERM to
 * its supervisor (which stops the services in reverse order), a wait of up to
 * `timeoutMs` (default 30 s), then SIGKILL to whatever of the recorded pids
 * (and their process groups) is still alive; finally removes the state.
 * Nothing recorded, or nothing alive: `{ stopped: [], killed: [] }`.
 *
 * @example
 * const { stopped } = await stopStack({ root: process.cwd() });
 */
export async function stopStack(options: { root: string; timeoutMs?: number }): Promise<StopStackResult> {
  const { root } = options;
  const state = readRunState({ root });
  if (!state) return { stopped: [], killed: [] };
  const stopped = state.services.filter((s) => isAlive(s.pid)).map((s) => s.name);
  const supervisorAlive = isAlive(state.supervisorPid);
  if (supervisorAlive) {
    process.kill(state.supervisorPid, 'SIGTERM');
    const deadline = Date.now() + (options.timeoutMs ?? 30_000);
    while (isAlive(state.supervisorPid) && Date.now() < deadline) await sleep(100);
  }
  // The supervisor may have restarted a service since; its last word counts too.
  const latest = readRunState({ root });
  const pids = new Set([state.supervisorPid, ...state.services.map((s) => s.pid), ...(latest?.services.map((s) => s.pid) ?? [])]);
  const killed: number[] = [];
  for (const pid of pids) {
    if (!isAlive(pid)) continue;
    killed.push(pid!);
    killGroup(pid!);
  }
  const deadline = Date.now() + 5_000;
  while ([...pids].some((pid) => isAlive(pid)) && Date.now() < deadline) await sleep(50);
  clearRunState({ root });
  return { stopped: supervisorAlive || stopped.length > 0 ? stopped : [], killed };
}

function killGroup(pid: number): void {
  try {
    if (process.platform !== 'win32') process.kill(-pid, 'SIGKILL');
  } catch {
    // Not a group leader (or gone): the process itself below.
  }
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // Gone meanwhile.
  }
}
