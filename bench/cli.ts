/**
 * Cold-start benchmark of framework-cli, over every command: each case is
 * started as a fresh `node` process, RUNS interleaved rounds (`node -e 0`,
 * then every case, then again), and a case's figure is the median of its
 * per-round ratios to `node -e 0` of the same round, against the issue's
 * target (≤ 2.5×). Cases:
 *
 * - every command of the oclif manifest, started with a flag it does not
 *   have: oclif loads the command (its module and everything that module
 *   imports) and stops at parsing, so the figure is what the command costs
 *   before it does anything: with lazy imports, only what parsing needs;
 * - real runs that need nothing running: `--help`, `version`, `status --json`
 *   in an empty directory, `policy eval` and `policy check` of the shipped
 *   policies, `model list --json`.
 *
 * Each case also prints its CPU time (user + system, read by the process as
 * it exits) as the median of per-round ratios to `node -e 0`'s: on a loaded
 * machine, where a process waits for a core, that is the steadier figure.
 *
 * BENCH_BEFORE_CLI=<another build's cli/bin/run.js> adds that build's run of
 * every case beside this tree's, in the same rounds (commands only it has are
 * skipped), and prints after / before as a ratio of medians.
 *
 * Run from a built tree (`npm run bench:cli` builds first). Prints figures; asserts nothing.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { median, ratioSummary, targetMark } from './support/ratios.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BIN = join(ROOT, 'cli/bin/run.js');
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const TARGET = 2.5;
// Reports the process's peak RSS and CPU time on exit, whatever the command does.
const REPORT_RSS =
  'data:text/javascript,process.on("exit",()=>{const u=process.resourceUsage();process.stderr.write(`\\nmaxrss=${u.maxRSS} cpu=${u.userCPUTime+u.systemCPUTime}\\n`)})';
const UNKNOWN_FLAG = '--bench-no-such-flag';
const BEFORE_BIN = process.env.BENCH_BEFORE_CLI;

interface Case {
  name: string;
  args: string[];
}

const emptyDir = mkdtempSync(join(tmpdir(), 'bench-cli-'));

/** Every case, run by `bin` (a tree's `cli/bin/run.js`), over that tree's policies and commands. */
function casesOf(bin: string): Case[] {
  const root = join(dirname(bin), '../..');
  const manifest = JSON.parse(readFileSync(join(root, 'oclif.manifest.json'), 'utf8')) as { commands: Record<string, unknown> };
  return [
    { name: '--help', args: [bin, '--help'] },
    { name: 'version', args: [bin, 'version'] },
    { name: 'status --json (empty dir)', args: [bin, 'status', '--json', '--dir', emptyDir] },
    { name: 'policy eval (shipped policies)', args: [bin, 'policy', 'eval', '-d', join(root, 'policies'), 'data.a2a_access.allow'] },
    { name: 'policy check (shipped policies)', args: [bin, 'policy', 'check', join(root, 'policies')] },
    { name: 'model list --json', args: [bin, 'model', 'list', '--json'] },
    ...Object.keys(manifest.commands)
      .sort()
      .map((id) => ({ name: `${id.replaceAll(':', ' ')} (load + parse)`, args: [bin, ...id.split(':'), UNKNOWN_FLAG] })),
  ];
}

const CASES = casesOf(BIN);
const BEFORE = new Map(BEFORE_BIN ? casesOf(BEFORE_BIN).map((c) => [c.name, c]) : []);

interface Measured {
  ms: number;
  /** User + system CPU time, ms. */
  cpuMs: number;
  rssMb: number;
}

function measure(args: string[]): Measured & { output: string } {
  const started = process.hrtime.bigint();
  const run = spawnSync(process.execPath, ['--import', REPORT_RSS, ...args], {
    cwd: emptyDir,
    encoding: 'utf8',
    timeout: 30_000,
    input: '',
    env: { ...process.env, NO_COLOR: '1', FRAMEWORK_MODELS_DIR: join(emptyDir, 'models') },
  });
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  const usage = /maxrss=(\d+) cpu=(\d+)/.exec(run.stderr ?? '');
  return {
    ms,
    cpuMs: usage ? Number(usage[2]) / 1000 : Number.NaN,
    rssMb: usage ? Number(usage[1]) / 1024 : Number.NaN,
    output: `${run.stdout ?? ''}${run.stderr ?? ''}`,
  };
}

try {
  console.log(
    `framework-cli cold starts: ${CASES.length} cases, ${RUNS} interleaved rounds, median of per-round ratios to node -e 0 (node ${process.version}, load average ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')})`,
  );
  if (BEFORE_BIN) console.log(`before: ${BEFORE_BIN} (${BEFORE.size} cases), run beside each case in the same rounds`);
  const baseline = ['-e', '0'];
  for (const c of [...CASES, ...BEFORE.values()]) {
    const first = measure(c.args); // warms the file cache, not the process
    if (c.args.includes(UNKNOWN_FLAG) && !first.output.includes(UNKNOWN_FLAG))
      console.log(`  note: ${c.name} did not stop at parsing: ${first.output.trim().split('\n')[0]}`);
  }
  const base: Measured[] = [];
  const runs = CASES.map(() => [] as Measured[]);
  const beforeRuns = CASES.map(() => [] as Measured[]);
  for (let round = 0; round < RUNS; round++) {
    base.push(measure(baseline));
    for (const [i, c] of CASES.entries()) {
      const before = BEFORE.get(c.name);
      // Alternate which tree goes first, so neither always follows the other.
      if (before && round % 2 === 1) beforeRuns[i]!.push(measure(before.args));
      runs[i]!.push(measure(c.args));
      if (before && round % 2 === 0) beforeRuns[i]!.push(measure(before.args));
    }
  }
  console.log(
    `${'node -e 0'.padEnd(44)} ${median(base.map((b) => b.ms))
      .toFixed(0)
      .padStart(5)} ms  CPU ${median(base.map((b) => b.cpuMs)).toFixed(0)} ms`,
  );
  let met = 0;
  let beforeMet = 0;
  let cpuMet = 0;
  let beforeCpuMet = 0;
  const cpuRatios = (list: readonly Measured[]) => list.map((r, round) => r.cpuMs / base[round]!.cpuMs);
  for (const [i, c] of CASES.entries()) {
    const list = runs[i]!;
    const ratios = list.map((r, round) => r.ms / base[round]!.ms);
    if (median(ratios) <= TARGET) met++;
    if (median(cpuRatios(list)) <= TARGET) cpuMet++;
    const beforeList = beforeRuns[i]!;
    const beforeRatios = beforeList.map((r, round) => r.ms / base[round]!.ms);
    if (beforeList.length > 0 && median(beforeRatios) <= TARGET) beforeMet++;
    if (beforeList.length > 0 && median(cpuRatios(beforeList)) <= TARGET) beforeCpuMet++;
    const versus =
      beforeList.length > 0
        ? `  before ${ratioSummary(beforeRatios, 2).padEnd(22)} peak RSS ${Math.max(...beforeList.map((r) => r.rssMb))
            .toFixed(0)
            .padStart(
              4,
            )} MB  CPU ${median(cpuRatios(beforeList)).toFixed(2)}×  after/before ${(median(list.map((r) => r.ms)) / median(beforeList.map((r) => r.ms))).toFixed(2)}, CPU ${(
            median(list.map((r) => r.cpuMs)) / median(beforeList.map((r) => r.cpuMs))
          ).toFixed(2)}`
        : '';
    console.log(
      `${c.name.padEnd(44)} ${median(list.map((r) => r.ms))
        .toFixed(0)
        .padStart(5)} ms  ${ratioSummary(ratios, 2).padEnd(22)} peak RSS ${Math.max(...list.map((r) => r.rssMb))
        .toFixed(0)
        .padStart(4)} MB  CPU ${median(cpuRatios(list)).toFixed(2)}×  ${targetMark(median(ratios), TARGET, 'at most')}${versus}`,
    );
  }
  console.log(`${met} of ${CASES.length} cases within ${TARGET}× node -e 0${BEFORE_BIN ? ` (before: ${beforeMet} of ${BEFORE.size})` : ''}`);
  console.log(`${cpuMet} of ${CASES.length} cases within ${TARGET}× node -e 0's CPU time${BEFORE_BIN ? ` (before: ${beforeCpuMet} of ${BEFORE.size})` : ''}`);
} finally {
  rmSync(emptyDir, { recursive: true, force: true });
}
