import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../runtime/core/errors/config-error.js';
import { guardianConfigFromEnv } from '../../runtime/guardian/guardian-config.js';

describe('guardianConfigFromEnv', () => {
  it('has defaults and treats empty variables as unset', () => {
    expect(guardianConfigFromEnv({ OPA_URL: '', PATH: '/bin' })).toEqual({
      host: '127.0.0.1',
      port: 11438,
      opaUrl: 'http://127.0.0.1:8181',
      auditToLog: false,
      logLevel: 'info',
      bundleTtlMs: 60_000,
    });
  });

  it('reads every variable', () => {
    const config = guardianConfigFromEnv({
      OPA_URL: 'http://opa:8181',
      GUARDIAN_PORT: '0',
      GUARDIAN_HOST: '0.0.0.0',
      A2A_ENABLE_AUDIT_LOG: 'TRUE',
      LOG_LEVEL: 'warning',
      GUARDIAN_BUNDLE_TTL_MS: '5000',
    });
    expect(config).toEqual({ host: '0.0.0.0', port: 0, opaUrl: 'http://opa:8181', auditToLog: true, logLevel: 'warn', bundleTtlMs: 5000 });
  });

  it('names every bad variable at once', () => {
    let error: unknown;
    try {
      guardianConfigFromEnv({ OPA_URL: 'opa:8181', GUARDIAN_PORT: '70000', A2A_ENABLE_AUDIT_LOG: 'maybe', LOG_LEVEL: 'loud' });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).issues.map((i) => i.variable).sort()).toEqual(['A2A_ENABLE_AUDIT_LOG', 'GUARDIAN_PORT', 'LOG_LEVEL', 'OPA_URL']);
    expect((error as ConfigError).message).toContain('GUARDIAN_PORT: must be a port number from 0 to 65535 (got "70000")');
  });

  it('refuses a bundle lifetime that is not a whole number of milliseconds up to a day (1e400, 0, past a day)', () => {
    for (const value of ['1e400', '0', '-5', '86400001', '1.5', 'soon']) {
      expect(() => guardianConfigFromEnv({ GUARDIAN_BUNDLE_TTL_MS: value }), value).toThrow(/GUARDIAN_BUNDLE_TTL_MS: must be/);
    }
    expect(guardianConfigFromEnv({ GUARDIAN_BUNDLE_TTL_MS: '86400000' }).bundleTtlMs).toBe(86_400_000);
  });
});
