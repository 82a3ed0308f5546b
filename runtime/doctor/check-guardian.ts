import type { DoctorCheck, ProbeOptions } from './doctor-check.js';
import { bodyField } from './http-probe.js';
import { checkService } from './service-check.js';

/**
 * The Guardian at `GUARDIAN_URL`; undefined when the variable is unset (the
 * agents then ask the policy engine directly). A Guardian whose policy
 * engine is down answers 503 and is a `warn`.
 */
export async function checkGuardian(options: { env: NodeJS.ProcessEnv } & ProbeOptions): Promise<DoctorCheck | undefined> {
  const url = options.env.GUARDIAN_URL;
  if (!url) return undefined;
  return checkService({
    name: 'guardian',
    url,
    path: '/health',
    variable: 'GUARDIAN_URL',
    configured: true,
    fix: 'framework-cli serve guardian (it listens on 127.0.0.1:11438)',
    ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
    judge: (answer, where) => {
      if (answer.ok) return { status: 'ok', detail: `healthy at ${where}` };
      if (bodyField(answer.body, 'policy_engine') === 'down') {
        return {
          status: 'warn',
          detail: `the Guardian at ${where} is up but cannot reach its policy engine at ${String(bodyField(answer.body, 'policy_url'))}`,
          fix: 'start the policy engine (framework-cli policy serve policies) or restart the Guardian with --opa-url',
        };
      }
      return { status: 'warn', detail: `${where} answered HTTP ${answer.status}; is it a Guardian?` };
    },
  });
}
