/**
 * YAML as OPA reads it (sigs.k8s.io/yaml over go-yaml v2): `yaml.unmarshal`
 * and `yaml.is_valid` on generated text. Three templates: valid documents of
 * many shapes (block and flow collections, quoted and block scalars, anchors,
 * aliases and merge keys, tags, comments, several documents), the same
 * documents cut or mutated at a random point (so go-yaml's error texts are
 * compared word for word: the templates set `exactErrors`), and scalars
 * alone, as values and as keys (numbers, booleans, nulls, timestamps, octal,
 * hex, `.inf`, `~`, `yes`/`no`).
 */
import type { Rng, Template } from './corpus.js';

const WORDS = ['a', 'b', 'name', 'x y', 'key', 'long value with words', 'é', '日本', 'true', 'null', '1', 'on', '-', 'a:b', 'a #c'];
const SCALARS = [
  '0',
  '1',
  '-1',
  '+1',
  '1_000',
  '0x1F',
  '0o17',
  '017',
  '08',
  '0b101',
  '-0b101',
  '1.5',
  '.5',
  '-.5',
  '1e3',
  '1.0e+3',
  '6.8523015e+5',
  '685.230_15e+03',
  '190:20:30',
  '.inf',
  '-.Inf',
  '+.INF',
  '.nan',
  '.NaN',
  '~',
  'null',
  'Null',
  'NULL',
  '',
  'true',
  'True',
  'FALSE',
  'yes',
  'No',
  'ON',
  'off',
  'y',
  'N',
  '2001-12-14',
  '2001-12-14t21:59:43.10-05:00',
  '2001-12-14 21:59:43.10',
  '2002-12-14T21:59:43Z',
  '2001-02-30',
  '2001-1-2',
  '12:30',
  '9223372036854775807',
  '9223372036854775808',
  '18446744073709551615',
  '18446744073709551616',
  '-9223372036854775808',
  '-9223372036854775809',
  '1e400',
  '0.1',
  '123456789012345678901234567890',
  "'quoted'",
  '"dq \\t \\u00e9 \\x41"',
  '"\\/"',
  '!!str 1',
  '!!int "12"',
  '!!float 1',
  '!!bool yes',
  '!!null ""',
  '!!binary aGVsbG8=',
  '!!int x',
  '!!timestamp 2001-12-14',
  '<<',
  '=',
  '-',
  '?',
  ':',
];

function scalar(rng: Rng): string {
  const w = rng.pick(WORDS);
  switch (rng.int(5)) {
    case 0:
      return `'${w.replaceAll("'", "''")}'`;
    case 1:
      return JSON.stringify(w);
    case 2:
      return rng.pick(SCALARS.slice(0, 52));
    default:
      return /^[-?:]|[:#]|^(true|null|1|on)$/.test(w) ? `"${w}"` : w;
  }
}

function flow(rng: Rng, depth: number): string {
  if (depth > 2 || rng.chance(0.4)) return scalar(rng);
  const n = rng.int(4);
  const items = Array.from({ length: n }, () => flow(rng, depth + 1));
  if (rng.chance(0.5)) return `[${items.join(', ')}]`;
  return `{${items.map((v, i) => `k${i}: ${v}`).join(', ')}}`;
}

/** A block node at `indent`, introduced after a key (`value` position) or a dash. */
function block(rng: Rng, indent: number, depth: number, anchors: string[]): string {
  const pad = ' '.repeat(indent);
  const kind = depth > 3 ? 0 : rng.int(7);
  const anchor = rng.chance(0.1) ? `&a${anchors.push(`a${anchors.length}`) - 1} ` : '';
  if (kind === 0 || kind === 1) return ` ${anchor}${scalar(rng)}`;
  if (kind === 2) return ` ${anchor}${flow(rng, 0)}`;
  if (kind === 3) {
    if (anchors.length > 0 && rng.chance(0.6)) return ` *${rng.pick(anchors)}`;
    const style = rng.pick(['|', '>', '|-', '>+', '|2']);
    const lines = Array.from({ length: 1 + rng.int(3) }, () => `${pad}  ${rng.pick(WORDS)}`);
    return ` ${style}\n${lines.join('\n')}`;
  }
  const n = 1 + rng.int(3);
  const out: string[] = [];
  if (kind === 4) {
    for (let i = 0; i < n; i++) out.push(`${pad}-${block(rng, indent + 2, depth + 1, anchors)}`);
  } else {
    // No null key here: sigs.k8s.io/yaml refuses it in Go's random map order, so with two of them OPA names either.
    const keys = ['a', 'b', 'a', 'c', '"q k"', '1', 'true', 'x'];
    for (let i = 0; i < n; i++) {
      if (rng.chance(0.1) && anchors.length > 0) out.push(`${pad}<<: *${rng.pick(anchors)}`);
      else if (rng.chance(0.05)) out.push(`${pad}? ${rng.pick(keys)}\n${pad}:${block(rng, indent + 2, depth + 1, anchors)}`);
      else out.push(`${pad}${rng.pick(keys)}:${block(rng, indent + 2, depth + 1, anchors)}${rng.chance(0.1) ? ' # note' : ''}`);
    }
  }
  return `${anchor === '' ? '' : ` ${anchor.trim()}`}\n${out.join('\n')}`;
}

/** A whole YAML text: a block mapping or sequence, a flow collection or a scalar, with optional markers and documents. */
export function yamlDocument(rng: Rng): string {
  const anchors: string[] = [];
  let body: string;
  const top = rng.int(5);
  if (top === 0) body = flow(rng, 0);
  else if (top === 1) body = scalar(rng);
  else body = block(rng, 0, 0, anchors).replace(/^ ?\n?/, '');
  if (rng.chance(0.2)) body = `# comment\n${body}`;
  if (rng.chance(0.2)) body = `---\n${body}`;
  if (rng.chance(0.1)) body = `%YAML 1.1\n---\n${body}`;
  if (rng.chance(0.15)) body += `\n---\n${block(rng, 0, 1, []).replace(/^ ?\n?/, '')}`;
  if (rng.chance(0.1)) body += '\n...';
  return `${body}\n`;
}

const NOISE = [
  ':',
  ': ',
  '-',
  '- ',
  '[',
  ']',
  '{',
  '}',
  ',',
  '#',
  '&',
  '*',
  '!',
  '|',
  '>',
  "'",
  '"',
  '%',
  '@',
  '`',
  '\t',
  '\n',
  '\n ',
  '  ',
  '?',
  '\\',
  '\u0001',
  '---',
  '...',
  '*x',
  '&a',
];

/** A valid document broken: cut short, a character inserted, one removed, or a line re-indented. */
export function brokenYaml(rng: Rng): string {
  const s = yamlDocument(rng);
  const at = rng.int(s.length + 1);
  switch (rng.int(4)) {
    case 0:
      return s.slice(0, at);
    case 1:
      return s.slice(0, at) + rng.pick(NOISE) + s.slice(at);
    case 2:
      return s.slice(0, at) + s.slice(at + 1);
    default: {
      const lines = s.split('\n');
      const i = rng.int(lines.length);
      lines[i] = ' '.repeat(rng.int(4)) + (lines[i] as string).trimStart();
      return lines.join('\n');
    }
  }
}

export function scalarText(rng: Rng): string {
  const s = rng.pick(SCALARS);
  switch (rng.int(4)) {
    case 0:
      return s;
    case 1:
      return `k: ${s}\n`;
    case 2:
      return `${s}: v\n`;
    default:
      return `- ${s}\n- [${s}]\n`;
  }
}

const MODULE = `package p

v := yaml.unmarshal(input.s)
valid := yaml.is_valid(input.s)
again := yaml.unmarshal(yaml.marshal(yaml.unmarshal(input.s)))
`;

const input = (gen: (rng: Rng) => string) => (rng: Rng) => JSON.stringify({ s: gen(rng) });

export const YAML_TEMPLATES: Template[] = [
  {
    name: 'yaml-documents',
    modules: [['yaml_documents.rego', MODULE]],
    rules: ['data.p.v', 'data.p.valid', 'data.p.again'],
    inputs: input(yamlDocument),
    exactErrors: true,
  },
  { name: 'yaml-broken', modules: [['yaml_broken.rego', MODULE]], rules: ['data.p.v', 'data.p.valid'], inputs: input(brokenYaml), exactErrors: true },
  {
    name: 'yaml-scalars',
    modules: [['yaml_scalars.rego', MODULE]],
    rules: ['data.p.v', 'data.p.valid', 'data.p.again'],
    inputs: input(scalarText),
    exactErrors: true,
  },
];
