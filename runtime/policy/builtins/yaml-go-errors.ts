/**
 * What go-yaml v2 (OPA's YAML reader, under sigs.k8s.io/yaml) refuses that
 * the `yaml` package takes, and go-yaml's wording of the errors both find.
 *
 * go-yaml's scanner and parser are libyaml's: a scanner error names the
 * line of its problem (1-based), a parser error the 0-based line of the
 * token it stopped at (so the line before it), and either says no line when
 * that number is 0 (`yaml: line 3: did not find expected key`,
 * `yaml: mapping values are not allowed in this context`).
 */
import type { Document, YAMLError } from 'yaml';

type Stage = 'scanner' | 'parser';

/** 0-based line of `offset`, counting line breaks as go-yaml does (CR LF as one). */
export function lineAt(text: string, offset: number): number {
  let line = 0;
  for (let i = 0; i < offset && i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x0d && text.charCodeAt(i + 1) === 0x0a) continue;
    if (c === 0x0a || c === 0x0d || c === 0x85 || c === 0x2028 || c === 0x2029) line++;
  }
  return line;
}

/** 0-based line of go-yaml's stream-end token: its scanner forces a line break after a last line that has none. */
function streamEndLine(text: string): number {
  const last = text.charCodeAt(text.length - 1);
  const broken = text.length === 0 || last === 0x0a || last === 0x0d || last === 0x85 || last === 0x2028 || last === 0x2029;
  return lineAt(text, text.length) + (broken ? 0 : 1);
}

/** `yaml: line N: problem` as go-yaml's `parser.fail` words it. */
export function goYamlText(stage: Stage, line0: number, problem: string): string {
  const line = stage === 'scanner' && line0 !== 0 ? line0 + 1 : line0;
  return `yaml: ${line === 0 ? '' : `line ${line}: `}${problem}`;
}

/** go-yaml's reader accepts tab, line breaks and printable Unicode (YAML 1.1's c-printable), nothing else. */
export function readerProblem(text: string): string | undefined {
  for (const ch of text) {
    const c = ch.codePointAt(0) as number;
    const ok =
      c === 0x09 ||
      c === 0x0a ||
      c === 0x0d ||
      (c >= 0x20 && c <= 0x7e) ||
      c === 0x85 ||
      (c >= 0xa0 && c <= 0xd7ff) ||
      (c >= 0xe000 && c <= 0xfffd) ||
      c >= 0x10000;
    if (!ok) return 'yaml: control characters are not allowed';
  }
  return undefined;
}

/** The escapes of a YAML 1.1 double-quoted scalar (go-yaml's scanner): `\/` is YAML 1.2's and refused, `\'` taken. */
const ESCAPE = /\\(?:[0abt\tnvfre "'\\N_LP/]|x[0-9A-Fa-f]{2}|u[0-9A-Fa-f]{4}|U[0-9A-Fa-f]{8}|\r\n|[\r\n]|[^])/g;

/** The first escape go-yaml refuses in a double-quoted scalar of `doc`: its offset and go-yaml's error. */
export function escapeProblem(text: string, doc: Document.Parsed): { offset: number; message: string } | undefined {
  let found: { offset: number; message: string } | undefined;
  const visit = (node: unknown): void => {
    if (node === null || typeof node !== 'object') return;
    const n = node as { type?: string; range?: [number, number, number]; items?: unknown[]; key?: unknown; value?: unknown };
    if (n.type === 'QUOTE_DOUBLE' && n.range !== undefined) {
      const source = text.slice(n.range[0], n.range[1]);
      for (const m of source.matchAll(ESCAPE)) {
        const e = m[0];
        const offset = n.range[0] + (m.index ?? 0);
        let problem: string | undefined;
        if (e === '\\/' || /^\\[^0abt\tnvfre "'\\N_LPxuU\r\n]/.test(e)) problem = 'found unknown escape character';
        else if (/^\\[xuU]/.test(e) && e.length === 2) problem = 'did not find expected hexdecimal number';
        else if (/^\\[uU]/.test(e)) {
          const v = parseInt(e.slice(2), 16);
          if ((v >= 0xd800 && v <= 0xdfff) || v > 0x10ffff) problem = 'found invalid Unicode character escape code';
        }
        if (problem !== undefined && (found === undefined || offset < found.offset)) {
          found = { offset, message: goYamlText('scanner', lineAt(text, offset), problem) };
          break;
        }
      }
    }
    if (Array.isArray(n.items)) for (const i of n.items) visit(i);
    if ('key' in n) visit(n.key);
    if ('value' in n && typeof n.value === 'object') visit(n.value);
  };
  visit(doc.contents);
  return found;
}

/**
 * The first directive line (`%` in column 0) before `end` that go-yaml refuses: a name other than YAML or TAG, a
 * `%YAML` without `major.minor` (scanner errors), or a version other than 1.1 (a parser error, "incompatible").
 */
export function directiveProblem(text: string, end: number): { offset: number; message: string } | undefined {
  for (const m of text.slice(0, end).matchAll(/^%([^\s]*)([^\r\n]*)/gm)) {
    const offset = m.index ?? 0;
    const line0 = lineAt(text, offset);
    const [, name = '', rest = ''] = m;
    if (name === 'TAG') continue;
    if (name !== 'YAML')
      return {
        offset,
        message: goYamlText(
          'scanner',
          line0,
          name === '' || /^[\w-]+$/.test(name) ? 'found unknown directive name' : 'found unexpected non-alphabetical character',
        ),
      };
    const version = /^[ \t]+(\d+)\.(\d+)/.exec(rest);
    if (version === null) return { offset, message: goYamlText('scanner', line0, 'did not find expected version number') };
    if (version[1] !== '1' || version[2] !== '1') return { offset, message: goYamlText('parser', line0, 'found incompatible YAML document') };
  }
  return undefined;
}

/**
 * The block collection a misplaced token at `offset` ends up in, as go-yaml
 * sees it: the nearest line above whose indentation is not deeper than the
 * token's column (a `- ` line is a sequence, anything else a mapping).
 */
function enclosingBlock(text: string, offset: number): 'sequence' | 'mapping' {
  const lineStart = text.lastIndexOf('\n', offset - 1) + 1;
  const column = offset - lineStart;
  const above = text.slice(0, lineStart).split('\n').reverse();
  for (const line of above) {
    const body = line.trimStart();
    if (body === '' || body.startsWith('#')) continue;
    if (line.length - body.length <= column) return /^-(\s|$)/.test(body) ? 'sequence' : 'mapping';
  }
  return 'mapping';
}

/**
 * The `yaml` package's error, worded as go-yaml words the same fault where
 * the two parsers see it alike; otherwise the package's own message, with
 * go-yaml's line prefix.
 */
export function goYamlError(text: string, err: YAMLError): string {
  const offset = err.pos[0];
  const line0 = lineAt(text, offset);
  const msg = err.message.replace(/ at line \d+, column \d+[\s\S]*$/, '');
  const at = text.slice(offset);
  if (/^Missing closing ["']quote/.test(msg)) return goYamlText('scanner', lineAt(text, text.length), 'found unexpected end of stream');
  const flow = /^Flow (?:sequence|map).* must .*end with an? ([\]}])$/.exec(msg);
  // A flow left open with nothing after it but plain content (no `:`, no closing bracket) runs to the end of the text,
  // and go-yaml's parser stops at its stream-end token; otherwise at the token the package stopped at.
  if (flow !== null) return goYamlText('parser', /^[^:\]}]*$/.test(at) ? streamEndLine(text) : line0, `did not find expected ',' or '${flow[1]}'`);
  if (err.code === 'TAB_AS_INDENT' || (err.code === 'BAD_SCALAR_START' && /^[@`]/.test(at))) {
    return goYamlText('scanner', line0, 'found character that cannot start any token');
  }
  if (/^nested mappings are not allowed/i.test(msg)) return goYamlText('scanner', line0, 'mapping values are not allowed in this context');
  if (
    /^(?:Unexpected [\w-]+ at node end|All (?:mapping|sequence) items must start at the same column|A block sequence may not be used as an implicit map key)/.test(
      msg,
    )
  ) {
    return goYamlText('parser', line0, enclosingBlock(text, offset) === 'sequence' ? "did not find expected '-' indicator" : 'did not find expected key');
  }
  if (/^Missing directives-end\/doc-start indicator line/.test(msg)) return goYamlText('parser', line0, 'did not find expected <document start>');
  if (/^Sequence item without - indicator/.test(msg)) return goYamlText('parser', line0, "did not find expected '-' indicator");
  if (/^Plain value cannot start with directive indicator character %/.test(msg))
    return goYamlText('scanner', line0, 'found character that cannot start any token');
  if (/^Unexpected flow-(?:map|seq)-end token/.test(msg)) return goYamlText('parser', line0, 'did not find expected node content');
  return goYamlText('scanner', line0, `${msg.charAt(0).toLowerCase()}${msg.slice(1)}`);
}
