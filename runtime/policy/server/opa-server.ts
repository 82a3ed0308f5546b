import { Hono, type Context } from 'hono';
import { BadRequestError } from '../../core/errors/bad-request-error.js';
import { FrameworkError } from '../../core/framework-error.js';
import { errorFields, silentLogger, type Logger } from '../../core/logger.js';
import { readBodyText } from '../../core/server/read-json-body.js';
import { PolicyError } from '../errors.js';
import { parseJSON, stringifyJSON } from '../value-json.js';
import { RegoObject, type Value } from '../value.js';
import type { DecisionLog } from './decision-log.js';
import { problemsOf, PolicyLoadError, type PolicyProblem } from './policy-set.js';
import type { PolicyStore } from './policy-store.js';

export interface PolicyServerOptions {
  store: PolicyStore;
  logger?: Logger;
  /** Enables PUT/DELETE /v1/policies/{id}; off by default. */
  allowWrites?: boolean;
  decisionLog?: DecisionLog;
  /** Largest request body; default 1 MiB. */
  maxBodyBytes?: number;
}

/** OPA's error body. */
interface OpaError {
  code: string;
  message: string;
  errors?: unknown[];
}

/** Fresh headers per response: @hono/node-server writes Content-Length into the object it is given. */
const jsonHeaders = (): Record<string, string> => ({ 'Content-Type': 'application/json' });

function opaError(status: number, body: OpaError, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { ...jsonHeaders(), ...headers } });
}

function problemJson(p: PolicyProblem): Record<string, unknown> {
  return {
    code: p.code,
    message: p.message,
    ...(p.file === undefined ? {} : { location: { file: p.file, row: p.row ?? 0, col: p.col ?? 0 } }),
  };
}

/** `a/b/allow` from the request path after the API prefix; empty for the whole data tree. */
function documentPath(c: Context, prefix: string): string[] {
  const rest = decodeURIComponent(c.req.path.slice(prefix.length));
  return rest.split('/').filter((s) => s !== '');
}

/**
 * An HTTP server speaking OPA's REST API over our Rego engine, so a Guardian
 * works the same against it or a real OPA:
 * `POST|GET /v1/data/{path}`, `POST /v0/data/{path}`, `GET /health`,
 * `GET /v1/policies[/{id}]` (and PUT/DELETE with `allowWrites`).
 */
export function createPolicyServer(options: PolicyServerOptions): Hono {
  const { store } = options;
  const logger = options.logger ?? silentLogger;
  const maxBytes = options.maxBodyBytes ?? 1024 * 1024;
  const app = new Hono();

  app.onError((error, c) => {
    if (error instanceof PolicyLoadError) {
      return opaError(400, { code: 'invalid_parameter', message: 'error(s) occurred while compiling module(s)', errors: error.problems.map(problemJson) });
    }
    if (FrameworkError.isInstance(error) && error.code === 'payload_too_large') {
      return opaError(413, { code: 'invalid_parameter', message: error.message });
    }
    if (FrameworkError.isInstance(error) && error instanceof BadRequestError) {
      return opaError(400, { code: 'invalid_parameter', message: error.message });
    }
    logger.error('policy request failed', { path: c.req.path, ...errorFields(error) });
    return opaError(500, { code: 'internal_error', message: 'the policy server failed while handling the request; see its log' });
  });
  app.notFound((c) => opaError(404, { code: 'resource_not_found', message: `no route ${c.req.method} ${c.req.path}` }));
  // Paths are percent-decoded below; a malformed escape (`/v1/data/%E0%A4%A`) is the client's error, not a 500.
  app.use('*', async (c, next) => {
    try {
      decodeURIComponent(c.req.path);
    } catch {
      return opaError(400, { code: 'invalid_parameter', message: `the path ${JSON.stringify(c.req.path)} holds a malformed percent-encoding` });
    }
    await next();
  });

  app.get('/health', (c) => {
    const status = store.status;
    if (!store.current) {
      return opaError(500, { code: 'unhealthy', message: 'no policies are loaded', errors: (status?.problems ?? []).map(problemJson) });
    }
    if (c.req.query('bundles') !== undefined && status && !status.ok) {
      return opaError(500, {
        code: 'unhealthy',
        message: `the latest reload failed; still serving the policies loaded at ${store.current.loadedAt.toISOString()}`,
        errors: status.problems.map(problemJson),
      });
    }
    return c.json({});
  });

  app.get('/v1/policies', (c) => c.json({ result: (store.current?.modules ?? []).map((m) => ({ id: m.id, raw: m.source })) }));
  app.get('/v1/policies/*', (c) => {
    const id = decodeURIComponent(c.req.path.slice('/v1/policies/'.length));
    const found = store.current?.modules.find((m) => m.id === id);
    if (!found) return opaError(404, { code: 'resource_not_found', message: `storage_not_found_error: policy id "${id}"` });
    return c.json({ result: { id: found.id, raw: found.source } });
  });
  const writesOff = () =>
    opaError(403, { code: 'forbidden', message: 'policy writes are disabled; start the server with --allow-writes to enable PUT/DELETE /v1/policies' });
  app.put('/v1/policies/*', async (c) => {
    if (!options.allowWrites) return writesOff();
    const id = decodeURIComponent(c.req.path.slice('/v1/policies/'.length));
    if (!id.endsWith('.rego')) return opaError(400, { code: 'invalid_parameter', message: 'a policy id must end in .rego' });
    await store.putModule(id, await readBodyText(c, maxBytes));
    return c.json({});
  });
  app.delete('/v1/policies/*', async (c) => {
    if (!options.allowWrites) return writesOff();
    const id = decodeURIComponent(c.req.path.slice('/v1/policies/'.length));
    if (!(await store.deleteModule(id))) return opaError(404, { code: 'resource_not_found', message: `storage_not_found_error: policy id "${id}"` });
    return c.json({});
  });

  const decide = (c: Context, path: string[], input: Value | undefined, bare: boolean): Response => {
    const set = store.current;
    if (!set) return opaError(500, { code: 'internal_error', message: 'no policies are loaded' });
    const started = process.hrtime.bigint();
    let result: Value | undefined;
    try {
      result = set.policy.evaluate(path, undefined, {
        ...(input === undefined ? {} : { inputValue: input }),
        strictBuiltinErrors: c.req.query('strict-builtin-errors') === 'true',
      });
    } catch (error) {
      if (!PolicyError.isInstance(error)) throw error;
      const errors = problemsOf(error).map(problemJson);
      return opaError(500, { code: 'internal_error', message: error.message, errors });
    }
    const evalNs = Number(process.hrtime.bigint() - started);
    const decisionId = options.decisionLog?.record({ path: path.join('/'), input, result });
    if (bare) {
      if (result === undefined) return opaError(404, { code: 'undefined_document', message: `document missing: data/${path.join('/')}` });
      return new Response(stringifyJSON(result), { headers: jsonHeaders() });
    }
    let body = '{';
    const parts: string[] = [];
    if (decisionId) parts.push(`"decision_id":${JSON.stringify(decisionId)}`);
    if (c.req.query('metrics') !== undefined) parts.push(`"metrics":{"timer_rego_query_eval_ns":${evalNs}}`);
    if (result !== undefined) parts.push(`"result":${stringifyJSON(result)}`);
    body += `${parts.join(',')}}`;
    return new Response(body, { headers: jsonHeaders() });
  };

  const parseBody = async (c: Context): Promise<Value | undefined> => {
    const text = await readBodyText(c, maxBytes);
    if (text.trim() === '') return undefined;
    try {
      return parseJSON(text);
    } catch (error) {
      throw new BadRequestError({ code: 'invalid_json', message: `body contains malformed input document: ${(error as Error).message}` });
    }
  };

  const v1 = async (c: Context, input: Value | undefined) => decide(c, documentPath(c, '/v1/data'), input, false);

  for (const route of ['/v1/data', '/v1/data/*']) {
    app.post(route, async (c) => {
      const body = await parseBody(c);
      if (body !== undefined && !(body instanceof RegoObject)) {
        return opaError(400, { code: 'invalid_parameter', message: 'the request body must be a JSON object such as {"input": {...}}' });
      }
      return v1(c, body?.get('input'));
    });
    app.get(route, async (c) => {
      const raw = c.req.query('input');
      let input: Value | undefined;
      if (raw !== undefined) {
        try {
          input = parseJSON(raw);
        } catch (error) {
          return opaError(400, { code: 'invalid_parameter', message: `the input query parameter is not JSON: ${(error as Error).message}` });
        }
      }
      return v1(c, input);
    });
  }
  for (const route of ['/v0/data', '/v0/data/*']) {
    app.post(route, async (c) => decide(c, documentPath(c, '/v0/data'), await parseBody(c), true));
  }
  return app;
}
