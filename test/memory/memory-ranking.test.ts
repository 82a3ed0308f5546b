import { describe, expect, it } from 'vitest';
import { DEFAULT_RECENCY, recencyScore } from '../../runtime/memory/memory-ranking.js';

// recencyScore remembers the timestamps it has parsed: its answers must stay
// those of Date.parse, for timestamps seen again, past the point where the
// remembered ones are dropped, and for ones Date.parse cannot read.

function expected(record: { last_accessed: string; created_at: string }, now: Date): number {
  const days = (iso: string) => {
    const ms = Date.parse(iso);
    return Number.isFinite(ms) ? Math.max((now.getTime() - ms) / 86_400_000, 0) : Number.POSITIVE_INFINITY;
  };
  const p = DEFAULT_RECENCY;
  const value = p.freshnessWeight * Math.exp((-Math.LN2 / p.halfLifeLastAccessDays) * days(record.last_accessed));
  return Math.min(Math.max(value + p.noveltyWeight * Math.exp((-Math.LN2 / p.halfLifeCreatedDays) * days(record.created_at)), 0), 1);
}

describe('recencyScore', () => {
  it('gives what Date.parse gives, for repeated, many and unreadable timestamps', () => {
    const now = new Date('2026-12-04T12:00:00.000Z');
    const stamps = Array.from({ length: 9000 }, (_, i) => new Date(now.getTime() - i * 37_000_000).toISOString());
    stamps.push('not a date', '', '2026-13-45T00:00:00Z', '2026-12-01');
    for (let round = 0; round < 2; round++) {
      for (let i = 0; i < stamps.length; i++) {
        const record = { last_accessed: stamps[i]!, created_at: stamps[(i * 7) % stamps.length]! };
        expect(recencyScore(record, now, DEFAULT_RECENCY)).toBe(expected(record, now));
      }
    }
  });
});
