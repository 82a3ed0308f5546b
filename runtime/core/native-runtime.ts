import { access, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { FrameworkError } from './framework-error.js';

/**
 * The packages with native builds that the toolkit loads on use instead of
 * depending on them: each lists every platform's (and GPU's) build as an
 * optional dependency, and LanceDB also an embedding stack (transformers.js,
 * onnxruntime, which downloads CUDA libraries at install). Installed by
 * `framework-cli runtime install` with only this platform's build. The
 * versions are the optional peer dependencies in package.json (a test keeps
 * them equal).
 */
export const NATIVE_PACKAGES = {
  'node-llama-cpp': '3.22.1',
  '@lancedb/lancedb': '0.37.1',
} as const;
export type NativePackage = keyof typeof NATIVE_PACKAGES;

/** LanceDB's peer: the Arrow release its tables are built with (the toolkit's own dependency). */
const LANCEDB_ARROW = { 'apache-arrow': '18.1.0' } as const;

/** GPU builds of llama.cpp that `runtime install --gpu` adds to the CPU build. */
export const LLAMA_GPUS = ['cuda', 'vulkan'] as const;
export type LlamaGpu = (typeof LLAMA_GPUS)[number];

/** The command that installs the native runtime, named in every message about a missing one. */
export const RUNTIME_INSTALL_COMMAND = 'framework-cli runtime install';

interface Platform {
  platform: NodeJS.Platform;
  arch: string;
  /** Linux only: the C library (LanceDB builds for both). */
  libc?: 'glibc' | 'musl';
}

/**
 * node-llama-cpp's prebuilt llama.cpp packages for a platform: the CPU build,
 * plus the GPU build asked for (on Linux x64 the whole set is 1,070 MB
 * installed, 610 MB of it CUDA, Vulkan and ARM builds).
 *
 * @example
 * llamaPlatformPackages({ platform: 'linux', arch: 'x64' }); // ['@node-llama-cpp/linux-x64']
 */
export function llamaPlatformPackages(options: Platform & { gpu?: LlamaGpu }): string[] {
  const { platform, arch, gpu } = options;
  const named = (name: string) => `@node-llama-cpp/${name}`;
  if ((platform === 'linux' || platform === 'win32') && arch === 'x64') {
    const os = platform === 'linux' ? 'linux' : 'win';
    if (gpu === 'cuda') return [named(`${os}-x64`), named(`${os}-x64-cuda`), named(`${os}-x64-cuda-ext`)];
    if (gpu === 'vulkan') return [named(`${os}-x64`), named(`${os}-x64-vulkan`)];
    return [named(`${os}-x64`)];
  }
  const cpuOnly: Record<string, string> = {
    'linux/arm64': 'linux-arm64',
    'linux/arm': 'linux-armv7l',
    'linux/riscv64': 'linux-riscv64',
    'darwin/arm64': 'mac-arm64-metal',
    'darwin/x64': 'mac-x64',
    'win32/arm64': 'win-arm64',
  };
  const cpu = cpuOnly[`${platform}/${arch}`];
  if (!cpu) throw new FrameworkError({ code: 'invalid_config', message: `node-llama-cpp has no prebuilt llama.cpp for ${platform}/${arch}.` });
  if (gpu) {
    throw new FrameworkError({
      code: 'invalid_arguments',
      message: `No ${gpu} build of llama.cpp for ${platform}/${arch}; GPU builds exist for linux/x64 and win32/x64.`,
    });
  }
  return [named(cpu)];
}

/**
 * LanceDB's native package for a platform.
 *
 * @example
 * lancePlatformPackage({ platform: 'linux', arch: 'x64', libc: 'glibc' }); // '@lancedb/lancedb-linux-x64-gnu'
 */
export function lancePlatformPackage(options: Platform): string {
  const { platform, arch } = options;
  if (platform === 'linux' && (arch === 'x64' || arch === 'arm64')) return `@lancedb/lancedb-linux-${arch}-${options.libc === 'musl' ? 'musl' : 'gnu'}`;
  if (platform === 'darwin' && arch === 'arm64') return '@lancedb/lancedb-darwin-arm64';
  if (platform === 'win32' && (arch === 'x64' || arch === 'arm64')) return `@lancedb/lancedb-win32-${arch}-msvc`;
  throw new FrameworkError({ code: 'invalid_config', message: `LanceDB has no prebuilt library for ${platform}/${arch}.` });
}

/** This process's platform, with the C library on Linux. */
export function currentPlatform(): Platform {
  const header = (process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined)?.header;
  return { platform: process.platform, arch: process.arch, ...(process.platform === 'linux' ? { libc: header?.glibcVersionRuntime ? 'glibc' : 'musl' } : {}) };
}

/**
 * Every package `runtime install` puts in the runtime folder for a platform,
 * with its version: the native packages, their builds for it, LanceDB's Arrow.
 *
 * @example
 * nativeRuntimePackages({ platform: 'linux', arch: 'x64', libc: 'glibc' })['@node-llama-cpp/linux-x64']; // '3.22.1'
 */
export function nativeRuntimePackages(options: Platform & { gpu?: LlamaGpu }): Record<string, string> {
  const llama = NATIVE_PACKAGES['node-llama-cpp'];
  const lance = NATIVE_PACKAGES['@lancedb/lancedb'];
  return {
    'node-llama-cpp': llama,
    ...Object.fromEntries(llamaPlatformPackages(options).map((pkg) => [pkg, llama])),
    '@lancedb/lancedb': lance,
    [lancePlatformPackage(options)]: lance,
    ...LANCEDB_ARROW,
  };
}

/**
 * Where `runtime install` puts the native packages: `FRAMEWORK_RUNTIMES_DIR`,
 * else `$XDG_CACHE_HOME/framework_core/runtimes` or
 * `~/.cache/framework_core/runtimes`, one folder per set of versions (shared
 * by every project of the user).
 */
export function nativeRuntimeDir(options: { env?: NodeJS.ProcessEnv } = {}): string {
  const env = options.env ?? process.env;
  const base = env.FRAMEWORK_RUNTIMES_DIR || join(env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'framework_core', 'runtimes');
  return join(base, `native-llama-${NATIVE_PACKAGES['node-llama-cpp']}-lancedb-${NATIVE_PACKAGES['@lancedb/lancedb']}`);
}

const loading = new Map<NativePackage, Promise<unknown>>();

/**
 * A native package, loaded on first use: the copy installed beside the
 * toolkit (a development checkout, or a project that added it), else the one
 * `runtime install` put in {@link nativeRuntimeDir}. Neither: `missing()` is
 * thrown, with {@link RUNTIME_INSTALL_COMMAND} in its message.
 *
 * @example
 * const lancedb = await loadNative<typeof import('@lancedb/lancedb')>('@lancedb/lancedb', () => new Error('…'));
 */
export function loadNative<T>(pkg: NativePackage, missing: () => Error): Promise<T> {
  let promise = loading.get(pkg);
  if (!promise) {
    promise = importNative(pkg, missing).catch((error: unknown) => {
      loading.delete(pkg);
      throw error;
    });
    loading.set(pkg, promise);
  }
  return promise as Promise<T>;
}

/**
 * Whether `pkg` can be loaded (beside the toolkit or in the runtime folder),
 * found without loading it: for a service that checks at start what it
 * loads only on first use.
 *
 * @example
 * if (!(await nativeInstalled('@lancedb/lancedb'))) throw new Error(`run ${RUNTIME_INSTALL_COMMAND}`);
 */
export async function nativeInstalled(pkg: NativePackage): Promise<boolean> {
  try {
    import.meta.resolve(pkg);
    return true;
  } catch {
    return exists(join(nativeRuntimeDir(), 'node_modules', ...pkg.split('/'), 'package.json'));
  }
}

async function importNative(pkg: NativePackage, missing: () => Error): Promise<unknown> {
  try {
    return await import(pkg);
  } catch (error) {
    if (!isMissing(error, pkg)) throw error;
  }
  const dir = nativeRuntimeDir();
  const manifest = join(dir, 'node_modules', ...pkg.split('/'), 'package.json');
  if (!(await exists(manifest))) throw missing();
  // Resolved from the runtime folder, so the package finds its own dependencies (its native build) there.
  const entry = createRequire(join(dir, 'package.json')).resolve(pkg);
  return import(pathToFileURL(entry).href);
}

function isMissing(error: unknown, pkg: string): boolean {
  const e = error as NodeJS.ErrnoException;
  return e?.code === 'ERR_MODULE_NOT_FOUND' && e.message.includes(`'${pkg}'`);
}

async function exists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}

export interface NativeRuntimeInstall {
  /** The runtime folder. */
  dir: string;
  /** Every package in it with its version: the native packages, their platform builds, LanceDB's Arrow. */
  packages: Record<string, string>;
  /** False when everything asked for was already there. */
  installed: boolean;
}

/**
 * Installs node-llama-cpp and LanceDB with only this platform's builds (and
 * the GPU build of llama.cpp asked for) into {@link nativeRuntimeDir}: `npm
 * install --omit=optional --ignore-scripts` in a folder of its own, so the
 * other builds both list as optional are left out, no install script runs and
 * no project's dependencies are touched. Installs beside the folder and
 * renames it in place, so a failed install leaves nothing half made. Uses
 * npm's own configuration (its registry).
 *
 * @example
 * await installNativeRuntime({ gpu: 'vulkan' });
 */
export async function installNativeRuntime(options: { gpu?: LlamaGpu; env?: NodeJS.ProcessEnv } = {}): Promise<NativeRuntimeInstall> {
  const env = options.env ?? process.env;
  const dir = nativeRuntimeDir({ env });
  const wanted = nativeRuntimePackages({ ...currentPlatform(), ...(options.gpu ? { gpu: options.gpu } : {}) });
  const present = await Promise.all(Object.entries(wanted).map(async ([pkg, version]) => (await installedVersion(dir, pkg)) === version));
  if (present.every(Boolean)) return { dir, packages: wanted, installed: false };

  // What is there already stays (a GPU build installed before is kept when only the CPU build is asked for).
  const kept = (await readManifest(join(dir, 'package.json')))?.dependencies ?? {};
  const dependencies = { ...kept, ...wanted };
  const staging = `${dir}.installing-${process.pid}`;
  await rm(staging, { recursive: true, force: true });
  await mkdir(staging, { recursive: true });
  await writeFile(join(staging, 'package.json'), `${JSON.stringify({ name: 'framework-native-runtime', private: true, dependencies }, null, 2)}\n`);
  // execa (about 100 modules) is imported only to install: a service that loads the runtime does not hold it.
  const { execa } = await import('execa');
  const result = await execa('npm', ['install', '--omit=optional', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error'], {
    cwd: staging,
    env: { ...env, NODE_LLAMA_CPP_SKIP_DOWNLOAD: 'true' },
    reject: false,
    stdin: 'ignore',
  });
  if (result.failed) {
    await rm(staging, { recursive: true, force: true });
    const last = String(result.stderr).trim().split('\n').slice(-3).join(' ');
    throw new FrameworkError({ code: 'build_failed', message: `npm install of ${Object.keys(wanted).join(', ')} failed: ${last || result.shortMessage}` });
  }
  // llama.cpp's sources (34 MB), which node-llama-cpp keeps to compile a build of its own; the engine loads the prebuilt one only (`build: 'never'`).
  await rm(join(staging, 'node_modules', 'node-llama-cpp', 'llama', 'gitRelease.bundle'), { force: true });
  await rm(dir, { recursive: true, force: true });
  await rename(staging, dir);
  return { dir, packages: dependencies, installed: true };
}

async function readManifest(path: string): Promise<{ version?: string; dependencies?: Record<string, string> } | undefined> {
  try {
    return JSON.parse(await readFile(path, 'utf8')) as { version?: string; dependencies?: Record<string, string> };
  } catch {
    return undefined;
  }
}

async function installedVersion(dir: string, pkg: string): Promise<string | undefined> {
  return (await readManifest(join(dir, 'node_modules', ...pkg.split('/'), 'package.json')))?.version;
}
