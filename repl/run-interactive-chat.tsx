import type { ChatSession } from './chat-session.js';

export interface RunInteractiveChatOptions {
  session: ChatSession;
  /** Start a new session instead of resuming the saved one. */
  forceNew?: boolean;
  /** Default `process.stdin`; must be a TTY (Ink reads keys in raw mode). */
  stdin?: NodeJS.ReadStream;
  /** Default `process.stdout`. */
  stdout?: NodeJS.WriteStream;
}

/**
 * Runs the chat REPL in the terminal until the user quits (/exit, or Ctrl-C
 * at the prompt). Ctrl-C is the app's to handle (it cancels a running
 * request first), so Ink's own exit on Ctrl-C is off. Only for a TTY: the
 * caller checks, and says what to do in a script.
 *
 * @example
 * if (process.stdin.isTTY && process.stdout.isTTY) await runInteractiveChat({ session, forceNew: false });
 */
export async function runInteractiveChat(options: RunInteractiveChatOptions): Promise<void> {
  const [{ render }, { ChatApp }] = await importForTerminal(() => Promise.all([import('ink'), import('./chat-app.js')]));
  const instance = render(<ChatApp session={options.session} forceNew={options.forceNew ?? false} />, {
    exitOnCtrlC: false,
    ...(options.stdin ? { stdin: options.stdin } : {}),
    ...(options.stdout ? { stdout: options.stdout } : {}),
  });
  await instance.waitUntilExit();
}

const CI_MARKERS = ['CI', 'CONTINUOUS_INTEGRATION'] as const;

/**
 * Ink decides once, when it is first imported, whether it runs under CI (the
 * `CI` / `CONTINUOUS_INTEGRATION` variables, via is-in-ci); in that mode it
 * prints only `<Static>` output and the final frame, so the prompt and plan
 * cards would never appear. The REPL runs only at a terminal, where a person
 * needs every frame, so Ink is first loaded with those variables hidden
 * (and they are put back at once). If Ink was already loaded by the host
 * program, its earlier decision stands.
 */
async function importForTerminal<T>(load: () => Promise<T>): Promise<T> {
  const saved = CI_MARKERS.map((name) => [name, process.env[name]] as const);
  for (const name of CI_MARKERS) delete process.env[name];
  try {
    return await load();
  } finally {
    for (const [name, value] of saved) if (value !== undefined) process.env[name] = value;
  }
}
