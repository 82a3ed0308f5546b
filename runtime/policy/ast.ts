/**
 * Rego abstract syntax tree. Shapes follow OPA's `ast` package: a body is a
 * list of expressions; an expression is a term, a call (`eq`/`assign` for
 * `=`/`:=`, `equal`, `plus`, ... for operators), a `some` declaration or an
 * `every`; every node carries its source location.
 */
import type { RegoDecimal } from './decimal.js';
import type { SourceLocation } from './errors.js';

export type Loc = SourceLocation;

export interface StringTerm {
  type: 'string';
  value: string;
  loc: Loc;
}

export type Term =
  | { type: 'null'; loc: Loc }
  | { type: 'boolean'; value: boolean; loc: Loc }
  | { type: 'number'; value: number | bigint | RegoDecimal; loc: Loc }
  | StringTerm
  | VarTerm
  | RefTerm
  | { type: 'array'; items: Term[]; loc: Loc }
  | { type: 'object'; entries: Array<[Term, Term]>; loc: Loc }
  | { type: 'set'; items: Term[]; loc: Loc }
  | { type: 'arraycomp'; term: Term; body: Body; loc: Loc }
  | { type: 'setcomp'; term: Term; body: Body; loc: Loc }
  | { type: 'objectcomp'; key: Term; value: Term; body: Body; loc: Loc }
  | CallTerm;

export interface VarTerm {
  type: 'var';
  name: string;
  loc: Loc;
}

/** `head.a[b]...`: `terms[0]` is the head (a var, a composite, a call); the rest are operands. */
export interface RefTerm {
  type: 'ref';
  terms: Term[];
  loc: Loc;
  /** Written as a zero-argument call `f()` of a rule, which reads the rule (OPA: when the rule's type is `any`). */
  zeroArgCall?: true;
}

/** A call in term position, `f(x)`; `op` is the function reference (a ref term). */
export interface CallTerm {
  type: 'call';
  op: RefTerm;
  args: Term[];
  loc: Loc;
  /** Set on the `internal.template_string` call a template string lowers to: its source form, for `rego.parse_module`. */
  template?: TemplateSource;
}

/** A template string as written: literal parts and expressions; `multiLine` for the backtick form. */
export interface TemplateSource {
  multiLine: boolean;
  parts: Array<StringTerm | Expr>;
}

export type ScalarTerm = Extract<Term, { type: 'null' | 'boolean' | 'number' | 'string' }>;

export interface With {
  target: Term;
  value: Term;
  loc: Loc;
}

interface ExprBase {
  loc: Loc;
  negated: boolean;
  with: With[];
  /** Set on expressions the compiler generated (rewrites). */
  generated?: boolean;
}

export interface TermExpr extends ExprBase {
  kind: 'term';
  term: Term;
}

/** A call expression: `op(args)` or `op(args..., output)`; also `=` (eq) and `:=` (assign). */
export interface CallExpr extends ExprBase {
  kind: 'call';
  op: RefTerm;
  args: Term[];
}

/** `some x, y` (vars) or `some x in xs` / `some k, v in xs` (a member call). */
export interface SomeExpr extends ExprBase {
  kind: 'some';
  vars: VarTerm[];
  /** For `some ... in ...`: the key pattern (member_3 only), value pattern and domain. */
  inKey?: Term;
  inValue?: Term;
  inDomain?: Term;
}

export interface EveryExpr extends ExprBase {
  kind: 'every';
  key?: Term;
  value: Term;
  domain: Term;
  body: Body;
}

/** `not { ... }` (future.keywords.not) and negated expressions whose support expressions must stay negated. */
export interface NotBodyExpr extends ExprBase {
  kind: 'notbody';
  body: Body;
  /**
   * Set when this expression was written `lhs or rhs` (future.keywords.or): it
   * then evaluates as `not { not { lhs }; not { rhs } }`, which is OPA's
   * semantics (true once when either operand holds, no bindings leave an
   * operand). The operands are kept for the formatter and `rego.parse_module`.
   */
  or?: OrOperands;
}

/** The operands of `lhs or rhs`; `explicit*` when the operand was written as a `{ ... }` block. */
export interface OrOperands {
  lhs: Body;
  rhs: Body;
  explicitLhs: boolean;
  explicitRhs: boolean;
}

export type Expr = TermExpr | CallExpr | SomeExpr | EveryExpr | NotBodyExpr;
export type Body = Expr[];

export interface Head {
  /** Rule reference: a var followed by operands (`p`, `a.b[x]`). Relative to the package. */
  ref: Term[];
  args?: Term[];
  /** `contains` key of a multi-value rule. */
  key?: Term;
  /** Value; absent for multi-value rules. Defaults to `true` when not written. */
  value?: Term;
  /** The value is that default `true`, not written (`rego.parse_module` shows such heads as OPA does). */
  generatedValue?: boolean;
  assign: boolean;
  loc: Loc;
}

export interface Rule {
  default: boolean;
  head: Head;
  body: Body;
  /** Next `else` branch. Its head shares ref/args with this rule. */
  else?: Rule;
  loc: Loc;
  module: Module;
}

export interface Import {
  path: RefTerm;
  alias?: string;
  loc: Loc;
}

export interface Package {
  /** `data` followed by string operands. */
  path: RefTerm;
  loc: Loc;
}

export interface Module {
  file: string;
  package: Package;
  imports: Import[];
  rules: Rule[];
  /** `import rego.v2`: `not { body }` allowed. */
  regoV2: boolean;
  /** `import future.keywords.or` (or `future.keywords`): `a or b` expressions allowed. */
  orKeyword?: boolean;
  /** `import future.keywords.not` or rego.v2: negation keeps nested calls inside the negation. */
  notKeyword: boolean;
}

export function refToString(ref: RefTerm | Term[]): string {
  const terms = Array.isArray(ref) ? ref : ref.terms;
  let out = '';
  terms.forEach((t, i) => {
    if (i === 0) out += t.type === 'var' ? t.name : termToString(t);
    else if (t.type === 'string' && /^[A-Za-z_][A-Za-z0-9_]*$/.test(t.value)) out += '.' + t.value;
    else out += '[' + termToString(t) + ']';
  });
  return out;
}

export function termToString(t: Term): string {
  switch (t.type) {
    case 'null':
      return 'null';
    case 'boolean':
      return String(t.value);
    case 'number':
      return String(t.value);
    case 'string':
      return JSON.stringify(t.value);
    case 'var':
      return t.name;
    case 'ref':
      return refToString(t);
    case 'array':
      return '[' + t.items.map(termToString).join(', ') + ']';
    case 'set':
      return t.items.length === 0 ? 'set()' : '{' + t.items.map(termToString).join(', ') + '}';
    case 'object':
      return '{' + t.entries.map(([k, v]) => termToString(k) + ': ' + termToString(v)).join(', ') + '}';
    case 'arraycomp':
      return '[' + termToString(t.term) + ' | ...]';
    case 'setcomp':
      return '{' + termToString(t.term) + ' | ...}';
    case 'objectcomp':
      return '{' + termToString(t.key) + ': ' + termToString(t.value) + ' | ...}';
    case 'call':
      return refToString(t.op) + '(' + t.args.map(termToString).join(', ') + ')';
  }
}

/** The dotted name of a ref whose operands are all strings (`array.concat`), else undefined. */
export function refName(ref: RefTerm): string | undefined {
  const head = ref.terms[0];
  if (head === undefined || head.type !== 'var') return undefined;
  let name = head.name;
  for (let i = 1; i < ref.terms.length; i++) {
    const t = ref.terms[i] as Term;
    if (t.type !== 'string') return undefined;
    name += '.' + t.value;
  }
  return name;
}

export function mkVar(name: string, loc: Loc): VarTerm {
  return { type: 'var', name, loc };
}

export function mkRef(terms: Term[], loc: Loc): RefTerm {
  return { type: 'ref', terms, loc };
}

/** A ref naming an operator/builtin, e.g. `eq`, `array.concat`. */
export function opRef(name: string, loc: Loc): RefTerm {
  const parts = name.split('.');
  const terms: Term[] = [mkVar(parts[0] as string, loc)];
  for (let i = 1; i < parts.length; i++) terms.push({ type: 'string', value: parts[i] as string, loc });
  return mkRef(terms, loc);
}

export function isScalarTerm(t: Term): t is ScalarTerm {
  return t.type === 'null' || t.type === 'boolean' || t.type === 'number' || t.type === 'string';
}
