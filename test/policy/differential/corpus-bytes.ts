/**
 * Strings that are not UTF-8: two strings made by decoding random bytes
 * (`base64.decode`: stray continuation bytes, cut sequences, encoded
 * surrogates, 0xFF, mixed with ASCII, é, 日, 😀 and U+FFFD itself), fed
 * through the builtins Go runs over bytes or runes, the comparisons, sets and
 * object keys, and the writers (`json.marshal`, `sprintf`, `yaml.marshal`).
 * Answers come back as JSON, where OPA prints each raw byte as U+FFFD, so
 * strings are compared through `hex.encode` (their bytes) or a boolean or
 * number. The second string is often a piece of the first, so searches,
 * splits and trims find something.
 */
import type { Rng, Template } from './corpus.js';

/** Byte pieces a string is made of. */
const PIECES: readonly number[][] = [
  [0x61],
  [0x62],
  [0x2d],
  [0x20],
  [0x41],
  [0x80],
  [0xbf],
  [0xff],
  [0xfe],
  [0xc3],
  [0xc3, 0xa9], // é
  [0xe6, 0x97, 0xa5], // 日
  [0xe6, 0x97], // 日 cut
  [0x97, 0xa5], // 日 without its lead byte
  [0xf0, 0x9f, 0x98, 0x80], // 😀
  [0xf0, 0x9f, 0x98], // 😀 cut
  [0xef, 0xbf, 0xbd], // U+FFFD itself
  [0xed, 0xa0, 0x80], // an encoded surrogate: three invalid bytes in Go
  [0xc0, 0xaf], // overlong
  [0xf4, 0x90, 0x80, 0x80], // beyond U+10FFFF
];

function bytes(rng: Rng, max: number): number[] {
  const out: number[] = [];
  const n = rng.int(max + 1);
  for (let i = 0; i < n; i++) out.push(...rng.pick(PIECES));
  return out;
}

const b64 = (b: number[]): string => Buffer.from(b).toString('base64');

function bytesInput(rng: Rng): string {
  const a = bytes(rng, 6);
  // The second string: a slice of the first (often cutting a character), other bytes, or empty.
  let b: number[];
  const r = rng.next();
  if (r < 0.45 && a.length > 0) {
    const from = rng.int(a.length);
    b = a.slice(from, from + 1 + rng.int(3));
  } else if (r < 0.9) b = bytes(rng, 2);
  else b = [];
  const q = bytes(rng, 4)
    .map((x) => (rng.chance(0.7) || x >= 0x80 ? `%${x.toString(16).padStart(2, '0')}` : String.fromCharCode(x)))
    .join('');
  return JSON.stringify({ a: b64(a), b: b64(b), i: rng.int(5), n: rng.int(5) - 1, q });
}

const RULES: ReadonlyArray<[name: string, body: string]> = [
  ['eq', 's == t'],
  ['lt', 's < t'],
  ['is_fffd', 's == "\\ufffd"'],
  ['count', 'count(s)'],
  ['b64', 'base64.encode(s)'],
  ['b64url', 'base64url.encode_no_pad(s)'],
  ['hex', 'hex.encode(s)'],
  ['upper', 'hex.encode(upper(s))'],
  ['lower', 'hex.encode(lower(s))'],
  ['substring', 'hex.encode(substring(s, input.i, input.n))'],
  ['indexof', 'indexof(s, t)'],
  ['indexof_n', 'indexof_n(s, t)'],
  ['reverse', 'hex.encode(strings.reverse(s))'],
  ['trim', 'hex.encode(trim(s, t))'],
  ['trim_left', 'hex.encode(trim_left(s, t))'],
  ['trim_right', 'hex.encode(trim_right(s, t))'],
  ['trim_prefix', 'hex.encode(trim_prefix(s, t))'],
  ['trim_suffix', 'hex.encode(trim_suffix(s, t))'],
  ['trim_space', 'hex.encode(trim_space(s))'],
  ['split', '[hex.encode(x) | some x in split(s, t)]'],
  ['replace', 'hex.encode(replace(s, t, "-"))'],
  ['replace_n', 'hex.encode(strings.replace_n({t: "<>", "zz": t}, s))'],
  ['concat', 'hex.encode(concat(t, [s, s]))'],
  ['template', 'hex.encode($"{t}{s}")'],
  ['contains', 'contains(s, t)'],
  ['startswith', 'startswith(s, t)'],
  ['endswith', 'endswith(s, t)'],
  ['any_suffix', 'strings.any_suffix_match(s, t)'],
  ['strings_count', 'strings.count(s, t)'],
  ['sprintf', 'hex.encode(sprintf("%s|%q|%x|%v|%.2s", [s, s, s, [s, t], s]))'],
  ['json', 'json.marshal([s, {s: t}])'],
  ['yaml', 'hex.encode(yaml.marshal({"k": s}))'],
  ['regex_find', '[hex.encode(x) | some x in regex.find_n("[^a]|a+", s, -1)]'],
  ['regex_match', 'regex.match("^[^\\\\x{fffd}]*$", s)'],
  ['regex_replace', 'hex.encode(regex.replace(s, "a|\\\\x{fffd}", "<$0>"))'],
  ['regex_split', '[hex.encode(x) | some x in regex.split("\\\\x{fffd}", s)]'],
  ['sha256', 'crypto.sha256(s)'],
  ['hmac', 'crypto.hmac.sha256(s, t)'],
  ['urlquery', 'urlquery.encode(s)'],
  ['urlquery_decode', 'hex.encode(urlquery.decode(input.q))'],
  ['urlquery_decoded_eq', 'urlquery.decode(input.q) == s'],
  ['set', 'count({s, t, "\\ufffd"})'],
  ['object', 'count({s: 1, t: 2, "\\ufffd": 3})'],
  ['object_get', 'object.get({s: 1}, t, 0)'],
  ['sort', '[hex.encode(x) | some x in sort([s, t, "\\ufffd", "\\udbff\\udfff", "é"])]'],
  ['max', 'hex.encode(max({s, t}))'],
  ['glob', 'glob.match("*", [], s)'],
];

export const BYTES_TEMPLATES: Template[] = [
  {
    name: 'bytes-not-utf8',
    modules: [
      [
        'bytes.rego',
        `package p

s := base64.decode(input.a)
t := base64.decode(input.b)

${RULES.map(([name, body]) => `r_${name} := ${body}`).join('\n')}
`,
      ],
    ],
    rules: RULES.map(([name]) => `data.p.r_${name}`),
    inputs: bytesInput,
  },
];
