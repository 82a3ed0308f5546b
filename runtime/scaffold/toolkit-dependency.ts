import { readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { FrameworkError } from '../core/framework-error.js';

/**
 * The `framework_core` dependency a new project's package.json names: the
 * registry release of the toolkit that writes it (`^<version>`), or, for
 * work on the toolkit itself, `file:` a checkout (its folder) or a packed
 * tarball (`npm pack`'s `.tgz`). Checks that the path is one of those.
 *
 * @example
 * toolkitDependency({ version: '0.1.0' }); // '^0.1.0'
 * toolkitDependency({ version: '0.1.0', toolkit: '../framework_core-0.1.0.tgz' }); // 'file:/abs/framework_core-0.1.0.tgz'
 */
export function toolkitDependency(options: { version: string; toolkit?: string }): string {
  if (options.toolkit === undefined) return `^${options.version}`;
  const path = resolve(options.toolkit);
  let isFolder: boolean;
  try {
    isFolder = statSync(path).isDirectory();
  } catch {
    throw invalid(`--toolkit ${options.toolkit}: no such file or folder.`);
  }
  if (isFolder) {
    let name: unknown;
    try {
      name = (JSON.parse(readFileSync(join(path, 'package.json'), 'utf8')) as { name?: unknown }).name;
    } catch {
      name = undefined;
    }
    if (name !== 'framework_core') throw invalid(`--toolkit ${options.toolkit}: the folder holds no framework_core package.json.`);
  } else if (!/\.(tgz|tar\.gz)$/.test(path)) {
    throw invalid(`--toolkit ${options.toolkit}: give the toolkit's folder or a tarball made by npm pack (.tgz).`);
  }
  return `file:${path}`;
}

function invalid(message: string): FrameworkError {
  return new FrameworkError({ code: 'invalid_request', message });
}
