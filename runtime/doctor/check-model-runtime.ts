import { CONFIG_DEFAULTS } from '../core/config.js';
import type { DoctorCheck, ProbeOptions } from './doctor-check.js';
import { absentModels, expectedModels, pullCommand } from './expected-models.js';
import { bodyField } from './http-probe.js';
import { checkService } from './service-check.js';

/**
 * The model runtime (ours or Ollama) at `OLLAMA_HOST`: GET /api/tags lists
 * its models; one the toolkit expects (smollm2, all-minilm, or MODEL_NAME /
 * EMBEDDING_MODEL) being absent is a `warn` with the pull command.
 */
export function checkModelRuntime(options: { env: NodeJS.ProcessEnv } & ProbeOptions): Promise<DoctorCheck> {
  const { env } = options;
  const expected = expectedModels(env);
  return checkService({
    name: 'model runtime',
    url: env.OLLAMA_HOST || CONFIG_DEFAULTS.ollamaHost,
    path: '/api/tags',
    variable: 'OLLAMA_HOST',
    configured: Boolean(env.OLLAMA_HOST),
    fix: 'framework-cli model serve (or start Ollama), then set OLLAMA_HOST if it is not on 127.0.0.1:11434',
    ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
    judge: (answer, where) => {
      const models = bodyField(answer.body, 'models');
      if (!answer.ok || !Array.isArray(models)) {
        return { status: 'warn', detail: `${where} answered HTTP ${answer.status} without a model list; is it an Ollama API?` };
      }
      const names = models.map((m) => bodyField(m, 'name')).filter((n): n is string => typeof n === 'string');
      const listed = names.length === 0 ? 'no models' : `models: ${names.join(', ')}`;
      const absent = absentModels(expected, names);
      if (absent.length === 0) return { status: 'ok', detail: `${where} serves ${listed}` };
      return { status: 'warn', detail: `${where} serves ${listed}; ${absent.join(' and ')} not available`, fix: pullCommand(absent) };
    },
  });
}
