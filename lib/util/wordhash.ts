// The checksum of a code-cache file (lib/util/codecache.ts): FNV-1a over its bytes as 32-bit
// little-endian words (and the last 0–3 bytes one by one), run on every `rows`, `preview` and `ls`
// before V8 is handed the cache. In JavaScript the loop runs cold, in the interpreter: ~3 ms for a
// 174 KB cache, a twentieth of a listing. Here it runs in a 40-byte WebAssembly function instead,
// over the file read straight into the module's memory (no copy); where WebAssembly is missing, the
// JavaScript loop (fnv1aWords) gives the same number.
import { fnv1aWords } from './fnv.js';

/** The module, as bytes: `hash(p, end, h)` folds the words at [p, end) into h and returns it. */
// biome-ignore format: one WebAssembly instruction or section a line, with what it does
function moduleBytes(): Uint8Array<ArrayBuffer> {
  const body = [
    0x00, // no locals beyond the parameters $p, $end, $h
    0x02, 0x40, 0x03, 0x40, // block, loop
    0x20, 0x00, 0x20, 0x01, 0x4f, 0x0d, 0x01, // br_if 1 ($p >= $end, unsigned)
    0x20, 0x02, 0x20, 0x00, 0x28, 0x02, 0x00, // $h, i32.load $p (align 4)
    0x73, // i32.xor
    0x41, 0x93, 0x83, 0x80, 0x08, // i32.const 0x01000193 (FNV's prime)
    0x6c, 0x21, 0x02, // i32.mul, local.set $h
    0x20, 0x00, 0x41, 0x04, 0x6a, 0x21, 0x00, // $p += 4
    0x0c, 0x00, 0x0b, 0x0b, // br 0, end loop, end block
    0x20, 0x02, 0x0b, // $h, end func
  ];
  return new Uint8Array([
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, // \0asm v1
    0x01, 0x08, 0x01, 0x60, 0x03, 0x7f, 0x7f, 0x7f, 0x01, 0x7f, // type: (i32, i32, i32) -> i32
    0x03, 0x02, 0x01, 0x00, // func 0: type 0
    0x05, 0x03, 0x01, 0x00, 0x01, // memory: 1 page, growable
    0x07, 0x0e, 0x02, 0x03, 0x6d, 0x65, 0x6d, 0x02, 0x00, 0x04, 0x68, 0x61, 0x73, 0x68, 0x00, 0x00, // exports mem, hash
    0x0a, body.length + 2, 0x01, body.length, ...body, // code
  ]);
}

const PAGE = 65536;
const OFFSET = 0x811c9dc5;
const PRIME = 0x01000193;

export class WordHasher {
  private mem: WebAssembly.Memory | null = null;
  private fn: ((p: number, end: number, h: number) => number) | null = null;

  /** `wasm = false` forces the JavaScript loop (tests compare the two). */
  constructor(wasm = true) {
    if (!wasm) return;
    try {
      const inst = new WebAssembly.Instance(new WebAssembly.Module(moduleBytes()));
      this.mem = inst.exports.mem as WebAssembly.Memory;
      this.fn = inst.exports.hash as (p: number, end: number, h: number) => number;
    } catch {
      this.mem = null;
      this.fn = null;
    }
  }

  /**
   * A buffer of `n` bytes to read data into, in the module's memory when there is one (its hash is
   * then taken where it lies). Valid until the next call of `room` or `hash`.
   */
  room(n: number): Buffer {
    if (!this.mem) return Buffer.allocUnsafe(n);
    if (this.mem.buffer.byteLength < n) this.mem.grow(Math.ceil((n - this.mem.buffer.byteLength) / PAGE));
    return Buffer.from(this.mem.buffer, 0, n);
  }

  /**
   * FNV-1a over `data` as 32-bit little-endian words, then its last bytes, seeded with its length
   * (without WebAssembly: fnv1aWords, the same number on a little-endian machine, as every machine
   * Node runs on but s390x is; a cache is checked only where it was written).
   */
  hash(data: Buffer): number {
    if (!this.fn || !this.mem) return fnv1aWords(data);
    const words = data.length >>> 2;
    if (data.buffer !== this.mem.buffer || data.byteOffset % 4 !== 0) {
      // (copied to the start of the memory: from there on it is the copy that is read)
      const copy = this.room(data.length);
      data.copy(copy);
      data = copy;
    }
    let h = this.fn(data.byteOffset, data.byteOffset + words * 4, (OFFSET ^ data.length) | 0);
    for (let i = words * 4; i < data.length; i++) h = Math.imul(h ^ data[i], PRIME);
    return h >>> 0;
  }
}
