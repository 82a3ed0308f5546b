/**
 * Just enough of the WebAssembly binary format to assemble small SIMD
 * kernels byte by byte, without a toolchain: opcodes, LEB128 numbers, and a
 * module of one exported function over an imported `env.memory`.
 */

export const op = {
  block: 0x02,
  loop: 0x03,
  br: 0x0c,
  brIf: 0x0d,
  end: 0x0b,
  get: 0x20,
  set: 0x21,
  tee: 0x22,
  i32Load: 0x28,
  f32Load: 0x2a,
  f32Store: 0x38,
  i32Const: 0x41,
  f32Const: 0x43,
  i32GeU: 0x4f,
  i32Add: 0x6a,
  i32Sub: 0x6b,
  i32Mul: 0x6c,
  f32Add: 0x92,
  void: 0x40,
} as const;

/** Value types, for locals. */
export const type = { i32: 0x7f, f32: 0x7d, v128: 0x7b } as const;

/** An unsigned LEB128 number (sizes, indexes). @example uleb(624485); // [0xe5, 0x8e, 0x26] */
export function uleb(value: number): number[] {
  const bytes: number[] = [];
  do {
    let byte = value & 0x7f;
    value >>>= 7;
    if (value !== 0) byte |= 0x80;
    bytes.push(byte);
  } while (value !== 0);
  return bytes;
}

/** A signed LEB128 number (`i32.const` operands). @example sleb(-1); // [0x7f] */
export function sleb(value: number): number[] {
  const bytes: number[] = [];
  for (;;) {
    const byte = value & 0x7f;
    value >>= 7;
    if ((value === 0 && (byte & 0x40) === 0) || (value === -1 && (byte & 0x40) !== 0)) {
      bytes.push(byte);
      return bytes;
    }
    bytes.push(byte | 0x80);
  }
}

export const simd = (code: number): number[] => [0xfd, ...uleb(code)];
export const v128Load = (offset: number) => [...simd(0x00), 4, ...uleb(offset)];
export const v128Store = (offset: number) => [...simd(0x0b), 4, ...uleb(offset)];
export const f32Load = [op.f32Load, 2, 0];
export const f32x4Splat = simd(0x13);
export const f32x4Add = simd(0xe4);
export const f32x4Mul = simd(0xe6);
export const f32x4ExtractLane = (lane: number) => [...simd(0x1f), lane];

const str = (s: string) => [...uleb(s.length), ...Buffer.from(s, 'utf8')];
const section = (id: number, body: number[]) => [id, ...uleb(body.length), ...body];
const vec = (items: number[][]) => [...uleb(items.length), ...items.flat()];

/**
 * A module exporting one function `name` with `params` i32 parameters and no
 * result, over the imported memory `env.memory`. `locals` are runs of
 * `[count, type]`; `code` is the body's instructions (without the final `end`).
 *
 * @example
 * const bytes = kernelModule({ name: 'noop', params: 0, locals: [], code: [] });
 * new WebAssembly.Instance(new WebAssembly.Module(bytes), { env: { memory: new WebAssembly.Memory({ initial: 1 }) } });
 */
export function kernelModule(options: { name: string; params: number; locals: Array<[count: number, type: number]>; code: number[] }): Uint8Array<ArrayBuffer> {
  const locals = [...uleb(options.locals.length), ...options.locals.flatMap(([count, t]) => [...uleb(count), t])];
  const body = [...locals, ...options.code, op.end];
  const bytes = [
    0x00,
    0x61,
    0x73,
    0x6d,
    0x01,
    0x00,
    0x00,
    0x00,
    ...section(1, vec([[0x60, ...uleb(options.params), ...Array<number>(options.params).fill(type.i32), 0]])),
    ...section(2, vec([[...str('env'), ...str('memory'), 0x02, 0x00, 0x01]])),
    ...section(3, vec([[0]])),
    ...section(7, vec([[...str(options.name), 0x00, 0]])),
    ...section(10, vec([[...uleb(body.length), ...body]])),
  ];
  return new Uint8Array(bytes);
}
