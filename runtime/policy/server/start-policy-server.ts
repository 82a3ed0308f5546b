import { createWriteStream } from 'node:fs';
import type { Logger } from '../../core/logger.js';
import { listen } from '../../core/server/listen.js';
import { DecisionLog } from './decision-log.js';
import { DecisionPool } from './decision-pool.js';
import { createPolicyServer } from './opa-server.js';
import { PolicyLoadError } from './policy-set.js';
import { PolicyStore } from './policy-store.js';
import { DEFAULT_PORTS } from '../../core/defaults.js';

export interface StartPolicyServerOptions {
  dir: string;
  host?: string;
  /** Default 8181 (OPA's port); 0 picks a free one. */
  port?: number;
  logger?: Logger;
  watch?: boolean;
  allowWrites?: boolean;
  /** Where decision log lines go: a file path, or `-` for standard output. Off when absent. */
  decisionLog?: string;
  /** Input fields erased from decision log lines (`/input/password`). */
  mask?: readonly string[];
  /** The evaluation budget in ms (default 5000): a decision running longer is stopped with `eval_cancel_error`. */
  evalTimeoutMs?: number;
  /** Worker threads for decisions that outgrow the event loop (default 2; 0 evaluates everything on the event loop). */
  workers?: number;
}

export interface RunningPolicyServer {
  readonly url: string;
  readonly port: number;
  readonly store: PolicyStore;
  close(): Promise<void>;
}

/**
 * Loads a policy directory and serves OPA's REST API over it. Refuses to
 * start when the policies do not compile (`PolicyLoadError` lists the
 * problems); once running, a broken edit keeps the last good set serving.
 */
export async function startPolicyServer(options: StartPolicyServerOptions): Promise<RunningPolicyServer> {
  const store = new PolicyStore({ dir: options.dir, ...(options.logger ? { logger: options.logger } : {}) });
  if (!(await store.reload())) throw new PolicyLoadError(store.status?.problems ?? []);
  const logStream =
    options.decisionLog === undefined ? undefined : options.decisionLog === '-' ? process.stdout : createWriteStream(options.decisionLog, { flags: 'a' });
  const decisionLog = logStream ? new DecisionLog({ write: (line) => logStream.write(`${line}\n`), mask: options.mask ?? [] }) : undefined;
  const app = createPolicyServer({
    store,
    ...(options.logger ? { logger: options.logger } : {}),
    allowWrites: options.allowWrites ?? false,
    ...(decisionLog ? { decisionLog } : {}),
    ...(options.evalTimeoutMs === undefined ? {} : { evalTimeoutMs: options.evalTimeoutMs }),
    ...(options.workers === 0 || !DecisionPool.available() ? { pool: false as const } : { pool: new DecisionPool({ size: options.workers ?? 2 }) }),
  });
  let listening;
  try {
    listening = await listen(app, {
      host: options.host ?? '127.0.0.1',
      port: options.port ?? DEFAULT_PORTS.policy,
      portHint: 'pass --addr 127.0.0.1:<port>',
      direct: app.direct,
    });
  } catch (error) {
    store.close();
    await app.close();
    throw error;
  }
  if (options.watch ?? true) store.watch();
  return {
    url: listening.url,
    port: listening.port,
    store,
    async close() {
      store.close();
      await listening.close();
      await app.close();
      if (logStream && logStream !== process.stdout) await new Promise<void>((resolve) => (logStream as NodeJS.WritableStream).end(resolve));
    },
  };
}
