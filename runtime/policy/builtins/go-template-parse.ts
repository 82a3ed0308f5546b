/**
 * Go text/template values and parser (the subset described in go-template.ts).
 */
export class JsonNumber {
  constructor(readonly text: string) {}
}
export class GoInt {
  /** `type` is the Go type: `int` for literals, lengths and range counters, `uint8` for a byte `index` takes from a string. */
  constructor(
    readonly v: bigint,
    readonly type = 'int',
  ) {}
}
export class GoFloat {
  constructor(readonly v: number) {}
}

/** A Go value; `undefined` is Go's invalid value ("no value"), `null` a nil interface. */
export type GoVal = null | undefined | string | boolean | JsonNumber | GoInt | GoFloat | GoVal[] | Map<string, GoVal>;

export class TemplateError extends Error {}

export type Operand =
  | { t: 'field'; path: string[] }
  | { t: 'var'; name: string; path: string[] }
  /** `overflow`: an integer literal beyond Go's int, an error when evaluated (as in text/template). */
  | { t: 'lit'; v: GoVal; text?: string; overflow?: boolean }
  | { t: 'ident'; name: string }
  | { t: 'pipe'; pipe: Pipe; path: string[] };
export interface Pipe {
  decl: string[];
  assign: boolean;
  cmds: Operand[][];
}
export interface ControlNode {
  t: 'if' | 'range' | 'with';
  pipe: Pipe;
  list: Node[];
  alt: Node[];
}
export type Node =
  | { t: 'text'; s: string }
  | { t: 'action'; pipe: Pipe }
  | ControlNode
  /** `{{template "name" pipeline}}` (and the call a `{{block}}` makes); no pipeline: dot is no value. */
  | { t: 'template'; name: string; pipe: Pipe | undefined }
  | { t: 'break' }
  | { t: 'continue' };

/** A parsed template: the main tree (named `template`, as OPA names it) and every tree `define` and `block` add. */
export interface ParsedTemplate {
  main: Node[];
  trees: Map<string, Node[]>;
}

// ---------------------------------------------------------------- parsing

interface Segment {
  text?: string;
  action?: string;
}

function segments(src: string): Segment[] {
  const out: Segment[] = [];
  let i = 0;
  let trimNext = false;
  while (i < src.length) {
    const open = src.indexOf('{{', i);
    let text = open < 0 ? src.slice(i) : src.slice(i, open);
    if (trimNext) text = text.replace(/^\s+/, '');
    trimNext = false;
    if (open < 0) {
      out.push({ text });
      break;
    }
    let start = open + 2;
    if (/^-[ \t\r\n]/.test(src.slice(start, start + 2))) {
      text = text.replace(/\s+$/, '');
      start += 2;
    }
    out.push({ text });
    const close = findClose(src, start);
    if (close < 0) throw new TemplateError('template: template:1: unclosed action');
    let end = close;
    if (/[ \t\r\n]-$/.test(src.slice(close - 2, close))) {
      end = close - 2;
      trimNext = true;
    }
    const body = src.slice(start, end).trim();
    if (!(body.startsWith('/*') && body.endsWith('*/'))) out.push({ action: body });
    i = close + 2;
  }
  return out;
}

/** Index of the `}}` closing an action, skipping quoted strings. */
function findClose(src: string, from: number): number {
  for (let i = from; i < src.length; i++) {
    const c = src[i];
    if (c === '"' || c === '`' || c === "'") {
      const q = c;
      for (i++; i < src.length && src[i] !== q; i++) if (q !== '`' && src[i] === '\\') i++;
    } else if (c === '}' && src[i + 1] === '}') return i;
  }
  return -1;
}

const INT_MAX = 2n ** 63n - 1n;

function goInt(text: string): GoInt {
  const negative = text.startsWith('-');
  const digits = text.replace(/^[-+]/, '');
  const v = BigInt(digits);
  return new GoInt(negative ? -v : v);
}

type Tok = { k: 'punct'; v: string } | { k: 'op'; o: Operand } | { k: 'word'; v: string };

const FIELD = /^(\.[A-Za-z_][A-Za-z0-9_]*)+/;

function tokenize(s: string): Tok[] {
  const out: Tok[] = [];
  let i = 0;
  const path = (): string[] => {
    const m = FIELD.exec(s.slice(i));
    if (m === null) return [];
    i += m[0].length;
    return m[0].slice(1).split('.');
  };
  while (i < s.length) {
    const c = s[i] as string;
    if (/\s/.test(c)) {
      i++;
    } else if (s.startsWith(':=', i)) {
      out.push({ k: 'punct', v: ':=' });
      i += 2;
    } else if ('()|=,'.includes(c)) {
      out.push({ k: 'punct', v: c });
      i++;
      if (c === ')' && s[i] === '.') out.push({ k: 'punct', v: '.path:' + path().join('.') });
    } else if (c === '.') {
      const p = path();
      if (p.length === 0) i++;
      out.push({ k: 'op', o: { t: 'field', path: p } });
    } else if (c === '$') {
      const m = /^\$[A-Za-z0-9_]*/.exec(s.slice(i)) as RegExpExecArray;
      i += m[0].length;
      out.push({ k: 'op', o: { t: 'var', name: m[0], path: path() } });
    } else if (c === '"') {
      let j = i + 1;
      while (j < s.length && s[j] !== '"') j += s[j] === '\\' ? 2 : 1;
      out.push({ k: 'op', o: { t: 'lit', v: JSON.parse(s.slice(i, j + 1)) as string } });
      i = j + 1;
    } else if (c === '`') {
      const j = s.indexOf('`', i + 1);
      if (j < 0) throw new TemplateError('template: template:1: unterminated raw quoted string');
      out.push({ k: 'op', o: { t: 'lit', v: s.slice(i + 1, j) } });
      i = j + 1;
    } else if (/[-+0-9]/.test(c)) {
      const m = /^[-+]?(0[xX][0-9a-fA-F_]+|[0-9_]*\.?[0-9_]+([eE][-+]?[0-9]+)?)/.exec(s.slice(i));
      if (m === null || m[0] === '') throw new TemplateError(`template: template:1: bad number syntax: "${c}"`);
      i += m[0].length;
      const t = m[0].replace(/_/g, '');
      const v = /^[-+]?(0[xX]|[0-9]+$)/.test(t) ? goInt(t) : new GoFloat(Number(t));
      out.push({ k: 'op', o: { t: 'lit', v, text: m[0], overflow: v instanceof GoInt && (v.v > INT_MAX || v.v < -INT_MAX - 1n) } });
    } else if (/[A-Za-z_]/.test(c)) {
      const m = /^[A-Za-z_][A-Za-z0-9_]*/.exec(s.slice(i)) as RegExpExecArray;
      i += m[0].length;
      out.push({ k: 'word', v: m[0] });
    } else {
      throw new TemplateError(`template: template:1: unexpected "${c}" in command`);
    }
  }
  return out;
}

function parsePipe(toks: Tok[]): Pipe {
  let pos = 0;
  const decl: string[] = [];
  let assign = false;
  // `$a, $b :=` / `$a :=` / `$a =`
  let j = 0;
  const names: string[] = [];
  while (j < toks.length) {
    const t = toks[j];
    if (t?.k !== 'op' || t.o.t !== 'var' || t.o.path.length > 0) break;
    names.push(t.o.name);
    const n = toks[j + 1];
    if (n?.k === 'punct' && n.v === ',') {
      j += 2;
      continue;
    }
    if (n?.k === 'punct' && (n.v === ':=' || n.v === '=')) {
      decl.push(...names);
      assign = n.v === '=';
      pos = j + 2;
    }
    break;
  }
  const cmds: Operand[][] = [];
  let cmd: Operand[] = [];
  const operand = (): Operand => {
    const t = toks[pos++] as Tok;
    if (t.k === 'op') return t.o;
    if (t.k === 'word') {
      if (t.v === 'true' || t.v === 'false') return { t: 'lit', v: t.v === 'true' };
      if (t.v === 'nil') return { t: 'lit', v: null };
      return { t: 'ident', name: t.v };
    }
    if (t.v === '(') {
      let depth = 1;
      const start = pos;
      while (pos < toks.length && depth > 0) {
        const u = toks[pos++] as Tok;
        if (u.k === 'punct' && u.v === '(') depth++;
        if (u.k === 'punct' && u.v === ')') depth--;
      }
      if (depth > 0) throw new TemplateError('template: template:1: unclosed left paren');
      const inner = parsePipe(toks.slice(start, pos - 1));
      const next = toks[pos];
      let path: string[] = [];
      if (next?.k === 'punct' && next.v.startsWith('.path:')) {
        path = next.v.slice(6).split('.');
        pos++;
      }
      return { t: 'pipe', pipe: inner, path };
    }
    throw new TemplateError(`template: template:1: unexpected "${t.v}" in operand`);
  };
  while (pos < toks.length) {
    const t = toks[pos] as Tok;
    if (t.k === 'punct' && t.v === '|') {
      if (cmd.length === 0) throw new TemplateError('template: template:1: missing command');
      cmds.push(cmd);
      cmd = [];
      pos++;
      continue;
    }
    cmd.push(operand());
  }
  if (cmd.length === 0) throw new TemplateError('template: template:1: missing value for command');
  cmds.push(cmd);
  return { decl, assign, cmds };
}

/** What the parser knows where it is: inside how many ranges, and the trees defined so far. */
interface ParseState {
  i: number;
  rangeDepth: number;
  trees: Map<string, Node[]>;
}

/** A tree of nothing but blank text (Go's parse.IsEmptyTree): it neither replaces nor clashes with a definition. */
function isEmptyTree(list: Node[]): boolean {
  return list.every((n) => n.t === 'text' && n.s.trim() === '');
}

/** Adds a named tree as Go's parse does: an empty one never replaces, two non-empty ones are an error. */
function addTree(trees: Map<string, Node[]>, name: string, list: Node[]): void {
  const old = trees.get(name);
  if (old === undefined || isEmptyTree(old)) {
    trees.set(name, list);
    return;
  }
  if (!isEmptyTree(list)) throw new TemplateError(`template: template:1: template: multiple definition of template "${name}"`);
}

/** The quoted name after `define`, `template` or `block`, and the rest of the action. */
function templateName(rest: string, clause: string): { name: string; rest: string } {
  const m = /^\s*("(?:[^"\\]|\\.)*"|`[^`]*`)/.exec(rest);
  if (m === null) {
    const got = rest.trim().split(/\s+/)[0] ?? '';
    throw new TemplateError(`template: template:1: unexpected ${got === '' ? '"}}"' : `"${got}"`} in ${clause}`);
  }
  const quoted = m[1] as string;
  const name = quoted.startsWith('`') ? quoted.slice(1, -1) : (JSON.parse(quoted) as string);
  return { name, rest: rest.slice(m[0].length) };
}

/** Parses segments into nodes until an `end`/`else` action; returns the stopping action text. */
function parseList(segs: Segment[], state: ParseState, nested: boolean): { list: Node[]; stop: string | undefined } {
  const list: Node[] = [];
  while (state.i < segs.length) {
    const seg = segs[state.i++] as Segment;
    if (seg.text !== undefined) {
      if (seg.text !== '') list.push({ t: 'text', s: seg.text });
      continue;
    }
    const a = seg.action as string;
    const word = /^[a-z]+/.exec(a)?.[0];
    if (word === 'end' || word === 'else') {
      if (!nested) throw new TemplateError(`template: template:1: unexpected {{${word}}}`);
      return { list, stop: a };
    }
    if (word === 'if' || word === 'range' || word === 'with') {
      list.push(parseControl(word, a.slice(word.length), segs, state));
      continue;
    }
    if (word === 'define') {
      // Only at the top of a template; anywhere else Go's parser reads it as a command it cannot run.
      if (nested) throw new TemplateError('template: template:1: unexpected <define> in command');
      const { name, rest } = templateName(a.slice(word.length), 'define clause');
      if (rest.trim() !== '') throw new TemplateError(`template: template:1: unexpected "${rest.trim()}" in define clause`);
      const inner: ParseState = { i: state.i, rangeDepth: 0, trees: state.trees };
      const body = parseList(segs, inner, true);
      state.i = inner.i;
      if (!(body.stop as string).startsWith('end')) throw new TemplateError('template: template:1: unexpected {{else}} in define clause');
      addTree(state.trees, name, body.list);
      continue;
    }
    if (word === 'template') {
      const { name, rest } = templateName(a.slice(word.length), 'template clause');
      list.push({ t: 'template', name, pipe: rest.trim() === '' ? undefined : parsePipe(tokenize(rest)) });
      continue;
    }
    if (word === 'block') {
      const { name, rest } = templateName(a.slice(word.length), 'block clause');
      if (rest.trim() === '') throw new TemplateError('template: template:1: missing value for block clause');
      const pipe = parsePipe(tokenize(rest));
      const inner: ParseState = { i: state.i, rangeDepth: 0, trees: state.trees };
      const body = parseList(segs, inner, true);
      state.i = inner.i;
      if (!(body.stop as string).startsWith('end')) throw new TemplateError('template: template:1: unexpected {{else}} in block clause');
      addTree(state.trees, name, body.list);
      list.push({ t: 'template', name, pipe });
      continue;
    }
    if (word === 'break' || word === 'continue') {
      if (a !== word) throw new TemplateError(`template: template:1: unexpected "${a.slice(word.length).trim()}" in {{${word}}}`);
      if (state.rangeDepth === 0) throw new TemplateError(`template: template:1: {{${word}}} outside {{range}}`);
      list.push({ t: word });
      continue;
    }
    list.push({ t: 'action', pipe: parsePipe(tokenize(a)) });
  }
  if (nested) throw new TemplateError('template: template:1: unexpected EOF');
  return { list, stop: undefined };
}

function parseControl(kind: 'if' | 'range' | 'with', rest: string, segs: Segment[], state: ParseState): Node {
  const pipe = parsePipe(tokenize(rest));
  if (kind === 'range') state.rangeDepth++;
  const body = parseList(segs, state, true);
  // A range's {{else}} runs when there is nothing to iterate: break and continue mean nothing there.
  if (kind === 'range') state.rangeDepth--;
  let alt: Node[] = [];
  const stop = body.stop as string;
  if (stop.startsWith('else')) {
    const chained = stop.slice(4).trim();
    const m = /^(if|with)\b/.exec(chained);
    if (m !== null && kind !== 'range') {
      // `{{else if x}}` nests an `if` that shares this control's `{{end}}`.
      alt = [parseControl(m[1] as 'if' | 'with', chained.slice((m[1] as string).length), segs, state)];
    } else {
      const e = parseList(segs, state, true);
      if (!(e.stop as string).startsWith('end')) throw new TemplateError('template: template:1: expected end; found {{else}}');
      alt = e.list;
    }
  }
  return { t: kind, pipe, list: body.list, alt };
}

/** Parses a template into its main tree and the trees it defines. */
export function parseTemplate(src: string): ParsedTemplate {
  const trees = new Map<string, Node[]>();
  const main = parseList(segments(src), { i: 0, rangeDepth: 0, trees }, false).list;
  addTree(trees, 'template', main);
  return { main: trees.get('template') as Node[], trees };
}
