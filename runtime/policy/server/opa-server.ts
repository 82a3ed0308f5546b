import { Hono, type Context } from 'hono';
import { BadRequestError } from '../../core/errors/bad-request-error.js';
import { FrameworkError } from '../../core/framework-error.js';
import { errorFields, silentLogger, type Logger } from '../../core/logger.js';
import { readBodyText, receiveNodeBody } from '../../core/server/read-json-body.js';
import { nonFiniteNumberAt } from '../../core/non-finite-number.js';
import type { DirectHandler } from '../../core/server/listen.js';
import { endAtEndOfIo } from '../../core/server/write-batch.js';
import { stringifyJson } from '../../core/json-text.js';
import { randomUUID } from 'node:crypto';
import type { Registry } from 'prom-client';
import { metricFamilySource, promClient, serviceMetricsText, type MetricFamily } from '../../core/telemetry/service-metrics.js';
import { DECISION_ID_ATTRIBUTE } from '../../core/telemetry/span-attributes.js';
import { annotateActiveSpan } from '../../core/telemetry/tracing.js';
import { DurationHistogram } from '../../core/telemetry/duration-histogram.js';
import { PolicyError } from '../errors.js';
import type { QueryOptions } from '../engine.js';
import { fromJS, parseJSON, stringifyJSON, toJS } from '../value-json.js';
import { goJSONText } from '../go-bytes.js';
import { htmlSafeJSON } from '../value-gojson.js';
import { unmarshalYaml } from '../builtins/yaml.js';
import { acceptsGzip, compressesAnswer, gzipAnswer, isYaml, needsDecoding, readEncodedBody } from './request-encoding.js';
import { RegoObject, type Value } from '../value.js';
import type { DecisionLog } from './decision-log.js';
import type { ExplainMode } from '../trace/lineage.js';
import { TraceRecorder } from '../trace/trace-recorder.js';
import { BudgetExceededError, DecisionPool, WorkerEvalError, type PoolDecision } from './decision-pool.js';
import { NETWORK_HANDOVER } from '../eval/env.js';
import { explainParameter, explanationJson } from './explanation.js';
import { DataWriteError, parsePatch, type DataOp } from './data-writes.js';
import { moduleAst } from './opa-ast.js';
import { registerCompileRoutes } from './compile-routes.js';
import { problemsOf, PolicyLoadError, type PolicyProblem, type PolicySet } from './policy-set.js';
import type { PolicyStore } from './policy-store.js';

export interface PolicyServerOptions {
  store: PolicyStore;
  logger?: Logger;
  /** Enables PUT/DELETE /v1/policies/{id}; off by default. */
  allowWrites?: boolean;
  decisionLog?: DecisionLog;
  /** Largest request body; default 1 MiB. */
  maxBodyBytes?: number;
  /**
   * The evaluation budget: a decision still running after this many
   * milliseconds is stopped and answered 500 with `eval_cancel_error`. Default 5000.
   */
  evalTimeoutMs?: number;
  /**
   * How long a decision may run on the event loop before it is handed to a
   * worker thread (evaluated again there from the start). Default 5 ms.
   */
  inlineMs?: number;
  /**
   * Worker threads for costly decisions. Default: a pool of 2 when the
   * compiled worker script exists; `false` evaluates everything on the event
   * loop (still stopped at `evalTimeoutMs`, but blocking the server meanwhile).
   */
  pool?: DecisionPool | false;
  /**
   * Lets ad-hoc queries (`/v1/query`) reach the network (http.send,
   * net.lookup_ip_addr). Off by default, as OPA's capabilities would have
   * it: anyone who may query could otherwise make the server send requests.
   */
  allowQueryNetwork?: boolean;
  /** The discovery bundle's status (OPA's `discovery` entry of the status), when discovery is configured. */
  discoveryStatus?: () => Record<string, unknown>;
}

/** Why an ad-hoc query may not reach the network (the server is started without `--allow-query-network`). */
export const QUERY_NETWORK_REFUSED = 'ad-hoc queries may not reach the network on this server (start policy serve with --allow-query-network to allow it)';

/** Why an explained decision may not reach the network while workers serve the costly ones. */
export const EXPLAIN_NETWORK_REFUSED =
  "an explained decision (?explain) is evaluated on the server's event loop, which must not wait for the network; ask without ?explain";

/** The policy server's app: serve it with `listen(app, { direct: app.direct })`; `close()` stops its worker threads. */
export type PolicyServerApp = Hono & {
  close(): Promise<void>;
  direct: DirectHandler;
  /** What `GET /v1/status` answers as its `result` (and a status upload sends). */
  status(): Record<string, unknown>;
};

/** The default decision `POST /` answers, as in OPA (`--set=default_decision=...`). */
const DEFAULT_DECISION = ['system', 'main'];

/** Routes served besides /v1/data and /v1/policies, as the `handler` label names them. */
const HANDLERS = ['/v1/query', '/v1/status', '/v1/config', '/v0/data', '/health', '/metrics'];

/** The `handler` label of a request path, from a fixed set: a label taken from the path would let random paths grow /metrics without bound. */
function handlerLabel(path: string): string {
  if (path.startsWith('/v1/data')) return 'v1/data';
  if (path.startsWith('/v1/policies')) return 'v1/policies';
  if (path === '/') return '/';
  return HANDLERS.find((h) => path === h || path.startsWith(`${h}/`)) ?? 'other';
}

/** OPA's error body. */
interface OpaError {
  code: string;
  message: string;
  errors?: unknown[];
  /** Besides OPA's fields: the policy set's status (`/health?bundles`). */
  bundles?: unknown;
}

/** Fresh headers per response: @hono/node-server writes Content-Length into the object it is given. */
const jsonHeaders = (): Record<string, string> => ({ 'Content-Type': 'application/json' });

/** A JSON answer before it becomes a Web `Response` (routes of the app) or is written to Node's response (the direct route). */
interface Answer {
  status: number;
  text: string;
}

/** An evaluated decision: its JSON text, undefined when the document is undefined. */
interface Evaluated {
  json: string | undefined;
}

function errorAnswer(status: number, body: OpaError): Answer {
  // An error's text may quote a string with a raw byte (go-bytes.ts): written as Go writes it.
  return { status, text: goJSONText(JSON.stringify(body)) };
}

function answerResponse(answer: Answer): Response {
  return new Response(htmlSafeJSON(answer.text), { status: answer.status, headers: jsonHeaders() });
}

function opaError(status: number, body: OpaError): Response {
  return answerResponse(errorAnswer(status, body));
}

/** The query-string options of a decision or query. */
interface RequestOptions {
  /** `?explain=notes|fails|full|debug`. */
  explain?: ExplainMode;
  /** `?strict-builtin-errors=true`. */
  strict: boolean;
  /** `?pretty`: indented JSON. */
  pretty: boolean;
  /** `?metrics`: the evaluation's timer. */
  metrics: boolean;
  /** `?instrument`: the timers, the handler's included. */
  instrument: boolean;
  /** `?provenance`: the server's version and the policies' revision beside the result (Data API decisions). */
  provenance: boolean;
}

/** A request with no query string. */
const PLAIN_REQUEST: RequestOptions = { strict: false, pretty: false, metrics: false, instrument: false, provenance: false };

/**
 * A boolean parameter as OPA's server reads one (`getBoolParam`): present with no value (`?pretty`) is true,
 * otherwise true when any of its values is `true` in any case (`?pretty=TRUE`); `?pretty=1` is false.
 */
function flag(c: Context, name: string): boolean {
  const values = c.req.queries(name);
  if (values === undefined) return false;
  if (values.length === 1 && values[0] === '') return true;
  return values.some((value) => value.toLowerCase() === 'true');
}

function requestOptions(c: Context): RequestOptions {
  if (!c.req.url.includes('?')) return PLAIN_REQUEST;
  const explain = explainParameter(c.req.queries('explain'));
  return {
    ...(explain === undefined ? {} : { explain }),
    strict: c.req.query('strict-builtin-errors') === 'true',
    pretty: flag(c, 'pretty'),
    metrics: flag(c, 'metrics'),
    instrument: flag(c, 'instrument'),
    provenance: flag(c, 'provenance'),
  };
}

/** A 200 answer, indented under `?pretty` (re-indented as text, so big numbers stay exact). */
function okAnswer(text: string, q: RequestOptions): Answer {
  return { status: 200, text: q.pretty ? indentJSON(text) : text };
}

/** The request body as a value: undefined when empty, a 400 `BadRequestError` when it is not JSON (or YAML); JSON nested past 10,000 levels is Go's `exceeded max depth`, as OPA answers. */
function parseBodyText(text: string, yaml = false): Value | undefined {
  // Not trim(): it copies the whole body to find the first character.
  if (!/\S/.test(text)) return undefined;
  let value: Value;
  try {
    value = yaml ? unmarshalYaml(text) : parseJSON(text);
  } catch (error) {
    throw new BadRequestError({ code: 'invalid_json', message: `body contains malformed input document: ${(error as Error).message}` });
  }
  return value;
}

/** The registry of OPA's decision counters, read from `counts` at each scrape. */
function decisionMetrics(counts: { in_process: number; worker: number; over_budget: number }): Registry {
  const { Counter, Registry } = promClient();
  const registry = new Registry();
  new Counter({
    name: 'policy_decisions_total',
    help: 'Decisions evaluated, by where they finished: in_process (on the event loop) or worker (handed over).',
    labelNames: ['where'],
    registers: [registry],
    collect() {
      this.reset();
      this.inc({ where: 'in_process' }, counts.in_process);
      this.inc({ where: 'worker' }, counts.worker);
    },
  });
  new Counter({
    name: 'policy_decisions_over_budget_total',
    help: 'Decisions stopped because they ran past the evaluation budget.',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(counts.over_budget);
    },
  });
  return registry;
}

function problemJson(p: PolicyProblem): Record<string, unknown> {
  return {
    code: p.code,
    message: p.message,
    ...(p.file === undefined ? {} : { location: { file: p.file, row: p.row ?? 0, col: p.col ?? 0 } }),
    ...(p.details === undefined ? {} : { details: p.details }),
  };
}

/** `a/b/allow` from the request path after the API prefix; empty for the whole data tree. */
function documentPath(c: Context, prefix: string): string[] {
  return pathSegments(decodeURIComponent(c.req.path.slice(prefix.length)));
}

/** The document path's segments from what follows the API prefix (`/a//b/` is `a/b`). */
function pathSegments(rest: string): string[] {
  return rest.split('/').filter((s) => s !== '');
}

/**
 * An HTTP server speaking OPA's REST API over our Rego engine, so a Guardian
 * works the same against it or a real OPA:
 * `POST|GET /v1/data/{path}`, `POST /v0/data/{path}`, `GET /health`,
 * `GET /v1/policies[/{id}]` (and PUT/DELETE with `allowWrites`).
 */
export function createPolicyServer(options: PolicyServerOptions): PolicyServerApp {
  const { store } = options;
  const logger = options.logger ?? silentLogger;
  const maxBytes = options.maxBodyBytes ?? 1024 * 1024;
  const evalTimeoutMs = options.evalTimeoutMs ?? 5000;
  const inlineMs = Math.min(options.inlineMs ?? 5, evalTimeoutMs);
  const pool = options.pool === false ? undefined : (options.pool ?? (DecisionPool.available() ? new DecisionPool() : undefined));
  const serverId = randomUUID();
  const app = new Hono() as PolicyServerApp;

  // OPA's histogram, under OPA's name and labels.
  const durations = new DurationHistogram({
    name: 'http_request_duration_seconds',
    help: 'A histogram of duration for requests.',
    labelNames: ['code', 'handler', 'method'],
  });
  // Counted in plain fields (a labelled prom-client increment costs more than a small decision) and read when scraped.
  const counts = { in_process: 0, worker: 0, over_budget: 0 };
  // Made at the first scrape, when prom-client is loaded.
  let registry: Registry | undefined;
  const decisionRegistry = (): Registry => (registry ??= decisionMetrics(counts));
  // The OPA-named families go over OTLP too (when the service exports metrics), the same figures as /metrics.
  const removeFamilies = metricFamilySource(async () => [...((await decisionRegistry().getMetricsAsJSON()) as unknown as MetricFamily[]), durations.family()]);
  app.close = async () => {
    removeFamilies();
    await pool?.close();
  };

  /** The answer to an error a handler threw: the client's (400, 413) in OPA's shape, anything else a logged 500. */
  const failure = (error: unknown, path: string): Answer => {
    if (error instanceof PolicyLoadError) {
      return errorAnswer(400, { code: 'invalid_parameter', message: 'error(s) occurred while compiling module(s)', errors: error.problems.map(problemJson) });
    }
    if (FrameworkError.isInstance(error) && error.code === 'payload_too_large') {
      return errorAnswer(413, { code: 'invalid_parameter', message: error.message });
    }
    if (FrameworkError.isInstance(error) && error instanceof BadRequestError) {
      return errorAnswer(400, { code: 'invalid_parameter', message: error.message });
    }
    logger.error('policy request failed', { path, ...errorFields(error) });
    return errorAnswer(500, { code: 'internal_error', message: 'the policy server failed while handling the request; see its log' });
  };
  app.onError((error, c) => answerResponse(failure(error, c.req.path)));
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
  app.use('*', async (c, next) => {
    const started = performance.now();
    await next();
    durations.observe((performance.now() - started) / 1000, String(c.res.status), handlerLabel(c.req.path), c.req.method);
  });

  // As OPA's compression handler: answers of GZIP_MIN_LENGTH bytes or more are gzip-compressed for a client that accepts it.
  app.use('*', async (c, next) => {
    await next();
    const accept = c.req.header('accept-encoding');
    const res = c.res;
    if (!acceptsGzip(accept) || res.body === null || res.headers.has('content-encoding')) return;
    const text = await res.text();
    const gzip = compressesAnswer(text, accept);
    const body = gzip ? await gzipAnswer(text) : text;
    const headers = new Headers(res.headers);
    headers.append('Vary', 'Accept-Encoding');
    headers.delete('content-length');
    if (gzip) headers.set('Content-Encoding', 'gzip');
    c.res = undefined;
    c.res = new Response(typeof body === 'string' ? body : new Uint8Array(body), { status: res.status, headers });
  });

  // OPA's names first (kept as they were), then the metrics every service of the toolkit has.
  app.get(
    '/metrics',
    async () =>
      new Response(`${await decisionRegistry().metrics()}\n${durations.text()}${(await serviceMetricsText()).text}`, {
        headers: { 'Content-Type': decisionRegistry().contentType },
      }),
  );
  /** One bundle's revision and the reload history, as /v1/status and /health?bundles show them. */
  const bundleStatus = (name: string, revision: string): Record<string, unknown> => {
    const status = store.status;
    const failure = store.lastFailure;
    return {
      name,
      active_revision: revision,
      generation: store.current?.generation ?? 0,
      last_successful_activation: store.current?.loadedAt.toISOString(),
      ...(status ? { last_reload: { at: status.at.toISOString(), ok: status.ok } } : {}),
      ...(failure ? { last_reload_error: { at: failure.at.toISOString(), errors: failure.problems.map(problemJson) } } : {}),
      ...(status && !status.ok ? { code: 'bundle_error', message: 'the latest reload failed', errors: status.problems.map(problemJson) } : {}),
    };
  };

  /**
   * Every bundle by name, as OPA's status lists them: the policy directory as `policies` (its revision a digest of
   * the files read), each `--bundle` under the path it was given, with its manifest's revision.
   */
  const bundlesStatus = (): Record<string, unknown> => {
    const out: Record<string, unknown> = {};
    if (store.dir !== undefined) out.policies = bundleStatus('policies', store.revision ?? '');
    for (const source of store.sources) {
      const active = store.bundles.find((b) => b.name === source.name);
      const error = source.lastError;
      out[source.name] = {
        ...bundleStatus(source.name, active?.revision ?? ''),
        ...(active ? { type: active.type ?? 'snapshot' } : { active_revision: '', activated: false }),
        // A download refused (forged, unreadable, not compiling) while the active bundle keeps serving.
        ...(error ? { code: 'bundle_error', message: error.message, last_error_at: error.at.toISOString() } : {}),
      };
    }
    return out;
  };

  /** Configured bundles not activated yet (a download that has not arrived or was refused): `/health?bundles` is 500 until none is. */
  const notActivated = (): string[] => store.sources.filter((s) => !store.bundles.some((b) => b.name === s.name)).map((s) => s.name);

  app.status = () => ({
    labels: { id: serverId, version: 'framework_core' },
    plugins: { server: { state: store.current ? 'OK' : 'NOT_READY' } },
    bundles: bundlesStatus(),
    ...(options.discoveryStatus ? { discovery: options.discoveryStatus() } : {}),
    metrics: { decisions: { ...counts } },
  });
  app.get('/v1/status', (c) => respond(c, { result: app.status() }));

  app.get('/health', (c) => {
    const status = store.status;
    if (!store.current) {
      return opaError(500, { code: 'unhealthy', message: 'no policies are loaded', errors: (status?.problems ?? []).map(problemJson) });
    }
    if (c.req.query('bundles') === undefined) return c.json({});
    const pending = notActivated();
    if (pending.length > 0) {
      return answerResponse(errorAnswer(500, { code: 'unhealthy', message: `bundles not activated yet: ${pending.join(', ')}`, bundles: bundlesStatus() }));
    }
    if (status && !status.ok) {
      return answerResponse(
        errorAnswer(500, {
          code: 'unhealthy',
          message: `the latest reload failed; still serving the policies loaded at ${store.current.loadedAt.toISOString()} (revision ${store.revision ?? ''})`,
          errors: status.problems.map(problemJson),
          bundles: bundlesStatus(),
        }),
      );
    }
    // OPA answers {} here; the revision and reload history are added beside it for operators.
    return c.json({ bundles: bundlesStatus() });
  });

  // OPA's custom health checks: GET /health/<name> is healthy when data.system.health.<name> is true.
  app.get('/health/*', (c) => {
    const name = pathSegments(decodeURIComponent(c.req.path.slice('/health/'.length)));
    const query = `data.system.health${name.map((s) => (/^[A-Za-z_][A-Za-z0-9_]*$/.test(s) ? `.${s}` : `[${JSON.stringify(s)}]`)).join('')}`;
    const set = store.current;
    const unhealthy = (error: string) => answerResponse({ status: 500, text: JSON.stringify({ error }) });
    if (!set) return unhealthy('no policies are loaded');
    // OPA's input to the health policy: each plugin's state, and whether all were ready once (here: the policies are loaded).
    const input = fromJS({ plugin_state: { server: 'OK' }, plugins_ready: true });
    let value: Value | undefined;
    try {
      value = set.policy.evaluate(['system', 'health', ...name], undefined, {
        inputValue: input,
        budgetMs: evalTimeoutMs,
        network: { refuse: QUERY_NETWORK_REFUSED },
      });
    } catch (error) {
      if (!PolicyError.isInstance(error)) throw error;
      return unhealthy(error.message);
    }
    if (value === undefined) return unhealthy(`health check (${query}) was undefined`);
    if (value !== true) return unhealthy(`health check (${query}) returned unexpected value`);
    return answerResponse({ status: 200, text: '{}' });
  });

  // OPA's active configuration; this server has no configuration file, so it is the labels and the default decisions.
  app.get('/v1/config', (c) =>
    respond(c, {
      result: {
        labels: { id: serverId, version: 'framework_core' },
        default_decision: `/${DEFAULT_DECISION.join('/')}`,
        default_authorization_decision: '/system/authz/allow',
      },
    }),
  );

  const listPolicies = (c: Context) =>
    respond(c, { result: (store.current?.modules ?? []).map((m) => ({ id: m.id, raw: m.source, ast: moduleAst(m.id, m.source) })) });
  app.get('/v1/policies', listPolicies);
  app.get('/v1/policies/*', (c) => {
    const id = decodeURIComponent(c.req.path.slice('/v1/policies/'.length));
    // `/v1/policies/` lists them too, as OPA answers opa-python-client's get_policies_list.
    if (id === '') return listPolicies(c);
    const found = store.current?.modules.find((m) => m.id === id);
    if (!found) return opaError(404, { code: 'resource_not_found', message: `storage_not_found_error: policy id "${id}"` });
    return respond(c, { result: { id: found.id, raw: found.source, ast: moduleAst(found.id, found.source) } });
  });
  const writesOff = () =>
    opaError(403, { code: 'forbidden', message: 'policy writes are disabled; start the server with --allow-writes to enable PUT/DELETE /v1/policies' });
  app.put('/v1/policies/*', async (c) => {
    if (!options.allowWrites) return writesOff();
    const id = decodeURIComponent(c.req.path.slice('/v1/policies/'.length));
    // As OPA: any id names a module (OPA's own example is `example1`); only an empty one is refused.
    if (id === '') return opaError(400, { code: 'invalid_parameter', message: 'a policy id is required: PUT /v1/policies/<id>' });
    await store.putModule(id, await bodyText(c));
    return c.json({});
  });
  app.delete('/v1/policies/*', async (c) => {
    if (!options.allowWrites) return writesOff();
    const id = decodeURIComponent(c.req.path.slice('/v1/policies/'.length));
    if (!(await store.deleteModule(id))) return opaError(404, { code: 'resource_not_found', message: `storage_not_found_error: policy id "${id}"` });
    return c.json({});
  });

  /** The base data as JSON text for the workers, once per compiled set. */
  const dataJson = new WeakMap<PolicySet, string>();
  const dataJsonOf = (set: PolicySet): string => {
    let text = dataJson.get(set);
    if (text === undefined) {
      text = stringifyJSON(fromJS(set.data, { maxDepth: Infinity }));
      dataJson.set(set, text);
    }
    return text;
  };

  /**
   * The decision's result as JSON text (`json` undefined when the document is
   * undefined): evaluated in process, synchronously, and when that outruns
   * `inlineMs`, again from the start in a worker (then a promise). A traced
   * decision (`trace` given: `?explain`) runs in process only, on the policy
   * compiled for tracing, within the whole evaluation budget.
   */
  const evaluateDecision = (
    set: PolicySet,
    decision: PoolDecision,
    input: Value | undefined,
    strict: boolean,
    trace: TraceRecorder | undefined,
  ): Evaluated | Promise<Evaluated> => {
    const started = performance.now();
    const budgetMs = pool && trace === undefined ? inlineMs : evalTimeoutMs;
    const policy = trace === undefined ? set.policy : set.policy.traced();
    // Ad-hoc queries are refused the network unless the operator allowed it; on the event loop, with workers to wait in,
    // a decision that needs the network moves to a worker before anything is sent (so it is sent once, and the loop never waits).
    const refused = decision.kind === 'query' && !options.allowQueryNetwork ? QUERY_NETWORK_REFUSED : undefined;
    const network = refused ? { refuse: refused } : !pool ? 'allow' : trace === undefined ? 'handover' : { refuse: EXPLAIN_NETWORK_REFUSED };
    const evalOptions: QueryOptions = { inputValue: input, strictBuiltinErrors: strict, budgetMs, trace, network };
    try {
      let json: string | undefined;
      if (decision.kind === 'data') {
        const result = policy.evaluate(decision.path, undefined, evalOptions);
        json = result === undefined ? undefined : stringifyJSON(result);
      } else {
        json = stringifyJSON(policy.query(decision.query, evalOptions).map((b) => RegoObject.fromEntries(Object.entries(b))));
      }
      counts.in_process++;
      return { json };
    } catch (error) {
      const cancelled = PolicyError.isInstance(error) && error.code === 'eval_cancel_error';
      const handover = cancelled && pool !== undefined && (error.detail === NETWORK_HANDOVER || budgetMs < evalTimeoutMs);
      if (!handover) {
        if (cancelled) {
          counts.over_budget++;
          throw new BudgetExceededError(evalTimeoutMs);
        }
        throw error;
      }
      return inWorker({ workers: pool, set, decision, input, strict, started, network: refused ? { refuse: refused } : 'allow' });
    }
  };

  /** A decision too costly for the event loop, evaluated again, from the start, in a worker, within what is left of the budget. */
  const inWorker = async (job: {
    workers: DecisionPool;
    set: PolicySet;
    decision: PoolDecision;
    input: Value | undefined;
    strict: boolean;
    started: number;
    network: 'allow' | { refuse: string };
  }): Promise<Evaluated> => {
    const { set } = job;
    try {
      const { json } = await job.workers.evaluate({ generation: set.generation, modules: set.modules, dataJson: dataJsonOf(set) }, job.decision, {
        input: job.input === undefined ? undefined : stringifyJSON(job.input),
        strict: job.strict,
        budgetMs: evalTimeoutMs,
        deadline: job.started + evalTimeoutMs,
        network: job.network,
      });
      counts.worker++;
      return { json };
    } catch (error) {
      if (error instanceof BudgetExceededError) {
        counts.over_budget++;
      }
      throw error;
    }
  };

  /** OPA's error body for an evaluation that failed or ran out of budget. */
  const evalFailure = (error: unknown): Answer => {
    if (error instanceof BudgetExceededError) {
      return errorAnswer(500, { code: 'internal_error', message: error.message, errors: [{ code: 'eval_cancel_error', message: error.message }] });
    }
    const refusal = networkRefusal(error);
    if (refusal !== undefined) return errorAnswer(403, { code: 'forbidden', message: refusal, errors: [{ code: 'eval_builtin_error', message: refusal }] });
    if (error instanceof WorkerEvalError) {
      return errorAnswer(500, { code: 'internal_error', message: error.message, errors: [{ code: error.code, message: error.detail }] });
    }
    if (PolicyError.isInstance(error)) {
      return errorAnswer(500, { code: 'internal_error', message: error.message, errors: problemsOf(error).map(problemJson) });
    }
    throw error;
  };

  /** A Data API decision; synchronous unless it was handed to a worker. */
  const decide = (path: string[], input: Value | undefined, bare: boolean, q: RequestOptions): Answer | Promise<Answer> => {
    const set = store.current;
    if (!set) return errorAnswer(500, { code: 'internal_error', message: 'no policies are loaded' });
    // As in OPA, the bare answers (v0 and the default decision) carry no explanation.
    const explain = bare ? undefined : q.explain;
    const trace = explain === undefined ? undefined : new TraceRecorder();
    const started = process.hrtime.bigint();
    const decided = ({ json }: Evaluated): Answer => {
      const evalNs = Number(process.hrtime.bigint() - started);
      const decisionId = options.decisionLog?.record({
        path: path.join('/'),
        input,
        result: json === undefined ? undefined : parseJSON(json, { maxDepth: Infinity }),
      });
      annotateActiveSpan({ 'opa.path': path.join('/'), ...(decisionId ? { [DECISION_ID_ATTRIBUTE]: decisionId } : {}) });
      if (bare) {
        if (json === undefined) return errorAnswer(404, { code: 'undefined_document', message: `document missing: data/${path.join('/')}` });
        return okAnswer(json, q);
      }
      if (decisionId === undefined && q === PLAIN_REQUEST) return okAnswer(json === undefined ? '{}' : `{"result":${json}}`, q);
      const parts: string[] = [];
      if (decisionId) parts.push(`"decision_id":${JSON.stringify(decisionId)}`);
      const metrics = metricsOf(q, evalNs, started);
      if (metrics) parts.push(`"metrics":${JSON.stringify(metrics)}`);
      if (q.provenance) parts.push(`"provenance":${JSON.stringify(provenance())}`);
      if (json !== undefined) parts.push(`"result":${json}`);
      if (trace && explain) parts.push(`"explanation":${stringifyJson(explanationJson({ events: trace.events, mode: explain, pretty: q.pretty }))}`);
      return okAnswer(`{${parts.join(',')}}`, q);
    };
    let evaluated: Evaluated | Promise<Evaluated>;
    try {
      evaluated = evaluateDecision(set, { kind: 'data', path }, input, q.strict, trace);
    } catch (error) {
      return evalFailure(error);
    }
    return evaluated instanceof Promise ? evaluated.then(decided, evalFailure) : decided(evaluated);
  };

  /** A JSON response, indented under `?pretty`. */
  // stringifyJson: the policy list's `ast` keeps number literals a double cannot hold exactly.
  const respond = (c: Context, body: unknown): Response => answerResponse(okAnswer(stringifyJson(body), requestOptions(c)));

  /**
   * `?provenance` on a Data API decision, in OPA's shape (`ProvenanceV1`): this server's name where OPA gives its
   * version (as `labels.version` in /v1/status and /v1/config; its build commit, time and host are not recorded, so
   * empty, as in an OPA built without them), and the revision of each bundle the decision read: the policy
   * directory as `policies` (`/v1/status` names it so too), each `--bundle` by its path with its manifest's revision.
   */
  const provenance = () => {
    const bundles: Record<string, { revision: string }> = {};
    if (store.dir !== undefined) bundles.policies = { revision: store.revision ?? '' };
    for (const bundle of store.bundles) bundles[bundle.name] = { revision: bundle.revision };
    return { version: 'framework_core', build_commit: '', build_timestamp: '', build_hostname: '', bundles };
  };

  /** `?metrics` (and `?instrument`, which implies it): OPA's timer names, in ns. */
  const metricsOf = (q: RequestOptions, evalNs: number, started: bigint): Record<string, number> | undefined => {
    if (!q.metrics && !q.instrument) return undefined;
    const out: Record<string, number> = { timer_rego_query_eval_ns: evalNs };
    if (q.instrument) out.timer_server_handler_ns = Number(process.hrtime.bigint() - started);
    return out;
  };

  /** The request body as text: gzip-compressed bodies decompressed within the limit. */
  const bodyText = (c: Context): Promise<string> =>
    needsDecoding(c.req.header('content-encoding'), undefined) ? readEncodedBody(c, maxBytes) : readBodyText(c, maxBytes);
  const yamlBody = (c: Context): boolean => isYaml(c.req.header('content-type'));

  const parseBody = async (c: Context): Promise<Value | undefined> => parseBodyText(await bodyText(c), yamlBody(c));

  /** A Data API POST: the body `{"input": ...}` (or empty), the decision at `path`. */
  const postDecision = (path: string[], text: string, q: RequestOptions, yaml = false): Answer | Promise<Answer> => {
    const body = parseBodyText(text, yaml);
    if (body !== undefined && !(body instanceof RegoObject)) {
      return errorAnswer(400, { code: 'invalid_parameter', message: 'the request body must be a JSON object such as {"input": {...}}' });
    }
    return decide(path, body?.get('input'), false, q);
  };

  /**
   * The hot route answered on Node's own request and response, below Hono:
   * `POST /v1/data/{path}` with no query string and no percent-encoding
   * (everything else, options and errors in the path included, goes through
   * the app). Same limits, answers, metrics and decision log as the app's
   * route; about three times the decisions per second (bench/policy).
   */
  app.direct = (request, response) => {
    const url = request.url ?? '';
    if (request.method !== 'POST' || !url.startsWith('/v1/data') || (url.length > 8 && url[8] !== '/') || /[?#%]/.test(url)) return false;
    if (!plainTargets.check(url, request.headers.host)) return false;
    if (needsDecoding(request.headers['content-encoding'], request.headers['content-type'])) return false;
    const accept = request.headers['accept-encoding'];
    const started = performance.now();
    const write = (answer: Answer, body: string | Buffer, gzip: boolean): void => {
      try {
        const headers = ['Content-Type', 'application/json', 'Content-Length', String(Buffer.byteLength(body))];
        if (acceptsGzip(accept)) headers.push('Vary', 'Accept-Encoding');
        if (gzip) headers.push('Content-Encoding', 'gzip');
        response.writeHead(answer.status, headers);
        // With the other answers of this turn (a decision's answer written alone cost more CPU than the decision).
        endAtEndOfIo(response, body, () => durations.observe((performance.now() - started) / 1000, String(answer.status), 'v1/data', 'POST'));
      } catch (thrown) {
        logger.error('policy answer could not be written', { path: url, ...errorFields(thrown) });
        response.destroy();
      }
    };
    // Most answers are short and go out as they are, in this turn; a long one for a gzip client is compressed off the loop.
    const send = (answer: Answer): void => {
      const fail = (thrown: unknown): void => {
        logger.error('policy answer could not be written', { path: url, ...errorFields(thrown) });
        response.destroy();
      };
      let text: string;
      try {
        text = htmlSafeJSON(answer.text);
      } catch (thrown) {
        return fail(thrown);
      }
      if (!compressesAnswer(text, accept)) return write(answer, text, false);
      gzipAnswer(text).then((body) => write(answer, body, true), fail);
    };
    receiveNodeBody(request, response, maxBytes, (error, text) => {
      let answer: Answer | Promise<Answer>;
      try {
        answer = error ? failure(error, url) : postDecision(pathSegments(url.slice('/v1/data'.length)), text, PLAIN_REQUEST);
      } catch (thrown) {
        answer = failure(thrown, url);
      }
      if (answer instanceof Promise) void answer.catch((thrown: unknown) => failure(thrown, url)).then(send);
      else send(answer);
    });
    return true;
  };

  const plainTargets = new PlainTargets();

  const v1 = async (c: Context, input: Value | undefined) => answerResponse(await decide(documentPath(c, '/v1/data'), input, false, requestOptions(c)));

  for (const route of ['/v1/data', '/v1/data/*']) {
    app.post(route, async (c) => answerResponse(await postDecision(documentPath(c, '/v1/data'), await bodyText(c), requestOptions(c), yamlBody(c))));
    app.get(route, async (c) => {
      const input = inputParameter(c);
      return input instanceof Response ? input : v1(c, input);
    });
    const write = (method: 'PUT' | 'PATCH' | 'DELETE') => async (c: Context) => {
      if (!options.allowWrites) {
        return opaError(403, { code: 'forbidden', message: `data writes are disabled; start the server with --allow-writes to enable ${method} /v1/data` });
      }
      const path = documentPath(c, '/v1/data');
      let ops: DataOp[];
      if (method === 'DELETE') {
        if (path.length === 0) return opaError(400, { code: 'invalid_parameter', message: 'the root of data cannot be deleted' });
        ops = [{ op: 'remove', path }];
      } else {
        // As OPA: `If-None-Match: *` creates the document only where there is none; an existing one is kept (304).
        if (method === 'PUT' && c.req.header('if-none-match')?.trim() === '*' && documentExists(store.current?.data, path)) {
          return new Response(null, { status: 304 });
        }
        const text = await bodyText(c);
        let body: unknown;
        try {
          const parsed = yamlBody(c) ? unmarshalYaml(text) : parseJSON(text);
          body = toJS(parsed);
        } catch (error) {
          return opaError(400, { code: 'invalid_parameter', message: `the request body is not JSON: ${(error as Error).message}` });
        }
        // Stored data is plain JSON here: a number beyond a double (1e400) would not survive it, so it is refused, not changed.
        const overflow = nonFiniteNumberAt(body);
        if (overflow !== undefined) {
          return opaError(400, {
            code: 'invalid_parameter',
            message: `the request body holds a number too large to store exactly (such as 1e400) at ${overflow === '' ? 'its top level' : overflow}`,
          });
        }
        try {
          ops = method === 'PUT' ? [{ op: 'add', path, value: body }] : parsePatch(path, body);
        } catch (error) {
          if (error instanceof DataWriteError) return opaError(error.status, { code: error.code, message: error.message });
          throw error;
        }
      }
      try {
        await store.writeData(ops, method === 'PUT');
      } catch (error) {
        if (error instanceof DataWriteError) return opaError(error.status, { code: error.code, message: error.message });
        throw error;
      }
      return new Response(null, { status: 204 });
    };
    app.put(route, write('PUT'));
    app.patch(route, write('PATCH'));
    app.delete(route, write('DELETE'));
  }
  for (const route of ['/v0/data', '/v0/data/*']) {
    app.post(route, async (c) => answerResponse(await decide(documentPath(c, '/v0/data'), await parseBody(c), true, requestOptions(c))));
  }
  // OPA's default decision: the whole body is the input, the answer the bare value of data.system.main.
  app.post('/', async (c) => answerResponse(await decide(DEFAULT_DECISION, await parseBody(c), true, requestOptions(c))));

  const query = async (c: Context, text: string | undefined, input: Value | undefined): Promise<Response> => {
    if (text === undefined || text.trim() === '')
      return opaError(400, { code: 'invalid_parameter', message: 'missing query: pass q=<rego query> (GET) or {"query": "..."} (POST)' });
    const set = store.current;
    if (!set) return opaError(500, { code: 'internal_error', message: 'no policies are loaded' });
    try {
      set.policy.prepare(text);
    } catch (error) {
      if (PolicyError.isInstance(error)) {
        // OPA parses the query, then compiles it, and says which of the two failed.
        const problems = problemsOf(error);
        const stage = problems.every((p) => p.code === 'rego_parse_error') ? 'parsing' : 'compiling';
        return opaError(400, { code: 'invalid_parameter', message: `error(s) occurred while ${stage} query`, errors: problems.map(problemJson) });
      }
      // The parser's or compiler's recursion ran out of stack: the query is too deep to take, the client's error.
      if (error instanceof RangeError && /call stack/i.test(error.message))
        return opaError(400, { code: 'invalid_parameter', message: 'the query is nested too deep to compile' });
      throw error;
    }
    const q = requestOptions(c);
    const { explain } = q;
    const trace = explain === undefined ? undefined : new TraceRecorder();
    const started = process.hrtime.bigint();
    let json: string | undefined;
    try {
      ({ json } = await evaluateDecision(set, { kind: 'query', query: text }, input, q.strict, trace));
    } catch (error) {
      return answerResponse(evalFailure(error));
    }
    const rows = parseJSON(json ?? '[]', { maxDepth: Infinity });
    const bindings = (Array.isArray(rows) ? rows : []).map((row) =>
      row instanceof RegoObject
        ? RegoObject.fromEntries(row.entries().filter(([k]) => typeof k === 'string' && !k.startsWith('$') && !k.startsWith('_')))
        : row,
    );
    const metrics = metricsOf(q, Number(process.hrtime.bigint() - started), started);
    const parts: string[] = [];
    if (metrics) parts.push(`"metrics":${JSON.stringify(metrics)}`);
    if (bindings.length > 0) parts.push(`"result":${stringifyJSON(bindings)}`);
    if (trace && explain) parts.push(`"explanation":${stringifyJson(explanationJson({ events: trace.events, mode: explain, pretty: q.pretty }))}`);
    return answerResponse(okAnswer(`{${parts.join(',')}}`, q));
  };
  app.get('/v1/query', async (c) => {
    const input = inputParameter(c);
    if (input instanceof Response) return input;
    return query(c, c.req.query('q'), input);
  });
  app.post('/v1/query', async (c) => {
    const body = await parseBody(c);
    if (!(body instanceof RegoObject))
      return opaError(400, { code: 'invalid_parameter', message: 'the request body must be a JSON object such as {"query": "data.a.b = x", "input": {...}}' });
    const q = body.get('query');
    if (q !== undefined && typeof q !== 'string') return opaError(400, { code: 'invalid_parameter', message: 'query must be a string' });
    return query(c, q ?? c.req.query('q'), body.get('input'));
  });
  registerCompileRoutes(app, { current: () => store.current, parseBody, budgetMs: evalTimeoutMs });
  return app;
}

/** The message of a network builtin refused by the server's rules (answered 403), or undefined for any other error. */
function networkRefusal(error: unknown): string | undefined {
  const detail = error instanceof WorkerEvalError ? error.detail : PolicyError.isInstance(error) ? error.detail : undefined;
  if (detail === undefined) return undefined;
  return [QUERY_NETWORK_REFUSED, EXPLAIN_NETWORK_REFUSED].some((reason) => detail.endsWith(`: ${reason}`)) ? detail : undefined;
}

/** Request targets remembered by {@link PlainTargets}: the paths a server is asked for are few, an attacker's random ones are checked each time. */
const MAX_PLAIN_TARGETS = 1024;

/**
 * Which requests the direct route may read as they come: those whose path
 * the URL parser leaves unchanged (no dot segments, backslashes or
 * characters it would encode) and whose Host header the Node adapter accepts,
 * so the route reads the document path Hono would, and refuses nothing Hono
 * answers. Anything else goes through the app.
 */
class PlainTargets {
  readonly #known = new Set<string>();

  check(url: string, host: string | undefined): boolean {
    if (host === undefined) return false;
    const key = `${host} ${url}`;
    if (this.#known.has(key)) return true;
    let parsed: URL;
    try {
      parsed = new URL(`http://${host}${url}`);
    } catch {
      return false;
    }
    // The Node adapter's own check of the Host header (@hono/node-server's newRequest).
    if (parsed.hostname.length !== host.length && parsed.hostname !== host.replace(/:\d+$/, '')) return false;
    if (parsed.pathname !== url) return false;
    if (this.#known.size < MAX_PLAIN_TARGETS) this.#known.add(key);
    return true;
  }
}

/** Indents JSON text by two spaces per level, as `JSON.stringify(x, null, 2)` would, without parsing its numbers. */
export function indentJSON(text: string): string {
  let out = '';
  let depth = 0;
  const newline = () => `\n${'  '.repeat(depth)}`;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i] as string;
    if (ch === '"') {
      let j = i + 1;
      while (j < text.length && text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      out += text.slice(i, j + 1);
      i = j;
    } else if (ch === '{' || ch === '[') {
      const close = ch === '{' ? '}' : ']';
      if (text[i + 1] === close) {
        out += ch + close;
        i++;
      } else {
        depth++;
        out += ch + newline();
      }
    } else if (ch === '}' || ch === ']') {
      depth--;
      out += newline() + ch;
    } else if (ch === ',') out += `,${newline()}`;
    else if (ch === ':') out += ': ';
    else if (ch !== ' ' && ch !== '\n' && ch !== '\t' && ch !== '\r') out += ch;
  }
  return out;
}

/** The `input` query parameter of a GET decision or query, as a value; a 400 in OPA's shape when it is not JSON. */
function inputParameter(c: Context): Value | undefined | Response {
  const raw = c.req.query('input');
  if (raw === undefined) return undefined;
  let value: Value;
  try {
    value = parseJSON(raw);
  } catch (error) {
    return opaError(400, { code: 'invalid_parameter', message: `the input query parameter is not JSON: ${(error as Error).message}` });
  }
  return value;
}

/** Whether the data document has a value at `path` (the root always exists). */
function documentExists(data: unknown, path: readonly string[]): boolean {
  let node = data;
  for (const segment of path) {
    if (node === null || typeof node !== 'object') return false;
    if (Array.isArray(node)) {
      if (!/^(0|[1-9][0-9]*)$/.test(segment) || Number(segment) >= node.length) return false;
      node = node[Number(segment)];
    } else {
      if (!Object.hasOwn(node, segment)) return false;
      node = (node as Record<string, unknown>)[segment];
    }
  }
  return data !== undefined;
}
