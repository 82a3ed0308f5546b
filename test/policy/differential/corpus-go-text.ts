/**
 * Text as Go writes it. `strings.replace_n` against OPA: Go's `strings.NewReplacer` over random
 * pattern objects (empty keys, keys that prefix or overlap one another,
 * multi-byte characters, replacements that contain their keys) and strings.
 * Which key wins at a position follows the sorted key order, and an empty
 * key matches between the bytes of a character too. And object keys that
 * are not strings, which OPA turns into their JSON text with Go's HTML-safe
 * escaping (`["a&b"]` becomes the key `["a\u0026b"]`). Go's fmt through
 * `sprintf` (flags, widths and precisions on every verb, numbers whose
 * rounding is an exact tie) and Go's text/template through
 * `strings.render_template`: generated templates of printf, html, js,
 * urlquery, slice, index, eq over missing values, define/template/block and
 * range with break and continue.
 */
import type { Rng, Template } from './corpus.js';

const KEYS = ['', 'a', 'ab', 'b', 'ba', 'aa', 'é', 'e\u0301', '日', 'ß', 'x', '&', '\u00c3'];
const NEWS = ['', 'X', 'a', 'ab', 'é', '-', '&lt;', '日本'];
const STRS = ['', 'a', 'ab', 'aaa', 'abab', 'bab', 'é', 'éa', 'e\u0301e', '日本語', 'straße', 'x&y', 'ba ab', 'aé日'];

function replacerInput(rng: Rng): string {
  const patterns: Record<string, string> = {};
  for (let i = rng.int(4); i > 0; i--) patterns[rng.pick(KEYS)] = rng.pick(NEWS);
  return JSON.stringify({ patterns, s: rng.pick(STRS) });
}

/** Numbers for Go's fmt: exact ties at every precision (0.5, 2.5, 1.25, -0.25, 0.125), big and tiny ones. */
const FMT_NUMBERS = [
  '0',
  '1',
  '-7',
  '255',
  '65',
  '0.5',
  '2.5',
  '1.25',
  '-0.25',
  '0.125',
  '3.14159',
  '1e3',
  '1.5e-7',
  '9.9995',
  '123456789012',
  '12345678901234567890',
  '1e21',
];
const TEXTS = ['', 'ab', 'é', "<a href='x'>&\"", "it's =", '\u2028\u00a0', 'a b&c=d/~', '日本', '\u0000x'];
const SLOTS = [0, 1, 2, 3, 4, 5];

function spec(rng: Rng): string {
  let out = '%';
  for (const flag of ['-', '+', '#', ' ', '0']) if (rng.chance(0.15)) out += flag;
  if (rng.chance(0.4)) out += String(rng.int(9));
  if (rng.chance(0.4)) out += `.${rng.int(rng.chance(0.1) ? 130 : 6)}`;
  return out + rng.pick(['v', 'd', 's', 'f', 'e', 'g', 'G', 'x', 'X', 'q', 'o', 'b', 't', 'T', 'c', 'U', 'E', 'F']);
}

function format(rng: Rng): string {
  return Array.from({ length: 1 + rng.int(3) }, () => spec(rng)).join(rng.pick(['|', ' ', '']));
}

function sprintfArg(rng: Rng): unknown {
  return rng.chance(0.7) ? (JSON.parse(rng.pick(FMT_NUMBERS)) as unknown) : rng.pick([...TEXTS, true, null]);
}

/** Operands a template's functions take: literals of each Go type, fields of every JSON type and a missing one. */
const OPERANDS = ['1', '2.5', '-3', '"x"', '`raw`', 'true', 'nil', '.n', '.s', '.b', '.z', '.a', '.ss', '.m', '.missing', '$'];

function piece(rng: Rng): string {
  switch (rng.int(9)) {
    case 0:
      return `{{printf ${JSON.stringify(format(rng))} ${Array.from({ length: rng.int(3) }, () => rng.pick(OPERANDS)).join(' ')}}}`;
    case 1:
      return `{{${rng.pick(['html', 'js', 'urlquery', 'print', 'println'])} ${Array.from({ length: rng.int(3) }, () => rng.pick(OPERANDS)).join(' ')}}}`;
    case 2:
      return `{{${rng.pick(['slice', 'index'])} ${rng.pick(['.a', '.s', '.ss', '.m', '.n', '.missing', '"héllo"'])} ${Array.from({ length: rng.int(4) }, () => rng.pick(['0', '1', '2', '3', '5', '"k"', '.n'])).join(' ')}}}`;
    case 3:
      return `{{${rng.pick(['eq', 'ne'])} ${rng.pick(OPERANDS)} ${rng.pick(OPERANDS)}}}`;
    case 4: {
      const name = rng.pick(['x', 'y']);
      return `{{define "${name}"}}<${rng.pick(['{{.}}', '{{$}}', '{{len .}}', '{{printf "%v" .}}', ''])}>{{end}}{{template "${rng.pick(['x', 'y'])}" ${rng.pick(['', '.s', '.a', '1'])}}}`;
    }
    case 5:
      return `{{block "b" ${rng.pick(['.', '.ss', '.m'])}}}[{{${rng.pick(['.', 'len .', 'print .'])}}}]{{end}}`;
    case 6:
      return `{{range ${rng.pick(['.ss', '.a', '3', '.m', '.missing'])}}}{{if eq (print .) "${rng.pick(['a', 'b', '1', 'x', 'v'])}"}}{{${rng.pick(['break', 'continue'])}}}{{end}}{{.}};{{else}}none{{end}}`;
    case 7:
      return `{{call ${rng.pick(OPERANDS)}}}`;
    default:
      return rng.pick(['text ', '{{/* c */}}', '{{- " trim " -}}', '{{$v := .s}}{{$v}}', '{{with .missing}}w{{else}}nw{{end}}']);
  }
}

function goTemplate(rng: Rng): string {
  return Array.from({ length: 1 + rng.int(3) }, () => piece(rng)).join('');
}

export const GO_TEXT_TEMPLATES: Template[] = [
  {
    name: 'replace_n',
    modules: [
      [
        'replace_n.rego',
        `package p

r := strings.replace_n(input.patterns, input.s)
n := count(strings.replace_n(input.patterns, input.s))
chained := strings.replace_n(input.patterns, strings.replace_n(input.patterns, input.s))
`,
      ],
    ],
    rules: ['data.p.r', 'data.p.n', 'data.p.chained'],
    inputs: replacerInput,
  },
  {
    name: 'nonstring-keys',
    modules: [
      [
        'nonstring_keys.rego',
        `package p

keys := {[input.s]: 1, {"k": input.s}: 2, 1: input.s, {input.s}: 3, null: "<&>"}
nested := {"outer": {[input.s, "&"]: true}}
marshalled := json.marshal(keys)
`,
      ],
    ],
    rules: ['data.p.keys', 'data.p.nested', 'data.p.marshalled'],
    inputs: (rng: Rng) => JSON.stringify({ s: rng.pick(['a&b', '<tag>', 'x', '\u2028', '"q"', 'é', '']) }),
  },
  {
    name: 'sprintf-flags',
    modules: [
      [
        'sprintf_flags.rego',
        `package p

${SLOTS.map((i) => `f${i} := sprintf(input.formats[${i}], input.args)`).join('\n')}
`,
      ],
    ],
    rules: SLOTS.map((i) => `data.p.f${i}`),
    inputs: (rng: Rng) => JSON.stringify({ formats: SLOTS.map(() => format(rng)), args: Array.from({ length: rng.int(4) }, () => sprintfArg(rng)) }),
  },
  {
    name: 'render-template',
    // Go's exec errors word for word: position, template, node (`template:1:9: executing "template" at <call .s>: …`).
    exactErrors: true,
    modules: [
      [
        'render_template.rego',
        `package p

${SLOTS.map((i) => `t${i} := strings.render_template(input.templates[${i}], input.v)`).join('\n')}
`,
      ],
    ],
    rules: SLOTS.map((i) => `data.p.t${i}`),
    inputs: (rng: Rng) =>
      JSON.stringify({
        templates: SLOTS.map(() => goTemplate(rng)),
        v: {
          n: JSON.parse(rng.pick(FMT_NUMBERS)) as unknown,
          s: rng.pick(TEXTS),
          b: rng.chance(0.5),
          z: null,
          a: [1, 'x', null, true],
          ss: ['a', 'b', 'c'],
          m: { k: 'v', n: 1 },
        },
      }),
  },
];
