import { readFile } from 'node:fs/promises';
import { z } from 'zod';

const TensorInfoSchema = z.object({
  dtype: z.string(),
  shape: z.array(z.number().int().nonnegative()),
  data_offsets: z.tuple([z.number().int(), z.number().int()]),
});

/** A float32 tensor: its values, row-major, and its shape. */
export interface Tensor {
  data: Float32Array;
  shape: readonly number[];
}

/**
 * The F32 tensors of a `.safetensors` file by name (other dtypes are skipped).
 *
 * @example
 * const tensors = await readSafetensors('/models/blobs/all-MiniLM-L6-v2/model.safetensors');
 */
export async function readSafetensors(path: string): Promise<Map<string, Tensor>> {
  const bytes = await readFile(path);
  if (bytes.length < 8) throw new Error(`${path} is not a safetensors file`);
  const headerLength = Number(bytes.readBigUInt64LE(0));
  if (8 + headerLength > bytes.length) throw new Error(`${path} has a truncated header`);
  const header = z.record(z.string(), z.unknown()).parse(JSON.parse(bytes.subarray(8, 8 + headerLength).toString('utf8')));
  const base = 8 + headerLength;
  const tensors = new Map<string, Tensor>();
  for (const [name, raw] of Object.entries(header)) {
    if (name === '__metadata__') continue;
    const info = TensorInfoSchema.parse(raw);
    if (info.dtype !== 'F32') continue;
    const [start, end] = info.data_offsets;
    const count = info.shape.reduce((a, b) => a * b, 1);
    if (end - start !== count * 4 || base + end > bytes.length) throw new Error(`${path}: tensor ${name} does not match its shape`);
    // Copied, since the data need not be 4-byte aligned in the file.
    const data = new Float32Array(count);
    new Uint8Array(data.buffer).set(bytes.subarray(base + start, base + end));
    tensors.set(name, { data, shape: info.shape });
  }
  return tensors;
}
