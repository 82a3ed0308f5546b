import semver from 'semver';
import { checkResult, type DoctorCheck } from './doctor-check.js';

/** The oldest Node the toolkit supports (package.json `engines`). */
export const MIN_NODE_VERSION = '20.19.0';

/**
 * Node is at least {@link MIN_NODE_VERSION}; `version` defaults to the running Node.
 *
 * @example
 * checkNode(); // { name: 'node', status: 'ok', detail: 'Node 20.19.1 (needs >= 20.19.0)', required: true }
 */
export function checkNode(options: { version?: string } = {}): DoctorCheck {
  const version = options.version ?? process.versions.node;
  const clean = semver.coerce(version)?.version;
  if (clean !== undefined && semver.gte(clean, MIN_NODE_VERSION)) {
    return checkResult('node', 'ok', `Node ${version} (needs >= ${MIN_NODE_VERSION})`, { required: true });
  }
  return checkResult('node', 'missing', `Node ${version} is older than ${MIN_NODE_VERSION}`, {
    fix: `install Node ${MIN_NODE_VERSION} or later (for example with nvm: nvm install 20)`,
    required: true,
  });
}
