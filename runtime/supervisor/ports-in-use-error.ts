import { FrameworkError } from '../core/framework-error.js';
import type { PortHolder } from './port-holder.js';

/** One service whose port cannot be used. */
export interface PortConflict {
  service: string;
  port: number;
  /** `in_use`: something else listens there; `duplicate`: two services of the stack claim it. */
  reason: 'in_use' | 'duplicate';
  /** For `duplicate`: the other service. */
  other?: string;
  /** For `in_use`: the process listening there, and its stack when it is one of ours. */
  holder?: PortHolder;
}

/**
 * Ports of a stack are taken, found before anything started. The message has
 * one line per conflict, each with the service, the port and the fix.
 *
 * @example
 * new PortsInUseError({ conflicts: [{ service: 'planner', port: 8100, reason: 'in_use' }] }).message;
 * // 'Cannot start the stack:\n  - planner: port 8100 on 127.0.0.1 is already in use; stop what uses it or change the port in .framework/project.json'
 */
export class PortsInUseError extends FrameworkError {
  readonly conflicts: readonly PortConflict[];

  constructor(options: { conflicts: readonly PortConflict[]; fix?: string }) {
    const fix = options.fix ?? 'change the port in .framework/project.json';
    const lines = options.conflicts.map((c) =>
      c.reason === 'in_use'
        ? `  - ${c.service}: ${inUse(c, fix)}`
        : `  - ${c.service}: port ${c.port} is also the port of ${c.other ?? 'another service'}; ${fix}`,
    );
    super({ code: 'port_in_use', message: `Cannot start the stack:\n${lines.join('\n')}` });
    this.conflicts = options.conflicts;
  }
}

/** Who holds the port and how to get it back: stop that stack (`down --dir`), or move this one. */
function inUse(conflict: PortConflict, fix: string): string {
  const { port, holder } = conflict;
  if (holder?.stackRoot) {
    return `port ${port} on 127.0.0.1 is held by ${holder.service ?? 'a service'} (${holder.process}) of the stack running from ${holder.stackRoot}; stop that stack with framework-cli down --dir ${holder.stackRoot}, or ${fix}`;
  }
  if (holder) return `port ${port} on 127.0.0.1 is already in use by ${holder.process}; stop it, or ${fix}`;
  return `port ${port} on 127.0.0.1 is already in use; stop what uses it (framework-cli down --dir <its folder>, if it is another of our stacks), or ${fix}`;
}
