import { z } from 'zod';
import { readFile } from 'node:fs/promises';
import { readSafetensors, type Tensor } from './safetensors.js';

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

interface Linear {
  weight: Float32Array;
  bias: Float32Array;
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

/**
 * A BERT encoder on the CPU in plain TypeScript (float32), for sentence
 * embeddings: the token states mean-pooled and L2-normalised, as
 * sentence-transformers' MiniLM models are.
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

  constructor(options: { config: BertConfig; tensors: Map<string, Tensor> }) {
    this.config = options.config;
    const h = this.config.hidden_size;
    const get = (name: string, shape: readonly number[]): Float32Array => {
      const tensor = options.tensors.get(name) ?? options.tensors.get(`bert.${name}`);
      if (!tensor) throw new Error(`weights have no tensor ${name}`);
      if (tensor.shape.length !== shape.length || tensor.shape.some((d, i) => shape[i] !== -1 && d !== shape[i])) {
        throw new Error(`tensor ${name} has shape [${tensor.shape.join(', ')}], expected [${shape.join(', ')}]`);
      }
      return tensor.data;
    };
    const linear = (name: string, out: number, input: number): Linear => ({ weight: get(`${name}.weight`, [out, input]), bias: get(`${name}.bias`, [out]), out, in: input });
    const norm = (name: string): Norm => ({ weight: get(`${name}.weight`, [h]), bias: get(`${name}.bias`, [h]) });
    this.#words = get('embeddings.word_embeddings.weight', [-1, h]);
    this.#positions = get('embeddings.position_embeddings.weight', [-1, h]);
    this.#types = get('embeddings.token_type_embeddings.weight', [-1, h]);
    this.#embeddingNorm = norm('embeddings.LayerNorm');
    const inter = this.config.intermediate_size;
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
  }

  static async load(options: { weights: string; config: string }): Promise<BertEncoder> {
    const config = BertConfigSchema.parse(JSON.parse(await readFile(options.config, 'utf8')));
    return new BertEncoder({ config, tensors: await readSafetensors(options.weights) });
  }

  get dimensions(): number {
    return this.config.hidden_size;
  }

  /** The mean-pooled, L2-normalised embedding of one token sequence (with its `[CLS]` and `[SEP]`). */
  embed(ids: readonly number[]): Float32Array {
    const h = this.config.hidden_size;
    const n = ids.length;
    if (n === 0 || n > this.config.max_position_embeddings) throw new Error(`cannot embed ${n} tokens`);
    let x: Float32Array = new Float32Array(n * h);
    for (let t = 0; t < n; t++) {
      const w = ids[t]! * h;
      for (let j = 0; j < h; j++) x[t * h + j] = this.#words[w + j]! + this.#positions[t * h + j]! + this.#types[j]!;
    }
    layerNorm(x, n, h, this.#embeddingNorm, this.config.layer_norm_eps);
    for (const layer of this.#layers) x = this.#layer(layer, x, n);

    const pooled = new Float32Array(h);
    for (let t = 0; t < n; t++) for (let j = 0; j < h; j++) pooled[j]! += x[t * h + j]! / n;
    let norm = 0;
    for (let j = 0; j < h; j++) norm += pooled[j]! * pooled[j]!;
    norm = Math.max(Math.sqrt(norm), 1e-12);
    for (let j = 0; j < h; j++) pooled[j]! /= norm;
    return pooled;
  }

  #layer(layer: Layer, x: Float32Array, n: number): Float32Array {
    const h = this.config.hidden_size;
    const heads = this.config.num_attention_heads;
    const d = h / heads;
    const eps = this.config.layer_norm_eps;
    const q = matmul(x, n, layer.query);
    const k = matmul(x, n, layer.key);
    const v = matmul(x, n, layer.value);
    const context = new Float32Array(n * h);
    const scores = new Float32Array(n);
    const scale = 1 / Math.sqrt(d);
    for (let head = 0; head < heads; head++) {
      const o = head * d;
      for (let i = 0; i < n; i++) {
        let max = -Infinity;
        for (let j = 0; j < n; j++) {
          let s = 0;
          for (let c = 0; c < d; c++) s += q[i * h + o + c]! * k[j * h + o + c]!;
          s *= scale;
          scores[j] = s;
          if (s > max) max = s;
        }
        let sum = 0;
        for (let j = 0; j < n; j++) {
          const e = Math.exp(scores[j]! - max);
          scores[j] = e;
          sum += e;
        }
        for (let j = 0; j < n; j++) {
          const p = scores[j]! / sum;
          for (let c = 0; c < d; c++) context[i * h + o + c]! += p * v[j * h + o + c]!;
        }
      }
    }
    const attended = matmul(context, n, layer.attentionOut);
    for (let i = 0; i < attended.length; i++) attended[i]! += x[i]!;
    layerNorm(attended, n, h, layer.attentionNorm, eps);
    const inner = matmul(attended, n, layer.intermediate);
    for (let i = 0; i < inner.length; i++) inner[i] = gelu(inner[i]!);
    const out = matmul(inner, n, layer.output);
    for (let i = 0; i < out.length; i++) out[i]! += attended[i]!;
    layerNorm(out, n, h, layer.outputNorm, eps);
    return out;
  }
}

/** `x · Wᵀ + b` for `n` rows (PyTorch's `Linear` layout: weight is [out, in]); four rows at a time share each weight row. */
function matmul(x: Float32Array, n: number, l: Linear): Float32Array {
  const y = new Float32Array(n * l.out);
  const w = l.weight;
  const k = l.in;
  let t = 0;
  for (; t + 4 <= n; t += 4) {
    const x0 = t * k;
    const x1 = x0 + k;
    const x2 = x1 + k;
    const x3 = x2 + k;
    for (let o = 0; o < l.out; o++) {
      const wo = o * k;
      let s0 = 0;
      let s1 = 0;
      let s2 = 0;
      let s3 = 0;
      for (let i = 0; i < k; i++) {
        const wi = w[wo + i]!;
        s0 += x[x0 + i]! * wi;
        s1 += x[x1 + i]! * wi;
        s2 += x[x2 + i]! * wi;
        s3 += x[x3 + i]! * wi;
      }
      const b = l.bias[o]!;
      y[t * l.out + o] = s0 + b;
      y[(t + 1) * l.out + o] = s1 + b;
      y[(t + 2) * l.out + o] = s2 + b;
      y[(t + 3) * l.out + o] = s3 + b;
    }
  }
  for (; t < n; t++) {
    const xo = t * k;
    for (let o = 0; o < l.out; o++) {
      const wo = o * k;
      let s = 0;
      for (let i = 0; i < k; i++) s += x[xo + i]! * w[wo + i]!;
      y[t * l.out + o] = s + l.bias[o]!;
    }
  }
  return y;
}

function layerNorm(x: Float32Array, n: number, h: number, norm: Norm, eps: number): void {
  for (let t = 0; t < n; t++) {
    const o = t * h;
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
  const r = t * Math.exp(-z * z - 1.26551223 + t * (1.00002368 + t * (0.37409196 + t * (0.09678418 + t * (-0.18628806 + t * (0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277)))))))));
  return x >= 0 ? 1 - r : r - 1;
}
