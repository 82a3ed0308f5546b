import { appendFileSync, mkdirSync, readFileSync, renameSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { StoredSpanSchema, type StoredSpan } from './stored-span.js';
import { TRACES_DIR } from './traces-dir.js';

export { TRACES_DIR } from './traces-dir.js';

/** Bytes one file of spans may reach before it is rotated; two files are kept, so the store never passes twice this. */
export const DEFAULT_TRACE_FILE_BYTES = 4 * 1024 * 1024;

const CURRENT = 'spans.jsonl';
const PREVIOUS = 'spans.1.jsonl';

/**
 * The bounded local store of a stack's spans: JSON lines appended to
 * `spans.jsonl`; past `maxBytes` it becomes `spans.1.jsonl` (replacing the
 * older one) and a new file starts. Files rather than Redis: `trace` reads
 * them with no service running (after `down`, or when the stack failed), and
 * a stack without Redis still has its traces.
 */
export class TraceStore {
  readonly dir: string;
  readonly #maxBytes: number;

  constructor(options: { root: string; maxBytes?: number }) {
    this.dir = join(options.root, TRACES_DIR);
    this.#maxBytes = options.maxBytes ?? DEFAULT_TRACE_FILE_BYTES;
  }

  /** Appends spans (one write, so lines from concurrent exports never interleave within a line). */
  append(spans: readonly StoredSpan[]): void {
    if (spans.length === 0) return;
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    const current = join(this.dir, CURRENT);
    if (sizeOf(current) >= this.#maxBytes) renameSync(current, join(this.dir, PREVIOUS));
    appendFileSync(current, spans.map((span) => `${JSON.stringify(span)}\n`).join(''), { mode: 0o600 });
  }

  /** Every span kept, oldest file first; lines that are not spans (a torn write, an edit) are skipped. */
  read(): StoredSpan[] {
    const spans: StoredSpan[] = [];
    for (const file of [PREVIOUS, CURRENT]) {
      let text: string;
      try {
        text = readFileSync(join(this.dir, file), 'utf8');
      } catch {
        continue;
      }
      for (const line of text.split('\n')) {
        if (line.trim() === '') continue;
        try {
          const parsed = StoredSpanSchema.safeParse(JSON.parse(line));
          if (parsed.success) spans.push(parsed.data);
        } catch {
          // A line cut short by a crash mid-write: the rest of the file is still good.
        }
      }
    }
    return spans;
  }

  /** Bytes in the current file (to notice new spans when following). */
  size(): number {
    return sizeOf(join(this.dir, CURRENT)) + sizeOf(join(this.dir, PREVIOUS));
  }
}

function sizeOf(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
}
