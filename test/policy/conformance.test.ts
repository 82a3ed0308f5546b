import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runConformance } from '../../runtime/policy/conformance.js';

const here = dirname(fileURLToPath(import.meta.url));
const dir = join(here, '..', '..', '..', 'shared', 'opa-conformance');

/**
 * Folders whose cases need features this engine does not ship (they are
 * reported as `unsupported`, never as wrong answers), with the reason.
 * Every builtin family used by the sample is registered now, so the list is
 * empty; a folder listed here must still have an unsupported case, and a
 * folder not listed must have none.
 */
const UNSUPPORTED_FOLDERS: Record<string, string> = {};

describe('OPA conformance sample', () => {
  const report = runConformance({ dir });

  it('loads the cases', () => {
    expect(report.total).toBeGreaterThan(400);
  });

  it('has no failed case in supported folders', () => {
    const failures = report.results
      .filter((r) => r.status === 'failed' && !(r.folder in UNSUPPORTED_FOLDERS))
      .map((r) => `${r.file}: ${r.note}: ${r.reason ?? ''}`);
    expect(failures).toEqual([]);
  });

  it('has no wrong answer in unsupported folders either', () => {
    const failures = report.results.filter((r) => r.status === 'failed').map((r) => `${r.file}: ${r.note}`);
    expect(failures).toEqual([]);
  });

  it('has no unsupported case outside the listed folders', () => {
    const unsupported = report.results
      .filter((r) => r.status === 'unsupported' && !(r.folder in UNSUPPORTED_FOLDERS))
      .map((r) => `${r.file}: ${r.note}: ${r.reason ?? ''}`);
    expect(unsupported).toEqual([]);
  });

  it('lists only folders that still need an unsupported feature', () => {
    for (const folder of Object.keys(UNSUPPORTED_FOLDERS)) {
      expect(report.folders[folder]?.unsupported ?? 0, folder).toBeGreaterThan(0);
    }
  });
});

describe('conformance loader', () => {
  it('reports an unreadable YAML file as a failure instead of crashing', () => {
    const dir = mkdtempSync(join(tmpdir(), 'rego-conf-'));
    mkdirSync(join(dir, 'bad'));
    writeFileSync(join(dir, 'bad', 'a.yaml'), 'cases:\n  - note: a\n    query: x := {"a": 1}\n');
    const summary = runConformance({ dir });
    expect(summary.failed).toBe(1);
    expect(summary.results[0]?.reason).toContain('cannot load file');
  });
});
