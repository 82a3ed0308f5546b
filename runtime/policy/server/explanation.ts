/**
 * The `explanation` field of OPA's Data and Query API answers (`types.TraceV1`):
 * under `?pretty` the lines of OPA's PrettyTraceWithLocation, otherwise the
 * events as `{op, query_id, parent_id, type, node, locals, message}` with
 * `op` in lower case, `node` the rule, body or expression as AST JSON (`null`
 * with `type` "" on Note events) and `locals` the bindings as `{key, value}` terms.
 */
import { type ExplainMode, explainEvents, isExplainMode } from '../trace/lineage.js';
import { prettyTrace } from '../trace/pretty-trace.js';
import type { TraceEvent, TraceNode } from '../trace/trace-event.js';
import { JsonNumber } from '../../core/json-text.js';
import { RegoDecimal } from '../decimal.js';
import { RegoSet, type Value } from '../value.js';
import { bodyJson, exprJson, ruleJson } from './opa-ast.js';

/**
 * The explain mode of a request, as OPA's `getExplain`: the first of the
 * `explain` values that is `notes`, `fails`, `full` or `debug`; any other
 * value (`off`, a typo) means no explanation, as in OPA (not an error).
 */
export function explainParameter(values: readonly string[] | undefined): ExplainMode | undefined {
  return (values ?? []).find(isExplainMode);
}

/** The explanation as JSON-ready data. */
export function explanationJson(options: { events: readonly TraceEvent[]; mode: ExplainMode; pretty: boolean }): unknown[] {
  const shown = explainEvents({ events: options.events, mode: options.mode });
  if (options.pretty) return shown.length === 0 ? [''] : prettyTrace(shown);
  return shown.map((e) => ({
    op: e.op.toLowerCase(),
    query_id: e.queryId,
    parent_id: e.parentId,
    type: e.node?.type ?? '',
    node: e.node === undefined ? null : nodeJson(e.node),
    locals: (e.locals ?? []).map(([k, v]) => ({ key: { type: 'var', value: k }, value: valueTerm(v) })),
    ...(e.message ? { message: e.message } : {}),
  }));
}

/** A trace node as OPA AST JSON: a rule, a body (its expressions) or an expression. */
export function nodeJson(node: TraceNode): unknown {
  switch (node.type) {
    case 'rule':
      return ruleJson(node.rule);
    case 'body':
      return bodyJson(node.body);
    case 'expr':
      return exprJson(node.expr, 0);
  }
}

/** A value as an OPA AST term (`{"type": "string", "value": "x"}`). */
export function valueTerm(v: Value): unknown {
  if (v === null) return { type: 'null' };
  switch (typeof v) {
    case 'boolean':
      return { type: 'boolean', value: v };
    case 'string':
      return { type: 'string', value: v };
    case 'number':
      return { type: 'number', value: v };
    case 'bigint':
      return { type: 'number', value: new JsonNumber(v.toString()) };
  }
  // Exact, as OPA keeps it, when written by stringifyJson.
  if (v instanceof RegoDecimal) return { type: 'number', value: new JsonNumber(v.toString()) };
  if (Array.isArray(v)) return { type: 'array', value: v.map(valueTerm) };
  if (v instanceof RegoSet) return { type: 'set', value: v.values().map(valueTerm) };
  return { type: 'object', value: v.entries().map(([k, x]) => [valueTerm(k), valueTerm(x)]) };
}
