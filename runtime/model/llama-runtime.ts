import { access, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { execa } from 'execa';
import { FrameworkError } from '../core/framework-error.js';
import { ModelRequestError } from './model-request-error.js';

/**
 * The node-llama-cpp release the engine is written against; the same as the
 * optional peer dependency in package.json (a test keeps them equal).
 */
export const LLAMA_CPP_VERSION = '3.22.1';

/** GPU builds of llama.cpp that `model runtime install --gpu` can add to the CPU build. */
export const LLAMA_GPUS = ['cuda', 'vulkan'] as const;
export type LlamaGpu = (typeof LLAMA_GPUS)[number];

type LlamaCpp = typeof import('node-llama-cpp');

/** The command that installs the runtime, named in every message about a missing one. */
export const INSTALL_COMMAND = 'framework-cli model runtime install';

/**
 * The prebuilt llama.cpp packages node-llama-cpp loads on this platform:
 * the CPU build, plus the GPU build asked for. node-llama-cpp lists every
 * platform's and GPU's build as optional dependencies (1,070 MB installed
 * on Linux x64, 610 MB of it CUDA, Vulkan and ARM); only these are installed.
 *
 * @example
 * llamaPlatformPackages({ platform: 'linux', arch: 'x64' }); // ['@node-llama-cpp/linux-x64']
 */
export function llamaPlatformPackages(options: { platform: NodeJS.Platform; arch: string; gpu?: LlamaGpu }): string[] {
  const { platform, arch, gpu } = options;
  const named = (name: string) => `@node-llama-cpp/${name}`;
  if (platform === 'linux' && arch === 'x64') {
    if (gpu === 'cuda') return [named('linux-x64'), named('linux-x64-cuda'), named('linux-x64-cuda-ext')];
    if (gpu === 'vulkan') return [named('linux-x64'), named('linux-x64-vulkan')];
    return [named('linux-x64')];
  }
  if (platform === 'win32' && arch === 'x64') {
    if (gpu === 'cuda') return [named('win-x64'), named('win-x64-cuda'), named('win-x64-cuda-ext')];
    if (gpu === 'vulkan') return [named('win-x64'), named('win-x64-vulkan')];
    return [named('win-x64')];
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
  if (!cpu) {
    throw new FrameworkError({ code: 'model_runtime_unavailable', message: `node-llama-cpp has no prebuilt llama.cpp for ${platform}/${arch}.` });
  }
  if (gpu) {
    throw new FrameworkError({
      code: 'invalid_arguments',
      message: `No ${gpu} build of llama.cpp for ${platform}/${arch}; GPU builds exist for linux/x64 and win32/x64.`,
    });
  }
  return [named(cpu)];
}

/**
 * Where the toolkit installs the model runtime: `FRAMEWORK_RUNTIMES_DIR`,
 * else `$XDG_CACHE_HOME/framework_core/runtimes` or
 * `~/.cache/framework_core/runtimes`, one folder per node-llama-cpp version.
 */
export function llamaRuntimeDir(options: { env?: NodeJS.ProcessEnv } = {}): string {
  const env = options.env ?? process.env;
  const base = env.FRAMEWORK_RUNTIMES_DIR || join(env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'framework_core', 'runtimes');
  return join(base, `node-llama-cpp-${LLAMA_CPP_VERSION}`);
}

/** The GPU build the engine asks llama.cpp for: `FRAMEWORK_LLAMA_GPU` (cuda|vulkan), else none (CPU). */
export function llamaGpuFromEnv(env: NodeJS.ProcessEnv = process.env): LlamaGpu | false {
  const value = env.FRAMEWORK_LLAMA_GPU?.trim();
  if (!value || value === 'false' || value === 'cpu') return false;
  if ((LLAMA_GPUS as readonly string[]).includes(value)) return value as LlamaGpu;
  throw new FrameworkError({ code: 'invalid_config', message: `FRAMEWORK_LLAMA_GPU=${value} is not one of cpu, ${LLAMA_GPUS.join(', ')}.` });
}

let loading: Promise<LlamaCpp> | undefined;

/**
 * node-llama-cpp, loaded on first use: the copy installed beside the toolkit
 * (a development checkout, or a project that added it), else the one
 * `framework-cli model runtime install` put in {@link llamaRuntimeDir}.
 * Neither: a 503 `ModelRequestError` (`model_runtime_unavailable`) naming the install command.
 */
export function loadLlamaCpp(): Promise<LlamaCpp> {
  loading ??= importLlamaCpp().catch((error: unknown) => {
    loading = undefined;
    throw error;
  });
  return loading;
}

async function importLlamaCpp(): Promise<LlamaCpp> {
  try {
    return await import('node-llama-cpp');
  } catch (error) {
    if (!isMissing(error, 'node-llama-cpp')) throw error;
  }
  const entry = join(llamaRuntimeDir(), 'node_modules', 'node-llama-cpp', 'dist', 'index.js');
  if (!(await exists(entry))) {
    // A 503 on the model server's routes, which answer a ModelRequestError with its status.
    throw new ModelRequestError({
      status: 503,
      message: `The local model runtime (node-llama-cpp ${LLAMA_CPP_VERSION}, llama.cpp's CPU build) is not installed. Install it: ${INSTALL_COMMAND} (about 80 MB; add --gpu cuda or --gpu vulkan for a GPU build).`,
    });
  }
  return (await import(pathToFileURL(entry).href)) as LlamaCpp;
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

export interface LlamaRuntimeInstall {
  /** The runtime folder. */
  dir: string;
  version: string;
  /** The prebuilt llama.cpp packages in it. */
  packages: string[];
  /** False when everything asked for was already there. */
  installed: boolean;
}

/**
 * Installs node-llama-cpp with only this platform's prebuilt llama.cpp (and
 * the GPU build asked for) into {@link llamaRuntimeDir}: `npm install
 * --omit=optional` in a folder of its own, so the other builds node-llama-cpp
 * lists as optional are left out and no project's dependencies are touched.
 * Installs next to the folder and renames it in place, so a broken install
 * leaves nothing half made. Uses npm's own configuration (its registry).
 *
 * @example
 * await installLlamaRuntime({ gpu: 'vulkan' });
 */
export async function installLlamaRuntime(options: { gpu?: LlamaGpu; env?: NodeJS.ProcessEnv } = {}): Promise<LlamaRuntimeInstall> {
  const env = options.env ?? process.env;
  const dir = llamaRuntimeDir({ env });
  const packages = llamaPlatformPackages({ platform: process.platform, arch: process.arch, ...(options.gpu ? { gpu: options.gpu } : {}) });
  const wanted = ['node-llama-cpp', ...packages];
  const present = await Promise.all(wanted.map((pkg) => installedVersion(dir, pkg)));
  if (present.every((v) => v === LLAMA_CPP_VERSION)) return { dir, version: LLAMA_CPP_VERSION, packages, installed: false };

  // What is there already stays (a GPU build installed before is kept when the CPU build is asked for).
  const kept = (await readManifest(dir))?.dependencies ?? {};
  const dependencies = { ...kept, ...Object.fromEntries(wanted.map((pkg) => [pkg, LLAMA_CPP_VERSION])) };
  const staging = `${dir}.installing-${process.pid}`;
  await rm(staging, { recursive: true, force: true });
  await mkdir(staging, { recursive: true });
  await writeFile(join(staging, 'package.json'), `${JSON.stringify({ name: 'framework-model-runtime', private: true, dependencies }, null, 2)}\n`);
  const result = await execa('npm', ['install', '--omit=optional', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error'], {
    cwd: staging,
    env: { ...env, NODE_LLAMA_CPP_SKIP_DOWNLOAD: 'true' },
    reject: false,
    stdin: 'ignore',
  });
  if (result.failed) {
    await rm(staging, { recursive: true, force: true });
    const last = String(result.stderr).trim().split('\n').slice(-3).join(' ');
    throw new FrameworkError({
      code: 'model_runtime_unavailable',
      message: `npm install of node-llama-cpp ${LLAMA_CPP_VERSION} (${packages.join(', ')}) failed: ${last || result.shortMessage}`,
    });
  }
  await rm(dir, { recursive: true, force: true });
  await rename(staging, dir);
  return { dir, version: LLAMA_CPP_VERSION, packages, installed: true };
}

async function readManifest(dir: string): Promise<{ version?: string; dependencies?: Record<string, string> } | undefined> {
  try {
    return JSON.parse(await readFile(join(dir, 'package.json'), 'utf8')) as { version?: string; dependencies?: Record<string, string> };
  } catch {
    return undefined;
  }
}

async function installedVersion(dir: string, pkg: string): Promise<string | undefined> {
  return (await readManifest(join(dir, 'node_modules', ...pkg.split('/'))))?.version;
}
