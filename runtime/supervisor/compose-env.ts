import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The environment Compose runs with: the caller's, plus FRAMEWORK_UID and
 * FRAMEWORK_GID (the owner of the project's secrets folder, so the services
 * can read the mode 0600 secret files bind-mounted into them).
 */
export function composeEnv(options: { root: string; env?: NodeJS.ProcessEnv }): NodeJS.ProcessEnv {
  const env = { ...(options.env ?? process.env) };
  const secrets = join(options.root, '.framework', 'secrets');
  const owner = existsSync(secrets) ? statSync(secrets) : undefined;
  env.FRAMEWORK_UID ??= String(owner?.uid ?? process.getuid?.() ?? 1000);
  env.FRAMEWORK_GID ??= String(owner?.gid ?? process.getgid?.() ?? 1000);
  return env;
}
