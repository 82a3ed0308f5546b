import { chmod, mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';

/** What is remembered of one agent's session. */
export const SavedSessionSchema = z.object({
  token: z.string().min(1),
  context_id: z.string().optional(),
  expires_at: z.string().optional(),
  saved_at: z.string(),
  /** The plan last proposed on this session, so `--approve` names the plan it approves. */
  plan_id: z.string().optional(),
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
 * owner only (mode 0600, directory 0700). Writes go through a temporary file
 * and a rename, so a crash never leaves half a file. A file that is not ours
 * (bad JSON, another shape) is treated as empty and replaced on the next save.
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
    const file = await this.#read();
    file.sessions[agentUrl] = SavedSessionSchema.parse(session);
    await this.#write(file);
  }

  /** Merges fields into the saved session of `agentUrl` (no-op when there is none). */
  async update(agentUrl: string, fields: Partial<SavedSession>): Promise<void> {
    const file = await this.#read();
    const current = file.sessions[agentUrl];
    if (!current) return;
    file.sessions[agentUrl] = SavedSessionSchema.parse({ ...current, ...fields });
    await this.#write(file);
  }

  async delete(agentUrl: string): Promise<void> {
    const file = await this.#read();
    if (!(agentUrl in file.sessions)) return;
    delete file.sessions[agentUrl];
    await this.#write(file);
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

  async #write(file: SessionsFile): Promise<void> {
    await mkdir(this.#dir, { recursive: true, mode: 0o700 });
    const temporary = `${this.path}.${process.pid}.tmp`;
    await writeFile(temporary, `${JSON.stringify(file, null, 2)}\n`, { mode: 0o600 });
    // The umask cannot widen 0600, but an existing temp file keeps its old mode: set it explicitly.
    await chmod(temporary, 0o600);
    await rename(temporary, this.path);
  }
}
