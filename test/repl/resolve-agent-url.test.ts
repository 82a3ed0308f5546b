import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_CHAT_URL, resolveAgentUrl } from '../../repl/resolve-agent-url.js';

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'fw-resolve-'));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

const agentService = (name: string, port: number) => ({ name, kind: 'agent', port, args: ['serve', 'agent'] });

async function writeProject(services: unknown[]): Promise<void> {
  await mkdir(join(root, '.framework'), { recursive: true });
  await writeFile(join(root, '.framework', 'project.json'), JSON.stringify({ name: 'demo', toolkitVersion: '0.1.0', services }));
}

describe('resolveAgentUrl', () => {
  it('defaults to the tutorial planner and takes URLs as given', () => {
    expect(resolveAgentUrl({ cwd: root })).toEqual({ url: DEFAULT_CHAT_URL, source: 'default' });
    expect(resolveAgentUrl({ agent: 'http://127.0.0.1:9000/', cwd: root })).toEqual({ url: 'http://127.0.0.1:9000', source: 'url' });
    expect(() => resolveAgentUrl({ agent: 'http://[bad', cwd: root })).toThrow(/not a valid URL/);
    expect(() => resolveAgentUrl({ agent: 'two words', cwd: root })).toThrow(/neither a URL/);
  });

  it('finds a project agent by name from a subfolder, preferring the running stack', async () => {
    await writeProject([agentService('planner', 8002), { name: 'policy', kind: 'policy', port: 8181, args: ['policy', 'serve'] }]);
    await mkdir(join(root, 'agents', 'planner'), { recursive: true });
    expect(resolveAgentUrl({ agent: 'planner', cwd: join(root, 'agents', 'planner') })).toEqual({
      url: 'http://127.0.0.1:8002',
      source: 'project',
      name: 'planner',
    });
    expect(() => resolveAgentUrl({ agent: 'policy', cwd: root })).toThrow(/no agent "policy"; its agents: planner/);

    await mkdir(join(root, '.framework', 'run'), { recursive: true });
    await writeFile(
      join(root, '.framework', 'run', 'state.json'),
      JSON.stringify({ supervisorPid: 1, startedAt: 'now', services: [{ name: 'planner', pid: 2, port: 9102, url: 'http://127.0.0.1:9102', log: 'x' }] }),
    );
    expect(resolveAgentUrl({ agent: 'planner', cwd: root })).toMatchObject({ url: 'http://127.0.0.1:9102', source: 'running-stack' });
  });

  it('says there is no stack or project to look a name up in, and how to start a built-in example', () => {
    expect(() => resolveAgentUrl({ agent: 'helper', cwd: root })).toThrow(/No running stack or project in .* knows an agent "helper"\. .*pass the agent's URL/);
    expect(() => resolveAgentUrl({ agent: 'trader', cwd: root })).toThrow(
      /"trader" is the trading example's agent: start it with framework-cli up --example trading/,
    );
  });

  it("with no name, picks the live running stack's planner or only agent, else the default", async () => {
    await mkdir(join(root, '.framework', 'run'), { recursive: true });
    const service = (name: string, kind: string, port: number) => ({ name, kind, pid: null, port, url: `http://127.0.0.1:${port}`, log: 'x' });
    const state = (supervisorPid: number, services: unknown[]) =>
      writeFile(join(root, '.framework', 'run', 'state.json'), JSON.stringify({ supervisorPid, startedAt: 'now', services }));
    await state(process.pid, [service('policy', 'policy', 9181), service('trader', 'agent', 9104)]);
    expect(resolveAgentUrl({ cwd: root })).toEqual({ url: 'http://127.0.0.1:9104', source: 'running-stack', name: 'trader' });
    await state(process.pid, [service('executor', 'agent', 9101), service('planner', 'agent', 9100), service('web', 'agent', 9103)]);
    expect(resolveAgentUrl({ cwd: root })).toMatchObject({ url: 'http://127.0.0.1:9100', name: 'planner' });
    await state(process.pid, [service('a', 'agent', 9001), service('b', 'agent', 9002)]);
    expect(() => resolveAgentUrl({ cwd: root })).toThrow(/several agents \(a, b\): name one/);
    // A stack whose supervisor is gone is not running: the default.
    await state(2 ** 22 + 12345, [service('trader', 'agent', 9104)]);
    expect(resolveAgentUrl({ cwd: root })).toEqual({ url: DEFAULT_CHAT_URL, source: 'default' });
  });
});
