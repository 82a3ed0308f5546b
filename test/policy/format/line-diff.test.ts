import { describe, expect, it } from 'vitest';
import { unifiedDiff } from '../../../runtime/policy/format/line-diff.js';

describe('unifiedDiff', () => {
  it('is empty for equal texts', () => {
    expect(unifiedDiff({ before: 'a\n', after: 'a\n', file: 'f' })).toBe('');
  });

  it('writes one hunk with three lines of context, deletions before insertions', () => {
    const before = 'l1\nl2\nl3\nl4\nold\nl6\nl7\nl8\nl9\n';
    const after = 'l1\nl2\nl3\nl4\nnew\nl6\nl7\nl8\nl9\n';
    expect(unifiedDiff({ before, after, file: 'f.rego' })).toBe(
      '--- f.rego\n+++ f.rego (formatted)\n@@ -2,7 +2,7 @@\n l2\n l3\n l4\n-old\n+new\n l6\n l7\n l8\n',
    );
  });

  it('splits changes far apart into separate hunks and counts added lines', () => {
    const before = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j'].join('\n') + '\n';
    const after = ['A', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j', 'k'].join('\n') + '\n';
    expect(unifiedDiff({ before, after, file: 'f' })).toBe('--- f\n+++ f (formatted)\n@@ -1,4 +1,4 @@\n-a\n+A\n b\n c\n d\n@@ -8,3 +8,4 @@\n h\n i\n j\n+k\n');
  });
});
