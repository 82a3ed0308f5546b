/**
 * `framework-cli up | status | logs | down` end to end, every service a real
 * process (run `npm run build` first). No process may outlive a test.
 */
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isPortFree } from '../../runtime/supervisor/check-ports.js';
import { isAlive, readRunState } from '../../runtime/supervisor/run-state.js';
import { TUTORIAL_PORTS } from '../../runtime/supervisor/tutorial-stack.js';
import { runCli } from '../support/cli.js';
import { answers, freePort } from '../support/net.js';
import { REPO_ROOT } from '../support/processes.js';
import { collectSse } from '../support/sse-client.js';

const POLICIES = join(REPO_ROOT, 'policies');
const dirs: string[] = [];
const seenPids = new Set<number>();

afterAll(async () => {
  for (const dir of dirs) {
    // A failed test must not leave a stack behind.
    if (readRunState({ root: dir })) await runCli(['down', '--dir', dir], { timeoutMs: 40_000 });
    await rm(dir, { recursive: true, force: true });
  }
  for (const pid of seenPids) expect(isAlive(pid), `pid ${pid}`).toBe(false);
}, 60_000);

async function projectDir(services: unknown[]): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'fw-up-'));
  dirs.push(dir);
  await mkdir(join(dir, '.framework'));
  await writeFile(join(dir, '.framework/project.json'), JSON.stringify({ name: 'tiny', toolkitVersion: '0.1.0', services }, null, 2));
  return dir;
}

function tinyStack(policyPort: number, agentPort: number): unknown[] {
  return [
    { name: 'agent', kind: 'agent', port: agentPort, args: ['serve', 'agent', '--port', String(agentPort)], dependsOn: ['policy'] },
    { name: 'policy', kind: 'policy', port: policyPort, args: ['policy', 'serve', POLICIES, '--addr', `127.0.0.1:${policyPort}`, '--no-watch'] },
  ];
}

function recordPids(dir: string): number[] {
  const state = readRunState({ root: dir });
  const pids = [state?.supervisorPid, ...(state?.services.map((s) => s.pid) ?? [])].filter((pid): pid is number => typeof pid === 'number');
  for (const pid of pids) seenPids.add(pid);
  return pids;
}

/**
 * Some offset that makes every tutorial port free, all of them below the
 * kernel's ephemeral range (32768 and up here): a port in that range can be
 * handed to another test's `listen(0)` or outgoing connection while the stack
 * is still starting its services one by one.
 */
async function freeTutorialOffset(): Promise<number> {
  const highest = Math.max(...Object.values(TUTORIAL_PORTS));
  const lowest = Math.min(...Object.values(TUTORIAL_PORTS));
  // Ports from 20000 (clear of the well-known ones) to 32767.
  const [low, high] = [20_000 - lowest, 32_767 - highest];
  for (let attempt = 0; attempt < 50; attempt += 1) {
    const offset = low + Math.floor(Math.random() * (high - low));
    const free = await Promise.all(Object.values(TUTORIAL_PORTS).map((port) => isPortFree({ port: port + offset })));
    if (free.every(Boolean)) return offset;
  }
  throw new Error('no free tutorial ports');
}

describe('framework-cli up --detach, status, logs, down', () => {
  it('runs a project stack in the background and stops it with nothing left behind', async () => {
    const [policyPort, agentPort] = [await freePort(), await freePort()];
    const dir = await projectDir(tinyStack(policyPort, agentPort));

    const up = await runCli(['up', '--detach', '--json', '--dir', dir], { timeoutMs: 90_000 });
    expect(up.code, `${up.stdout}\n${up.stderr}`).toBe(0);
    const started = JSON.parse(up.stdout) as { services: Array<{ name: string; port: number; url: string; state: string; pid: number }>; detached: boolean };
    expect(started.detached).toBe(true);
    expect(started.services.map((s) => [s.name, s.port, s.state])).toEqual([
      ['policy', policyPort, 'healthy'],
      ['agent', agentPort, 'healthy'],
    ]);
    const pids = recordPids(dir);
    expect(pids).toHaveLength(3);
    // What each service is, so plain `chat` finds the stack's agent.
    expect(readRunState({ root: dir })?.services.map((s) => [s.name, s.kind])).toEqual([
      ['policy', 'policy'],
      ['agent', 'agent'],
    ]);

    const status = await runCli(['status', '--json', '--dir', dir]);
    expect(status.code, `${status.stdout}\n${status.stderr}`).toBe(0);
    const report = JSON.parse(status.stdout) as { running: boolean; services: Array<{ name: string; health: string; pid: number; uptimeSeconds: number }> };
    expect(report.running).toBe(true);
    expect(report.services.map((s) => [s.name, s.health])).toEqual([
      ['policy', 'ok'],
      ['agent', 'ok'],
    ]);
    expect(report.services.every((s) => isAlive(s.pid) && s.uptimeSeconds >= 0)).toBe(true);

    const { events, status: httpStatus } = await collectSse(`http://127.0.0.1:${agentPort}/stream`, { body: { query: 'hello' }, timeoutMs: 10_000 });
    expect(httpStatus).toBe(200);
    expect(events.length).toBeGreaterThan(0);

    const logs = await runCli(['logs', '--json', '--lines', '5', '--dir', dir]);
    expect(logs.code, `${logs.stdout}\n${logs.stderr}`).toBe(0);
    const lines = (JSON.parse(logs.stdout) as { lines: Array<{ service: string; line: string }> }).lines;
    expect(lines.some((l) => l.service === 'agent' && l.line.includes(`127.0.0.1:${agentPort}`))).toBe(true);
    expect(lines.some((l) => l.service === 'policy')).toBe(true);

    const human = await runCli(['logs', 'agent', '--lines', '1', '--dir', dir]);
    expect(human.stdout.trim()).toMatch(/^agent \| /);

    const unknown = await runCli(['logs', 'nosuch', '--json', '--dir', dir]);
    expect(unknown.code).not.toBe(0);
    expect(JSON.parse(unknown.stdout).error).toMatchObject({ code: 'unknown_service' });
    expect(JSON.parse(unknown.stdout).error.message).toContain('known services: policy, agent');

    // A second up while this one runs is refused.
    const again = await runCli(['up', '--detach', '--json', '--dir', dir]);
    expect(again.code).not.toBe(0);
    expect(JSON.parse(again.stdout).error.code).toBe('stack_running');

    const down = await runCli(['down', '--json', '--dir', dir], { timeoutMs: 40_000 });
    expect(down.code, `${down.stdout}\n${down.stderr}`).toBe(0);
    expect(JSON.parse(down.stdout)).toEqual({ stopped: ['policy', 'agent'], killed: [] });
    for (const pid of pids) expect(isAlive(pid), `pid ${pid}`).toBe(false);
    expect(readRunState({ root: dir })).toBeUndefined();
    expect(await answers(`http://127.0.0.1:${agentPort}/health`)).toBe(false);

    const nothing = await runCli(['down', '--json', '--dir', dir]);
    expect(nothing.code).toBe(0);
    expect(JSON.parse(nothing.stdout)).toEqual({ stopped: [], killed: [] });
    const idle = await runCli(['status', '--json', '--dir', dir]);
    expect(JSON.parse(idle.stdout)).toMatchObject({ running: false, services: [] });
  }, 120_000);

  it('refuses to start when a port is taken, naming the service, the port and the fix', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const taken = (blocker.address() as { port: number }).port;
    try {
      const dir = await projectDir(tinyStack(await freePort(), taken));
      const up = await runCli(['up', '--detach', '--json', '--dir', dir]);
      expect(up.code).not.toBe(0);
      const { error } = JSON.parse(up.stdout) as { error: { code: string; message: string } };
      expect(error.code).toBe('port_in_use');
      expect(error.message).toContain(`agent: port ${taken} on 127.0.0.1 is already in use by `);
      expect(error.message).toContain(`(pid ${process.pid}); stop it, or change the port in .framework/project.json`);
      expect(readRunState({ root: dir })).toBeUndefined();
    } finally {
      blocker.close();
    }
  });

  it('names the stack of ours that holds a port, with down --dir for it', async () => {
    const port = await freePort();
    const policyOnly = (p: number) => [
      { name: 'policy', kind: 'policy', port: p, args: ['policy', 'serve', POLICIES, '--addr', `127.0.0.1:${p}`, '--no-watch'] },
    ];
    const holder = await projectDir(policyOnly(port));
    const first = await runCli(['up', '--detach', '--json', '--dir', holder], { timeoutMs: 90_000 });
    expect(first.code, `${first.stdout}\n${first.stderr}`).toBe(0);
    recordPids(holder);
    const second = await projectDir(policyOnly(port));
    const up = await runCli(['up', '--detach', '--json', '--dir', second]);
    expect(up.code).toBe(1);
    const { error } = JSON.parse(up.stdout) as { error: { code: string; message: string } };
    expect(error.code).toBe('port_in_use');
    expect(error.message).toMatch(
      new RegExp(`policy: port ${port} on 127\\.0\\.0\\.1 is held by policy \\(.+ \\(pid \\d+\\)\\) of the stack running from ${holder}`),
    );
    expect(error.message).toContain(`stop that stack with framework-cli down --dir ${holder}, or change the port in .framework/project.json`);
    expect((await runCli(['down', '--dir', holder], { timeoutMs: 40_000 })).code).toBe(0);
  }, 120_000);

  it('runs attached: NDJSON events, then a clean stop in reverse order on SIGTERM', async () => {
    const [policyPort, agentPort] = [await freePort(), await freePort()];
    const dir = await projectDir(tinyStack(policyPort, agentPort));
    const result = await runCli(['up', '--json', '--dir', dir], {
      timeoutMs: 60_000,
      stopWhen: /"type":"ready"/,
    });
    const pids = [...new Set([...result.stdout.matchAll(/"pid":(\d+)/g)].map((m) => Number(m[1])))];
    for (const pid of pids) seenPids.add(pid);
    expect(result.code, `${result.stdout}\n${result.stderr}`).toBe(0);
    const events = result.stdout
      .split('\n')
      .filter((line) => line.startsWith('{"type"'))
      .map((line) => JSON.parse(line) as { type: string; service?: string });
    const brief = events.filter((e) => e.type !== 'log').map((e) => `${e.type}:${e.service ?? ''}`);
    expect(brief).toEqual(['starting:policy', 'healthy:policy', 'starting:agent', 'healthy:agent', 'ready:', 'stopped:agent', 'stopped:policy']);
    expect(pids.length).toBeGreaterThanOrEqual(2);
    for (const pid of pids) expect(isAlive(pid)).toBe(false);
    expect(readRunState({ root: dir })).toBeUndefined();
  }, 90_000);

  it('--containers without a Docker engine is a JSON error and a non-zero exit', async () => {
    const dir = await projectDir([]);
    // Only node on PATH (its own folder may hold docker: /usr/bin does once docker.io is installed).
    const result = await runCli(['up', '--containers', '--json', '--dir', dir], { env: { PATH: await nodeOnlyBin() } });
    expect(result.code).not.toBe(0);
    const { error } = JSON.parse(result.stdout) as { error: { code: string; message: string } };
    expect(error.code).toBe('docker_unavailable');
    expect(error.message).toMatch(/docker command was not found/);
  });

  it('--containers with an engine but no Compose names both Compose commands', async () => {
    const dir = await projectDir([]);
    await writeFile(join(dir, 'compose.yaml'), 'services: {}\n');
    // A docker whose engine answers but which has no compose plugin; no docker-compose on PATH.
    const bin = await nodeOnlyBin();
    await writeFile(join(bin, 'docker'), '#!/bin/sh\n[ "$1" = info ] && { echo 28.0.0; exit 0; }\necho "docker: unknown command: docker $1" >&2\nexit 1\n', {
      mode: 0o755,
    });
    const result = await runCli(['up', '--containers', '--json', '--dir', dir], { env: { PATH: bin } });
    expect(result.code).not.toBe(0);
    const { error } = JSON.parse(result.stdout) as { error: { code: string; message: string } };
    expect(error.code).toBe('docker_unavailable');
    expect(error.message).toMatch(/`docker compose`.*`docker-compose`/);
  });
});

/** A folder with only `node` in it (a symlink), for a PATH with nothing else. */
async function nodeOnlyBin(): Promise<string> {
  const bin = await mkdtemp(join(tmpdir(), 'fw-bin-'));
  dirs.push(bin);
  await symlink(process.execPath, join(bin, 'node'));
  return bin;
}

describe('framework-cli up --example tutorial --detach', () => {
  it('runs the tutorial; the planner plans and runs at once through the executor over A2A; down stops it all', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'fw-tutorial-'));
    dirs.push(dir);
    const offset = await freeTutorialOffset();
    const up = await runCli(['up', '--example', 'tutorial', '--detach', '--json', '--port-offset', String(offset), '--dir', dir], { timeoutMs: 120_000 });
    // With --json the error is on stdout.
    expect(up.code, `${up.stdout}\n${up.stderr}`).toBe(0);
    const { services } = JSON.parse(up.stdout) as { services: Array<{ name: string; port: number; state: string }> };
    expect(services.map((s) => [s.name, s.port - offset, s.state])).toEqual([
      ['policy', TUTORIAL_PORTS.policy, 'healthy'],
      ['guardian', TUTORIAL_PORTS.guardian, 'healthy'],
      ['executor', TUTORIAL_PORTS.executor, 'healthy'],
      ['planner', TUTORIAL_PORTS.planner, 'healthy'],
      ['web', TUTORIAL_PORTS.web, 'healthy'],
    ]);
    const pids = recordPids(dir);
    expect(pids).toHaveLength(6);

    const planner = `http://127.0.0.1:${TUTORIAL_PORTS.planner + offset}`;
    const { events } = await collectSse(`${planner}/stream`, { body: { query: 'Book the room; send the invitations' }, timeoutMs: 20_000 });
    const results = events.filter((e) => e.event === 'result');
    expect(results).toHaveLength(1);
    const result = JSON.parse(results[0]!.data) as { outcomes: string[] };
    expect(result.outcomes).toHaveLength(2);
    for (const outcome of result.outcomes) expect(outcome.startsWith('Done: ')).toBe(true);

    // The web interface: the planner's minimal front door.
    const web = await fetch(`http://127.0.0.1:${TUTORIAL_PORTS.web + offset}/stream`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: 'Water the plants' }),
    });
    expect(web.status).toBe(200);
    expect(await web.text()).toContain('Done: Water the plants');

    const down = await runCli(['down', '--json', '--dir', dir], { timeoutMs: 40_000 });
    expect(down.code, `${down.stdout}\n${down.stderr}`).toBe(0);
    expect(JSON.parse(down.stdout).stopped).toEqual(['policy', 'guardian', 'executor', 'planner', 'web']);
    for (const pid of pids) expect(isAlive(pid), `pid ${pid}`).toBe(false);
  }, 180_000);
});
