import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FrameworkError } from '../core/framework-error.js';

/** What a scaffold needs to know about the toolkit that writes it. */
export interface ToolkitInfo {
  /** Absolute folder of the framework_core package (holds package.json, templates/, policies/). */
  root: string;
  /** Version of framework_core. */
  version: string;
  /** The exact TypeScript version the toolkit builds with (its devDependency, else the installed one). */
  typescriptVersion: string;
  /** The exact @types/node version the toolkit builds with. */
  typesNodeVersion: string;
  /** Absolute folder of the templates. */
  templatesDir: string;
  /** Absolute folder of the shipped Rego policies. */
  policiesDir: string;
}

let cached: ToolkitInfo | undefined;

/**
 * Finds the framework_core package this code belongs to, walking up from this
 * file (it runs from `runtime/` in tests and `dist/runtime/` when built).
 *
 * @example
 * const { root, version } = toolkitInfo();
 */
export function toolkitInfo(): ToolkitInfo {
  if (cached) return cached;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const manifest = readManifest(join(dir, 'package.json'));
    if (manifest?.name === 'framework_core') {
      cached = {
        root: dir,
        version: manifest.version ?? '0.0.0',
        typescriptVersion: installedVersion({ root: dir, manifest, pkg: 'typescript', fallback: '5.9.3' }),
        typesNodeVersion: installedVersion({ root: dir, manifest, pkg: '@types/node', fallback: '20.19.43' }),
        templatesDir: join(dir, 'templates'),
        policiesDir: join(dir, 'policies'),
      };
      return cached;
    }
    const parent = dirname(dir);
    if (parent === dir) {
      throw new FrameworkError({
        code: 'internal_error',
        message: 'Cannot find the framework_core package (its package.json) above the scaffold code; reinstall framework-cli.',
      });
    }
    dir = parent;
  }
}

interface Manifest {
  name?: string;
  version?: string;
  devDependencies?: Record<string, string>;
}

function readManifest(path: string): Manifest | undefined {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as Manifest;
  } catch {
    return undefined;
  }
}

function installedVersion(options: { root: string; manifest: Manifest; pkg: string; fallback: string }): string {
  const installed = readManifest(join(options.root, 'node_modules', ...options.pkg.split('/'), 'package.json'))?.version;
  const declared = options.manifest.devDependencies?.[options.pkg]?.replace(/^[\^~=]/, '');
  return installed ?? declared ?? options.fallback;
}
