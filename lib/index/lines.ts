// Streams the complete lines of a file from a byte offset, without holding the file in memory.
// A last line without a newline is left for the next run (a harness may be writing it).
import fs from 'node:fs';
import { fnv1aWords } from '../util/fnv.js';

/**
 * bytes read at a time: 128 KiB stays in the core's cache between the kernel's copy and the parse
 * of it; 1 MiB reads ran ~3x slower here, and a full build of the seed corpus took 2.24 -> 1.72 s
 * (a line longer than this is assembled from its pieces, as before for lines over 1 MiB)
 */
export const CHUNK = 128 << 10;
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

/**
 * Read complete lines in [from, limit). `after`, when given, is called with the file still open
 * once the lines are read (to read back some of them: see Adapter.settle).
 */
export function readLines(
  file: string,
  from: number,
  limit: number,
  onLine: LineFn,
  wantLong?: WantLong,
  maxLine = MAX_LINE,
  after?: (fd: number) => void,
): LinesResult {
  const fd = fs.openSync(file, 'r');
  try {
    const r = readLinesFd(fd, from, limit, onLine, wantLong, maxLine);
    after?.(fd);
    return r;
  } finally {
    fs.closeSync(fd);
  }
}

export function readLinesFd(fd: number, from: number, limit: number, onLine: LineFn, wantLong?: WantLong, maxLine = MAX_LINE): LinesResult {
  // One read buffer per thread, reused from file to file.
  const want = Math.min(CHUNK, Math.max(limit - from, 1));
  if (!readBuf || readBuf.length < want) readBuf = Buffer.allocUnsafe(Math.max(want, Math.min(CHUNK, 64 << 10)));
  const buf = readBuf.length > want ? readBuf.subarray(0, want) : readBuf;
  let filePos = from;
  let offset = from;
  // a line that spans reads
  let pending: Buffer[] = [];
  let plen = 0;
  let over = false; // cut at maxLine
  let asked = false; // wantLong consulted
  let skipping = false; // not wanted: keep head and tail only
  // (while the probe is filled and once skipping: the head in cut[0, PROBE), the tail after it)
  const cut = wantLong ? (cutBuf ??= Buffer.allocUnsafe(PROBE + TAIL)) : null;
  let tailLen = 0;
  let first = from === 0;
  let at = from; // where the line being read starts in the file

  /** the last TAIL bytes seen of a skipped line, at cut[PROBE, PROBE + tailLen) */
  const keepTail = (seg: Buffer) => {
    const c = cut!;
    if (seg.length >= TAIL) {
      seg.copy(c, PROBE, seg.length - TAIL);
      tailLen = TAIL;
      return;
    }
    const drop = Math.max(0, tailLen + seg.length - TAIL);
    if (drop > 0) {
      c.copy(c, PROBE, PROBE + drop, PROBE + tailLen);
      tailLen -= drop;
    }
    seg.copy(c, PROBE + tailLen);
    tailLen += seg.length;
  };
  const keep = (seg: Buffer) => {
    if (skipping) {
      keepTail(seg);
      return;
    }
    if (over) return;
    if (wantLong && !asked) {
      // Copy only what the probe needs before asking: an unwanted line of megabytes is never copied.
      const c = cut!;
      const need = PROBE - plen;
      if (seg.length < need) {
        seg.copy(c, plen);
        plen += seg.length;
        return;
      }
      asked = true;
      seg.copy(c, plen, 0, need);
      if (!wantLong(c.subarray(0, PROBE))) {
        skipping = true;
        tailLen = 0;
        keepTail(seg.subarray(need));
        plen = 0;
        return;
      }
      // wanted: the probe's bytes so far are the line's first (seg is taken whole below)
      pending = plen > 0 ? [Buffer.from(c.subarray(0, plen))] : [];
    }
    const room = maxLine - plen;
    const take = Math.min(room, seg.length);
    if (take > 0) {
      pending.push(Buffer.from(seg.subarray(0, take)));
      plen += take;
    }
    if (seg.length > room) over = true;
  };
  const reset = () => {
    pending = [];
    plen = 0;
    over = false;
    asked = false;
    skipping = false;
    tailLen = 0;
  };

  // what the fingerprint (tailHex) needs, from the reads themselves when they hold it: the file's
  // first bytes (a read from 0) and the last read's window [lastAt, lastAt + lastN) of buf
  let head: Buffer | null = null;
  let lastAt = -1;
  let lastN = 0;
  while (filePos < limit) {
    const want = Math.min(buf.length, limit - filePos);
    const n = fs.readSync(fd, buf, 0, want, filePos);
    if (n <= 0) break;
    lastAt = filePos;
    lastN = n;
    let s = 0;
    if (first) {
      first = false;
      if (n >= 3 && buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf) at = s = 3; // UTF-8 BOM
      head = (headBuf ??= Buffer.allocUnsafe(HEAD_FP)).subarray(0, Math.min(n, HEAD_FP));
      buf.copy(head, 0, 0, head.length);
    }
    for (;;) {
      const nl = buf.indexOf(10, s);
      if (nl < 0 || nl >= n) break;
      if (plen === 0 && !over && !skipping) {
        let e = nl;
        if (e > s && buf[e - 1] === 13) e--; // CRLF
        if (e - s > maxLine) onLine(buf, s, s + maxLine, false, at);
        else onLine(buf, s, e, true, at);
      } else {
        keep(buf.subarray(s, nl));
        if (skipping) onLine(cut!, 0, PROBE + tailLen, false, at);
        else if (wantLong && !asked) {
          // the whole line is in the probe (it ended before PROBE bytes)
          let e = plen;
          if (e > 0 && cut![e - 1] === 13) e--;
          onLine(cut!, 0, e, true, at);
        } else {
          const line = pending.length === 1 ? pending[0]! : Buffer.concat(pending, plen);
          let e = line.length;
          if (!over && e > 0 && line[e - 1] === 13) e--;
          onLine(line, 0, e, !over, at);
        }
        reset();
      }
      at = offset = filePos + nl + 1;
      s = nl + 1;
    }
    if (s < n) keep(buf.subarray(s, n));
    filePos += n;
  }
  return { offset, tail: tailHex(fd, offset, head, buf, lastAt, lastN) };
}

/** bytes of a file's start in its fingerprint */
const HEAD_FP = 4096;
/** bytes before the offset in it */
const TAIL_FP = 32;
/** a copy of the first bytes of the file being read from 0 (one per thread) */
let headBuf: Buffer | null = null;

/**
 * The fingerprint of a file's bytes before `offset` (LinesResult.tail). `head`: the file's first
 * bytes, and `win`: bytes [winAt, winAt + winLen) of it, when the caller has them (the reads of a
 * parse do: two reads a file fewer, ~20 µs here, 0.4 s of a 22,000-file build); what they do not
 * hold is read.
 */
export function tailHex(fd: number, offset: number, head?: Buffer | null, win?: Buffer, winAt = -1, winLen = 0): string {
  if (offset === 0) return '';
  const hl = Math.min(HEAD_FP, offset);
  const h = head && head.length >= hl ? head.subarray(0, hl) : readAt(fd, hl, 0);
  const len = Math.min(TAIL_FP, offset);
  const t =
    win && winAt >= 0 && offset - len >= winAt && offset <= winAt + winLen
      ? win.subarray(offset - len - winAt, offset - winAt)
      : readAt(fd, len, offset - len);
  return fnv1aWords(h).toString(16) + ':' + t.toString('hex');
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
