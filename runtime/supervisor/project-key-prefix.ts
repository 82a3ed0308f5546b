import { createHash } from 'node:crypto';
import { existsSync, realpathSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { loadProject } from './load-project.js';
import { PROJECT_FILE } from './project-file.js';

/** Hex digits of the project path's hash in its key prefix. */
const HASH_LENGTH = 12;
/** Longest project name kept in the prefix (KV_PREFIX allows 64 characters in all). */
const NAME_LENGTH = 32;

/**
 * The default Redis key prefix of a project's services (KV_PREFIX): its
 * name and a hash of its real absolute path, e.g. `fw:team-3f9c0a1b2c4d:`.
 * Projects sharing one Redis then never read each other's system memory,
 * sessions, A2A tasks or thread history (they all shared `fw:` before).
 * The path, not an id written into the project, so a copied project
 * starts apart from its original; a moved project gets a new prefix (its
 * old keys stay in Redis: set KV_PREFIX in the service's `env` to keep one).
 *
 * @example
 * projectKeyPrefix({ root: '/home/ada/team' }); // 'fw:team-<12 hex digits>:'
 */
export function projectKeyPrefix(options: { root: string }): string {
  const root = realRoot(options.root);
  const hash = createHash('sha256').update(root).digest('hex').slice(0, HASH_LENGTH);
  return `fw:${projectName(root).slice(0, NAME_LENGTH)}-${hash}:`;
}

/** The project root of `dir` when it holds a project file, else undefined (for services started by hand). */
export function projectRootOf(dir: string): string | undefined {
  return existsSync(join(dir, PROJECT_FILE)) ? resolve(dir) : undefined;
}

function realRoot(root: string): string {
  try {
    return realpathSync(root);
  } catch {
    return resolve(root);
  }
}

/** The project file's name, else the folder's name reduced to KV_PREFIX's characters. */
function projectName(root: string): string {
  try {
    return loadProject({ root }).name;
  } catch {
    return basename(root).replace(/[^A-Za-z0-9_.-]/g, '-') || 'project';
  }
}
