import { kernelModule, op, simd, sleb, type, v128Load } from '../wasm-bytes.js';

// WebAssembly SIMD opcodes this kernel needs beyond core/wasm-bytes.ts's.
const i32x4Splat = simd(0x11);
const i32x4ExtractLane = (lane: number) => [...simd(0x1b), lane];
const i16x8ExtendLowI8x16 = simd(0x87);
const i16x8ExtendHighI8x16 = simd(0x88);
const i32x4Add = simd(0xae);
const i32x4DotI16x8 = simd(0xba);
const i32Store = [0x36, 2, 0];

/**
 * The kernel, assembled byte by byte (see core/wasm-bytes.ts) from:
 *
 *   for (c = 0; c < count; c++) {
 *     rp = data + idx[c] · stride;  qp = q;  acc = 0 (i32x4)
 *     for (k = stride; k > 0; k -= 16) {
 *       v = rp[0..16] (int8);  acc += dot(low 8 of v as i16, qp[0..8]) + dot(high 8 of v as i16, qp[8..16])
 *       qp += 16 (i16);  rp += 16
 *     }
 *     out[c] = sum of the lanes of acc (i32)
 *   }
 *
 * `stride` (bytes per row) must be a positive multiple of 16; the query is `stride` int16s.
 */
function int8KernelCode(): number[] {
  const [Q, DATA, IDX, COUNT, STRIDE, OUT] = [0, 1, 2, 3, 4, 5];
  const [C, RP, QP, K] = [6, 7, 8, 9];
  const [ACC, V] = [10, 11];
  const get = (l: number) => [op.get, l];
  const set = (l: number) => [op.set, l];
  const i32 = (v: number) => [op.i32Const, ...sleb(v)];
  const word = (l: number) => [...get(l), ...i32(4), op.i32Mul];
  const dotAdd = (extend: number[], offset: number) => [
    ...get(ACC),
    ...get(V),
    ...extend,
    ...get(QP),
    ...v128Load(offset),
    ...i32x4DotI16x8,
    ...i32x4Add,
    ...set(ACC),
  ];
  const lane = (n: number) => [...get(ACC), ...i32x4ExtractLane(n)];
  return [
    op.block,
    op.void,
    op.loop,
    op.void,
    ...get(C),
    ...get(COUNT),
    op.i32GeU,
    op.brIf,
    1,
    ...get(DATA),
    ...get(IDX),
    ...word(C),
    op.i32Add,
    op.i32Load,
    2,
    0,
    ...get(STRIDE),
    op.i32Mul,
    op.i32Add,
    ...set(RP),
    ...get(Q),
    ...set(QP),
    ...get(STRIDE),
    ...set(K),
    ...i32(0),
    ...i32x4Splat,
    ...set(ACC),
    op.loop,
    op.void,
    ...get(RP),
    ...v128Load(0),
    ...set(V),
    ...dotAdd(i16x8ExtendLowI8x16, 0),
    ...dotAdd(i16x8ExtendHighI8x16, 16),
    ...get(QP),
    ...i32(32),
    op.i32Add,
    ...set(QP),
    ...get(RP),
    ...i32(16),
    op.i32Add,
    ...set(RP),
    ...get(K),
    ...i32(16),
    op.i32Sub,
    op.tee,
    K,
    op.brIf,
    0,
    op.end,
    ...get(OUT),
    ...word(C),
    op.i32Add,
    ...lane(0),
    ...lane(1),
    op.i32Add,
    ...lane(2),
    op.i32Add,
    ...lane(3),
    op.i32Add,
    ...i32Store,
    ...get(C),
    ...i32(1),
    op.i32Add,
    ...set(C),
    op.br,
    0,
    op.end,
    op.end,
  ];
}

type Int8Kernel = (q: number, data: number, idx: number, count: number, stride: number, out: number) => void;

const PAGE = 65_536;
let module: WebAssembly.Module | undefined;

/**
 * An int8 copy of float32 rows (each row scaled so its largest component is
 * ±127, the scale kept beside it), scored against a query by a SIMD kernel:
 * a quarter of the memory traffic of `VectorSlab`, for a first pass over
 * many rows whose best few are then scored again in float32. The dot
 * products are approximate (about 1 % of a unit vector's norm off, for 384
 * dimensions). Layout: the rows from byte 0, then scratch space for the
 * query (int16), the slots to score and their integer dots.
 *
 * @example
 * const slab = new Int8Slab({ dim: 384 });
 * slab.ensure(2);
 * slab.set(0, a);
 * slab.set(1, b);
 * const [roughA, roughB] = slab.dots(query, [0, 1], 2);
 */
export class Int8Slab {
  readonly dim: number;
  /** Bytes per row: `dim` padded to a multiple of 16. */
  readonly stride: number;
  readonly #memory = new WebAssembly.Memory({ initial: 1 });
  readonly #kernel: Int8Kernel;
  #capacity = 0;
  #scales = new Float32Array(0);
  #bytes = new Int8Array(this.#memory.buffer);

  constructor(options: { dim: number }) {
    this.dim = options.dim;
    this.stride = Math.max(16, Math.ceil(options.dim / 16) * 16);
    module ??= new WebAssembly.Module(
      kernelModule({
        name: 'dots',
        params: 6,
        locals: [
          [4, type.i32],
          [2, type.v128],
        ],
        code: int8KernelCode(),
      }),
    );
    this.#kernel = new WebAssembly.Instance(module, { env: { memory: this.#memory } }).exports.dots as Int8Kernel;
  }

  get capacity(): number {
    return this.#capacity;
  }

  /** Makes room for `rows` rows (doubling), keeping the rows held. */
  ensure(rows: number): void {
    if (rows <= this.#capacity) return;
    const capacity = Math.max(rows, this.#capacity * 2, 64);
    // Rows, the int16 query, then an i32 slot and an i32 dot per row.
    const bytes = capacity * this.stride + 2 * this.stride + 8 * capacity;
    const pages = Math.ceil(bytes / PAGE) - this.#memory.buffer.byteLength / PAGE;
    if (pages > 0) this.#memory.grow(pages);
    const scales = new Float32Array(capacity);
    scales.set(this.#scales);
    this.#scales = scales;
    this.#capacity = capacity;
    this.#bytes = new Int8Array(this.#memory.buffer);
  }

  /** Writes `vector` (length `dim`) to row `row`, which must be below `capacity`. */
  set(row: number, vector: Float32Array): void {
    const at = row * this.stride;
    let max = 0;
    for (let i = 0; i < this.dim; i++) max = Math.max(max, Math.abs(vector[i]!));
    const scale = max > 0 ? max / 127 : 1;
    for (let i = 0; i < this.dim; i++) this.#bytes[at + i] = Math.round(vector[i]! / scale);
    this.#bytes.fill(0, at + this.dim, at + this.stride);
    this.#scales[row] = max > 0 ? scale : 0;
  }

  /**
   * Approximate dot products of `query` with the rows `rows[0..count]`, in
   * that order. The answer is a new array.
   */
  dots(query: Float32Array, rows: ArrayLike<number>, count: number): Float32Array {
    const base = this.#capacity * this.stride;
    const idx = base + 2 * this.stride;
    const out = idx + 4 * this.#capacity;
    let max = 0;
    for (let i = 0; i < this.dim; i++) max = Math.max(max, Math.abs(query[i]!));
    // int16 query as large as an i32 allows: the lanes' total sums `stride` products of at most 127 · top.
    const top = Math.min(32_767, Math.floor(2_000_000_000 / (127 * this.stride)));
    const qScale = max > 0 ? max / top : 1;
    const q = new Int16Array(this.#memory.buffer, base, this.stride);
    for (let i = 0; i < this.dim; i++) q[i] = Math.round(query[i]! / qScale);
    q.fill(0, this.dim);
    const slots = new Int32Array(this.#memory.buffer, idx, count);
    for (let i = 0; i < count; i++) slots[i] = rows[i]!;
    const result = new Float32Array(count);
    if (count === 0) return result;
    this.#kernel(base, 0, idx, count, this.stride, out);
    const dots = new Int32Array(this.#memory.buffer, out, count);
    for (let i = 0; i < count; i++) result[i] = dots[i]! * this.#scales[rows[i]!]! * qScale;
    return result;
  }
}
