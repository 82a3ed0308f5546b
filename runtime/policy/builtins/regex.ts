/**
 * Regular-expression builtins: regex.match (and the deprecated re_match),
 * regex.is_valid, regex.find_n, regex.find_all_string_submatch_n,
 * regex.replace, regex.split, regex.template_match and regex.globs_match.
 *
 * Patterns are RE2 syntax (Go's `regexp`), run by re2js rather than JS
 * `RegExp`: no backreferences or lookaround, Go's flags and escapes (`(?i)`,
 * `\z`, `\pL`), and Go's error messages (`error parsing regexp: missing
 * closing ]: ...`). Iteration over matches, splitting and replacement follow
 * Go's rules for empty matches, and replacement templates are Go's (`$1`,
 * `${name}`, `$$`). Compiled patterns are kept in the per-query cache.
 *
 * Go's regexp reads a byte that is not UTF-8 as U+FFFD and hands back the
 * subject's own bytes: the match runs over the subject with each raw byte
 * (go-bytes.ts) as U+FFFD, which keeps every offset, and the results are cut
 * from the subject itself.
 *
 * regex.globs_match uses the glob-intersection algorithm OPA uses
 * (github.com/yashtewari/glob-intersection), heuristics included.
 */
import { type Matcher, RE2JS } from 're2js';
import { goQuote } from '../value-format.js';
import type { Value } from '../value.js';
import { hasRawBytes, joined, validUTF8 } from '../go-bytes.js';
import { asInt, asString, BuiltinError, type BuiltinContext, type BuiltinDefinition } from './registry.js';

function compileCached(ctx: BuiltinContext, key: string, build: () => RE2JS): RE2JS {
  const hit = ctx.cache.get(key);
  if (hit instanceof RE2JS) return hit;
  let re: RE2JS;
  try {
    re = build();
  } catch (e) {
    throw new BuiltinError(e instanceof Error ? e.message : String(e));
  }
  ctx.cache.set(key, re);
  return re;
}

function compile(ctx: BuiltinContext, pattern: string): RE2JS {
  return compileCached(ctx, `regex:${pattern}`, () => compileGo(pattern));
}

/** RE2JS.compile, refusing a pattern with a raw byte (go-bytes.ts) as Go's regexp/syntax does. */
function compileGo(pattern: string): RE2JS {
  if (hasRawBytes(pattern)) throw new Error(`error parsing regexp: invalid UTF-8: \`${validUTF8(pattern)}\``);
  return RE2JS.compile(pattern);
}

/** UTF-16 code units taken by the code point at `i`. */
function width(s: string, i: number): number {
  const c = s.charCodeAt(i);
  return c >= 0xd800 && c <= 0xdbff && i + 1 < s.length ? 2 : 1;
}

/** Offsets [start0, end0, start1, end1, ...] of the current match; -1 for a group that did not take part. */
function offsets(m: Matcher, groups: number): number[] {
  const out: number[] = [];
  for (let g = 0; g <= groups; g++) out.push(m.start(g), m.end(g));
  return out;
}

/** Go's `allMatches`: successive matches, skipping an empty match right after the previous one. */
function allMatches(re: RE2JS, s: string, n: number, withGroups: boolean): number[][] {
  const limit = n < 0 ? Infinity : n;
  const groups = withGroups ? re.groupCount() : 0;
  const m = re.matcher(s);
  const out: number[][] = [];
  let pos = 0;
  let prevEnd = -1;
  while (out.length < limit && pos <= s.length) {
    if (!m.find(pos)) break;
    const a = offsets(m, groups);
    const [start, end] = a as [number, number];
    let accept = true;
    if (end === pos) {
      if (start === prevEnd) accept = false;
      pos = pos < s.length ? pos + width(s, pos) : s.length + 1;
    } else {
      pos = end;
    }
    prevEnd = end;
    if (accept) out.push(a);
  }
  return out;
}

/** Go's `Regexp.Split(s, -1)`. */
function split(re: RE2JS, pattern: string, s: string): string[] {
  if (pattern.length > 0 && s.length === 0) return [''];
  const out: string[] = [];
  let beg = 0;
  let end = 0;
  for (const a of allMatches(re, validUTF8(s), -1, false)) {
    end = a[0] as number;
    if (a[1] !== 0) out.push(s.slice(beg, end));
    beg = a[1] as number;
  }
  if (end !== s.length) out.push(s.slice(beg));
  return out;
}

const NAME_CHAR = /[\p{L}\p{Nd}_]/u;

/** Go's `Regexp.Expand`: `$n`, `${n}`, `$name`, `${name}` and `$$` in a replacement template. */
function expand(template: string, s: string, match: number[], names: Record<string, number>): string {
  let out = '';
  let t = template;
  for (;;) {
    const dollar = t.indexOf('$');
    if (dollar < 0) break;
    out += t.slice(0, dollar);
    t = t.slice(dollar + 1);
    if (t.startsWith('$')) {
      out += '$';
      t = t.slice(1);
      continue;
    }
    const ref = extractRef(t);
    if (ref === null) {
      out += '$';
      continue;
    }
    t = ref.rest;
    const group = ref.num >= 0 ? ref.num : (names[ref.name] ?? -1);
    const from = match[2 * group];
    const to = match[2 * group + 1];
    if (group >= 0 && from !== undefined && to !== undefined && from >= 0) out += s.slice(from, to);
  }
  return out + t;
}

function extractRef(t: string): { name: string; num: number; rest: string } | null {
  const brace = t.startsWith('{');
  let i = brace ? 1 : 0;
  const begin = i;
  for (const ch of t.slice(begin)) {
    if (!NAME_CHAR.test(ch)) break;
    i += ch.length;
  }
  if (i === begin) return null;
  const name = t.slice(begin, i);
  if (brace) {
    if (t[i] !== '}') return null;
    i++;
  }
  let num = -1;
  if (/^[0-9]+$/.test(name) && !(name.length > 1 && name.startsWith('0'))) {
    num = name.length > 9 ? -1 : Number(name);
  }
  return { name, num, rest: t.slice(i) };
}

/** Go's `Regexp.ReplaceAllString`. */
function replaceAll(re: RE2JS, s: string, template: string): string {
  const groups = template.includes('$') ? re.groupCount() : 0;
  const names = re.namedGroups();
  const m = re.matcher(validUTF8(s));
  let out = '';
  let last = 0;
  let search = 0;
  while (search <= s.length) {
    if (!m.find(search)) break;
    const a = offsets(m, groups);
    const [start, end] = a as [number, number];
    out += s.slice(last, start);
    if (end > last || start === 0) out += expand(template, s, a, names);
    last = end;
    const w = search < s.length ? width(s, search) : 0;
    if (search + w > end) search += w;
    else if (search + 1 > end) search++;
    else search = end;
  }
  return out + s.slice(last);
}

/** Go's `regexp.QuoteMeta`. */
function quoteMeta(s: string): string {
  return s.replace(/[\\.+*?()|[\]{}^$]/g, '\\$&');
}

function utf8Length(s: string): number {
  return Buffer.byteLength(s, 'utf8');
}

/** Top-level delimiter pairs of a template, as [open, close + 1] offsets. */
function delimiterIndices(s: string, open: string, close: string): number[] {
  let level = 0;
  let idx = 0;
  const idxs: number[] = [];
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c === open) {
      if (++level === 1) idx = i;
    } else if (c === close) {
      if (--level === 0) idxs.push(idx, i + 1);
      else if (level < 0) throw new Error(`unbalanced braces in ${goQuote(s)}`);
    }
  }
  if (level !== 0) throw new Error(`unbalanced braces in ${goQuote(s)}`);
  return idxs;
}

/** The anchored pattern of a template such as `foo:<[0-9]+>` with delimiters `<` and `>`. */
function compileTemplate(template: string, open: string, close: string): RE2JS {
  const idxs = delimiterIndices(template, open, close);
  let pattern = '^';
  let end = 0;
  for (let i = 0; i < idxs.length; i += 2) {
    const raw = template.slice(end, idxs[i]);
    end = idxs[i + 1] as number;
    const inner = template.slice((idxs[i] as number) + 1, end - 1);
    pattern += `${quoteMeta(raw)}(${inner})`;
    compileGo(`^${inner}$`);
  }
  return compileGo(`${pattern}${quoteMeta(template.slice(end))}$`);
}

function match(name: string): BuiltinDefinition {
  return {
    name,
    args: ['string', 'string'],
    result: 'boolean',
    impl: ([p, v], ctx) => {
      const pattern = asString(p, 1);
      const value = asString(v, 2);
      return compile(ctx, pattern).test(validUTF8(value));
    },
  };
}

export const regexBuiltins: BuiltinDefinition[] = [
  match('regex.match'),
  match('re_match'),
  {
    name: 'regex.is_valid',
    args: ['string'],
    result: 'boolean',
    impl: ([p], ctx) => {
      if (typeof p !== 'string') return false;
      try {
        compile(ctx, p);
        return true;
      } catch {
        return false;
      }
    },
  },
  {
    name: 'regex.find_n',
    args: ['string', 'string', 'number'],
    result: 'array',
    impl: ([p, v, n], ctx) => {
      const pattern = asString(p, 1);
      const value = asString(v, 2);
      const count = asInt(n, 3);
      return allMatches(compile(ctx, pattern), validUTF8(value), count, false).map((a) => value.slice(a[0], a[1]));
    },
  },
  {
    name: 'regex.find_all_string_submatch_n',
    args: ['string', 'string', 'number'],
    result: 'array',
    impl: ([p, v, n], ctx) => {
      const pattern = asString(p, 1);
      const value = asString(v, 2);
      const count = asInt(n, 3);
      return allMatches(compile(ctx, pattern), validUTF8(value), count, true).map((a) => {
        const groups: Value[] = [];
        for (let i = 0; i < a.length; i += 2) {
          const from = a[i] as number;
          groups.push(from < 0 ? '' : value.slice(from, a[i + 1]));
        }
        return groups;
      });
    },
  },
  {
    name: 'regex.replace',
    args: ['string', 'string', 'string'],
    result: 'string',
    impl: ([s, p, r], ctx) => {
      const base = asString(s, 1);
      const pattern = asString(p, 2);
      const template = asString(r, 3);
      // Raw bytes that meet may make a character (go-bytes.ts).
      return joined(replaceAll(compile(ctx, pattern), base, template));
    },
  },
  {
    name: 'regex.split',
    args: ['string', 'string'],
    result: 'array',
    impl: ([p, v], ctx) => {
      const pattern = asString(p, 1);
      const value = asString(v, 2);
      return split(compile(ctx, pattern), pattern, value);
    },
  },
  {
    name: 'regex.template_match',
    args: ['string', 'string', 'string', 'string'],
    result: 'boolean',
    impl: ([p, v, s, e], ctx) => {
      const template = asString(p, 1);
      const value = asString(v, 2);
      const open = asString(s, 3);
      const close = asString(e, 4);
      // OPA reports the start delimiter's length in both messages.
      if (utf8Length(open) !== 1) throw new BuiltinError(`start delimiter has to be exactly one character long but is ${utf8Length(open)} long`);
      if (utf8Length(close) !== 1) throw new BuiltinError(`end delimiter has to be exactly one character long but is ${utf8Length(open)} long`);
      const key = `regex.template:${open}${close}${template}`;
      return compileCached(ctx, key, () => compileTemplate(template, open, close)).test(validUTF8(value));
    },
  },
  {
    name: 'regex.globs_match',
    args: ['string', 'string'],
    result: 'boolean',
    impl: ([a, b]) => {
      const g1 = asString(a, 1);
      const g2 = asString(b, 2);
      return globsNonEmpty(g1, g2);
    },
  },
];

// ---------------------------------------------------------------------------
// regex.globs_match. Its globs are regex-like: `.` is any character, `[...]` a
// class (with `a-z` ranges), `+` and `*` repeat the token before them, `\`
// escapes. Whether two globs share a non-empty string is decided by the
// library's token-walking heuristic, reproduced here as OPA runs it.

const FLAG_NONE = 0;
const FLAG_PLUS = 1;
const FLAG_STAR = 2;

interface GlobToken {
  kind: 'char' | 'dot' | 'set';
  flag: number;
  /** The character of a `char` token. */
  rune: number;
  /** The members of a `set` token. */
  set: ReadonlySet<number>;
}

const NO_RUNES: ReadonlySet<number> = new Set();
const BACKSLASH = 0x5c;

function globError(input: number[], pos: number, message: string): BuiltinError {
  return new BuiltinError(`input:${String.fromCodePoint(...input)}, pos:${pos}, ${message}: the input provided is invalid`);
}

/** The rune at `index` (after a `\\`, escaped) and the index after it, or null at the end. */
function nextRune(input: number[], index: number): { r: number; escaped: boolean; next: number } | null {
  if (index >= input.length) return null;
  const r = input[index] as number;
  if (r !== BACKSLASH) return { r, escaped: false, next: index + 1 };
  if (index === input.length - 1) throw globError(input, index, 'input ends with a \\ (escape) character');
  return { r: input[index + 1] as number, escaped: true, next: index + 2 };
}

function tokenizeGlob(input: number[]): GlobToken[] {
  const tokens: GlobToken[] = [];
  let index = 0;
  for (;;) {
    const first = nextRune(input, index);
    if (first === null) return tokens;
    let token: GlobToken = { kind: 'char', flag: FLAG_NONE, rune: first.r, set: NO_RUNES };
    index = first.next;
    if (!first.escaped) {
      const c = String.fromCodePoint(first.r);
      if (c === '.') token = { kind: 'dot', flag: FLAG_NONE, rune: 0, set: NO_RUNES };
      else if (c === ']') throw globError(input, index, "set-close ']' with no preceding '['");
      else if (c === '[') [token, index] = tokenizeSet(input, index);
      else if (c === '+' || c === '*') throw globError(input, index, `flag '${c}' must be preceded by a non-flag`);
    }
    const flag = nextRune(input, index);
    if (flag !== null && !flag.escaped && (flag.r === 0x2b || flag.r === 0x2a)) {
      token.flag = flag.r === 0x2b ? FLAG_PLUS : FLAG_STAR;
      index = flag.next;
    }
    tokens.push(token);
  }
}

function tokenizeSet(input: number[], start: number): [GlobToken, number] {
  const runes = new Set<number>();
  let index = start;
  let prev = 0;
  let prevExists = false;
  for (;;) {
    const n = nextRune(input, index);
    if (n === null) throw globError(input, index, 'found [ without matching ]');
    index = n.next;
    if (!n.escaped && n.r === 0x5d) return [{ kind: 'set', flag: FLAG_NONE, rune: 0, set: runes }, index];
    if (n.escaped || n.r !== 0x2d) {
      runes.add(n.r);
      prev = n.r;
      prevExists = true;
      continue;
    }
    if (!prevExists) throw globError(input, index, "range character '-' must be preceded by a Unicode character");
    if (index >= input.length - 1) throw globError(input, index, "range character '-' must be followed by a Unicode character");
    const hi = nextRune(input, index) as { r: number; escaped: boolean; next: number };
    index = hi.next;
    if (!hi.escaped && (hi.r === 0x5d || hi.r === 0x2d)) throw globError(input, index, "range character '-' cannot be followed by a special symbol");
    if (hi.r < prev) {
      throw globError(input, index, `range is out of order: '${String.fromCodePoint(hi.r)}' comes before '${String.fromCodePoint(prev)}' in Unicode`);
    }
    for (let x = prev; x <= hi.r; x++) runes.add(x);
    prevExists = false;
  }
}

function sameToken(a: GlobToken, b: GlobToken): boolean {
  if (a.kind !== b.kind) return false;
  if (a.kind === 'char') return a.rune === b.rune;
  if (a.kind === 'dot') return true;
  if (a.set.size !== b.set.size) return false;
  for (const r of a.set) if (!b.set.has(r)) return false;
  return true;
}

/** Merges adjacent equal flagged tokens (`a*a+` is `a+`). */
function simplifyGlob(tokens: GlobToken[]): GlobToken[] {
  const out: GlobToken[] = [];
  for (const t of tokens) {
    const last = out[out.length - 1];
    if (last !== undefined && t.flag !== FLAG_NONE && last.flag !== FLAG_NONE && sameToken(t, last)) {
      last.flag = t.flag === FLAG_PLUS || last.flag === FLAG_PLUS ? FLAG_PLUS : FLAG_STAR;
    } else out.push(t);
  }
  return out;
}

/** Whether two tokens can match the same character. */
function tokensMatch(a: GlobToken, b: GlobToken): boolean {
  if (a.kind === 'dot' || b.kind === 'dot') return true;
  if (a.kind === 'char' && b.kind === 'char') return a.rune === b.rune;
  if (a.kind === 'char') return b.set.has(a.rune);
  if (b.kind === 'char') return a.set.has(b.rune);
  for (const r of a.set) if (b.set.has(r)) return true;
  return false;
}

function intersectNormal(g1: GlobToken[], g2: GlobToken[]): boolean {
  let i = 0;
  let j = 0;
  for (; i < g1.length && j < g2.length; i++, j++) {
    const a = g1[i] as GlobToken;
    const b = g2[j] as GlobToken;
    if (a.flag !== FLAG_NONE || b.flag !== FLAG_NONE) return intersectSpecial(g1.slice(i), g2.slice(j));
    if (!tokensMatch(a, b)) return false;
  }
  return i === g1.length && j === g2.length;
}

function intersectSpecial(g1: GlobToken[], g2: GlobToken[]): boolean {
  const [flagged, other] = (g1[0] as GlobToken).flag !== FLAG_NONE ? [g1, g2] : [g2, g1];
  return (flagged[0] as GlobToken).flag === FLAG_PLUS ? intersectPlus(flagged, other) : intersectStar(flagged, other);
}

function intersectPlus(plussed: GlobToken[], other: GlobToken[]): boolean {
  const first = other[0] as GlobToken;
  if (!tokensMatch(plussed[0] as GlobToken, first)) return false;
  if (intersectStar(plussed, other.slice(1))) return true;
  return first.flag !== FLAG_NONE && intersectNormal(plussed.slice(1), other);
}

function intersectStar(starred: GlobToken[], other: GlobToken[]): boolean {
  const star = starred[0] as GlobToken;
  const next = starred[1];
  for (let i = 0; i < other.length; i++) {
    const t = other[i] as GlobToken;
    if (next !== undefined && tokensMatch(t, next) && intersectNormal(starred.slice(1), other.slice(i))) return true;
    if (!tokensMatch(t, star)) return false;
  }
  return next === undefined;
}

/** Whether two regex-like globs match a common non-empty string (`gintersect.NonEmpty`). */
function globsNonEmpty(lhs: string, rhs: string): boolean {
  const toRunes = (s: string): number[] => Array.from(s, (c) => c.codePointAt(0) as number);
  let g1 = simplifyGlob(tokenizeGlob(toRunes(lhs)));
  let g2 = simplifyGlob(tokenizeGlob(toRunes(rhs)));
  // Trim equal unflagged prefixes and suffixes, keeping one token of each.
  let l = 0;
  for (; l < g1.length && l < g2.length && (g1[l] as GlobToken).flag === FLAG_NONE && (g2[l] as GlobToken).flag === FLAG_NONE; l++) {
    if (!tokensMatch(g1[l] as GlobToken, g2[l] as GlobToken)) return false;
  }
  if (l > 0) l--;
  let r1 = g1.length - 1;
  let r2 = g2.length - 1;
  for (; r1 >= l && r2 >= l && (g1[r1] as GlobToken).flag === FLAG_NONE && (g2[r2] as GlobToken).flag === FLAG_NONE; r1--, r2--) {
    if (!tokensMatch(g1[r1] as GlobToken, g2[r2] as GlobToken)) return false;
  }
  if (r1 < g1.length - 1) {
    r1++;
    r2++;
  }
  g1 = g1.slice(l, r1 + 1);
  g2 = g2.slice(l, r2 + 1);
  return intersectNormal(g1, g2);
}
