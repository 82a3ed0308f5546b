import { createServer, type Server } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { checkPorts, isPortFree } from '../../runtime/supervisor/check-ports.js';
import { PortsInUseError } from '../../runtime/supervisor/ports-in-use-error.js';
import { freePort } from '../support/net.js';

let blocker: Server | undefined;

afterEach(async () => {
  await new Promise<void>((resolve) => (blocker ? blocker.close(() => resolve()) : resolve()));
  blocker = undefined;
});

async function listen(): Promise<number> {
  blocker = createServer();
  await new Promise<void>((resolve) => blocker!.listen(0, '127.0.0.1', resolve));
  return (blocker.address() as { port: number }).port;
}

describe('checkPorts', () => {
  it('passes when every port is free', async () => {
    const [a, b] = [await freePort(), await freePort()];
    await expect(
      checkPorts({
        services: [
          { name: 'policy', port: a },
          { name: 'planner', port: b },
        ],
      }),
    ).resolves.toBeUndefined();
    expect(await isPortFree({ port: a })).toBe(true);
  });

  it('names the service, the port and the fix when a real socket listens there', async () => {
    const taken = await listen();
    const free = await freePort();
    const error = await checkPorts({
      services: [
        { name: 'policy', port: free },
        { name: 'planner', port: taken },
      ],
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PortsInUseError);
    const ports = error as PortsInUseError;
    expect(ports.code).toBe('port_in_use');
    expect(ports.conflicts).toEqual([{ service: 'planner', port: taken, reason: 'in_use' }]);
    expect(ports.message).toContain(`planner: port ${taken} on 127.0.0.1 is already in use; stop what uses it or change the port in .framework/project.json`);
    expect(await isPortFree({ port: taken })).toBe(false);
  });

  it('reports two services claiming one port, and takes another fix', async () => {
    const port = await freePort();
    await expect(
      checkPorts({
        services: [
          { name: 'planner', port },
          { name: 'web', port },
        ],
        fix: 'use --port-offset',
      }),
    ).rejects.toThrow(`web: port ${port} is also the port of planner; use --port-offset`);
  });
});
