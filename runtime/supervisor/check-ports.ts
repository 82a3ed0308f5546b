import { createServer } from 'node:net';
import { findPortHolder } from './port-holder.js';
import { PortsInUseError, type PortConflict } from './ports-in-use-error.js';

/** What `checkPorts` needs of a service. */
export interface PortClaim {
  name: string;
  port: number;
}

/**
 * True when nothing listens on `host:port` right now (a listen succeeds).
 *
 * @example
 * if (!(await isPortFree({ port: 8100 }))) console.log('8100 is taken');
 */
export function isPortFree(options: { port: number; host?: string }): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.unref();
    server.once('error', () => resolve(false));
    server.listen({ port: options.port, host: options.host ?? '127.0.0.1', exclusive: true }, () => server.close(() => resolve(true)));
  });
}

/**
 * Checks, before anything starts, that every service's port is free on
 * 127.0.0.1 and claimed by one service only. Throws one `PortsInUseError`
 * listing every conflict (service, port, who holds it (the process, and the
 * stack it belongs to when it is one of ours) and the fix); `fix` replaces the
 * default advice ("change the port in .framework/project.json").
 *
 * @example
 * await checkPorts({ services: project.services });
 */
export async function checkPorts(options: { services: readonly PortClaim[]; host?: string; fix?: string }): Promise<void> {
  const conflicts: PortConflict[] = [];
  const owners = new Map<number, string>();
  for (const service of options.services) {
    const owner = owners.get(service.port);
    if (owner !== undefined) conflicts.push({ service: service.name, port: service.port, reason: 'duplicate', other: owner });
    else owners.set(service.port, service.name);
  }
  const checks = [...owners].map(async ([port, name]) => ({ port, name, free: await isPortFree({ port, host: options.host ?? '127.0.0.1' }) }));
  for (const { port, name, free } of await Promise.all(checks)) {
    if (free) continue;
    const holder = await findPortHolder({ port });
    conflicts.push({ service: name, port, reason: 'in_use', ...(holder ? { holder } : {}) });
  }
  if (conflicts.length > 0) throw new PortsInUseError({ conflicts, ...(options.fix ? { fix: options.fix } : {}) });
}
