import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { RUN_DIR } from './project-file.js';
import { clearRunState, readRunState, type RunState } from './run-state.js';
import { serviceEnv } from './service-env.js';
import { writeStackFile } from './stack-file.js';
import type { ServiceSpecInput } from './supervisor.js';
import { SupervisorError } from './supervisor-error.js';

/** Output of the background supervisor itself, relative to the project root. */
export const SUPERVISOR_LOG = `${RUN_DIR}/supervisor.log`;

/** The compiled entry of the background supervisor (`main.js` beside this module). */
const MAIN = fileURLToPath(new URL('./main.js', import.meta.url));

/**
 * Starts the stack under a detached background supervisor
 * (`node main.js <root>`, its own session, its log in
 * `.framework/run/supervisor.log`) and resolves with the run state once
 * every service is healthy. Throws `SupervisorError` (with the failing
 * service's last log lines) when the supervisor gives up or dies, or when
 * `signal` aborts the wait (the supervisor is then told to stop).
 *
 * @example
 * const state = await startDetached({ root, cliPath, services: project.services });
 * for (const s of state.services) console.log(s.name, s.url);
 */
export async function startDetached(options: {
  root: string;
  cliPath: string;
  services: readonly ServiceSpecInput[];
  healthTimeoutMs?: number;
  signal?: AbortSignal;
}): Promise<RunState> {
  const { root } = options;
  if (!existsSync(MAIN)) throw new SupervisorError({ code: 'supervisor_failed', message: `The supervisor entry ${MAIN} is missing; run npm run build.` });
  writeStackFile({
    root,
    stack: { cliPath: options.cliPath, services: [...options.services], ...(options.healthTimeoutMs ? { healthTimeoutMs: options.healthTimeoutMs } : {}) },
  });
  clearRunState({ root });
  const logPath = join(root, SUPERVISOR_LOG);
  writeFileSync(logPath, '');
  // The supervisor writes its own log (main.ts): its standard streams go nowhere, so it never holds our terminal.
  const child = execa(process.execPath, [MAIN, root], {
    cwd: root,
    env: serviceEnv({}),
    extendEnv: false,
    shell: false,
    detached: true,
    cleanup: false,
    reject: false,
    stdio: 'ignore',
  });
  child.unref();
  let exited = false;
  void child.then(() => (exited = true));
  const pid = child.pid;
  const perService = options.healthTimeoutMs ?? 60_000;
  const deadline = Date.now() + perService * Math.max(1, options.services.length) + 30_000;
  for (;;) {
    const state = readRunState({ root });
    if (state && state.supervisorPid === pid) {
      if (state.status === 'healthy') return state;
      if (state.status === 'failed') {
        throw new SupervisorError({
          code: 'service_gave_up',
          message: state.error?.message ?? 'The stack failed to start.',
          ...(state.error?.service ? { service: state.error.service } : {}),
          lastLines: state.error?.lastLines ?? [],
        });
      }
    }
    if (exited || pid === undefined) {
      throw new SupervisorError({
        code: 'supervisor_failed',
        message: `The background supervisor stopped before the stack was healthy; see ${logPath}.`,
        lastLines: tail(logPath, 20),
      });
    }
    if (options.signal?.aborted || Date.now() > deadline) {
      process.kill(pid, 'SIGTERM');
      const why = options.signal?.aborted ? 'Interrupted' : 'Timed out';
      throw new SupervisorError({
        code: 'supervisor_stopped',
        message: `${why} while waiting for the stack to get healthy; the background supervisor was told to stop.`,
        lastLines: tail(logPath, 20),
      });
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

function tail(path: string, lines: number): string[] {
  try {
    return readFileSync(path, 'utf8').split('\n').filter(Boolean).slice(-lines);
  } catch {
    return [];
  }
}
