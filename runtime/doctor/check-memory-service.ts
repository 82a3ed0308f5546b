import { MemoryHealthSchema } from '../memory/memory-responses.js';
import { MEMORY_DEFAULTS } from '../memory/memory-config.js';
import type { DoctorCheck, ProbeOptions } from './doctor-check.js';
import { checkService } from './service-check.js';

/**
 * The system memory service (a swarm's) at `AGENT_MEMORY_URL`, else
 * http://127.0.0.1:8000: GET /v1/health. Its Redis being down is a `warn`
 * naming the store; an answer that is not a memory service's is a `warn` too.
 */
export function checkMemoryService(options: { env: NodeJS.ProcessEnv } & ProbeOptions): Promise<DoctorCheck> {
  const url = options.env.AGENT_MEMORY_URL || `http://${MEMORY_DEFAULTS.host}:${MEMORY_DEFAULTS.port}`;
  return checkService({
    name: 'memory service',
    url,
    path: '/v1/health',
    variable: 'AGENT_MEMORY_URL',
    configured: Boolean(options.env.AGENT_MEMORY_URL),
    fix: 'framework-cli serve memory (it needs Redis at KV_URL and the model runtime with all-minilm)',
    ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
    judge: (answer, where) => {
      const health = MemoryHealthSchema.safeParse(answer.body);
      if (!health.success) {
        return {
          status: 'warn',
          detail: `${where} answered HTTP ${answer.status}, but not as a memory service does`,
          fix: 'point AGENT_MEMORY_URL at the memory service (http://<host>:8000)',
        };
      }
      if (health.data.kv_store === 'up') return { status: 'ok', detail: `healthy at ${where}` };
      return {
        status: 'warn',
        detail: `${where} cannot reach its key-value store${health.data.kv_url ? ` at ${health.data.kv_url}` : ''}`,
        fix: "start Redis (redis-server) or point the service's KV_URL at it",
      };
    },
  });
}
