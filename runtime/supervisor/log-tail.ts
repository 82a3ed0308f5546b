import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * The last `lines` lines of a text file (without the trailing empty line);
 * reads backwards from the end, so a large log costs little. A missing file
 * has no lines.
 *
 * @example
 * lastLines({ file: '.framework/run/logs/planner.log', lines: 50 });
 */
export function lastLines(options: { file: string; lines: number }): string[] {
  if (options.lines <= 0) return [];
  let fd: number;
  try {
    fd = openSync(options.file, 'r');
  } catch {
    return [];
  }
  try {
    let position = statSync(options.file).size;
    let text = '';
    const chunk = Buffer.alloc(64 * 1024);
    while (position > 0 && text.split('\n').length <= options.lines + 1) {
      const length = Math.min(chunk.length, position);
      position -= length;
      readSync(fd, chunk, 0, length, position);
      text = chunk.subarray(0, length).toString('utf8') + text;
    }
    const all = text.split('\n');
    if (all.at(-1) === '') all.pop();
    return all.slice(-options.lines);
  } finally {
    closeSync(fd);
  }
}

/**
 * Polls `files` every `intervalMs` (default 250 ms) and calls `onLine` for
 * each complete line appended after the call; starts again from the top of
 * a file that shrank (a new run). Resolves when `signal` aborts.
 *
 * @example
 * const controller = new AbortController();
 * process.once('SIGINT', () => controller.abort());
 * await followFiles({ files: [{ name: 'planner', file }], onLine: (name, line) => console.log(`${name} | ${line}`), signal: controller.signal });
 */
export async function followFiles(options: {
  files: ReadonlyArray<{ name: string; file: string }>;
  onLine: (name: string, line: string) => void;
  signal: AbortSignal;
  intervalMs?: number;
}): Promise<void> {
  const positions = new Map(options.files.map(({ name, file }) => [name, { file, offset: sizeOf(file), pending: '' }]));
  while (!options.signal.aborted) {
    for (const [name, state] of positions) {
      const size = sizeOf(state.file);
      if (size < state.offset) Object.assign(state, { offset: 0, pending: '' });
      if (size === state.offset) continue;
      const fd = openSync(state.file, 'r');
      try {
        const buffer = Buffer.alloc(size - state.offset);
        readSync(fd, buffer, 0, buffer.length, state.offset);
        state.offset = size;
        const lines = (state.pending + buffer.toString('utf8')).split('\n');
        state.pending = lines.pop() ?? '';
        for (const line of lines) options.onLine(name, line);
      } finally {
        closeSync(fd);
      }
    }
    await sleep(options.intervalMs ?? 250, undefined, { signal: options.signal }).catch(() => undefined);
  }
}

function sizeOf(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
}
