/**
 * Rego text from OPA's AST JSON (the `/v1/compile` answer), as a client that
 * evaluates a residual does: each query becomes a body of `package residual`'s
 * rule `q`, each support module a module of its own. Calls are written as
 * calls with their output argument (`plus(a, 1, x)`), which Rego accepts.
 */
type J = any;

function key(t: J): string {
  return t.type === 'string' && /^[A-Za-z_][A-Za-z0-9_]*$/.test(t.value) ? `.${t.value}` : `[${term(t)}]`;
}

export function term(t: J): string {
  switch (t.type) {
    case 'null':
      return 'null';
    case 'boolean':
    case 'number':
      return String(t.value);
    case 'string':
      return JSON.stringify(t.value);
    case 'var':
      return t.value;
    case 'ref': {
      const [head, ...rest] = t.value;
      return (head.type === 'var' ? head.value : term(head)) + rest.map(key).join('');
    }
    case 'array':
      return `[${t.value.map(term).join(', ')}]`;
    case 'set':
      return t.value.length === 0 ? 'set()' : `{${t.value.map(term).join(', ')}}`;
    case 'object':
      return `{${t.value.map(([k, v]: [J, J]) => `${term(k)}: ${term(v)}`).join(', ')}}`;
    case 'call':
      return `${term(t.value[0])}(${t.value.slice(1).map(term).join(', ')})`;
    case 'arraycomprehension':
      return `[${term(t.value.term)} | ${body(t.value.body)}]`;
    case 'setcomprehension':
      return `{${term(t.value.term)} | ${body(t.value.body)}}`;
    case 'objectcomprehension':
      return `{${term(t.value.key)}: ${term(t.value.value)} | ${body(t.value.body)}}`;
    default:
      throw new Error(`no Rego text for a term of type ${t.type}`);
  }
}

function expr(e: J): string {
  const text = Array.isArray(e.terms) ? `${term(e.terms[0])}(${e.terms.slice(1).map(term).join(', ')})` : term(e.terms);
  const withs = (e.with ?? []).map((w: J) => ` with ${term(w.target)} as ${term(w.value)}`).join('');
  return `${e.negated ? 'not ' : ''}${text}${withs}`;
}

export function body(b: J[]): string {
  return b.map(expr).join('; ');
}

function rule(r: J): string {
  const [name, ...rest] = r.head.ref;
  const head = name.value + rest.map((t: J) => `[${term(t)}]`).join('') + (r.head.args ? `(${r.head.args.map(term).join(', ')})` : '');
  if (r.default) return `default ${head} := ${term(r.head.value)}`;
  const value = r.head.value === undefined ? ` contains ${term(r.head.key)}` : `${r.head.key ? `[${term(r.head.key)}]` : ''} = ${term(r.head.value)}`;
  return `${head}${value} if { ${body(r.body)} }${r.else ? elseText(r.else) : ''}`;
}

function elseText(r: J): string {
  return ` else = ${term(r.head.value)} if { ${body(r.body)} }${r.else ? elseText(r.else) : ''}`;
}

/** A support module's text. */
export function moduleText(m: J): string {
  const [, ...pkg] = m.package.path;
  return `package ${pkg.map((t: J) => t.value).join('.')}\n\n${m.rules.map(rule).join('\n')}\n`;
}

/** The residual queries as `package residual`'s rule `q` (no query: `q` is never defined). */
export function residualText(queries: J[][] | undefined): string {
  return `package residual\n\n${(queries ?? []).map((q) => `q if { ${body(q)} }`).join('\n')}\n`;
}
