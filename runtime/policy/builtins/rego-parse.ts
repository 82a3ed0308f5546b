/**
 * rego.parse_module(filename, source): the module's AST as OPA's JSON
 * (`{package, imports, rules}`, terms as `{type, value}`, expressions as
 * `{index, terms, negated?, with?}`), without locations, as OPA returns it.
 * Wildcards `_` are numbered `$0`, `$1`, ... in order, as OPA's parser does.
 */
import type { Body, Expr, Module, Rule, Term } from '../ast.js';
import { isConstantTerm } from '../compiler/walk.js';
import { PolicyError } from '../errors.js';
import type { Comment } from '../lexer.js';
import { parseModuleWithSource, type SourceModule } from '../parser.js';
import { compareTerms } from '../ast-order.js';
import { RegoObject, type Value } from '../value.js';
import { asString, type BuiltinDefinition, BuiltinError } from './registry.js';

const o = (entries: Array<[string, Value | undefined]>): RegoObject => RegoObject.fromEntries(entries.filter((e): e is [string, Value] => e[1] !== undefined));

class AstJSON {
  private wildcards = 0;

  term(t: Term): Value {
    switch (t.type) {
      case 'null':
        return o([
          ['type', 'null'],
          ['value', new RegoObject()],
        ]);
      case 'boolean':
      case 'number':
      case 'string':
        return o([
          ['type', t.type],
          ['value', t.value],
        ]);
      case 'var':
        return o([
          ['type', 'var'],
          ['value', t.name === '_' ? `$${this.wildcards++}` : t.name],
        ]);
      case 'ref':
        return o([
          ['type', 'ref'],
          ['value', t.terms.map((x) => this.term(x))],
        ]);
      case 'array':
        return o([
          ['type', 'array'],
          ['value', t.items.map((x) => this.term(x))],
        ]);
      case 'set':
        return o([
          ['type', 'set'],
          ['value', sortedBy(t.items.map((x) => [x, this.term(x)] as const))],
        ]);
      case 'object':
        // OPA's objects and sets are written in its term order (keys sorted); wildcards are numbered in source order first.
        return o([
          ['type', 'object'],
          ['value', sortedBy(t.entries.map(([k, v]) => [k, [this.term(k), this.term(v)]] as const))],
        ]);
      case 'arraycomp':
      case 'setcomp':
        return o([
          ['type', t.type === 'arraycomp' ? 'arraycomprehension' : 'setcomprehension'],
          [
            'value',
            o([
              ['term', this.term(t.term)],
              ['body', this.body(t.body)],
            ]),
          ],
        ]);
      case 'objectcomp':
        return o([
          ['type', 'objectcomprehension'],
          [
            'value',
            o([
              ['key', this.term(t.key)],
              ['value', this.term(t.value)],
              ['body', this.body(t.body)],
            ]),
          ],
        ]);
      case 'call':
        if (t.template !== undefined) {
          const parts = t.template.parts.map((p) => ('kind' in p ? this.expr(p, 0) : this.term(p)));
          return o([
            ['type', 'templatestring'],
            [
              'value',
              o([
                ['multi_line', t.template.multiLine],
                ['parts', parts],
              ]),
            ],
          ]);
        }
        return o([
          ['type', 'call'],
          ['value', [this.term(t.op), ...t.args.map((x) => this.term(x))]],
        ]);
    }
  }

  private op(name: string): Value {
    const parts = name.split('.');
    return this.term({
      type: 'ref',
      terms: parts.map((p, i) => (i === 0 ? { type: 'var', name: p, loc: LOC } : { type: 'string', value: p, loc: LOC })),
      loc: LOC,
    });
  }

  expr(e: Expr, index: number): Value {
    let terms: Value;
    switch (e.kind) {
      case 'term':
        terms = this.term(e.term);
        break;
      case 'call':
        terms = [this.term(e.op), ...e.args.map((x) => this.term(x))];
        break;
      case 'some':
        if (e.inDomain !== undefined && e.inValue !== undefined) {
          const args = [...(e.inKey !== undefined ? [this.term(e.inKey)] : []), this.term(e.inValue), this.term(e.inDomain)];
          terms = o([
            [
              'symbols',
              [
                o([
                  ['type', 'call'],
                  ['value', [this.op(e.inKey !== undefined ? 'internal.member_3' : 'internal.member_2'), ...args]],
                ]),
              ],
            ],
          ]);
        } else terms = o([['symbols', e.vars.map((v) => this.term(v))]]);
        break;
      case 'every':
        terms = o([
          ['key', e.key === undefined ? null : this.term(e.key)],
          ['value', this.term(e.value)],
          ['domain', this.term(e.domain)],
          ['body', this.body(e.body)],
        ]);
        break;
      case 'notbody':
        // OPA's shapes for `a or b` and `not { ... }` (future.keywords.or / not).
        terms =
          e.or === undefined
            ? o([
                ['type', 'not'],
                ['body', this.body(e.body)],
                ['explicit_body', true],
              ])
            : o([
                ['type', 'or'],
                ['lhs', this.body(e.or.lhs)],
                ['rhs', this.body(e.or.rhs)],
                ['explicit_lhs', e.or.explicitLhs ? true : undefined],
                ['explicit_rhs', e.or.explicitRhs ? true : undefined],
              ]);
        break;
    }
    return o([
      ['index', index],
      ['negated', e.negated ? true : undefined],
      ['terms', terms],
      [
        'with',
        e.with.length === 0
          ? undefined
          : e.with.map((w) =>
              o([
                ['target', this.term(w.target)],
                ['value', this.term(w.value)],
              ]),
            ),
      ],
    ]);
  }

  body(b: Body): Value[] {
    if (b.length === 0)
      return [
        o([
          ['index', 0],
          [
            'terms',
            o([
              ['type', 'boolean'],
              ['value', true],
            ]),
          ],
        ]),
      ];
    return b.map((e, i) => this.expr(e, i));
  }

  rule(r: Rule): RegoObject {
    const h = r.head;
    const first = h.ref[0];
    // OPA's name and key of a two-part head `p[k]` / `p.k` (its parseRules): written without a body, name p and
    // key k; with a body, key k when k is not ground (or a ref), and name p when a value is written.
    const second = h.key === undefined && h.args === undefined && h.ref.length === 2 ? h.ref[1] : undefined;
    const bodyless = r.body.length === 1 && r.body[0]?.generated === true && !r.default;
    const oldKey = second === undefined ? undefined : bodyless || !isConstantTerm(second) || second.type === 'ref' ? second : undefined;
    const named = second !== undefined && (bodyless || h.generatedValue !== true);
    const name = first?.type === 'var' && (h.ref.length === 1 || named) ? first.name : undefined;
    const value =
      h.value !== undefined
        ? this.term(h.value)
        : h.key === undefined
          ? o([
              ['type', 'boolean'],
              ['value', true],
            ])
          : undefined;
    const head = o([
      ['name', name],
      ['ref', h.ref.map((x) => this.term(x))],
      ['args', h.args === undefined || h.args.length === 0 ? undefined : h.args.map((x) => this.term(x))],
      ['key', h.key !== undefined ? this.term(h.key) : oldKey !== undefined ? this.term(oldKey) : undefined],
      ['value', value],
      ['assign', h.assign ? true : undefined],
    ]);
    return o([
      ['default', r.default ? true : undefined],
      ['head', head],
      ['body', this.body(r.body)],
      ['else', r.else === undefined ? undefined : this.rule(r.else)],
    ]);
  }

  module(m: Module, comments: Comment[]): RegoObject {
    return o([
      [
        'comments',
        comments.length === 0
          ? undefined
          : comments.map((c) =>
              o([
                [
                  'Location',
                  o([
                    ['col', c.col],
                    ['file', m.file],
                    ['row', c.row],
                  ]),
                ],
                // Go marshals the comment's bytes (without the `#`) as base64.
                ['Text', Buffer.from(c.text.slice(1), 'utf8').toString('base64')],
              ]),
            ),
      ],
      ['package', o([['path', m.package.path.terms.map((x) => this.term(x))]])],
      [
        'imports',
        m.imports.length === 0
          ? undefined
          : m.imports.map((i) =>
              o([
                ['path', this.term(i.path)],
                ['alias', i.alias],
              ]),
            ),
      ],
      ['rules', m.rules.length === 0 ? undefined : m.rules.map((r) => this.rule(r))],
    ]);
  }
}

const LOC = { file: '', row: 0, col: 0 };

export const regoParseBuiltins: BuiltinDefinition[] = [
  {
    name: 'rego.parse_module',
    args: ['string', 'string'],
    result: 'object',
    impl: ([file, source]) => {
      const name = asString(file, 1);
      const text = asString(source, 2);
      let parsed: SourceModule;
      try {
        parsed = parseModuleWithSource({ source: text, file: name });
      } catch (e) {
        if (PolicyError.isInstance(e)) throw new BuiltinError(e.errors.length > 1 ? e.message : `1 error occurred: ${e.message}`);
        throw e;
      }
      return new AstJSON().module(parsed.module, parsed.comments);
    },
  },
];

/** The converted terms in OPA's order of their source terms. */
function sortedBy<T>(pairs: ReadonlyArray<readonly [Term, T]>): T[] {
  return [...pairs].sort((a, b) => compareTerms(a[0], b[0])).map((p) => p[1]);
}
