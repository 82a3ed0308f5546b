/**
 * Same answers from two builds of framework-cli: every argument list below
 * is run by this tree's `cli/bin/run.js` and by another build's
 * (BENCH_BEFORE_CLI=<that tree's cli/bin/run.js>, required), each run in a
 * fresh empty folder with a fresh HOME, and standard output, standard error
 * and the exit code are compared byte for byte once each tree's root, the
 * folder and HOME are replaced by placeholders, and so are what differs from
 * run to run: a log line's time and a test's measured duration. For a change meant to move
 * only when modules load (issue 40: lazy imports behind `this.parse`).
 *
 * The argument lists: every command of either manifest with `--help`, an
 * unknown flag, an unknown flag and `--json`, and with no argument but
 * `--json` (a missing argument, or the command's cheapest real run); then
 * real runs that need nothing running: the shipped policies through
 * `policy check / eval / test / fmt`, `status`, `down`, `logs`, `trace`,
 * `model list`, the model commands against a closed port, and the services
 * with a bad address (they stop before listening).
 *
 * Prints each difference and a count; exits 1 when any list differs.
 * Run from a built tree: `npm run build && BENCH_BEFORE_CLI=/path/to/main/cli/bin/run.js node dist/bench/cli-same-output.js`.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const AFTER_BIN = fileURLToPath(new URL('../../cli/bin/run.js', import.meta.url));
const BEFORE_BIN = process.env.BENCH_BEFORE_CLI;
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 3);
/** A port nothing listens on (discard): the model commands fail to connect, the same way each time. */
const CLOSED = 'http://127.0.0.1:9';

interface Answer {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `args` with `bin` in a fresh folder and HOME, its output with the tree's root, the folder and HOME as placeholders. */
function run(bin: string, args: readonly string[]): Promise<Answer> {
  const root = realpathSync(join(dirname(bin), '../..'));
  const cwd = realpathSync(mkdtempSync(join(tmpdir(), 'cli-same-cwd-')));
  const home = realpathSync(mkdtempSync(join(tmpdir(), 'cli-same-home-')));
  const expand = (arg: string) => arg.replaceAll('<root>', root);
  const mask = (text: string) =>
    text
      .replaceAll(root, '<root>')
      .replaceAll(cwd, '<cwd>')
      .replaceAll(home, '<home>')
      .replaceAll(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/g, '<time>')
      .replaceAll(/"durationNs": \d+/g, '"durationNs": <n>');
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [bin, ...args.map(expand)], {
      cwd,
      env: { PATH: process.env.PATH ?? '', HOME: home, NO_COLOR: '1', FRAMEWORK_MODELS_DIR: join(home, 'models') },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    child.stdin.end();
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      rmSync(cwd, { recursive: true, force: true });
      rmSync(home, { recursive: true, force: true });
      resolve({ code, stdout: mask(stdout), stderr: mask(stderr) });
    });
  });
}

function commandIds(bin: string): string[] {
  const manifest = JSON.parse(readFileSync(join(dirname(bin), '../../oclif.manifest.json'), 'utf8')) as { commands: Record<string, unknown> };
  return Object.keys(manifest.commands);
}

/** Real runs that need no service: `<root>` is each tree's own root. */
const REAL_RUNS: string[][] = [
  ['--help'],
  ['--version'],
  ['help', 'policy'],
  ['version', '--json'],
  ['status'],
  ['status', '--json'],
  ['down'],
  ['down', '--json'],
  ['logs'],
  ['logs', '--json'],
  ['trace'],
  ['trace', '--json'],
  ['trace', 'not-a-trace-id', '--json'],
  ['model', 'list'],
  ['model', 'list', '--json'],
  ['model', 'ps', '--host', CLOSED],
  ['model', 'ps', '--host', CLOSED, '--json'],
  ['model', 'show', 'smollm2', '--host', CLOSED, '--json'],
  ['model', 'rm', 'smollm2', '--host', CLOSED, '--json'],
  ['model', 'cp', 'a', 'b', '--host', CLOSED, '--json'],
  ['model', 'run', 'smollm2', 'hi', '--host', CLOSED, '--json'],
  ['model', 'create', 'x', '-f', 'Modelfile', '--json'],
  ['model', 'create', 'Bad Name!', '--json'],
  ['model', 'serve', '--addr', 'nowhere', '--json'],
  ['policy', 'check', '<root>/policies'],
  ['policy', 'check', '<root>/policies', '--json'],
  ['policy', 'check', '<root>/templates'],
  ['policy', 'eval', '-d', '<root>/policies', 'data.a2a_access.allow'],
  ['policy', 'eval', '-d', '<root>/policies', 'data.a2a_access.allow', '--json'],
  ['policy', 'eval', '-d', '<root>/policies', 'data.a2a_access', '--explain', 'full'],
  ['policy', 'eval', '-d', '<root>/policies', 'data.nope[', '--json'],
  ['policy', 'test', '<root>/policies'],
  ['policy', 'test', '<root>/policies', '--json'],
  ['policy', 'fmt', '--check', '<root>/policies'],
  ['policy', 'fmt', '--check', '<root>/policies', '--json'],
  ['policy', 'fmt', '<root>/policies/nothing-here.rego', '--json'],
  ['policy', 'compile', '-d', '<root>/policies', 'data.a2a_access.allow', '--json'],
  ['policy', 'serve', '<root>/policies', '--addr', 'nowhere', '--json'],
  ['serve', 'agent', '--example', 'nothing', '--json'],
  ['serve', 'guardian', '--addr', 'nowhere', '--json'],
  ['serve', 'memory', '--kv-url', 'http://x', '--json'],
  ['serve', 'semantic-layer', '--addr', 'nowhere', '--json'],
  ['serve', 'traces', '--addr', 'nowhere', '--json'],
  ['runtime', 'install', '--gpu', 'nothing', '--json'],
  ['chat', '--json'],
  ['chat', CLOSED, '--message', 'hi', '--json'],
  ['chat', CLOSED, '--approve', '--json'],
  ['up'],
  ['up', '--json'],
  ['up', '--containers', '--json'],
  ['deploy', 'kubernetes', '--json'],
  ['deploy', 'swarm', '--json'],
  ['deploy', 'swarm', '--replicas', 'x', '--json'],
  ['add', 'agent', 'helper', '--description', 'd', '--no-interactive', '--json'],
  ['a2a', 'card', 'verify', '--card', 'missing.json', '--key', '<root>/package.json', '--json'],
  ['a2a', 'card', 'sign', '--card', 'missing.json', '--key', '<root>/package.json', '--kid', 'k', '--json'],
];

/** The argument lists: per command (of either tree), then the real runs. */
function argumentLists(): string[][] {
  const ids = [...new Set([...commandIds(AFTER_BIN), ...commandIds(BEFORE_BIN!)])].sort();
  const perCommand = ids.flatMap((id) => {
    const words = id.split(':');
    return [
      [...words, '--help'],
      [...words, '--no-such-flag'],
      [...words, '--no-such-flag', '--json'],
      // A command that runs with no argument (up, create swarm, runtime install, the services) is left to the real runs.
      ...(NO_ARGUMENT_RUNS.has(id) ? [] : [[...words, '--json']]),
    ];
  });
  return [...perCommand, ...REAL_RUNS];
}

/** Commands whose run with no argument starts something or installs (their real runs above pass arguments that stop them early). */
const NO_ARGUMENT_RUNS = new Set([
  'up',
  'create:swarm',
  'runtime:install',
  'serve:agent',
  'serve:guardian',
  'serve:memory',
  'serve:semantic-layer',
  'serve:traces',
  'model:serve',
  'doctor',
  'model:ps',
  'chat',
]);

if (!BEFORE_BIN) {
  console.error('cli-same-output: set BENCH_BEFORE_CLI to the other build (its cli/bin/run.js)');
  process.exit(2);
}
const lists = argumentLists();
console.log(
  `cli-same-output: ${lists.length} argument lists, ${AFTER_BIN} against ${BEFORE_BIN} (load average ${loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')})`,
);
const differences: string[] = [];
const queue = [...lists];
await Promise.all(
  Array.from({ length: CONCURRENCY }, async () => {
    for (let args = queue.shift(); args; args = queue.shift()) {
      const [after, before] = await Promise.all([run(AFTER_BIN, args), run(BEFORE_BIN, args)]);
      const parts = (['code', 'stdout', 'stderr'] as const).filter((part) => after[part] !== before[part]);
      if (parts.length === 0) continue;
      differences.push(
        [
          `differs: ${args.join(' ')} (${parts.join(', ')})`,
          ...parts.map(
            (part) => `  ${part} before: ${JSON.stringify(before[part]).slice(0, 400)}\n  ${part} after:  ${JSON.stringify(after[part]).slice(0, 400)}`,
          ),
        ].join('\n'),
      );
    }
  }),
);
for (const difference of differences) console.log(difference);
console.log(`${lists.length - differences.length} of ${lists.length} argument lists gave the same exit code, standard output and standard error`);
process.exitCode = differences.length === 0 ? 0 : 1;
