import { hash } from 'node:crypto';
import { closeSync, constants, fstatSync, openSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { Script } from 'node:vm';

/**
 * A CommonJS bundle run through V8's code cache, which Node 20 has no switch
 * for (`module.enableCompileCache` is Node ≥ 22.1, and ES modules cannot take
 * cached data without `--experimental-vm-modules`). The build writes the
 * bundle (scripts/bundle-cli.mjs) and then its cache (scripts/cli-code-cache.mjs),
 * both inside the package: the cache beside the bundle, named for the V8
 * version and architecture that made it.
 *
 * The cache is only a speed-up: a missing one, one V8 rejects (other flags, a
 * changed bundle) or one that anyone but the bundle's owner could have written
 * is not used, and the bundle compiles as it would from `require`. A cache
 * starts with the SHA-256 of the bundle it was made from and is used only for
 * those bytes: V8's own check compares the source's length, not its text.
 *
 * A bundle's `import()` calls are written `__cachedScriptImport(...)` (the
 * build rewrites them): a vm.Script may import only through a callback, which
 * Node 20 refuses without `--experimental-vm-modules`. This module makes the
 * import, so a relative specifier would resolve from here (the build refuses one).
 */
const loaded: { cachePath: string; digest: Buffer; script: Script }[] = [];
const DIGEST_BYTES = 32;

const importModule = (specifier: string): Promise<unknown> => import(specifier);

/** Where the code cache of `file` lives for this V8 and architecture. */
export function codeCachePath(file: string): string {
  return `${file}.${process.versions.v8}-${process.arch}.v8cache`;
}

/**
 * V8's part of the cache, when the file is a regular file of the bundle's owner that no one else may
 * write, made from the bundle whose SHA-256 is `digest`.
 */
function readTrustedCache(options: { file: string; cachePath: string; digest: Buffer }): Buffer | undefined {
  let fd: number;
  try {
    fd = openSync(options.cachePath, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch {
    return undefined;
  }
  try {
    const cache = fstatSync(fd);
    if (!cache.isFile() || cache.uid !== statSync(options.file).uid || (cache.mode & 0o022) !== 0) return undefined;
    const bytes = readFileSync(fd);
    return options.digest.equals(bytes.subarray(0, DIGEST_BYTES)) ? bytes.subarray(DIGEST_BYTES) : undefined;
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/**
 * Runs the CommonJS file `file` (absolute path) once per process, as
 * `require` would, and returns its `module.exports`. Its `import()` calls are made
 * from this module, by Node's loader.
 *
 * @example
 * const oclif = loadCachedScript<typeof import('@oclif/core')>({ file: fileURLToPath(new URL('./oclif-core.cjs', import.meta.url)) });
 */
export function loadCachedScript<T>(options: { file: string }): T {
  const { file } = options;
  const cachePath = codeCachePath(file);
  const bytes = readFileSync(file);
  const digest = hash('sha256', bytes, 'buffer');
  const source = bytes.toString('utf8');
  // Node's own CommonJS wrapper, on the first line so that line numbers stay the file's.
  const script = new Script(`(function (exports, require, module, __filename, __dirname, __cachedScriptImport) { ${source}\n})`, {
    filename: file,
    cachedData: readTrustedCache({ file, cachePath, digest }),
  });
  loaded.push({ cachePath, digest, script });
  const module = { exports: {} as unknown };
  const run = script.runInThisContext() as (
    exports: unknown,
    require: NodeJS.Require,
    module: unknown,
    filename: string,
    dirname: string,
    importModule: (specifier: string) => Promise<unknown>,
  ) => void;
  run.call(module.exports, module.exports, createRequire(file), module, file, dirname(file), importModule);
  return module.exports as T;
}

/** Whether V8 took each cache this process read (`undefined` for a bundle that had none to offer). */
export function codeCacheUse(): { file: string; accepted: boolean | undefined }[] {
  return loaded.map(({ cachePath, script }) => ({
    file: cachePath,
    accepted: script.cachedDataRejected === undefined ? undefined : !script.cachedDataRejected,
  }));
}

/**
 * Writes the code cache of every bundle this process ran, with the functions
 * compiled so far (run the commands to cover first). Build time only:
 * `scripts/cli-code-cache.mjs`.
 */
export function writeCodeCaches(): string[] {
  return loaded.map(({ cachePath, digest, script }) => {
    const partial = `${cachePath}.${process.pid}.tmp`;
    writeFileSync(partial, Buffer.concat([digest, script.createCachedData()]), { mode: 0o644 });
    renameSync(partial, cachePath);
    return cachePath;
  });
}
