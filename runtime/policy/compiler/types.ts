/**
 * OPA's compile-time type checker (`v1/ast/check.go`), the part whose answer
 * is certain. A body is typed as OPA types it, expression by expression in
 * the order safety left them: a var takes the type of its first binding, `=`
 * of two typed sides that no value can satisfy is OPA's "match error", a
 * builtin argument whose type the builtin does not take is "invalid
 * argument(s)", and a ref into a composite with a key it never has is
 * "undefined ref". Literals, composites, locals, `input` (typed `any`, as
 * OPA types it without a schema), rules (the union of their definitions'
 * value types), every builtin OPA declares and user functions (their
 * arguments as their bodies type them) are typed, under `with` as well (see
 * `with-types.ts`); see `type-infer.ts`.
 *
 * The safety rule: nothing OPA accepts is refused. Where our inference is not
 * certain of OPA's type (a function with a type error, a `with` replacing
 * what it cannot type, `some ... in`, `every`) the vars it binds are
 * typed {@link UNKNOWN}, which fits everything and silences any check it
 * reaches.
 */
import { type Body, type Expr, type RefTerm, refToString, type Rule, type Term } from '../ast.js';
import { PolicyError } from '../errors.js';
import { builtinDecl } from './builtin-decls.js';
import { printable, printType, type RegoType } from './rego-type.js';
import { BodyTyper, type Finding, type RefProblem, type RuleTypes } from './type-infer.js';

/**
 * Whether a builtin's result type is `any` in OPA's declaration (`json.unmarshal`, `max`), or not (`upper`:
 * string); undefined for a builtin not covered.
 */
export function builtinResultIsAny(name: string): boolean | undefined {
  const want = builtinDecl(name)?.want;
  return want === undefined ? undefined : want.endsWith(': any)');
}

/** OPA's text of a ref (`data.p.labels.zz`, `l["z-z"]`), and where each operand's text starts; undefined when not certain. */
/** How error texts print generated vars: `_` for the wildcards, OPA's `__local<N>__` for the locals it would generate. */
export interface PrintNames {
  readonly wildcards: ReadonlySet<string>;
  readonly opaNames: ReadonlyMap<string, string>;
}

const NO_NAMES: PrintNames = { wildcards: new Set(), opaNames: new Map() };

function refText(ref: RefTerm, headName: string, names: PrintNames = NO_NAMES, generated = false): { text: string; starts: number[] } | undefined {
  const wildcards = names.wildcards;
  let text = headName;
  const starts = [0];
  for (const t of ref.terms.slice(1)) {
    starts.push(text.length + 1);
    if (t.type === 'string' && isIdent(t.value)) text += '.' + t.value;
    else if (t.type === 'string' && /^[\x20-\x7e]*$/.test(t.value) && !/["\\]/.test(t.value)) text += `["${t.value}"]`;
    else if (t.type === 'number' && typeof t.value === 'number' && Number.isInteger(t.value)) text += `[${t.value}]`;
    else if (t.type === 'var' && wildcards.has(t.name)) text += '[_]';
    else if (t.type === 'var' && names.opaNames.has(t.name)) text += `[${names.opaNames.get(t.name) as string}]`;
    else if (t.type === 'var' && (generated || !written(t.name).includes('$'))) text += `[${written(t.name)}]`;
    else return undefined;
  }
  starts.push(text.length + 1);
  return { text, starts };
}

const KEYWORDS = new Set(['as', 'default', 'else', 'import', 'not', 'package', 'some', 'with', 'if', 'contains', 'in', 'every', 'true', 'false', 'null']);

function isIdent(s: string): boolean {
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(s) && !KEYWORDS.has(s);
}

/** A local's name as written (`l$3` → `l`). */
function written(name: string): string {
  const i = name.indexOf('$');
  return i > 0 ? name.slice(0, i) : name;
}

/**
 * OPA's error for a function named without a call (`x := data.p.f`, `data.p.f.x`): the function is the ref up to
 * the last operand when that is a local OPA generated (`data.p.f[__local1__]` of `some x in data.p.f`), else the
 * whole ref (a `_` stays in it); the name underlined. The detail line prints such a local by OPA's name for it
 * (`__local1__`, numbered as OPA's rewriteLocalVars numbers its locals).
 */
function functionRefError(p: Extract<RefProblem, { kind: 'function' }>, names: PrintNames): PolicyError {
  const printed = refText(p.ref, 'data', names) ?? refText(p.ref, 'data', names, true);
  const text = printed?.text ?? refToString(p.ref);
  const last = p.ref.terms[p.ref.terms.length - 1];
  const local = p.ref.terms.length - 1 > p.at && last?.type === 'var' && written(last.name).includes('$') && !names.wildcards.has(last.name);
  const name = local && printed !== undefined ? text.slice(0, (printed.starts[p.ref.terms.length - 1] as number) - 1) : text;
  const carets = printed !== undefined ? (printed.starts[p.at + 1] as number) - 1 : refToString({ ...p.ref, terms: p.ref.terms.slice(0, p.at + 1) }).length;
  return new PolicyError({
    code: 'rego_type_error',
    detail: `function ${name} used as reference, not called\n\t${text}\n\t${'^'.repeat(carets)}\n\thave: ${printType(printable(p.have))}`,
    location: p.ref.loc,
  });
}

/** OPA's `undefined ref` error for a problem the ref check found; undefined when its text is not certain. */
function refError(p: RefProblem, names: PrintNames): PolicyError | undefined {
  if (p.kind === 'function') return functionRefError(p, names);
  const head = p.ref.terms[0];
  if (head?.type !== 'var') return undefined;
  // A local OPA generates (the key of `some x in xs`) is printed by OPA's name for it (`__local0__`); a call OPA keeps
  // as a ref's head (`div(1, 0)[__local0__]`) is printed by our name for the temp holding its value (`$t2`).
  const headName = head.name === 'data' ? 'data' : written(head.name);
  const printed = refText(p.ref, headName, names) ?? refText(p.ref, headName, names, true);
  if (printed === undefined) return undefined;
  const lines = [printed.text];
  if (p.kind === 'unsupported') {
    // The ref up to the operand that reads into a scalar, underlined.
    lines.push('^'.repeat((printed.starts[p.at] as number) - 1), `have: ${printType(p.have)}`);
  } else {
    const pad = ' '.repeat(printed.starts[p.at] as number);
    lines.push(`${pad}^`);
    if (p.haveType !== undefined) lines.push(`${pad}have (type): ${printType(p.haveType)}`);
    else {
      const key = p.ref.terms[p.at] as Term;
      if (key.type === 'string') lines.push(`${pad}have: ${JSON.stringify(key.value)}`);
      else if (key.type === 'number') lines.push(`${pad}have: ${String(key.value)}`);
      else return undefined;
    }
    lines.push(p.oneOf.length > 0 ? `${pad}want (one of): [${p.oneOf.map((k) => JSON.stringify(k)).join(' ')}]` : `${pad}want (type): ${printType(p.want)}`);
  }
  if (lines.some((l) => /[^\x20-\x7e\t]/.test(l))) return undefined;
  return new PolicyError({ code: 'rego_type_error', detail: `undefined ref: ${printed.text}\n\t${lines.join('\n\t')}`, location: p.ref.loc });
}

function argError(name: string, want: string, have: Array<RegoType | undefined>, e: Expr): PolicyError {
  return new PolicyError({
    code: 'rego_type_error',
    detail: `${name}: invalid argument(s)\n\thave: (${have.map(printType).join(', ')})\n\twant: ${want}`,
    location: e.loc,
  });
}

function matchError(left: RegoType | undefined, right: RegoType | undefined, e: Expr): PolicyError {
  return new PolicyError({ code: 'rego_type_error', detail: `match error\n\tleft  : ${printType(left)}\n\tright : ${printType(right)}`, location: e.loc });
}

function findingError(f: Finding, names: PrintNames): PolicyError | undefined {
  switch (f.kind) {
    case 'ref':
      return refError(f.problem, names);
    case 'args':
      return argError(f.name, f.want, f.have, f.expr);
    case 'match':
      return matchError(f.left, f.right, f.expr);
    case 'undefined-function':
      return new PolicyError({ code: 'rego_type_error', detail: `undefined function ${f.name}`, location: f.expr.loc });
    case 'with':
      return new PolicyError({
        code: 'rego_type_error',
        detail: `${f.name}: arity mismatch\n\thave: (${f.have.map(printType).join(', ')})\n\twant: ${f.want}`,
        location: f.loc,
      });
  }
}

/** OPA's certain type errors in compiled rules (see the file's comment for what is covered). */
export function checkTypes(rules: readonly Rule[], ruleTypes: RuleTypes, errors: PolicyError[], names: PrintNames = NO_NAMES): void {
  for (const r of rules) {
    for (let b: Rule | undefined = r; b !== undefined; b = b.else) {
      for (const f of ruleTypes.check(b)) {
        const err = findingError(f, names);
        if (err !== undefined) errors.push(err);
      }
    }
  }
}

/**
 * OPA's certain type errors in a query, typed against the compiled rules as OPA's query compiler types it: `==` left
 * the builtin `equal` (a query has no RewriteEquals stage, so `x == "a"` is no match error; see rewriteDynamics), and
 * with the output OPA's rego package adds to a call written with no output (`upper(x)` is `upper(x, $c)`, capturing
 * its value), which an argument error then lists as `???`.
 */
export function checkQueryTypes(body: Body, ruleTypes: RuleTypes, errors: PolicyError[], names: PrintNames = NO_NAMES): void {
  const typer = new BodyTyper(ruleTypes);
  typer.body(body);
  const top = new Set<Expr>(body);
  for (const f of typer.findings) {
    const captured = f.kind === 'args' && top.has(f.expr) && f.expr.kind === 'call' && f.expr.generated !== true && f.have.length === f.arity;
    const err = findingError(captured ? { ...f, have: [...f.have, undefined] } : f, names);
    if (err !== undefined) errors.push(err);
  }
}
