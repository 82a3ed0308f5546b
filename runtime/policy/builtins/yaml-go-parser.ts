/**
 * go-yaml v2's parser and composer over yaml-go-scanner.ts's tokens, for the
 * first document of a stream only, as go-yaml's `Unmarshal` reads it: the
 * tokens are asked for in go-yaml's order, so the faults it sees (and only
 * those) are refused, in its words. The nodes are the `yaml` package's
 * (Scalar, YAMLSeq, YAMLMap, Pair, Alias), so the converter in yaml.ts reads
 * them; an alias's node is `aliasTarget(alias)`.
 */
import type { Alias, Node, Pair, Scalar, YAMLMap, YAMLSeq } from 'yaml';
import { yamlLibrary } from '../yaml-library.js';
import { GoYamlFault, type Mark } from './yaml-go-fault.js';
import { GoYamlScanner, type Token, type TokenType } from './yaml-go-scanner.js';

const targets = new WeakMap<Alias, Node>();

/** The node an alias of a composed document stands for (the anchor last defined before it, as go-yaml keeps it). */
export function aliasTarget(alias: Alias): Node | undefined {
  return targets.get(alias);
}

const DEFAULT_TAGS: ReadonlyArray<[string, string]> = [
  ['!', '!'],
  ['!!', 'tag:yaml.org,2002:'],
];

class GoYamlParser {
  private readonly scanner: GoYamlScanner;
  private readonly tagDirectives: Array<[string, string]> = [];
  private readonly anchors = new Map<string, Node>();

  constructor(text: string) {
    this.scanner = new GoYamlScanner(text);
  }

  private peek(): Token {
    return this.scanner.peek();
  }

  private skip(): void {
    this.scanner.skipToken();
  }

  private fail(problem: string, problemMark: Mark, contextMark?: Mark): never {
    throw new GoYamlFault({ stage: 'parser', problem, problemMark, contextMark });
  }

  /** The first document's root node; undefined for a stream with no document. */
  firstDocument(): Node | null | undefined {
    this.peek(); // STREAM_START
    this.skip();
    let token = this.peek();
    let root: Node | null;
    const explicit: TokenType[] = ['VERSION_DIRECTIVE', 'TAG_DIRECTIVE', 'DOCUMENT_START', 'STREAM_END'];
    if (!explicit.includes(token.type)) {
      this.processDirectives();
      root = this.node(true, false);
    } else if (token.type !== 'STREAM_END') {
      this.processDirectives();
      token = this.peek();
      if (token.type !== 'DOCUMENT_START') this.fail('did not find expected <document start>', token.start);
      this.skip();
      token = this.peek();
      const ends: TokenType[] = ['VERSION_DIRECTIVE', 'TAG_DIRECTIVE', 'DOCUMENT_START', 'DOCUMENT_END', 'STREAM_END'];
      root = ends.includes(token.type) ? this.empty() : this.node(true, false);
    } else return undefined;
    // The document's end: go-yaml looks at one more token, and reads no further.
    if (this.peek().type === 'DOCUMENT_END') this.skip();
    return root;
  }

  private processDirectives(): void {
    let token = this.peek();
    let version = false;
    while (token.type === 'VERSION_DIRECTIVE' || token.type === 'TAG_DIRECTIVE') {
      if (token.type === 'VERSION_DIRECTIVE') {
        if (version) this.fail('found duplicate %YAML directive', token.start);
        if (token.major !== 1 || token.minor !== 1) this.fail('found incompatible YAML document', token.start);
        version = true;
      } else {
        const handle = token.value as string;
        if (this.tagDirectives.some(([h]) => h === handle)) this.fail('found duplicate %TAG directive', token.start);
        this.tagDirectives.push([handle, token.suffix as string]);
      }
      this.skip();
      token = this.peek();
    }
    for (const [h, p] of DEFAULT_TAGS) if (!this.tagDirectives.some(([x]) => x === h)) this.tagDirectives.push([h, p]);
  }

  private empty(): Scalar {
    const s = new (yamlLibrary().Scalar)('');
    s.type = 'PLAIN';
    return s;
  }

  private anchor<T extends Node>(node: T, anchor: string | undefined): T {
    if (anchor !== undefined) this.anchors.set(anchor, node);
    return node;
  }

  private node(block: boolean, indentless: boolean): Node {
    let token = this.peek();
    const y = yamlLibrary();
    if (token.type === 'ALIAS') {
      const name = token.value as string;
      const target = this.anchors.get(name);
      if (target === undefined) throw new GoYamlFault({ stage: 'composer', problem: `unknown anchor '${name}' referenced` });
      const alias = new y.Alias(name);
      targets.set(alias, target);
      this.skip();
      return alias;
    }
    const start = token.start;
    let anchor: string | undefined;
    let tagToken: Token | undefined;
    const takeAnchor = (): void => {
      anchor = token.value as string;
      this.skip();
      token = this.peek();
    };
    const takeTag = (): void => {
      tagToken = token;
      this.skip();
      token = this.peek();
    };
    if (token.type === 'ANCHOR') {
      takeAnchor();
      if (this.peek().type === 'TAG') takeTag();
    } else if (token.type === 'TAG') {
      takeTag();
      if (this.peek().type === 'ANCHOR') takeAnchor();
    }
    let tag = '';
    if (tagToken !== undefined) {
      const handle = tagToken.value as string;
      if (handle === '') tag = tagToken.suffix as string;
      else {
        const prefix = this.tagDirectives.find(([h]) => h === handle)?.[1];
        tag = prefix === undefined ? '' : prefix + (tagToken.suffix as string);
        if (tag === '') this.fail('found undefined tag handle', tagToken.start, start);
      }
    }
    const tagged = <T extends Node>(n: T): T => {
      if (tag !== '') n.tag = tag;
      return this.anchor(n, anchor);
    };
    if (indentless && token.type === 'BLOCK_ENTRY') return this.indentlessSequence(tagged(new y.YAMLSeq()));
    if (token.type === 'SCALAR') {
      const s = tagged(new y.Scalar(token.value as string));
      s.type = token.style;
      this.skip();
      return s;
    }
    if (token.type === 'FLOW_SEQUENCE_START') return this.flowSequence(tagged(new y.YAMLSeq()));
    if (token.type === 'FLOW_MAPPING_START') return this.flowMapping(tagged(new y.YAMLMap()));
    if (block && token.type === 'BLOCK_SEQUENCE_START') return this.blockSequence(tagged(new y.YAMLSeq()));
    if (block && token.type === 'BLOCK_MAPPING_START') return this.blockMapping(tagged(new y.YAMLMap()));
    if (anchor !== undefined || tag !== '') return tagged(this.empty());
    this.fail('did not find expected node content', token.start, start);
  }

  private pair(key: Node, value: Node): Pair {
    return new (yamlLibrary().Pair)(key, value) as Pair;
  }

  private blockSequence(seq: YAMLSeq): YAMLSeq {
    const mark = this.peek().start;
    this.skip();
    for (;;) {
      const token = this.peek();
      if (token.type === 'BLOCK_ENTRY') {
        this.skip();
        const next = this.peek().type;
        seq.items.push(next !== 'BLOCK_ENTRY' && next !== 'BLOCK_END' ? this.node(true, false) : this.empty());
      } else if (token.type === 'BLOCK_END') {
        this.skip();
        return seq;
      } else this.fail("did not find expected '-' indicator", token.start, mark);
    }
  }

  private indentlessSequence(seq: YAMLSeq): YAMLSeq {
    while (this.peek().type === 'BLOCK_ENTRY') {
      this.skip();
      const next = this.peek().type;
      seq.items.push(['BLOCK_ENTRY', 'KEY', 'VALUE', 'BLOCK_END'].includes(next) ? this.empty() : this.node(true, false));
    }
    return seq;
  }

  private blockMapping(map: YAMLMap): YAMLMap {
    const mark = this.peek().start;
    this.skip();
    const stops: TokenType[] = ['KEY', 'VALUE', 'BLOCK_END'];
    for (;;) {
      const token = this.peek();
      if (token.type === 'KEY') {
        this.skip();
        const key = stops.includes(this.peek().type) ? this.empty() : this.node(true, true);
        let value: Node = this.empty();
        if (this.peek().type === 'VALUE') {
          this.skip();
          if (!stops.includes(this.peek().type)) value = this.node(true, true);
        }
        map.items.push(this.pair(key, value));
      } else if (token.type === 'BLOCK_END') {
        this.skip();
        return map;
      } else this.fail('did not find expected key', token.start, mark);
    }
  }

  private flowSequence(seq: YAMLSeq): YAMLSeq {
    const mark = this.peek().start;
    this.skip();
    for (let first = true; ; first = false) {
      let token = this.peek();
      if (token.type !== 'FLOW_SEQUENCE_END' && !first) {
        if (token.type !== 'FLOW_ENTRY') this.fail("did not find expected ',' or ']'", token.start, mark);
        this.skip();
        token = this.peek();
      }
      if (token.type === 'FLOW_SEQUENCE_END') {
        this.skip();
        return seq;
      }
      if (token.type === 'KEY') seq.items.push(this.flowPairInSequence());
      else seq.items.push(this.node(false, false));
    }
  }

  /** `[k: v]`: a one-pair mapping inside a flow sequence, with go-yaml's token handling. */
  private flowPairInSequence(): YAMLMap {
    const map = new (yamlLibrary().YAMLMap)();
    map.flow = true;
    this.skip(); // KEY
    let key: Node;
    const t = this.peek().type;
    if (t !== 'VALUE' && t !== 'FLOW_ENTRY' && t !== 'FLOW_SEQUENCE_END') key = this.node(false, false);
    else {
      this.skip();
      key = this.empty();
    }
    let value: Node = this.empty();
    if (this.peek().type === 'VALUE') {
      this.skip();
      const v = this.peek().type;
      if (v !== 'FLOW_ENTRY' && v !== 'FLOW_SEQUENCE_END') value = this.node(false, false);
    }
    this.peek();
    map.items.push(this.pair(key, value));
    return map;
  }

  private flowMapping(map: YAMLMap): YAMLMap {
    const mark = this.peek().start;
    this.skip();
    for (let first = true; ; first = false) {
      let token = this.peek();
      if (token.type !== 'FLOW_MAPPING_END' && !first) {
        if (token.type !== 'FLOW_ENTRY') this.fail("did not find expected ',' or '}'", token.start, mark);
        this.skip();
        token = this.peek();
      }
      if (token.type === 'FLOW_MAPPING_END') {
        this.skip();
        return map;
      }
      let key: Node;
      let value: Node = this.empty();
      if (token.type === 'KEY') {
        this.skip();
        const k = this.peek().type;
        key = k !== 'VALUE' && k !== 'FLOW_ENTRY' && k !== 'FLOW_MAPPING_END' ? this.node(false, false) : this.empty();
        if (this.peek().type === 'VALUE') {
          this.skip();
          const v = this.peek().type;
          if (v !== 'FLOW_ENTRY' && v !== 'FLOW_MAPPING_END') value = this.node(false, false);
        }
      } else {
        key = this.node(false, false);
        this.peek();
      }
      map.items.push(this.pair(key, value));
    }
  }
}

/**
 * The first document of `text` as go-yaml v2 composes it: its root node
 * (null for an empty document), or undefined when the stream has none.
 * Throws a GoYamlFault with go-yaml's text where go-yaml refuses the text.
 */
export function composeFirstDocument(text: string): Node | null | undefined {
  return new GoYamlParser(text).firstDocument();
}
