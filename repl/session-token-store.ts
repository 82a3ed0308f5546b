import { randomBytes } from 'node:crypto';
import { chmod, mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { lock } from 'proper-lockfile';
import { z } from 'zod';

/** What is remembered of one agent's session. */
export const SavedSessionSchema = z.object({
  token: z.string().min(1),
  context_id: z.string().optional(),
  expires_at: z.string().optional(),
  saved_at: z.string(),
  /** The plan last proposed on this session, so `--approve` names the plan it approves. */
  plan_id: z.string().optional(),
  /** Whether the agent's last answer on this session asked for input, so the next message is a reply. */
  awaiting_input: z.boolean().optional(),
});
export type SavedSession = z.infer<typeof SavedSessionSchema>;

const FileSchema = z.object({
  version: z.literal(1),
  sessions: z.record(z.string(), SavedSessionSchema),
});
type SessionsFile = z.infer<typeof FileSchema>;

/** The file name under the configuration directory. */
export const SESSIONS_FILE = 'sessions.json';

/**
 * Saved session tokens, keyed by agent URL, in one JSON file readable by its
 * owner only (mode 0600, in a directory made 0700). Each change is a
 * read-modify-write under a lock file (so a REPL and a script do not drop
 * each other's entries) through a new temporary file (created exclusively,
 * so a planted symlink is refused) and a rename, so a crash never leaves
 * half a file. A file that is not ours (bad JSON, another shape) is treated
 * as empty and replaced on the next save.
 *
 * @example
 * const store = new SessionTokenStore({ dir: config.configDir });
 * await store.save('http://127.0.0.1:8100', { token, saved_at: new Date().toISOString() });
 */
export class SessionTokenStore {
  readonly path: string;
  readonly #dir: string;

  constructor(options: { dir: string }) {
    this.#dir = options.dir;
    this.path = join(options.dir, SESSIONS_FILE);
  }

  async get(agentUrl: string): Promise<SavedSession | undefined> {
    return (await this.#read()).sessions[agentUrl];
  }

  async save(agentUrl: string, session: SavedSession): Promise<void> {
    const saved = SavedSessionSchema.parse(session);
    await this.#change((file) => {
      file.sessions[agentUrl] = saved;
      return true;
    });
  }

  /**
   * Merges fields into the saved session of `agentUrl`, only while it is still
   * the session of `token` (another run may have saved a newer one since).
   */
  async update(agentUrl: string, token: string, fields: Partial<Omit<SavedSession, 'token'>>): Promise<void> {
    await this.#change((file) => {
      const current = file.sessions[agentUrl];
      if (current?.token !== token) return false;
      file.sessions[agentUrl] = SavedSessionSchema.parse({ ...current, ...fields });
      return true;
    });
  }

  async delete(agentUrl: string): Promise<void> {
    await this.#change((file) => agentUrl in file.sessions && delete file.sessions[agentUrl]);
  }

  async #read(): Promise<SessionsFile> {
    let text: string;
    try {
      text = await readFile(this.path, 'utf8');
    } catch {
      return { version: 1, sessions: {} };
    }
    try {
      const parsed = FileSchema.safeParse(JSON.parse(text));
      if (parsed.success) return parsed.data;
    } catch {
      // Not JSON: start over; the next save replaces it.
    }
    return { version: 1, sessions: {} };
  }

  /** Reads, lets `edit` change the file (it returns whether it did), and writes it back, all under the lock. */
  async #change(edit: (file: SessionsFile) => boolean): Promise<void> {
    await this.#prepareDir();
    const release = await lock(this.#dir, {
      lockfilePath: `${this.path}.lock`,
      realpath: false,
      retries: { retries: 50, minTimeout: 10, maxTimeout: 100 },
      // Held for milliseconds; if it ever went stale, the worst case is one lost entry, not a crash.
      onCompromised: () => undefined,
    });
    try {
      const file = await this.#read();
      if (edit(file)) await this.#write(file);
    } finally {
      await release().catch(() => undefined);
    }
  }

  /** Creates the directory user-only, or makes an existing one so (a symlinked one, as dotfile managers make, is followed). */
  async #prepareDir(): Promise<void> {
    await mkdir(this.#dir, { recursive: true, mode: 0o700 });
    const info = await stat(this.#dir);
    if (!info.isDirectory())
      throw new Error(`${this.#dir} is not a directory; the chat keeps its session tokens there. Remove it or set FRAMEWORK_CLI_CONFIG_DIR.`);
    if ((info.mode & 0o077) !== 0) await chmod(this.#dir, 0o700);
  }

  async #write(file: SessionsFile): Promise<void> {
    const temporary = `${this.path}.${randomBytes(6).toString('hex')}.tmp`;
    // 'wx' creates the file or fails (never follows a symlink planted there); 0600 from the start.
    await writeFile(temporary, `${JSON.stringify(file, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
    try {
      await rename(temporary, this.path);
    } catch (error) {
      await rm(temporary, { force: true });
      throw error;
    }
  }
}
