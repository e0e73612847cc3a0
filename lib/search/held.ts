// Tool output held back while a transcript is searched. Tool output weighs least of all text
// (score.ts), and a group stops wanting it once it has its hits and its kept ones outweigh it
// (`outputMoot`). Taken in file order, the tool results between the prompts and replies were
// decoded before that point: a word in every file decoded ~60 MB of pi tool results at 686
// sessions, almost none of which could be shown. Held to the end of the file instead, they are
// decoded only if the rest of the file left them something to change, in file order, until they
// no longer can.
//
// A held line is copied into one buffer while the lines held in the file fit it (most files: no
// second read, no object per line), else kept as its offset and length and read again from the
// file (a plain file only: a compressed one is decoded as it comes). Raw text around a hit in a line
// too long to decode is kept as the copy it already is, up to a budget, past which what is held is
// handed on at once.
import fs from 'node:fs';
import { readFully } from '../util/fsx.js';

/** bytes of raw text held before what is held is handed on (memory stays bounded) */
const RAW_BUDGET = 1 << 20;
/** bytes of lines held as copies; past them, a line is held by its place in the file */
const COPY_BUDGET = 2 << 20;

/** what an item is: a line copied, a line held by its place in the file, raw text */
const COPIED = 0;
const PLACE = 1;
const RAW = 2;

/** lines of a file can be held (read again by offset): not in a compressed file */
export const canHoldLines = (file: string): boolean => !file.endsWith('.zst');

/** buffers kept for the thread between files: where lines are copied, where they are read back */
let spareCopies: Buffer | null = null;
let spareRead: Buffer | null = null;

function readAt(fd: number, n: number, at: number): Buffer | null {
  const buf = spareRead && spareRead.length >= n ? spareRead : Buffer.allocUnsafe(Math.max(n, 64 << 10));
  if (buf.length <= 16 << 20) spareRead = buf;
  return readFully(fd, buf, 0, n, at) === n ? buf : null;
}

/**
 * `moot(line)`: whether held text could no longer change the results (`line`: a line from a record
 * with an id, else raw text); it stays so once it is. `stopped()`: the file's search was ended.
 */
export type Moot = (line: boolean) => boolean;

export class Held {
  /** in file order, three numbers each: the kind, then (start, length) of a copy or of a place in the file, or (index in `raws`, the hit's place in it) */
  private items: number[] = [];
  private raws: Buffer[] = [];
  private rawBytes = 0;
  private copies: Buffer | null = null;
  private copied = 0;

  /**
   * `isOutput`: the harness's test of a line of tool output (checked again on the bytes read back),
   * or none when lines cannot be held here.
   */
  constructor(
    private readonly file: string,
    private readonly isOutput: ((line: Buffer) => boolean) | undefined,
    private readonly decode: (buf: Buffer, s: number, e: number, first: boolean) => void,
    private readonly rawPiece: (bytes: Buffer, at: number) => void,
    private readonly copyBudget = COPY_BUDGET,
  ) {}

  /** something is held */
  get holding(): boolean {
    return this.items.length > 0;
  }

  /**
   * Hold the line of tool output `buf[s, e)`, which starts at `at` in the file; false when lines
   * are not held here.
   */
  line(buf: Buffer, s: number, e: number, at: number): boolean {
    if (!this.isOutput) return false;
    const n = e - s;
    if (this.copied + n <= this.copyBudget) {
      let c = this.copies;
      if (!c || c.length < this.copied + n) {
        // grown by doubling up to the budget, from the thread's spare when it is large enough
        const want = Math.min(this.copyBudget, Math.max(64 << 10, 2 * (this.copied + n)));
        const nc = !c && spareCopies && spareCopies.length >= want ? spareCopies : Buffer.allocUnsafe(want);
        if (nc === spareCopies) spareCopies = null;
        if (c) c.copy(nc, 0, 0, this.copied);
        c = this.copies = nc;
      }
      buf.copy(c, this.copied, s, e);
      this.items.push(COPIED, this.copied, n);
      this.copied += n;
    } else this.items.push(PLACE, at, n);
    return true;
  }

  /** Hold raw text around a hit; past the budget, everything held is handed on now. */
  raw(bytes: Buffer, hitAt: number, moot: Moot, stopped: () => boolean): void {
    this.items.push(RAW, this.raws.length, hitAt);
    this.raws.push(bytes);
    this.rawBytes += bytes.length;
    if (this.rawBytes > RAW_BUDGET) this.flush(moot, stopped);
  }

  /** Hand on what is held, in file order, while it can change the results. */
  flush(moot: Moot, stopped: () => boolean): void {
    const { items, raws, copies } = this;
    if (items.length === 0) return;
    this.items = [];
    this.raws = [];
    this.rawBytes = 0;
    this.copied = 0;
    this.copies = null;
    let fd = -1;
    try {
      for (let k = 0; k < items.length && !stopped(); k += 3) {
        const kind = items[k];
        const a = items[k + 1];
        const n = items[k + 2];
        if (kind === RAW) {
          if (!moot(false)) this.rawPiece(raws[a], n);
          continue;
        }
        if (moot(true)) continue;
        if (kind === COPIED) {
          if (copies) this.decode(copies, a, a + n, false);
          continue;
        }
        if (fd < 0) fd = fs.openSync(this.file, 'r');
        const buf = readAt(fd, n, a);
        // the file was cut or rewritten since: what is there now is not the line that was held
        if (!buf || !this.isOutput?.(buf.subarray(0, n))) continue;
        this.decode(buf, 0, n, false);
      }
    } finally {
      if (fd >= 0) fs.closeSync(fd);
      if (copies && copies.length <= COPY_BUDGET && (!spareCopies || spareCopies.length < copies.length)) spareCopies = copies;
    }
  }
}
