// Case folding for the search prefilter: every byte ORed with 0x20, so ASCII letters of either case
// become one byte and a needle folded the same way is found by a plain native `indexOf`. The map
// also joins a few other pairs (`[`/`{`, `@`/`` ` ``, `\n`/`*`, …); a line it lets through is
// checked again on its decoded text, so the only cost of such a pair is a line decoded for nothing.
//
// The fold runs in a 64-byte WebAssembly function (16 bytes per SIMD instruction, about 40 GB/s
// here) over a copy of the bytes in the module's memory; where WebAssembly SIMD is missing, a
// 32-bit JavaScript loop does the same.
import fs from 'node:fs';
import { readFully } from '../util/fsx.js';

/** The module, as bytes: `fold(n)` ORs 0x20 into memory[0, n) rounded up to 16. */
function moduleBytes(): Uint8Array<ArrayBuffer> {
  // biome-ignore format: one instruction a line, as a disassembly reads
  const body = [
    0x02, 0x01, 0x7f, 0x01, 0x7b, // locals: i32 $i, v128 $m
    0xfd, 0x0c, ...Array<number>(16).fill(0x20), // v128.const i8x16 0x20…
    0x21, 0x02, // local.set $m
    0x02, 0x40, 0x03, 0x40, // block, loop
    0x20, 0x01, 0x20, 0x00, 0x4f, 0x0d, 0x01, // br_if 1 ($i >= $n)
    0x20, 0x01, 0x20, 0x01, 0xfd, 0x00, 0x00, 0x00, // $i, v128.load $i
    0x20, 0x02, 0xfd, 0x50, // v128.or $m
    0xfd, 0x0b, 0x00, 0x00, // v128.store
    0x20, 0x01, 0x41, 0x10, 0x6a, 0x21, 0x01, // $i += 16
    0x0c, 0x00, 0x0b, 0x0b, 0x0b, // br 0, end loop, end block, end func
  ];
  // biome-ignore format: one section a line
  return new Uint8Array([
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, // \0asm v1
    0x01, 0x05, 0x01, 0x60, 0x01, 0x7f, 0x00, // type: (i32) -> ()
    0x03, 0x02, 0x01, 0x00, // func 0: type 0
    0x05, 0x03, 0x01, 0x00, 0x01, // memory: 1 page, growable
    0x07, 0x0e, 0x02, 0x03, 0x6d, 0x65, 0x6d, 0x02, 0x00, 0x04, 0x66, 0x6f, 0x6c, 0x64, 0x00, 0x00, // exports mem, fold
    0x0a, body.length + 2, 0x01, body.length, ...body, // code
  ]);
}

const PAGE = 65536;

export class Folder {
  private mem: WebAssembly.Memory | null = null;
  private fn: ((n: number) => void) | null = null;
  private view: Buffer = Buffer.alloc(0);
  /** where foldNext's last view starts in the memory */
  private nextAt = 0;

  /** `simd = false` forces the JavaScript loop (tests compare the two). */
  constructor(simd = true) {
    if (!simd) return;
    try {
      const bytes = moduleBytes();
      if (WebAssembly.validate(bytes)) {
        const inst = new WebAssembly.Instance(new WebAssembly.Module(bytes));
        this.mem = inst.exports.mem as WebAssembly.Memory;
        this.fn = inst.exports.fold as (n: number) => void;
      }
    } catch {
      this.mem = null;
      this.fn = null;
    }
  }

  /** The folded copy of `src[a, b)`, valid until the next call. Index i of it is byte a + i of src. */
  fold(src: Buffer, a: number, b: number): Buffer {
    const n = b - a;
    const view = this.room(n);
    src.copy(view, 0, a, b);
    return this.foldIn(n);
  }

  /**
   * `n` bytes of an open file from `pos`, read straight into the folder's memory and folded there
   * (no copy); null when fewer could be read. Valid until the next call.
   */
  foldRead(fd: number, n: number, pos = 0): Buffer | null {
    return readFully(fd, this.room(n), 0, n, pos) === n ? this.foldIn(n) : null;
  }

  /**
   * The next piece of a file read straight into the folder's memory, for a search that needs only
   * the folded bytes (prefilter.ts): the last `carry` bytes of the previous call's view (`prevLen`
   * long) moved to the front, then up to `n` bytes of `fd` from `pos` after them, all folded (the
   * carried bytes are folded already; folding is idempotent). Valid until the next call; its length
   * minus `carry` is what was read (0 at the end of the file).
   *
   * The bytes are read to a 64-byte boundary, the carried ones just before it: on the bench machine
   * (AMD EPYC, Linux 6.18, a VM) a read(2) took 3.5 times as long when the memory it fills lies 1 to
   * 31 bytes past the file position within a page ((dst - src) mod 4096 in [1, 31]); reads from a
   * page boundary (these are) into the carry of a needle's length were all there (the marking of
   * 1.2 GB on one thread, 686 sessions: 600 -> 230 ms).
   */
  foldNext(fd: number, pos: number, n: number, carry: number, prevLen: number): Buffer {
    const at = (carry + 63) & ~63;
    const view = this.room(at + n);
    if (carry > 0) view.copyWithin(at - carry, this.nextAt + prevLen - carry, this.nextAt + prevLen);
    const got = fs.readSync(fd, view, at, n, pos);
    // (the bytes before the carried ones are folded too, harmlessly: the fold runs from the start)
    this.foldIn(at + got);
    this.nextAt = at - carry;
    return view.subarray(at - carry, at + got);
  }

  /** A view of at least n + 16 bytes of memory to fold in (the SIMD loop reads 16 at a time). */
  private room(n: number): Buffer {
    const need = n + 16;
    if (this.mem) {
      if (this.mem.buffer.byteLength < need) this.mem.grow(Math.ceil((need - this.mem.buffer.byteLength) / PAGE));
      if (this.view.buffer !== this.mem.buffer || this.view.length < need)
        this.view = Buffer.from(this.mem.buffer, 0, this.mem.buffer.byteLength);
    } else if (this.view.length < need) {
      // (what it held is kept, as the memory's is when it grows: foldNext carries bytes from it)
      const next = Buffer.alloc(Math.max(need, this.view.length * 2));
      this.view.copy(next);
      this.view = next;
    }
    return this.view;
  }

  /** Fold the first n bytes of the memory in place; their view. */
  private foldIn(n: number): Buffer {
    if (this.mem && this.fn) this.fn(n);
    else {
      const words = new Uint32Array(this.view.buffer, this.view.byteOffset, (n + 3) >> 2);
      for (let i = 0; i < words.length; i++) words[i] |= 0x20202020;
    }
    return this.view.subarray(0, n);
  }

  get simd(): boolean {
    return this.mem != null;
  }
}

/** A needle folded like the haystack: the bytes of a byte key (a Latin-1 string), each ORed with 0x20. */
export function foldNeedle(key: string): Buffer {
  const b = Buffer.from(key, 'latin1');
  for (let i = 0; i < b.length; i++) b[i] |= 0x20;
  return b;
}

/**
 * The bytes of folded transcripts, most frequent first, as counted over the recorded transcripts of
 * all six harnesses (space and quote ~30%, then the letters of English, JSON's punctuation, digits;
 * `\x7f` is a folded `_`). Any byte not here is rarer than all of them.
 */
const COMMON = ' "etaisorn:dc,plmuf0-h21{}\x7fgy4b395687xk.w/v*|qjz';
const MIN_TAIL = 3;
const BM_MIN = 7;
/** a byte's commonness: 0 for the rarest (not in COMMON), higher for more common */
const RANK = new Uint8Array(256);
for (let i = 0; i < COMMON.length; i++) RANK[COMMON.charCodeAt(i)] ||= COMMON.length - i;

/**
 * A folded needle, with the place it is looked for from. `Buffer#indexOf` looks for a needle's first
 * byte and compares from there, so its speed follows how common that byte is: over folded
 * transcripts `api-24` (a common `a`) took 6x as long as `-24`. `findIn` looks for the needle's tail
 * from its rarest byte on, natively, and compares the bytes before it. The tail is kept at least
 * MIN_TAIL bytes long: each match of the tail costs a call and a compare here, and a tail of one
 * common-enough byte (a digit) matched so often that a search took twice as long. Only for a needle
 * shorter than BM_MIN: from that length on the search skips ahead by the needle's length (Node's
 * string search, Boyer-Moore-Horspool), and a shorter tail skips less (`authentication` 186 ms,
 * `hentication` 230 ms over the same 366 MB).
 */
export class Needle {
  readonly bytes: Buffer;
  /** where the tail starts: the rarest byte that leaves MIN_TAIL bytes after it (the first of equally rare ones) */
  readonly at: number;
  /** the needle from that byte on */
  readonly tail: Buffer;
  constructor(key: string) {
    this.bytes = foldNeedle(key);
    let at = 0;
    const last = this.bytes.length < BM_MIN ? this.bytes.length - MIN_TAIL : 0;
    for (let i = 1; i <= last; i++) if (RANK[this.bytes[i]] < RANK[this.bytes[at]]) at = i;
    this.at = at;
    this.tail = this.bytes.subarray(at);
  }
  get length(): number {
    return this.bytes.length;
  }
}

/** Where the needle first occurs in `hay` at or after `from` (as `hay.indexOf(needle.bytes, from)`), or -1. */
export function findIn(hay: Buffer, n: Needle, from = 0): number {
  const at = n.at;
  if (at === 0) return hay.indexOf(n.bytes, from);
  for (let p = from + at; ; ) {
    const i = hay.indexOf(n.tail, p);
    if (i < 0) return -1;
    if (hay.compare(n.bytes, 0, at, i - at, i) === 0) return i - at;
    p = i + 1;
  }
}
