import { z } from 'zod';
import { DEFAULT_HOST, DEFAULT_PORTS, DEFAULT_URLS } from '../core/defaults.js';
import { DEFAULT_BUNDLE_TTL_MS } from './create-guardian.js';
import { ENV_FIELDS, readEnvironment, type Env, type LogLevel } from '../core/config.js';

/** The Guardian's port by default. */
export const DEFAULT_GUARDIAN_PORT = DEFAULT_PORTS.guardian;
export const DEFAULT_GUARDIAN_HOST = DEFAULT_HOST;
/** Where the policy engine is by default (OPA's port). */
export const DEFAULT_OPA_URL = DEFAULT_URLS.policy;

/** The longest a signed bundle may stay valid: a day. */
const MAX_BUNDLE_TTL_MS = 86_400_000;

/** Settings of a Guardian process, from the environment. */
export interface GuardianConfig {
  host: string;
  /** 0 picks a free port. */
  port: number;
  opaUrl: string;
  /** Also write each audit event as a JSON line on stderr (A2A_ENABLE_AUDIT_LOG). */
  auditToLog: boolean;
  logLevel: LogLevel;
  /** How long a bundle the Guardian signs stays valid (GUARDIAN_BUNDLE_TTL_MS). */
  bundleTtlMs: number;
}

const GuardianEnvSchema = z.object({
  OPA_URL: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL such as http://127.0.0.1:8181' }).optional(),
  GUARDIAN_PORT: ENV_FIELDS.portOrZero.optional(),
  GUARDIAN_HOST: z.string().trim().min(1).optional(),
  A2A_ENABLE_AUDIT_LOG: ENV_FIELDS.bool.optional(),
  LOG_LEVEL: ENV_FIELDS.logLevel.optional(),
  GUARDIAN_BUNDLE_TTL_MS: ENV_FIELDS.positiveInt.max(MAX_BUNDLE_TTL_MS, 'must be at most 86400000 (a day)').optional(),
});

/**
 * Reads the Guardian's settings: OPA_URL (default http://127.0.0.1:8181),
 * GUARDIAN_PORT (default 11438), GUARDIAN_HOST (default 127.0.0.1),
 * A2A_ENABLE_AUDIT_LOG (default false), LOG_LEVEL (default info),
 * GUARDIAN_BUNDLE_TTL_MS (how long a signed policy bundle stays valid,
 * default 60000, at most a day). An empty
 * variable counts as unset. Every bad variable is named in one `ConfigError`.
 *
 * @example
 * const config = guardianConfigFromEnv(process.env);
 * await startGuardian({ host: config.host, port: config.port, opaUrl: config.opaUrl });
 */
export function guardianConfigFromEnv(env: Env): GuardianConfig {
  const e = readEnvironment(GuardianEnvSchema, { env, context: 'Invalid Guardian configuration' });
  return {
    host: e.GUARDIAN_HOST ?? DEFAULT_GUARDIAN_HOST,
    port: e.GUARDIAN_PORT ?? DEFAULT_GUARDIAN_PORT,
    opaUrl: e.OPA_URL ?? DEFAULT_OPA_URL,
    auditToLog: e.A2A_ENABLE_AUDIT_LOG ?? false,
    logLevel: e.LOG_LEVEL ?? 'info',
    bundleTtlMs: e.GUARDIAN_BUNDLE_TTL_MS ?? DEFAULT_BUNDLE_TTL_MS,
  };
}
