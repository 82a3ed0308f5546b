import { readFile } from 'node:fs/promises';
import { z } from 'zod';

/** The parts of a Hugging Face `tokenizer.json` (BERT, WordPiece) that are read. */
const TokenizerJsonSchema = z.object({
  normalizer: z
    .object({ lowercase: z.boolean().default(true), strip_accents: z.boolean().nullable().default(null) })
    .passthrough()
    .nullable()
    .optional(),
  model: z.object({
    type: z.literal('WordPiece'),
    unk_token: z.string(),
    continuing_subword_prefix: z.string().default('##'),
    max_input_chars_per_word: z.number().int().positive().default(100),
    vocab: z.record(z.string(), z.number().int().nonnegative()),
  }),
});

/**
 * BERT's uncased WordPiece tokenizer (`BertNormalizer`, `BertPreTokenizer`,
 * `[CLS] … [SEP]`), read from a `tokenizer.json`.
 *
 * @example
 * const tokenizer = await BertTokenizer.load('/models/blobs/all-MiniLM-L6-v2/tokenizer.json');
 * tokenizer.encode('Hello there'); // [101, 7592, 2045, 102]
 */
export class BertTokenizer {
  readonly #vocab: ReadonlyMap<string, number>;
  readonly #unk: number;
  readonly #prefix: string;
  readonly #maxWordChars: number;
  readonly #lowercase: boolean;
  readonly #stripAccents: boolean;
  readonly cls: number;
  readonly sep: number;

  constructor(options: { json: unknown }) {
    const parsed = TokenizerJsonSchema.parse(options.json);
    this.#vocab = new Map(Object.entries(parsed.model.vocab));
    const id = (token: string) => {
      const value = this.#vocab.get(token);
      if (value === undefined) throw new Error(`tokenizer vocabulary has no ${token}`);
      return value;
    };
    this.#unk = id(parsed.model.unk_token);
    this.cls = id('[CLS]');
    this.sep = id('[SEP]');
    this.#prefix = parsed.model.continuing_subword_prefix;
    this.#maxWordChars = parsed.model.max_input_chars_per_word;
    this.#lowercase = parsed.normalizer?.lowercase ?? true;
    // As in `tokenizers`: accents are stripped when unset and lowercasing.
    this.#stripAccents = parsed.normalizer?.strip_accents ?? this.#lowercase;
  }

  static async load(path: string): Promise<BertTokenizer> {
    return new BertTokenizer({ json: JSON.parse(await readFile(path, 'utf8')) as unknown });
  }

  /** Token ids of `text` between `[CLS]` and `[SEP]`, at most `maxTokens` in all (cut when `truncate`, else `undefined`). */
  encode(text: string, options: { maxTokens?: number; truncate?: boolean } = {}): number[] | undefined {
    const ids: number[] = [];
    for (const word of this.#words(text)) ids.push(...this.#wordPiece(word));
    const max = options.maxTokens === undefined ? Infinity : options.maxTokens - 2;
    if (ids.length > max) {
      if (options.truncate === false) return undefined;
      ids.length = max;
    }
    return [this.cls, ...ids, this.sep];
  }

  #words(text: string): string[] {
    let clean = '';
    for (const ch of text) {
      const code = ch.codePointAt(0)!;
      if (code === 0 || code === 0xfffd || (/\p{Cc}|\p{Cf}/u.test(ch) && !/\s/u.test(ch))) continue;
      clean += /\s/u.test(ch) ? ' ' : isCjk(code) ? ` ${ch} ` : ch;
    }
    if (this.#lowercase) clean = clean.toLowerCase();
    if (this.#stripAccents) clean = clean.normalize('NFD').replace(/\p{Mn}/gu, '');
    const words: string[] = [];
    for (const chunk of clean.split(' ')) {
      let current = '';
      for (const ch of chunk) {
        if (isPunctuation(ch)) {
          if (current) words.push(current);
          words.push(ch);
          current = '';
        } else current += ch;
      }
      if (current) words.push(current);
    }
    return words;
  }

  #wordPiece(word: string): number[] {
    const chars = [...word];
    if (chars.length > this.#maxWordChars) return [this.#unk];
    const ids: number[] = [];
    let start = 0;
    while (start < chars.length) {
      let end = chars.length;
      let found: number | undefined;
      while (start < end) {
        const piece = (start > 0 ? this.#prefix : '') + chars.slice(start, end).join('');
        found = this.#vocab.get(piece);
        if (found !== undefined) break;
        end -= 1;
      }
      if (found === undefined) return [this.#unk];
      ids.push(found);
      start = end;
    }
    return ids;
  }
}

function isPunctuation(ch: string): boolean {
  const c = ch.codePointAt(0)!;
  return (c >= 33 && c <= 47) || (c >= 58 && c <= 64) || (c >= 91 && c <= 96) || (c >= 123 && c <= 126) || /\p{P}/u.test(ch);
}

function isCjk(c: number): boolean {
  return (
    (c >= 0x4e00 && c <= 0x9fff) ||
    (c >= 0x3400 && c <= 0x4dbf) ||
    (c >= 0x20000 && c <= 0x2a6df) ||
    (c >= 0x2a700 && c <= 0x2b73f) ||
    (c >= 0x2b740 && c <= 0x2b81f) ||
    (c >= 0x2b820 && c <= 0x2ceaf) ||
    (c >= 0xf900 && c <= 0xfaff) ||
    (c >= 0x2f800 && c <= 0x2fa1f)
  );
}
