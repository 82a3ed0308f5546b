/**
 * `# METADATA` `schemas:` annotations and `--schema`, as OPA v1.20.2 applies
 * them. OPA reads annotations, and types rule bodies by their schemas,
 * always in `opa check`/`opa test`, and in its rego package (the server, the
 * oracle) only when a module calls `rego.metadata.rule()`/`chain()`. The
 * oracle blocks prove both halves against the real OPA: modules that do not
 * call them load whatever their schemas say, and generated modules that do
 * get OPA's errors word for word. The other expected texts are OPA's as its
 * checker words them (v1/ast/check.go, compile.go's schema parser).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { schemaKey, type SchemaSet } from '../../runtime/policy/compiler/schema-annotations.js';
import { schemaType } from '../../runtime/policy/compiler/schema-type.js';
import { printType } from '../../runtime/policy/compiler/rego-type.js';
import { compilePolicy } from '../../runtime/policy/engine.js';
import { PolicyError } from '../../runtime/policy/errors.js';
import { PolicyLoadError } from '../../runtime/policy/server/policy-problem.js';
import type { Value } from '../../runtime/policy/value.js';
import { stringifyJSON } from '../../runtime/policy/value-json.js';
import { loadPolicySet, readSchemas } from '../../runtime/policy/tools/load-policies.js';
import { Rng } from './differential/corpus.js';
import { askOracle, oracleDir } from './differential/differ.js';

type Modules = Array<[string, string]>;

/** Our compile: undefined when it compiles, else the error text (`N errors occurred:` and one error a line). */
function check(modules: Modules | string, options: { schemas?: SchemaSet; annotations?: boolean } = {}): string | undefined {
  const list: Modules = typeof modules === 'string' ? [['p.rego', modules]] : modules;
  try {
    compilePolicy({
      modules: list.map(([file, source]) => ({ file, source })),
      typeCheckAnnotations: options.annotations ?? true,
      ...(options.schemas === undefined ? {} : { schemas: options.schemas }),
    });
    return undefined;
  } catch (e) {
    if (!PolicyError.isInstance(e)) throw e;
    return e.message;
  }
}

function set(entries: Record<string, unknown>): SchemaSet {
  return new Map(Object.entries(entries).map(([k, v]) => [schemaKey(k === '' ? [] : k.split('.')), v]));
}

const object = (props: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ type: 'object', properties: props, ...extra });
const S = { type: 'string' };
const N = { type: 'integer' };

/** A module whose one rule is annotated with the inline input schema `schema`. */
function annotated(schema: unknown, body: string, pkg = 'p'): string {
  return `package ${pkg}\n\n# METADATA\n# schemas:\n#   - input: ${JSON.stringify(schema)}\nr if {\n\t${body}\n}\n`;
}

const REQUEST = object({
  user: S,
  roles: { type: 'array', items: S },
  pair: { type: 'array', items: [S, N] },
  spec: object({ containers: { type: 'array', items: object({ image: S, port: N }) } }),
});

describe('without a rego.metadata call, OPA evaluates annotated modules whatever their schemas say (the oracle)', () => {
  const pylib = oracleDir();
  it.skipIf(pylib === undefined)('each module OPA evaluates is evaluated here, with the same answer', () => {
    const modules = [
      annotated(REQUEST, 'input.nope == 1'),
      annotated(REQUEST, 'upper(input.spec.containers[0].port) == "X"'),
      annotated({ type: 'object', properties: { a: S }, allOf: [{ type: 'array' }] }, 'input.a'),
      annotated({ $ref: '#/definitions/missing' }, 'input.a'),
      'package p\n\n# METADATA\n# schemas:\n#   - input: schema.undefined\nr if input.x == 1\n',
      'package p\n\n# METADATA\n# scope: document\n# title: a\nr if input.x == 1\n\n# METADATA\n# scope: document\n# title: b\nr if input.x == 2\n',
    ];
    const inputs = ['{"nope": 1, "user": "u"}', '{"spec": {"containers": [{"port": "x"}]}}', '{"a": true, "x": 2}'];
    const groups = modules.map((m) => ({ modules: [['p.rego', m] as const], evals: inputs.map((input) => ({ query: 'x = data.p', input })) }));
    const answers = askOracle(groups, pylib as string);
    let n = 0;
    for (const m of modules) {
      const policy = compilePolicy({ modules: [{ file: 'p.rego', source: m }] });
      for (const input of inputs) {
        const theirs = JSON.parse(answers[n++] as string) as { result?: Array<{ bindings: { x: unknown } }> };
        expect(theirs.result, m).toBeDefined();
        const mine = policy.query('x = data.p', { input: JSON.parse(input) });
        expect(
          mine.map((b) => JSON.parse(stringifyJSON(b['x'] as Value))),
          m,
        ).toEqual(theirs.result?.map((r) => r.bindings.x));
      }
    }
  });
  it.skipIf(pylib === undefined)('rego.metadata.rule() and chain() show schemas as OPA does ({path, schema} or {path, definition})', () => {
    const modules = [
      'package p\n\n# METADATA\n# schemas:\n#   - input: schema.foo\n#   - input.x: {"type": "string"}\n#   - data.a["b-c"]: schema["x-y"].z\nr := rego.metadata.rule()\n',
      '# METADATA\n# scope: subpackages\n# schemas:\n#   - input: {"type": "object", "properties": {"a": {"type": "integer"}}}\npackage p\n\n# METADATA\n# scope: document\n# schemas:\n#   - data.q: schema\nr := rego.metadata.chain()\n',
      'package p\n\n# METADATA\n# schemas:\n#   - input: {"anyOf": [{"type": "string"}, {"$ref": "#/definitions/d"}], "definitions": {"d": {"type": "array"}}}\nr := rego.metadata.rule()\n',
    ];
    const answers = askOracle(
      modules.map((m) => ({ modules: [['p.rego', m] as const], evals: [{ query: 'x = data.p.r', input: null }] })),
      pylib as string,
    );
    modules.forEach((m, i) => {
      const theirs = JSON.parse(answers[i] as string) as { result?: Array<{ bindings: { x: unknown } }> };
      const mine = compilePolicy({ modules: [{ file: 'p.rego', source: m }] }).query('x = data.p.r');
      expect(
        mine.map((b) => JSON.parse(stringifyJSON(b['x'] as Value))),
        m,
      ).toEqual(theirs.result?.map((r) => r.bindings.x));
    });
  });
});

describe('schemas into types, as OPA types them', () => {
  const cases: Array<[string, unknown, string]> = [
    ['scalars', { type: 'boolean' }, 'boolean'],
    ['integer is a number', N, 'number'],
    ['the first of boolean, string, number, object, array in a type list', { type: ['null', 'array', 'string'] }, 'string'],
    ['null alone, or no type', { type: 'null' }, 'any'],
    ['enum and const give no type', { enum: ['a', 'b'], const: 'a' }, 'any'],
    [
      'an object with properties is closed (additionalProperties is not read)',
      object({ a: S }, { additionalProperties: true, required: ['a'] }),
      'object<a: string>',
    ],
    ['an object without properties', { type: 'object' }, 'object[any: any]'],
    ['properties without a type are an object', { properties: { b: N, a: S } }, 'object<a: string, b: number>'],
    ['items of one schema', { type: 'array', items: S }, 'array[string]'],
    ['items as a tuple', { type: 'array', items: [S, N] }, 'array<string, number>'],
    ['an array without items', { type: 'array' }, 'array[any]'],
    ['anyOf is the union', { anyOf: [S, N, { type: 'null' }] }, 'any'],
    ['anyOf of scalars', { anyOf: [S, N] }, 'any<number, string>'],
    ['anyOf keeps the object it sits in', object({ a: S }, { anyOf: [object({ b: N })] }), 'any<object<a: string>, object<b: number>>'],
    ['allOf merges properties', { allOf: [object({ a: S }), object({ b: N })] }, 'object<a: string, b: number>'],
    ['allOf with the object it sits in', object({ c: S }, { allOf: [object({ a: S }), object({ b: N })] }), 'object<a: string, b: number, c: string>'],
    [
      'allOf of arrays',
      {
        allOf: [
          { type: 'array', items: [S] },
          { type: 'array', items: [S, N] },
        ],
      },
      'array<string, number>',
    ],
    [
      'a $ref',
      { definitions: { d: object({ x: S }) }, type: 'object', properties: { a: { $ref: '#/definitions/d' }, b: { $ref: '#/definitions/d' } } },
      'object<a: object<x: string>, b: object<x: string>>',
    ],
    [
      'a recursive $ref (any at the recursion)',
      { definitions: { t: object({ v: N, kids: { type: 'array', items: { $ref: '#/definitions/t' } } }) }, $ref: '#/definitions/t' },
      'object<kids: array[any], v: number>',
    ],
  ];
  for (const [name, schema, want] of cases) it(name, () => expect(printType(schemaType(schema))).toBe(want));

  it('refuses schemas OPA refuses, in its words', () => {
    expect(() => schemaType({ allOf: [object({ a: S }), { type: 'array', items: S }] })).toThrow(
      'type checking: unable to merge these schemas: type mismatch: object and array',
    );
    expect(() => schemaType({ type: 'foo' })).toThrow(
      'unable to compile the schema: has a primitive type that is NOT VALID -- given: /foo/ Expected valid values are:[array boolean integer number null object string]',
    );
  });
});

describe('policy check: rule bodies against their schema annotations', () => {
  it('an undefined ref into the input, with have/want', () => {
    expect(check(annotated(REQUEST, 'input.usr == "a"'))).toBe(
      'p.rego:7: rego_type_error: undefined ref: input.usr\n\tinput.usr\n\t      ^\n\t      have: "usr"\n\t      want (one of): ["pair" "roles" "spec" "user"]',
    );
    expect(check(annotated(REQUEST, 'some c in input.spec.containers\n\tc.image == "x"\n\tinput.spec.containers[_].typo'))).toBe(
      'p.rego:9: rego_type_error: undefined ref: input.spec.containers[_].typo\n\tinput.spec.containers[_].typo\n\t                         ^\n\t                         have: "typo"\n\t                         want (one of): ["image" "port"]',
    );
    expect(check(annotated(REQUEST, 'input.user.name'))).toBe(
      'p.rego:7: rego_type_error: undefined ref: input.user.name\n\tinput.user.name\n\t^^^^^^^^^^\n\thave: string',
    );
    expect(check(annotated(REQUEST, 'input.pair[2]'))).toBe(
      'p.rego:7: rego_type_error: undefined ref: input.pair[2]\n\tinput.pair[2]\n\t           ^\n\t           have: 2\n\t           want (type): number',
    );
  });

  it('builtin arguments typed by the schema', () => {
    expect(check(annotated(REQUEST, 'startswith(input.spec.containers[0].port, "x")'))).toBe(
      'p.rego:7: rego_type_error: startswith: invalid argument(s)\n\thave: (number, string)\n\twant: (search: string, base: string, result: boolean)',
    );
    expect(check(annotated(REQUEST, 'x := input.roles[_]\n\tabs(x) > 1'))).toBe(
      'p.rego:8: rego_type_error: abs: invalid argument(s)\n\thave: (string, ???)\n\twant: (x: number, y: number)',
    );
    expect(check(annotated(REQUEST, 'input.pair = [1, "a"]'))).toBe(
      'p.rego:7: rego_type_error: match error\n\tleft  : array<string, number>\n\tright : array<number, string>',
    );
  });

  it('what the schema allows compiles', () => {
    expect(
      check(annotated(REQUEST, 'startswith(input.spec.containers[0].image, "x")\n\tcount(input.roles) > input.pair[1]\n\tinput.user == "u"')),
    ).toBeUndefined();
    // required, enum and additionalProperties are not read: a property not listed is an error all the same
    expect(check(annotated(object({ a: { enum: [1, 2] } }, { additionalProperties: true }), 'upper(input.a) == "A"'))).toBeUndefined();
    expect(check(annotated(object({ a: S }, { additionalProperties: true }), 'input.b'))).toMatch(/undefined ref: input\.b\n/);
  });

  it('allOf, anyOf and $ref', () => {
    const merged = { allOf: [object({ a: S }), object({ b: N })] };
    expect(check(annotated(merged, 'input.a == "x"\n\tinput.b > 1'))).toBeUndefined();
    expect(check(annotated(merged, 'input.c'))).toMatch(/want \(one of\): \["a" "b"\]$/);
    expect(check(annotated({ anyOf: [object({ a: S }), object({ b: N })] }, 'input.c'))).toMatch(/want \(one of\): \["a" "b"\]$/);
    expect(check(annotated({ anyOf: [S, N] }, 'input.c'))).toBe(
      'p.rego:7: rego_type_error: undefined ref: input.c\n\tinput.c\n\t^^^^^\n\thave: any<number, string>',
    );
    const withRef = { definitions: { c: object({ image: S }) }, type: 'object', properties: { c: { $ref: '#/definitions/c' } } };
    expect(check(annotated(withRef, 'input.c.tag'))).toMatch(/undefined ref: input\.c\.tag\n[\s\S]*want \(one of\): \["image"\]$/);
  });

  it('a schema OPA cannot use is an error at each rule it applies to', () => {
    const missing = 'package p\n\n# METADATA\n# schemas:\n#   - input: schema.missing\nr if input.x == 1\n';
    expect(check(missing, { schemas: set({}) })).toBe('p.rego:6: rego_type_error: undefined schema: schema.missing');
    // with no schema set at all (no --schema), OPA skips an annotation that names one
    expect(check(missing)).toBeUndefined();
    expect(check(annotated({ allOf: [object({ a: S }), { type: 'array', items: S }] }, 'true'))).toBe(
      'p.rego:6: rego_type_error: type checking: unable to merge these schemas: type mismatch: object and array',
    );
    expect(check(annotated({ type: 'integer', minimum: 'x' }, 'true'))).toBe(
      'p.rego:6: rego_type_error: unable to compile the schema: minimum must be of a Number',
    );
    const pkg = '# METADATA\n# schemas:\n#   - input: schema.nope\npackage p\n\na if input.x\n\nb if input.y\n';
    expect(check(pkg, { schemas: set({}) })).toBe(
      '2 errors occurred:\np.rego:6: rego_type_error: undefined schema: schema.nope\np.rego:8: rego_type_error: undefined schema: schema.nope',
    );
  });

  it('scopes: subpackages, package, document, rule, in that order of precedence', () => {
    const numbers = set({ number: { type: 'number' }, string: { type: 'string' } });
    const sub = '# METADATA\n# scope: subpackages\n# schemas:\n# - input: schema.number\npackage a\n';
    expect(
      check(
        [
          ['a.rego', sub],
          ['b.rego', 'package a.b\n\np if { input = "str" }\n'],
        ],
        { schemas: numbers },
      ),
    ).toBe('b.rego:3: rego_type_error: match error\n\tleft  : number\n\tright : string');
    const pkg = '# METADATA\n# scope: package\n# schemas:\n# - input.foo: schema.string\npackage test\n';
    expect(
      check(
        [
          ['t1.rego', pkg],
          ['t2.rego', 'package test\n\np if { input.foo = 7 }\n'],
        ],
        { schemas: numbers },
      ),
    ).toMatch(/^t2\.rego:3: rego_type_error: match error/);
    // a package annotation applies to its package only
    expect(
      check(
        [
          ['t1.rego', pkg],
          ['t2.rego', 'package test.sub\n\np if { input.foo = 7 }\n'],
        ],
        { schemas: numbers },
      ),
    ).toBeUndefined();
    // document scope applies to every definition of the rule, the ones above it too
    const doc = 'package test\n\np if { input = 7 }\n\n# METADATA\n# scope: document\n# schemas:\n# - input: schema.string\np if { input = "foo" }\n';
    expect(check(doc, { schemas: numbers })).toMatch(/^p\.rego:3: rego_type_error: match error/);
    // the rule's own annotation overrides the package's, and applies to it alone
    const own =
      '# METADATA\n# scope: package\n# schemas:\n# - input: schema.string\npackage test\n\n# METADATA\n# schemas:\n# - input: schema.number\np if { input = 7 }\n\nq if { input = 7 }\n';
    expect(check(own, { schemas: numbers })).toMatch(/^p\.rego:12: rego_type_error: match error\n\tleft {2}: string\n\tright : number$/);
    // an else branch is checked with the scopes around the rule, not the rule's own annotation
    const withElse = 'package test\n\n# METADATA\n# schemas:\n# - input: schema.number\np := 1 if { input = 7 } else := 2 if { input = "s" }\n';
    expect(check(withElse, { schemas: numbers })).toBeUndefined();
    expect(
      check(withElse.replace('else := 2 if { input = "s" }', 'else := 2 if { input = 7 }').replace('input = 7 }', 'input = "s" }'), { schemas: numbers }),
    ).toMatch(/^p\.rego:6: rego_type_error: match error/);
  });

  it('paths below input and data override the type there', () => {
    const schemas = set({ acl: object({ alice: { type: 'array', items: S } }), input: object({ user: S }) });
    const m = (lines: string, body: string) => `package policy\n\n# METADATA\n# schemas:\n${lines}\nallow if {\n\t${body}\n}\n`;
    expect(
      check(m('#   - input: schema.input\n#   - data.acl: schema.acl', 'access := data.acl[input.user]\n\taccess[_] == input.user'), { schemas }),
    ).toBeUndefined();
    expect(check(m('#   - data.acl: schema.acl', 'data.acl.bob'), { schemas })).toMatch(/^p\.rego:7: rego_type_error: undefined ref: data\.acl\.bob\n/);
    // data no annotation names is not checked against the annotations
    expect(check(m('#   - data.acl: schema.acl', 'data.other.x'), { schemas })).toBeUndefined();
    expect(
      check(m('#   - input: schema.input\n#   - input.apple.orange: schema.acl', 'input.apple.orange.alice[0]\n\tinput.apple.banana'), { schemas }),
    ).toMatch(/^p\.rego:9: rego_type_error: undefined ref: input\.apple\.banana\n/);
    // without an input schema, only the annotated path is typed
    expect(
      check(m('#   - input.request.object: schema.acl', 'input.request.kind == "Pod"\n\tinput.request.object.alice[_] == "x"'), { schemas }),
    ).toBeUndefined();
    expect(check(m('#   - input.request.object: schema.acl', 'input.request.object.spec'), { schemas })).toMatch(
      /undefined ref: input\.request\.object\.spec\n/,
    );
  });

  it('annotations are read only by the check; a second package or document annotation is an error there', () => {
    const bad = annotated(REQUEST, 'input.usr == "a"');
    expect(check(bad, { annotations: false })).toBeUndefined();
    const twice = 'package test\n\n# METADATA\n# scope: document\n# title: a\np if input.x\n\n# METADATA\n# scope: document\n# title: b\np if input.y\n';
    expect(check(twice)).toBe('p.rego:8: rego_type_error: document annotation redeclared: p.rego:3');
    expect(check(twice, { annotations: false })).toBeUndefined();
    const pkgs: Modules = [
      ['t1.rego', '# METADATA\n# scope: package\n# title: a\npackage test\n'],
      ['t2.rego', '# METADATA\n# scope: package\n# title: b\npackage test\n\np if input.x\n'],
    ];
    expect(check(pkgs)).toBe('t2.rego:1: rego_type_error: package annotation redeclared: t1.rego:1');
  });
});

describe('--schema', () => {
  const dir = mkdtempSync(join(tmpdir(), 'fw-schema-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('a schema file types input in every rule and query, for eval as for check (OPA sets the compiler input type)', () => {
    const schemas = set({ '': REQUEST });
    expect(check('package p\n\nr if input.usr\n', { schemas, annotations: false })).toMatch(/^p\.rego:3: rego_type_error: undefined ref: input\.usr\n/);
    const policy = compilePolicy({ modules: [{ file: 'p.rego', source: 'package p\n\nr if input.user == "u"\n' }], schemas });
    expect(() => policy.query('upper(input.pair[1])')).toThrow('upper: invalid argument(s)');
    expect(policy.query('x = data.p.r', { input: { user: 'u' } })).toHaveLength(1);
    expect(check('package p\n\nr := 1\n', { schemas: set({ '': { type: 'nope' } }), annotations: false })).toMatch(
      /^rego_type_error: unable to compile the schema: has a primitive type/,
    );
  });

  it('a directory is the schema namespace: schema.<dirs>.<name without extension>', async () => {
    mkdirSync(join(dir, 'schemas', 'k8s'), { recursive: true });
    writeFileSync(join(dir, 'schemas', 'input.json'), JSON.stringify(REQUEST));
    writeFileSync(join(dir, 'schemas', 'k8s', 'pod.schema.json'), JSON.stringify(object({ spec: object({ image: S }) })));
    const read = await readSchemas(join(dir, 'schemas'));
    expect([...read.keys()].sort()).toEqual([schemaKey(['input']), schemaKey(['k8s', 'pod.schema'])]);
    mkdirSync(join(dir, 'policies'));
    writeFileSync(
      join(dir, 'policies', 'p.rego'),
      'package p\n\n# METADATA\n# schemas:\n#   - input: schema.input\n#   - input.pod: schema.k8s["pod.schema"]\nr if {\n\tinput.user == "u"\n\tinput.pod.spec.tag\n}\n',
    );
    const options = { schema: join(dir, 'schemas') };
    await expect(loadPolicySet([join(dir, 'policies')], options)).resolves.toBeDefined();
    const refused = await loadPolicySet([join(dir, 'policies')], { ...options, typeCheckAnnotations: true }).catch((e: unknown) => e);
    expect(PolicyLoadError.isInstance(refused)).toBe(true);
    expect((refused as PolicyLoadError).problems.map((p) => `${p.row}: ${p.message.split('\n')[0]}`)).toEqual(['9: undefined ref: input.pod.spec.tag']);
    writeFileSync(join(dir, 'bad.json'), '{"type": ');
    const bad = await readSchemas(join(dir, 'bad.json')).catch((e: unknown) => e);
    expect(PolicyLoadError.isInstance(bad) && bad.problems[0]?.message).toMatch(/^schema is not valid JSON/);
  });
});

/** A generated schema, a document valid against it, and the paths into it (`.a[0].b`) that end at a closed object. */
interface Generated {
  schema: Record<string, unknown>;
  doc: unknown;
  closed: string[];
}

const NAMES = ['a', 'b', 'kind', 'spec', 'items', 'name', 'port', 'user'];

function genSchema(rng: Rng, depth: number, defs: Record<string, unknown>): Generated {
  const leaf = (): Generated =>
    rng.pick<Generated>([
      { schema: { type: 'string' }, doc: 's', closed: [] },
      { schema: { type: 'integer' }, doc: 3, closed: [] },
      { schema: { type: 'boolean' }, doc: true, closed: [] },
    ]);
  if (depth <= 0) return leaf();
  const object = (): Generated => {
    const keys = [...new Set(Array.from({ length: 1 + rng.int(3) }, () => rng.pick(NAMES)))];
    const props: Record<string, unknown> = {};
    const doc: Record<string, unknown> = {};
    const closed = [''];
    for (const k of keys) {
      const g = genSchema(rng, depth - 1, defs);
      props[k] = g.schema;
      doc[k] = g.doc;
      closed.push(...g.closed.map((p) => `.${k}${p}`));
    }
    return { schema: { type: 'object', properties: props, ...(rng.chance(0.3) ? { additionalProperties: true } : {}) }, doc, closed };
  };
  switch (rng.int(7)) {
    case 0:
      return leaf();
    case 1:
    case 2:
      return object();
    case 3: {
      const g = genSchema(rng, depth - 1, defs);
      return { schema: { type: 'array', items: g.schema }, doc: [g.doc, g.doc], closed: g.closed.map((p) => `[1]${p}`) };
    }
    case 4: {
      const gs = [genSchema(rng, depth - 1, defs), genSchema(rng, depth - 1, defs)];
      return {
        schema: { type: 'array', items: gs.map((g) => g.schema) },
        doc: gs.map((g) => g.doc),
        closed: gs.flatMap((g, i) => g.closed.map((p) => `[${i}]${p}`)),
      };
    }
    case 5: {
      // allOf of two objects with distinct keys: the merge has both
      const [x, y] = [object(), object()];
      const xd = x.doc as Record<string, unknown>;
      const yd = y.doc as Record<string, unknown>;
      const xp = (x.schema as { properties: Record<string, unknown> }).properties;
      const yp = (y.schema as { properties: Record<string, unknown> }).properties;
      for (const k of Object.keys(yp)) {
        if (!(k in xp)) continue;
        delete yp[k];
        delete yd[k];
      }
      if (Object.keys(yp).length === 0) return x;
      // the closed objects below the keys each part keeps (`.k…`)
      const keep = (g: Generated, d: Record<string, unknown>) => g.closed.filter((p) => p !== '' && (p.slice(1).split(/[.[]/)[0] as string) in d);
      return { schema: { allOf: [x.schema, y.schema] }, doc: { ...xd, ...yd }, closed: ['', ...keep(x, xd), ...keep(y, yd)] };
    }
    default: {
      const name = `d${Object.keys(defs).length}`;
      defs[name] = {};
      const g = object();
      defs[name] = g.schema;
      return { schema: { $ref: `#/definitions/${name}` }, doc: g.doc, closed: g.closed };
    }
  }
}

/** The refs to every leaf of a document (`input.a[0].b`). */
function leafRefs(doc: unknown, at = 'input'): string[] {
  if (Array.isArray(doc)) return doc.flatMap((x, i) => leafRefs(x, `${at}[${i}]`));
  if (typeof doc === 'object' && doc !== null) return Object.entries(doc).flatMap(([k, v]) => leafRefs(v, `${at}.${k}`));
  return [at];
}

describe('generated schemas: what a valid document has compiles, a key a closed object lacks is refused', () => {
  it('200 schemas of nested objects, arrays, tuples, allOf and $refs', () => {
    const rng = new Rng(11);
    let accepted = 0;
    let refused = 0;
    for (let n = 0; n < 200; n++) {
      const defs: Record<string, unknown> = {};
      const g = genSchema(rng, 3, defs);
      const schema = Object.keys(defs).length > 0 ? { definitions: defs, ...g.schema } : g.schema;
      const refs = leafRefs(g.doc).filter((r) => r !== 'input');
      if (refs.length > 0) {
        const body = refs.map((r) => `_ = ${r}`).join('\n\t');
        expect(check(annotated(schema, body)), `${JSON.stringify(schema)}\n${body}`).toBeUndefined();
        accepted++;
      }
      for (const path of g.closed) {
        const ref = `input${path}.zz_missing`;
        const error = check(annotated(schema, `_ = ${ref}`));
        expect(error ?? `accepted: ${JSON.stringify(schema)}`).toMatch(
          new RegExp(`^p\\.rego:7: rego_type_error: undefined ref: ${ref.replace(/[.[\]]/g, '\\$&')}\\n`),
        );
        refused++;
      }
    }
    console.log(`generated schemas: ${accepted} modules reading what the document has compiled, ${refused} reads of a missing key refused`);
    expect(accepted).toBeGreaterThan(150);
    expect(refused).toBeGreaterThan(150);
  });
});

/** Leaves of a document with their JSON kind: `[ref, "string" | "number" | "boolean"]`. */
function typedLeaves(doc: unknown, at = 'input'): Array<[string, string]> {
  if (Array.isArray(doc)) return doc.flatMap((x, i) => typedLeaves(x, `${at}[${i}]`));
  if (typeof doc === 'object' && doc !== null) return Object.entries(doc).flatMap(([k, v]) => typedLeaves(v, `${at}.${k}`));
  return [[at, typeof doc]];
}

describe('generated schemas against the oracle: a module calling rego.metadata.rule() has its schemas applied by OPA', () => {
  const pylib = oracleDir();
  it.skipIf(pylib === undefined)('the same error text, or both compile (150 schemas, 3 bodies each)', () => {
    const rng = new Rng(23);
    const modules: string[] = [];
    for (let n = 0; n < 150; n++) {
      const defs: Record<string, unknown> = {};
      const g = genSchema(rng, 3, defs);
      const schema = Object.keys(defs).length > 0 ? { definitions: defs, ...g.schema } : g.schema;
      const leaves = typedLeaves(g.doc).filter(([r]) => r !== 'input');
      const bodies: string[] = [];
      if (leaves.length > 0) {
        const [ref, kind] = rng.pick(leaves);
        bodies.push(`_ = ${ref}`, kind === 'string' ? `abs(${ref}) > 1` : `upper(${ref}) == "A"`);
      }
      bodies.push(`_ = input${g.closed.length > 0 ? rng.pick(g.closed) : ''}.zz_missing`);
      for (const b of bodies) modules.push(`${annotated(schema, b)}\nm := rego.metadata.rule()\n`);
    }
    const answers = askOracle(
      modules.map((m) => ({ modules: [['p.rego', m] as const], evals: [{ query: 'data.p', input: '{}' }] })),
      pylib as string,
    );
    let same = 0;
    let refused = 0;
    modules.forEach((m, i) => {
      const env = JSON.parse(answers[i] as string) as { error?: { message: string } };
      const theirs = env.error?.message.replace(/^bundle activation failed: /, '').replace(/^1 error occurred: /, '');
      const opa = theirs === undefined || /^(p\.rego:\d+: )?eval_/.test(theirs) ? undefined : theirs;
      const ours = check(m, { annotations: false });
      expect(ours, m).toBe(opa);
      if (ours === opa) same++;
      if (opa !== undefined) refused++;
    });
    console.log(`generated schemas vs OPA: ${modules.length} modules, ${refused} refused by OPA, ${same} answered the same (error text word for word)`);
    expect(refused).toBeGreaterThan(100);
  });
});
