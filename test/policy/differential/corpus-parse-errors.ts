/**
 * Broken Rego modules: the corpus's own modules cut at a random point, or
 * with a token deleted, inserted, swapped or doubled, read with
 * `rego.parse_module`. OPA v1.20.2's answer is compared word for word
 * (`exactErrors`): the AST of what still parses, else the error list with
 * its count, rows, texts and the source line with a caret under the column.
 */
import { LANGUAGE_TEMPLATES } from './corpus-language.js';
import { NEGATION_TEMPLATES } from './corpus-negation.js';
import { type Rng, type Template, TEMPLATES } from './corpus.js';

/** Source modules to break: every single-module template of these corpora (real Rego, as OPA parses it). */
export const PARSE_SOURCES: readonly string[] = [...TEMPLATES, ...LANGUAGE_TEMPLATES, ...NEGATION_TEMPLATES]
  .flatMap((t) => t.modules.map(([, source]) => source))
  .filter((s) => s.length < 4000);

/** Rego's tokens, roughly (enough to cut and splice at token boundaries). */
const TOKEN = /\s+|#[^\n]*|\$?"(?:[^"\\\n]|\\.)*"|\$?`[^`]*`|[A-Za-z_][A-Za-z0-9_]*|\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|:=|==|!=|<=|>=|[\s\S]/g;

/** What an insertion puts in: punctuation, keywords, names, literals, line breaks. */
const INSERTS = [
  '[',
  ']',
  '{',
  '}',
  '(',
  ')',
  '.',
  ',',
  ';',
  ':',
  '|',
  '&',
  ':=',
  '=',
  '==',
  '+',
  '-',
  '*',
  'if',
  'else',
  'some',
  'in',
  'every',
  'not',
  'with',
  'as',
  'contains',
  'default',
  'import',
  'package',
  'true',
  'null',
  'x',
  '_',
  'input',
  'data',
  '1',
  '2.5',
  '"s"',
  '`r`',
  '$"t{1}"',
  '\n',
  ' ',
  '\t',
  '#c\n',
  '"',
  '`',
  '@',
  '1e',
  '00',
];

/** The ways {@link brokenModule} breaks a module: cut after a token, cut anywhere, delete, insert, swap, double, replace. */
export type Breakage = 'whole' | 'cut-token' | 'cut' | 'delete' | 'insert' | 'swap' | 'double' | 'replace';
const BREAKAGES: readonly Breakage[] = ['cut-token', 'cut', 'delete', 'insert', 'swap', 'double', 'replace'];

/** A broken (sometimes still valid) variant of a module, broken in one of `ways`. */
export function brokenModule(rng: Rng, ways: readonly Breakage[] = BREAKAGES, sources: readonly string[] = PARSE_SOURCES): string {
  const src = rng.pick(sources);
  const way = rng.pick(ways);
  const toks = src.match(TOKEN) ?? [];
  const solid = toks.map((t, i) => [t, i] as const).filter(([t]) => !/^\s/.test(t) && !t.startsWith('#'));
  const at = () => (rng.pick(solid) ?? ['', 0])[1];
  const splice = (i: number, del: number, ...ins: string[]) => [...toks.slice(0, i), ...ins, ...toks.slice(i + del)].join('');
  switch (way) {
    case 'whole':
      return src;
    case 'cut-token':
      return toks.slice(0, at() + 1).join('');
    case 'cut':
      return src.slice(0, rng.int(src.length));
    case 'delete':
      return splice(at(), 1);
    case 'insert':
      return splice(at(), 0, rng.pick(INSERTS), rng.chance(0.5) ? ' ' : '');
    case 'swap': {
      const k = rng.int(Math.max(1, solid.length - 1));
      const [a, b] = [solid[k], solid[k + 1]];
      if (a === undefined || b === undefined) return src;
      const out = [...toks];
      out[a[1]] = b[0];
      out[b[1]] = a[0];
      return out.join('');
    }
    case 'double': {
      const i = at();
      return splice(i, 1, toks[i] ?? '', ' ', toks[i] ?? '');
    }
    case 'replace':
      return splice(at(), 1, rng.pick(INSERTS));
  }
}

export const PARSE_TEMPLATES: Template[] = [
  {
    name: 'parse-module-broken',
    modules: [['parse_broken.rego', 'package p\n\nast := rego.parse_module("broken.rego", input.s)\n']],
    rules: ['data.p.ast'],
    // The breakages whose every answer is OPA's (parse-measure.test.ts measures the others).
    inputs: (rng) => JSON.stringify({ s: brokenModule(rng, ['whole', 'cut-token']) }),
    exactErrors: true,
  },
];
