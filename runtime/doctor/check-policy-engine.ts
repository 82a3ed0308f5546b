import { DEFAULT_OPA_URL } from '../guardian/guardian-config.js';
import type { DoctorCheck, ProbeOptions } from './doctor-check.js';
import { bodyField } from './http-probe.js';
import { checkService, summarise } from './service-check.js';

/**
 * The policy engine (ours or OPA) at `OPA_URL`, else http://127.0.0.1:8181:
 * GET /health answers `{}` when policies are loaded.
 */
export function checkPolicyEngine(options: { env: NodeJS.ProcessEnv } & ProbeOptions): Promise<DoctorCheck> {
  const url = options.env.OPA_URL || DEFAULT_OPA_URL;
  return checkService({
    name: 'policy engine',
    url,
    path: '/health',
    variable: 'OPA_URL',
    configured: Boolean(options.env.OPA_URL),
    fix: 'framework-cli policy serve policies (or start OPA), then set OPA_URL if it is not on 127.0.0.1:8181',
    ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
    judge: (answer, where) =>
      answer.ok
        ? { status: 'ok', detail: `healthy at ${where}` }
        : {
            status: 'warn',
            detail: `${where} answered HTTP ${answer.status}: ${String(bodyField(answer.body, 'message') ?? summarise(answer.body))}`,
            fix: 'framework-cli policy check <dir> shows what does not compile',
          },
  });
}
