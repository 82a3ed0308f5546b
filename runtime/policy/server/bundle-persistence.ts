/**
 * A downloaded bundle kept on disk, as OPA's `persist: true` keeps it:
 * `<persistence_directory>/bundles/<name>/bundle.tar.gz`, read at start
 * before the first download and written after each snapshot activated.
 *
 * The file can change under the server, so it is treated as a download:
 * read within the archive bound (the caller verifies it as a download is
 * verified), never through a symbolic link below the persistence directory
 * (each folder is checked with `lstat`, the file opened with `O_NOFOLLOW`),
 * never blocking on a FIFO put in its place, and written whole (a temporary
 * file in the same folder, synced, then renamed over the old one).
 */
import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { lstat, mkdir, open, realpath, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';

/** A persisted bundle that cannot be read or written: the message names the path and why. */
export class PersistedBundleError extends Error {
  override readonly name = 'PersistedBundleError';
}

export interface PersistedBundleOptions {
  /** OPA's `persistence_directory` (default `<cwd>/.opa`). */
  directory: string;
  /** The bundle's name; `/` in it makes nested folders, as in OPA. */
  name: string;
  /** The largest file read or written (the download bound). */
  maxBytes: number;
}

const FILE = 'bundle.tar.gz';

/** Why a bundle name cannot name a folder below the persistence directory; undefined when it can. */
export function persistedNameProblem(name: string): string | undefined {
  const parts = name.split('/');
  if (name.includes('\\') || name.includes('\0') || parts.some((p) => p === '' || p === '.' || p === '..')) {
    return 'a persisted bundle\'s name must be a relative path of plain names (no "..", ".", empty parts or backslashes)';
  }
  return undefined;
}

export class PersistedBundle {
  readonly #options: PersistedBundleOptions;
  readonly #segments: string[];

  constructor(options: PersistedBundleOptions) {
    const problem = persistedNameProblem(options.name);
    if (problem !== undefined) throw new PersistedBundleError(`bundle ${JSON.stringify(options.name)}: ${problem}`);
    this.#options = options;
    this.#segments = ['bundles', ...options.name.split('/')];
  }

  /** Where the file is (under the directory as given). */
  get path(): string {
    return join(this.#options.directory, ...this.#segments, FILE);
  }

  /** The persisted archive, or undefined when none was persisted. */
  async read(): Promise<Buffer | undefined> {
    const dir = await this.#folder(false);
    if (dir === undefined) return undefined;
    const file = join(dir, FILE);
    let handle;
    try {
      // O_NONBLOCK: a FIFO put in the file's place must not hold the start-up (it is refused below as not a file).
      handle = await open(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') return undefined;
      if (code === 'ELOOP') throw new PersistedBundleError(`${file} is a symbolic link; a persisted bundle is not read through one`);
      throw new PersistedBundleError(`cannot read ${file}: ${(error as Error).message}`);
    }
    try {
      const info = await handle.stat();
      if (!info.isFile()) throw new PersistedBundleError(`${file} is not a regular file`);
      const max = this.#options.maxBytes;
      if (info.size > max) throw new PersistedBundleError(`${file} is ${info.size} bytes, more than the limit of ${max}`);
      // Read at most one byte past the bound, so a file growing while read is caught, not read whole.
      const buffer = Buffer.alloc(Math.min(info.size, max) + 1);
      let total = 0;
      for (;;) {
        const { bytesRead } = await handle.read(buffer, total, buffer.length - total, total);
        if (bytesRead === 0) break;
        total += bytesRead;
        if (total > max) throw new PersistedBundleError(`${file} is more than the limit of ${max} bytes`);
        if (total === buffer.length) break;
      }
      return buffer.subarray(0, total);
    } catch (error) {
      if (error instanceof PersistedBundleError) throw error;
      throw new PersistedBundleError(`cannot read ${file}: ${(error as Error).message}`);
    } finally {
      await handle.close();
    }
  }

  /** Replaces the persisted archive whole (a reader sees the old file or the new one, never a part). */
  async write(bytes: Buffer): Promise<void> {
    if (bytes.length > this.#options.maxBytes)
      throw new PersistedBundleError(`the bundle is ${bytes.length} bytes, more than the limit of ${this.#options.maxBytes}`);
    const dir = (await this.#folder(true)) as string;
    const temporary = join(dir, `.${FILE}.${randomBytes(6).toString('hex')}.tmp`);
    try {
      const handle = await open(temporary, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
      try {
        await handle.writeFile(bytes);
        await handle.sync();
      } finally {
        await handle.close();
      }
      // rename replaces the name itself: a link put at bundle.tar.gz is replaced, its target left alone.
      await rename(temporary, join(dir, FILE));
    } catch (error) {
      await rm(temporary, { force: true }).catch(() => undefined);
      throw new PersistedBundleError(`cannot write ${join(dir, FILE)}: ${(error as Error).message}`);
    }
  }

  /** The bundle's folder, each part below the persistence directory checked not to be a link; made when `create`. */
  async #folder(create: boolean): Promise<string | undefined> {
    let current: string;
    try {
      if (create) await mkdir(this.#options.directory, { recursive: true, mode: 0o700 });
      // The persistence directory itself may be a link (the operator's choice); what is below it may not.
      current = await realpath(this.#options.directory);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT' && !create) return undefined;
      throw new PersistedBundleError(`cannot use the persistence directory ${this.#options.directory}: ${(error as Error).message}`);
    }
    for (const segment of this.#segments) {
      current = join(current, segment);
      let info = await lstat(current).catch((error: NodeJS.ErrnoException) => {
        if (error.code === 'ENOENT') return undefined;
        throw new PersistedBundleError(`cannot use ${current}: ${error.message}`);
      });
      if (info === undefined) {
        if (!create) return undefined;
        await mkdir(current, { mode: 0o700 }).catch((error: NodeJS.ErrnoException) => {
          if (error.code !== 'EEXIST') throw new PersistedBundleError(`cannot make ${current}: ${error.message}`);
        });
        info = await lstat(current);
      }
      if (info.isSymbolicLink()) throw new PersistedBundleError(`${current} is a symbolic link; a persisted bundle is not read or written through one`);
      if (!info.isDirectory()) throw new PersistedBundleError(`${current} is not a directory`);
    }
    return current;
  }
}
