import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
    // The listener is this test's own process, which `ss` names.
    expect(ports.conflicts).toEqual([
      { service: 'planner', port: taken, reason: 'in_use', holder: { process: expect.stringContaining(`(pid ${process.pid})`), pid: process.pid } },
    ]);
    expect(ports.message).toMatch(
      new RegExp(
        `planner: port ${taken} on 127\\.0\\.0\\.1 is already in use by .+ \\(pid ${process.pid}\\); stop it, or change the port in \\.framework/project\\.json`,
      ),
    );
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

  it('names the stack that holds the port, with down --dir for it, when a service of ours listens there', async () => {
    const root = await mkdtemp(join(tmpdir(), 'fw-port-holder-'));
    // A service of another stack: a real process running in that stack's folder.
    const child = spawn(process.execPath, ['-e', "require('net').createServer().listen(0, '127.0.0.1', function () { console.log(this.address().port); })"], {
      cwd: root,
      shell: false,
    });
    try {
      const port = await new Promise<number>((resolve) => child.stdout.once('data', (d: Buffer) => resolve(Number(d.toString().trim()))));
      await mkdir(join(root, '.framework', 'run'), { recursive: true });
      await writeFile(
        join(root, '.framework', 'run', 'state.json'),
        JSON.stringify({
          supervisorPid: child.pid,
          startedAt: 'now',
          services: [{ name: 'planner', kind: 'agent', pid: child.pid, port, url: `http://127.0.0.1:${port}`, log: 'x' }],
        }),
      );
      const error = (await checkPorts({ services: [{ name: 'planner', port }], fix: 'shift the ports with --port-offset <n>' }).catch(
        (e: unknown) => e,
      )) as PortsInUseError;
      expect(error).toBeInstanceOf(PortsInUseError);
      expect(error.conflicts[0]?.holder).toMatchObject({ pid: child.pid, stackRoot: root, service: 'planner' });
      expect(error.message).toContain(
        `planner: port ${port} on 127.0.0.1 is held by planner (node (pid ${child.pid})) of the stack running from ${root}; stop that stack with framework-cli down --dir ${root}, or shift the ports with --port-offset <n>`,
      );
    } finally {
      child.kill('SIGKILL');
      await rm(root, { recursive: true, force: true });
    }
  });
});
