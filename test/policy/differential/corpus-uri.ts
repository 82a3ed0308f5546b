/**
 * URLs as OPA reads them (Go's net/url.Parse behind `uri.parse` and
 * `uri.is_valid`): texts built from parts (schemes valid, upper-case and
 * invalid; `//` authorities with and without a scheme, `///`; userinfo;
 * names, IPv4, IPv6 in brackets with zones, bare IPv6, hosts with escapes
 * and odd characters; ports empty, huge, doubled, not digits; paths with
 * escapes, colons in the first segment, `*`; queries and fragments), then
 * sometimes mutated: a control byte, a `%`, a delimiter or a non-ASCII
 * character inserted, a byte removed, the text cut; and short texts of
 * delimiters, hex digits and such at random. Error texts are compared
 * word for word (`exactErrors`). A tenth of the inputs are not strings.
 */
import type { Rng, Template } from './corpus.js';

/** Each part of a URL: plain choices Go accepts, and odd ones (most refused). */
type Choices = readonly [plain: readonly string[], odd: readonly string[]];

const SCHEMES: Choices = [
  ['http', 'https', 'ftp', 'file', 'mailto', 'urn', 'foo'],
  ['HTTP', 'Https', 'data', 'a+b.c-d', 'x1', '1http', '-x', '.x', 'h_t', 'é', ''],
];
const SEPARATORS: Choices = [['://'], [':', ':/', ':///', '', '//', '///']];
const USERINFO: Choices = [
  ['', 'u@', 'u:p@', 'a%20b@', "!$&'()*+,;=@"],
  ['u:@', ':p@', 'a%zz@', 'a%:b@', 'a:b:c@', 'é@', 'a b@', 'a@b@', '[::1]@', '%41@'],
];
const HOSTS: Choices = [
  ['example.com', 'x', 'X.COM', '127.0.0.1', '[::1]', '[fe80::1%25en0]', '[::ffff:1.2.3.4]', '%c3%a9', 'é.com', 'x%25y', ''],
  [
    '[::]',
    '[fe80::1%25%65n0]',
    '[fe80::1%25en%200]',
    '[fe80::1%25a%3a1]',
    '[::1%25]',
    '[::1%en0]',
    '[1.2.3.4]',
    '[::1.2.3]',
    '[1:2:3:4:5:6:1.2.3.4]',
    '[1::2::3]',
    '[12345::]',
    '[1:2:3:4:5:6:7]',
    '[1:2:3:4:5:6:7:8::]',
    '[::g]',
    '[v1.x]',
    '[example.com]',
    '[%ff]',
    '[]',
    '[::1',
    '[::1]]',
    'a[b]',
    'a]b',
    '::1',
    'a:b',
    '%41',
    '%80',
    'x y',
    'x<y>',
    'x"y',
    'x{y}',
    'x\\y',
    "x!$&'()*+,;=",
    'x~y_z-w.v',
  ],
];
const PORTS: Choices = [
  ['', ':80', ':8080', ':'],
  [':0', ':99999', ':abc', ':8%30', ':80:80', ':1é', ':-1', ':+1'],
];
const PATHS: Choices = [
  ['', '/', '/a', '/a/b/', '/a%20b', '/a%2fb', '/é', '/~user/;p=1', '/a+b', '/a!b'],
  ['/a%2Fb', '/a%41', '/a%21b', '/a%2bb', '/%zz', '/%', '/%4', '/%ff', '/%e6%97', '/a%00b', '/a b', '/a:b', 'a:b', './a:b', 'a/b:c', '//x/y', '*'],
];
const QUERIES: Choices = [
  ['', '?q=1', '?q=1&r=a+b', '?é'],
  ['?', '??', '?a?b', '?%zz', '?a#b'],
];
const FRAGMENTS: Choices = [
  ['', '#f', '#%c3%a9', '#é', '#a b'],
  ['#', '#a#b', '#%zz', '#%2', '#%00', '#%a日', '#\u0001'],
];
const NOISE = [
  '\u0000',
  '\u0001',
  '\t',
  '\n',
  '\u007f',
  ' ',
  '%',
  '%2',
  '%e6',
  ':',
  '@',
  '[',
  ']',
  '#',
  '?',
  '/',
  '\\',
  'é',
  '日',
  '😀',
  '\u00ad',
  '\u2028',
  '+',
  '*',
];

const part = (rng: Rng, [plain, odd]: Choices): string => rng.pick(rng.chance(0.7) ? plain : odd);

function fromParts(rng: Rng): string {
  const scheme = rng.chance(0.85) ? part(rng, SCHEMES) : '';
  // Without a scheme a leading `:` is refused outright: mostly relative references then.
  const sep = scheme === '' && rng.chance(0.8) ? rng.pick(['//', '///', '']) : part(rng, SEPARATORS);
  const authority = sep.endsWith('//') ? `${part(rng, USERINFO)}${part(rng, HOSTS)}${part(rng, PORTS)}` : '';
  let path = part(rng, PATHS);
  if (authority !== '' && path !== '' && !path.startsWith('/')) path = `/${path}`;
  return `${scheme}${sep}${authority}${path}${part(rng, QUERIES)}${part(rng, FRAGMENTS)}`;
}

/** Characters for texts made at random: delimiters, hex digits, a scheme's characters, bytes Go refuses. */
const ALPHABET = [..."hp:/?#@[]%%25afAF09.+-_~ !'<>{}|\\", '::', '//', '%25', 'é', '日', '\u0001', '\u007f'];

/** A URL built from parts, mutated a third of the time; or, a fifth of the time, characters at random. */
export function urlText(rng: Rng): string {
  if (rng.chance(0.2)) return Array.from({ length: rng.int(16) }, () => rng.pick(ALPHABET)).join('');
  const s = fromParts(rng);
  if (rng.chance(0.67)) return s;
  const at = rng.int(s.length + 1);
  switch (rng.int(4)) {
    case 0:
    case 1:
      return s.slice(0, at) + rng.pick(NOISE) + s.slice(at);
    case 2:
      return s.slice(0, at) + s.slice(at + 1);
    default:
      return s.slice(0, at);
  }
}

const NOT_STRINGS = [1, null, true, ['http://x'], { u: 'http://x' }];

/** URLs per input: each is parsed and checked by its own pair of rules. */
export const URI_SLOTS = 8;
const SLOTS = Array.from({ length: URI_SLOTS }, (_, i) => i);

export const URI_TEMPLATES: Template[] = [
  {
    name: 'uri-parse',
    modules: [
      [
        'uri.rego',
        `package p

${SLOTS.map((i) => `v${i} := uri.parse(input.s[${i}])\nvalid${i} := uri.is_valid(input.s[${i}])`).join('\n')}
`,
      ],
    ],
    rules: SLOTS.flatMap((i) => [`data.p.v${i}`, `data.p.valid${i}`]),
    inputs: (rng) => JSON.stringify({ s: SLOTS.map(() => (rng.chance(0.1) ? rng.pick(NOT_STRINGS) : urlText(rng))) }),
    exactErrors: true,
  },
];
