import { useMemo, useRef } from 'react';

/** Walks back and forth through the lines sent at the prompt, shell style. */
export interface HistoryNavigator {
  /** Remembers a sent line (not blanks, not a repeat of the last one) and goes back to an empty draft. */
  push(text: string): void;
  /** The line before the one shown; leaving the draft keeps `current` as the draft. Without one, `current`. */
  previous(current: string): string;
  /** The line after the one shown, and past the newest one the draft. Already at the draft, `current`. */
  next(current: string): string;
}

/**
 * The prompt's history: up and down arrows walk through the lines sent in
 * this run, and coming back down past the newest one restores what was being
 * typed before (the draft). Kept in a ref: walking it re-renders nothing by itself.
 *
 * @example
 * const history = useHistory();
 * useInput((_, key) => { if (key.upArrow) setValue(history.previous(value)); });
 */
export function useHistory(options: { limit?: number } = {}): HistoryNavigator {
  const limit = options.limit ?? 500;
  const state = useRef({ entries: [] as string[], cursor: 0, draft: '' });
  return useMemo<HistoryNavigator>(
    () => ({
      push(text) {
        const { entries } = state.current;
        if (text.trim() !== '' && entries.at(-1) !== text) entries.push(text);
        if (entries.length > limit) entries.splice(0, entries.length - limit);
        state.current.cursor = entries.length;
        state.current.draft = '';
      },
      previous(current) {
        const s = state.current;
        if (s.entries.length === 0) return current;
        if (s.cursor >= s.entries.length) s.draft = current;
        s.cursor = Math.max(0, Math.min(s.cursor, s.entries.length) - 1);
        return s.entries[s.cursor] ?? current;
      },
      next(current) {
        const s = state.current;
        if (s.cursor >= s.entries.length) return current;
        s.cursor += 1;
        return s.cursor === s.entries.length ? s.draft : (s.entries[s.cursor] ?? current);
      },
    }),
    [limit],
  );
}
