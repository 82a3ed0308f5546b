import { stripVTControlCharacters } from 'node:util';
import { vi } from 'vitest';

/** What the tests need of an ink-testing-library render. */
export interface RenderedApp {
  lastFrame: () => string | undefined;
  frames: string[];
  stdin: { write: (data: string) => void };
}

export const KEY = { enter: '\r', up: '\u001B[A', down: '\u001B[B', ctrlC: '\u0003' } as const;

/** The last frame without colours. */
export function screen(app: RenderedApp): string {
  return stripVTControlCharacters(app.lastFrame() ?? '');
}

/** How many times `text` is on the screen. */
export function count(app: RenderedApp, text: string): number {
  return screen(app).split(text).length - 1;
}

/** Waits until the screen shows `text` (or matches it), and returns the screen. */
export async function waitForText(app: RenderedApp, text: string | RegExp, timeout = 10_000): Promise<string> {
  return vi.waitFor(
    () => {
      const current = screen(app);
      if (typeof text === 'string' ? !current.includes(text) : !text.test(current)) {
        throw new Error(`the screen does not show ${String(text)}:\n${current}`);
      }
      return current;
    },
    { timeout, interval: 10 },
  );
}

/**
 * Lets React run the effects of the last render. Ink's input handlers are
 * re-subscribed in effects, so a key written right after a render would reach
 * the previous render's handlers; this is ordering, not a delay.
 */
export async function settle(): Promise<void> {
  for (let i = 0; i < 3; i += 1) await new Promise((resolve) => setImmediate(resolve));
}

/** Sends keys (or a pasted line) once the app has settled. */
export async function press(app: RenderedApp, keys: string): Promise<void> {
  await settle();
  app.stdin.write(keys);
}

/** Types a line, waits until the prompt shows it, and presses Enter. */
export async function submitLine(app: RenderedApp, line: string): Promise<void> {
  await settle();
  const before = count(app, line);
  app.stdin.write(line);
  await vi.waitFor(
    () => {
      if (count(app, line) <= before) throw new Error(`the prompt does not show ${line}:\n${screen(app)}`);
    },
    { timeout: 5_000, interval: 10 },
  );
  await press(app, KEY.enter);
}
