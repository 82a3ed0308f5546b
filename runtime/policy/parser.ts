/**
 * Rego v1 module and query parser (OPA 1.x syntax): `if` is required before
 * rule bodies and `contains` for multi-value rules; v0 forms are rejected with
 * a parse error that says so.
 *
 * @example
 * const mod = parseModule('package a\nallow if input.x == 1', 'a.rego');
 */
import { type Body, type Expr, type Head, type Import, type Module, mkRef, type RefTerm, type Rule, type Term } from './ast.js';
import { combineErrors, PolicyError } from './errors.js';
import { OPA_BUILTIN_DECLS } from './compiler/builtin-decls-table.js';
import { defaultRuleProblems } from './parser-default-rule.js';
import { type Comment, type Token, tokenize as tokenizeText, type TokenizeOptions } from './lexer.js';
import { FUTURE_KEYWORDS, KEYWORDS, type ParserOptions, sortErrors, type SpanTable, TermParser, typeName } from './parser-terms.js';

class ModuleParser extends TermParser {
  /** Rego v0 syntax (bodies without `if`, `p[x] { ... }` partial sets) until `import rego.v1`. */
  private v0: boolean;
  /**
   * v0 forms met in a v1 module: each is an error, and parsing goes on past
   * it, so the module's errors are listed together with OPA's hints.
   */
  private readonly v0Forms: PolicyError[] = [];
  /**
   * Statements that parse but make no rule (`1 + 2`, `p := 1; q := 2`, a
   * second `package`): OPA lists these after parsing, without a source line,
   * when nothing else failed.
   */
  private readonly statementErrors: PolicyError[] = [];
  /** The rule being parsed is a function, or `p[x]` written with brackets and no value (a v0 partial set). */
  private headShape: 'function' | 'partial-set' | 'rule' = 'rule';

  constructor(toks: Token[], file: string, options: ParserOptions = {}) {
    super(toks, file, options);
    this.v0 = options.v0 === true;
  }

  parseModule(): Module {
    try {
      return this.parseStatements();
    } catch (e) {
      throw PolicyError.isInstance(e) && e.code === 'rego_parse_error' ? this.allErrors(e) : e;
    }
  }

  private parseStatements(): Module {
    // As OPA: a text without statements is an empty module (at row 0); a first statement that is no package is
    // reported as such after all statements are read, and its own problems are not.
    const first = this.tok;
    if (first.kind === 'eof') throw new PolicyError({ code: 'rego_parse_error', detail: 'empty module', location: { file: this.file, row: 0, col: 0 } });
    const hasPackage = this.isKw('package');
    let path = mkRef([{ type: 'var', name: 'data', loc: this.loc(first) }], this.loc(first));
    if (hasPackage) {
      this.advance();
      path = this.packagePath(this.packageTerm(), first);
    }
    const module: Module = {
      file: this.file,
      package: { path, loc: this.loc(first) },
      imports: [],
      rules: [],
      regoV2: false,
      notKeyword: false,
    };
    if (!hasPackage) {
      this.statement(module);
      this.statementErrors.length = 0;
      this.statementErrors.push(this.statementError('package expected', this.loc(first)));
    }
    while (this.isKw('import')) module.imports.push(this.parseImport(module));
    while (this.tok.kind !== 'eof' && this.softErrors.length === 0) this.statement(module);
    if (this.softErrors.length > 0) throw this.silentFailure();
    const errors = [...this.statementErrors, ...this.v0Forms];
    if (errors.length > 0) throw combineErrors(sortErrors(errors));
    return module;
  }

  /** The term after `package`: OPA takes a keyword there as a name (`package import`, even on a later line). */
  private packageTerm(): Term {
    const name = this.tok;
    if (name.kind !== 'ident' || !this.keywords.has(name.text)) return this.parseTerm();
    this.advance();
    return this.finish({ type: 'var', name: name.text, loc: this.loc(name) });
  }

  /** One statement after the package: an import, a rule, a second package or a query statement (an error). */
  private statement(module: Module): void {
    // Text the scanner could not read where a statement starts: OPA reports the scanner's error alone.
    if (this.tok.kind === 'illegal' && this.tok.text !== '') throw this.parseError(this.tok.text, this.tok, false);
    // `or` cannot start a statement (`p if { a } or { <broken> }` ends the rule at the block, as OPA reads it).
    if (this.isOrKw()) this.unexpected();
    if (this.isKw('package')) {
      const at = this.advance();
      this.packageTerm();
      this.statementErrors.push(this.statementError('unexpected package', this.loc(at)));
    } else if (this.isKw('import')) {
      // OPA takes an import anywhere among the rules; it applies to the whole module.
      module.imports.push(this.parseImport(module));
    } else if (this.startsRule()) module.rules.push(...this.parseRules(module));
    else this.bodyStatement();
  }

  private statementError(detail: string, location: import('./ast.js').Loc): PolicyError {
    return new PolicyError({ code: 'rego_parse_error', detail, location });
  }

  /** A rule starts with a name (a keyword only as the head of a ref: `if.x`) or `default`. */
  private startsRule(): boolean {
    const t = this.tok;
    return t.kind === 'ident' && (!this.keywords.has(t.text) || t.text === 'default' || this.keywordRef());
  }

  /**
   * A statement that is not a rule: OPA parses it as a query (literals
   * separated by `;`) and then finds it cannot be a rule.
   */
  private bodyStatement(): void {
    const body = [this.parseLiteral()];
    while (this.isOp(';')) {
      this.advance();
      body.push(this.parseLiteral());
    }
    this.statementErrors.push(this.statementError(notARule(body), (body[0] as Expr).loc));
  }

  /**
   * Runs `f` (a rule head's name, value or key, an import's path); when it
   * fails, OPA adds `unexpected <token>: <hint>` at the same token (or
   * `hint` alone when `plain`).
   */
  private withHint<T>(f: () => T, hint: string, plain = false): T {
    try {
      return f();
    } catch (e) {
      const at = this.failedAt;
      if (!PolicyError.isInstance(e) || e.code !== 'rego_parse_error' || at === undefined) throw e;
      const text = plain ? hint : at.kind === 'illegal' ? 'illegal token' : `unexpected ${this.describe(at)}: ${hint}`;
      throw combineErrors([...ModuleParser.flatten(e), this.parseError(text, at, false)]);
    }
  }

  private packagePath(t: Term, at: import('./lexer.js').Token): RefTerm {
    const terms: Term[] = [{ type: 'var', name: 'data', loc: t.loc }];
    if (t.type === 'var') terms.push({ type: 'string', value: t.name, loc: t.loc });
    else if (t.type === 'ref') {
      const head = t.terms[0] as Term;
      if (head.type !== 'var') this.fail('package name must be a ref', at);
      terms.push({ type: 'string', value: head.name, loc: head.loc });
      for (const x of t.terms.slice(1)) {
        if (x.type !== 'string') this.fail('package path must contain only strings', at);
        terms.push(x);
      }
    } else this.fail('package name must be a ref', at);
    return mkRef(terms, t.loc);
  }

  private parseImport(module: Module): Import {
    const importTok = this.advance();
    const pathTok = this.tok;
    // The path is read without the future keywords (`import future.keywords.in`, `import in` is a name).
    const saved = this.keywords;
    this.keywords = new Set([...saved].filter((k) => !(FUTURE_KEYWORDS as readonly string[]).includes(k)));
    let t: Term;
    try {
      if (pathTok.kind !== 'ident' || this.keywords.has(pathTok.text)) this.unexpected(pathTok);
      t = this.withHint(() => this.parseTerm(), 'expected path', true);
    } finally {
      this.keywords = saved;
    }
    const path = t.type === 'ref' ? t : t.type === 'var' ? mkRef([t], t.loc) : this.fail('expected path');
    const head = path.terms[0] as Term;
    if (head.type !== 'var' || !['data', 'input', 'future', 'rego'].includes(head.name)) {
      const got = head.type === 'var' ? head.name : typeName(head);
      this.fail(
        `unexpected import path, must begin with one of: {data, future, input, rego}, got: ${got} (hint: if this is unexpected, try updating OPA)`,
        pathTok,
      );
    }
    for (const x of path.terms.slice(1)) {
      if (x.type !== 'string') this.fail('invalid path: path elements must be strings', importTok);
    }
    const names = path.terms.map((x) => (x.type === 'var' ? x.name : x.type === 'string' ? x.value : ''));
    if (names[0] === 'rego') {
      if (names.length !== 2 || (names[1] !== 'v1' && names[1] !== 'v2')) {
        this.fail(`invalid import \`${names.join('.')}\`, must be \`rego.v1\``, pathTok);
      }
      if (names[1] === 'v2') {
        module.regoV2 = true;
        module.notKeyword = true;
      }
      // A v0 module importing rego.v1 is written in v1 syntax from here on.
      this.importKeywords(FUTURE_KEYWORDS);
      this.v0 = false;
    }
    if (names[0] === 'future') {
      if (names[1] !== 'keywords') this.fail('invalid import, must be `future.keywords`', pathTok);
      if (names.length > 3) this.fail(`invalid import ${names.join('.')}`, pathTok);
      // `import future.keywords` imports every future keyword, `not` and `or` included (as OPA v1.20.2 does).
      if (names[2] === undefined || names[2] === 'not') module.notKeyword = true;
      if (names[2] === undefined || names[2] === 'or') module.orKeyword = true;
      this.importKeywords(names[2] === undefined ? FUTURE_KEYWORDS : [names[2] as string]);
    }
    this.notBlocks = module.notKeyword;
    this.orKeyword = module.orKeyword === true;
    const imp: Import = { path, loc: this.loc(importTok) };
    if (this.isKw('as')) {
      this.advance();
      const a = this.tok;
      if (a.kind !== 'ident' || this.keywords.has(a.text)) this.illegal('expected var', a);
      this.advance();
      imp.alias = a.text;
    }
    return imp;
  }

  /** Makes future keywords keywords in a v0 module (in v1 they always are). */
  private importKeywords(words: readonly string[]): void {
    if (this.keywords === KEYWORDS) return;
    for (const w of words) if ((FUTURE_KEYWORDS as readonly string[]).includes(w)) this.keywords.add(w);
  }

  /** A rule, plus the rules of its further bodies in v0 (`p { a } { b }` is two rules with one head). */
  private parseRules(module: Module): Rule[] {
    const startAt = this.i;
    const soft = this.softErrors.length;
    const rule = this.parseRule(module);
    if (rule === undefined) {
      // Not a rule after all: OPA reads the text again as a query statement.
      this.i = startAt;
      this.softErrors.length = soft;
      this.bodyStatement();
      return [];
    }
    const rules = [rule];
    while (this.v0 && this.isOp('{') && !rule.default) {
      // Each rule owns its head: compile stages rewrite heads in place.
      const head: Head = { ...rule.head, ref: [...rule.head.ref], ...(rule.head.args === undefined ? {} : { args: [...rule.head.args] }) };
      const extra: Rule = { default: false, head, body: this.parseBlock(), loc: this.loc(), module };
      rules.push(extra);
    }
    return rules;
  }

  private parseBlock(): Body {
    this.expectOp('{');
    const body = this.parseBody('}');
    this.expectOp('}');
    return body;
  }

  /** An operator or keyword that continues an expression (so `p == 1`, `f(x) + 1` or `p := 1 with …` are no rules). */
  private continuesExpression(): boolean {
    const t = this.tok;
    if (t.newline || t.kind === 'eof') return false;
    if (t.kind === 'ident') return this.isKw('with') || this.isKw('in');
    return t.kind === 'op' && EXPRESSION_OPS.has(t.text);
  }

  /** A rule, or undefined (nothing consumed that matters) when the text is a query statement to OPA. */
  private parseRule(module: Module): Rule | undefined {
    const start = this.tok;
    const loc = this.loc(start);
    let isDefault = false;
    if (this.isKw('default')) {
      this.advance();
      isDefault = true;
    }
    const headTok = this.tok;
    // `default` not followed by a name is a query statement to OPA, which fails on the keyword.
    if (headTok.kind !== 'ident' || (this.keywords.has(headTok.text) && !this.keywordRef())) this.unexpected(isDefault ? start : headTok);
    const headTerm = this.withHint(() => {
      const t = this.parseTerm();
      const next = this.tok;
      const spaced = next.kind === 'op' && (next.text === '.' || next.text === '[' || next.text === '(') && next.space;
      return t.type === 'var' && spaced ? this.finish(t, { spaceBefore: true }) : t;
    }, 'expected rule head name');
    if (!isDefault && ((headTerm.type !== 'var' && headTerm.type !== 'ref' && headTerm.type !== 'call') || this.continuesExpression())) return undefined;
    const bracketKey = this.isOp(']', this.toks[this.i - 1]);
    const head: Head = { ref: [], assign: false, loc: this.loc(headTok) };
    if (headTerm.type === 'var') head.ref = [headTerm];
    else if (headTerm.type === 'ref') head.ref = headTerm.terms;
    else if (headTerm.type === 'call') {
      head.ref = headTerm.op.terms;
      // `f() := v` declares a plain rule `f` in OPA, not a zero-argument function.
      if (headTerm.args.length > 0) head.args = headTerm.args;
    } else this.fail('invalid rule head', headTok);
    const first = head.ref[0] as Term;
    if (first.type !== 'var') this.fail('invalid rule head', headTok);

    const name = refString(head.ref);
    if (this.isKw('contains')) {
      if (isDefault) this.fail('default rules cannot use contains');
      if (head.args !== undefined) this.fail('functions cannot use contains');
      this.advance();
      head.key = this.withHint(() => this.parseTermIn(false), `expected rule key term (e.g., ${name} contains <VALUE> { ... })`);
    }
    if (this.isOp(':=') || this.isOp('=')) {
      if (head.key !== undefined) this.fail('multi-value rules (contains) cannot have a value');
      head.assign = this.advance().text === ':=';
      const hint = !head.assign
        ? `expected rule value term (e.g., ${name}[<nil>] = <VALUE> { ... })`
        : head.args !== undefined
          ? `expected function value term (e.g., ${name}(...) := <VALUE> { ... })`
          : isDefault
            ? `expected default rule value term (e.g., default ${name} := <VALUE>)`
            : `expected rule value term (e.g., ${name} := <VALUE> { ... })`;
      head.value = this.withHint(() => this.parseTermIn(false), hint);
      if (!isDefault && this.isKw('with') && !this.tok.newline) return undefined;
    }
    this.headShape =
      head.args !== undefined ? 'function' : bracketKey && head.ref.length === 2 && head.key === undefined && head.value === undefined ? 'partial-set' : 'rule';
    // Rego v0: `p[x]` without a value is a partial set rule (v1 writes `p contains x`).
    if (this.v0 && !isDefault && head.key === undefined && head.value === undefined && head.args === undefined && head.ref.length === 2 && bracketKey) {
      head.key = head.ref[1];
      head.ref = [first];
    }

    this.spans?.set(head, { start: headTok.offset, end: this.prevEnd() });
    const rule: Rule = { default: isDefault, head, body: [], loc, module };
    if (isDefault) {
      // `default p` is `default p := true` to OPA; only `default p[x]` lacks a value.
      if (head.value === undefined && head.key === undefined && (head.ref.length !== 2 || head.args !== undefined)) {
        head.value = { type: 'boolean', value: true, loc: head.loc };
      }
      if (head.value === undefined) this.fail('illegal default rule (must have a value)', start);
      const problems = defaultRuleProblems(head);
      if (problems.length > 0) throw combineErrors(problems.map((p) => this.parseError(p, start, false)));
      rule.body = [this.trueExpr(head.value.loc)];
      this.spans?.set(rule, { start: start.offset, end: this.prevEnd() });
      return rule;
    }
    const bare = head.value === undefined && head.key === undefined;
    if (bare) {
      head.value = { type: 'boolean', value: true, loc: head.loc };
      head.generatedValue = true;
    }

    rule.body = this.parseRuleBody(head.loc);
    if (rule.body[0]?.generated === true) this.bodylessRule(rule, bare, headTerm.type === 'call');
    const elseStarts: Array<[Rule, number]> = [];
    let prev = rule;
    while (this.isKw('else')) {
      if (head.key !== undefined) this.fail('else keyword cannot be used on multi-value rules');
      if (head.ref.length > 1 && head.args === undefined && !this.isGround(head.ref)) {
        this.fail('else keyword cannot be used on rules with variables in head');
      }
      const elseTok = this.advance();
      const elseHead: Head = { ref: head.ref, assign: false, loc: this.loc(elseTok) };
      if (head.args !== undefined) elseHead.args = head.args;
      if (this.isOp(':=') || this.isOp('=')) {
        elseHead.assign = this.advance().text === ':=';
        elseHead.value = this.parseTermIn(false);
      } else elseHead.value = { type: 'boolean', value: true, loc: elseHead.loc };
      this.spans?.set(elseHead, { start: elseTok.offset, end: this.prevEnd() });
      const elseRule: Rule = { default: false, head: elseHead, body: [], loc: this.loc(elseTok), module };
      if (this.isKw('if') && this.peek().kind === 'eof') this.illegal('rule body expected', this.peek());
      elseRule.body = this.parseRuleBody(elseHead.loc);
      elseStarts.push([elseRule, elseTok.offset]);
      prev.else = elseRule;
      prev = elseRule;
    }
    // Each rule's span runs to the end of its else chain (as OPA's rule text does).
    for (const [r, s] of elseStarts) this.spans?.set(r, { start: s, end: this.prevEnd() });
    this.spans?.set(rule, { start: start.offset, end: this.prevEnd() });
    return rule;
  }

  private isGround(ref: Term[]): boolean {
    return ref.slice(1).every((t) => t.type === 'string' || t.type === 'number' || t.type === 'boolean' || t.type === 'null');
  }

  private parseRuleBody(loc: import('./ast.js').Loc): Body {
    if (this.v0 && this.isOp('{')) return this.parseBlock();
    if (this.isKw('if')) {
      this.advance();
      if (this.isOp('{')) {
        const block = this.attempt(() => {
          this.advance();
          const body = this.parseBody('}');
          this.expectOp('}');
          // `if { a } or { b }`: the block is the first operand of a disjunction.
          if (this.isOrKw()) this.fail('block is an or operand');
          return body;
        });
        if (block !== undefined) return block;
        // `if {x: y | ...}`: a single literal that starts with a brace.
        const literal = this.attempt(() => [this.parseLiteral()]);
        if (literal !== undefined) return literal;
        this.advance();
        const body = this.parseBody('}');
        this.expectOp('}');
        return body;
      }
      return [this.parseLiteral()];
    }
    if (this.isOp('{') && !this.tok.newline) {
      // A v0 body in a v1 module: listed with OPA's hints, then read as v0 so the errors after it are found too.
      const at = this.loc(this.tok);
      const rule = { ...at, row: loc.row, col: loc.col };
      this.v0Forms.push(
        new PolicyError({
          code: 'rego_parse_error',
          detail: `\`if\` keyword is required before ${this.headShape === 'function' ? 'function' : 'rule'} body`,
          location: rule,
        }),
      );
      if (this.headShape === 'partial-set') {
        this.v0Forms.push(new PolicyError({ code: 'rego_parse_error', detail: '`contains` keyword is required for partial set rules', location: rule }));
      }
      return this.parseBlock();
    }
    if (this.isKw('contains')) this.fail('unexpected contains keyword');
    // What follows on the same line is the next statement, as OPA reads it (`p := 1 q := 2` is two rules).
    return [this.trueExpr(loc)];
  }

  /**
   * A rule without a body is, to OPA, a query statement turned into a rule
   * afterwards: a `;` after it makes a statement of several expressions, and
   * a bare name or ref (`p`, `p.q`) is no rule.
   */
  private bodylessRule(rule: Rule, bare: boolean, call: boolean): void {
    const head = rule.head;
    if (this.isOp(';')) {
      while (this.isOp(';')) {
        this.advance();
        this.parseLiteral();
      }
      this.statementErrors.push(this.statementError('multiple expressions cannot be used for rule head', rule.loc));
      return;
    }
    if (bare && head.args !== undefined && !this.isKw('else') && BUILTIN_NAMES.has(refString(head.ref))) {
      // OPA reads a bare call as a query and makes it the rule `f(args) = true`, unless `f` names a builtin.
      this.statementErrors.push(this.statementError('rule name conflicts with built-in function', rule.loc));
      return;
    }
    if (!bare || head.args !== undefined || this.isKw('else')) return;
    const detail = call
      ? 'rule argument list must take at least one argument'
      : head.ref.length === 1
        ? 'var cannot be used for rule name'
        : head.ref.length === 2
          ? '`contains` keyword is required for partial set rules'
          : 'rule must have value assignment and/or body declaration';
    this.statementErrors.push(this.statementError(detail, rule.loc));
  }

  private trueExpr(loc: import('./ast.js').Loc): Expr {
    return { kind: 'term', term: { type: 'boolean', value: true, loc }, negated: false, with: [], loc, generated: true };
  }
}

/** The names of OPA's builtins (a bare call of one is no rule). */
const BUILTIN_NAMES = new Set(OPA_BUILTIN_DECLS.map(([name]) => name));

/** Deepest nesting of brackets, braces and parentheses the parser takes (deeper text would overflow its recursion, and the compiler's). */
export const MAX_REGO_NESTING = 256;

/** The tokens of Rego text, refused with `rego_parse_error` when its brackets nest deeper than {@link MAX_REGO_NESTING}. */
function tokenize(source: string, file: string, options?: TokenizeOptions): Token[] {
  const toks = tokenizeText(source, file, options);
  let depth = 0;
  for (const t of toks) {
    if (t.kind !== 'op') continue;
    if (t.text === '[' || t.text === '{' || t.text === '(') {
      if (++depth > MAX_REGO_NESTING) {
        throw new PolicyError({ code: 'rego_parse_error', detail: `nested more than ${MAX_REGO_NESTING} deep`, location: { file, row: t.row, col: t.col } });
      }
    } else if (t.text === ']' || t.text === '}' || t.text === ')') depth = Math.max(0, depth - 1);
  }
  return toks;
}

/** Which Rego a module is written in: 1 (OPA 1.x, the default) or 0 (OPA's `--v0-compatible`). */
export type RegoVersion = 0 | 1;

/** Parses a Rego module (v1 unless `regoVersion` is 0). Throws a `PolicyError` with code `rego_parse_error`. */
export function parseModule(source: string, file: string, regoVersion: RegoVersion = 1): Module {
  return new ModuleParser(tokenize(source, file), file, { v0: regoVersion === 0, source }).parseModule();
}

/** A module parsed for the formatter: the AST plus its comments and node spans. */
export interface SourceModule {
  module: Module;
  comments: Comment[];
  spans: SpanTable;
}

/** Parses a module keeping what formatting needs (comments, spans); evaluation uses `parseModule`. */
export function parseModuleWithSource(options: { source: string; file: string; regoVersion?: RegoVersion }): SourceModule {
  const comments: Comment[] = [];
  const spans: SpanTable = new WeakMap();
  const toks = tokenize(options.source, options.file, { comments });
  const module = new ModuleParser(toks, options.file, { spans, v0: options.regoVersion === 0, source: options.source }).parseModule();
  return { module, comments, spans };
}

class QueryParser extends TermParser {
  query(): Body {
    try {
      const body = this.parseBody('eof');
      if (this.softErrors.length > 0) throw this.silentFailure();
      return body;
    } catch (e) {
      throw PolicyError.isInstance(e) && e.code === 'rego_parse_error' ? this.allErrors(e) : e;
    }
  }

  term(): Term {
    const t = this.parseTermInWithComma();
    if (this.tok.kind !== 'eof') this.unexpected();
    return t;
  }
}

/** Parses a query (a body: literals separated by `;` or newlines). */
export function parseQuery(source: string, file = ''): Body {
  const toks = tokenize(source, file);
  if (toks.length === 1) throw new PolicyError({ code: 'rego_parse_error', detail: 'empty query', location: { file, row: 1, col: 1 } });
  return new QueryParser(toks, file, { sourceTexts: source, source }).query();
}

/** Parses a single term (e.g. an input value written in Rego syntax). */
export function parseTermText(source: string, file = ''): Term {
  return new QueryParser(tokenize(source, file), file, { source }).term();
}

/** Tokens after which a rule's head or value is an expression instead (OPA then has a query statement, not a rule). */
const EXPRESSION_OPS = new Set(['==', '!=', '<', '>', '<=', '>=', '+', '-', '*', '/', '%', '&', '|', ',']);

/** A ref as OPA prints it in its hints: `p`, `p.q`, `p[x]`, `p["a b"]`. */
function refString(ref: readonly Term[]): string {
  return ref
    .map((t, i) => {
      if (t.type === 'var') return i === 0 ? t.name : `[${t.name}]`;
      if (t.type === 'string') return /^[A-Za-z_][A-Za-z0-9_]*$/.test(t.value) ? `.${t.value}` : `[${JSON.stringify(t.value)}]`;
      if (t.type === 'number' || t.type === 'boolean') return `[${String(t.value)}]`;
      return '[...]';
    })
    .join('');
}

/** Why a statement of literals is not a rule (OPA's `ParseRuleFromBody`). */
function notARule(body: readonly Expr[]): string {
  if (body.length !== 1) return 'multiple expressions cannot be used for rule head';
  const e = body[0] as Expr;
  if (e.with.length > 0) return 'expressions using with keyword cannot be used for rule head';
  if (e.negated) return 'negated expressions cannot be used for rule head';
  if (e.kind === 'some') return "'some' declarations cannot be used for rule head";
  if (e.kind === 'term') return `${typeName(e.term)} cannot be used for rule name`;
  if (e.kind !== 'call') return 'expression cannot be used for rule head';
  const op = e.op.terms.map((x) => (x.type === 'var' ? x.name : x.type === 'string' ? x.value : '')).join('.');
  if ((op === 'assign' || op === 'eq') && e.args[0] !== undefined) return `${typeName(e.args[0])} cannot be used for rule name`;
  return 'rule name conflicts with built-in function';
}
