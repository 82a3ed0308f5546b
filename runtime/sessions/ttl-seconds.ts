import { ConfigError } from '../core/errors/config-error.js';

/** Returns `ttlSeconds` when it is a positive whole number; throws `ConfigError` otherwise. */
export function checkTtlSeconds(ttlSeconds: number): number {
  if (!Number.isSafeInteger(ttlSeconds) || ttlSeconds <= 0) {
    throw new ConfigError({
      issues: [
        {
          variable: 'SESSION_TTL or options.ttlSeconds',
          message: `must be a positive whole number of seconds (got ${String(ttlSeconds)})`,
        },
      ],
    });
  }
  return ttlSeconds;
}
