/**
 * Go text/template values and parser (the subset described in go-template.ts).
 */
import { goQuote } from '../value-format.js';

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

/**
 * Where a node is, for Go's exec errors (`template:1:9: executing "template" at <3>`): `pos` is its offset in the
 * template text (Go's Pos, in UTF-16 units here) and `text` its String() form.
 */
export interface At {
  pos: number;
  text: string;
}

export type Operand = At &
  (
    | { t: 'field'; path: string[] }
    | { t: 'var'; name: string; path: string[] }
    /** `overflow`: an integer literal beyond Go's int, an error when evaluated (as in text/template). */
    | { t: 'lit'; v: GoVal; overflow?: boolean }
    | { t: 'ident'; name: string }
    /** A parenthesized pipeline; with a `path`, Go's ChainNode (`(pipe).a`). */
    | { t: 'pipe'; pipe: Pipe; path: string[] }
  );
/** A command: a function with its arguments, or one operand. */
export interface Command extends At {
  args: Operand[];
}
export interface Pipe extends At {
  decl: string[];
  assign: boolean;
  cmds: Command[];
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
  | ({ t: 'template'; name: string; pipe: Pipe | undefined } & At)
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
  /** Where the action's text starts in the template. */
  at?: number;
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
    const raw = src.slice(start, end);
    const body = raw.trim();
    if (!(body.startsWith('/*') && body.endsWith('*/'))) out.push({ action: body, at: start + raw.length - raw.trimStart().length });
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
const UINT_MAX = 2n ** 64n - 1n;

function goInt(text: string): GoInt {
  const negative = text.startsWith('-');
  const digits = text.replace(/^[-+]/, '');
  const v = BigInt(digits);
  return new GoInt(negative ? -v : v);
}

/** A token and where it starts (`pos`) in the template. */
type Tok = ({ k: 'punct'; v: string } | { k: 'op'; o: Operand } | { k: 'word'; v: string }) & { pos: number };

const FIELD = /^(\.[A-Za-z_][A-Za-z0-9_]*)+/;

/** Tokens of an action's text `s`, which starts at `base` in the template. */
function tokenize(s: string, base: number): Tok[] {
  const out: Tok[] = [];
  let i = 0;
  /** Fields from `i`, and where the second starts: Go's lexer makes `.a.b` two tokens and the node takes the second's place. */
  const path = (): { path: string[]; chained: number } => {
    const m = FIELD.exec(s.slice(i));
    if (m === null) return { path: [], chained: base + i };
    const second = m[0].indexOf('.', 1);
    const chained = base + i + (second < 0 ? 0 : second);
    i += m[0].length;
    return { path: m[0].slice(1).split('.'), chained };
  };
  while (i < s.length) {
    const c = s[i] as string;
    const pos = base + i;
    if (/\s/.test(c)) {
      i++;
    } else if (s.startsWith(':=', i)) {
      out.push({ k: 'punct', v: ':=', pos });
      i += 2;
    } else if ('()|=,'.includes(c)) {
      out.push({ k: 'punct', v: c, pos });
      i++;
      if (c === ')' && s[i] === '.') {
        const at = base + i;
        out.push({ k: 'punct', v: '.path:' + path().path.join('.'), pos: at });
      }
    } else if (c === '.') {
      const p = path();
      if (p.path.length === 0) i++;
      const text = p.path.length === 0 ? '.' : `.${p.path.join('.')}`;
      out.push({ k: 'op', o: { t: 'field', path: p.path, pos: p.chained, text }, pos });
    } else if (c === '$') {
      const m = /^\$[A-Za-z0-9_]*/.exec(s.slice(i)) as RegExpExecArray;
      i += m[0].length;
      const after = base + i;
      const p = path().path;
      out.push({ k: 'op', o: { t: 'var', name: m[0], path: p, pos: p.length === 0 ? pos : after, text: [m[0], ...p].join('.') }, pos });
    } else if (c === '"') {
      let j = i + 1;
      while (j < s.length && s[j] !== '"') j += s[j] === '\\' ? 2 : 1;
      const text = s.slice(i, j + 1);
      out.push({ k: 'op', o: { t: 'lit', v: JSON.parse(text) as string, pos, text }, pos });
      i = j + 1;
    } else if (c === '`') {
      const j = s.indexOf('`', i + 1);
      if (j < 0) throw new TemplateError('template: template:1: unterminated raw quoted string');
      out.push({ k: 'op', o: { t: 'lit', v: s.slice(i + 1, j), pos, text: s.slice(i, j + 1) }, pos });
      i = j + 1;
    } else if (/[-+0-9]/.test(c)) {
      const m = /^[-+]?(0[xX][0-9a-fA-F_]+|[0-9_]*\.?[0-9_]+([eE][-+]?[0-9]+)?)/.exec(s.slice(i));
      if (m === null || m[0] === '') throw new TemplateError(`template: template:1: bad number syntax: "${c}"`);
      let text = m[0];
      // Go's lexer takes a `.` after the digits as the number's own (`1.` is 1.0) and refuses a letter right after it.
      if (!/[.eExX]/.test(text) && s[i + text.length] === '.') text += '.';
      // An exponent with no digits (`1e`, `1e+`) is lexed as part of the number, which the parser then refuses.
      const bare = /^[eE][-+]?/.exec(s.slice(i + text.length));
      if (!/[eExX]/.test(text) && bare !== null) {
        text += bare[0];
        const next = s[i + text.length];
        if (next === undefined || !/[A-Za-z0-9_]/.test(next)) throw new TemplateError(`template: template:1: illegal number syntax: ${JSON.stringify(text)}`);
      }
      const after = s[i + text.length];
      if (after !== undefined && /[A-Za-z0-9_]/.test(after))
        throw new TemplateError(`template: template:1: bad number syntax: ${JSON.stringify(text + after)}`);
      i += text.length;
      const t = text.replace(/_/g, '');
      const v = /^[-+]?(0[xX]|[0-9]+$)/.test(t) ? goInt(t) : new GoFloat(Number(t));
      // Go's parser takes an integer beyond both int64 and uint64 for a float, and refuses it as one.
      // A hex literal beyond both is no number at all to it.
      if (v instanceof GoInt && (v.v > UINT_MAX || v.v < -INT_MAX - 1n))
        throw new TemplateError(`template: template:1: ${/^[-+]?0[xX]/.test(t) ? 'illegal number syntax' : 'integer overflow'}: ${JSON.stringify(text)}`);
      out.push({ k: 'op', o: { t: 'lit', v, pos, text, overflow: v instanceof GoInt && (v.v > INT_MAX || v.v < -INT_MAX - 1n) }, pos });
    } else if (/[A-Za-z_]/.test(c)) {
      const m = /^[A-Za-z_][A-Za-z0-9_]*/.exec(s.slice(i)) as RegExpExecArray;
      i += m[0].length;
      out.push({ k: 'word', v: m[0], pos });
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
  const cmds: Command[] = [];
  let cmd: Operand[] = [];
  let cmdPos = 0;
  /** Go's parser refuses a field right after a literal, `nil` or `.` (`{{nil.x}}`: unexpected . after term "nil"). */
  const term = (o: Operand): Operand => {
    const next = toks[pos];
    const plain = o.t === 'lit' || (o.t === 'field' && o.path.length === 0);
    if (plain && next?.k === 'op' && next.o.t === 'field' && next.o.path.length > 0 && next.pos === o.pos + o.text.length)
      throw new TemplateError(`template: template:1: unexpected . after term ${goQuote(o.text)}`);
    return o;
  };
  const operand = (): Operand => {
    const t = toks[pos++] as Tok;
    if (cmd.length === 0) cmdPos = t.pos;
    if (t.k === 'op') return term(t.o);
    if (t.k === 'word') {
      if (t.v === 'true' || t.v === 'false') return term({ t: 'lit', v: t.v === 'true', pos: t.pos, text: t.v });
      if (t.v === 'nil') return term({ t: 'lit', v: null, pos: t.pos, text: t.v });
      // Go's parser knows every function name, so an unknown one fails before anything runs.
      if (!FUNCTIONS.has(t.v)) throw new TemplateError(`template: template:1: function "${t.v}" not defined`);
      return { t: 'ident', name: t.v, pos: t.pos, text: t.v };
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
      if (next?.k === 'punct' && next.v.startsWith('.path:')) {
        const path = next.v.slice(6).split('.');
        pos++;
        return { t: 'pipe', pipe: inner, path, pos: next.pos, text: `(${inner.text}).${path.join('.')}` };
      }
      return { t: 'pipe', pipe: inner, path: [], pos: inner.pos, text: inner.text };
    }
    throw new TemplateError(`template: template:1: unexpected "${t.v}" in operand`);
  };
  while (pos < toks.length) {
    const t = toks[pos] as Tok;
    if (t.k === 'punct' && t.v === '|') {
      if (cmd.length === 0) throw new TemplateError('template: template:1: missing command');
      cmds.push(command(cmd, cmdPos));
      cmd = [];
      pos++;
      continue;
    }
    cmd.push(operand());
  }
  if (cmd.length === 0) throw new TemplateError('template: template:1: missing value for command');
  cmds.push(command(cmd, cmdPos));
  const text = (decl.length > 0 ? `${decl.join(', ')} ${assign ? '=' : ':='} ` : '') + cmds.map((c) => c.text).join(' | ');
  return { decl, assign, cmds, pos: toks[0]?.pos ?? 0, text };
}

/** A command node; Go's String() writes a parenthesized pipeline argument in parentheses. */
function command(args: Operand[], pos: number): Command {
  return { args, pos, text: args.map((a) => (a.t === 'pipe' && a.path.length === 0 ? `(${a.text})` : a.text)).join(' ') };
}

/** What the parser knows where it is: inside how many ranges, and the trees defined so far. */
interface ParseState {
  i: number;
  rangeDepth: number;
  trees: Map<string, Node[]>;
  src: string;
}

/** The functions of text/template (see go-template-funcs.ts). */
const FUNCTIONS = new Set([
  'and',
  'or',
  'not',
  'len',
  'index',
  'slice',
  'eq',
  'ne',
  'lt',
  'le',
  'gt',
  'ge',
  'print',
  'printf',
  'println',
  'html',
  'js',
  'urlquery',
  'call',
]);

/** A parse error found in an action on a later line reads that line (`template: template:2: …`), as Go's do. */
function onLine(e: unknown, src: string, at: number): unknown {
  const line = src.slice(0, at).split('\n').length;
  if (!(e instanceof TemplateError) || line === 1 || !e.message.startsWith('template: template:1: ')) return e;
  return new TemplateError(`template: template:${line}: ${e.message.slice('template: template:1: '.length)}`);
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

/** The quoted name after `define`, `template` or `block` (at `base`), where it is, and the rest of the action and where it is. */
function templateName(rest: string, base: number, clause: string): { name: string; namePos: number; rest: string; restPos: number } {
  const m = /^\s*("(?:[^"\\]|\\.)*"|`[^`]*`)/.exec(rest);
  if (m === null) {
    const got = rest.trim().split(/\s+/)[0] ?? '';
    throw new TemplateError(`template: template:1: unexpected ${got === '' ? '"}}"' : `"${got}"`} in ${clause}`);
  }
  const quoted = m[1] as string;
  const name = quoted.startsWith('`') ? quoted.slice(1, -1) : (JSON.parse(quoted) as string);
  return { name, namePos: base + m[0].length - quoted.length, rest: rest.slice(m[0].length), restPos: base + m[0].length };
}

/** Go's String() of a template node: `{{template "name" pipeline}}`. */
function templateText(name: string, pipe: Pipe | undefined): string {
  return `{{template ${goQuote(name)}${pipe === undefined ? '' : ` ${pipe.text}`}}}`;
}

/** Parses segments into nodes until an `end`/`else` action; returns the stopping action text. */
function parseList(segs: Segment[], state: ParseState, nested: boolean): { list: Node[]; stop: string | undefined; stopAt: number } {
  const list: Node[] = [];
  while (state.i < segs.length) {
    const seg = segs[state.i++] as Segment;
    if (seg.text !== undefined) {
      if (seg.text !== '') list.push({ t: 'text', s: seg.text });
      continue;
    }
    const a = seg.action as string;
    const at = seg.at as number;
    try {
      const word = /^[a-z]+/.exec(a)?.[0];
      if (word === 'end' || word === 'else') {
        if (!nested) throw new TemplateError(`template: template:1: unexpected {{${word}}}`);
        return { list, stop: a, stopAt: at };
      }
      if (word === 'if' || word === 'range' || word === 'with') {
        list.push(parseControl(word, a.slice(word.length), at + word.length, segs, state));
        continue;
      }
      if (word === 'define') {
        // Only at the top of a template; anywhere else Go's parser reads it as a command it cannot run.
        if (nested) throw new TemplateError('template: template:1: unexpected <define> in command');
        const { name, rest } = templateName(a.slice(word.length), at + word.length, 'define clause');
        if (rest.trim() !== '') throw new TemplateError(`template: template:1: unexpected "${rest.trim()}" in define clause`);
        const inner: ParseState = { i: state.i, rangeDepth: 0, trees: state.trees, src: state.src };
        const body = parseList(segs, inner, true);
        state.i = inner.i;
        if (!(body.stop as string).startsWith('end')) throw new TemplateError('template: template:1: unexpected {{else}} in define clause');
        addTree(state.trees, name, body.list);
        continue;
      }
      if (word === 'template') {
        const { name, namePos, rest, restPos } = templateName(a.slice(word.length), at + word.length, 'template clause');
        const pipe = rest.trim() === '' ? undefined : parsePipe(tokenize(rest, restPos));
        list.push({ t: 'template', name, pipe, pos: namePos, text: templateText(name, pipe) });
        continue;
      }
      if (word === 'block') {
        const { name, namePos, rest, restPos } = templateName(a.slice(word.length), at + word.length, 'block clause');
        if (rest.trim() === '') throw new TemplateError('template: template:1: missing value for block clause');
        const pipe = parsePipe(tokenize(rest, restPos));
        const inner: ParseState = { i: state.i, rangeDepth: 0, trees: state.trees, src: state.src };
        const body = parseList(segs, inner, true);
        state.i = inner.i;
        if (!(body.stop as string).startsWith('end')) throw new TemplateError('template: template:1: unexpected {{else}} in block clause');
        addTree(state.trees, name, body.list);
        list.push({ t: 'template', name, pipe, pos: namePos, text: templateText(name, pipe) });
        continue;
      }
      if (word === 'break' || word === 'continue') {
        if (a !== word) throw new TemplateError(`template: template:1: unexpected "${a.slice(word.length).trim()}" in {{${word}}}`);
        if (state.rangeDepth === 0) throw new TemplateError(`template: template:1: {{${word}}} outside {{range}}`);
        list.push({ t: word });
        continue;
      }
      list.push({ t: 'action', pipe: parsePipe(tokenize(a, at)) });
    } catch (e) {
      throw onLine(e, state.src, at);
    }
  }
  if (nested) throw new TemplateError('template: template:1: unexpected EOF');
  return { list, stop: undefined, stopAt: 0 };
}

function parseControl(kind: 'if' | 'range' | 'with', rest: string, restPos: number, segs: Segment[], state: ParseState): Node {
  const pipe = parsePipe(tokenize(rest, restPos));
  if (kind === 'range') state.rangeDepth++;
  const body = parseList(segs, state, true);
  // A range's {{else}} runs when there is nothing to iterate: break and continue mean nothing there.
  if (kind === 'range') state.rangeDepth--;
  let alt: Node[] = [];
  const stop = body.stop as string;
  if (stop.startsWith('else')) {
    const afterElse = stop.slice(4);
    const chained = afterElse.trim();
    const chainedPos = body.stopAt + 4 + afterElse.length - afterElse.trimStart().length;
    const m = /^(if|with)\b/.exec(chained);
    if (m !== null && kind !== 'range') {
      // `{{else if x}}` nests an `if` that shares this control's `{{end}}`.
      const k = m[1] as 'if' | 'with';
      alt = [parseControl(k, chained.slice(k.length), chainedPos + k.length, segs, state)];
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
  const main = parseList(segments(src), { i: 0, rangeDepth: 0, trees, src }, false).list;
  addTree(trees, 'template', main);
  return { main: trees.get('template') as Node[], trees };
}
