/**
 * The location column of OPA's PrettyTraceWithLocation (topdown/trace.go),
 * expected values worked out from its rules: the column is as wide as the
 * widest location in UTF-8 bytes plus four, filled in characters (Go's `%-*s`
 * counts runes), and when a `file:row` passes 64 bytes the longest directory
 * part common to all files (after their first segment) becomes `...`, cut from
 * the right so that the widest location is about 64 (`TruncateFilePaths`).
 */
import { describe, expect, it } from 'vitest';
import { fileAliases, longestCommonSubstring } from '../../../runtime/policy/trace/file-aliases.js';
import { prettyTrace } from '../../../runtime/policy/trace/pretty-trace.js';
import type { TraceEvent } from '../../../runtime/policy/trace/trace-event.js';

const note = (file: string, row: number, message: string, queryId = 0): TraceEvent => ({
  op: 'Note',
  queryId,
  parentId: 0,
  location: { file, row, col: 1 },
  message,
});

describe('the location column of a pretty trace', () => {
  it('is as wide as the widest location in bytes, plus four, and filled in characters', () => {
    // "é.rego:1" is 9 bytes and 8 characters: the column is 13 wide, so 5 spaces follow it and 6 follow "query:1".
    // (A note is shown one level below its query: `| Note`.)
    expect(prettyTrace([note('', 1, 'a'), note('é.rego', 1, 'b')])).toEqual([`query:1${' '.repeat(6)} | Note "a"`, `é.rego:1${' '.repeat(5)} | Note "b"`]);
  });

  it('keeps file names whose locations fit in 64 bytes', () => {
    const file = `policies/${'x'.repeat(40)}/p_test.rego`; // 61 bytes; ":9" makes 63
    expect(fileAliases([{ file, row: 9 }]).get(file)).toBe(file);
    expect(prettyTrace([note(file, 9, 'n')])).toEqual([`${file}:9     | Note "n"`]);
  });

  it('shortens the common directory part past 64 bytes, cut from the right to fit', () => {
    const a = 'bundle/kubernetes/admission/privileged/deny_privileged_containers_test.rego'; // 75 bytes
    const b = 'bundle/kubernetes/admission/privileged/helpers.rego';
    // Widest: a's 75 bytes + ":12" = 78. The directories' common part is "kubernetes/admission/privileged" (31 bytes);
    // 64 - (78 - 31 + 3) = 14 bytes are cut from its right, so "kubernetes/admiss" (17 bytes) becomes "..." and a's
    // location is 78 - 17 + 3 = 64 bytes: the column is 68 wide.
    const aliases = fileAliases([
      { file: a, row: 12 },
      { file: b, row: 3 },
      { file: '', row: 1 },
    ]);
    expect(aliases.get(a)).toBe('bundle/...ion/privileged/deny_privileged_containers_test.rego');
    expect(aliases.get(b)).toBe('bundle/...ion/privileged/helpers.rego');
    const lines = prettyTrace([note('', 1, 'q'), note(a, 12, 'x', 1), note(b, 3, 'y', 1)]);
    expect(lines).toEqual([
      `query:1${' '.repeat(68 - 7)} | Note "q"`,
      'bundle/...ion/privileged/deny_privileged_containers_test.rego:12     | | Note "x"',
      `bundle/...ion/privileged/helpers.rego:3${' '.repeat(68 - 39)} | | Note "y"`,
    ]);
  });

  it('leaves names alone when what they share is three bytes or less', () => {
    const a = `a/${'x'.repeat(70)}.rego`;
    expect(fileAliases([{ file: a, row: 1 }]).get(a)).toBe(a); // its directory part is "a": nothing to cut
  });

  it('resolves a tie between common substrings as OPA’s suffix merge does: the first in byte order', () => {
    expect(longestCommonSubstring([Buffer.from('abXcd'), Buffer.from('cdYab')]).toString()).toBe('ab');
    expect(longestCommonSubstring([Buffer.from('kubernetes/x'), Buffer.from('y/kubernetes')]).toString()).toBe('kubernetes');
    expect(longestCommonSubstring([Buffer.from('abc'), Buffer.from('xyz')]).toString()).toBe('');
  });
});
