import { describe, expect, it } from 'vitest';
import { columnReaders, decodeColumns, encodeColumns } from '../../runtime/memory/snapshot-columns.js';

// The column layout of the memory snapshot (issue 23): rows go out by column
// (few distinct values as a dictionary plus codes) and come back equal.

const rows = Array.from({ length: 40 }, (_, i) => ({
  id: `r${i}`,
  namespace: i % 3 === 0 ? null : `ns${i % 2}`,
  pinned: i % 5 === 0,
  count: i % 4,
  topics: i % 2 === 0 ? ['a', `t${i}`] : null,
  config: {},
  ...(i === 7 ? { extra: 'only here' } : {}),
}));

describe('snapshot columns', () => {
  it('round-trips rows: dictionary columns for few values, plain ones for many or for lists, absent fields left absent', () => {
    const { columns, codes } = encodeColumns(rows);
    expect(Object.fromEntries(columns.map((c) => [c.name, c.kind]))).toEqual({
      id: 'plain',
      namespace: 'dict',
      pinned: 'dict',
      count: 'dict',
      topics: 'plain',
      config: 'plain',
      extra: 'dict',
    });
    const back = decodeColumns({ count: rows.length, columns: JSON.parse(JSON.stringify(columns)), codes });
    expect(back).toEqual(rows);
    expect(Object.hasOwn(back[6]!, 'extra')).toBe(false);
    // Lists and objects are one per row, never shared.
    expect(back[0]!.config).not.toBe(back[1]!.config);
    // Readers only when every row has every field.
    expect(columnReaders({ count: rows.length, columns, codes })).toBeUndefined();
    const full = encodeColumns(rows.map(({ id, namespace }) => ({ id, namespace })));
    const readers = columnReaders({ count: rows.length, ...full })!;
    expect(rows.map((_, i) => readers.get('namespace')!(i))).toEqual(rows.map((r) => r.namespace));
  });

  it('throws on columns that do not fit their codes (a damaged file), never returns wrong rows', () => {
    const { columns, codes } = encodeColumns(rows);
    expect(() => decodeColumns({ count: rows.length + 1, columns, codes })).toThrow(RangeError);
    expect(() => decodeColumns({ count: rows.length, columns, codes: codes.slice(1) })).toThrow(RangeError);
    const bad = codes.map((c) => c.slice());
    bad[0]![3] = 1000;
    expect(() => decodeColumns({ count: rows.length, columns, codes: bad })).toThrow(/past its dictionary/);
    expect(() => columnReaders({ count: rows.length, columns: columns.map((c) => ({ ...c, absent: [] })), codes: bad })).toThrow(/past its dictionary/);
  });
});
