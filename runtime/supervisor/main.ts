/**
 * The background supervisor of `framework-cli up --detach`:
 * `node dist/runtime/supervisor/main.js <project root>`. Reads
 * `.framework/run/stack.json`, starts the services, keeps
 * `.framework/run/state.json` up to date (status `healthy` once all are),
 * and stops everything on SIGTERM, SIGINT or SIGHUP, then removes the state.
 * After giving up on a service it leaves the state with status `failed`.
 */
import { appendFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createLogger } from '../core/logger.js';
import { RUN_DIR } from './project-file.js';
import { recordRunState } from './record-run-state.js';
import { clearRunState, type RunState } from './run-state.js';
import { readStackFile } from './stack-file.js';
import { Supervisor } from './supervisor.js';
import { SupervisorError } from './supervisor-error.js';

const rootArgument = process.argv[2];
const root = resolve(rootArgument ?? '.');
const logFile = join(root, RUN_DIR, 'supervisor.log');
/** Standard streams of a detached supervisor go nowhere; everything it says goes to its log file. */
const write = (line: string) => {
  try {
    appendFileSync(logFile, `${line}\n`);
  } catch {
    // Nowhere left to report to.
  }
};

async function main(): Promise<number> {
  if (!rootArgument) {
    process.stderr.write('usage: node main.js <project root>\n');
    return 2;
  }
  const stack = readStackFile({ root });
  const startedAt = new Date().toISOString();
  let status: RunState['status'] = 'starting';
  let error: RunState['error'];
  const record = () => recordRunState({ root, supervisor, startedAt, status, detached: true, ...(error ? { error } : {}) });
  const supervisor: Supervisor = new Supervisor({
    root,
    services: stack.services,
    cliPath: stack.cliPath,
    logger: createLogger({ name: 'supervisor', write }),
    ...(stack.healthTimeoutMs ? { healthTimeoutMs: stack.healthTimeoutMs } : {}),
    onEvent: (event) => {
      if (event.type === 'log') return;
      write(JSON.stringify({ time: new Date().toISOString(), ...event }));
      if (event.type === 'gave_up') {
        status = 'failed';
        error = { service: event.service, message: `${event.service} ${event.reason}`, lastLines: event.lastLines };
      }
      record();
    },
  });
  let stopping = false;
  const stop = () => {
    stopping = true;
    void supervisor.stop();
  };
  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) process.on(signal, stop);
  record();
  try {
    await supervisor.start();
    status = 'healthy';
    record();
  } catch (failure) {
    if (stopping && !(SupervisorError.isInstance(failure) && failure.code === 'service_gave_up')) {
      clearRunState({ root });
      return 0;
    }
    status = 'failed';
    const lastLines = SupervisorError.isInstance(failure) ? [...failure.lastLines] : [];
    const service = SupervisorError.isInstance(failure) ? failure.service : undefined;
    error = { message: failure instanceof Error ? failure.message : String(failure), lastLines, ...(service ? { service } : {}) };
    record();
    return 1;
  }
  const outcome = await supervisor.finished;
  if (outcome.reason === 'gave_up') {
    status = 'failed';
    error = { service: outcome.service, message: outcome.message, lastLines: outcome.lastLines };
    record();
    return 1;
  }
  clearRunState({ root });
  return 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    write(error instanceof Error ? (error.stack ?? error.message) : String(error));
    process.exit(1);
  },
);
