import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { lancePlatformPackage, llamaPlatformPackages, NATIVE_PACKAGES, nativeRuntimeDir } from '../../runtime/core/native-runtime.js';
import { llamaGpuFromEnv } from '../../runtime/model/llama-runtime.js';
import { REPO_ROOT } from '../support/processes.js';

interface Manifest {
  version: string;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
}
const manifestOf = (dir: string) => JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Manifest;

describe('the native parts (node-llama-cpp, LanceDB) as an install of their own', () => {
  it('are optional peer dependencies of the published package, at the versions the code is written against', () => {
    const manifest = manifestOf(REPO_ROOT);
    for (const [pkg, version] of Object.entries(NATIVE_PACKAGES)) {
      expect(manifest.dependencies?.[pkg], pkg).toBeUndefined();
      expect(manifest.peerDependencies?.[pkg], pkg).toBe(version);
      expect(manifest.peerDependenciesMeta?.[pkg], pkg).toEqual({ optional: true });
      expect(manifestOf(join(REPO_ROOT, 'node_modules', pkg)).version, pkg).toBe(version);
    }
  });

  it('name only builds their packages list, at their own versions', () => {
    const llama = manifestOf(join(REPO_ROOT, 'node_modules', 'node-llama-cpp')).optionalDependencies!;
    const lance = manifestOf(join(REPO_ROOT, 'node_modules', '@lancedb', 'lancedb')).optionalDependencies!;
    const platforms: { platform: NodeJS.Platform; arch: string; libc?: 'glibc' | 'musl' }[] = [
      { platform: 'linux', arch: 'x64', libc: 'glibc' },
      { platform: 'linux', arch: 'x64', libc: 'musl' },
      { platform: 'linux', arch: 'arm64', libc: 'glibc' },
      { platform: 'darwin', arch: 'arm64' },
      { platform: 'win32', arch: 'x64' },
    ];
    for (const platform of platforms) {
      expect(lance[lancePlatformPackage(platform)], JSON.stringify(platform)).toBe(NATIVE_PACKAGES['@lancedb/lancedb']);
      if (platform.libc === 'musl') continue; // node-llama-cpp builds for glibc only
      const gpus = platform.arch === 'x64' && platform.platform !== 'darwin' ? [undefined, 'cuda', 'vulkan'] : [undefined];
      for (const gpu of gpus) {
        for (const pkg of llamaPlatformPackages({ ...platform, ...(gpu ? { gpu: gpu as 'cuda' | 'vulkan' } : {}) })) {
          expect(llama[pkg], pkg).toBe(NATIVE_PACKAGES['node-llama-cpp']);
        }
      }
    }
  });

  it("take only this platform's CPU build of llama.cpp by default and add the GPU build asked for", () => {
    expect(llamaPlatformPackages({ platform: 'linux', arch: 'x64' })).toEqual(['@node-llama-cpp/linux-x64']);
    expect(llamaPlatformPackages({ platform: 'linux', arch: 'x64', gpu: 'cuda' })).toEqual([
      '@node-llama-cpp/linux-x64',
      '@node-llama-cpp/linux-x64-cuda',
      '@node-llama-cpp/linux-x64-cuda-ext',
    ]);
    expect(llamaPlatformPackages({ platform: 'win32', arch: 'x64', gpu: 'vulkan' })).toEqual(['@node-llama-cpp/win-x64', '@node-llama-cpp/win-x64-vulkan']);
    expect(llamaPlatformPackages({ platform: 'darwin', arch: 'arm64' })).toEqual(['@node-llama-cpp/mac-arm64-metal']);
    expect(lancePlatformPackage({ platform: 'linux', arch: 'x64', libc: 'glibc' })).toBe('@lancedb/lancedb-linux-x64-gnu');
    expect(() => llamaPlatformPackages({ platform: 'linux', arch: 'arm64', gpu: 'cuda' })).toThrow(/No cuda build of llama.cpp for linux\/arm64/);
    expect(() => llamaPlatformPackages({ platform: 'freebsd', arch: 'x64' })).toThrow(/no prebuilt llama.cpp for freebsd\/x64/);
    expect(() => lancePlatformPackage({ platform: 'darwin', arch: 'x64' })).toThrow(/LanceDB has no prebuilt library for darwin\/x64/);
  });

  it('live in one folder per set of versions, under FRAMEWORK_RUNTIMES_DIR or the user cache', () => {
    const leaf = `native-llama-${NATIVE_PACKAGES['node-llama-cpp']}-lancedb-${NATIVE_PACKAGES['@lancedb/lancedb']}`;
    expect(nativeRuntimeDir({ env: { FRAMEWORK_RUNTIMES_DIR: '/opt/rt' } })).toBe(`/opt/rt/${leaf}`);
    expect(nativeRuntimeDir({ env: { XDG_CACHE_HOME: '/c' } })).toBe(`/c/framework_core/runtimes/${leaf}`);
  });

  it('run llama.cpp on the CPU unless FRAMEWORK_LLAMA_GPU names a GPU build, and refuse an unknown name', () => {
    expect(llamaGpuFromEnv({})).toBe(false);
    expect(llamaGpuFromEnv({ FRAMEWORK_LLAMA_GPU: 'cpu' })).toBe(false);
    expect(llamaGpuFromEnv({ FRAMEWORK_LLAMA_GPU: 'vulkan' })).toBe('vulkan');
    expect(() => llamaGpuFromEnv({ FRAMEWORK_LLAMA_GPU: 'metal; rm -rf /' })).toThrow(/is not one of cpu, cuda, vulkan/);
  });
});
