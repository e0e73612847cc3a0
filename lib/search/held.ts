// Tool output held back while a transcript is searched. Tool output weighs least of all text
// (score.ts), and a group stops wanting it once it has its hits and its kept ones outweigh it
// (`outputMoot`). Taken in file order, the tool results between the prompts and replies were
// decoded before that point: a word in every file decoded ~60 MB of pi tool results at 686
// sessions, almost none of which could be shown. Held to the end of the file instead, they are
// decoded only if the rest of the file left them something to change, in file order, until they
// no longer can.
//
// A held line is kept as its offset and length and read again from the file (a plain file only: a
// compressed one is decoded as it comes); raw text around a hit in a line too long to decode is
// kept as the copy it already is, up to a budget, past which what is held is handed on at once.
import fs from 'node:fs';

/** bytes of raw text held before what is held is handed on (memory stays bounded) */
const RAW_BUDGET = 1 << 20;

/** lines of a file can be held (read again by offset): not in a compressed file */
export const canHoldLines = (file: string): boolean => !file.endsWith('.zst');

/** the buffer held lines are read into, kept for the thread while it is not huge */
let spare: Buffer | null = null;

function readAt(fd: number, n: number, at: number): Buffer | null {
  const buf = spare && spare.length >= n ? spare : Buffer.allocUnsafe(Math.max(n, 64 << 10));
  if (buf.length <= 16 << 20) spare = buf;
  let got = 0;
  while (got < n) {
    const k = fs.readSync(fd, buf, got, n - got, at + got);
    if (k <= 0) return null;
    got += k;
  }
  return buf;
}

/**
 * `moot(line)`: whether held text could no longer change the results (`line`: a line from a record
 * with an id, else raw text); it stays so once it is. `stopped()`: the file's search was ended.
 */
export type Moot = (line: boolean) => boolean;

export class Held {
  /** in file order, two slots each: a line (its offset, its length) or raw text (the bytes, the hit's place in them) */
  private items: (number | Buffer)[] = [];
  private rawBytes = 0;

  /**
   * `isOutput`: the harness's test of a line of tool output (checked again on the bytes read back),
   * or none when lines cannot be held here.
   */
  constructor(
    private readonly file: string,
    private readonly isOutput: ((line: Buffer) => boolean) | undefined,
    private readonly decode: (buf: Buffer, s: number, e: number, first: boolean) => void,
    private readonly rawPiece: (bytes: Buffer, at: number) => void,
  ) {}

  /** Hold the line of tool output of `n` bytes at `at`; false when lines are not held here. */
  line(at: number, n: number): boolean {
    if (!this.isOutput) return false;
    this.items.push(at, n);
    return true;
  }

  /** Hold raw text around a hit; past the budget, everything held is handed on now. */
  raw(bytes: Buffer, hitAt: number, moot: Moot, stopped: () => boolean): void {
    this.items.push(bytes, hitAt);
    this.rawBytes += bytes.length;
    if (this.rawBytes > RAW_BUDGET) this.flush(moot, stopped);
  }

  /** Hand on what is held, in file order, while it can change the results. */
  flush(moot: Moot, stopped: () => boolean): void {
    const items = this.items;
    if (items.length === 0) return;
    this.items = [];
    this.rawBytes = 0;
    let fd = -1;
    try {
      for (let k = 0; k < items.length && !stopped(); k += 2) {
        const a = items[k]!;
        const b = items[k + 1] as number;
        if (typeof a !== 'number') {
          if (!moot(false)) this.rawPiece(a, b);
          continue;
        }
        if (moot(true)) continue;
        if (fd < 0) fd = fs.openSync(this.file, 'r');
        const buf = readAt(fd, b, a);
        // the file was cut or rewritten since: what is there now is not the line that was held
        if (!buf || !this.isOutput!(buf.subarray(0, b))) continue;
        this.decode(buf, 0, b, false);
      }
    } finally {
      if (fd >= 0) fs.closeSync(fd);
    }
  }
}
