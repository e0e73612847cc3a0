// Streams the complete lines of a file from a byte offset, without holding the file in memory.
// A last line without a newline is left for the next run (a harness may be writing it).
import fs from 'node:fs';
import { createHash } from 'node:crypto';

export const CHUNK = 1 << 20;
/** Lines longer than this are handed over cut (complete = false); memory stays bounded. */
export const MAX_LINE = 16 << 20;

export type LineFn = (buf: Buffer, start: number, end: number, complete: boolean) => void;

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

/** Read complete lines in [from, limit). */
export function readLines(file: string, from: number, limit: number, onLine: LineFn, maxLine = MAX_LINE): LinesResult {
  const fd = fs.openSync(file, 'r');
  try {
    return readLinesFd(fd, from, limit, onLine, maxLine);
  } finally {
    fs.closeSync(fd);
  }
}

export function readLinesFd(fd: number, from: number, limit: number, onLine: LineFn, maxLine = MAX_LINE): LinesResult {
  const buf = Buffer.allocUnsafe(Math.min(CHUNK, Math.max(limit - from, 1)));
  let filePos = from;
  let offset = from;
  const pending: Buffer[] = [];
  let plen = 0;
  let over = false;
  let first = from === 0;
  while (filePos < limit) {
    const want = Math.min(buf.length, limit - filePos);
    const n = fs.readSync(fd, buf, 0, want, filePos);
    if (n <= 0) break;
    let s = 0;
    if (first) {
      first = false;
      if (n >= 3 && buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf) s = 3; // UTF-8 BOM
    }
    for (;;) {
      const nl = buf.indexOf(10, s);
      if (nl < 0 || nl >= n) break;
      if (plen === 0 && !over) {
        let e = nl;
        if (e > s && buf[e - 1] === 13) e--; // CRLF
        if (e - s > maxLine) onLine(buf, s, s + maxLine, false);
        else onLine(buf, s, e, true);
      } else {
        if (!over) {
          const room = maxLine - plen;
          const take = Math.min(room, nl - s);
          if (take > 0) {
            pending.push(Buffer.from(buf.subarray(s, s + take)));
            plen += take;
          }
          if (nl - s > room) over = true;
        }
        let line = pending.length === 1 ? pending[0]! : Buffer.concat(pending, plen);
        let e = line.length;
        if (!over && e > 0 && line[e - 1] === 13) e--;
        onLine(line, 0, e, !over);
        line = Buffer.alloc(0);
        pending.length = 0;
        plen = 0;
        over = false;
      }
      offset = filePos + nl + 1;
      s = nl + 1;
    }
    if (s < n && !over) {
      const room = maxLine - plen;
      const take = Math.min(room, n - s);
      if (take > 0) {
        pending.push(Buffer.from(buf.subarray(s, s + take)));
        plen += take;
      }
      if (n - s > room) over = true;
    }
    filePos += n;
  }
  return { offset, tail: tailHex(fd, offset) };
}

export function tailHex(fd: number, offset: number): string {
  if (offset === 0) return '';
  const headLen = Math.min(4096, offset);
  const head = Buffer.alloc(headLen);
  fs.readSync(fd, head, 0, headLen, 0);
  const len = Math.min(32, offset);
  const b = Buffer.alloc(len);
  fs.readSync(fd, b, 0, len, offset - len);
  return createHash('sha1').update(head).digest('hex').slice(0, 16) + ':' + b.toString('hex');
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
