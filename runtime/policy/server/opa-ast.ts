/**
 * A module's syntax tree in the JSON shape OPA gives in the `ast` field of
 * `GET /v1/policies`: `package`, `imports`, `rules` with `head` and `body`,
 * terms as `{type, value}`, expressions as `{index, terms}`. Built from our
 * parser's tree, so it is the module as written (OPA shows it after its own
 * rewriting and adds `location` fields, which are left out here).
 */
import type { Body, Expr, Module, Rule, Term } from '../ast.js';
import { parseModule } from '../parser.js';
import { JsonNumber } from '../../core/json-text.js';

type Json = Record<string, unknown>;

const cache = new Map<string, Json | undefined>();

/** The module's AST, or undefined when it does not parse (it could not be served then). */
export function moduleAst(file: string, source: string): Json | undefined {
  const key = `${file}\u0000${source}`;
  if (cache.has(key)) return cache.get(key);
  let ast: Json | undefined;
  try {
    ast = moduleJson(parseModule(source, file));
  } catch {
    ast = undefined;
  }
  if (cache.size > 1000) cache.clear();
  cache.set(key, ast);
  return ast;
}

export function moduleJson(m: Module): Json {
  return {
    package: { path: termJson(m.package.path).value },
    ...(m.imports.length > 0 ? { imports: m.imports.map((i) => ({ path: termJson(i.path), ...(i.alias ? { alias: i.alias } : {}) })) } : {}),
    rules: m.rules.map(ruleJson),
  };
}

export function ruleJson(r: Rule): Json {
  const ref = r.head.ref.map(termJson);
  const first = r.head.ref[0];
  const head: Json = {
    ...(first?.type === 'var' && r.head.ref.length === 1 ? { name: first.name } : {}),
    ref,
    ...(r.head.args ? { args: r.head.args.map(termJson) } : {}),
    ...(r.head.key ? { key: termJson(r.head.key) } : {}),
    ...(r.head.value ? { value: termJson(r.head.value) } : r.head.key ? {} : { value: { type: 'boolean', value: true } }),
    ...(r.head.assign ? { assign: true } : {}),
  };
  return {
    ...(r.default ? { default: true } : {}),
    head,
    body: r.body.length === 0 ? [{ index: 0, terms: { type: 'boolean', value: true } }] : bodyJson(r.body),
    ...(r.else ? { else: ruleJson(r.else) } : {}),
  };
}

export function bodyJson(b: Body): Json[] {
  return b.map((e, index) => exprJson(e, index));
}

export function exprJson(e: Expr, index: number): Json {
  let terms: unknown;
  switch (e.kind) {
    case 'term':
      terms = termJson(e.term);
      break;
    case 'call':
      terms = [termJson(e.op), ...e.args.map(termJson)];
      break;
    case 'some':
      terms = {
        type: 'somedecl',
        value: e.inDomain
          ? [
              {
                type: 'call',
                value: [
                  {
                    type: 'ref',
                    value: [
                      { type: 'var', value: 'internal' },
                      { type: 'string', value: 'member_' + (e.inKey ? '3' : '2') },
                    ],
                  },
                  ...(e.inKey ? [termJson(e.inKey)] : []),
                  termJson(e.inValue as Term),
                  termJson(e.inDomain),
                ],
              },
            ]
          : e.vars.map(termJson),
      };
      break;
    case 'every':
      terms = {
        type: 'every',
        value: { ...(e.key ? { key: termJson(e.key) } : {}), value: termJson(e.value), domain: termJson(e.domain), body: bodyJson(e.body) },
      };
      break;
    case 'notbody':
      terms = { type: 'not', value: bodyJson(e.body) };
      break;
  }
  return {
    index,
    ...(e.negated ? { negated: true } : {}),
    ...(e.with.length > 0 ? { with: e.with.map((w) => ({ target: termJson(w.target), value: termJson(w.value) })) } : {}),
    terms,
  };
}

export function termJson(t: Term): Json {
  switch (t.type) {
    case 'null':
      return { type: 'null' };
    case 'boolean':
    case 'string':
      return { type: t.type, value: t.value };
    case 'number':
      // Exact (the literal's text), as OPA keeps it, when written by stringifyJson.
      return { type: 'number', value: typeof t.value === 'number' ? t.value : new JsonNumber(t.value.toString()) };
    case 'var':
      return { type: 'var', value: t.name };
    case 'ref':
      return { type: 'ref', value: t.terms.map(termJson) };
    case 'array':
    case 'set':
      return { type: t.type, value: t.items.map(termJson) };
    case 'object':
      return { type: 'object', value: t.entries.map(([k, v]) => [termJson(k), termJson(v)]) };
    case 'arraycomp':
      return { type: 'arraycomprehension', value: { term: termJson(t.term), body: bodyJson(t.body) } };
    case 'setcomp':
      return { type: 'setcomprehension', value: { term: termJson(t.term), body: bodyJson(t.body) } };
    case 'objectcomp':
      return { type: 'objectcomprehension', value: { key: termJson(t.key), value: termJson(t.value), body: bodyJson(t.body) } };
    case 'call':
      return { type: 'call', value: [termJson(t.op), ...t.args.map(termJson)] };
  }
}
