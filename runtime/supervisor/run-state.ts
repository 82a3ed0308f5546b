import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { FrameworkError } from '../core/framework-error.js';
import { RUN_DIR, SERVICE_KINDS } from './project-file.js';

/** Where a running stack describes itself, relative to the project root. */
export const RUN_STATE_FILE = `${RUN_DIR}/state.json`;

export const RunServiceSchema = z.object({
  name: z.string(),
  /** What it is (`agent`, `policy`, ...), so `chat` can find the stack's agents; absent in states written before it was recorded. */
  kind: z.enum(SERVICE_KINDS).optional(),
  pid: z.number().int().nullable(),
  port: z.number().int(),
  url: z.string(),
  /** What `status` asks; default `<url>/health`. */
  healthUrl: z.string().optional(),
  log: z.string(),
  state: z.string().default('healthy'),
  /** When its current process started (ISO 8601); null while it has none. */
  startedAt: z.string().nullable().default(null),
  restarts: z.number().int().default(0),
});
export type RunService = z.infer<typeof RunServiceSchema>;

/** `.framework/run/state.json`: written by the supervisor of a stack, read by `status`, `logs` and `down`. */
export const RunStateSchema = z.object({
  supervisorPid: z.number().int(),
  startedAt: z.string(),
  /** `starting` until every service is healthy; `failed` after the supervisor gave up (see `error`). */
  status: z.enum(['starting', 'healthy', 'failed']).default('healthy'),
  detached: z.boolean().default(true),
  error: z.object({ service: z.string().optional(), message: z.string(), lastLines: z.array(z.string()).default([]) }).optional(),
  services: z.array(RunServiceSchema),
});
export type RunState = z.infer<typeof RunStateSchema>;
export type RunStateInput = z.input<typeof RunStateSchema>;

/**
 * The run state of the stack in `root`, or `undefined` when there is none (or
 * it is unreadable: a half-written or foreign file counts as none).
 *
 * @example
 * const state = readRunState({ root: process.cwd() });
 * if (state && isAlive(state.supervisorPid)) console.log('running');
 */
export function readRunState(options: { root: string }): RunState | undefined {
  let text: string;
  try {
    text = readFileSync(join(options.root, RUN_STATE_FILE), 'utf8');
  } catch {
    return undefined;
  }
  try {
    const parsed = RunStateSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Writes the run state atomically (a temporary file renamed over the old one),
 * so a reader never sees half of it.
 *
 * @example
 * writeRunState({ root, state: { supervisorPid: process.pid, startedAt: new Date().toISOString(), status: 'starting', services: [] } });
 */
export function writeRunState(options: { root: string; state: RunStateInput }): void {
  const path = join(options.root, RUN_STATE_FILE);
  mkdirSync(join(options.root, RUN_DIR), { recursive: true });
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(RunStateSchema.parse(options.state), null, 2)}\n`);
  renameSync(temporary, path);
}

/**
 * Removes the run state (the logs stay).
 *
 * @example
 * clearRunState({ root });
 */
export function clearRunState(options: { root: string }): void {
  rmSync(join(options.root, RUN_STATE_FILE), { force: true });
}

/**
 * True when a process with this pid exists (`process.kill(pid, 0)`; a
 * process of another user counts as alive).
 *
 * @example
 * isAlive(state.supervisorPid);
 */
export function isAlive(pid: number | null | undefined): boolean {
  if (pid === null || pid === undefined || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * The pids of a run state that are still alive: the supervisor's and its services'.
 *
 * @example
 * if (livePids(state).length === 0) clearRunState({ root });
 */
export function livePids(state: RunState): number[] {
  return [state.supervisorPid, ...state.services.map((s) => s.pid)].filter((pid): pid is number => isAlive(pid));
}

/**
 * Throws a `FrameworkError` (code `stack_running`) when a stack recorded in
 * `root` still has a live process; removes a stale record otherwise.
 *
 * @example
 * ensureNoLiveStack({ root }); // before starting a new stack
 */
export function ensureNoLiveStack(options: { root: string }): void {
  const state = readRunState(options);
  if (!state) return;
  if (livePids(state).length === 0) {
    clearRunState(options);
    return;
  }
  throw new FrameworkError({
    code: 'stack_running',
    message: `A stack is already running in ${options.root} (supervisor pid ${state.supervisorPid}); stop it first with: framework-cli down --dir ${options.root}`,
  });
}
