/**
 * CLI: `node dist/runtime/policy/conformance-main.js [dir] [--json]`.
 * Prints per-folder and total pass/fail/unsupported counts and the failing
 * cases; with `--json`, exactly one JSON document
 * `{ total, passed, failed, unsupported, skipped, failures: [{ file, note, reason }] }`.
 * The default directory is `../shared/opa-conformance` next to the repo root.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runConformance } from './conformance.js';

function repoRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const pkg = join(dir, 'package.json');
    if (existsSync(pkg)) {
      try {
        if ((JSON.parse(readFileSync(pkg, 'utf8')) as { name?: string }).name === 'framework_core') return dir;
      } catch {
        // keep looking
      }
    }
    const parent = dirname(dir);
    if (parent === dir) return process.cwd();
    dir = parent;
  }
}

function main(argv: string[]): number {
  const json = argv.includes('--json');
  const positional = argv.filter((a) => !a.startsWith('--'));
  const dir = positional[0] !== undefined ? resolve(positional[0]) : join(repoRoot(), '..', 'shared', 'opa-conformance');
  if (!existsSync(dir)) {
    process.stderr.write(`conformance directory not found: ${dir}\n`);
    return 2;
  }
  const report = runConformance({ dir });
  const failures = report.results.filter((r) => r.status === 'failed').map((r) => ({ file: r.file, note: r.note, reason: r.reason ?? '' }));
  if (json) {
    const doc = {
      total: report.total,
      passed: report.passed,
      failed: report.failed,
      unsupported: report.unsupported,
      skipped: report.skipped,
      failures,
    };
    process.stdout.write(JSON.stringify(doc) + '\n');
    return 0;
  }
  const lines: string[] = [];
  const names = Object.keys(report.folders).sort();
  const width = Math.max(6, ...names.map((n) => n.length));
  lines.push(`${'folder'.padEnd(width)}  total  passed  failed  unsupported  skipped`);
  for (const name of names) {
    const f = report.folders[name];
    if (f === undefined) continue;
    lines.push(
      `${name.padEnd(width)}  ${String(f.total).padStart(5)}  ${String(f.passed).padStart(6)}  ${String(f.failed).padStart(6)}  ${String(f.unsupported).padStart(11)}  ${String(f.skipped).padStart(7)}`,
    );
  }
  lines.push(
    `${'TOTAL'.padEnd(width)}  ${String(report.total).padStart(5)}  ${String(report.passed).padStart(6)}  ${String(report.failed).padStart(6)}  ${String(report.unsupported).padStart(11)}  ${String(report.skipped).padStart(7)}`,
  );
  if (failures.length > 0) {
    lines.push('', 'Failures:');
    for (const f of failures) lines.push(`  ${f.file}: ${f.note}\n    ${f.reason.split('\n').join('\n    ')}`);
  }
  const unsupported = report.results.filter((r) => r.status === 'unsupported');
  if (unsupported.length > 0) {
    lines.push('', 'Unsupported:');
    for (const u of unsupported) lines.push(`  ${u.file}: ${u.note}\n    ${(u.reason ?? '').split('\n')[0]}`);
  }
  process.stdout.write(lines.join('\n') + '\n');
  return 0;
}

process.exitCode = main(process.argv.slice(2));
