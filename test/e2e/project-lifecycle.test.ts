import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readRunState, isAlive } from '../../runtime/supervisor/run-state.js';
import { runCli } from '../support/cli.js';
import { freePort } from '../support/net.js';
import { collectSse } from '../support/sse-client.js';
import { linkDependencies } from '../support/project-deps.js';

// A newcomer's path with the built binary: create a project, add an agent,
// bring the stack up detached, ask the agent, check status, bring it down.

let root: string | undefined;
afterAll(async () => {
  if (root) {
    await runCli(['down', '--dir', root, '--json'], { timeoutMs: 60_000 });
    await rm(root, { recursive: true, force: true });
  }
});

/** Moves every default port of the generated stack to a free one (the documented fix for a taken port). */
async function useFreePorts(projectRoot: string): Promise<Record<string, number>> {
  const file = join(projectRoot, '.framework', 'project.json');
  let text = await readFile(file, 'utf8');
  const ports: Record<string, number> = {};
  for (const port of [8181, 11438, 10100, 11434, 8002]) {
    ports[port] = await freePort();
    text = text.replaceAll(`"${port}"`, `"${ports[port]}"`).replaceAll(`:${port}`, `:${ports[port]}`).replaceAll(`"port": ${port},`, `"port": ${ports[port]},`);
  }
  await writeFile(file, text);
  return ports;
}

describe('from create project to a running agent', () => {
  it('scaffolds, starts the stack detached, answers /stream, reports status, and stops with nothing left', async () => {
    const base = await mkdtemp(join(tmpdir(), 'fw-lifecycle-'));
    root = join(base, 'demo');
    const created = await runCli(['create', 'project', 'demo', '--dir', root, '--json']);
    expect(created.code).toBe(0);
    const added = await runCli([
      'add',
      'agent',
      'helper',
      '--description',
      'Answers questions',
      '--task',
      'answer:Answers a question',
      '--no-interactive',
      '--dir',
      root,
      '--json',
    ]);
    expect(added.code).toBe(0);
    await linkDependencies(root);
    const original = await readFile(join(root, '.framework', 'project.json'), 'utf8');
    // A free port can be taken by a parallel test before `up` binds it: try again with new ports then.
    let ports: Record<string, number> = {};
    let up;
    for (let attempt = 0; attempt < 3; attempt += 1) {
      await writeFile(join(root, '.framework', 'project.json'), original);
      ports = await useFreePorts(root);
      up = await runCli(['up', '--detach', '--dir', root, '--json'], { timeoutMs: 180_000 });
      if (up.code === 0 || !up.stdout.includes('"port_in_use"')) break;
    }
    if (!up) throw new Error('up did not run');
    expect(up.code, up.stderr).toBe(0);
    const stack = JSON.parse(up.stdout) as { services: { name: string; state: string }[] };
    expect(stack.services.map((s) => s.name)).toEqual(['model', 'policy', 'guardian', 'semantic-layer', 'helper']);
    expect(stack.services.every((s) => s.state === 'healthy')).toBe(true);

    const agentUrl = `http://127.0.0.1:${ports[8002]}`;
    const { events } = await collectSse(`${agentUrl}/stream`, { body: { query: 'hello there' }, timeoutMs: 60_000 });
    expect(events.map((e) => e.event)).toContain('result');

    const status = await runCli(['status', '--dir', root, '--json']);
    const report = JSON.parse(status.stdout) as { running: boolean; services: { name: string; health: string }[] };
    expect(report.running).toBe(true);
    expect(report.services.find((s) => s.name === 'helper')?.health).toBe('ok');

    const pids = readRunState({ root });
    const down = await runCli(['down', '--dir', root, '--json'], { timeoutMs: 60_000 });
    expect(down.code).toBe(0);
    expect((JSON.parse(down.stdout) as { stopped: string[] }).stopped).toHaveLength(5);
    for (const pid of [pids?.supervisorPid, ...(pids?.services.map((s) => s.pid) ?? [])]) if (pid) expect(isAlive(pid)).toBe(false);
  }, 300_000);
});
