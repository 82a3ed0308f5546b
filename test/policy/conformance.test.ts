import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { runConformance, type ConformanceReport } from '../../runtime/policy/conformance.js';
import { opaConformanceDir } from '../support/opa-conformance.js';

const here = dirname(fileURLToPath(import.meta.url));
/** Absent on a user's clone (the suite is then skipped, saying where to get it); required in CI. */
const dir = opaConformanceDir();

/**
 * The cases not passed yet, by status (`file :: note`). The engine never
 * answers these silently wrong where it can tell: unsupported cases raise a
 * clear `unsupported` error. The results must match the list exactly, so a
 * regression fails here and a fixed case must leave the list.
 */
const gaps = JSON.parse(readFileSync(join(here, 'conformance-gaps.json'), 'utf8')) as { failed: string[]; unsupported: string[] };

describe.skipIf(dir === undefined)('OPA conformance suite', () => {
  // Loaded in beforeAll, not in the body: vitest runs a skipped describe's body too (to collect its tests).
  let report: ConformanceReport;
  beforeAll(() => {
    report = runConformance({ dir: dir! });
  });
  const cases = (status: string) =>
    report.results
      .filter((r) => r.status === status)
      .map((r) => `${r.file} :: ${r.note}`)
      .sort();

  it('loads the cases', () => {
    expect(report.total).toBeGreaterThan(1_800);
  });

  it('fails only the cases listed as not passed yet, and no more', () => {
    expect(cases('failed')).toEqual(gaps.failed);
  });

  it('reports as unsupported only the cases listed, and no more', () => {
    expect(cases('unsupported')).toEqual(gaps.unsupported);
  });

  it('passes everything else', () => {
    expect(report.passed).toBe(report.total - gaps.failed.length - gaps.unsupported.length);
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
