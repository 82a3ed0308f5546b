/**
 * Generated modules for the compile-time type check (issue 35): builtin calls
 * with literals, typed locals, rule constants, `input` refs and composites as
 * arguments, and refs into object rules and object locals with keys they have
 * and keys they never have, calls with an operand too few or too many, and
 * `with` replacing `input`, a rule or the called function.
 * About half of them carry a type error OPA reports.
 */
import { builtinDecl } from '../../../runtime/policy/compiler/builtin-decls.js';
import { OPA_BUILTIN_DECLS } from '../../../runtime/policy/compiler/builtin-decls-table.js';
import { ANY, type RegoType, STRING } from '../../../runtime/policy/compiler/rego-type.js';
import type { Rng } from './corpus.js';

const SCALARS = ['1', '2.5', '-3', '"a"', '"abc"', '""', 'true', 'false', 'null'];
const OTHERS = [
  'input.a',
  'input.s',
  '[1, 2]',
  '{"k": 1}',
  '{1}',
  '["a"]',
  '{"a": "b"}',
  '{"a"}',
  'r_num',
  'r_str',
  'r_bool',
  'obj',
  'r_two',
  'r_mixed',
  'arr[0]',
  'obj.b.k',
];
/** Values of a local compared with `==` (OPA's match error when no value fits both sides). */
const VALUES = [
  ...SCALARS,
  '[1, 2]',
  '["a"]',
  '{"k": 1}',
  '{1}',
  '[]',
  'input.a',
  'r_num',
  'r_two',
  'r_mixed',
  'obj.b',
  '[y | y := 1]',
  '{y | y := "a"}',
  'count([1])',
  'upper("a")',
];
const CALLS: Array<[string, number]> = [
  ['plus', 2],
  ['minus', 2],
  ['mul', 2],
  ['div', 2],
  ['rem', 2],
  ['upper', 1],
  ['lower', 1],
  ['trim_space', 1],
  ['abs', 1],
  ['round', 1],
  ['startswith', 2],
  ['endswith', 2],
  ['contains', 2],
  ['indexof', 2],
  ['split', 2],
  ['replace', 3],
  ['trim', 2],
  ['count', 1],
  ['sum', 1],
  ['max', 1],
  ['concat', 2],
  ['format_int', 2],
  ['sprintf', 2],
  ['substring', 3],
  ['json.unmarshal', 1],
  ['numbers.range', 2],
  ['regex.match', 2],
  ['semver.compare', 2],
  ['base64.encode', 1],
  ['strings.reverse', 1],
  ['units.parse_bytes', 1],
  ['sort', 1],
  ['product', 1],
  ['floor', 1],
  ['base64.decode', 1],
  ['urlquery.encode', 1],
  ['crypto.sha256', 1],
  ['ceil', 1],
  ['trim_left', 2],
  ['trim_right', 2],
  ['trim_prefix', 2],
  ['trim_suffix', 2],
  ['min', 1],
  ['time.parse_rfc3339_ns', 1],
];
/** Every builtin OPA declares, but those that reach the network, the clock or randomness when evaluated. */
const ALL_CALLS: Array<[string, number]> = OPA_BUILTIN_DECLS.filter(
  ([name]) => !/^(http\.send|net\.lookup_ip_addr|time\.now_ns|rand\.intn|uuid\.rfc4122|opa\.runtime|internal\.)/.test(name),
).map(([name]) => [name, (builtinDecl(name)?.types.length ?? 1) - 1]);
/** The module's functions (see typeModule), whose bodies type their arguments, or not. */
const FUNCTIONS: Array<[string, number]> = [
  ['fn_num', 1],
  ['fn_str', 1],
  ['fn_any', 1],
  ['fn_two', 1],
  ['fn_obj', 1],
  ['fn_pair', 1],
  ['fn_const', 2],
  ['fn_else', 1],
  ['fn_set', 1],
];
/** Uses of a builtin's output `y`: its result type meets another declaration, `==` or a ref. */
const USES = ['upper(y)', 'y == 1', 'y == "a"', 'y == true', 'y == [1]', 'y[0]', 'y.k', 'count(y)', 'y + 1', 'concat(",", y)'];
const KEYS = ['a', 'b', 'k', 'm', 'zz', 'z-z'];

function key(rng: Rng, obj: string): string {
  const k = rng.pick(KEYS);
  return /^[a-z]+$/.test(k) && rng.chance(0.7) ? `${obj}.${k}` : `${obj}[${JSON.stringify(k)}]`;
}

function arg(rng: Rng, locals: string[], literals: number): string {
  if (locals.length > 0 && rng.chance(0.3)) return rng.pick(locals);
  return rng.chance(literals) ? rng.pick(SCALARS) : rng.pick(OTHERS);
}

/** A term of type `t` (OPA's declaration types): a literal, `input.a` where anything goes, or a local of a fitting type. */
function literalOf(rng: Rng, t: RegoType, depth = 0): string {
  switch (t.kind) {
    case 'null':
      return 'null';
    case 'boolean':
      return rng.pick(['true', 'false']);
    case 'number':
      return rng.pick(['1', '2', '0', '3.5']);
    case 'string':
      return rng.pick(['"a"', '"1.2.3"', '""', '"a,b"']);
    case 'array': {
      const items = t.items.map((x) => literalOf(rng, x ?? ANY, depth + 1));
      if (t.of !== undefined && rng.chance(0.5)) items.push(literalOf(rng, t.of, depth + 1));
      return `[${items.join(', ')}]`;
    }
    case 'set':
      return rng.chance(0.3) ? 'set()' : `{${literalOf(rng, t.of ?? ANY, depth + 1)}}`;
    case 'object': {
      const entries = t.props.map(([k, v]) => `${JSON.stringify(k)}: ${literalOf(rng, v ?? ANY, depth + 1)}`);
      if (t.dyn !== undefined && rng.chance(0.5)) {
        const key = t.dyn.key?.kind === 'any' && t.dyn.key.of.length === 0 ? STRING : (t.dyn.key ?? STRING);
        const k = literalOf(rng, key, depth + 1);
        if (!entries.some((e) => e.startsWith(`${k}:`))) entries.push(`${k}: ${literalOf(rng, t.dyn.value ?? ANY, depth + 1)}`);
      }
      return `{${entries.join(', ')}}`;
    }
    case 'any':
      if (t.of.length > 0) return literalOf(rng, rng.pick(t.of), depth);
      return depth > 1 || rng.chance(0.5) ? rng.pick(['input.a', '1', '"a"', 'null']) : rng.pick(['[1]', '{"k": 1}', '{"a"}']);
    default:
      return 'input.a';
  }
}

/** A call of a builtin with arguments of the types OPA declares (OPA compiles it; evaluating may fail), its output used. */
function wellTyped(rng: Rng): string[] {
  const [name] = rng.pick(ALL_CALLS);
  const types = builtinDecl(name)?.types ?? [];
  const args = types.slice(0, -1).map((t) => literalOf(rng, t));
  const lines = [`y := ${name}(${args.join(', ')})`];
  if (rng.chance(0.7)) lines.push(rng.pick(USES));
  return lines;
}

/** One rule body: one or two expressions that may or may not be type errors. */
function body(rng: Rng): string {
  const lines: string[] = [];
  const locals: string[] = [];
  if (rng.chance(0.4)) {
    lines.push(`x := ${rng.pick(SCALARS)}`);
    locals.push('x');
  }
  if (rng.chance(0.25)) {
    lines.push(`c := ${rng.pick(VALUES)}`);
    if (rng.chance(0.5)) locals.push('c');
    else lines.push(rng.chance(0.5) ? `c == ${rng.pick(VALUES)}` : `c[0] == ${rng.pick(SCALARS)}`);
  }
  if (rng.chance(0.15)) {
    lines.push(`l := {"a": 1, "b": {"k": 2}}`);
    lines.push(rng.chance(0.5) ? key(rng, 'l') : key(rng, 'l.b'));
  }
  if (rng.chance(0.2)) return [...lines, ...wellTyped(rng)].map((l) => `\t${l}`).join('\n');
  const [name, n] = rng.pick(rng.pick([CALLS, CALLS, ALL_CALLS, ALL_CALLS, FUNCTIONS]));
  const literals = rng.pick([0, 0.3, 0.8]);
  // One call in ten with an operand too few or too many (OPA's `arity mismatch`, or an argument taken as the output).
  const count = rng.chance(0.1) ? Math.max(0, n + rng.pick([-1, 1, 2])) : n;
  const args = Array.from({ length: count }, () => arg(rng, locals, literals));
  switch (rng.int(4)) {
    case 0:
      lines.push(`${name}(${args.join(', ')})`);
      break;
    case 1:
      lines.push(`y := ${name}(${args.join(', ')})`);
      if (rng.chance(0.6)) lines.push(rng.pick(USES));
      break;
    case 2:
      lines.push(
        args.length === 2 && ['plus', 'minus', 'mul', 'div', 'rem'].includes(name)
          ? `y := ${args[0]} ${{ plus: '+', minus: '-', mul: '*', div: '/', rem: '%' }[name as 'plus']} ${args[1]}`
          : `${name}(${[...args, 'out'].join(', ')})`,
      );
      break;
    default:
      if (rng.chance(0.5)) lines.push(rng.chance(0.5) ? key(rng, 'obj') : key(rng, 'obj.b'));
  }
  // One body in five with a `with` on one of its expressions.
  if (rng.chance(0.2)) {
    const i = rng.int(lines.length);
    lines[i] += ` with ${withClause(rng, name)}`;
  }
  return lines.map((l) => `\t${l}`).join('\n');
}

/** Replacements of a function: builtins and user functions of other arities and argument types, and values. */
const REPLACEMENTS = ['upper', 'count', 'plus', 'concat', 'fn_num', 'fn_any', 'fn_pair', 'fn_const', '1', '"s"'];

/** A `with`: `input` or a rule replaced by a value (a rule is then typed as its own type or the value's), or the called function replaced. */
function withClause(rng: Rng, called: string): string {
  switch (rng.int(3)) {
    case 0:
      return `input as ${rng.pick(VALUES)}`;
    case 1:
      return `data.p.${rng.pick(['r_num', 'r_str', 'obj', 'r_two', 'arr'])} as ${rng.pick(VALUES)}`;
    default:
      // `contains` is a keyword too: `with contains as` is a parse error (worded apart from OPA's, not the type check's).
      return `${called === 'contains' ? 'upper' : called} as ${rng.pick(REPLACEMENTS)}`;
  }
}

/**
 * A module of one or two rules over constants `r_num`, `r_str`, `r_bool`, the object rule `obj`, the array rule
 * `arr`, rules of several definitions (`r_two`: numbers, `r_mixed`: a number or a string) and functions whose
 * bodies type their arguments (`fn_num`: a number, `fn_pair`: an array of two numbers) or leave them `any`
 * (`fn_set`: its value, with a call, typed after its argument is `any`).
 */
export function typeModule(rng: Rng): string {
  const rules = Array.from({ length: rng.int(2) + 1 }, (_, i) => `q${i} if {\n${body(rng)}\n}`);
  // fn_set only where called: main's checker before issue 35's refused every module that had it (a false refusal).
  const fnSet = rules.some((r) => r.includes('fn_set(')) ? '\nfn_set(l) := {{"l": l, "r": concat("", ["a"])}}\n' : '';
  return `package p

r_num := 1
r_str := "s"
r_bool := true
obj := {"a": 1, "b": {"k": 2}}
arr := [1, "a"]
r_two := 1 if input.x
r_two := 2 if input.y
default r_mixed := "s"
r_mixed := 1 if input.x

fn_num(x) := y if y := x + 1
fn_str(x) := upper(x)
fn_any(x) := [x]
fn_two(x) := 1 if x == 1
fn_two(x) := "s" if x == "a"
fn_obj(o) := o.a
fn_pair([a, b]) := a + b
fn_const(x, "k") := x
fn_else(x) := 1 if x > 1 else := "s"
${fnSet}
${rules.join('\n\n')}
`;
}
