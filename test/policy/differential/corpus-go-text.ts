/**
 * Text as Go writes it. `strings.replace_n` against OPA: Go's `strings.NewReplacer` over random
 * pattern objects (empty keys, keys that prefix or overlap one another,
 * multi-byte characters, replacements that contain their keys) and strings.
 * Which key wins at a position follows the sorted key order, and an empty
 * key matches between the bytes of a character too. And object keys that
 * are not strings, which OPA turns into their JSON text with Go's HTML-safe
 * escaping (`["a&b"]` becomes the key `["a\u0026b"]`).
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
];
