import { mkdir, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { REPO_ROOT } from './processes.js';

/**
 * How a generated project resolves its dependencies here, without a network:
 * `npm install --offline` fails (typescript is not in the npm cache), so the
 * test links what `npm install` would have installed: framework_core (the
 * `file:` dependency, which npm installs as a link too), typescript and
 * @types/node from this toolkit's node_modules.
 */
export async function linkDependencies(root: string): Promise<void> {
  await mkdir(join(root, 'node_modules', '@types'), { recursive: true });
  await symlink(REPO_ROOT, join(root, 'node_modules', 'framework_core'), 'dir');
  await symlink(join(REPO_ROOT, 'node_modules', 'typescript'), join(root, 'node_modules', 'typescript'), 'dir');
  await symlink(join(REPO_ROOT, 'node_modules', '@types', 'node'), join(root, 'node_modules', '@types', 'node'), 'dir');
}
