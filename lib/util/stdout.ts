// Standard output written with write(2) directly. `process.stdout` is a stream built on first use,
// and building it loads Node's tty, net and stream modules (a few milliseconds of every `resume
// rows`, which runs on each listing and fzf reload). Writes here are whole and in order whatever
// the descriptor is (a pipe someone made non-blocking answers EAGAIN when full: wait and write the
// rest), and a closed reader (`resume rows | head`) is a quiet exit 0, as everywhere in resume.
//
// A long string is encoded a piece at a time into one buffer kept for the run, and each piece is
// written before the next is encoded. `Buffer.from` of the whole string made a fresh buffer of its
// size, and on this machine a page first touched costs ~12 us: writing the 45 MB of `search --json`
// at 22,000 sessions took 750-810 ms from `JSON.stringify` of the whole array to its last byte,
// against 175-185 ms written an item at a time (BENCHMARKS.md).
import fs from 'node:fs';
import { sleepSync } from './time.js';

/** UTF-16 code units encoded at a time (at most 3 bytes each in UTF-8) */
const PIECE = 1 << 18;
/** strings up to this long are encoded whole */
const WHOLE = 1 << 16;
const BUF = 3 * PIECE;
let pieceBuf: Buffer | null = null;

/** Write all of `buf` to descriptor `fd`. */
function writeAll(buf: Uint8Array, fd: number): void {
  while (buf.length > 0) {
    let n: number;
    try {
      n = fs.writeSync(fd, buf);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'EPIPE') process.exit(0);
      if (code !== 'EAGAIN') throw err;
      sleepSync(2);
      continue;
    }
    buf = buf.subarray(n);
  }
}

/** Write all of `data` to descriptor 1 (a string as UTF-8). */
export function writeOut(data: string | Uint8Array): void {
  writeTo(1, data);
}

/** Write all of `data` to descriptor `fd` (a string as UTF-8). */
export function writeTo(fd: number, data: string | Uint8Array): void {
  if (typeof data !== 'string') {
    writeAll(data, fd);
    return;
  }
  if (data.length <= WHOLE) {
    writeAll(Buffer.from(data, 'utf8'), fd);
    return;
  }
  pieceBuf ??= Buffer.allocUnsafe(BUF);
  const buf = pieceBuf;
  for (let i = 0; i < data.length; ) {
    let j = Math.min(data.length, i + PIECE);
    // a surrogate pair is never cut in two (each half alone would be written as U+FFFD)
    if (j < data.length && (data.charCodeAt(j - 1) & 0xfc00) === 0xd800) j--;
    writeAll(buf.subarray(0, buf.write(data.substring(i, j), 0)), fd);
    i = j;
  }
}

/**
 * A JSON array, byte for byte as `JSON.stringify(items.map(as), null, 2)` writes it, made an item
 * at a time into the buffer of `writeOut` and written as it fills: no string of the whole array is
 * ever made (28 MB for `ls --json` at 22,000 sessions), nor the objects of every item at once
 * (`as`: ~70 MB of them for `search --json` of a word in 22,000 sessions).
 */
export function writeJsonArray<T>(items: readonly T[], as: (x: T) => unknown = (x) => x, fd = 1): void {
  if (items.length === 0) {
    writeTo(fd, '[]\n');
    return;
  }
  pieceBuf ??= Buffer.allocUnsafe(BUF);
  const buf = pieceBuf;
  let at = 0;
  for (let k = 0; k < items.length; k++) {
    // `[\n  {…}\n]`: an item inside an array of its own is indented as it is inside the whole one;
    // its `[` becomes the `,` after the item before, and its `\n]` is left off
    const text = JSON.stringify([as(items[k])], null, 2);
    if (at + 3 * text.length > BUF) {
      writeAll(buf.subarray(0, at), fd);
      at = 0;
    }
    if (3 * text.length > BUF) {
      // (an item too long for the buffer: its own string, in pieces)
      const mid = text.slice(1, -2);
      writeTo(fd, k ? `,${mid}` : `[${mid}`);
      continue;
    }
    const n = buf.write(text, at);
    if (k) buf[at] = 0x2c;
    at += n - 2;
  }
  if (at + 3 > BUF) {
    writeAll(buf.subarray(0, at), fd);
    at = 0;
  }
  at += buf.write('\n]\n', at);
  writeAll(buf.subarray(0, at), fd);
}
