/**
 * OPA's compile API on the policy server:
 * - `POST /v1/compile/{path}` turns the rule at `path` into data filters,
 *   chosen by the `Accept` header: SQL `WHERE` clauses
 *   (`application/vnd.opa.sql.{postgresql,mysql,sqlserver,sqlite}+json`),
 *   UCAST conditions (`application/vnd.opa.ucast.{all,minimal,prisma,linq}+json`)
 *   or several at once (`application/vnd.opa.multitarget+json` with
 *   `options.targetDialects`); this is what the OPA SDKs' `getFilters` call.
 * - `POST /v1/compile` answers a query's partial evaluation as Rego AST
 *   (`{"result": {"queries": [...], "support": [...]}}`), rules that are not
 *   inlined saved in support modules under `data.partial` as OPA saves them;
 *   `options.disableInlining` names paths never inlined. `?metrics` and
 *   `?instrument` add the timers; `?explain` is refused (a 400 naming it).
 */
import type { Context, Hono } from 'hono';
import type { Module } from '../ast.js';
import { JsonNumber, stringifyJson } from '../../core/json-text.js';
import { FilterCompiler, FilterErrors, type FilterTarget, targetOfMediaType } from '../filters/compile-filters.js';
import { PolicyError } from '../errors.js';
import { PartialError } from '../partial/partial-eval.js';
import { RegoObject, type Value } from '../value.js';
import { toJS } from '../value-json.js';
import { FilterNumber } from '../filters/ucast.js';
import { bodyJson, moduleJson } from './opa-ast.js';
import type { PolicySet } from './policy-set.js';

export interface CompileRoutesOptions {
  /** The policy set being served (undefined before the first load). */
  current: () => PolicySet | undefined;
  /** The request body as a value (400 for malformed JSON). */
  parseBody: (c: Context) => Promise<Value | undefined>;
  /** Milliseconds one compile request may spend evaluating (the server's evaluation budget). */
  budgetMs: number;
}

const MEDIA_TYPES = [
  'application/vnd.opa.multitarget+json',
  'application/vnd.opa.ucast.all+json',
  'application/vnd.opa.ucast.minimal+json',
  'application/vnd.opa.ucast.prisma+json',
  'application/vnd.opa.ucast.linq+json',
  'application/vnd.opa.sql.postgresql+json',
  'application/vnd.opa.sql.mysql+json',
  'application/vnd.opa.sql.sqlserver+json',
  'application/vnd.opa.sql.sqlite+json',
  'application/json',
];

const MULTI_KEYS: Record<string, string> = { postgresql: 'postgresql', mysql: 'mysql', sqlserver: 'sqlserver', sqlite: 'sqlite' };

/** A filter with its numbers as exact JSON numbers (`JsonNumber`), for `stringifyJson`. */
export function exactNumbers(v: unknown): unknown {
  if (v instanceof FilterNumber) return new JsonNumber(v.text);
  if (Array.isArray(v)) return v.map(exactNumbers);
  if (typeof v === 'object' && v !== null) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, exactNumbers(x)]));
  return v;
}

/** `?metrics` / `?instrument`: the partial evaluation's and the handler's time, in ns, under OPA's timer names. */
function timersOf(req: { timers: boolean; started: bigint }, evalStarted: bigint): { metrics?: Record<string, number> } {
  if (!req.timers) return {};
  const done = process.hrtime.bigint();
  return { metrics: { timer_rego_partial_eval_ns: Number(done - evalStarted), timer_server_handler_ns: Number(done - req.started) } };
}

/** A flag parameter: present, and not `false`. */
function flag(c: Context, name: string): boolean {
  const value = c.req.query(name);
  return value !== undefined && value !== 'false';
}

function json(status: number, body: unknown, contentType = 'application/json'): Response {
  return new Response(stringifyJson(exactNumbers(body)), { status, headers: { 'Content-Type': contentType } });
}

function invalid(message: string): Response {
  return json(400, { code: 'invalid_parameter', message });
}

/** An AST error as OPA writes one: `{code, message, location?, details?}`. */
function astError(e: PartialError): Record<string, unknown> {
  return {
    code: e.code,
    message: e.detail,
    ...(e.location !== undefined && e.location.row > 0 ? { location: { file: e.location.file, row: e.location.row, col: e.location.col } } : {}),
    ...(e.details !== undefined ? { details: { details: e.details } } : {}),
  };
}

function failure(e: unknown): Response {
  if (e instanceof FilterErrors)
    return json(400, { code: 'evaluation_error', message: 'error(s) occurred while evaluating query', errors: e.errors.map(astError) });
  if (e instanceof PartialError) {
    if (e.code === 'invalid_parameter') return invalid(e.detail);
    if (e.code === 'internal_error') return json(500, { code: 'internal_error', message: e.detail });
    if (e.code === 'not_implemented') return json(501, { code: 'not_implemented', message: e.message });
    return json(400, { code: 'evaluation_error', message: 'error(s) occurred while evaluating query', errors: [astError(e)] });
  }
  // Evaluating the known parts failed (a conflict, the budget spent): OPA answers evaluation failures 500.
  if (PolicyError.isInstance(e)) return json(500, { code: 'internal_error', message: e.message });
  throw e;
}

/** A field of the body that must be an object when present. */
function objectField(v: Value | undefined, name: string): Record<string, unknown> | undefined | Response {
  if (v === undefined || v === null) return undefined;
  if (!(v instanceof RegoObject)) return invalid(`error(s) occurred while decoding request: ${name} must be an object`);
  return toJS(v) as Record<string, unknown>;
}

function stringList(v: Value | undefined, name: string): string[] | undefined | Response {
  if (v === undefined || v === null) return undefined;
  if (!Array.isArray(v) || v.some((x) => typeof x !== 'string'))
    return invalid(`error(s) occurred while decoding request: ${name} must be an array of strings`);
  return v as string[];
}

/**
 * The compiler's own var names (`x$3`, `$t8`) are not Rego: in an answer a client may parse back, each becomes
 * `__localqN__` (numbered by first appearance within one query or one rule, as OPA names its query locals).
 */
function readableVars<T>(json: T): T {
  const names = new Map<string, string>();
  const walk = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(walk);
    if (typeof v !== 'object' || v === null || v instanceof JsonNumber) return v;
    const o = v as Record<string, unknown>;
    if (o['type'] === 'var' && typeof o['value'] === 'string' && o['value'].includes('$')) {
      let name = names.get(o['value']);
      if (name === undefined) names.set(o['value'], (name = `__localq${names.size}__`));
      return { ...o, value: name };
    }
    return Object.fromEntries(Object.entries(o).map(([k, x]) => [k, walk(x)]));
  };
  return walk(json) as T;
}

/** A support module as OPA writes it, each rule's locals made readable. */
function supportModuleJson(m: Module): Record<string, unknown> {
  const json = moduleJson(m);
  return { ...json, rules: (json['rules'] as unknown[]).map(readableVars) };
}

export function registerCompileRoutes(app: Hono, options: CompileRoutesOptions): void {
  /** One filter compiler per policy set, built on first use. */
  const compilers = new WeakMap<PolicySet, FilterCompiler>();
  const compilerFor = (set: PolicySet): FilterCompiler => {
    let fc = compilers.get(set);
    if (fc === undefined) {
      fc = new FilterCompiler(
        set.modules.map((m) => ({ file: m.id, source: m.source })),
        set.policy,
        set.data,
        options.budgetMs,
      );
      compilers.set(set, fc);
    }
    return fc;
  };

  /** Body fields shared by both routes: `{input, unknowns, options}`. */
  const readRequest = async (c: Context) => {
    const body = await options.parseBody(c);
    if (body !== undefined && !(body instanceof RegoObject)) return invalid('error(s) occurred while decoding request: the body must be a JSON object');
    const unknowns = stringList(body?.get('unknowns'), 'unknowns');
    if (unknowns instanceof Response) return unknowns;
    const opts = objectField(body?.get('options'), 'options');
    if (opts instanceof Response) return opts;
    const query = body?.get('query');
    if (query !== undefined && typeof query !== 'string') return invalid('error(s) occurred while decoding request: query must be a string');
    const disableInlining = opts?.['disableInlining'];
    if (disableInlining !== undefined && disableInlining !== null && (!Array.isArray(disableInlining) || disableInlining.some((d) => typeof d !== 'string')))
      return invalid('error(s) occurred while decoding request: options.disableInlining must be an array of strings');
    // OPA traces the partial evaluation for ?explain; this server does not, and says so rather than answer without it.
    if (c.req.query('explain') !== undefined) return invalid('?explain is not supported on the compile API here: ask without it');
    const timers = flag(c, 'metrics') || flag(c, 'instrument');
    return {
      input: body?.get('input') ?? undefined,
      unknowns,
      options: opts ?? {},
      query,
      disableInlining: (disableInlining ?? []) as string[],
      timers,
      started: process.hrtime.bigint(),
    };
  };

  // Before the filter route: Hono's `/v1/compile/*` matches the bare path too.
  app.post('/v1/compile', async (c) => {
    const set = options.current();
    if (set === undefined) return json(503, { code: 'unavailable', message: 'no policies are loaded yet' });
    const req = await readRequest(c);
    if (req instanceof Response) return req;
    if (req.query === undefined || req.query.trim() === '') return invalid('missing required query');
    return partialAnswer(set, req.query, req);
  });

  app.post('/v1/compile/*', async (c) => {
    const set = options.current();
    if (set === undefined) return json(503, { code: 'unavailable', message: 'no policies are loaded yet' });
    const path = decodeURIComponent(c.req.path.slice('/v1/compile/'.length))
      .split('/')
      .filter((s) => s !== '');
    if (path.length === 0) return invalid("missing required 'path' parameter");
    const req = await readRequest(c);
    if (req instanceof Response) return req;
    const accept = c.req.header('Accept') ?? '';
    if (accept === '') return invalid('Accept header: missing required header');
    if (accept.includes(',')) return invalid('Accept header: multiple headers not supported');
    if (!MEDIA_TYPES.includes(accept)) return invalid(`Accept header: unsupported header: ${accept}`);
    const kind = targetOfMediaType(accept);
    if (kind === 'plain') return partialAnswer(set, `data.${path.map((p) => (/^[A-Za-z_][A-Za-z0-9_]*$/.test(p) ? p : JSON.stringify(p))).join('.')}`, req);
    if (req.disableInlining.length > 0)
      return invalid('options.disableInlining leaves rules in support modules, which a data filter cannot express: ask with Accept: application/json');
    const mappings = req.options['targetSQLTableMappings'];
    if (mappings !== undefined && (typeof mappings !== 'object' || mappings === null || Array.isArray(mappings)))
      return invalid('error(s) occurred while decoding request: options.targetSQLTableMappings must be an object');
    const maskRule = req.options['maskRule'];
    if (maskRule !== undefined && typeof maskRule !== 'string') return invalid('error(s) occurred while decoding request: options.maskRule must be a string');
    let targets: FilterTarget[];
    if (kind === 'multi') {
      const dialects = req.options['targetDialects'];
      if (!Array.isArray(dialects) || dialects.length === 0 || dialects.some((d) => typeof d !== 'string'))
        return invalid('options.targetDialects must list the targets, such as ["ucast+prisma", "sql+postgresql"]');
      targets = [];
      for (const d of dialects as string[]) {
        const [target, dialect] = d.split('+');
        if ((target !== 'sql' && target !== 'ucast') || dialect === undefined) return invalid(`unknown target/dialect combination: ${d}`);
        targets.push({ target, dialect });
      }
    } else targets = [kind as FilterTarget];
    try {
      const evalStarted = process.hrtime.bigint();
      const filters = compilerFor(set).compile({
        path,
        ...(req.input !== undefined ? { input: req.input } : {}),
        ...(req.unknowns !== undefined ? { unknowns: req.unknowns } : {}),
        targets,
        ...(mappings !== undefined ? { mappings: mappings as Record<string, unknown> } : {}),
        ...(typeof maskRule === 'string' && maskRule !== '' ? { maskRule } : {}),
      });
      const metrics = timersOf(req, evalStarted);
      if (kind !== 'multi') {
        const f = filters[0];
        return json(200, { ...(f === undefined || f.query === null ? {} : { result: f }), ...metrics }, accept);
      }
      const result: Record<string, unknown> = {};
      targets.forEach((t, i) => {
        const f = filters[i];
        const key = t.target === 'ucast' ? 'ucast' : MULTI_KEYS[t.dialect];
        if (key === undefined || (t.target === 'ucast' && key in result)) return;
        if (f !== undefined && f.query !== null) result[key] = f;
      });
      return json(200, { result, ...metrics }, accept);
    } catch (e) {
      return failure(e);
    }
  });

  function partialAnswer(
    set: PolicySet,
    query: string,
    req: { input: Value | undefined; unknowns: string[] | undefined; disableInlining: string[]; timers: boolean; started: bigint },
  ): Response {
    try {
      const evalStarted = process.hrtime.bigint();
      const { queries, support } = compilerFor(set).partial(query, req.input, req.unknowns ?? [], req.disableInlining);
      const modules = support.list();
      const result = {
        ...(queries.length > 0 ? { queries: queries.map((q) => readableVars(bodyJson(q))) } : {}),
        ...(modules.length > 0 ? { support: modules.map(supportModuleJson) } : {}),
      };
      return json(200, { result, ...timersOf(req, evalStarted) });
    } catch (e) {
      // The query itself does not parse or compile: the client's error.
      if (PolicyError.isInstance(e) && /^rego_/.test(e.code)) return invalid(e.message);
      return failure(e);
    }
  }
}
