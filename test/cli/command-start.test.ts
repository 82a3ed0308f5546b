import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, type CliResult } from '../support/cli.js';
import { RECORD_LOADS } from '../support/load-recorder.js';
import { REPO_ROOT } from '../support/processes.js';

/**
 * Every command parses its arguments before it loads what it runs (issue 40:
 * a command's start is oclif, its own small module and nothing else).
 *
 * The rule, for every command of oclif.manifest.json:
 * - `<command> --help` loads no file outside the CLI's bundle (cli/bin/run.js
 *   and dist/cli/, which holds oclif and the commands) and Node's built-ins;
 * - `<command> --no-such-flag` (with and without --json) stops at parsing
 *   with exit 2, and by then has loaded no file of any package
 *   (node_modules) and at most MAX_OWN_MODULES of our modules outside the
 *   bundle (dist/runtime, dist/repl): the constants, error classes and text
 *   helpers a command's flags, help and error path need. Everything else is
 *   an `await import(...)` after `this.parse`.
 *
 * What a process loads is recorded by a preloaded module: an ES module
 * loader hook appends every file URL it resolves, and Node's CommonJS
 * loader every file it compiles, to FRAMEWORK_LOADS_FILE. The last test
 * shows the recorder sees what a real run imports after parsing.
 * Run `npm run build` first.
 */

/** Our modules outside the bundle a command may load before its arguments are parsed. */
const MAX_OWN_MODULES = 8;
const UNKNOWN_FLAG = '--no-such-flag';

type Kind = 'bundle' | 'own' | 'package' | 'other';

function kindOf(path: string): Kind {
  if (path.split(sep).includes('node_modules')) return 'package';
  const inRepo = relative(REPO_ROOT, path).split(sep).join('/');
  if (inRepo === 'cli/bin/run.js' || inRepo.startsWith('dist/cli/')) return 'bundle';
  if (inRepo.startsWith('dist/')) return 'own';
  return 'other';
}

interface Run extends CliResult {
  /** Every file the process loaded, relative to the repository root (a package's by its path from node_modules). */
  loaded: { path: string; kind: Kind }[];
}

const dir = mkdtempSync(join(tmpdir(), 'command-start-'));
let runs = 0;

async function runRecorded(args: readonly string[]): Promise<Run> {
  const file = join(dir, `loads-${runs++}.txt`);
  const result = await runCli(args, {
    cwd: dir,
    timeoutMs: 60_000,
    env: { NODE_OPTIONS: `--import=${RECORD_LOADS}`, FRAMEWORK_LOADS_FILE: file, NO_COLOR: '1' },
  });
  let lines: string[] = [];
  try {
    lines = readFileSync(file, 'utf8').split('\n').filter(Boolean);
  } catch {
    // Nothing recorded: the preload did not run, which the tests below catch (the bundle itself is always loaded).
  }
  const paths = [...new Set(lines.map((url) => fileURLToPath(url)))];
  return { ...result, loaded: paths.map((path) => ({ path: relative(REPO_ROOT, path).split(sep).join('/'), kind: kindOf(path) })) };
}

const MANIFEST = JSON.parse(readFileSync(join(REPO_ROOT, 'oclif.manifest.json'), 'utf8')) as { commands: Record<string, { enableJsonFlag?: boolean }> };
const COMMANDS = Object.keys(MANIFEST.commands).sort();
const CASES = COMMANDS.flatMap((id) => {
  const words = id.split(':');
  return [
    { id, kind: 'help', args: [...words, '--help'] },
    { id, kind: 'bad flag', args: [...words, UNKNOWN_FLAG] },
    { id, kind: 'bad flag --json', args: [...words, UNKNOWN_FLAG, '--json'] },
  ];
});
const results = new Map<string, Run>();
const key = (c: { id: string; kind: string }) => `${c.id} ${c.kind}`;

const outside = (run: Run, kinds: readonly Kind[]) => run.loaded.filter((l) => kinds.includes(l.kind)).map((l) => l.path);

describe('every command parses before it imports what it runs', () => {
  beforeAll(async () => {
    // Three at a time: a cold start is mostly one core's work.
    const queue = [...CASES];
    await Promise.all(
      Array.from({ length: 3 }, async () => {
        for (let next = queue.shift(); next; next = queue.shift()) results.set(key(next), await runRecorded(next.args));
      }),
    );
  }, 600_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('the manifest lists the commands', () => {
    expect(COMMANDS.length).toBeGreaterThan(30);
    expect(COMMANDS).toEqual(expect.arrayContaining(['status', 'policy:eval', 'serve:agent', 'up', 'version']));
  });

  it.each(COMMANDS)('%s --help loads nothing outside the CLI bundle', (id) => {
    const run = results.get(key({ id, kind: 'help' }))!;
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/USAGE/);
    expect(outside(run, ['bundle']).length, 'the recorder saw the bundle').toBeGreaterThan(0);
    expect(outside(run, ['own', 'package', 'other'])).toEqual([]);
  });

  it.each(COMMANDS)(`%s ${UNKNOWN_FLAG} stops at parsing having loaded no package and at most ${MAX_OWN_MODULES} of our modules`, (id) => {
    for (const kind of ['bad flag', 'bad flag --json']) {
      const run = results.get(key({ id, kind }))!;
      expect(run.code, `${kind}: ${run.stdout}${run.stderr}`).toBe(2);
      expect(`${run.stdout}${run.stderr}`).toContain(UNKNOWN_FLAG);
      // oclif's help command has no --json: there the flag is one more unknown one.
      if (kind === 'bad flag --json' && MANIFEST.commands[id]!.enableJsonFlag)
        expect(JSON.parse(run.stdout)).toMatchObject({ error: { code: 'invalid_arguments', exit: 2 } });
      expect(outside(run, ['package', 'other']), kind).toEqual([]);
      expect(outside(run, ['own']).length, `${kind}: ${outside(run, ['own']).join(', ')}`).toBeLessThanOrEqual(MAX_OWN_MODULES);
    }
  });

  it('the recorder sees what a real run imports after parsing (ES modules and packages)', async () => {
    const run = await runRecorded(['down', '--json', '--dir', dir]);
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({ stopped: [], killed: [] });
    expect(outside(run, ['own'])).toContain('dist/runtime/supervisor/stop-stack.js');
    expect(outside(run, ['package']).some((path) => path.includes('node_modules/zod/'))).toBe(true);
  }, 60_000);

  it('status, model list, policy eval and policy check run their bundles through the code cache, not the modules they bundle', async () => {
    const runs = await Promise.all([
      runRecorded(['status', '--json', '--dir', dir]),
      runRecorded(['model', 'list', '--json']),
      runRecorded(['policy', 'eval', '-d', join(REPO_ROOT, 'policies'), 'data.a2a_access.allow']),
      runRecorded(['policy', 'check', join(REPO_ROOT, 'policies')]),
    ]);
    for (const run of runs) {
      // What the command module imports itself (text helpers, error classes) is all that loads as modules.
      expect(run.code, run.stderr).toBe(0);
      expect(outside(run, ['package', 'other'])).toEqual([]);
      expect(outside(run, ['own']).length, outside(run, ['own']).join(', ')).toBeLessThanOrEqual(MAX_OWN_MODULES);
    }
    expect(JSON.parse(runs[0]!.stdout)).toMatchObject({ services: [] });
    expect(runs[2]!.stdout).toContain('"value": false');
    expect(runs[3]!.stdout).toBe('4 module(s) compiled without errors.\n');
  }, 120_000);

  it('the recorder sees CommonJS files that packages require from each other', async () => {
    // yaml's entry is CommonJS and requires its own modules: those are seen by the CommonJS hook only.
    const file = join(dir, 'loads-commonjs.txt');
    const child = spawnSync(process.execPath, ['--import', RECORD_LOADS, '-e', "require('yaml').parse('a: 1')"], {
      cwd: REPO_ROOT,
      env: { PATH: process.env.PATH ?? '', FRAMEWORK_LOADS_FILE: file },
      encoding: 'utf8',
    });
    expect(child.status, child.stderr).toBe(0);
    const loaded = readFileSync(file, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((url) => fileURLToPath(url));
    expect(loaded.filter((path) => kindOf(path) === 'package' && /yaml\/dist\/compose\//.test(path)).length).toBeGreaterThan(0);
  });
});
