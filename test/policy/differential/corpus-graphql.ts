/**
 * GraphQL queries that break several validation rules at once, against
 * schemas with interfaces, unions, enums, input objects (one `@oneOf`),
 * repeatable and non-repeatable directives and all three root types. The
 * generator walks a schema's types and, at each choice, sometimes picks
 * something wrong: an unknown or misspelt field, an argument missing, of
 * the wrong type, unknown or given twice, a variable undefined, unused, of a
 * non-input or unknown type or in a position of another type, a directive
 * unknown, misplaced or repeated, an inline fragment or a fragment on a
 * scalar, an unknown type or a type that cannot be there, a fragment
 * undefined, unused, defined twice or spreading itself, two fields under
 * one response name, a leaf with a selection or an object without, several
 * anonymous operations. gqlparser reports the errors in its walk and rule
 * order; the whole message is compared word for word (`exactErrors`), also
 * for the same query handed over as an AST object (no positions).
 */
import { parseGraphQLQuery } from '../../../runtime/policy/builtins/graphql-parser.js';
import { parseGraphQLSchema } from '../../../runtime/policy/builtins/graphql-parser-schema.js';
import { type GqlSchema, loadGraphQLSchema } from '../../../runtime/policy/builtins/graphql-schema.js';
import { validateGraphQLQuery } from '../../../runtime/policy/builtins/graphql-validate.js';
import type { Rng, Template } from './corpus.js';

interface Field {
  name: string;
  type: string;
  args: Array<[name: string, type: string]>;
}

interface TypeDef {
  kind: 'object' | 'interface' | 'union' | 'enum' | 'input' | 'scalar';
  fields: Field[];
  /** Enum values, union members, input field types as `name:type`. */
  members: string[];
}

export const GRAPHQL_SCHEMA = `schema { query: Query mutation: Mutation subscription: Subscription }
type Query {
  hero(episode: Episode = NEWHOPE): Character
  human(id: ID!): Human
  droid(id: ID!): Droid
  search(text: String!, first: Int = 10, after: String): [SearchResult!]!
  reviews(episode: Episode!, filter: ReviewFilter): [Review]
  node(id: ID!): Node
  count(where: Where, limit: Int): Int
  pick(by: PickBy): Human
  version: String
}
type Mutation { createReview(episode: Episode!, review: ReviewInput!): Review deleteReview(id: ID!): Boolean }
type Subscription { reviewAdded(episode: Episode): Review tick: Int }
enum Episode { NEWHOPE EMPIRE JEDI }
enum Unit { METER FOOT }
interface Node { id: ID! }
interface Character implements Node { id: ID! name: String! friends(first: Int): [Character] appearsIn: [Episode]! }
type Human implements Character & Node { id: ID! name: String! friends(first: Int): [Character] appearsIn: [Episode]! height(unit: Unit = METER): Float mass: Float starships: [Starship] }
type Droid implements Character & Node { id: ID! name: String! friends(first: Int): [Character] appearsIn: [Episode]! primaryFunction: String }
type Starship implements Node { id: ID! name: String! length(unit: Unit = METER): Float }
union SearchResult = Human | Droid | Starship
type Review { stars: Int! commentary: String episode: Episode }
input ReviewInput { stars: Int! commentary: String tags: [String!] }
input ReviewFilter { minStars: Int = 0 episodes: [Episode!] }
input Where { name: String and: [Where!] }
input PickBy @oneOf { id: ID name: String }
scalar Date
directive @cached(ttl: Int!) on FIELD | QUERY
directive @tag(name: String!) repeatable on FIELD | FRAGMENT_SPREAD | INLINE_FRAGMENT
`;

/** The schema above as the generator sees it. */
function schemaTypes(): Map<string, TypeDef> {
  const types = new Map<string, TypeDef>();
  for (const m of GRAPHQL_SCHEMA.matchAll(/^(type|interface|input) (\w+)[^{]*\{([^}]*)\}/gm)) {
    const fields: Field[] = [];
    for (const f of (m[3] as string).matchAll(/(\w+)(?:\(([^)]*)\))?: ([\w[\]!]+)/g)) {
      const args = [...(f[2] ?? '').matchAll(/(\w+): ([\w[\]!]+)/g)].map((a) => [a[1], a[2]] as [string, string]);
      fields.push({ name: f[1] as string, type: f[3] as string, args });
    }
    const kind = m[1] === 'type' ? 'object' : m[1] === 'interface' ? 'interface' : 'input';
    types.set(m[2] as string, { kind, fields, members: [] });
  }
  for (const m of GRAPHQL_SCHEMA.matchAll(/^enum (\w+) \{ ([^}]*) \}/gm)) {
    types.set(m[1] as string, { kind: 'enum', fields: [], members: (m[2] as string).trim().split(/\s+/) });
  }
  types.set('SearchResult', { kind: 'union', fields: [], members: ['Human', 'Droid', 'Starship'] });
  for (const s of ['Int', 'Float', 'String', 'Boolean', 'ID', 'Date']) types.set(s, { kind: 'scalar', fields: [], members: [] });
  return types;
}

const TYPES = schemaTypes();
const named = (t: string) => t.replace(/[[\]!]/g, '');
const COMPOSITES = ['Human', 'Droid', 'Starship', 'Character', 'Node', 'SearchResult', 'Review', 'Query'];
const VARIABLE_TYPES = ['Int', 'Int!', 'String', 'String!', 'ID!', 'Episode', 'Episode!', '[Episode!]', 'ReviewInput!', 'Where', 'Boolean!', 'Float'];
const BAD_VARIABLE_TYPES = ['Character', 'Human!', 'Foo', '[Bogus]', 'SearchResult'];
const MISSPELT: Record<string, string> = { name: 'nmae', friends: 'freinds', height: 'hieght', id: 'ID', stars: 'star', primaryFunction: 'primaryfunction' };

interface Doc {
  rng: Rng;
  /** Variables of the operation being written (name → type). */
  vars: Array<[string, string]>;
  fragments: Array<{ name: string; on: string }>;
  /** How wrong the document gets: the chance of each wrong choice. */
  p: number;
  /** No directive where its definition does not allow it (see multiErrorQuery). */
  astSafe: boolean;
}

function literal(d: Doc, type: string, depth = 0): string {
  const { rng } = d;
  const nonNull = type.endsWith('!');
  const t = nonNull ? type.slice(0, -1) : type;
  if (rng.chance(d.p / 2)) {
    const vars = d.vars.map(([n]) => `$${n}`);
    return rng.pick([...vars, ...vars, '$undefinedVar', '$x']);
  }
  if (rng.chance(d.p / 2)) return rng.pick(['null', '"text"', '12', '3.5', 'JEDI', 'true', '[1, 2]', '{a: 1}', '99999999999', '1e400']);
  if (t.startsWith('[')) {
    const elem = t.slice(1, -1);
    return rng.chance(0.3) ? literal(d, elem, depth + 1) : `[${Array.from({ length: rng.int(3) }, () => literal(d, elem, depth + 1)).join(', ')}]`;
  }
  const def = TYPES.get(t);
  switch (t) {
    case 'Int':
      return String(rng.int(100) - 10);
    case 'Float':
      return rng.pick(['1.5', '2', '-0.25', '3e2']);
    case 'String':
    case 'Date':
      return rng.pick(['"luke"', '"a\\"b"', '"""block"""', '""']);
    case 'ID':
      return rng.pick(['"1000"', '2001', '"x"']);
    case 'Boolean':
      return rng.pick(['true', 'false']);
  }
  if (def?.kind === 'enum') return rng.chance(d.p) ? rng.pick(['MARS', 'jedi', 'EMPIRES']) : rng.pick(def.members);
  if (def?.kind === 'input' && depth < 3) {
    const parts: string[] = [];
    for (const f of def.fields) if (f.type.endsWith('!') ? !rng.chance(d.p) : rng.chance(0.4)) parts.push(`${f.name}: ${literal(d, f.type, depth + 1)}`);
    if (rng.chance(d.p)) parts.push(`${rng.pick(['bogus', 'stras', 'nme'])}: 1`);
    if (rng.chance(d.p / 2) && parts.length > 0) parts.push(parts[0] as string);
    return `{${parts.join(', ')}}`;
  }
  return 'null';
}

function directives(d: Doc, location: 'field' | 'spread' | 'inline' | 'operation' | 'fragment'): string {
  const { rng } = d;
  const out: string[] = [];
  if (d.astSafe && (location === 'operation' || location === 'fragment')) return '';
  const n = rng.chance(0.1 + d.p) ? 1 + rng.int(2) : 0;
  for (let i = 0; i < n; i++) {
    const cond = () => (rng.chance(0.5) && d.vars.length > 0 ? `$${rng.pick(d.vars)[0]}` : rng.pick(['true', 'false', '"yes"', '$nope']));
    const options = [
      `@include(if: ${cond()})`,
      `@skip(if: ${cond()})`,
      `@tag(name: "${rng.pick(['a', 'b'])}")`,
      location === 'field' || location === 'operation' ? `@cached(ttl: ${rng.pick(['60', '"1m"', '0'])})` : '@tag(name: "c")',
    ];
    const wrong = d.astSafe
      ? ['@unknown', location === 'field' ? '@cached' : '@tag', '@include', '@skip(if: true, extra: 1)', '@tag']
      : ['@unknown', '@deprecated', '@cached', '@include', '@skip(if: true, extra: 1)', '@specifiedBy(url: "u")', '@tag'];
    out.push(rng.chance(d.p) ? rng.pick(wrong) : rng.pick(options));
  }
  if (out.length > 0 && rng.chance(d.p)) out.push(out[0] as string);
  return out.map((x) => ` ${x}`).join('');
}

function args(d: Doc, field: Field): string {
  const { rng } = d;
  const out: string[] = [];
  for (const [name, type] of field.args) {
    const required = type.endsWith('!');
    if (required ? rng.chance(d.p) : !rng.chance(0.4)) continue;
    out.push(`${name}: ${literal(d, type)}`);
  }
  if (rng.chance(d.p / 2)) out.push(`${rng.pick(['limit', 'episod', 'bogus'])}: 1`);
  if (rng.chance(d.p / 3) && out.length > 0) out.push(out[0] as string);
  return out.length > 0 ? `(${out.join(', ')})` : '';
}

function selectionSet(d: Doc, typeName: string, depth: number): string {
  const { rng } = d;
  const def = TYPES.get(typeName);
  const out: string[] = [];
  const count = 1 + rng.int(depth > 1 ? 2 : 4);
  for (let i = 0; i < count; i++) {
    const r = rng.next();
    if (r < 0.15 && depth < 4) {
      const on = rng.chance(d.p) ? rng.pick(['Int', 'Episode', 'Bogus', 'Review', 'Starship', 'Query']) : rng.pick(COMPOSITES);
      const cond = rng.chance(0.15) ? '' : ` on ${on}`;
      out.push(`...${cond}${directives(d, 'inline')}${selectionSet(d, TYPES.has(on) && cond !== '' ? on : typeName, depth + 1)}`);
      continue;
    }
    if (r < 0.3) {
      const name = rng.chance(d.p) || d.fragments.length === 0 ? rng.pick(['Missing', 'F0', 'F1', 'F2']) : rng.pick(d.fragments).name;
      out.push(`...${name}${directives(d, 'spread')}`);
      continue;
    }
    const fields = def?.fields ?? [];
    const pickable = def?.kind === 'union' || fields.length === 0 ? [{ name: '__typename', type: 'String!', args: [] }] : fields;
    let field = rng.pick(pickable);
    if (rng.chance(d.p / 2)) field = { name: rng.chance(0.5) ? (MISSPELT[field.name] ?? 'bogus') : 'primaryFunction', type: 'String', args: [] };
    const alias = rng.chance(0.15 + d.p / 2) ? `${rng.pick(['a', 'b', 'name', 'id', field.name])}: ` : '';
    const fieldType = named(field.type);
    const composite = ['object', 'interface', 'union'].includes(TYPES.get(fieldType)?.kind ?? '');
    let sub = '';
    if (composite ? !rng.chance(d.p / 2) && depth < 4 : rng.chance(d.p / 3)) sub = selectionSet(d, composite ? fieldType : 'Review', depth + 1);
    out.push(`${alias}${field.name}${args(d, field)}${directives(d, 'field')}${sub}`);
  }
  return ` { ${out.join(' ')} }`;
}

function variables(d: Doc): string {
  const { rng } = d;
  d.vars = [];
  const n = rng.chance(0.6) ? 1 + rng.int(3) : 0;
  for (let i = 0; i < n; i++) {
    const name = rng.chance(d.p / 2) && d.vars.length > 0 ? rng.pick(d.vars)[0] : rng.pick(['ep', 'id', 'first', 'flag', 'review', 'where', 'n']);
    const type = rng.chance(d.p / 2) ? rng.pick(BAD_VARIABLE_TYPES) : rng.pick(VARIABLE_TYPES);
    d.vars.push([name, type]);
  }
  const defs = d.vars.map(([name, type]) => `$${name}: ${type}${rng.chance(0.2) ? ` = ${literal({ ...d, vars: [] }, type)}` : ''}`);
  return defs.length > 0 ? `(${defs.join(', ')})` : '';
}

let loadedSchema: GqlSchema | undefined;

/**
 * Whether gqlparser's overlapping-fields check would recurse without end on
 * `query` (fragments spreading themselves inside fields): OPA's process dies
 * of a stack overflow on such a query, taking the oracle with it, so the
 * generator leaves them out (ours refuses them; graphql.test.ts covers it).
 */
function crashesOpa(query: string): boolean {
  loadedSchema ??= loadGraphQLSchema(parseGraphQLSchema(GRAPHQL_SCHEMA));
  try {
    validateGraphQLQuery(loadedSchema, parseGraphQLQuery(query), null);
  } catch (e) {
    return e instanceof Error && e.message.includes('without end');
  }
  return false;
}

/**
 * A query document, usually with several validation errors. `astSafe`
 * leaves out directives in places their definitions do not allow: given
 * such a query as an AST object (no positions), OPA v1.20.2 dereferences a
 * nil position in gqlparser's KnownDirectives rule and fails with a Go
 * runtime error instead of the rule's message.
 */
export function multiErrorQuery(rng: Rng, astSafe = false): string {
  for (;;) {
    const q = anyQuery(rng, astSafe);
    if (!crashesOpa(q)) return q;
  }
}

function anyQuery(rng: Rng, astSafe: boolean): string {
  const d: Doc = { rng, vars: [], fragments: [], p: rng.next() * rng.next() * 0.4, astSafe };
  const fragmentCount = rng.int(3);
  for (let i = 0; i < fragmentCount; i++) {
    const name = rng.chance(d.p / 2) && i > 0 ? `F${i - 1}` : `F${i}`;
    d.fragments.push({ name, on: rng.chance(d.p) ? rng.pick(['Int', 'Bogus', 'Episode']) : rng.pick(COMPOSITES) });
  }
  const parts: string[] = [];
  const ops = rng.chance(0.7) ? 1 : 2 + rng.int(2);
  for (let i = 0; i < ops; i++) {
    const kind = rng.chance(0.7) ? 'query' : rng.pick(['mutation', 'subscription']);
    const root = kind === 'query' ? 'Query' : kind === 'mutation' ? 'Mutation' : 'Subscription';
    const anonymous = rng.chance(ops === 1 ? 0.5 : d.p);
    const name = anonymous ? '' : ` ${rng.chance(d.p) ? 'Op' : `Op${i}`}`;
    const vars = variables(d);
    const head = anonymous && vars === '' && kind === 'query' && rng.chance(0.5) ? '' : `${kind}${name}${vars}${directives(d, 'operation')}`;
    parts.push(`${head}${selectionSet(d, root, 0)}`);
  }
  d.vars = [];
  for (const f of d.fragments) parts.push(`fragment ${f.name} on ${f.on}${directives(d, 'fragment')}${selectionSet(d, TYPES.has(f.on) ? f.on : 'Human', 1)}`);
  return (rng.chance(0.5) ? parts.join('\n') : parts.join(' ')).trim();
}

export const GRAPHQL_TEMPLATES: Template[] = [
  {
    name: 'graphql-multi',
    modules: [
      [
        'gql.rego',
        `package p

pp := graphql.parse(input.q, input.s)
pv := graphql.parse_and_verify(input.q, input.s)
pp_ast := graphql.parse(graphql.parse_query(input.qa), input.s)
`,
      ],
    ],
    rules: ['data.p.pp', 'data.p.pv', 'data.p.pp_ast'],
    inputs: (rng) => JSON.stringify({ q: multiErrorQuery(rng), qa: multiErrorQuery(rng, true), s: GRAPHQL_SCHEMA }),
    exactErrors: true,
  },
];
