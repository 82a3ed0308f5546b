import { z } from 'zod';
import { readFile } from 'node:fs/promises';
import { readSafetensors, type Tensor } from './safetensors.js';
import { simdMatmul, type MatmulKernel } from './simd-matmul.js';

/** The fields of a BERT `config.json` the encoder uses. */
export const BertConfigSchema = z.object({
  hidden_size: z.number().int().positive(),
  num_hidden_layers: z.number().int().positive(),
  num_attention_heads: z.number().int().positive(),
  intermediate_size: z.number().int().positive(),
  max_position_embeddings: z.number().int().positive(),
  layer_norm_eps: z.number().positive().default(1e-12),
  hidden_act: z.literal('gelu').default('gelu'),
});
export type BertConfig = z.infer<typeof BertConfigSchema>;

/** Reads and checks a BERT `config.json`. */
export async function readBertConfig(path: string): Promise<BertConfig> {
  return BertConfigSchema.parse(JSON.parse(await readFile(path, 'utf8')));
}

/** A `Linear` in the kernel's memory: byte offsets of its transposed weight [in, out] and bias. */
interface Linear {
  weight: number;
  bias: number;
  out: number;
  in: number;
}
interface Norm {
  weight: Float32Array;
  bias: Float32Array;
}
interface Layer {
  query: Linear;
  key: Linear;
  value: Linear;
  attentionOut: Linear;
  attentionNorm: Norm;
  intermediate: Linear;
  output: Linear;
  outputNorm: Norm;
}

const PAGE = 65_536;
const align16 = (bytes: number) => Math.ceil(bytes / 16) * 16;

/**
 * A BERT encoder on the CPU (float32), for sentence embeddings: the token
 * states mean-pooled and L2-normalised, as sentence-transformers' MiniLM
 * models are. The matrix products (dense layers and attention) run in a
 * WebAssembly SIMD kernel over weights transposed once at load; the rest is
 * TypeScript over the kernel's memory. Synchronous: `EmbeddingEngine` runs it
 * in a worker thread.
 *
 * @example
 * const encoder = await BertEncoder.load({ weights: 'model.safetensors', config: 'config.json' });
 * encoder.embed([101, 7592, 102]); // Float32Array(384), norm 1
 */
export class BertEncoder {
  readonly config: BertConfig;
  readonly #words: Float32Array;
  readonly #positions: Float32Array;
  readonly #types: Float32Array;
  readonly #embeddingNorm: Norm;
  readonly #layers: Layer[];
  readonly #memory: WebAssembly.Memory;
  readonly #matmul: MatmulKernel;
  /** Where the activations start in the kernel's memory, after the weights. */
  readonly #scratch: number;

  constructor(options: { config: BertConfig; tensors: Map<string, Tensor> }) {
    this.config = options.config;
    const h = this.config.hidden_size;
    const inter = this.config.intermediate_size;
    const get = (name: string, shape: readonly number[]): Float32Array => {
      const tensor = options.tensors.get(name) ?? options.tensors.get(`bert.${name}`);
      if (!tensor) throw new Error(`weights have no tensor ${name}`);
      if (tensor.shape.length !== shape.length || tensor.shape.some((d, i) => shape[i] !== -1 && d !== shape[i])) {
        throw new Error(`tensor ${name} has shape [${tensor.shape.join(', ')}], expected [${shape.join(', ')}]`);
      }
      return tensor.data;
    };
    if (h % 8 !== 0 || inter % 8 !== 0 || h % this.config.num_attention_heads !== 0 || (h / this.config.num_attention_heads) % 8 !== 0)
      throw new Error(`unsupported BERT sizes: hidden ${h}, intermediate ${inter}`);
    const linearBytes = (out: number, input: number) => align16(out * input * 4) + align16(out * 4);
    const weightBytes = this.config.num_hidden_layers * (4 * linearBytes(h, h) + linearBytes(inter, h) + linearBytes(h, inter));
    this.#memory = new WebAssembly.Memory({ initial: Math.ceil(weightBytes / PAGE) + 1 });
    this.#matmul = simdMatmul(this.#memory);
    const memory = new Float32Array(this.#memory.buffer);
    let next = 0;
    // Weights are copied once, transposed to [in, out], so the kernel reads them row by row.
    const linear = (name: string, out: number, input: number): Linear => {
      const w = get(`${name}.weight`, [out, input]);
      const weight = next;
      const base = weight / 4;
      for (let o = 0; o < out; o++) for (let i = 0; i < input; i++) memory[base + i * out + o] = w[o * input + i]!;
      next += align16(out * input * 4);
      const bias = next;
      memory.set(get(`${name}.bias`, [out]), bias / 4);
      next += align16(out * 4);
      return { weight, bias, out, in: input };
    };
    const norm = (name: string): Norm => ({ weight: get(`${name}.weight`, [h]), bias: get(`${name}.bias`, [h]) });
    this.#words = get('embeddings.word_embeddings.weight', [-1, h]);
    this.#positions = get('embeddings.position_embeddings.weight', [-1, h]);
    this.#types = get('embeddings.token_type_embeddings.weight', [-1, h]);
    this.#embeddingNorm = norm('embeddings.LayerNorm');
    this.#layers = Array.from({ length: this.config.num_hidden_layers }, (_, i) => {
      const p = `encoder.layer.${i}`;
      return {
        query: linear(`${p}.attention.self.query`, h, h),
        key: linear(`${p}.attention.self.key`, h, h),
        value: linear(`${p}.attention.self.value`, h, h),
        attentionOut: linear(`${p}.attention.output.dense`, h, h),
        attentionNorm: norm(`${p}.attention.output.LayerNorm`),
        intermediate: linear(`${p}.intermediate.dense`, inter, h),
        output: linear(`${p}.output.dense`, h, inter),
        outputNorm: norm(`${p}.output.LayerNorm`),
      };
    });
    this.#scratch = next;
  }

  static async load(options: { weights: string; config: string }): Promise<BertEncoder> {
    const config = await readBertConfig(options.config);
    return new BertEncoder({ config, tensors: await readSafetensors(options.weights) });
  }

  get dimensions(): number {
    return this.config.hidden_size;
  }

  /** The mean-pooled, L2-normalised embedding of one token sequence (with its `[CLS]` and `[SEP]`). */
  embed(ids: readonly number[]): Float32Array {
    return this.embedBatch([ids])[0]!;
  }

  /**
   * The embeddings of several token sequences in one pass: their tokens are
   * stacked into one matrix for the dense layers, and each attends only to
   * its own tokens (no padding), so a sequence gets the same vector alone or
   * in a batch.
   */
  embedBatch(sequences: readonly (readonly number[])[]): Float32Array[] {
    const h = this.config.hidden_size;
    const inter = this.config.intermediate_size;
    const starts: number[] = [];
    let rows = 0;
    for (const ids of sequences) {
      if (ids.length === 0 || ids.length > this.config.max_position_embeddings) throw new Error(`cannot embed ${ids.length} tokens`);
      starts.push(rows);
      rows += ids.length;
    }
    if (rows === 0) return [];
    // The kernel takes four rows at a time; the extra rows are zeros and never read.
    const padded = Math.ceil(rows / 4) * 4;
    const block = padded * h * 4;
    const x = this.#scratch;
    const [q, k, v, context, attended, inner] = [x + block, x + 2 * block, x + 3 * block, x + 4 * block, x + 5 * block, x + 6 * block];
    // Per-head attention buffers, [n8, d] or [n8, n8] with n8 the longest sequence rounded up to 8.
    const n8 = Math.ceil(Math.max(...sequences.map((ids) => ids.length)) / 8) * 8;
    const d = h / this.config.num_attention_heads;
    const zeros = inner + padded * inter * 4;
    const q8 = zeros + Math.max(n8, d) * 4;
    const heads = { zeros, q: q8, k: q8 + n8 * d * 4, scores: q8 + 2 * n8 * d * 4, v: 0, context: 0 };
    heads.v = heads.scores + n8 * n8 * 4;
    heads.context = heads.v + n8 * d * 4;
    const needed = heads.context + n8 * d * 4;
    if (needed > this.#memory.buffer.byteLength) this.#memory.grow(Math.ceil((needed - this.#memory.buffer.byteLength) / PAGE));
    const m = new Float32Array(this.#memory.buffer);
    m.fill(0, x / 4, needed / 4);

    sequences.forEach((ids, s) => {
      for (let t = 0; t < ids.length; t++) {
        const w = ids[t]! * h;
        const o = x / 4 + (starts[s]! + t) * h;
        for (let j = 0; j < h; j++) m[o + j] = this.#words[w + j]! + this.#positions[t * h + j]! + this.#types[j]!;
      }
    });
    const eps = this.config.layer_norm_eps;
    layerNorm(m, x / 4, rows, h, this.#embeddingNorm, eps);
    for (const layer of this.#layers) {
      this.#matmul(x, layer.query.weight, layer.query.bias, q, padded, h, h);
      this.#matmul(x, layer.key.weight, layer.key.bias, k, padded, h, h);
      this.#matmul(x, layer.value.weight, layer.value.bias, v, padded, h, h);
      sequences.forEach((ids, s) => this.#attention(m, { q, k, v, context }, heads, starts[s]!, ids.length));
      this.#matmul(context, layer.attentionOut.weight, layer.attentionOut.bias, attended, padded, h, h);
      addInPlace(m, attended / 4, x / 4, rows * h);
      layerNorm(m, attended / 4, rows, h, layer.attentionNorm, eps);
      this.#matmul(attended, layer.intermediate.weight, layer.intermediate.bias, inner, padded, h, inter);
      const i0 = inner / 4;
      for (let i = i0, end = i0 + rows * inter; i < end; i++) m[i] = gelu(m[i]!);
      this.#matmul(inner, layer.output.weight, layer.output.bias, x, padded, inter, h);
      addInPlace(m, x / 4, attended / 4, rows * h);
      layerNorm(m, x / 4, rows, h, layer.outputNorm, eps);
    }

    return sequences.map((ids, s) => {
      const n = ids.length;
      const o = x / 4 + starts[s]! * h;
      const pooled = new Float32Array(h);
      for (let t = 0; t < n; t++) for (let j = 0; j < h; j++) pooled[j]! += m[o + t * h + j]! / n;
      let norm = 0;
      for (let j = 0; j < h; j++) norm += pooled[j]! * pooled[j]!;
      norm = Math.max(Math.sqrt(norm), 1e-12);
      for (let j = 0; j < h; j++) pooled[j]! /= norm;
      return pooled;
    });
  }

  /**
   * Self-attention of the `n` rows from `start`, written to `context`; `at` and
   * `buffers` are byte offsets into `m`'s memory. Per head, the scores and the
   * weighted values are two kernel products over copies of that head's
   * columns (Q scaled, K transposed), padded with zeros.
   */
  #attention(
    m: Float32Array,
    at: { q: number; k: number; v: number; context: number },
    buffers: { zeros: number; q: number; k: number; scores: number; v: number; context: number },
    start: number,
    n: number,
  ): void {
    const h = this.config.hidden_size;
    const d = h / this.config.num_attention_heads;
    const scale = 1 / Math.sqrt(d);
    const n4 = Math.ceil(n / 4) * 4;
    const n8 = Math.ceil(n / 8) * 8;
    const [qh, kt, scores, vh, ch] = [buffers.q / 4, buffers.k / 4, buffers.scores / 4, buffers.v / 4, buffers.context / 4];
    m.fill(0, qh + n * d, qh + n4 * d);
    m.fill(0, vh + n * d, vh + n8 * d);
    for (let c = 0; c < d; c++) m.fill(0, kt + c * n8 + n, kt + (c + 1) * n8);
    for (let o = 0; o < h; o += d) {
      for (let i = 0; i < n; i++) {
        const row = (start + i) * h + o;
        const [qi, ki, vi] = [at.q / 4 + row, at.k / 4 + row, at.v / 4 + row];
        for (let c = 0; c < d; c++) {
          m[qh + i * d + c] = m[qi + c]! * scale;
          m[kt + c * n8 + i] = m[ki + c]!;
          m[vh + i * d + c] = m[vi + c]!;
        }
      }
      this.#matmul(buffers.q, buffers.k, buffers.zeros, buffers.scores, n4, d, n8);
      for (let i = 0; i < n; i++) {
        const r = scores + i * n8;
        let max = -Infinity;
        for (let j = 0; j < n; j++) if (m[r + j]! > max) max = m[r + j]!;
        let sum = 0;
        for (let j = 0; j < n; j++) {
          const e = Math.exp(m[r + j]! - max);
          m[r + j] = e;
          sum += e;
        }
        for (let j = 0; j < n; j++) m[r + j]! /= sum;
        m.fill(0, r + n, r + n8);
      }
      this.#matmul(buffers.scores, buffers.v, buffers.zeros, buffers.context, n4, n8, d);
      for (let i = 0; i < n; i++) m.set(m.subarray(ch + i * d, ch + (i + 1) * d), at.context / 4 + (start + i) * h + o);
    }
  }
}

function addInPlace(m: Float32Array, target: number, source: number, count: number): void {
  for (let i = 0; i < count; i++) m[target + i]! += m[source + i]!;
}

function layerNorm(x: Float32Array, offset: number, n: number, h: number, norm: Norm, eps: number): void {
  for (let t = 0; t < n; t++) {
    const o = offset + t * h;
    let mean = 0;
    for (let j = 0; j < h; j++) mean += x[o + j]!;
    mean /= h;
    let variance = 0;
    for (let j = 0; j < h; j++) variance += (x[o + j]! - mean) ** 2;
    const inv = 1 / Math.sqrt(variance / h + eps);
    for (let j = 0; j < h; j++) x[o + j] = (x[o + j]! - mean) * inv * norm.weight[j]! + norm.bias[j]!;
  }
}

/** BERT's exact GELU, `x·Φ(x)`, with erf to about 1e-7. */
function gelu(x: number): number {
  return 0.5 * x * (1 + erf(x / Math.SQRT2));
}

function erf(x: number): number {
  // Abramowitz and Stegun 7.1.26 is 1.5e-7; this is Numerical Recipes' erfc, 1.2e-7.
  const z = Math.abs(x);
  const t = 1 / (1 + 0.5 * z);
  const r =
    t *
    Math.exp(
      -z * z -
        1.26551223 +
        t *
          (1.00002368 +
            t *
              (0.37409196 +
                t * (0.09678418 + t * (-0.18628806 + t * (0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277)))))))),
    );
  return x >= 0 ? 1 - r : r - 1;
}
