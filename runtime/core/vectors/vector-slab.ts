import { f32x4Add, f32x4ExtractLane, f32x4Mul, f32x4Splat, kernelModule, op, sleb, type, v128Load } from '../wasm-bytes.js';

/**
 * The kernel, assembled byte by byte (see core/wasm-bytes.ts) from:
 *
 *   for (c = 0; c < count; c++) {
 *     rp = data + idx[c] · stride · 4;  qp = q;  a0 = a1 = 0 (f32x4)
 *     for (k = stride; k > 0; k -= 8) { a0 += qp[0..4] · rp[0..4]; a1 += qp[4..8] · rp[4..8]; qp += 8; rp += 8 }
 *     out[c] = sum of the lanes of a0 + a1
 *   }
 *
 * `stride` (floats per row) must be a positive multiple of 8; pointers are byte offsets.
 */
function dotKernelCode(): number[] {
  const [Q, DATA, IDX, COUNT, STRIDE, OUT] = [0, 1, 2, 3, 4, 5];
  const [C, RP, QP, K, ROW] = [6, 7, 8, 9, 10];
  const [A0, A1] = [11, 12];
  const get = (l: number) => [op.get, l];
  const set = (l: number) => [op.set, l];
  const i32 = (v: number) => [op.i32Const, ...sleb(v)];
  const word = (l: number) => [...get(l), ...i32(4), op.i32Mul];
  const mulAdd = (acc: number, offset: number) => [
    ...get(acc),
    ...get(QP),
    ...v128Load(offset),
    ...get(RP),
    ...v128Load(offset),
    ...f32x4Mul,
    ...f32x4Add,
    ...set(acc),
  ];
  const lane = (n: number) => [...get(A0), ...f32x4ExtractLane(n)];
  return [
    ...word(STRIDE),
    ...set(ROW),
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
    ...get(ROW),
    op.i32Mul,
    op.i32Add,
    ...set(RP),
    ...get(Q),
    ...set(QP),
    ...get(STRIDE),
    ...set(K),
    op.f32Const,
    0,
    0,
    0,
    0,
    ...f32x4Splat,
    op.tee,
    A0,
    ...set(A1),
    op.loop,
    op.void,
    ...mulAdd(A0, 0),
    ...mulAdd(A1, 16),
    ...get(QP),
    ...i32(32),
    op.i32Add,
    ...set(QP),
    ...get(RP),
    ...i32(32),
    op.i32Add,
    ...set(RP),
    ...get(K),
    ...i32(8),
    op.i32Sub,
    op.tee,
    K,
    op.brIf,
    0,
    op.end,
    ...get(OUT),
    ...word(C),
    op.i32Add,
    ...get(A0),
    ...get(A1),
    ...f32x4Add,
    ...set(A0),
    ...lane(0),
    ...lane(1),
    op.f32Add,
    ...lane(2),
    op.f32Add,
    ...lane(3),
    op.f32Add,
    op.f32Store,
    2,
    0,
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

type DotKernel = (q: number, data: number, idx: number, count: number, stride: number, out: number) => void;

const PAGE = 65_536;
let module: WebAssembly.Module | undefined;

/**
 * Rows of float32 vectors in one `WebAssembly.Memory`, scored against a
 * query by a SIMD kernel (four lanes, two accumulators), about four times
 * the speed of the same loop in JavaScript. Rows are padded with zeros to a
 * multiple of 8 floats. Layout: the rows from byte 0, then scratch space for
 * the query, the slots to score and their scores (rewritten by every call,
 * so growing the rows may run over it).
 *
 * @example
 * const slab = new VectorSlab({ dim: 384 });
 * slab.ensure(2);
 * slab.set(0, a);
 * slab.set(1, b);
 * const [scoreA, scoreB] = slab.dots(query, [0, 1], 2);
 */
export class VectorSlab {
  readonly dim: number;
  readonly stride: number;
  readonly #memory = new WebAssembly.Memory({ initial: 1 });
  readonly #kernel: DotKernel;
  #capacity = 0;
  #floats = new Float32Array(this.#memory.buffer);

  constructor(options: { dim: number }) {
    this.dim = options.dim;
    this.stride = Math.max(8, Math.ceil(options.dim / 8) * 8);
    module ??= new WebAssembly.Module(
      kernelModule({
        name: 'dots',
        params: 6,
        locals: [
          [5, type.i32],
          [2, type.v128],
        ],
        code: dotKernelCode(),
      }),
    );
    this.#kernel = new WebAssembly.Instance(module, { env: { memory: this.#memory } }).exports.dots as DotKernel;
  }

  get capacity(): number {
    return this.#capacity;
  }

  /** Makes room for `rows` rows (doubling), keeping the rows held. */
  ensure(rows: number): void {
    if (rows <= this.#capacity) return;
    const capacity = Math.max(rows, this.#capacity * 2, 64);
    const bytes = (capacity * this.stride + this.stride + 2 * capacity) * 4;
    const pages = Math.ceil(bytes / PAGE) - this.#memory.buffer.byteLength / PAGE;
    if (pages > 0) this.#memory.grow(pages);
    this.#capacity = capacity;
    this.#floats = new Float32Array(this.#memory.buffer);
  }

  /** Writes `vector` (length `dim`) to row `row`, which must be below `capacity`. */
  set(row: number, vector: Float32Array): void {
    const at = row * this.stride;
    this.#floats.set(vector, at);
    if (this.stride > this.dim) this.#floats.fill(0, at + this.dim, at + this.stride);
  }

  /** Writes `count` rows at once from `vectors` (`count * dim` floats, row after row) to rows 0..count-1, which must be below `capacity`. */
  setRows(vectors: Float32Array, count: number): void {
    if (vectors.length !== count * this.dim) throw new RangeError(`${count} rows need ${count * this.dim} floats, got ${vectors.length}`);
    if (this.stride === this.dim) {
      this.#floats.set(vectors, 0);
      return;
    }
    for (let row = 0; row < count; row++) this.set(row, vectors.subarray(row * this.dim, (row + 1) * this.dim));
  }

  /**
   * Rows 0..count-1 as one writable view, when rows lie end to end (`dim` a
   * multiple of 8, so `stride` is `dim`): a file is read straight into the
   * slab. Undefined otherwise (use `setRows`). `count` must be below
   * `capacity`; growing the slab invalidates the view.
   */
  contiguousRows(count: number): Float32Array | undefined {
    if (this.stride !== this.dim || count > this.#capacity) return undefined;
    return this.#floats.subarray(0, count * this.dim);
  }

  /** Row `row` (its first `dim` floats) as a view that growing the slab invalidates: copy it before the next `ensure`. */
  row(row: number): Float32Array {
    const at = row * this.stride;
    return this.#floats.subarray(at, at + this.dim);
  }

  /**
   * Dot products of `query` with the rows `rows[0..count]`, in that order.
   * The answer is a view that the next call overwrites.
   */
  dots(query: Float32Array, rows: ArrayLike<number>, count: number): Float32Array {
    const base = this.#capacity * this.stride;
    const idx = base + this.stride;
    const out = idx + this.#capacity;
    this.#floats.set(query, base);
    this.#floats.fill(0, base + this.dim, base + this.stride);
    const slots = new Int32Array(this.#memory.buffer, idx * 4, count);
    for (let i = 0; i < count; i++) slots[i] = rows[i]!;
    if (count > 0) this.#kernel(base * 4, 0, idx * 4, count, this.stride, out * 4);
    return this.#floats.subarray(out, out + count);
  }
}
