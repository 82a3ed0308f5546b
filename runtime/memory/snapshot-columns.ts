import { MemoryRecordSchema, type MemoryRecord } from './memory-records.js';

/**
 * The records of a memory snapshot by column (see vector-cache-snapshot.ts):
 * one list of values per field instead of one JSON object per record, so a
 * restart parses each field name once, not once per record, and a field with
 * few distinct values (dates written in one batch, namespaces, types, owners)
 * is a small dictionary plus one uint32 code per record in the snapshot's
 * binary file. Lists and objects (topics, strategy config) stay plain JSON
 * values, one per record, so no two records share a mutable value.
 */

/** A column whose values are written out one per record. */
interface PlainColumn {
  name: string;
  kind: 'plain';
  values: unknown[];
  /** Indexes (among the rows) of the rows without this field. */
  absent: number[];
}

/** A column of primitive values with few distinct ones: the dictionary here, one code per row in the binary file. */
interface DictColumn {
  name: string;
  kind: 'dict';
  values: Array<string | number | boolean | null>;
  absent: number[];
}

export type Column = PlainColumn | DictColumn;

/** The columns of `rows` (objects of JSON values) and, for the dictionary columns, their codes in order. */
export function encodeColumns(rows: ReadonlyArray<Record<string, unknown>>): { columns: Column[]; codes: Uint32Array[] } {
  const names: string[] = [];
  const seen = new Set<string>();
  for (const row of rows) {
    for (const name of Object.keys(row)) {
      if (!seen.has(name)) {
        seen.add(name);
        names.push(name);
      }
    }
  }
  const columns: Column[] = [];
  const codes: Uint32Array[] = [];
  for (const name of names) {
    const absent: number[] = [];
    const dictionary = new Map<string | number | boolean | null, number>();
    let primitive = true;
    for (let i = 0; i < rows.length; i++) {
      const row = rows[i]!;
      if (!Object.hasOwn(row, name) || row[name] === undefined) {
        absent.push(i);
        continue;
      }
      const value = row[name];
      if (value !== null && typeof value === 'object') primitive = false;
      else if (primitive && !dictionary.has(value as string) && dictionary.size <= rows.length / 4) dictionary.set(value as string, dictionary.size);
    }
    if (primitive && dictionary.size <= rows.length / 4) {
      const rowCodes = new Uint32Array(rows.length);
      for (let i = 0; i < rows.length; i++) {
        const value = rows[i]![name];
        if (value !== undefined) rowCodes[i] = dictionary.get(value as string)!;
      }
      columns.push({ name, kind: 'dict', values: [...dictionary.keys()], absent });
      codes.push(rowCodes);
    } else {
      columns.push({ name, kind: 'plain', values: rows.map((row) => (row[name] === undefined ? null : row[name])), absent });
    }
  }
  return { columns, codes };
}

/**
 * The `count` rows of `columns`, with the dictionary columns' codes taken
 * from `codes` in order. Throws a `RangeError` when the columns and codes do
 * not fit together (a damaged snapshot).
 */
export function decodeColumns(options: { count: number; columns: readonly Column[]; codes: readonly Uint32Array[] }): Array<Record<string, unknown>> {
  const { count, columns } = options;
  const rows: Array<Record<string, unknown>> = Array.from({ length: count }, () => ({}));
  let nextCodes = 0;
  for (const column of columns) {
    if (typeof column.name !== 'string' || !Array.isArray(column.values) || !Array.isArray(column.absent)) throw new RangeError('a malformed column');
    const absent = column.absent.length > 0 ? new Set(column.absent) : undefined;
    if (column.kind === 'plain') {
      if (column.values.length !== count) throw new RangeError(`column ${column.name} holds ${column.values.length} values for ${count} records`);
      for (let i = 0; i < count; i++) if (!absent?.has(i)) rows[i]![column.name] = column.values[i];
      continue;
    }
    if (column.kind !== 'dict') throw new RangeError('a column of an unknown kind');
    const rowCodes = options.codes[nextCodes++];
    if (rowCodes === undefined || rowCodes.length !== count) throw new RangeError(`column ${column.name} has no codes for its ${count} records`);
    const values = column.values;
    for (let i = 0; i < count; i++) {
      if (absent?.has(i)) continue;
      const code = rowCodes[i]!;
      if (code >= values.length) throw new RangeError(`column ${column.name} has a code past its dictionary`);
      rows[i]![column.name] = values[code];
    }
  }
  if (nextCodes !== options.codes.length) throw new RangeError('codes left over after the columns');
  return rows;
}

/**
 * A reader per column (row index to value), when every column holds a value
 * in every row: the caller builds its rows as object literals of a fixed
 * shape, far cheaper than adding fields one by one. Undefined when some rows
 * lack a field (use `decodeColumns`). Throws like `decodeColumns`.
 */
export function columnReaders(options: {
  count: number;
  columns: readonly Column[];
  codes: readonly Uint32Array[];
}): Map<string, (row: number) => unknown> | undefined {
  const { count } = options;
  const readers = new Map<string, (row: number) => unknown>();
  let nextCodes = 0;
  for (const column of options.columns) {
    if (column.absent.length > 0) return undefined;
    if (column.kind === 'plain') {
      if (column.values.length !== count) throw new RangeError(`column ${column.name} holds ${column.values.length} values for ${count} records`);
      const values = column.values;
      readers.set(column.name, (row) => values[row]);
      continue;
    }
    const rowCodes = options.codes[nextCodes++];
    if (rowCodes === undefined || rowCodes.length !== count) throw new RangeError(`column ${column.name} has no codes for its ${count} records`);
    const values = column.values;
    for (const code of rowCodes) if (code >= values.length) throw new RangeError(`column ${column.name} has a code past its dictionary`);
    readers.set(column.name, (row) => values[rowCodes[row]!]);
  }
  if (nextCodes !== options.codes.length) throw new RangeError('codes left over after the columns');
  return readers;
}

/**
 * The records of the columns: built as object literals when the columns are
 * exactly a record's fields, each in every row (a record has them all);
 * field by field otherwise.
 */
export function memoryRecords(options: {
  count: number;
  columns: readonly Column[];
  codes: readonly Uint32Array[];
}): Array<MemoryRecord | Record<string, unknown>> {
  const readers = columnReaders(options);
  if (!readers || readers.size !== RECORD_FIELDS.length || RECORD_FIELDS.some((name) => !readers.has(name))) return decodeColumns(options);
  const field = (name: keyof MemoryRecord) => readers.get(name) as (row: number) => never;
  const [id, text, sessionId, userId, namespace, lastAccessed, createdAt, updatedAt] = (
    ['id', 'text', 'session_id', 'user_id', 'namespace', 'last_accessed', 'created_at', 'updated_at'] as const
  ).map(field);
  const [pinned, accessCount, topics, entities, hash, extracted, type, persistedAt] = (
    ['pinned', 'access_count', 'topics', 'entities', 'memory_hash', 'discrete_memory_extracted', 'memory_type', 'persisted_at'] as const
  ).map(field);
  const [extractedFrom, eventDate, strategy, config] = (['extracted_from', 'event_date', 'extraction_strategy', 'extraction_strategy_config'] as const).map(
    field,
  );
  const records = new Array<MemoryRecord>(options.count);
  for (let i = 0; i < options.count; i++) {
    records[i] = {
      id: id!(i),
      text: text!(i),
      session_id: sessionId!(i),
      user_id: userId!(i),
      namespace: namespace!(i),
      last_accessed: lastAccessed!(i),
      created_at: createdAt!(i),
      updated_at: updatedAt!(i),
      pinned: pinned!(i),
      access_count: accessCount!(i),
      topics: topics!(i),
      entities: entities!(i),
      memory_hash: hash!(i),
      discrete_memory_extracted: extracted!(i),
      memory_type: type!(i),
      persisted_at: persistedAt!(i),
      extracted_from: extractedFrom!(i),
      event_date: eventDate!(i),
      extraction_strategy: strategy!(i),
      extraction_strategy_config: config!(i),
    };
  }
  return records;
}

/** A stored record's fields. */
const RECORD_FIELDS = Object.keys(MemoryRecordSchema.shape) as Array<keyof MemoryRecord>;
