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
    });
  });

  it('reads every variable', () => {
    const config = guardianConfigFromEnv({
      OPA_URL: 'http://opa:8181',
      GUARDIAN_PORT: '0',
      GUARDIAN_HOST: '0.0.0.0',
      A2A_ENABLE_AUDIT_LOG: 'TRUE',
      LOG_LEVEL: 'warning',
    });
    expect(config).toEqual({ host: '0.0.0.0', port: 0, opaUrl: 'http://opa:8181', auditToLog: true, logLevel: 'warn' });
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
});
