/**
 * The differential test's corpus: policy templates (each one package `p`
 * unless it is one of the repository's own policies) and a seeded generator
 * of inputs written as JSON text, so number text such as `1e400`, `1e3` or
 * `123456789012345678901234567890` reaches both engines as written.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface Template {
  name: string;
  modules: Array<[file: string, source: string]>;
  /** Base data as JSON text. */
  data?: string;
  /** Documents to query, e.g. `data.p.allow`. */
  rules: string[];
  /** Inputs for this template (JSON text); default: the generic generator. */
  inputs?: (rng: Rng) => string;
  /** Two errors agree only when OPA's message is ours word for word (e.g. go-yaml's texts); default: any two errors agree. */
  exactErrors?: boolean;
  /** Two errors agree when either is a compile error (`rego_*`) only when worded alike, location included. */
  exactCompileErrors?: boolean;
}

/** Mulberry32: small, fast, seeded. */
export class Rng {
  constructor(private s: number) {}
  next(): number {
    this.s = (this.s + 0x6d2b79f5) | 0;
    let t = this.s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  int(n: number): number {
    return Math.floor(this.next() * n);
  }
  pick<T>(xs: readonly T[]): T {
    return xs[this.int(xs.length)] as T;
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
}

/** Number literals as JSON text: small, negative, fractions, huge, beyond a double, exponent forms. */
export const NUMBERS = [
  '0',
  '1',
  '-1',
  '2',
  '3',
  '7',
  '10',
  '100',
  '65535',
  '-7',
  '2.5',
  '-0.5',
  '0.1',
  '0.2',
  '0.3',
  '1.5',
  '3.14159',
  '1e3',
  '1E2',
  '1.0',
  '1.10',
  '2e0',
  '1e-7',
  '0.000001',
  '1.5e300',
  '1e308',
  '1e400',
  '-1e400',
  '2e-400',
  '123456789012345678901234567890',
  '9007199254740993',
  '-9007199254740993',
  '0.1234567890123456789',
  '4.35',
  '1e21',
  '12345.678',
];

export const STRINGS = [
  '',
  'a',
  'abc',
  'Hello World',
  'ß',
  'İstanbul',
  'ǅ',
  'ﬀ',
  'ΣΑΣ',
  'straße',
  '日本語',
  '😀x',
  'a,b,c',
  ' padded ',
  'admin',
  'orchestrator',
  'planner',
  'executor',
  'semantic-layer',
  'untrusted',
  'database',
  'trade',
  'place_trade',
  '%v',
  'foo.bar',
  '/a/b',
  'é',
  'e\u0301',
  'ǈ',
  'ı',
  'K',
  'Å',
  '123',
  '-4.5',
  '1e3',
  'true',
  'x y  z',
  'tab\there',
  'line\nbreak',
  'quote"s',
];

function str(rng: Rng): string {
  return JSON.stringify(rng.pick(STRINGS));
}

function scalar(rng: Rng): string {
  const r = rng.int(10);
  if (r < 4) return rng.pick(NUMBERS);
  if (r < 8) return str(rng);
  if (r < 9) return rng.chance(0.5) ? 'true' : 'false';
  return 'null';
}

function value(rng: Rng, depth: number): string {
  if (depth <= 0 || rng.chance(0.6)) return scalar(rng);
  if (rng.chance(0.5)) return array(rng, depth - 1, () => value(rng, depth - 1));
  return object(rng, depth - 1);
}

function array(rng: Rng, _depth: number, el: () => string): string {
  const n = rng.int(5);
  const out: string[] = [];
  for (let i = 0; i < n; i++) out.push(el());
  return `[${out.join(',')}]`;
}

const KEYS = ['a', 'b', 'k', 'name', 'role', 'x', 'ß', '1', 'é', ''];

function object(rng: Rng, depth: number): string {
  const n = rng.int(4);
  const out: string[] = [];
  const seen = new Set<string>();
  for (let i = 0; i < n; i++) {
    const k = rng.pick(KEYS);
    if (seen.has(k)) continue;
    seen.add(k);
    out.push(`${JSON.stringify(k)}:${value(rng, depth)}`);
  }
  return `{${out.join(',')}}`;
}

function numOrOther(rng: Rng): string {
  return rng.chance(0.85) ? rng.pick(NUMBERS) : scalar(rng);
}

function strOrOther(rng: Rng): string {
  return rng.chance(0.85) ? str(rng) : scalar(rng);
}

/** The generic input: fields the templates read, sometimes missing or of another type. */
export function genericInput(rng: Rng): string {
  const fields: Array<[string, () => string]> = [
    ['a', () => numOrOther(rng)],
    ['b', () => numOrOther(rng)],
    ['n', () => (rng.chance(0.8) ? rng.pick(['0', '1', '2', '3', '5', '-1', '2.5', '1e2', '100']) : scalar(rng))],
    ['s', () => strOrOther(rng)],
    ['t', () => strOrOther(rng)],
    ['xs', () => (rng.chance(0.9) ? array(rng, 1, () => scalar(rng)) : scalar(rng))],
    ['ns', () => (rng.chance(0.9) ? array(rng, 1, () => rng.pick(NUMBERS)) : scalar(rng))],
    ['ss', () => (rng.chance(0.9) ? array(rng, 1, () => str(rng)) : scalar(rng))],
    ['roles', () => (rng.chance(0.8) ? array(rng, 1, () => JSON.stringify(rng.pick(['admin', 'dev', 'ops', 'banned', 'guest']))) : scalar(rng))],
    ['user', () => `{"name":${str(rng)},"age":${numOrOther(rng)},"roles":${array(rng, 1, () => JSON.stringify(rng.pick(['admin', 'dev', 'ops'])))}}`],
    ['obj', () => (rng.chance(0.9) ? object(rng, 2) : scalar(rng))],
    ['flag', () => (rng.chance(0.8) ? (rng.chance(0.5) ? 'true' : 'false') : scalar(rng))],
    ['v', () => value(rng, 3)],
    ['w', () => value(rng, 3)],
    ['key', () => (rng.chance(0.7) ? JSON.stringify(rng.pick(KEYS)) : scalar(rng))],
    ['path', () => JSON.stringify(rng.pick(['', '/', '/a', '/b', '/a/b', '/x/0', '/xs/-', '/a~1b', '/missing/deep', '/0']))],
    ['op', () => JSON.stringify(rng.pick(['add', 'remove', 'replace', 'move', 'copy', 'test', 'bogus']))],
  ];
  const out: string[] = [];
  for (const [k, gen] of fields) if (rng.chance(0.9)) out.push(`${JSON.stringify(k)}:${gen()}`);
  return `{${out.join(',')}}`;
}

function agentInput(rng: Rng): string {
  const names = ['orchestrator', 'planner', 'executor', 'semantic-layer', 'untrusted', 'database', 'x', ''];
  const agent = () => (rng.chance(0.9) ? `{"name":${JSON.stringify(rng.pick(names))},"url":"http://h"}` : scalar(rng));
  return `{"source_agent":${agent()},"target_agent":${agent()},"communication":{"timestamp":"2026-01-01T00:00:00Z","message_preview":${str(rng)},"message_length":${rng.pick(NUMBERS)}},"validation_mode":"strict"}`;
}

function tradingInput(rng: Rng): string {
  const amounts = ['0', '100', '4999', '5000', '5000.0', '49999.99', '50000', '5e4', '1e400', '-1', '"60000"', 'null', '123456789012345678901234567890'];
  return `{"source_agent":{"name":"trader"},"target_agent":{"name":"place_trade"},"action":${JSON.stringify(rng.pick(['trade', 'place_trade', 'get_quote', 'x']))},"amount":${rng.pick(amounts)},"metadata":{"requests_last_minute":${rng.pick(['0', '99', '100', '101', '1e3', '"5"', 'null'])}}}`;
}

const here = dirname(fileURLToPath(import.meta.url));
const repo = join(here, '..', '..', '..');
function repoFile(path: string): [string, string] {
  return [path, readFileSync(join(repo, path), 'utf8')];
}

const p = (name: string, body: string, rules: string[], extra: Partial<Template> = {}): Template => ({
  name,
  modules: [[`${name}.rego`, `package p\n\n${body}\n`]],
  rules: rules.map((r) => `data.p.${r}`),
  ...extra,
});

export const TEMPLATES: Template[] = [
  {
    name: 'repo:trading',
    modules: [repoFile('policies/trading.rego')],
    rules: ['data.trading.allow', 'data.trading.deny', 'data.trading.require_approval', 'data.trading'],
    inputs: tradingInput,
  },
  {
    name: 'repo:a2a_access',
    modules: [repoFile('policies/a2a_access.rego')],
    rules: ['data.a2a_access.allow', 'data.a2a_access.deny', 'data.a2a_access'],
    inputs: agentInput,
  },
  {
    name: 'repo:swarm_a2a_access',
    modules: [repoFile('templates/swarm/project/services/guardian/policies/a2a_access.rego')],
    rules: ['data.a2a_access'],
    inputs: agentInput,
  },
  p(
    'arith',
    `sum_ab := input.a + input.b
diff_ab := input.a - input.b
prod_ab := input.a * input.b
quot_ab := input.a / input.b
mod_ab := input.a % input.b
neg_a := -input.a
lt_ab := input.a < input.b
eq_ab := input.a == input.b
third := input.a / 3
seventh := input.a / 7
big_mod := input.a % 65535`,
    ['sum_ab', 'diff_ab', 'prod_ab', 'quot_ab', 'mod_ab', 'neg_a', 'lt_ab', 'eq_ab', 'third', 'seventh', 'big_mod'],
  ),
  p(
    'numbers',
    `r := round(input.a)
c := ceil(input.a)
f := floor(input.a)
ab := abs(input.a)
rng := numbers.range(0, input.n)
rng_step := numbers.range_step(0, input.n, 2)
tn := to_number(input.s)
tn_a := to_number(input.a)
fi := format_int(input.a, 16)
fi2 := format_int(input.a, 2)
s := sum(input.ns)
p := product(input.ns)
mx := max(input.ns)
mn := min(input.ns)
srt := sort(input.ns)
isn := is_number(input.a)
band := bits.and(input.a, input.b)
bor := bits.or(input.a, input.b)
shl := bits.lsh(input.a, 2)`,
    ['r', 'c', 'f', 'ab', 'rng', 'rng_step', 'tn', 'tn_a', 'fi', 'fi2', 's', 'p', 'mx', 'mn', 'srt', 'isn', 'band', 'bor', 'shl'],
  ),
  p(
    'strings',
    `up := upper(input.s)
lo := lower(input.s)
cc := concat(",", input.ss)
sp := split(input.s, ",")
tr := trim_space(input.s)
trm := trim(input.s, " a")
rp := replace(input.s, "a", "b")
sub := substring(input.s, 1, 2)
idx := indexof(input.s, "b")
sw := startswith(input.s, "a")
ew := endswith(input.s, "c")
ct := contains(input.s, "b")
cnt := count(input.s)
rev := strings.reverse(input.s)
fmt_v := sprintf("%v|%d|%s", [input.a, input.a, input.s])
fmt_f := sprintf("%.2f %e %g", [input.a, input.a, input.a])
fmt_x := sprintf("%x %q %T", [input.a, input.s, input.s])
fmt_all := sprintf("%v %v", [input.v, input.w])
rm := regex.match("^a.*c$", input.s)
gm := glob.match("a*", [], input.s)
tp := trim_prefix(input.s, "a")
ts := trim_suffix(input.s, "c")
lp := strings.replace_n({"a": "1", "b": "2"}, input.s)
cmp_st := input.s < input.t
anyp := strings.any_prefix_match(input.s, ["a", "H"])`,
    [
      'up',
      'lo',
      'cc',
      'sp',
      'tr',
      'trm',
      'rp',
      'sub',
      'idx',
      'sw',
      'ew',
      'ct',
      'cnt',
      'rev',
      'fmt_v',
      'fmt_f',
      'fmt_x',
      'fmt_all',
      'rm',
      'gm',
      'tp',
      'ts',
      'lp',
      'cmp_st',
      'anyp',
    ],
  ),
  p(
    'jsonenc',
    `m := json.marshal(input.v)
m_a := json.marshal(input.a)
um := json.unmarshal(input.s)
rt := json.unmarshal(json.marshal(input.v))
b64 := base64.encode(input.s)
b64d := base64.decode(input.s)
uq := urlquery.encode(input.s)
hx := hex.encode(input.s)
tname := type_name(input.v)
y := yaml.marshal(input.v)
valid := json.is_valid(input.s)
mi := json.marshal_with_options(input.v, {"pretty": true, "indent": "  "})`,
    ['m', 'm_a', 'um', 'rt', 'b64', 'b64d', 'uq', 'hx', 'tname', 'y', 'valid', 'mi'],
  ),
  p(
    'objects',
    `g := object.get(input.obj, input.key, "dflt")
gn := object.get({"a": null}, "a", "dflt")
gp := object.get(input.obj, ["a", "b"], "dflt")
un := object.union(input.obj, {"a": 1})
rm := object.remove(input.obj, ["a", "k"])
fl := object.filter(input.obj, ["a", "b"])
ks := object.keys(input.obj)
ul := object.union_n([input.obj, {"b": 2}])
has_a := "a" in object.keys(input.obj)
val := input.obj[input.key]
walked := [p | walk(input.obj, [p, _])]
sub := object.subset(input.obj, {"a": 1})`,
    ['g', 'gn', 'gp', 'un', 'rm', 'fl', 'ks', 'ul', 'has_a', 'val', 'walked', 'sub'],
  ),
  p(
    'patch',
    `doc := {"a": {"b": 1}, "xs": [1, 2], "s": {1, 2}}
op1 := json.patch(doc, [{"op": input.op, "path": input.path, "value": input.v, "from": "/a"}])
whole := json.patch(input.obj, [{"op": "replace", "path": "", "value": input.v}])
add_set := json.patch(doc, [{"op": "add", "path": "/s/3", "value": 3}])
add_root := json.patch(input.v, [{"op": "add", "path": input.path, "value": 1}])
fl := json.filter(doc, [input.path])
rm := json.remove(doc, [input.path])`,
    ['op1', 'whole', 'add_set', 'add_root', 'fl', 'rm'],
  ),
  p(
    'collections',
    `cnt := count(input.xs)
srt := sort(input.xs)
st := {x | some x in input.xs}
arr := [x | some x in input.xs; x != null]
obj := {k: v | some k, v in input.obj}
un := st | {1, "a"}
inter := st & {1, "a", null}
minus_1 := st - {1}
ac := array.concat(input.xs, [1])
sl := array.slice(input.xs, 1, 3)
rv := array.reverse(input.xs)
flat := [y | some x in input.xs; some y in [x, x]]
has := input.v in input.xs
idx := [i | some i, x in input.xs; x == input.v]
any_null := null in input.xs
unions := union({st, {2}})
cmp := input.v < input.w
eqvw := input.v == input.w
sortvw := sort([input.v, input.w])
setvw := {input.v, input.w}`,
    [
      'cnt',
      'srt',
      'st',
      'arr',
      'obj',
      'un',
      'inter',
      'minus_1',
      'ac',
      'sl',
      'rv',
      'flat',
      'has',
      'idx',
      'any_null',
      'unions',
      'cmp',
      'eqvw',
      'sortvw',
      'setvw',
    ],
  ),
  p(
    'every_some',
    `all_pos if every x in input.ns { x > 0 }
no_banned if every r in input.roles { r != "banned" }
some_admin if { some r in input.roles; r == "admin" }
some_idx contains i if { some i, r in input.roles; r == "dev" }
every_kv if every k, v in input.obj { is_string(k); v != null }
not_admin if not "admin" in input.roles
deny contains "banned" if "banned" in input.roles
allow if {
	no_banned
	some_admin
}`,
    ['all_pos', 'no_banned', 'some_admin', 'some_idx', 'every_kv', 'not_admin', 'deny', 'allow'],
  ),
  p(
    'defaults_else',
    `default allow := false
allow if input.user.name == "admin"
allow if "admin" in input.user.roles

default level := "none"
level := "high" if input.a > 100
else := "mid" if input.a > 10
else := "low"

default big := 0
big := input.a if input.a > 1e300

grade(x) := "A" if x >= 90
else := "B" if x >= 80
else := "C"
g := grade(input.a)

clamp(x, lo, hi) := lo if x < lo
clamp(x, lo, hi) := hi if x > hi
clamp(x, lo, hi) := x if {
	x >= lo
	x <= hi
}
cl := clamp(input.a, 0, 10)`,
    ['allow', 'level', 'big', 'g', 'cl'],
  ),
  p(
    'partial',
    `users contains u if some u in input.ss
by_name[name] := len if {
	some name in input.ss
	len := count(name)
}
roles_of[r] contains i if some i, r in input.roles
nested.a.b := input.a
nested.a.c := input.b
nested[input.s] := 1 if is_string(input.s)
counts[k] := count(v) if { some k, v in input.obj; is_string(v) }
dyn[input.key].x := input.a`,
    ['users', 'by_name', 'roles_of', 'nested', 'counts', 'dyn'],
  ),
  p(
    'conflicts',
    `x := 1 if input.flag
x := 2 if input.a == 1
obj[k] := v if some k, v in {"a": input.a, "b": input.b}
obj.a := 7 if input.flag
f(y) := y + 1
f(y) := y * 2 if y > 5
r := f(input.n)`,
    ['x', 'obj', 'r'],
  ),
  p(
    'with_kw',
    `allow if input.user.name == "admin"
adm if allow with input.user.name as "admin"
cnt := count(input.xs)
cnt2 := c if c := cnt with input.xs as [1, 2, 3]
up := u if u := upper(input.s) with upper as lower
dat := x if x := data.p.cnt with input.xs as input.ss`,
    ['adm', 'cnt2', 'up', 'dat'],
  ),
  p(
    'funcs',
    `double(x) := x * 2
is_small(x) if x < 10
add(a, b) := a + b
fib(n) := n if n < 2
n2 := double(input.n)
small if is_small(input.a)
plus_ab := add(input.a, input.b)
map := [double(x) | some x in input.ns]
filtered := [x | some x in input.ns; is_small(x)]`,
    ['n2', 'small', 'plus_ab', 'map', 'filtered'],
  ),
  p(
    'refs',
    `a := input.obj.a
b := input.obj["b"]
deep := input.v[0][0]
i := input.xs[input.n]
neg := input.xs[-1]
ks := [k | input.obj[k]]
vs := [v | v := input.obj[_]]
str_idx := input.s[0]
data_ref := data.cfg[input.key]`,
    ['a', 'b', 'deep', 'i', 'neg', 'ks', 'vs', 'str_idx', 'data_ref'],
    { data: '{"cfg": {"a": 1, "b": [1, 2], "1": "one", "": "empty"}}' },
  ),
  p(
    'types',
    `t_a := type_name(input.a)
t_v := type_name(input.v)
is_s := is_string(input.v)
is_n := is_number(input.v)
is_o := is_object(input.v)
is_a := is_array(input.v)
is_b := is_boolean(input.v)
is_nu := is_null(input.v)
is_st := is_set(input.v)
cmp_types := input.a == input.s
to_s := sprintf("%v", [input.v])
arr_eq := [input.a] == [input.b]
ne := input.a != input.b`,
    ['t_a', 't_v', 'is_s', 'is_n', 'is_o', 'is_a', 'is_b', 'is_nu', 'is_st', 'cmp_types', 'to_s', 'arr_eq', 'ne'],
  ),
  p(
    'units',
    `u := units.parse(input.s)
ub := units.parse_bytes(input.s)
n := to_number(input.t)
lt_ := input.s < "b"`,
    ['u', 'ub', 'n', 'lt_'],
  ),
];

// ---------------------------------------------------------------------------
// GraphQL: queries and schemas, whole or cut short at a random point (syntax errors)

const GQL_SCHEMAS = [
  `type Query { hero(episode: Episode = NEWHOPE): Character droid(id: ID!): Droid search(text: String, first: Int = 10): [SearchResult!]! }
enum Episode { NEWHOPE EMPIRE JEDI }
interface Character { id: ID! name: String! friends: [Character] }
type Human implements Character { id: ID! name: String! friends: [Character] height(unit: Unit = METER): Float }
type Droid implements Character { id: ID! name: String! friends: [Character] primaryFunction: String }
enum Unit { METER FOOT }
union SearchResult = Human | Droid
type Mutation { review(episode: Episode!, input: ReviewInput!): Review }
input ReviewInput { stars: Int! commentary: String = "none" tags: [String!] }
type Review { stars: Int! commentary: String }
"""A described scalar"""
scalar Date @specifiedBy(url: "https://example.com/date")
directive @auth(role: String!) repeatable on FIELD_DEFINITION | OBJECT`,
  `schema { query: Root }
type Root { a(x: Int!): String b: [Int] @deprecated(reason: "old") }`,
  `extend type Query { me: User }
type User { id: ID! "the name" name: String }`,
  `type Query { x: In }
input In { a: Int }`,
  `type Query { u: U }
union U = A | B
type A { a: Int }`,
  `interface I { f(a: Int): String }
type Query implements I { f(a: Int, b: Int!): String }`,
  `type Query { a: Int a: String }`,
  `enum E { A B A }
type Query { e: E }`,
  `type Query { a: Int } extend schema @foo`,
  `type __Bad { a: Int }`,
  `input A { b: B! }
input B { a: A! }
type Query { f(a: A): Int }`,
  `type Query { f: Int } scalar Int`,
  `type Query { s(a: String = "x\\u00e9\\n", b: [Int] = [1, 2], c: Obj = {k: 1.5e3}): Int }
input Obj { k: Float }`,
  `type Query { a: Int } type Mutation { m: Int } type Subscription { s: Int a: Int }`,
  `directive @d on FIELD
type Query { hero: H }
type H { id: ID name: String }`,
];

const GQL_QUERIES = [
  `query Hero($ep: Episode = JEDI, $withFriends: Boolean!) { hero(episode: $ep) { name ... on Droid { primaryFunction } friends @include(if: $withFriends) { name } } }`,
  `{ hero { id name } droid(id: "2001") { name } }`,
  `mutation M($r: ReviewInput!) { review(episode: JEDI, input: $r) { stars commentary } }`,
  `mutation { review(episode: EMPIRE, input: {stars: 5, tags: ["a", "b"]}) { stars } }`,
  `query { search(text: "an", first: -3) { __typename ... on Human { height(unit: FOOT) } ... on Droid { name } } }`,
  `fragment F on Character { name friends { ...G } } fragment G on Character { id } query { hero { ...F } }`,
  `{ hero { nonexistent } }`,
  `query Q($unused: Int) { hero { name } }`,
  `{ droid { name } }`,
  `{ hero(episode: MARS) { name } }`,
  `subscription S { hero { name } }`,
  `{ a(x: 1) b }`,
  `{ me { id name } }`,
  `{ hero { name } } { droid(id: 1) { name } }`,
  `query ($v: [Int!]! = [1, 2, 3]) { s(a: """  block\n    text  """, b: $v) }`,
  `{ f(a: 1) e u { ... on A { a } } x }`,
  `{ hero { ...on Human { height } } }`,
  `query Q { hero { name } } query Q { droid(id: "x") { id } }`,
  `{ hero { name @skip(if: true) @skip(if: false) } }`,
  `{ "multibyte: é 日本" }`,
  ``,
  `{ __schema { types { name } } __type(name: "Human") { name } }`,
  `{ hero { name name: id } }`,
  `query ($e: Episode) { hero(episode: $e) { ... { name } } }`,
  `fragment X($a: Int) on Character { name } { hero { ...X } }`,
  `query ($i: Int) { droid(id: $i) { name } }`,
  `{ hero { friends } }`,
  `{ hero { name { x } } }`,
  `{ search(text: 1) { __typename } }`,
  `{ search(first: "x") { __typename } }`,
  `{ hero { ...Undefined } }`,
  `query { hero { id } } fragment Unused on Human { id }`,
  `subscription { s a }`,
  `query ($r: ReviewInput = {stars: "x"}) { hero { id } }`,
  `{ s(c: {k: 1, extra: 2}) }`,
];

function graphqlInput(rng: Rng): string {
  const cut = (s: string) => (s.length > 0 && rng.chance(0.25) ? s.slice(0, rng.int(s.length)) : s);
  return JSON.stringify({ q: cut(rng.pick(GQL_QUERIES)), s: cut(rng.pick(GQL_SCHEMAS)) });
}

TEMPLATES.push(
  p(
    'graphql',
    `pq := graphql.parse_query(input.q)
ps := graphql.parse_schema(input.s)
v := graphql.is_valid(input.q, input.s)
sv := graphql.schema_is_valid(input.s)
pv := graphql.parse_and_verify(input.q, input.s)
pp := graphql.parse(input.q, input.s)
v_ast := graphql.is_valid(graphql.parse_query(input.q), graphql.parse_schema(input.s))
sv_ast := graphql.schema_is_valid(graphql.parse_schema(input.s))
pv_ast := graphql.parse_and_verify(graphql.parse_query(input.q), input.s)`,
    ['pq', 'ps', 'v', 'sv', 'pv', 'pp', 'v_ast', 'sv_ast', 'pv_ast'],
    // Syntax, schema and validation errors are worded as OPA words them, word for word.
    { inputs: graphqlInput, exactErrors: true },
  ),
);

// ---------------------------------------------------------------------------
// graph.reachable / reachable_paths on random graphs with cycles, leaves and missing nodes

function graphInput(rng: Rng): string {
  const nodes = ['a', 'b', 'c', 'd', 'e', 'f', ''];
  const graph: Record<string, string[]> = {};
  for (const n of nodes.slice(0, 3 + rng.int(4))) {
    const edges: string[] = [];
    for (let i = rng.int(4); i > 0; i--) edges.push(rng.pick(nodes));
    graph[n] = edges;
  }
  const initial = [rng.pick(nodes), ...(rng.chance(0.4) ? [rng.pick(nodes)] : [])];
  return JSON.stringify({ graph, initial });
}

TEMPLATES.push(
  p(
    'graph',
    `reach := graph.reachable(input.graph, input.initial)
paths := graph.reachable_paths(input.graph, input.initial)
paths_set := graph.reachable_paths(input.graph, {x | some x in input.initial})`,
    ['reach', 'paths', 'paths_set'],
    { inputs: graphInput },
  ),
);
