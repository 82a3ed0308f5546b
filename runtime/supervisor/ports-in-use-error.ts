import { FrameworkError } from '../core/framework-error.js';

/** One service whose port cannot be used. */
export interface PortConflict {
  service: string;
  port: number;
  /** `in_use`: something else listens there; `duplicate`: two services of the stack claim it. */
  reason: 'in_use' | 'duplicate';
  /** For `duplicate`: the other service. */
  other?: string;
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
        ? `  - ${c.service}: port ${c.port} on 127.0.0.1 is already in use; stop what uses it or ${fix}`
        : `  - ${c.service}: port ${c.port} is also the port of ${c.other ?? 'another service'}; ${fix}`,
    );
    super({ code: 'port_in_use', message: `Cannot start the stack:\n${lines.join('\n')}` });
    this.conflicts = options.conflicts;
  }
}
