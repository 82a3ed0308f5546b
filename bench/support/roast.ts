/**
 * A stand-in for Regal's `regal.parse_module` builtin: the module's AST in
 * Regal's "roast" shape, written here from our parser's AST and source spans
 * (for bench/rego-corpora.ts, which hands the same value to both engines).
 *
 * The shape, as Regal's roast encoder (pkg/roast, internal/roast) writes it:
 * - every located node has `location: "row:col:endRow:endCol"`, the end
 *   computed from the node's source text as OPA's `Location.Text` holds it
 *   (end column one past the last byte on a one-line text, else the length
 *   of the text's last line plus one);
 * - terms are `{type, value, location?}`; refs, calls, arrays, sets are
 *   arrays of terms, objects arrays of `[key, value]` pairs, empty
 *   composites `[]`, numbers integers where they are;
 * - expressions carry `negated`, `generated`, `with` and `terms` (a term, a
 *   list for a call, `{symbols}` for `some`, `{key, value, domain, body}` for
 *   `every`), without OPA's `index`;
 * - a rule omits a body the parser generated (defaults, `p := 1`, `contains`
 *   heads without a body); a head's generated `true` value has no location;
 * - the package and each import are located at their keyword (OPA's
 *   `Location.Text` for them is the keyword alone), a default rule at
 *   `default`; `data` in the package path has no location;
 * - comments are `{text: base64 of the text after '#', location}`;
 *   `# METADATA` blocks become `annotations` on the package or rule below;
 * - `regal` holds the file context (name, lines, abs, rego_version) and
 *   `operations: ["lint"]`, as Regal's builtin adds it.
 *
 * Not reproduced: OPA's `not { … }` / `or` expression nodes (Regal's encoder
 * of this version writes no terms for them, as here), byte columns on
 * non-ASCII lines (columns count UTF-16 units here), and annotation
 * `schemas` definitions are kept as written.
 */
import { resolve, sep } from 'node:path';
import type { Body, Expr, Head, Module, Rule, Term } from '../../runtime/policy/ast.js';
import { typeName as termKindName } from '../../runtime/policy/parser-terms.js';
import { annotatedStatement, metadataBlocks } from '../../runtime/policy/compiler/metadata.js';
import { RegoDecimal } from '../../runtime/policy/decimal.js';
import type { Comment } from '../../runtime/policy/lexer.js';
import { parseModuleWithSource, type SourceModule } from '../../runtime/policy/parser.js';
import { lineIndexAt, lineStarts } from '../../runtime/policy/source-lines.js';

type Json = null | boolean | number | bigint | string | Json[] | { [k: string]: Json } | RegoDecimal;

const OPERATORS = [':=', '==', '!=', '<=', '>=', '+', '-', '*', '/', '%', '<', '>', '=', '|', '&'];

class RoastEncoder {
  private readonly lineStarts: number[];
  private wildcards = 0;

  constructor(
    private readonly source: string,
    private readonly parsed: SourceModule,
  ) {
    this.lineStarts = lineStarts(source);
  }

  private offset(row: number, col: number): number {
    return (this.lineStarts[row - 1] ?? 0) + col - 1;
  }

  /** `row:col:endRow:endCol` for a text starting at row/col. */
  private loc(row: number, col: number, text: string): string {
    const lines = text.split('\n');
    const endRow = row + lines.length - 1;
    const endCol = lines.length < 2 ? col + Buffer.byteLength(text) : Buffer.byteLength(lines[lines.length - 1] as string) + 1;
    return `${row}:${col}:${endRow}:${endCol}`;
  }

  /** The token at a position (for nodes the parser made without a span: ref parts, operators, keywords). */
  private tokenText(row: number, col: number): string {
    const at = this.offset(row, col);
    const rest = this.source.slice(at);
    const ident = /^[A-Za-z_][A-Za-z0-9_]*/.exec(rest);
    if (ident) return ident[0];
    const str = /^"(?:[^"\\\n]|\\.)*"|^`[^`]*`/.exec(rest);
    if (str) return str[0];
    const num = /^-?[0-9][0-9.eE+-]*/.exec(rest);
    if (num) return num[0];
    return OPERATORS.find((o) => rest.startsWith(o)) ?? rest.slice(0, 1);
  }

  /** The location of a node: its span's text if the parser recorded one, else the token at its position. */
  private nodeLoc(node: object, at: { row: number; col: number }): string {
    const span = this.parsed.spans.get(node);
    const text = span === undefined ? this.tokenText(at.row, at.col) : this.source.slice(span.start, span.end);
    return this.loc(at.row, at.col, text);
  }

  /**
   * An infix call's operator (`a == b`, `x := 1`, `a + b`, `x in xs`): OPA locates its ref at the operator token, our
   * AST at the call's start; found here between the operands' spans.
   */
  private opTerm(op: Term, args: Term[]): Json {
    const a = args[0] === undefined ? undefined : this.parsed.spans.get(args[0]);
    const b = args[1] === undefined ? undefined : this.parsed.spans.get(args[1]);
    if (op.type !== 'ref' || a === undefined || b === undefined || a.end > b.start) return this.term(op);
    const between = this.source.slice(a.end, b.start);
    const m = /^[\s)]*(:=|==|!=|<=|>=|\+|-|\*|\/|%|<|>|=|\||&|in\b)/.exec(between);
    if (m === null) return this.term(op);
    const at = a.end + (m.index + m[0].length - (m[1] as string).length);
    const { row, col } = this.rowCol(at);
    const location = this.loc(row, col, m[1] as string);
    return { type: 'ref', value: op.terms.map((x) => ({ ...(this.term(x) as object), location })), location };
  }

  private rowCol(offset: number): { row: number; col: number } {
    const line = lineIndexAt(this.lineStarts, offset);
    return { row: line + 1, col: offset - (this.lineStarts[line] as number) + 1 };
  }

  term(t: Term, withLocation = true): Json {
    const out: { [k: string]: Json } = { type: termKindName(t), value: this.termValue(t) };
    if (withLocation && t.loc.row > 0) out['location'] = this.nodeLoc(t, t.loc);
    return out;
  }

  private termValue(t: Term): Json {
    switch (t.type) {
      case 'null':
        return null;
      case 'boolean':
      case 'string':
        return t.value;
      case 'number':
        return t.value;
      case 'var':
        return t.name === '_' ? `$${this.wildcards++}` : t.name;
      case 'ref':
        return t.terms.map((x) => this.term(x));
      case 'call':
        return [this.opTerm(t.op, t.args), ...t.args.map((x) => this.term(x))];
      case 'array':
      case 'set':
        return t.items.map((x) => this.term(x));
      case 'object':
        return t.entries.map(([k, v]) => [this.term(k), this.term(v)]);
      case 'arraycomp':
      case 'setcomp':
        return { term: this.term(t.term), body: this.body(t.body) };
      case 'objectcomp':
        return { key: this.term(t.key), value: this.term(t.value), body: this.body(t.body) };
    }
  }

  private withLoc(e: Expr): string {
    return this.nodeLoc(e, e.loc);
  }

  body(b: Body): Json[] {
    return b.map((e) => {
      const out: { [k: string]: Json } = { location: this.withLoc(e) };
      if (e.negated) out['negated'] = true;
      if (e.generated) out['generated'] = true;
      if (e.with.length > 0) {
        out['with'] = e.with.map((w) => {
          const end = this.parsed.spans.get(w.value);
          const start = this.offset(w.loc.row, w.loc.col);
          const text = end === undefined ? 'with' : this.source.slice(start, end.end);
          return { location: this.loc(w.loc.row, w.loc.col, text), target: this.term(w.target), value: this.term(w.value) };
        });
      }
      switch (e.kind) {
        case 'term':
          out['terms'] = this.term(e.term);
          break;
        case 'call':
          out['terms'] = [this.opTerm(e.op, e.args), ...e.args.map((x) => this.term(x))];
          break;
        case 'some': {
          let symbols: Json[];
          if (e.inDomain !== undefined && e.inValue !== undefined) {
            const args = [...(e.inKey !== undefined ? [e.inKey] : []), e.inValue, e.inDomain];
            const name = e.inKey !== undefined ? 'member_3' : 'member_2';
            // OPA's parser makes `some x in xs` a call term located at `x` (the operator ref at `some`'s position).
            const op = [
              { type: 'var', value: 'internal', location: this.loc(e.loc.row, e.loc.col, 'some') },
              { type: 'string', value: name, location: this.loc(e.loc.row, e.loc.col, 'some') },
            ];
            symbols = [
              { type: 'call', value: [{ type: 'ref', value: op, location: this.loc(e.loc.row, e.loc.col, 'some') }, ...args.map((x) => this.term(x))] },
            ];
          } else symbols = e.vars.map((v) => this.term(v));
          out['terms'] = { location: this.withLoc(e), symbols };
          break;
        }
        case 'every':
          out['terms'] = {
            location: this.withLoc(e),
            key: e.key === undefined ? null : this.term(e.key),
            value: this.term(e.value),
            domain: this.term(e.domain),
            body: this.body(e.body),
          };
          break;
        case 'notbody':
          // Regal's encoder of this version has no case for OPA's Not/Or nodes: no terms.
          break;
      }
      return out;
    });
  }

  private head(h: Head, rule: Rule): Json {
    const out: { [k: string]: Json } = { location: this.nodeLoc(h, h.loc) };
    out['ref'] = h.ref.map((x) => this.term(x));
    if (h.args !== undefined && h.args.length > 0) out['args'] = h.args.map((x) => this.term(x));
    if (h.assign) out['assign'] = true;
    // OPA reads `p[x] if …` / `p[x] := v` as a single-value rule whose key is `x` (the ref keeps both).
    const second = h.ref[1];
    const oldKey = h.key === undefined && h.args === undefined && h.ref.length === 2 && second !== undefined && (!isGround(second) || second.type === 'ref');
    if (h.key !== undefined) out['key'] = this.term(h.key);
    else if (oldKey) out['key'] = this.term(second);
    if (h.value !== undefined) {
      // The parser's generated `true` sits at the head's position: roast drops its location.
      const generated = h.value.loc.row === h.loc.row && h.value.loc.col === h.loc.col;
      out['value'] = this.term(h.value, !generated);
    }
    void rule;
    return out;
  }

  rule(r: Rule, annotations: Map<number, Json[]>): Json {
    const out: { [k: string]: Json } = {};
    if (r.default) out['location'] = this.loc(r.loc.row, r.loc.col, 'default');
    else {
      const span = this.parsed.spans.get(r);
      out['location'] = span === undefined ? this.nodeLoc(r.head, r.loc) : this.loc(r.loc.row, r.loc.col, this.source.slice(span.start, span.end));
    }
    const ann = annotations.get(r.loc.row);
    if (ann !== undefined) out['annotations'] = ann;
    if (r.default) out['default'] = true;
    out['head'] = this.head(r.head, r);
    const generatedBody = r.default || r.body.length === 0 || (r.body.length === 1 && r.body[0]?.generated === true);
    if (!generatedBody) out['body'] = this.body(r.body);
    if (r.else !== undefined) out['else'] = this.rule(r.else, new Map());
    return out;
  }

  module(m: Module, comments: Comment[], file: string, regoVersion: string): Json {
    const blocks = metadataBlocks(this.source, file);
    const pkgAnnotations: Json[] = [];
    const ruleAnnotations = new Map<number, Json[]>();
    for (const b of blocks) {
      const target = annotatedStatement(m, b.row);
      if (target === undefined || ('path' in target && target !== m.package)) continue;
      const declared = b.doc['scope'];
      const isPackage = target === m.package;
      const scope = typeof declared === 'string' && declared !== '' ? declared : isPackage ? 'package' : b.doc['entrypoint'] === true ? 'document' : 'rule';
      const header = (this.source.split('\n')[b.row - 1] ?? '# METADATA').trimEnd();
      const a = annotation(b.doc, scope, this.loc(b.row, 1, header));
      // The package object lists package and subpackages annotations; the rules theirs (OPA's attachRuleAnnotations).
      if (isPackage) {
        if (scope === 'package' || scope === 'subpackages') pkgAnnotations.push(a);
      } else ruleAnnotations.set(target.loc.row, [...(ruleAnnotations.get(target.loc.row) ?? []), a]);
    }
    const out: { [k: string]: Json } = {};
    const pkg: { [k: string]: Json } = {
      location: this.loc(m.package.loc.row, m.package.loc.col, 'package'),
      path: m.package.path.terms.map((t, i) => this.term(t, i !== 0)),
    };
    if (pkgAnnotations.length > 0) pkg['annotations'] = pkgAnnotations;
    out['package'] = pkg;
    if (m.imports.length > 0) {
      out['imports'] = m.imports.map((i) => {
        const o: { [k: string]: Json } = { location: this.loc(i.loc.row, i.loc.col, 'import'), path: this.term(i.path) };
        if (i.alias !== undefined) o['alias'] = i.alias;
        return o;
      });
    }
    if (m.rules.length > 0) out['rules'] = m.rules.map((r) => this.rule(r, ruleAnnotations));
    if (comments.length > 0) {
      out['comments'] = comments.map((c) => ({
        text: Buffer.from(c.text.slice(1), 'utf8').toString('base64'),
        location: this.loc(c.row, c.col, c.text),
      }));
    }
    out['regal'] = {
      file: { name: file, lines: this.source.replaceAll('\r\n', '\n').split('\n'), abs: resolve(file), rego_version: regoVersion },
      environment: { path_separator: sep },
      operations: ['lint'],
    };
    return out;
  }
}

function isGround(t: Term): boolean {
  switch (t.type) {
    case 'var':
      return false;
    case 'ref':
      return t.terms.every(isGround);
    case 'call':
      return false;
    case 'array':
    case 'set':
      return t.items.every(isGround);
    case 'object':
      return t.entries.every(([k, v]) => isGround(k) && isGround(v));
    case 'arraycomp':
    case 'setcomp':
    case 'objectcomp':
      return false;
    default:
      return true;
  }
}

/** Regal's annotation object: the fields OPA parsed, in its shapes. */
function annotation(doc: Record<string, unknown>, scope: string, location: string): Json {
  const out: { [k: string]: Json } = { location, scope };
  if (typeof doc['title'] === 'string' && doc['title'] !== '') out['title'] = doc['title'];
  if (doc['entrypoint'] === true) out['entrypoint'] = true;
  if (typeof doc['description'] === 'string' && doc['description'] !== '') out['description'] = doc['description'];
  const list = (x: unknown): unknown[] => (x === undefined || x === null ? [] : Array.isArray(x) ? x : [x]);
  const orgs = list(doc['organizations']).filter((x): x is string => typeof x === 'string');
  if (orgs.length > 0) out['organizations'] = orgs;
  const rrs = list(doc['related_resources']).map((r) => {
    const o = typeof r === 'string' ? { ref: r } : (r as Record<string, unknown>);
    const x: { [k: string]: Json } = { ref: String(o['ref'] ?? '') };
    if (typeof o['description'] === 'string' && o['description'] !== '') x['description'] = o['description'];
    return x;
  });
  if (rrs.length > 0) out['related_resources'] = rrs;
  const authors = list(doc['authors']).map((a) => {
    const x: { [k: string]: Json } = {};
    if (typeof a === 'string') {
      const m = /^(.*?)\s*<([^>]*)>\s*$/.exec(a.trim());
      if (m === null) x['name'] = a.trim();
      else {
        if (m[1] !== '') x['name'] = m[1] as string;
        x['email'] = m[2] as string;
      }
    } else if (typeof a === 'object' && a !== null) {
      const o = a as Record<string, unknown>;
      if (typeof o['name'] === 'string' && o['name'] !== '') x['name'] = o['name'];
      if (typeof o['email'] === 'string' && o['email'] !== '') x['email'] = o['email'];
    }
    return x;
  });
  if (authors.length > 0) out['authors'] = authors;
  if (doc['schemas'] !== undefined && doc['schemas'] !== null) out['schemas'] = doc['schemas'] as Json;
  if (typeof doc['custom'] === 'object' && doc['custom'] !== null && Object.keys(doc['custom']).length > 0) out['custom'] = doc['custom'] as Json;
  return out;
}

/**
 * Regal's `regal.parse_module(filename, source)` in roast shape, as plain JSON
 * (numbers as parsed: bigint or RegoDecimal where JSON numbers would lose them).
 * Throws our parser's error when the module does not parse (a builtin error in both engines).
 */
export function roastModule(file: string, source: string): unknown {
  // As Regal's builtin: `_v0.rego` files are read as Rego v0.
  const v0 = file.endsWith('_v0.rego');
  const parsed = parseModuleWithSource({ source, file, regoVersion: v0 ? 0 : 1 });
  return new RoastEncoder(source, parsed).module(parsed.module, parsed.comments, file, v0 ? 'v0' : 'v1');
}
