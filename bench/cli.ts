/**
 * Cold-start benchmark of framework-cli: each command is started as a fresh
 * `node` process RUNS times (default 10), beside `node -e 0` in the same run,
 * and the median wall time, the ratio to bare Node and the peak RSS are
 * printed against the targets of the fast-CLI issue. Run from a built tree
 * (`npm run bench:cli` builds first). Prints figures; asserts nothing.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BIN = join(ROOT, 'cli/bin/run.js');
const RUNS = Number(process.env.BENCH_RUNS ?? 10);
// Reports the process's peak RSS on exit, whatever the command does.
const REPORT_RSS = 'data:text/javascript,process.on("exit",()=>process.stderr.write(`\\nmaxrss=${process.resourceUsage().maxRSS}\\n`))';

interface Case {
  name: string;
  args: string[];
  /** Target median in ms, and peak RSS in MB, when the issue sets one. */
  targetMs?: number;
  targetMb?: number;
}

const emptyDir = mkdtempSync(join(tmpdir(), 'bench-cli-'));
const CASES: Case[] = [
  { name: 'node -e 0', args: ['-e', '0'] },
  { name: '--help', args: [BIN, '--help'], targetMs: 300, targetMb: 70 },
  { name: 'policy eval (shipped policies)', args: [BIN, 'policy', 'eval', '-d', join(ROOT, 'policies'), 'data.a2a_access.allow'], targetMs: 400 },
  { name: 'status --json', args: [BIN, 'status', '--json', '--dir', emptyDir], targetMs: 350 },
  { name: 'version', args: [BIN, 'version'] },
];

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

function measure(args: string[]): { ms: number; rssMb: number } {
  const started = process.hrtime.bigint();
  const run = spawnSync(process.execPath, ['--import', REPORT_RSS, ...args], { cwd: emptyDir, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  const rss = /maxrss=(\d+)/.exec(run.stderr ?? '');
  return { ms, rssMb: rss ? Number(rss[1]) / 1024 : Number.NaN };
}

try {
  console.log(`framework-cli cold starts: median of ${RUNS} runs each (Node ${process.version}, ${new Date().toISOString()})`);
  let baseline = Number.NaN;
  for (const c of CASES) {
    measure(c.args); // warm the file cache, not the process
    const runs = Array.from({ length: RUNS }, () => measure(c.args));
    const ms = median(runs.map((r) => r.ms));
    const rss = Math.max(...runs.map((r) => r.rssMb));
    if (c.name === 'node -e 0') baseline = ms;
    const target = [
      c.targetMs ? `target ≤ ${c.targetMs} ms ${ms <= c.targetMs ? 'met' : 'MISSED'}` : '',
      c.targetMb ? `RSS target ≤ ${c.targetMb} MB ${rss <= c.targetMb ? 'met' : 'MISSED'}` : '',
    ]
      .filter(Boolean)
      .join('; ');
    console.log(
      `${c.name.padEnd(32)} ${ms.toFixed(0).padStart(5)} ms  ${(ms / baseline).toFixed(1).padStart(5)}× node -e 0  peak RSS ${rss.toFixed(0).padStart(4)} MB  ${target}`,
    );
  }
} finally {
  rmSync(emptyDir, { recursive: true, force: true });
}
