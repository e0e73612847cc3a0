// Streams the complete lines of a file from a byte offset, without holding the file in memory.
// A last line without a newline is left for the next run (a harness may be writing it).
import fs from 'node:fs';
import { fnv1aWords } from '../util/fnv.js';
import { CHUNK } from '../util/fsx.js';

/** Lines longer than this are handed over cut (complete = false); memory stays bounded. */
export const MAX_LINE = 16 << 20;

/** `at`: where the line starts in the file (its bytes are `buf[start, end)`, CR of a CRLF left out). */
export type LineFn = (buf: Buffer, start: number, end: number, complete: boolean, at: number) => void;

export interface LinesResult {
  /** file offset just past the last newline consumed */
  offset: number;
  /**
   * A fingerprint of the bytes already consumed: the first 4 KiB and the 32 bytes before `offset`.
   * A file that grew but no longer starts or continues the same way was rewritten (pi migrates
   * old files in place) and is parsed again from byte 0. A rewrite that changes only bytes in
   * between is not noticed until the file shrinks; reading them all would defeat the offset.
   */
  tail: string;
}

/**
 * Asked about a line longer than what one read holds, once its first `PROBE` bytes are in: is the
 * whole line worth assembling? When not, only its first and last bytes are kept and handed over
 * with `complete = false` (tool output of many megabytes is never copied or decoded).
 */
export type WantLong = (head: Buffer) => boolean;

export const PROBE = 8192;
let readBuf: Buffer | null = null;
const TAIL = 1024;
/**
 * A line not worth assembling, as it is handed over: its first PROBE bytes, then its last TAIL
 * bytes (one per thread, reused from line to line, as the read buffer is: a handler copies what it
 * keeps of a line). A fresh buffer for each piece of it was ~5% of a build of 686 files with 3,300
 * such lines.
 */
let cutBuf: Buffer | null = null;

/** What a read of lines may be given besides its range and handler. */
export interface LinesOpts {
  /** asked about each line longer than one read (see WantLong) */
  wantLong?: WantLong;
  /** lines longer are handed over cut (MAX_LINE unless given) */
  maxLine?: number;
  /** called with the file still open once the lines are read (to read back some of them: see LineReader.settle) */
  after?: (fd: number) => void;
}

/** Read complete lines in [from, limit). */
export function readLines(file: string, from: number, limit: number, onLine: LineFn, opts: LinesOpts = {}): LinesResult {
  const fd = fs.openSync(file, 'r');
  try {
    const r = readLinesFd(fd, from, limit, onLine, opts);
    opts.after?.(fd);
    return r;
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * A line that spans reads, as it is gathered (one per file read). The read loop hands it the line's
 * pieces and, at the newline, has it hand the line over; the fields are what both look at between
 * pieces. (A class, not closures over the read's locals: the same loads, and the steps are named.)
 */
class Spanning {
  /** the wanted line's pieces, copied (the read buffer is reused) */
  pending: Buffer[] = [];
  /** bytes gathered: in pending, or in the probe while wantLong is not yet asked */
  plen = 0;
  /** cut at maxLine */
  over = false;
  /** wantLong consulted */
  asked = false;
  /** not wanted: keep head and tail only */
  skipping = false;
  /** bytes of the tail kept, at cut[PROBE, PROBE + tailLen) */
  tailLen = 0;

  constructor(
    /** while the probe is filled and once skipping: the head in cut[0, PROBE), the tail after it */
    private readonly cut: Buffer,
    private readonly wantLong: WantLong | undefined,
    private readonly maxLine: number,
  ) {}

  /** the last TAIL bytes seen of a skipped line, at cut[PROBE, PROBE + tailLen) */
  keepTail(seg: Buffer): void {
    const c = this.cut;
    if (seg.length >= TAIL) {
      seg.copy(c, PROBE, seg.length - TAIL);
      this.tailLen = TAIL;
      return;
    }
    const drop = Math.max(0, this.tailLen + seg.length - TAIL);
    if (drop > 0) {
      c.copy(c, PROBE, PROBE + drop, PROBE + this.tailLen);
      this.tailLen -= drop;
    }
    seg.copy(c, PROBE + this.tailLen);
    this.tailLen += seg.length;
  }

  /** Take the next piece of the line. */
  keep(seg: Buffer): void {
    if (this.skipping) {
      this.keepTail(seg);
      return;
    }
    if (this.over) return;
    if (this.wantLong && !this.asked && !this.probe(seg, this.wantLong)) return;
    const room = this.maxLine - this.plen;
    const take = Math.min(room, seg.length);
    if (take > 0) {
      this.pending.push(Buffer.from(seg.subarray(0, take)));
      this.plen += take;
    }
    if (seg.length > room) this.over = true;
  }

  /**
   * Fill the probe from `seg`, and ask once it is full. Copies only what the probe needs before
   * asking: an unwanted line of megabytes is never copied. True when `seg` is still to be taken whole
   * (the line is wanted).
   */
  private probe(seg: Buffer, wantLong: WantLong): boolean {
    const c = this.cut;
    const need = PROBE - this.plen;
    if (seg.length < need) {
      seg.copy(c, this.plen);
      this.plen += seg.length;
      return false;
    }
    this.asked = true;
    seg.copy(c, this.plen, 0, need);
    if (!wantLong(c.subarray(0, PROBE))) {
      this.skipping = true;
      this.tailLen = 0;
      this.keepTail(seg.subarray(need));
      this.plen = 0;
      return false;
    }
    // wanted: the probe's bytes so far are the line's first
    this.pending = this.plen > 0 ? [Buffer.from(c.subarray(0, this.plen))] : [];
    return true;
  }

  /** Hand the gathered line over (its newline was read), and start the next. */
  end(onLine: LineFn, at: number): void {
    if (this.skipping) onLine(this.cut, 0, PROBE + this.tailLen, false, at);
    else if (this.wantLong && !this.asked) {
      // the whole line is in the probe (it ended before PROBE bytes)
      let e = this.plen;
      if (e > 0 && this.cut[e - 1] === 13) e--;
      onLine(this.cut, 0, e, true, at);
    } else {
      const one = this.pending[0];
      const line = this.pending.length === 1 && one ? one : Buffer.concat(this.pending, this.plen);
      let e = line.length;
      if (!this.over && e > 0 && line[e - 1] === 13) e--;
      onLine(line, 0, e, !this.over, at);
    }
    this.pending = [];
    this.plen = 0;
    this.over = false;
    this.asked = false;
    this.skipping = false;
    this.tailLen = 0;
  }
}

export function readLinesFd(fd: number, from: number, limit: number, onLine: LineFn, opts: LinesOpts = {}): LinesResult {
  const maxLine = opts.maxLine ?? MAX_LINE;
  // One read buffer per thread, reused from file to file.
  const want = Math.min(CHUNK, Math.max(limit - from, 1));
  if (!readBuf || readBuf.length < want) readBuf = Buffer.allocUnsafe(Math.max(want, Math.min(CHUNK, 64 << 10)));
  const buf = readBuf.length > want ? readBuf.subarray(0, want) : readBuf;
  cutBuf ??= Buffer.allocUnsafe(PROBE + TAIL);
  const sc: Scan = { buf, span: new Spanning(cutBuf, opts.wantLong, maxLine), onLine, maxLine, filePos: from, offset: from, at: from };
  let first = from === 0;

  // what the fingerprint (tailHex) needs, from the reads themselves when they hold it: the file's
  // first bytes (a read from 0) and the last read's window [lastAt, lastAt + lastN) of buf
  let head: Buffer | null = null;
  let lastAt = -1;
  let lastN = 0;
  while (sc.filePos < limit) {
    const n = fs.readSync(fd, buf, 0, Math.min(buf.length, limit - sc.filePos), sc.filePos);
    if (n <= 0) break;
    lastAt = sc.filePos;
    lastN = n;
    let s = 0;
    if (first) {
      first = false;
      if (n >= 3 && buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf) s = 3; // UTF-8 BOM
      sc.at = s;
      head = firstBytes(buf, n);
    }
    scanRead(sc, s, n);
    sc.filePos += n;
  }
  return { offset: sc.offset, tail: tailHex(fd, sc.offset, { head, win: buf, winAt: lastAt, winLen: lastN }) };
}

/** One file's read of lines, from read to read. */
interface Scan {
  /** the read buffer: bytes [filePos, filePos + n) of the file after a read */
  buf: Buffer;
  span: Spanning;
  onLine: LineFn;
  maxLine: number;
  /** where the read buffer starts in the file */
  filePos: number;
  /** just past the last newline consumed */
  offset: number;
  /** where the line being read starts in the file */
  at: number;
}

/** Hand over the lines that end in the read buffer's bytes [s, n), and keep what follows the last. */
function scanRead(sc: Scan, s: number, n: number): void {
  // locals for the loop (one object read per read, not per line)
  const { buf, span, onLine, maxLine, filePos } = sc;
  let at = sc.at;
  for (;;) {
    const nl = buf.indexOf(10, s);
    if (nl < 0 || nl >= n) break;
    // no line being gathered: this one is whole in the read buffer (the fields, not a getter: once a line)
    if (span.plen === 0 && !span.over && !span.skipping) {
      let e = nl;
      if (e > s && buf[e - 1] === 13) e--; // CRLF
      if (e - s > maxLine) onLine(buf, s, s + maxLine, false, at);
      else onLine(buf, s, e, true, at);
    } else {
      span.keep(buf.subarray(s, nl));
      span.end(onLine, at);
    }
    at = filePos + nl + 1;
    sc.offset = at;
    s = nl + 1;
  }
  sc.at = at;
  if (s < n) span.keep(buf.subarray(s, n));
}

/** A copy of the file's first bytes from the first read of it (one buffer per thread). */
function firstBytes(buf: Buffer, n: number): Buffer {
  headBuf ??= Buffer.allocUnsafe(HEAD_FP);
  const head = headBuf.subarray(0, Math.min(n, HEAD_FP));
  buf.copy(head, 0, 0, head.length);
  return head;
}

/** bytes of a file's start in its fingerprint */
const HEAD_FP = 4096;
/** bytes before the offset in it */
const TAIL_FP = 32;
/** a copy of the first bytes of the file being read from 0 (one per thread) */
let headBuf: Buffer | null = null;

/** What a caller already holds of a file, for tailHex: its first bytes, and bytes [winAt, winAt + winLen) of it in `win`. */
export interface HeldBytes {
  head: Buffer | null;
  win: Buffer;
  winAt: number;
  winLen: number;
}

/**
 * The fingerprint of a file's bytes before `offset` (LinesResult.tail). `held`: what the caller has
 * of the file (the reads of a parse do: two reads a file fewer, ~20 µs here, 0.4 s of a 22,000-file
 * build); what it does not hold is read.
 */
export function tailHex(fd: number, offset: number, held?: HeldBytes): string {
  if (offset === 0) return '';
  const hl = Math.min(HEAD_FP, offset);
  const head = held?.head;
  const h = head && head.length >= hl ? head.subarray(0, hl) : readAt(fd, hl, 0);
  const len = Math.min(TAIL_FP, offset);
  const t =
    held && held.winAt >= 0 && offset - len >= held.winAt && offset <= held.winAt + held.winLen
      ? held.win.subarray(offset - len - held.winAt, offset - held.winAt)
      : readAt(fd, len, offset - len);
  return `${fnv1aWords(h).toString(16)}:${t.toString('hex')}`;
}

function readAt(fd: number, len: number, pos: number): Buffer {
  const b = Buffer.alloc(len);
  fs.readSync(fd, b, 0, len, pos);
  return b;
}

/** True when the bytes before `offset` still match what was seen (the file was appended to, not rewritten). */
export function tailMatches(file: string, offset: number, tail: string): boolean {
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch {
    return false;
  }
  try {
    return tailHex(fd, offset) === tail;
  } finally {
    fs.closeSync(fd);
  }
}
