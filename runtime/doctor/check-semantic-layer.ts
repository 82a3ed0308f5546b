import { DEFAULT_SEMANTIC_LAYER_URL } from '../semantic/mcp-toolkit.js';
import type { DoctorCheck, ProbeOptions } from './doctor-check.js';
import { bodyField } from './http-probe.js';
import { checkService } from './service-check.js';

/**
 * The Semantic Layer at `SEMANTIC_LAYER_URL` (its MCP endpoint; /health is
 * at the same origin), else http://127.0.0.1:10100. `degraded` (no card
 * vectorised yet) is a `warn` with the service's reason.
 */
export function checkSemanticLayer(options: { env: NodeJS.ProcessEnv } & ProbeOptions): Promise<DoctorCheck> {
  const url = options.env.SEMANTIC_LAYER_URL || DEFAULT_SEMANTIC_LAYER_URL;
  return checkService({
    name: 'semantic layer',
    url,
    path: '/health',
    variable: 'SEMANTIC_LAYER_URL',
    configured: Boolean(options.env.SEMANTIC_LAYER_URL),
    fix: 'framework-cli serve semantic-layer (it needs the model runtime for embeddings)',
    ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
    judge: (answer, where) => {
      const cards = bodyField(answer.body, 'vectorized_cards');
      if (typeof cards !== 'number') {
        return {
          status: 'warn',
          detail: `${where} answered HTTP ${answer.status}, but not as a Semantic Layer does`,
          fix: "point SEMANTIC_LAYER_URL at the Semantic Layer's MCP endpoint (http://<host>:10100/mcp)",
        };
      }
      if (answer.ok) return { status: 'ok', detail: `healthy at ${where}, ${cards} agent card(s) indexed` };
      const reason = bodyField(answer.body, 'reason');
      return {
        status: 'warn',
        detail: `${where} answered HTTP ${answer.status}${typeof reason === 'string' ? `: ${reason}` : ''}`,
        fix: 'check that the model runtime serves the embedding model (framework-cli model pull all-minilm) and that AGENT_CARDS_DIR has cards',
      };
    },
  });
}
