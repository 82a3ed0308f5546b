/**
 * Term, expression and body parsing (the part of the grammar shared by
 * modules and queries). Precedence, lowest first, as in OPA: `=`/`:=`, `in`,
 * relations (`==` `!=` `<` `<=` `>` `>=`), `|`, `&`, `+` `-`, `*` `/` `%`.
 * Refs and calls only continue with adjacent tokens (`a.b[c](d)`), so a
 * newline or space ends a term.
 */
import {
  type Body,
  type CallTerm,
  type Expr,
  type Loc,
  mkRef,
  mkVar,
  opRef,
  type OrOperands,
  type StringTerm,
  type TemplateSource,
  type RefTerm,
  refName,
  type Term,
  type VarTerm,
  type With,
} from './ast.js';
import { combineErrors, PolicyError, QueryLocation } from './errors.js';
import { type Token, tokenize } from './lexer.js';
import type { RegoDecimal } from './decimal.js';
import { ExactDigits, parseNumberLiteral } from './value-json.js';
import { recordSourceTexts, recordSpans, type SpanTable } from './parser-spans.js';
import { parserErrorDetail } from './parse-error-line.js';

export type { SpanTable } from './parser-spans.js';

/** The terms a ref may start with (OPA: anything else is an `illegal ref`). */
const REF_HEADS = new Set<Term['type']>(['var', 'array', 'object', 'set', 'call', 'arraycomp', 'setcomp', 'objectcomp']);

/** OPA's name for a term's type in errors (`array`, `setcomprehension`, `templatestring`). */
export function typeName(t: Term): string {
  switch (t.type) {
    case 'arraycomp':
      return 'arraycomprehension';
    case 'setcomp':
      return 'setcomprehension';
    case 'objectcomp':
      return 'objectcomprehension';
    case 'call':
      return t.template !== undefined ? 'templatestring' : 'call';
    default:
      return t.type;
  }
}

/** Failures that carry no error of their own (see `TermParser.silentFailure`). */
const SILENT = new WeakSet<PolicyError>();

/** Errors by row, keeping the order of those on one row. */
export function sortErrors(errors: readonly PolicyError[]): PolicyError[] {
  return [...errors].sort((a, b) => (a.location?.row ?? 0) - (b.location?.row ?? 0));
}

export const KEYWORDS = new Set([
  'package',
  'import',
  'as',
  'default',
  'else',
  'not',
  'some',
  'with',
  'if',
  'contains',
  'every',
  'in',
  'true',
  'false',
  'null',
]);

const ARITH_OPS: Record<string, string> = { '+': 'plus', '-': 'minus' };
const FACTOR_OPS: Record<string, string> = { '*': 'mul', '/': 'div', '%': 'rem' };

/** Keywords Rego v0 only has when imported (`future.keywords.*`, `rego.v1`). */
export const FUTURE_KEYWORDS = ['if', 'contains', 'in', 'every'] as const;

export interface ParserOptions {
  /** Parse Rego v0 (OPA's `--v0-compatible`): the future keywords are plain names until imported. */
  v0?: boolean;
  /** Allow `not { body }` (set by `import future.keywords.not`). */
  notBlocks?: boolean;
  /** Read `a or b` as a disjunction (set by `import future.keywords.or`). */
  orKeyword?: boolean;
  /**
   * When given, the source span of each term, expression, head and rule body
   * is recorded here (for the formatter). The AST itself stays unchanged.
   */
  spans?: SpanTable;
  /** The text parsed: when given (an ad-hoc query), each term and expression's location carries its source text. */
  sourceTexts?: string;
  /** The text the tokens came from: when given, parse errors show its line with a caret, as OPA's do. */
  source?: string;
}

/** OPA's names of operator tokens, as its parse errors print them (`unexpected assign token`). */
const OP_NAMES: Record<string, string> = {
  ':=': 'assign',
  '=': 'eq',
  '==': 'equal',
  '!=': 'neq',
  '<': 'lt',
  '>': 'gt',
  '<=': 'lte',
  '>=': 'gte',
  '+': 'plus',
  '-': 'minus',
  '*': 'mul',
  '/': 'div',
  '%': 'rem',
  '&': 'and',
  '|': 'or',
};

/** The comparison operators and their builtins. */
const RELATION_OPS: Record<string, string> = Object.fromEntries(['==', '!=', '<', '>', '<=', '>='].map((op) => [op, OP_NAMES[op] as string]));

export class TermParser {
  protected i = 0;
  notBlocks: boolean;
  orKeyword: boolean;
  /** The words that are keywords here (Rego v0 lacks the future keywords until they are imported). */
  protected keywords: Set<string>;
  /** The exact digits of this text's number literals, bounded (see MAX_EXACT_DIGITS). */
  protected readonly digits = new ExactDigits();

  constructor(
    protected readonly toks: Token[],
    protected readonly file: string,
    options: ParserOptions = {},
  ) {
    this.keywords = options.v0 === true ? new Set([...KEYWORDS].filter((k) => !(FUTURE_KEYWORDS as readonly string[]).includes(k))) : KEYWORDS;
    this.notBlocks = options.notBlocks === true;
    this.orKeyword = options.orKeyword === true;
    this.spans = options.spans;
    this.source = options.source;
    this.sourceTexts = options.sourceTexts;
    if (this.spans !== undefined) recordSpans({ parser: this, spans: this.spans, start: () => this.tok.offset, end: () => this.prevEnd() });
    if (options.sourceTexts !== undefined)
      recordSourceTexts({ parser: this, source: options.sourceTexts, start: () => this.tok.offset, end: () => this.prevEnd() });
  }

  protected readonly spans: SpanTable | undefined;
  protected readonly source: string | undefined;
  /** An ad-hoc query's text, when its terms carry the text they were parsed from (see parser-spans.ts). */
  private readonly sourceTexts: string | undefined;

  /** End offset of the last consumed token. */
  protected prevEnd(): number {
    return this.i === 0 ? 0 : (this.toks[this.i - 1] as Token).end;
  }

  protected get tok(): Token {
    return this.toks[this.i] as Token;
  }

  protected peek(k = 1): Token {
    return this.toks[Math.min(this.i + k, this.toks.length - 1)] as Token;
  }

  protected advance(): Token {
    const t = this.tok;
    if (t.kind !== 'eof') this.i++;
    return t;
  }

  protected loc(t: Token = this.tok): Loc {
    return { file: this.file, row: t.row, col: t.col };
  }

  protected isOp(text: string, t: Token = this.tok): boolean {
    return t.kind === 'op' && t.text === text;
  }

  protected isKw(word: string, t: Token = this.tok): boolean {
    return t.kind === 'ident' && t.text === word && this.keywords.has(word) && !(t === this.tok && this.keywordRef());
  }

  /**
   * True when the current token is a keyword (or true/false/null) that starts
   * a ref, as OPA reads `as.foo`, `if.x`, `true.foo(1)`: the keyword directly
   * followed by `.` and a name, with no space between.
   */
  protected keywordRef(): boolean {
    const t = this.tok;
    if (t.kind !== 'ident' || !this.keywords.has(t.text)) return false;
    const dot = this.peek();
    const name = this.peek(2);
    return dot.kind === 'op' && dot.text === '.' && !dot.space && name.kind === 'ident' && !name.space;
  }

  /** A parse error at `t`, with the source line and a caret under it when the source is known (as OPA prints them). */
  protected fail(msg: string, t: Token = this.tok): never {
    throw this.parseError(msg, t);
  }

  /**
   * A parse error at `t`. At text the scanner could not read, the scanner's
   * own error comes first (unless `scanError` is false: it was reported already).
   */
  protected parseError(msg: string, t: Token = this.tok, scanError = true): PolicyError {
    this.failedAt = t;
    const at = (detail: string) =>
      new PolicyError({
        code: 'rego_parse_error',
        detail,
        location: this.loc(t),
        parserDetail: this.source === undefined ? undefined : parserErrorDetail(this.source, t.offset),
      });
    if (t.kind !== 'illegal' || t.text === '' || !scanError) return at(msg);
    return combineErrors([at(t.text), at(msg)]);
  }

  /** A token as OPA's errors name it: `identifier token`, `if keyword`, `assign token`, `eof token`. */
  protected describe(t: Token): string {
    switch (t.kind) {
      case 'illegal':
        return 'illegal token';
      case 'eof':
        return 'eof token';
      case 'string':
      case 'number':
        return `${t.kind} token`;
      case 'template':
        return (t.parts ?? []).some((p) => 'expr' in p) ? 'template-string-part token' : 'template-string-end token';
      case 'ident':
        return this.keywords.has(t.text) || (t.text === 'or' && this.orKeyword) ? `${t.text} keyword` : 'identifier token';
      default:
        return `${OP_NAMES[t.text] ?? t.text} token`;
    }
  }

  /** OPA's `unexpected <token>[: note]` at `t`. */
  protected illegal(note: string, t: Token = this.tok): never {
    if (t.kind === 'illegal') return this.fail('illegal token', t);
    return this.fail(note === '' ? `unexpected ${this.describe(t)}` : `unexpected ${this.describe(t)}: ${note}`, t);
  }

  protected unexpected(t: Token = this.tok): never {
    return this.illegal('', t);
  }

  /** The whitespace right after `t`, as a token (OPA reports `unexpected whitespace token` there). */
  protected whitespaceAfter(t: Token): Token {
    // OPA's scanner gives a whitespace token that starts with a newline the next row, at column 0 (the newline read).
    const nl = this.source?.charCodeAt(t.end) === 10;
    return {
      kind: 'op',
      text: 'whitespace',
      space: false,
      newline: false,
      offset: t.end,
      end: t.end + 1,
      row: t.row + (nl ? 1 : 0),
      col: nl ? 0 : t.col + (t.end - t.offset),
    };
  }

  /**
   * Errors OPA records and parses on past: a binary operator whose right
   * operand fails leaves the left operand as the term. They are reported
   * with whatever fails later, and the module's statements stop at the next one.
   */
  protected softErrors: PolicyError[] = [];
  /** Where the last parse error was raised. */
  protected failedAt: Token | undefined;

  /** The errors a failure carries (a combined error's list; none for a {@link silentFailure}). */
  protected static flatten(e: PolicyError): PolicyError[] {
    if (SILENT.has(e)) return [];
    return e.errors.length > 0 ? e.errors.flatMap((x) => TermParser.flatten(x)) : [e];
  }

  /** A failure that adds no error (OPA does not pile a separator error on an earlier one). */
  protected silentFailure(): PolicyError {
    const e = new PolicyError({ code: 'rego_parse_error', detail: 'parse failed', location: this.loc() });
    SILENT.add(e);
    return e;
  }

  /** Every error so far plus `e`, in the order they were met (OPA's order), as one error. */
  protected allErrors(e: PolicyError): PolicyError {
    const list = [...this.softErrors, ...TermParser.flatten(e)];
    if (list.length === 0) return e;
    return combineErrors(list);
  }

  /** `f`, or undefined when it fails: its error is kept (soft) and parsing goes on from the failing token. */
  private soft<T>(f: () => T): T | undefined {
    try {
      return f();
    } catch (e) {
      if (!PolicyError.isInstance(e) || e.code !== 'rego_parse_error') throw e;
      this.softErrors.push(...TermParser.flatten(e));
      const at = this.failedAt;
      if (at !== undefined) {
        const k = this.toks.findIndex((x) => x.offset >= at.offset);
        if (k >= 0) this.i = k;
      }
      return undefined;
    }
  }

  protected expectOp(text: string, note = `expected ${text}`): Token {
    if (!this.isOp(text)) this.illegal(note);
    return this.advance();
  }

  /** Runs `f`; on a parse error restores the position and returns undefined. */
  protected attempt<T>(f: () => T): T | undefined {
    const save = this.i;
    const soft = this.softErrors.length;
    try {
      return f();
    } catch (e) {
      if (PolicyError.isInstance(e) && e.code === 'rego_parse_error') {
        this.i = save;
        this.softErrors.length = soft;
        return undefined;
      }
      throw e;
    }
  }

  protected call(name: string, args: Term[], loc: Loc): CallTerm {
    return { type: 'call', op: opRef(name, loc), args, loc };
  }

  // -------------------------------------------------------------------------
  // Expressions

  parseTermInWithComma(): Term {
    return this.parseTermIn(true);
  }

  parseTermIn(keyVal: boolean): Term {
    const start = this.tok;
    let lhs = this.parseTermRelation();
    if (keyVal && this.isOp(',')) {
      const save = this.i;
      this.advance();
      const mhs = this.attempt(() => this.parseTermRelation());
      if (mhs !== undefined && this.isKw('in')) {
        this.advance();
        const rhs = this.parseTermRelation();
        lhs = this.call('internal.member_3', [lhs, mhs, rhs], this.loc(start));
        while (this.isKw('in')) {
          this.advance();
          lhs = this.call('internal.member_2', [lhs, this.parseTermRelation()], this.loc(start));
        }
        return lhs;
      }
      this.i = save;
    }
    while (this.isKw('in')) {
      this.advance();
      const rhs = this.soft(() => this.parseTermRelation());
      if (rhs === undefined) return lhs;
      lhs = this.call('internal.member_2', [lhs, rhs], this.loc(start));
    }
    return lhs;
  }

  private parseBinary(next: () => Term, ops: Record<string, string>): Term {
    const start = this.tok;
    let lhs = next();
    for (;;) {
      const t = this.tok;
      if (t.kind !== 'op') return lhs;
      const name = ops[t.text];
      if (name === undefined) return lhs;
      this.advance();
      const rhs = this.soft(next);
      if (rhs === undefined) return lhs;
      lhs = this.call(name, [lhs, rhs], this.loc(start));
    }
  }

  parseTermRelation(): Term {
    return this.parseBinary(() => this.parseTermOr(), RELATION_OPS);
  }

  parseTermOr(): Term {
    return this.parseBinary(() => this.parseTermAnd(), { '|': 'or' });
  }

  parseTermAnd(): Term {
    return this.parseBinary(() => this.parseTermArith(), { '&': 'and' });
  }

  parseTermArith(): Term {
    return this.parseBinary(() => this.parseTermFactor(), ARITH_OPS);
  }

  parseTermFactor(): Term {
    return this.parseBinary(() => this.parseTerm(), FACTOR_OPS);
  }

  // -------------------------------------------------------------------------
  // Terms

  parseTerm(): Term {
    const t = this.tok;
    const loc = this.loc(t);
    switch (t.kind) {
      case 'number':
        this.advance();
        return { type: 'number', value: this.numberValue(t.text, t), loc };
      case 'string':
        this.advance();
        return this.finish({ type: 'string', value: t.text, loc });
      case 'template':
        this.advance();
        return this.templateString(t, loc);
      case 'ident': {
        if (this.keywordRef()) {
          this.advance();
          return this.finish(mkVar(t.text, loc));
        }
        if (t.text === 'true' || t.text === 'false') {
          this.advance();
          return { type: 'boolean', value: t.text === 'true', loc };
        }
        if (t.text === 'null') {
          this.advance();
          return { type: 'null', loc };
        }
        // `contains` is a name wherever it is not a rule head's keyword (OPA: `contains(...)` is the builtin).
        if (this.keywords.has(t.text) && t.text !== 'contains') return this.unexpected(t);
        this.advance();
        return this.finish(mkVar(t.text, loc));
      }
      case 'op':
        switch (t.text) {
          case '-': {
            const n = this.peek();
            if (n.kind !== 'number') {
              // Unary minus before a variable, ref or call (-input.x, -count(xs)), as OPA v1.20.2 accepts: 0 - x.
              if (n.kind !== 'ident' || n.text === 'true' || n.text === 'false' || n.text === 'null') this.illegal('expected number', n);
              this.advance();
              return this.call('minus', [{ type: 'number', value: 0, loc }, this.parseTerm()], loc);
            }
            this.advance();
            this.advance();
            return { type: 'number', value: this.numberValue('-' + n.text, n), loc };
          }
          case '[':
            return this.finish(this.parseArray());
          case '{':
            return this.finish(this.parseSetOrObject());
          case '(': {
            this.advance();
            const inner = this.parseTermInWithComma();
            if (!this.isOp(')')) this.fail('non-terminated expression');
            this.advance();
            return this.finish(inner);
          }
          case '.':
            // OPA reads a leading dot as the start of a number (`.5`).
            return this.illegal('expected number', this.peek());
        }
        return this.unexpected(t);
      default:
        return this.unexpected(t);
    }
  }

  protected templateCount = 0;

  /**
   * `$"a {expr} b"` lowers (as OPA does) to
   * `internal.template_string(["a ", {$tpl | $tpl = expr}, " b"])`.
   */
  private templateString(t: Token, loc: Loc): Term {
    const items: Term[] = [];
    const source: TemplateSource = { multiLine: t.raw === true, parts: [] };
    for (const part of t.parts ?? []) {
      if ('lit' in part) {
        const lit: StringTerm = { type: 'string', value: part.lit, loc };
        items.push(lit);
        source.parts.push(lit);
        continue;
      }
      const toks = tokenize(part.expr, this.file).map((x) => ({ ...x, row: x.row + part.row - 1, col: x.row === 1 ? x.col + part.col - 1 : x.col }));
      const sub = new TermParser(toks, this.file, { notBlocks: this.notBlocks, orKeyword: this.orKeyword });
      sub.keywords = this.keywords;
      sub.templateCount = this.templateCount + 1000;
      const exprLoc = { file: this.file, row: part.row, col: part.col };
      if (toks[0]?.kind === 'eof') this.fail('empty template string expression', t);
      const e = sub.parseTermInWithComma();
      const withs = sub.isKw('with') ? sub.parseWith() : [];
      if (sub.tok.kind !== 'eof') sub.unexpected();
      source.parts.push(
        e.type === 'call'
          ? { kind: 'call', op: e.op, args: e.args, negated: false, with: withs, loc: exprLoc }
          : { kind: 'term', term: e, negated: false, with: withs, loc: exprLoc },
      );
      const v = mkVar(`$tpl${this.templateCount++}`, exprLoc);
      items.push({
        type: 'setcomp',
        term: v,
        body: [{ kind: 'call', op: opRef('eq', exprLoc), args: [v, e], negated: false, with: withs, loc: exprLoc, generated: true }],
        loc: exprLoc,
      });
      this.templateCount = Math.max(this.templateCount, sub.templateCount);
    }
    return { ...this.call('internal.template_string', [{ type: 'array', items, loc }], loc), template: source };
  }

  private numberValue(text: string, t: Token): number | bigint | RegoDecimal {
    const digits = text.startsWith('-') ? text.slice(1) : text;
    if (digits.length > 1 && digits[0] === '0' && digits[1] !== '.' && !(digits.length > 2 && (digits[1] === 'e' || digits[1] === 'E'))) {
      this.illegal('expected number without leading zero', t);
    }
    try {
      return parseNumberLiteral(text, this.digits);
    } catch (error) {
      return this.fail(error instanceof RangeError && error.message.startsWith('numbers too large') ? error.message : 'number too big', t);
    }
  }

  /** Continues a term with adjacent `.x`, `[y]` and `(args)`. */
  protected finish(head: Term, options: { spaceBefore?: boolean } = {}): Term {
    let term = head;
    let ref: Term[] | undefined;
    const refLoc = head.loc;
    // Where a call's text starts (its operator is a var or a ref from one, the token just read).
    const headStart = this.i > 0 ? (this.toks[this.i - 1] as Token).offset : 0;
    // A rule head's name may be followed by whitespace before its `.x`, `[x]` or `(args)` (OPA's parseHeadFinish).
    let spaceOk = options.spaceBefore === true;
    for (;;) {
      const t = this.tok;
      if ((t.space && !spaceOk) || t.kind !== 'op') break;
      spaceOk = false;
      if ((t.text === '.' || t.text === '[' || t.text === '(') && term === head && !REF_HEADS.has(head.type)) {
        // OPA records this and reads on.
        const at = this.toks.find((x) => x.row === head.loc.row && x.col === head.loc.col) ?? t;
        this.softErrors.push(this.parseError(`illegal ref (head cannot be ${typeName(head)})`, at));
      }
      if (t.text === '.') {
        const name = this.peek();
        if (name.kind !== 'ident' || name.space) this.illegal('expected identifier', name.space ? this.whitespaceAfter(t) : name);
        this.advance();
        this.advance();
        ref ??= [term];
        ref.push({ type: 'string', value: name.text, loc: this.loc(name) });
      } else if (t.text === '[') {
        this.advance();
        const operand = this.parseTermInWithComma();
        // (sic: OPA's message names the opening bracket)
        this.expectOp(']', 'expected [');
        ref ??= [term];
        ref.push(operand);
      } else if (t.text === '(') {
        const opTerms = ref ?? [term];
        const opHead = opTerms[0] as Term;
        if (opHead.type !== 'var' && REF_HEADS.has(opHead.type)) this.fail('illegal call (operator must be a ref)', t);
        this.advance();
        const args = this.parseTermList(')', []);
        this.expectOp(')');
        if (opTerms.length === 1 && (opHead as VarTerm).name === 'set' && args.length === 0) {
          term = { type: 'set', items: [], loc: refLoc };
        } else {
          term = { type: 'call', op: mkRef(opTerms, refLoc), args, loc: refLoc };
          // A call read on into a ref (`f(x).a`) is labelled by its own text, as OPA labels its errors.
          if (this.sourceTexts !== undefined) {
            term.loc = new QueryLocation({ at: refLoc, source: this.sourceTexts, start: headStart, end: this.prevEnd(), owner: term });
          }
        }
        ref = undefined;
      } else break;
    }
    if (ref !== undefined) return mkRef(ref, refLoc);
    if (term.type === 'var' && (term.name === 'data' || term.name === 'input')) return mkRef([term], term.loc);
    return term;
  }

  /** Comma-separated terms up to (not consuming) `end`; trailing comma allowed. */
  protected parseTermList(end: string, init: Term[]): Term[] {
    const out = init;
    if (this.isOp(end)) return out;
    for (;;) {
      out.push(this.parseTermIn(false));
      if (this.isOp(end)) return out;
      if (this.isOp(',')) {
        this.advance();
        if (this.isOp(end)) return out;
        continue;
      }
      this.illegal(`expected "," or "${end}"`);
    }
  }

  private parseArray(): Term {
    const open = this.advance();
    const loc = this.loc(open);
    if (this.isOp(']')) {
      this.advance();
      return { type: 'array', items: [], loc };
    }
    let potentialComprehension = true;
    if (this.isOp(',')) {
      potentialComprehension = false;
      this.advance();
    }
    const save = this.i;
    const head = this.attempt(() => this.parseTermAnd());
    if (head !== undefined) {
      if (this.isOp(']')) {
        this.advance();
        return { type: 'array', items: [head], loc };
      }
      if (this.isOp(',')) {
        this.advance();
        const items = this.parseTermList(']', [head]);
        this.expectOp(']');
        return { type: 'array', items, loc };
      }
      if (this.isOp('|') && potentialComprehension) {
        const comp = this.comprehensionBody(']');
        if (comp !== undefined) return { type: 'arraycomp', term: head, body: comp, loc };
      }
    }
    this.i = save;
    const items = this.parseTermList(']', []);
    this.expectOp(']');
    return { type: 'array', items, loc };
  }

  /**
   * `| body end` of an array or set comprehension. As OPA does, a failure
   * stands unless it stopped at a comma (then the text is read again as
   * plain items, `[a | b, c]`): undefined with nothing consumed.
   */
  private comprehensionBody(end: string): Body | undefined {
    const save = this.i;
    const soft = this.softErrors.length;
    try {
      this.advance();
      const body = this.parseBody(end);
      this.expectOp(end);
      return body;
    } catch (e) {
      if (!PolicyError.isInstance(e) || e.code !== 'rego_parse_error' || !this.isOp(',', this.failedAt)) throw e;
      this.i = save;
      this.softErrors.length = soft;
      return undefined;
    }
  }

  private parseSetOrObject(): Term {
    const open = this.advance();
    const loc = this.loc(open);
    if (this.isOp('}')) {
      this.advance();
      return { type: 'object', entries: [], loc };
    }
    let potentialComprehension = true;
    if (this.isOp(',')) {
      potentialComprehension = false;
      this.advance();
    }
    const save = this.i;
    const head = this.attempt(() => this.parseTermAnd());
    if (head !== undefined) {
      if (this.isOp('}')) {
        this.advance();
        return { type: 'set', items: [head], loc };
      }
      if (this.isOp(',')) {
        this.advance();
        const items = this.parseTermList('}', [head]);
        this.expectOp('}');
        return { type: 'set', items, loc };
      }
      if (this.isOp('|') && potentialComprehension) {
        const comp = this.comprehensionBody('}');
        if (comp !== undefined) return { type: 'setcomp', term: head, body: comp, loc };
      }
      if (this.isOp(':') && potentialComprehension) {
        const comp = this.attempt(() => {
          this.advance();
          const value = this.parseTermAnd();
          if (!this.isOp('|')) this.fail('not a comprehension');
          this.advance();
          const body = this.parseBody('}');
          this.expectOp('}');
          return { value, body };
        });
        if (comp !== undefined) return { type: 'objectcomp', key: head, value: comp.value, body: comp.body, loc };
      }
    }
    this.i = save;
    const first = this.parseTermIn(false);
    if (this.isOp(':')) {
      this.advance();
      const valueAt = this.i;
      const soft = this.softErrors.length;
      // OPA reads the first value as a plain term; when `,` or `}` follows, it reads the rest, and if the rest
      // fails it drops those errors and reports the object as non-terminated at that first value.
      const plain = this.parseTerm();
      if (potentialComprehension && (this.isOp(',') || this.isOp('}'))) {
        try {
          return { type: 'object', entries: this.objectRest([[first, plain]]), loc };
        } catch (e) {
          if (!PolicyError.isInstance(e) || e.code !== 'rego_parse_error') throw e;
          this.i = valueAt;
          this.softErrors.length = soft;
          this.illegal('non-terminated object');
        }
      }
      this.i = valueAt;
      this.softErrors.length = soft;
      const value = this.parseTermIn(false);
      if (!this.isOp('}') && !this.isOp(',')) this.illegal('non-terminated object');
      return { type: 'object', entries: this.objectRest([[first, value]]), loc };
    }
    const items = [first];
    if (!this.isOp('}') && !this.isOp(',')) this.illegal('non-terminated set');
    if (this.isOp(',')) {
      this.advance();
      this.parseTermList('}', items);
    }
    this.expectOp('}');
    return { type: 'set', items, loc };
  }

  /** The entries after an object's first one, through its `}`. */
  private objectRest(entries: Array<[Term, Term]>): Array<[Term, Term]> {
    for (;;) {
      if (this.isOp('}')) break;
      this.expectOp(',', 'expected "," or "}"');
      if (this.isOp('}')) break;
      const k = this.parseTermIn(false);
      this.expectOp(':', 'expected ":"');
      entries.push([k, this.parseTermIn(false)]);
    }
    this.advance();
    return entries;
  }

  // -------------------------------------------------------------------------
  // Bodies and literals

  /** Literals separated by `;` or newlines, up to (not consuming) `end` ('}' , ']' or 'eof'). */
  parseBody(end: string): Body {
    const body: Body = [];
    const atEnd = () => (end === 'eof' ? this.tok.kind === 'eof' : this.isOp(end));
    if (atEnd()) this.fail('found empty body');
    for (;;) {
      body.push(this.parseLiteral());
      if (this.isOp(';')) {
        this.advance();
        if (atEnd()) return body;
        continue;
      }
      if (atEnd()) return body;
      // A query's next statement may follow on the same line (OPA: `x := 1 y := 2` is two expressions).
      if (!this.tok.newline && end !== 'eof') {
        if (this.softErrors.length > 0) throw this.silentFailure();
        this.illegal(`expected \\n or ; or ${end}`);
      }
    }
  }

  parseLiteral(): Expr {
    if (!this.orKeyword) return this.parseLiteralWithWiths();
    const loc = this.loc();
    let lhs = this.orBlock(() => this.isOrKw());
    let explicitLhs = lhs !== undefined;
    lhs ??= [this.parseOrOperand(false)];
    while (this.isOrKw()) {
      this.advance();
      const block = this.orBlock(() => this.isOrKw() || this.orOperandEnd());
      const rhs = block ?? [this.parseOrOperand(true)];
      const or: OrOperands = { lhs: lhs as Body, rhs, explicitLhs, explicitRhs: block !== undefined };
      const negate = (b: Body): Expr => ({ kind: 'notbody', body: b, negated: false, with: [], loc });
      lhs = [{ kind: 'notbody', body: [negate(or.lhs), negate(or.rhs)], negated: false, with: [], loc, or }];
      explicitLhs = false;
    }
    const expr = (lhs as Body)[0] as Expr;
    if (this.isKw('with')) expr.with = [...expr.with, ...this.parseWith()];
    return expr;
  }

  /** `or` after an operand (on the same line or the next, as OPA reads it). */
  protected isOrKw(): boolean {
    return this.orKeyword && this.tok.kind === 'ident' && this.tok.text === 'or';
  }

  /** `{ body }` when the current tokens read as a block followed by what `next` accepts (an `or` operand), else undefined with nothing consumed. */
  private orBlock(next: () => boolean): Body | undefined {
    if (!this.isOp('{')) return undefined;
    return this.attempt(() => {
      this.advance();
      const body = this.parseBody('}');
      this.expectOp('}');
      if (!next()) this.fail('not a block');
      return body;
    });
  }

  private orOperandEnd(): boolean {
    const t = this.tok;
    return t.kind === 'eof' || t.newline || this.isOp('}') || this.isOp(']') || this.isOp(';') || this.isKw('with');
  }

  /** An operand written without braces: one literal, which may not assign (OPA: "cannot assign vars inside implicit or operand"). */
  private parseOrOperand(isRhs: boolean): Expr {
    // An operand cannot start with `or` (`a or or b`).
    if (this.isOrKw()) this.unexpected();
    const e = this.parseLiteralNoWith();
    if (!(isRhs || this.isOrKw()) || e.kind !== 'call' || refName(e.op) !== 'assign') return e;
    throw new PolicyError({ code: 'rego_compile_error', detail: 'cannot assign vars inside implicit or operand', location: e.loc });
  }

  private parseLiteralWithWiths(): Expr {
    const expr = this.parseLiteralNoWith();
    if (this.isKw('with')) expr.with = [...expr.with, ...this.parseWith()];
    return expr;
  }

  private parseLiteralNoWith(): Expr {
    const start = this.tok;
    const loc = this.loc(start);
    let negated = false;
    if (this.isKw('not')) {
      this.advance();
      negated = true;
      if (this.notBlocks && this.isOp('{')) {
        this.advance();
        const body = this.parseBody('}');
        this.expectOp('}');
        return { kind: 'notbody', body, negated: false, with: [], loc };
      }
    }
    if (this.isKw('some')) {
      if (negated) this.fail("illegal negation of 'some'");
      return this.parseSome();
    }
    if (this.isKw('every')) {
      if (negated) this.fail("illegal negation of 'every'");
      return this.parseEvery();
    }
    const expr = this.parseExpr(loc);
    expr.negated = negated;
    return expr;
  }

  private parseExpr(loc: Loc): Expr {
    const lhs = this.parseTermInWithComma();
    if (this.isOp(':=') || this.isOp('=')) {
      const opTok = this.advance();
      const rhs = this.parseTermInWithComma();
      return {
        kind: 'call',
        op: opRef(opTok.text === ':=' ? 'assign' : 'eq', this.loc(opTok)),
        args: [lhs, rhs],
        negated: false,
        with: [],
        loc,
      };
    }
    if (lhs.type === 'call') return { kind: 'call', op: lhs.op, args: lhs.args, negated: false, with: [], loc };
    return { kind: 'term', term: lhs, negated: false, with: [], loc };
  }

  private parseSome(): Expr {
    const someTok = this.advance();
    const loc = this.loc(someTok);
    const save = this.i;
    const soft = this.softErrors.length;
    const inTerm = this.attempt(() => this.parseTermInWithComma());
    if (inTerm !== undefined && inTerm.type === 'call') {
      const name = inTerm.op.terms.map((t) => (t.type === 'var' ? t.name : t.type === 'string' ? t.value : '')).join('.');
      if (name === 'internal.member_2' || name === 'internal.member_3') {
        const [a, b, c] = inTerm.args as [Term, Term, Term | undefined];
        const expr: Expr =
          name === 'internal.member_2'
            ? { kind: 'some', vars: [], inValue: a, inDomain: b, negated: false, with: [], loc }
            : { kind: 'some', vars: [], inKey: a, inValue: b, inDomain: c as Term, negated: false, with: [], loc };
        if (this.isKw('with')) expr.with = this.parseWith();
        return expr;
      }
      this.illegal('expected `x in xs` or `x, y in xs` expression');
    }
    // Not `x in xs`: what that attempt found is dropped, as OPA restores its state.
    this.i = save;
    this.softErrors.length = soft;
    const vars: VarTerm[] = [];
    for (;;) {
      const t = this.tok;
      if (t.kind !== 'ident' || this.keywords.has(t.text)) this.illegal('expected var', t);
      this.advance();
      vars.push(mkVar(t.text, this.loc(t)));
      if (!this.isOp(',')) break;
      this.advance();
    }
    return { kind: 'some', vars, negated: false, with: [], loc };
  }

  private parseEvery(): Expr {
    const everyTok = this.advance();
    const loc = this.loc(everyTok);
    const t = this.parseTermInWithComma();
    if (t.type !== 'call') this.illegal('expected `x[, y] in xs { ... }` expression');
    const name = t.op.terms.map((x) => (x.type === 'var' ? x.name : x.type === 'string' ? x.value : '')).join('.');
    let key: Term | undefined;
    let value: Term;
    let domain: Term;
    if (name === 'internal.member_2') {
      [value, domain] = t.args as [Term, Term];
    } else if (name === 'internal.member_3') {
      [key, value, domain] = t.args as [Term, Term, Term];
    } else {
      return this.illegal('expected `x[, y] in xs { ... }` expression');
    }
    if (!this.isOp('{')) this.illegal('missing body');
    this.advance();
    const body = this.parseBody('}');
    this.expectOp('}');
    const expr: Expr =
      key === undefined
        ? { kind: 'every', value, domain, body, negated: false, with: [], loc }
        : { kind: 'every', key, value, domain, body, negated: false, with: [], loc };
    if (this.isKw('with')) expr.with = this.parseWith();
    return expr;
  }

  protected parseWith(): With[] {
    const out: With[] = [];
    while (this.isKw('with')) {
      const w = this.advance();
      const t = this.tok;
      if (t.kind !== 'ident') this.illegal('expected ident', t);
      const target = this.parseTerm();
      if (target.type !== 'ref' && target.type !== 'var') this.fail('expected with target path', t);
      if (!this.isKw('as')) this.illegal('expected as keyword');
      this.advance();
      const value = this.parseTermInWithComma();
      out.push({ target, value, loc: this.loc(w) });
    }
    return out;
  }

  protected asRef(t: Term): RefTerm {
    return t.type === 'ref' ? t : mkRef([t], t.loc);
  }
}
