import type { CheckStatus, DoctorCheck } from './doctor-check.js';
import type { DoctorReport } from './run-doctor.js';
import { terminalText } from '../core/terminal-text.js';

const MARK: Record<CheckStatus, string> = { ok: '✔', missing: '✖', warn: '!' };

/**
 * The report as a table for a terminal: one line per check (✔ ok, ✖
 * missing, ! warn), its fix on the next line, then a summary line.
 *
 * @example
 * ✔ node            Node 20.19.1 (needs >= 20.19.0)
 * ✖ redis           nothing answers PING at redis://127.0.0.1:6379: connect ECONNREFUSED
 *                   fix: start redis-server ...
 */
export function formatReport(report: DoctorReport): string {
  const width = Math.max(...report.checks.map((c) => c.name.length), 4) + 2;
  const lines: string[] = [];
  for (const check of report.checks) {
    // A detail quotes what a service answered (a version, an error): shown, never interpreted.
    lines.push(
      `${MARK[check.status]} ${check.name.padEnd(width)}${terminalText(check.detail, { singleLine: true })}${check.required || check.status === 'ok' ? '' : ' (optional)'}`,
    );
    if (check.fix !== undefined && check.status !== 'ok') lines.push(`  ${' '.repeat(width)}fix: ${terminalText(check.fix)}`);
  }
  lines.push('', summary(report.checks, report.ok));
  return lines.join('\n');
}

function summary(checks: readonly DoctorCheck[], ok: boolean): string {
  const count = (status: CheckStatus) => checks.filter((c) => c.status === status).length;
  const counts = `${count('ok')} ok, ${count('warn')} warning(s), ${count('missing')} missing`;
  return ok ? `Ready: ${counts}.` : `Not ready: ${counts}; fix the ✖ lines above.`;
}
