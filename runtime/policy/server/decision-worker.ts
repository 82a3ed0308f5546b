/**
 * The policy server's decision worker (a `worker_threads` Worker started by
 * {@link DecisionPool}): holds a compiled copy of the served policies and
 * evaluates the decisions that outgrew the in-process slice, so the server's
 * event loop stays free. It is terminated when a decision runs past the
 * budget; values travel as JSON text, which keeps big numbers exact.
 */
import { parentPort } from 'node:worker_threads';
import { compilePolicy, type CompiledPolicy } from '../engine.js';
import { PolicyError } from '../errors.js';
import { parseJSON, stringifyJSON } from '../value-json.js';
import { RegoObject } from '../value.js';
import type { WorkerReply, WorkerRequest } from './decision-pool.js';

const port = parentPort;
if (!port) throw new Error('decision-worker.js runs as a worker thread');

let loaded: { generation: number; policy: CompiledPolicy } | undefined;

port.on('message', (request: WorkerRequest) => {
  if (request.type === 'load') {
    try {
      loaded = {
        generation: request.generation,
        policy: compilePolicy({ modules: request.modules, data: request.data === undefined ? undefined : parseJSON(request.data, { maxDepth: Infinity }) }),
      };
    } catch {
      // The main thread compiled the same set; a failure here surfaces when a decision is asked for.
      loaded = undefined;
    }
    return;
  }
  port.postMessage(evaluate(request));
});

function evaluate(request: Extract<WorkerRequest, { type: 'eval' }>): WorkerReply {
  if (loaded?.generation !== request.generation) {
    return {
      id: request.id,
      ok: false,
      code: 'eval_internal_error',
      message: `the decision worker holds no compiled copy of policy set ${request.generation}`,
    };
  }
  try {
    const input = request.input === undefined ? undefined : parseJSON(request.input, { maxDepth: Infinity });
    const options = {
      ...(input === undefined ? {} : { inputValue: input }),
      strictBuiltinErrors: request.strict,
      budgetMs: request.budgetMs,
      network: request.network,
    };
    if (request.kind === 'data') {
      const result = loaded.policy.evaluate(request.path, undefined, options);
      return { id: request.id, ok: true, result: result === undefined ? undefined : stringifyJSON(result) };
    }
    const rows = loaded.policy.query(request.query, options);
    return { id: request.id, ok: true, result: stringifyJSON(rows.map((b) => RegoObject.fromEntries(Object.entries(b)))) };
  } catch (error) {
    if (PolicyError.isInstance(error)) return { id: request.id, ok: false, code: error.code, message: error.message, detail: error.detail };
    return { id: request.id, ok: false, code: 'eval_internal_error', message: error instanceof Error ? error.message : String(error) };
  }
}
