import { randomBytes } from 'node:crypto';
import { chmod, lstat, mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
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
  /** The tool call last waiting for approval on this session (empty once decided), so `--approve` names it. */
  approval_id: z.string().optional(),
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

/** A lock file older than this is left over from a run that died: it is broken, not waited on. */
export const STALE_LOCK_MS = 5_000;

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
  readonly #warn: (message: string) => void;

  /** `warn` hears about permissions that were too open (default: standard error). */
  constructor(options: { dir: string; warn?: (message: string) => void }) {
    this.#dir = options.dir;
    this.path = join(options.dir, SESSIONS_FILE);
    this.#warn = options.warn ?? ((message) => process.stderr.write(`warning: ${message}\n`));
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
      // lstat: a symlink planted at the path is never followed to chmod its target (the next save replaces it).
      const info = await lstat(this.path);
      if (info.isFile() && (info.mode & 0o077) !== 0) {
        // Tokens are bearer credentials: a file others can read is a leak waiting to happen.
        this.#warn(
          `${this.path} was readable by other users (mode ${(info.mode & 0o777).toString(8)}); it is now 600. Its tokens may have been read: start new sessions with --new-session.`,
        );
        await chmod(this.path, 0o600);
      }
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
    const release = await this.#lock();
    try {
      const file = await this.#read();
      if (edit(file)) await this.#write(file);
    } finally {
      await release().catch(() => undefined);
    }
  }

  /** The lock, held for milliseconds; a lock left by a dead run (older than STALE_LOCK_MS, whatever it is) is removed, not obeyed. */
  async #lock(): Promise<() => Promise<void>> {
    const lockPath = `${this.path}.lock`;
    const options = {
      lockfilePath: lockPath,
      realpath: false,
      stale: STALE_LOCK_MS,
      retries: { retries: 50, minTimeout: 10, maxTimeout: 100 },
      // If it ever went stale while held, the worst case is one lost entry, not a crash.
      onCompromised: () => undefined,
    };
    try {
      return await lock(this.#dir, options);
    } catch (error) {
      // proper-lockfile breaks its own stale lock directories; a stale plain file (or anything else) at the path it cannot.
      const info = await lstat(lockPath).catch(() => undefined);
      if (!info || Date.now() - info.mtimeMs < STALE_LOCK_MS) throw error;
      await rm(lockPath, { recursive: true, force: true });
      return lock(this.#dir, options);
    }
  }

  /**
   * Creates the directory user-only, or makes an existing one so. A symlinked
   * one (as dotfile managers make) is followed but never changed: its target
   * is someone's choice; a warning says when it is open to others.
   */
  async #prepareDir(): Promise<void> {
    await mkdir(this.#dir, { recursive: true, mode: 0o700 });
    const link = await lstat(this.#dir);
    const info = await stat(this.#dir);
    if (!info.isDirectory())
      throw new Error(`${this.#dir} is not a directory; the chat keeps its session tokens there. Remove it or set FRAMEWORK_CLI_CONFIG_DIR.`);
    if ((info.mode & 0o077) === 0) return;
    if (link.isSymbolicLink()) {
      this.#warn(
        `${this.#dir} links to a folder other users can open (mode ${(info.mode & 0o777).toString(8)}); the session tokens in it are kept 600, but consider making the folder 700.`,
      );
      return;
    }
    await chmod(this.#dir, 0o700);
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
