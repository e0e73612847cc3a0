// The loop that makes the search index's signatures (sigs.ts addWords: a bit set for every trigram of
// a file's folded bytes), in WebAssembly: most of the time `resume index` takes to make the search
// index is this loop, ~1.4x as fast here as the JavaScript one (650 against 470 MB/s); and the count
// of a filter's set bits before it is folded (sigs.ts narrow). The module is written out below, an
// instruction a line (when it was written, its bytes were those wabt's wat2wasm makes of the same
// instructions), and the bits it sets and counts are exactly those the JavaScript sets and counts (a
// test runs both over the same bytes). Its memory is fixed: the widest filter, then a read's bytes,
// so a signature is made where the file is read into, with nothing copied; where WebAssembly is
// missing (`node --jitless`), sigs.ts takes the JavaScript loop.

/** bytes of the filter's room at the start of the memory (the widest filter: sigs.ts MAX_BITS / 8) */
export const FILTER_BYTES = 1 << 17;
/** bytes of the room for a read after it (sigs.ts CHUNK) */
export const DATA_BYTES = 1 << 20;

const PAGE = 65536;
const PAGES = (FILTER_BYTES + DATA_BYTES) / PAGE;

/** An integer as (signed) LEB128, as `i32.const` and `i64.const` take it. */
function sleb(v: bigint): number[] {
  const out: number[] = [];
  for (;;) {
    const b = Number(v & 0x7fn);
    v >>= 7n;
    if ((v === 0n && (b & 0x40) === 0) || (v === -1n && (b & 0x40) !== 0)) return [...out, b];
    out.push(b | 0x80);
  }
}

// parameters $p (0), $end (1), $t (2), $w (3), $mask (4); locals $pos (5), $a (6), $x (7, i64)
const [P, END, T, W, MASK, POS, A, X] = [0, 1, 2, 3, 4, 5, 6, 7];
const get = (i: number) => [0x20, i];
const set = (i: number) => [0x21, i];
const i32 = (v: number) => [0x41, ...sleb(BigInt(v))];

/**
 * The trigram that ends at byte k of $x (the eight folded bytes read) and its bit, as sigs.ts
 * addWords sets it: t = ((t << 8) | byte) & 0xffffff; pos = (t * 0x9e3779b1) >>> 12 & mask;
 * filter[pos >>> 5] |= 1 << (pos & 31) (the filter's 32-bit words at $w; a shift takes its count
 * modulo 32 in WebAssembly, as in JavaScript).
 */
// biome-ignore format: one WebAssembly instruction a line, with what it does
function step(k: number): number[] {
  return [
    ...get(T), ...i32(8), 0x74, // t << 8
    ...get(X), 0x42, ...sleb(BigInt(8 * k)), 0x88, 0xa7, ...i32(255), 0x71, // byte k of x: (i32.wrap (x >> 8k)) & 255
    0x72, ...i32(0xffffff), 0x71, ...set(T), // t = (… | …) & 0xffffff
    ...get(T), ...i32(0x9e3779b1 | 0), 0x6c, ...i32(12), 0x76, ...get(MASK), 0x71, ...set(POS), // pos = (t * 0x9e3779b1) >>> 12 & mask
    ...get(W), ...get(POS), ...i32(3), 0x76, ...i32(-4), 0x71, 0x6a, ...set(A), // a = w + ((pos >>> 3) & ~3)
    ...get(A), ...get(A), 0x28, 0x02, 0x00, ...i32(1), ...get(POS), 0x74, 0x72, 0x36, 0x02, 0x00, // [a] = [a] | (1 << pos)
  ];
}

/**
 * The module: `fill(p, end, t, w, mask)` sets the bits of the trigrams of bytes [p, end) eight at a
 * time, and returns t; `count(p, end)` counts the bits set in [p, end) (a whole number of eights).
 */
// biome-ignore format: one WebAssembly instruction or section a line, with what it does
function moduleBytes(): Uint8Array<ArrayBuffer> {
  const fill = [
    0x02, 0x02, 0x7f, 0x01, 0x7e, // locals: two i32 ($pos, $a), one i64 ($x)
    0x02, 0x40, 0x03, 0x40, // block, loop
    ...get(P), ...i32(8), 0x6a, ...get(END), 0x4b, 0x0d, 0x01, // br_if 1 (p + 8 > end, unsigned)
    ...get(P), 0x29, 0x03, 0x00, 0x42, ...sleb(0x2020202020202020n), 0x84, ...set(X), // x = i64.load p | 0x2020…: each byte folded
    ...[0, 1, 2, 3, 4, 5, 6, 7].flatMap(step),
    ...get(P), ...i32(8), 0x6a, ...set(P), // p += 8
    0x0c, 0x00, 0x0b, 0x0b, // br 0, end loop, end block
    ...get(T), 0x0b, // t, end func
  ];
  // parameters $p (0), $end (1); local $n (2, i64)
  const count = [
    0x01, 0x01, 0x7e, // locals: one i64 ($n)
    0x02, 0x40, 0x03, 0x40, // block, loop
    ...get(0), ...get(1), 0x4f, 0x0d, 0x01, // br_if 1 (p >= end, unsigned)
    ...get(2), ...get(0), 0x29, 0x03, 0x00, 0x7b, 0x7c, ...set(2), // n += popcnt(i64.load p)
    ...get(0), ...i32(8), 0x6a, ...set(0), // p += 8
    0x0c, 0x00, 0x0b, 0x0b, // br 0, end loop, end block
    ...get(2), 0xa7, 0x0b, // i32.wrap n, end func
  ];
  const section = (id: number, bytes: number[]) => [id, ...uleb(bytes.length), ...bytes];
  const name = (s: string) => [s.length, ...[...s].map((c) => c.charCodeAt(0))];
  return new Uint8Array([
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, // \0asm v1
    ...section(0x01, [0x02, 0x60, 0x05, 0x7f, 0x7f, 0x7f, 0x7f, 0x7f, 0x01, 0x7f, 0x60, 0x02, 0x7f, 0x7f, 0x01, 0x7f]), // types: (i32 × 5) -> i32, (i32 × 2) -> i32
    ...section(0x03, [0x02, 0x00, 0x01]), // func 0 (fill): type 0; func 1 (count): type 1
    ...section(0x05, [0x01, 0x01, ...uleb(PAGES), ...uleb(PAGES)]), // memory: PAGES pages, never grown (views of it stay valid)
    ...section(0x07, [0x03, ...name('mem'), 0x02, 0x00, ...name('fill'), 0x00, 0x00, ...name('count'), 0x00, 0x01]), // exports
    ...section(0x0a, [0x02, ...uleb(fill.length), ...fill, ...uleb(count.length), ...count]), // code
  ]);
}

/** An unsigned LEB128 (section and body sizes). */
function uleb(n: number): number[] {
  const out: number[] = [];
  do {
    const b = n & 0x7f;
    n >>>= 7;
    out.push(n ? b | 0x80 : b);
  } while (n);
  return out;
}

/** The module's memory and loop, made once a thread; null where WebAssembly cannot run it. */
export interface SigHasher {
  /** the filter's room: the first FILTER_BYTES of the memory */
  filter: Uint8Array;
  /** the room for a read: DATA_BYTES after it */
  data: Buffer;
  /** Set the bits of the trigrams ending at bytes [i, n) of `buf` in the filter `bits` (both in the memory) eight at a time; returns the new t and where it stopped. */
  fill(bits: Uint8Array, buf: Uint8Array, i: number, n: number, t: number): { t: number; i: number };
  /** The share of the bits of `bits` (in the memory, a whole number of eight bytes) that are set. */
  share(bits: Uint8Array): number;
}

let made: SigHasher | null | undefined;

export function sigHasher(): SigHasher | null {
  if (made !== undefined) return made;
  made = null;
  try {
    const inst = new WebAssembly.Instance(new WebAssembly.Module(moduleBytes()));
    const mem = inst.exports.mem as WebAssembly.Memory;
    const fill = inst.exports.fill as (p: number, end: number, t: number, w: number, mask: number) => number;
    const count = inst.exports.count as (p: number, end: number) => number;
    const at = { t: 0, i: 0 };
    made = {
      filter: new Uint8Array(mem.buffer, 0, FILTER_BYTES),
      data: Buffer.from(mem.buffer, FILTER_BYTES, DATA_BYTES),
      fill(bits, buf, i, n, t) {
        const end = n - ((n - i) & 7);
        at.t = fill(buf.byteOffset + i, buf.byteOffset + end, t, bits.byteOffset, bits.length * 8 - 1);
        at.i = end;
        return at;
      },
      share: (bits) => count(bits.byteOffset, bits.byteOffset + bits.length) / (bits.length * 8),
    };
  } catch {
    made = null;
  }
  return made;
}
