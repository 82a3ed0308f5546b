import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runConformance } from '../../runtime/policy/conformance.js';

const here = dirname(fileURLToPath(import.meta.url));
const dir = join(here, '..', '..', '..', 'shared', 'opa-conformance');

/**
 * Folders whose cases need builtin families this engine does not ship yet
 * (they are reported as `unsupported`, never as wrong answers). Remove a
 * folder from this list once its family is registered: the test below fails
 * when a listed folder has no unsupported case left.
 */
const UNSUPPORTED_FOLDERS: Record<string, string> = {
  base64builtins: 'base64.* (encoding family not implemented yet)',
  base64urlbuiltins: 'base64url.* (encoding family not implemented yet)',
  globmatch: 'glob.match (glob family not implemented yet)',
  jsonbuiltins: 'json.is_valid / yaml.* (encoding family not implemented yet)',
  regexmatch: 'regex.match (regex family not implemented yet)',
  regexreplace: 'regex.replace (regex family not implemented yet)',
  regexsplit: 'regex.split (regex family not implemented yet)',
  time: 'time.* beyond time.now_ns (time family not implemented yet)',
  units: 'units.parse / units.parse_bytes (units family not implemented yet)',
  uuid: 'uuid.* (uuid family not implemented yet)',
};

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

  it('lists only folders that still need an unsupported feature', () => {
    for (const folder of Object.keys(UNSUPPORTED_FOLDERS)) {
      expect(report.folders[folder]?.unsupported ?? 0, folder).toBeGreaterThan(0);
    }
  });
});
