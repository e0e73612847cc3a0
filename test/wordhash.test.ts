// lib/util/wordhash.ts: the code cache's checksum, in WebAssembly and in JavaScript alike.
import { describe, expect, it } from 'vitest';
import { WordHasher } from '../lib/util/wordhash.js';

/** The checksum as written out plainly: FNV-1a over little-endian 32-bit words, then the last bytes, seeded with the length. */
function plain(data: Buffer): number {
  let h = (0x811c9dc5 ^ data.length) | 0;
  const words = data.length >>> 2;
  for (let i = 0; i < words; i++) h = Math.imul(h ^ data.readInt32LE(i * 4), 0x01000193);
  for (let i = words * 4; i < data.length; i++) h = Math.imul(h ^ data[i], 0x01000193);
  return h >>> 0;
}

describe('WordHasher', () => {
  it('gives the same number in WebAssembly, in JavaScript and written out plainly, for any length, in place or copied in', () => {
    const wasm = new WordHasher();
    const js = new WordHasher(false);
    let seed = 7;
    const rnd = () => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return seed & 0xff;
    };
    for (const n of [0, 1, 3, 4, 5, 7, 8, 64, 1001, 65536, 65537, 200_003]) {
      const data = Buffer.from(Array.from({ length: n + 3 }, rnd));
      for (const view of [data.subarray(0, n), data.subarray(1, n + 1), data.subarray(3, n + 3)]) {
        const want = plain(view);
        expect(wasm.hash(view)).toBe(want);
        expect(js.hash(view)).toBe(want);
        // read into the module's memory (aligned or not) and hashed where it lies
        const room = wasm.room(view.length + 2);
        view.copy(room, 2);
        expect(wasm.hash(room.subarray(2, 2 + view.length))).toBe(want);
        const at = wasm.room(view.length);
        view.copy(at);
        expect(wasm.hash(at.subarray(0, view.length))).toBe(want);
      }
    }
  });

  it('any one changed bit changes it', () => {
    const h = new WordHasher();
    const data = Buffer.alloc(4099, 0x5a);
    const base = h.hash(Buffer.from(data));
    for (const i of [0, 1, 2, 3, 2048, 4095, 4096, 4098]) {
      for (const bit of [0x01, 0x40, 0x80]) {
        const d = Buffer.from(data);
        d[i] ^= bit;
        expect(h.hash(d)).not.toBe(base);
      }
    }
  });
});
