/**
 * A WebAssembly SIMD kernel for `y = x · Wt + b` over float32 rows in one
 * `WebAssembly.Memory`: `x` is [n, k], `Wt` is [k, out] (the weight
 * pre-transposed), `b` is [out], `y` is [n, out]. It takes four rows and eight
 * columns at a time, so `n` must be a multiple of 4 and `out` of 8; pointers
 * are byte offsets, 16-byte aligned.
 *
 * The module is assembled here, byte by byte (no toolchain), from this text:
 *
 *   for (i = 0; i < n; i += 4) for (j = 0; j < out; j += 8) {
 *     a0..a7 = b[j..j+8] (twice each);  xp = x + i·k;  wp = Wt + j
 *     for (c = k; c > 0; c--) { w0, w1 = wp[0..8]; for r in 0..3: a[2r], a[2r+1] += xp[r·k] · w0, w1;  xp += 1; wp += out }
 *     y[i+r, j..j+8] = a[2r], a[2r+1]
 *   }
 */

import { f32Load, f32x4Add, f32x4Mul, f32x4Splat, kernelModule, op, sleb, type, v128Load, v128Store } from '../core/wasm-bytes.js';

// Parameters 0..6: x, wt, bias, y, n, k, out. Then i32 locals 7..16, v128 locals 17..27.
const [X, WT, BIAS, Y, N, K, OUT] = [0, 1, 2, 3, 4, 5, 6];
const [I, J, C, XP, WP, K4, OUT4, YP, K8, K12] = [7, 8, 9, 10, 11, 12, 13, 14, 15, 16];
const A = [17, 18, 19, 20, 21, 22, 23, 24];
const [W0, W1, S] = [25, 26, 27];

function kernelBody(): number[] {
  const get = (l: number) => [op.get, l];
  const set = (l: number) => [op.set, l];
  const c = (v: number) => [op.i32Const, ...sleb(v)];
  const row = (r: number) => {
    const address = r === 0 ? get(XP) : [...get(XP), ...get([0, K4, K8, K12][r]!), op.i32Add];
    return [
      ...address,
      ...f32Load,
      ...f32x4Splat,
      ...set(S),
      ...get(A[2 * r]!),
      ...get(S),
      ...get(W0),
      ...f32x4Mul,
      ...f32x4Add,
      ...set(A[2 * r]!),
      ...get(A[2 * r + 1]!),
      ...get(S),
      ...get(W1),
      ...f32x4Mul,
      ...f32x4Add,
      ...set(A[2 * r + 1]!),
    ];
  };
  const store = (r: number) => {
    const address = r === 0 ? get(YP) : [...get(YP), ...get(OUT4), ...c(r), op.i32Mul, op.i32Add];
    return [...address, ...get(A[2 * r]!), ...v128Store(0), ...address, ...get(A[2 * r + 1]!), ...v128Store(16)];
  };
  const code = [
    ...get(K),
    ...c(4),
    op.i32Mul,
    ...set(K4),
    ...get(K4),
    ...c(2),
    op.i32Mul,
    ...set(K8),
    ...get(K4),
    ...c(3),
    op.i32Mul,
    ...set(K12),
    ...get(OUT),
    ...c(4),
    op.i32Mul,
    ...set(OUT4),
    ...c(0),
    ...set(I),
    op.block,
    op.void,
    op.loop,
    op.void,
    ...get(I),
    ...get(N),
    op.i32GeU,
    op.brIf,
    1,
    ...c(0),
    ...set(J),
    op.block,
    op.void,
    op.loop,
    op.void,
    ...get(J),
    ...get(OUT),
    op.i32GeU,
    op.brIf,
    1,
    ...get(BIAS),
    ...get(J),
    ...c(4),
    op.i32Mul,
    op.i32Add,
    ...set(WP),
    ...get(WP),
    ...v128Load(0),
    ...set(A[0]!),
    ...get(WP),
    ...v128Load(16),
    ...set(A[1]!),
    ...get(A[0]!),
    ...set(A[2]!),
    ...get(A[0]!),
    ...set(A[4]!),
    ...get(A[0]!),
    ...set(A[6]!),
    ...get(A[1]!),
    ...set(A[3]!),
    ...get(A[1]!),
    ...set(A[5]!),
    ...get(A[1]!),
    ...set(A[7]!),
    ...get(X),
    ...get(I),
    ...get(K4),
    op.i32Mul,
    op.i32Add,
    ...set(XP),
    ...get(WT),
    ...get(J),
    ...c(4),
    op.i32Mul,
    op.i32Add,
    ...set(WP),
    ...get(K),
    ...set(C),
    op.loop,
    op.void,
    ...get(WP),
    ...v128Load(0),
    ...set(W0),
    ...get(WP),
    ...v128Load(16),
    ...set(W1),
    ...row(0),
    ...row(1),
    ...row(2),
    ...row(3),
    ...get(XP),
    ...c(4),
    op.i32Add,
    ...set(XP),
    ...get(WP),
    ...get(OUT4),
    op.i32Add,
    ...set(WP),
    ...get(C),
    ...c(1),
    op.i32Sub,
    op.tee,
    C,
    op.brIf,
    0,
    op.end,
    ...get(Y),
    ...get(I),
    ...get(OUT4),
    op.i32Mul,
    op.i32Add,
    ...get(J),
    ...c(4),
    op.i32Mul,
    op.i32Add,
    ...set(YP),
    ...store(0),
    ...store(1),
    ...store(2),
    ...store(3),
    ...get(J),
    ...c(8),
    op.i32Add,
    ...set(J),
    op.br,
    0,
    op.end,
    op.end,
    ...get(I),
    ...c(4),
    op.i32Add,
    ...set(I),
    op.br,
    0,
    op.end,
    op.end,
  ];
  return code;
}

function moduleBytes(): Uint8Array<ArrayBuffer> {
  return kernelModule({
    name: 'matmul',
    params: 7,
    locals: [
      [10, type.i32],
      [11, type.v128],
    ],
    code: kernelBody(),
  });
}

/** The kernel's signature: byte offsets `x`, `wt`, `bias`, `y`, then `n`, `k`, `out`. */
export type MatmulKernel = (x: number, wt: number, bias: number, y: number, n: number, k: number, out: number) => void;

/**
 * Compiles the kernel against `memory`.
 *
 * @example
 * const memory = new WebAssembly.Memory({ initial: 16 });
 * const matmul = simdMatmul(memory);
 */
export function simdMatmul(memory: WebAssembly.Memory): MatmulKernel {
  const instance = new WebAssembly.Instance(new WebAssembly.Module(moduleBytes()), { env: { memory } });
  return instance.exports.matmul as MatmulKernel;
}
