import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LLAMA_CPP_VERSION, llamaGpuFromEnv, llamaPlatformPackages, llamaRuntimeDir } from '../../runtime/model/llama-runtime.js';
import { REPO_ROOT } from '../support/processes.js';

describe('the local model runtime (node-llama-cpp) as an optional install', () => {
  it('is an optional peer dependency of the published package at the version the engine is written against', () => {
    const manifest = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as Record<string, Record<string, unknown>>;
    expect(manifest.dependencies?.['node-llama-cpp']).toBeUndefined();
    expect(manifest.peerDependencies?.['node-llama-cpp']).toBe(LLAMA_CPP_VERSION);
    expect(manifest.peerDependenciesMeta?.['node-llama-cpp']).toEqual({ optional: true });
    const installed = JSON.parse(readFileSync(join(REPO_ROOT, 'node_modules', 'node-llama-cpp', 'package.json'), 'utf8')) as {
      version: string;
      optionalDependencies: Record<string, string>;
    };
    expect(installed.version).toBe(LLAMA_CPP_VERSION);
    // Every package named below is one node-llama-cpp itself lists, at its own version.
    for (const [platform, arch] of [
      ['linux', 'x64'],
      ['linux', 'arm64'],
      ['darwin', 'arm64'],
      ['win32', 'x64'],
    ] as const) {
      for (const gpu of platform === 'linux' || platform === 'win32' ? [undefined, 'cuda', 'vulkan'] : [undefined]) {
        if (gpu && arch !== 'x64') continue;
        for (const pkg of llamaPlatformPackages({ platform, arch, ...(gpu ? { gpu: gpu as 'cuda' | 'vulkan' } : {}) })) {
          expect(installed.optionalDependencies[pkg], pkg).toBe(LLAMA_CPP_VERSION);
        }
      }
    }
  });

  it("installs only this platform's CPU build by default and adds the GPU build asked for", () => {
    expect(llamaPlatformPackages({ platform: 'linux', arch: 'x64' })).toEqual(['@node-llama-cpp/linux-x64']);
    expect(llamaPlatformPackages({ platform: 'linux', arch: 'x64', gpu: 'cuda' })).toEqual([
      '@node-llama-cpp/linux-x64',
      '@node-llama-cpp/linux-x64-cuda',
      '@node-llama-cpp/linux-x64-cuda-ext',
    ]);
    expect(llamaPlatformPackages({ platform: 'win32', arch: 'x64', gpu: 'vulkan' })).toEqual(['@node-llama-cpp/win-x64', '@node-llama-cpp/win-x64-vulkan']);
    expect(llamaPlatformPackages({ platform: 'darwin', arch: 'arm64' })).toEqual(['@node-llama-cpp/mac-arm64-metal']);
    expect(() => llamaPlatformPackages({ platform: 'linux', arch: 'arm64', gpu: 'cuda' })).toThrow(/No cuda build of llama.cpp for linux\/arm64/);
    expect(() => llamaPlatformPackages({ platform: 'freebsd', arch: 'x64' })).toThrow(/no prebuilt llama.cpp for freebsd\/x64/);
  });

  it('keeps the runtime in its own folder per version, under FRAMEWORK_RUNTIMES_DIR or the user cache', () => {
    expect(llamaRuntimeDir({ env: { FRAMEWORK_RUNTIMES_DIR: '/opt/rt' } })).toBe(`/opt/rt/node-llama-cpp-${LLAMA_CPP_VERSION}`);
    expect(llamaRuntimeDir({ env: { XDG_CACHE_HOME: '/c' } })).toBe(`/c/framework_core/runtimes/node-llama-cpp-${LLAMA_CPP_VERSION}`);
  });

  it('runs on the CPU unless FRAMEWORK_LLAMA_GPU names a GPU build, and refuses an unknown name', () => {
    expect(llamaGpuFromEnv({})).toBe(false);
    expect(llamaGpuFromEnv({ FRAMEWORK_LLAMA_GPU: 'cpu' })).toBe(false);
    expect(llamaGpuFromEnv({ FRAMEWORK_LLAMA_GPU: 'vulkan' })).toBe('vulkan');
    expect(() => llamaGpuFromEnv({ FRAMEWORK_LLAMA_GPU: 'metal; rm -rf /' })).toThrow(/is not one of cpu, cuda, vulkan/);
  });
});
