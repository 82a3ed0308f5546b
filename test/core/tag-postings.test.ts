import { describe, expect, it } from 'vitest';
import { DENSE_SHARE, TagPostings } from '../../runtime/core/vectors/tag-postings.js';
import { prng as seeded } from '../../bench/support/seeded-random.js';

/** Reference: the tags of every label, intersected the obvious way. */
function expected(state: Map<number, Set<string>>, tags: string[]): number[] {
  if (tags.length === 0) return [];
  return [...state]
    .filter(([, held]) => tags.every((tag) => held.has(tag)))
    .map(([label]) => label)
    .sort((a, b) => a - b);
}

function check(postings: TagPostings, state: Map<number, Set<string>>, tags: string[], span: number): void {
  const match = postings.match({ tags });
  const want = expected(state, tags);
  expect(match.count).toBe(want.length);
  expect([...match.labels()].sort((a, b) => a - b)).toEqual(want);
  const wanted = new Set(want);
  for (let label = 0; label < span + 40; label++) if (match.has(label) !== wanted.has(label)) expect.fail(`has(${label}) for ${tags.join(' & ')}`);
}

describe('TagPostings', () => {
  it('intersects dense (bitset) and sparse (Set) lists exactly through adds, updates and deletes', () => {
    const random = seeded(23);
    const postings = new TagPostings();
    const state = new Map<number, Set<string>>();
    // Shares from 1/2 (bitset) to 1/100 (Set), and a tag held by 3 labels.
    const tagsOf = (label: number): string[] => [
      `half=${label % 2}`,
      `eighth=${label % 8}`,
      `ns=${label % 10}`,
      `pct=${label % 100}`,
      ...(label % 997 === 5 ? ['rare=yes'] : []),
    ];
    const put = (label: number, tags: string[]) => {
      const old = state.get(label);
      if (old) postings.remove({ label, tags: old });
      postings.add({ label, tags });
      state.set(label, new Set(tags));
    };
    const drop = (label: number) => {
      const old = state.get(label);
      if (!old) return;
      postings.remove({ label, tags: old });
      state.delete(label);
    };
    const queries = [
      ['half=1'],
      ['eighth=3'],
      ['half=1', 'eighth=3'],
      ['eighth=3', 'ns=3'],
      ['half=0', 'eighth=3'], // empty: eighth 3 is odd
      ['ns=3', 'pct=13'],
      ['pct=13', 'half=1', 'ns=3'],
      ['rare=yes', 'half=1'],
      ['missing=tag'],
      ['half=1', 'missing=tag'],
      ['half=1', 'half=1'],
      [],
    ];
    const span = 3_000;
    for (let label = 0; label < span; label++) put(label, tagsOf(label));
    for (const tags of queries) check(postings, state, tags, span);
    expect(postings.size('half=1')).toBe(span / 2);

    // Updates that move labels between tags, deletes, and labels re-added, checked after every round.
    for (let round = 0; round < 5; round++) {
      for (let i = 0; i < 400; i++) {
        const label = Math.floor(random() * span);
        const roll = random();
        if (roll < 0.4) drop(label);
        else if (roll < 0.8) put(label, tagsOf(Math.floor(random() * span)));
        else put(label, tagsOf(label));
      }
      for (const tags of queries) check(postings, state, tags, span);
    }
  });

  it('moves a list between bitset and Set as its share changes, and grows bitsets with new labels', () => {
    const postings = new TagPostings();
    const state = new Map<number, Set<string>>();
    const span = 64 * DENSE_SHARE;
    // 'a' on every label: a bitset from the start; 'b' on the first 64 labels: dense while the span is small.
    for (let label = 0; label < span; label++) {
      const tags = label < 64 ? ['a', 'b'] : ['a'];
      postings.add({ label, tags });
      state.set(label, new Set(tags));
    }
    check(postings, state, ['a', 'b'], span);
    // Far labels: bitsets must grow to hold them.
    for (const label of [span * 3 + 7, span * 10 + 31]) {
      postings.add({ label, tags: ['a', 'b'] });
      state.set(label, new Set(['a', 'b']));
    }
    check(postings, state, ['a', 'b'], span * 10 + 32);
    check(postings, state, ['a'], span * 10 + 32);
    // Empty 'a' down to a few labels: it turns back into a Set, answers unchanged.
    for (let label = 0; label < span; label++) {
      if (label % 50 === 0) continue;
      postings.remove({ label, tags: state.get(label)! });
      state.delete(label);
    }
    check(postings, state, ['a', 'b'], span * 10 + 32);
    check(postings, state, ['a'], span * 10 + 32);
    // Removing a label twice, or a tag never held, changes nothing.
    postings.remove({ label: 50, tags: ['a', 'zzz'] });
    postings.remove({ label: 50, tags: ['a'] });
    state.get(50)!.delete('a');
    check(postings, state, ['a'], span * 10 + 32);
    expect(postings.size('zzz')).toBe(0);
  });

  it('rejects a label that is not a non-negative integer', () => {
    const postings = new TagPostings();
    expect(() => postings.add({ label: -1, tags: ['a'] })).toThrow(RangeError);
    expect(() => postings.add({ label: 1.5, tags: ['a'] })).toThrow(RangeError);
    expect(postings.match({ tags: ['a'] }).count).toBe(0);
  });
});
