import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { plainError, runCli, runCliInProcess } from '../support/cli.js';
import { linkDependencies } from '../support/project-deps.js';
import { REPO_ROOT } from '../support/processes.js';

/**
 * A new user's first hour in a generated project: `framework-cli` is not on
 * PATH there, so every command we print or write (the Next: lines, the
 * generated README) goes through the project's `cli` script, which must run;
 * `up` before any agent says to add one; the swarm's README names only its
 * own agents.
 */

let base: string;
beforeAll(async () => {
  base = await mkdtemp(join(tmpdir(), 'fw-first-hour-'));
});
afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

/** The command lines of the ```sh blocks of a Markdown text. */
function shellLines(markdown: string): string[] {
  return [...markdown.matchAll(/```sh\n([\s\S]*?)```/g)].flatMap((m) => m[1]!.split('\n')).filter((line) => line.trim() !== '');
}

/** `npm run -s <args>` in `cwd`, as a user types it. */
function npmRun(args: readonly string[], cwd: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn('npm', ['run', '-s', ...args], { cwd, shell: false, env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('the first hour in a generated project', () => {
  it('create project prints Next: lines through the cli script, and that script runs the project’s framework-cli', { timeout: 60_000 }, async () => {
    const created = await runCliInProcess(['create', 'project', 'first'], { cwd: base });
    expect(created.code, created.stderr).toBe(0);
    const root = join(base, 'first');
    expect(created.stdout).toContain('npm run cli -- add agent <name> --description "<what it does>"');
    expect(created.stdout).toContain('npm run cli -- up');
    expect(created.stdout).not.toMatch(/^\s+framework-cli /m);

    const pkg = JSON.parse(await readFile(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    expect(pkg.scripts.cli).toBe('framework-cli');
    // What npm install makes: framework_core linked, and its bin in node_modules/.bin.
    await linkDependencies(root);
    await mkdir(join(root, 'node_modules', '.bin'), { recursive: true });
    await symlink(join('..', 'framework_core', 'cli', 'bin', 'run.js'), join(root, 'node_modules', '.bin', 'framework-cli'));
    const version = await npmRun(['cli', '--', '--version', '--json'], root);
    expect(version.code, version.stderr).toBe(0);
    expect(JSON.parse(version.stdout)).toMatchObject({ cliVersion: expect.stringMatching(/^framework_core\//) });

    const readme = await readFile(join(root, 'README.md'), 'utf8');
    const lines = shellLines(readme);
    expect(lines).toContain('npm run cli -- chat helper');
    // No command line starts with a bare framework-cli or npx (which is slow the first time).
    expect(lines.filter((line) => /^(npx )?framework-cli\b/.test(line.trim()))).toEqual([]);
  });

  it('up right after create project says to add an agent first, with the command, instead of a tsc error', async () => {
    const root = join(base, 'first');
    const text = await runCli(['up', '--dir', root]);
    expect(text.code).toBe(1);
    const message = plainError(text.stderr);
    expect(message).toContain('Project "first" has no agent yet');
    expect(message).toContain('Add an agent first: npm run cli -- add agent <name> --description "<what it does>"');
    expect(message).not.toMatch(/TS18003|No inputs were found/);
    const json = await runCliInProcess(['up', '--json', '--dir', root]);
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout)).toMatchObject({ error: { code: 'agent_not_found', message: expect.stringContaining('Add an agent first'), exit: 1 } });
  });

  it('add agent says how to run it through the cli script', async () => {
    const root = join(base, 'first');
    const added = await runCliInProcess(['add', 'agent', 'helper', '--description', 'Helps', '--no-interactive', '--dir', root]);
    expect(added.code, added.stderr).toBe(0);
    expect(added.stdout).toContain('npm run build && npm run cli -- serve agent --module dist/agents/helper/app.js --port 8002');
    expect(added.stdout).toContain('npm run cli -- chat helper');
    expect(added.stdout).not.toMatch(/&& framework-cli /);
  });

  it('the swarm README and Next: lines name only the swarm’s own agents, through the cli script', async () => {
    const created = await runCliInProcess(['create', 'swarm', 'crew'], { cwd: base });
    expect(created.code, created.stderr).toBe(0);
    expect(created.stdout).toContain('npm run cli -- up');
    expect(created.stdout).toContain('npm run cli -- chat planner');
    const root = join(base, 'crew');
    const readme = await readFile(join(root, 'README.md'), 'utf8');
    const agents = new Set(['orchestrator', 'planner', 'executor']);
    const lines = shellLines(readme);
    const named = lines.flatMap((line) => [...line.matchAll(/(?:chat|logs|add agent) ([a-z][\w-]*)|dist\/agents\/([a-z][\w-]*)\//g)].map((m) => m[1] ?? m[2]));
    expect(named.length).toBeGreaterThan(0);
    expect(named.filter((name) => !agents.has(name!) && name !== 'guardian')).toEqual([]);
    expect(readme).not.toContain('helper');
    expect(lines.filter((line) => /^(npx )?framework-cli\b/.test(line.trim()))).toEqual([]);
  });

  it('the toolkit’s .gitignore ignores .framework/, which up --example writes in the clone', async () => {
    const ignored = await new Promise<string>((resolve) => {
      const child = spawn('git', ['check-ignore', '--no-index', '.framework/run/state.json', '.framework/secrets/a2a-keys.json'], {
        cwd: REPO_ROOT,
        shell: false,
      });
      let stdout = '';
      child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
      child.on('close', () => resolve(stdout));
    });
    // git prints each path it ignores.
    expect(ignored.split('\n').filter(Boolean)).toEqual(['.framework/run/state.json', '.framework/secrets/a2a-keys.json']);
  });
});
