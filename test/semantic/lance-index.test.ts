import { describe, expect, it } from 'vitest';
import { indexAction } from '../../runtime/semantic/lance-index.js';

describe('indexAction', () => {
  const index = { indexed: 100_000, unindexed: 0, trainedRows: 100_000, segments: 1 };

  it('creates the index when the table reaches the threshold, not before', () => {
    expect(indexAction({ rows: 9_999, threshold: 10_000 })).toBe('none');
    expect(indexAction({ rows: 10_000, threshold: 10_000 })).toBe('create');
  });

  it('adds new rows incrementally once enough are unindexed', () => {
    expect(indexAction({ rows: 101_000, threshold: 10_000, index: { ...index, unindexed: 1_000 } })).toBe('none');
    // 100,000 indexed: waits for 2,500 (indexed / 40).
    expect(indexAction({ rows: 102_000, threshold: 10_000, index: { ...index, unindexed: 2_000 } })).toBe('none');
    expect(indexAction({ rows: 102_500, threshold: 10_000, index: { ...index, unindexed: 2_500 } })).toBe('optimize');
    // A small index: 2,000 (or threshold / 5).
    expect(indexAction({ rows: 12_000, threshold: 10_000, index: { indexed: 10_000, unindexed: 2_000, trainedRows: 10_000, segments: 1 } })).toBe('optimize');
    expect(indexAction({ rows: 360, threshold: 300, index: { indexed: 300, unindexed: 60, trainedRows: 300, segments: 1 } })).toBe('optimize');
  });

  it('retrains when the rows have doubled or the segments pile up', () => {
    expect(indexAction({ rows: 200_000, threshold: 10_000, index: { ...index, indexed: 195_000, unindexed: 5_000 } })).toBe('rebuild');
    expect(indexAction({ rows: 120_000, threshold: 10_000, index: { ...index, indexed: 120_000, segments: 4 } })).toBe('rebuild');
    expect(indexAction({ rows: 120_000, threshold: 10_000, index: { ...index, indexed: 120_000, segments: 3 } })).toBe('none');
  });
});
