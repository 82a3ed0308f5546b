import { readlinkSync } from 'node:fs';
import { dirname } from 'node:path';
import { portOwnerProcess } from '../doctor/port-owner.js';
import { readRunState } from './run-state.js';

/** Who holds a port: the process, and the stack of ours it belongs to when it is one. */
export interface PortHolder {
  /** `node (pid 4242)`. */
  process: string;
  pid: number;
  /** The folder whose `.framework/run/` records the stack that runs it (`down --dir` stops it). */
  stackRoot?: string;
  /** Its service in that stack. */
  service?: string;
}

/**
 * The process listening on `port` and, when it is a service of one of our
 * stacks, that stack's folder and the service's name: a service runs in its
 * stack's folder, whose run state lists its pid or port. Undefined when
 * nothing can tell (no `ss`, another user's process).
 *
 * @example
 * const holder = await findPortHolder({ port: 8100 });
 * holder?.stackRoot; // '/home/ada/tutorial'
 */
export async function findPortHolder(options: { port: number }): Promise<PortHolder | undefined> {
  const owner = await portOwnerProcess(options.port);
  if (!owner) return undefined;
  const holder: PortHolder = { process: `${owner.command} (pid ${owner.pid})`, pid: owner.pid };
  let cwd: string;
  try {
    cwd = readlinkSync(`/proc/${owner.pid}/cwd`);
  } catch {
    return holder;
  }
  // The stack's folder, or a folder below it for a service started elsewhere.
  for (let dir = cwd; ; dir = dirname(dir)) {
    const state = readRunState({ root: dir });
    const service = state?.services.find((s) => s.pid === owner.pid) ?? state?.services.find((s) => s.port === options.port);
    if (service) return { ...holder, stackRoot: dir, service: service.name };
    if (dirname(dir) === dir) return holder;
  }
}
