import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { opaConformanceDir } from '../support/opa-conformance.js';

/** The conformance tests on a clone that has no `../shared` beside it: skipped with where to get the cases, except in CI. */
describe('the OPA conformance folder', () => {
  const missing = join(mkdtempSync(join(tmpdir(), 'opa-conf-dir-')), 'opa-conformance');

  it('is skipped on a user clone without it, saying where to get it', () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    try {
      expect(opaConformanceDir({ env: {}, dir: missing })).toBeUndefined();
      expect(warn.mock.calls[0]?.[0]).toMatch(/skipped: .*open-policy-agent\/opa, v1\/test\/cases\/testdata\/v1\/.*\.\.\/shared\/opa-conformance/);
    } finally {
      warn.mockRestore();
    }
  });

  it('is required in CI: a missing folder fails the tests that need it', () => {
    expect(() => opaConformanceDir({ env: { CI: 'true' }, dir: missing })).toThrow(/OPA conformance cases are missing .*CI=true/);
    expect(() => opaConformanceDir({ env: { FRAMEWORK_REQUIRE_CONFORMANCE: '1' }, dir: missing })).toThrow(/FRAMEWORK_REQUIRE_CONFORMANCE=1/);
  });

  it('is the folder itself when it is there', () => {
    const dir = mkdtempSync(join(tmpdir(), 'opa-conf-present-'));
    expect(opaConformanceDir({ env: { CI: 'true' }, dir })).toBe(dir);
  });
});
