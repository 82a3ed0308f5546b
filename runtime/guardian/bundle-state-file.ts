import { randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { z } from 'zod';
import type { Env } from '../core/config.js';
import { ConfigError } from '../core/errors/config-error.js';
import type { SeenRevision } from './bundle-acceptance.js';

/** Where an agent keeps the newest bundle revision it has used, unless `POLICY_BUNDLE_STATE_FILE` says otherwise (from its working directory). */
export const DEFAULT_BUNDLE_STATE_FILE = '.framework/run/policy-bundles.json';

const StateSchema = z.object({
  version: z.literal(1),
  /** Per bundle URL: the newest revision used, the digest of its modules and when it was first used. */
  bundles: z.record(z.string(), z.object({ revision: z.number().int().positive(), digest: z.string().min(1), seen_at: z.string() })),
});
type State = z.infer<typeof StateSchema>;

/**
 * The state file `POLICY_BUNDLE_STATE_FILE` names, else the default one
 * (`.framework/run/policy-bundles.json`, beside the stack's other run state),
 * as an absolute path resolved now.
 *
 * @example
 * new BundleStateFile({ path: bundleStateFileFromEnv(process.env) });
 */
export function bundleStateFileFromEnv(env: Env): string {
  const named = env.POLICY_BUNDLE_STATE_FILE?.trim();
  return resolve(named ? named : DEFAULT_BUNDLE_STATE_FILE);
}

/** Writes of this process, one at a time per file, so two followers never lose each other's revision. */
const writing = new Map<string, Promise<void>>();

/**
 * The newest policy bundle revision an agent has used, per bundle URL, kept
 * in a small JSON file so a restarted agent still refuses an older bundle (a
 * rollback). Written atomically (a temporary file renamed over the old one);
 * a write merges with what is on disk and keeps the higher revision of each
 * URL, so agents sharing the file never lower each other's. A missing file is
 * a first start; a file that cannot be read or parsed is an error (the
 * caller refuses every bundle until it is fixed or removed: fail closed).
 *
 * @example
 * const file = new BundleStateFile({ path: '/srv/agent/.framework/run/policy-bundles.json' });
 * file.read('http://127.0.0.1:11438/v1/bundles/policies'); // { revision: 1767225600000, digest: '…' } or undefined
 */
export class BundleStateFile {
  readonly path: string;

  constructor(options: { path: string }) {
    this.path = resolve(options.path);
  }

  /** The newest revision used from `url`, or undefined. Throws `ConfigError` when the file is unreadable or not a state file. */
  read(url: string): SeenRevision | undefined {
    const entry = this.#load().bundles[url];
    return entry === undefined ? undefined : { revision: entry.revision, digest: entry.digest };
  }

  /** Records `seen` for `url` unless the file already holds a newer revision. Rejects when the file cannot be written. */
  record(url: string, seen: SeenRevision): Promise<void> {
    const previous = writing.get(this.path) ?? Promise.resolve();
    const next = previous.catch(() => undefined).then(() => this.#write(url, seen));
    writing.set(this.path, next);
    return next.finally(() => {
      if (writing.get(this.path) === next) writing.delete(this.path);
    });
  }

  #write(url: string, seen: SeenRevision): void {
    const state = this.#load();
    const held = state.bundles[url];
    if (held !== undefined && held.revision >= seen.revision) return;
    state.bundles[url] = { revision: seen.revision, digest: seen.digest, seen_at: new Date().toISOString() };
    mkdirSync(dirname(this.path), { recursive: true });
    const temporary = `${this.path}.${process.pid}.${randomUUID()}.tmp`;
    try {
      writeFileSync(temporary, `${JSON.stringify(state, null, 2)}\n`, { mode: 0o600 });
      renameSync(temporary, this.path);
    } catch (error) {
      rmSync(temporary, { force: true });
      throw error;
    }
  }

  #load(): State {
    let text: string;
    try {
      text = readFileSync(this.path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { version: 1, bundles: {} };
      throw this.#problem(`cannot be read (${(error as Error).message})`);
    }
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch {
      throw this.#problem('is not JSON');
    }
    const state = StateSchema.safeParse(raw);
    if (!state.success) throw this.#problem('is not a policy bundle state file ({"version":1,"bundles":{…}})');
    return state.data;
  }

  #problem(what: string): ConfigError {
    return new ConfigError({
      context: 'Policy bundle state',
      issues: [
        {
          variable: 'POLICY_BUNDLE_STATE_FILE',
          message: `${this.path} ${what}. It keeps the newest bundle revision this agent used, so bundles are refused until it is fixed, or removed (which forgets that revision).`,
        },
      ],
    });
  }
}
