import { compilePolicy, type QueryOptions } from '../../runtime/policy/engine.js';
import { toJS } from '../../runtime/policy/value-json.js';

/** Compiles one module and runs a query; returns JSON-like bindings. */
export function run(source: string, query: string, options: QueryOptions & { data?: unknown } = {}): Array<Record<string, unknown>> {
  const policy = compilePolicy({ modules: { 'policy.rego': source }, data: options.data });
  return policy.query(query, options).map((b) => Object.fromEntries(Object.entries(b).map(([k, v]) => [k, toJS(v)])));
}

/** The value of `data.<pkg>.<rule>` as JSON-like JS (undefined when undefined). */
export function value(source: string, path: string, input?: unknown, data?: unknown): unknown {
  const policy = compilePolicy({ modules: { 'policy.rego': source }, data });
  const v = policy.evaluate(path, input);
  return v === undefined ? undefined : toJS(v);
}

/** The error thrown while compiling or evaluating, or undefined. */
export function errorOf(f: () => unknown): { code: string; message: string } | undefined {
  try {
    f();
    return undefined;
  } catch (e) {
    const err = e as { code?: string; message: string };
    return { code: err.code ?? 'unknown', message: err.message };
  }
}
