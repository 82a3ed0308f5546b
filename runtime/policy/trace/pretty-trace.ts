/**
 * OPA's `PrettyTraceWithLocation`: one line per event, a location column
 * (`file:row`, `query:row` for the query) padded to the widest plus four,
 * then the event indented by `| ` per query depth: `Enter data.a.allow`,
 * `| Eval gt(x, 1)`, `| Note "hi"`. Rules are shown by their path. As in Go,
 * the column's width is counted in UTF-8 bytes and filled in characters, and
 * long file names are shortened with `...` (see {@link fileAliases}).
 */
import { goQuote } from '../value-format.js';
import { fileAliases } from './file-aliases.js';
import type { TraceEvent } from './trace-event.js';

const COLUMN_PADDING = 4;

export function prettyTrace(events: readonly TraceEvent[]): string[] {
  const aliases = fileAliases(events.flatMap((e) => (e.location === undefined ? [] : [e.location])));
  const depths = new Map<number, number>();
  const rows: Array<[string, string]> = [];
  for (const e of events) {
    let depth = depths.get(e.queryId) ?? 0;
    if (depth === 0) {
      depth = (depths.get(e.parentId) ?? 0) + 1;
      depths.set(e.queryId, depth);
    }
    rows.push([locationText(e, aliases), eventText(e, depth)]);
  }
  const width = Math.max(0, ...rows.map(([l]) => Buffer.byteLength(l))) + COLUMN_PADDING;
  return rows.map(([l, text]) => `${l}${' '.repeat(Math.max(0, width - [...l].length))} ${text}`);
}

function locationText(e: TraceEvent, aliases: ReadonlyMap<string, string>): string {
  const l = e.location;
  if (l === undefined) return '';
  return l.file === '' ? `query:${l.row}` : `${aliases.get(l.file) ?? l.file}:${l.row}`;
}

function eventText(e: TraceEvent, depth: number): string {
  const spaces = e.op === 'Enter' || (e.op === 'Redo' && e.node?.type !== 'expr') ? depth : depth + 1;
  const pad = spaces > 1 ? '| '.repeat(spaces - 1) : '';
  // Go's `%q`.
  if (e.op === 'Note') return `${pad}Note ${goQuote(e.message ?? '')}`;
  const node = e.node;
  const details = node === undefined ? '' : node.type === 'rule' ? node.path : node.text;
  return `${pad}${e.op} ${details}${e.message ? ` ${e.message}` : ''}`;
}
