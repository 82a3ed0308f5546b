import { describe, expect, it } from 'vitest';
import { BertTokenizer } from '../../runtime/model/bert-tokenizer.js';

const vocab = ['[PAD]', '[UNK]', '[CLS]', '[SEP]', 'hello', ',', 'world', '!', 'un', '##aff', '##able', 'cafe', '的', "'", 's'];
const tokenizer = new BertTokenizer({
  json: {
    normalizer: { type: 'BertNormalizer', lowercase: true, strip_accents: null },
    model: {
      type: 'WordPiece',
      unk_token: '[UNK]',
      continuing_subword_prefix: '##',
      max_input_chars_per_word: 100,
      vocab: Object.fromEntries(vocab.map((t, i) => [t, i])),
    },
  },
});
const ids = (...tokens: string[]) => tokens.map((t) => vocab.indexOf(t));

describe('BertTokenizer', () => {
  it('lowercases, strips accents, splits punctuation and CJK, and wraps in [CLS] [SEP]', () => {
    expect(tokenizer.encode('Hello,  WORLD!\tCafé')).toEqual(ids('[CLS]', 'hello', ',', 'world', '!', 'cafe', '[SEP]'));
    expect(tokenizer.encode("world's的hello")).toEqual(ids('[CLS]', 'world', "'", 's', '的', 'hello', '[SEP]'));
  });

  it('splits words into the longest word pieces, and unknown words into [UNK]', () => {
    expect(tokenizer.encode('unaffable zzz')).toEqual(ids('[CLS]', 'un', '##aff', '##able', '[UNK]', '[SEP]'));
    expect(tokenizer.encode('')).toEqual(ids('[CLS]', '[SEP]'));
  });

  it('truncates to maxTokens, or refuses when truncate is false', () => {
    expect(tokenizer.encode('hello world hello world', { maxTokens: 4 })).toEqual(ids('[CLS]', 'hello', 'world', '[SEP]'));
    expect(tokenizer.encode('hello world hello world', { maxTokens: 4, truncate: false })).toBeUndefined();
    expect(tokenizer.encode('hello world', { maxTokens: 4, truncate: false })).toEqual(ids('[CLS]', 'hello', 'world', '[SEP]'));
  });
});
