/**
 * The Supervisor with real `framework-cli` child processes (run `npm run
 * build` first): a policy engine and the hello agent on free ports.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { isAlive } from '../../runtime/supervisor/run-state.js';
import { Supervisor, type ServiceSpecInput } from '../../runtime/supervisor/supervisor.js';
import { SupervisorError } from '../../runtime/supervisor/supervisor-error.js';
import type { SupervisorEvent } from '../../runtime/supervisor/supervisor-event.js';
import { answers, freePort, waitFor } from '../support/net.js';
import { CLI, REPO_ROOT } from '../support/processes.js';

const POLICIES = join(REPO_ROOT, 'policies');
const roots: string[] = [];
const running: Supervisor[] = [];
/** Every pid a test saw; none may be alive after its stack stopped. */
const seenPids = new Set<number>();

afterEach(async () => {
  await Promise.all(running.splice(0).map((s) => s.stop()));
});

afterAll(async () => {
  await Promise.all(roots.map((root) => rm(root, { recursive: true, force: true })));
});

async function stack(services: ServiceSpecInput[], options: { healthTimeoutMs?: number } = {}) {
  const root = await mkdtemp(join(tmpdir(), 'fw-supervisor-'));
  roots.push(root);
  const events: SupervisorEvent[] = [];
  const supervisor = new Supervisor({
    root,
    services,
    cliPath: CLI,
    onEvent: (event) => {
      events.push(event);
      if ((event.type === 'healthy' || event.type === 'restarted') && event.pid) seenPids.add(event.pid);
    },
    ...options,
  });
  running.push(supervisor);
  return { root, events, supervisor };
}

const policyService = (port: number): ServiceSpecInput => ({
  name: 'policy',
  kind: 'policy',
  port,
  args: ['policy', 'serve', POLICIES, '--addr', `127.0.0.1:${port}`, '--no-watch'],
});
const agentService = (port: number, extra: Partial<ServiceSpecInput> = {}): ServiceSpecInput => ({
  name: 'agent',
  kind: 'agent',
  port,
  args: ['serve', 'agent', '--port', String(port)],
  dependsOn: ['policy'],
  ...extra,
});

const brief = (events: SupervisorEvent[]) => events.filter((e) => e.type !== 'log').map((e) => `${e.type}:${e.service}`);

describe('Supervisor', () => {
  it('starts in dependency order, each after the previous is healthy; logs to files; restarts a killed child; stops everything', async () => {
    const [policyPort, agentPort] = [await freePort(), await freePort()];
    // Listed agent first: the order comes from dependsOn and kind.
    const { root, events, supervisor } = await stack([agentService(agentPort), policyService(policyPort)]);
    await supervisor.start();
    expect(brief(events)).toEqual(['starting:policy', 'healthy:policy', 'starting:agent', 'healthy:agent']);
    expect(await answers(`http://127.0.0.1:${agentPort}/health`)).toBe(true);
    expect(supervisor.status().map((s) => [s.name, s.state])).toEqual([
      ['policy', 'healthy'],
      ['agent', 'healthy'],
    ]);

    // Output goes to the per-service log files and to `log` events.
    const agentLog = await readFile(join(root, '.framework/run/logs/agent.log'), 'utf8');
    expect(agentLog).toContain(`listening on http://127.0.0.1:${agentPort}`);
    expect(await readFile(join(root, '.framework/run/logs/policy.log'), 'utf8')).toContain('Policy engine serving');
    expect(events.some((e) => e.type === 'log' && e.service === 'agent' && e.line.includes('listening'))).toBe(true);

    // kill -9 the agent: it is restarted after the back-off and healthy again.
    const firstPid = supervisor.status()[1]!.pid!;
    process.kill(firstPid, 'SIGKILL');
    await waitFor(async () => events.filter((e) => e.type === 'healthy' && e.service === 'agent').length === 2, 'the agent to be healthy again', 20_000);
    const crashed = events.find((e) => e.type === 'crashed');
    expect(crashed).toEqual({ type: 'crashed', service: 'agent', exitCode: null, signal: 'SIGKILL', crashes: 1 });
    expect(events.find((e) => e.type === 'restarted')).toMatchObject({ type: 'restarted', service: 'agent', attempt: 2, delayMs: 500 });
    const secondPid = supervisor.status()[1]!.pid!;
    expect(secondPid).not.toBe(firstPid);
    expect(supervisor.status()[1]).toMatchObject({ state: 'healthy', restarts: 1 });
    expect(await answers(`http://127.0.0.1:${agentPort}/health`)).toBe(true);

    const policyPid = supervisor.status()[0]!.pid!;
    await supervisor.stop();
    // Reverse order, every process gone.
    expect(brief(events).slice(-2)).toEqual(['stopped:agent', 'stopped:policy']);
    for (const pid of [firstPid, secondPid, policyPid]) expect(isAlive(pid)).toBe(false);
    expect(await supervisor.finished).toEqual({ reason: 'stopped' });
    expect(await answers(`http://127.0.0.1:${policyPort}/health`)).toBe(false);
  }, 60_000);

  it('gives up on a service that always crashes, stops the stack cleanly and reports its last log lines', async () => {
    const [policyPort, badPort] = [await freePort(), await freePort()];
    const { events, supervisor } = await stack([
      policyService(policyPort),
      agentService(badPort, { name: 'broken', args: ['serve', 'agent', '--module', '/nonexistent.js', '--port', String(badPort)] }),
    ]);
    const error = await supervisor.start().catch((e: unknown) => e);
    expect(SupervisorError.isInstance(error)).toBe(true);
    const failure = error as SupervisorError;
    expect(failure.code).toBe('service_gave_up');
    expect(failure.service).toBe('broken');
    expect(failure.message).toMatch(/^broken crashed 3 times within a minute \(last: exit code \d+\); the stack was stopped\.$/);
    expect(failure.lastLines.length).toBeGreaterThan(0);
    expect(failure.lastLines.length).toBeLessThanOrEqual(20);
    expect(failure.lastLines.join('\n')).toMatch(/nonexistent/);
    expect(brief(events)).toEqual([
      'starting:policy',
      'healthy:policy',
      'starting:broken',
      'crashed:broken',
      'starting:broken',
      'restarted:broken',
      'crashed:broken',
      'starting:broken',
      'restarted:broken',
      'crashed:broken',
      'gave_up:broken',
      'stopped:broken',
      'stopped:policy',
    ]);
    expect(events.filter((e) => e.type === 'restarted').map((e) => (e as { delayMs: number }).delayMs)).toEqual([500, 1000]);
    expect(await supervisor.finished).toMatchObject({ reason: 'gave_up', service: 'broken' });
    expect(supervisor.status().every((s) => s.pid === undefined)).toBe(true);
    expect(await answers(`http://127.0.0.1:${policyPort}/health`)).toBe(false);
  }, 60_000);

  it('gives up on a service that never answers its health check, unless it is optional; passes only the base environment and its own', async () => {
    const port = await freePort();
    process.env.FRAMEWORK_TEST_SECRET = 'must-not-leak';
    const printEnv = ['node', '-e', 'console.log("ENV " + Object.keys(process.env).sort().join(",")); setInterval(() => {}, 1000)'];
    try {
      const optional = await stack([{ name: 'quiet', kind: 'agent', port, command: printEnv, env: { OWN_SETTING: 'yes' }, optional: true }], {
        healthTimeoutMs: 1_500,
      });
      await optional.supervisor.start();
      await waitFor(async () => optional.events.some((e) => e.type === 'log' && e.line.startsWith('ENV ')), 'the env line');
      const envLine = optional.events.find((e) => e.type === 'log' && e.line.startsWith('ENV ')) as { line: string };
      const names = envLine.line.slice(4).split(',');
      expect(names).toContain('OWN_SETTING');
      expect(names).toContain('PATH');
      expect(names).not.toContain('FRAMEWORK_TEST_SECRET');
      const pid = optional.supervisor.status()[0]!.pid!;
      await optional.supervisor.stop();
      expect(isAlive(pid)).toBe(false);
    } finally {
      delete process.env.FRAMEWORK_TEST_SECRET;
    }

    const required = await stack([{ name: 'quiet', kind: 'agent', port, command: printEnv }], { healthTimeoutMs: 1_500 });
    await expect(required.supervisor.start()).rejects.toThrow(
      `quiet did not answer http://127.0.0.1:${port}/health with 2xx within 1.5 s; the stack was stopped.`,
    );
    expect(brief(required.events)).toEqual(['starting:quiet', 'gave_up:quiet', 'stopped:quiet']);
  }, 30_000);

  it('reports a command that cannot be spawned as a crash, with the reason in the last lines', async () => {
    const port = await freePort();
    const { supervisor } = await stack([{ name: 'ghost', kind: 'agent', port, command: ['/nonexistent/binary'] }]);
    const error = (await supervisor.start().catch((e: unknown) => e)) as SupervisorError;
    expect(error.code).toBe('service_gave_up');
    expect(error.lastLines.join('\n')).toMatch(/ENOENT/);
  }, 30_000);

  it('leaves no process behind', () => {
    for (const pid of seenPids) expect(isAlive(pid), `pid ${pid}`).toBe(false);
  });
});
