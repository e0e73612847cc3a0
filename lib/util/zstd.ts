// One zstd decoder for the whole tree (Codex keeps cold rollouts as `.jsonl.zst`): a pull reader
// that decodes a file in chunks, for the index's line splitter and for deep search's scanner.
import fs from 'node:fs';
import type { Decompress as DecompressT } from 'fzstd';
import { requireLazy } from './lazy.js';

// fzstd builds its decoding tables when it is loaded: loaded when a `.jsonl.zst` is first read,
// not on every start (resolved from node_modules at run time, like better-sqlite3)
let fzstd: { Decompress: typeof DecompressT } | null = null;

/** Fill `buf[off, off+len)` with the next bytes; 0 at the end. */
export type Reader = (buf: Buffer, off: number, len: number) => number;

/** A reader over a zstd-compressed file (Codex `.jsonl.zst`), decoded in chunks. */
export function zstReader(fd: number): Reader {
  const queue: Uint8Array[] = [];
  let qOff = 0;
  let ended = false;
  let pos = 0;
  const inBuf = Buffer.allocUnsafe(256 << 10);
  fzstd ??= requireLazy('fzstd') as { Decompress: typeof DecompressT };
  const dec = new fzstd.Decompress((chunk) => {
    if (chunk.length) queue.push(chunk);
  });
  return (buf, off, len) => {
    while (queue.length === 0 && !ended) {
      const n = fs.readSync(fd, inBuf, 0, inBuf.length, pos);
      pos += n;
      if (n === 0) {
        ended = true;
        dec.push(new Uint8Array(0), true);
      } else dec.push(new Uint8Array(inBuf.subarray(0, n)), false);
    }
    let w = 0;
    while (w < len && queue.length) {
      const c = queue[0];
      const take = Math.min(len - w, c.length - qOff);
      buf.set(c.subarray(qOff, qOff + take), off + w);
      w += take;
      qOff += take;
      if (qOff >= c.length) {
        queue.shift();
        qOff = 0;
      }
    }
    return w;
  };
}
