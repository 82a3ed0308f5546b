/**
 * Notices when this process stood still: the whole machine paused (a
 * virtual machine stopped or snapshotted by its host) or this process was
 * not scheduled. A timer that fires every `TICK_MS` and finds more than
 * `FREEZE_MS` since its last turn adds the gap to the frozen time. A load
 * test uses it so that a wait the client itself slept through is not
 * blamed on the server, and says how long the freezes were.
 */
const TICK_MS = 100;
const FREEZE_MS = 1_000;

export interface FreezeClock {
  /** Milliseconds frozen since the clock started (only gaps longer than a second count). */
  frozenMs(): number;
  /** The longest single freeze, in milliseconds. */
  longestMs(): number;
  stop(): void;
}

export function startFreezeClock(): FreezeClock {
  let frozen = 0;
  let longest = 0;
  let last = performance.now();
  const timer = setInterval(() => {
    const now = performance.now();
    const gap = now - last - TICK_MS;
    last = now;
    if (gap > FREEZE_MS) {
      frozen += gap;
      longest = Math.max(longest, gap);
    }
  }, TICK_MS);
  timer.unref();
  return { frozenMs: () => frozen, longestMs: () => longest, stop: () => clearInterval(timer) };
}
